//! Issue 37: compare names the memory canary's difference between the
//! sides as an environment line, only when the interval of the change lies
//! beyond 20% (20 points for a share).

use super::*;
use crate::results::{Canary, RoundRecord, RoundTelemetry};
use std::path::Path;

/// The fixture run with every round's canary replaced: `fresh(i)` and
/// `in_order(i)` for round i, 24 rounds in its first experiment.
fn run_with(
    fresh: impl Fn(usize) -> Option<f64>,
    in_order: impl Fn(usize) -> Option<f64>,
) -> RunResults {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-results.json");
    let mut r = RunResults::read(&p).unwrap();
    for e in &mut r.experiments {
        e.round_log.clear();
    }
    r.experiments[0].round_log = (0..24)
        .map(|i| {
            let c = Canary {
                syscall_ns: 75.0,
                pipe_ns: 500.0,
                fresh_page_ns: fresh(i),
                fresh_in_order: in_order(i),
                ..Canary::default()
            };
            RoundRecord {
                point: 0,
                round: i,
                telemetry: RoundTelemetry {
                    canary_start: c.clone(),
                    canary_end: c,
                    ..RoundTelemetry::default()
                },
            }
        })
        .collect();
    r
}

/// [`memory_state`] of one run a side.
fn lines(base: &RunResults, new: &RunResults) -> Vec<(String, String, String)> {
    memory_state(std::slice::from_ref(base), std::slice::from_ref(new))
}

/// A figure that varies by ±5% around `x` from round to round.
fn around(x: f64) -> impl Fn(usize) -> Option<f64> {
    move |i| Some(x * (0.95 + 0.1 * (i % 5) as f64 / 4.0))
}

#[test]
fn a_host_whose_fresh_memory_cost_more_is_an_environment_line() {
    let base = run_with(around(1200.0), |_| None);
    let new = run_with(around(9800.0), |_| None);
    assert_eq!(
        lines(&base, &new),
        vec![(
            "the host's memory state differed between the runs (touching fresh memory, per 4 KiB page)".to_string(),
            "1.20 µs".to_string(),
            "9.80 µs".to_string()
        )]
    );
    // the other way round too
    assert_eq!(lines(&new, &base).len(), 1);
    // the same state: no line
    assert!(lines(&base, &run_with(around(1250.0), |_| None)).is_empty());
    // 10% apart, however sure, is not named
    assert!(lines(&base, &run_with(around(1320.0), |_| None)).is_empty());
}

#[test]
fn free_memory_in_order_on_one_side_and_scattered_on_the_other_is_a_line() {
    let ordered = run_with(around(1200.0), |i| Some(0.85 + 0.01 * (i % 5) as f64));
    let scattered = run_with(around(1200.0), |i| Some(0.05 + 0.01 * (i % 5) as f64));
    let said = lines(&ordered, &scattered);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].0.starts_with("the guest's free memory differed"));
    assert_eq!((said[0].1.as_str(), said[0].2.as_str()), ("87%", "7%"));
    // 10 points apart: no line
    let near = run_with(around(1200.0), |i| Some(0.75 + 0.01 * (i % 5) as f64));
    assert!(lines(&ordered, &near).is_empty());
}

#[test]
fn files_without_the_memory_canary_give_no_line() {
    let old = run_with(|_| None, |_| None);
    let new = run_with(around(9800.0), |_| Some(0.9));
    assert!(lines(&old, &new).is_empty());
    assert!(lines(&old, &old).is_empty());
}

#[test]
fn the_line_reaches_the_header_among_the_environment_differences() {
    let base = run_with(around(1200.0), |_| None);
    let new = run_with(around(9800.0), |_| None);
    let c = comparison(
        (std::slice::from_ref(&base), vec!["a.json".into()]),
        (std::slice::from_ref(&new), vec!["b.json".into()]),
        5.0,
        false,
        None,
    )
    .unwrap();
    let text = render::render_at(&c, false, 200);
    assert!(
        text.contains("the host's memory state differed between the runs (touching fresh memory, per 4 KiB page): 1.20 µs -> 9.80 µs"),
        "{text}"
    );
}

/// compare's memory term reads a round's canary as explain does: the log
/// of the geometric mean of its start and end (`Canary::fresh_page_of_round`;
/// session 20's run 1, spawn.heap's rounds 0 and 7: 1,508 and 6,395 ns,
/// 1,288 and 2,257 ns). explain's half is in measure/explain_tests.rs.
#[test]
fn compare_reads_a_rounds_memory_canary_as_one_geometric_mean() {
    let canary = |fresh: f64| Canary {
        syscall_ns: 75.0,
        fresh_page_ns: Some(fresh),
        ..Canary::default()
    };
    let round = |start: f64, end: f64| RoundTelemetry {
        canary_start: canary(start),
        canary_end: canary(end),
        ..RoundTelemetry::default()
    };
    let (r0, r7) = (
        round(1508.037109375, 6394.884765625),
        round(1288.02734375, 2257.318359375),
    );
    let mut e: crate::results::ExperimentResult =
        serde_json::from_value(serde_json::json!({"name": "spawn.heap", "group": "spawn",
            "summary": "", "reproduces": "", "status": "ok", "duration_s": 0.0,
            "params": {}, "metrics": [], "readings": [], "fits": [], "findings": [],
            "notes": []}))
        .unwrap();
    e.round_log = [&r0, &r7]
        .iter()
        .enumerate()
        .map(|(i, t)| RoundRecord {
            point: 0,
            round: i,
            telemetry: (*t).clone(),
        })
        .collect();
    let mut summary = crate::stats::summarize(&[0.9e6, 1e6, 1.1e6]).unwrap();
    summary.median = 1e6;
    let m = crate::results::Metric {
        name: "lifecycle_ns".into(),
        unit: crate::units::Unit::Ns,
        labels: Default::default(),
        summary,
        samples: vec![1e6, 1e6],
        rounds: vec![1, 1],
        detail: false,
        better: crate::results::Better::Lower,
        seed: None,
        point: Some(0),
    };
    let of =
        |t: &RoundTelemetry| Canary::fresh_page_of_round(&t.canary_start, &t.canary_end).unwrap();
    assert!((of(&r0) - 3105.4).abs() < 0.1, "{}", of(&r0));
    let ln = super::pool::memory_canary(&e, &m);
    assert_eq!(ln.len(), 2);
    assert!((ln[0] - of(&r0).ln()).abs() < 1e-12, "{ln:?}");
    assert!((ln[1] - of(&r7).ln()).abs() < 1e-12, "{ln:?}");
}

/// The fixture run with spawn.heap's share of its heap's frames in a row
/// as touched set to `pct` at 1 GiB and 90% at 64 MiB (none when `pct` is
/// None: a run not as root, or an older file).
fn heap_run(pct: Option<f64>) -> RunResults {
    use crate::experiments::spawn::heap::{AS_TOUCHED_CALL, FRAMES_ADJACENT_PCT};
    let mut r = run_with(around(1200.0), |_| None);
    let e = r
        .experiments
        .iter_mut()
        .find(|e| e.name == "spawn.heap")
        .expect("the fixture has spawn.heap");
    e.readings.retain(|x| x.name != FRAMES_ADJACENT_PCT.name);
    let at = |bytes: u64| {
        [
            ("heap", crate::units::fmt_size(bytes)),
            ("heap_bytes", bytes.to_string()),
            ("thp", "system".into()),
            ("call", AS_TOUCHED_CALL.into()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    };
    if let Some(pct) = pct {
        e.readings.push(crate::results::Reading::of(
            &FRAMES_ADJACENT_PCT,
            at(1 << 30),
            pct,
        ));
        e.readings.push(crate::results::Reading::of(
            &FRAMES_ADJACENT_PCT,
            at(64 << 20),
            90.0,
        ));
    }
    r
}

#[test]
fn spawn_heaps_heap_in_a_row_on_one_side_and_scattered_on_the_other_is_a_line() {
    let (in_a_row, scattered) = (heap_run(Some(86.1)), heap_run(Some(0.0)));
    let said = lines(&in_a_row, &scattered);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].0.starts_with("spawn.heap's 1 GiB heap lay in a row differently (its pages in runs of 8 or more frames next to each other"),
        "{said:?}"
    );
    assert_eq!((said[0].1.as_str(), said[0].2.as_str()), ("86%", "0%"));
    // the other way round too
    assert_eq!(lines(&scattered, &in_a_row)[0].2, "86%");
    // the same share, or near it: no line
    assert!(lines(&in_a_row, &heap_run(Some(86.1))).is_empty());
    assert!(lines(&in_a_row, &heap_run(Some(70.0))).is_empty());
    // a side without the reading (a run not as root): nothing said
    assert!(lines(&in_a_row, &heap_run(None)).is_empty());
    assert!(lines(&heap_run(None), &scattered).is_empty());
    // several runs a side: named only when every run of one side lies
    // beyond every run of the other
    let two = |a, b| [heap_run(Some(a)), heap_run(Some(b))];
    assert_eq!(memory_state(&two(80.0, 86.0), &two(0.0, 5.0)).len(), 1);
    assert!(memory_state(&two(80.0, 3.0), &two(0.0, 5.0)).is_empty());
}

/// DAMON (issue 37 item 4, session 23): a kdamond that pages out on one
/// side and not the other is an environment line; a file from before the
/// fact was recorded says nothing of it.
#[test]
fn a_damon_difference_is_an_environment_line_unless_a_side_never_recorded_it() {
    use crate::env::damon::{Damon, DamonSysfs, Kdamond};
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-results.json");
    let base = RunResults::read(&p).unwrap();
    let with = |state: Option<&str>| {
        let mut r = base.clone();
        r.env.facts.damon = state.map(|s| Damon {
            sysfs: DamonSysfs::Kdamonds(vec![Kdamond {
                state: Some(s.to_string()),
                contexts: vec![],
            }]),
            modules: vec![],
        });
        r
    };
    let damon = |a: &RunResults, b: &RunResults| {
        env_differences(a, b)
            .into_iter()
            .find(|(what, _, _)| what == "DAMON")
    };
    let (on, off) = (with(Some("on")), with(Some("off")));
    let (what, b, n) = damon(&on, &off).expect("a DAMON line");
    assert_eq!(what, "DAMON");
    assert!(b.contains(" on") && n.contains(" off"), "{b} / {n}");
    assert!(damon(&on, &on.clone()).is_none());
    assert!(damon(&with(None), &on).is_none());
}

/// Free page reporting's settings (session 24: `min_free_ms` moved the THP
/// figures of parallel.program): a difference is an environment line; the
/// running count is not a setting, and a side that never recorded
/// `min_free_ms` says nothing of it.
#[test]
fn a_page_reporting_difference_is_an_environment_line() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-results.json");
    let base = RunResults::read(&p).unwrap();
    let with = |min_free_ms: Option<u64>, reported_kib: u64| {
        let mut r = base.clone();
        let pr = r
            .env
            .facts
            .page_reporting
            .get_or_insert_with(Default::default);
        (pr.order, pr.reported_kib, pr.min_free_ms) = (9, Some(reported_kib), min_free_ms);
        r
    };
    let line = |a: &RunResults, b: &RunResults| {
        env_differences(a, b)
            .into_iter()
            .find(|(what, _, _)| what == "page reporting")
    };
    let (_, b, n) = line(&with(Some(0), 1), &with(Some(60000), 1)).expect("a line");
    assert_eq!(b, "page_reporting_order 9, min_free_ms 0");
    assert_eq!(n, "page_reporting_order 9, min_free_ms 60000");
    assert!(line(&with(Some(0), 1), &with(Some(0), 99)).is_none());
    assert!(line(&with(None, 1), &with(Some(60000), 1)).is_none());
}
