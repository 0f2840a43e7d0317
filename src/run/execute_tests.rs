use super::*;
use crate::results::Unit;
use std::io::{Error, ErrorKind};

#[test]
fn throttling_during_the_run_is_a_warning_only_when_it_grew() {
    use crate::env::Throttling;
    assert_eq!(
        crate::run::busy::throttle_warning(Throttling::default()),
        None
    );
    let w = crate::run::busy::throttle_warning(Throttling {
        nr_throttled: 12,
        throttled_usec: 34_000,
    })
    .unwrap();
    assert!(
        w.contains("throttled it 12 times (34.0 ms held back)"),
        "{w}"
    );
    let before = Throttling {
        nr_throttled: 5,
        throttled_usec: 100,
    };
    assert_eq!(before.since(before), Throttling::default());
    // A counter that went down (a new cgroup) is no growth.
    assert_eq!(Throttling::default().since(before), Throttling::default());
}

#[test]
fn what_did_not_settle_names_the_steal_its_rounds_saw() {
    use crate::experiments::testing::{metric, result, unsettled as flagged};
    use crate::results::{RoundRecord, RoundTelemetry};
    let mut r = result(vec![flagged(metric(
        "x_ns",
        &[("k", "v")],
        &[1.0, 2.0, 3.0],
    ))]);
    let quiet = unsettled(&r).unwrap().0;
    assert!(quiet.starts_with("flagged here: x_ns"), "{quiet}");
    assert!(!quiet.contains("steal"), "{quiet}");
    // 0.2 s stolen of 2 CPUs x 1 s: 10%.
    r.round_log.push(RoundRecord {
        point: 0,
        round: 0,
        telemetry: RoundTelemetry {
            wall_ns: 1e9,
            steal_ns: 0.2e9,
            cpu_steal_ns: vec![0.1e9; 2],
            ..RoundTelemetry::default()
        },
    });
    let noisy = unsettled(&r).unwrap().0;
    assert!(
        noisy.contains(
            "no finding rests on it; over this experiment's rounds, steal was 10% of the CPUs' time"
        ),
        "{noisy}"
    );
}

#[test]
fn only_a_broken_pipe_means_stdout_is_gone() {
    assert!(!broken_pipe(Ok(())).unwrap());
    assert!(broken_pipe(Err(Error::from(ErrorKind::BrokenPipe).into())).unwrap());
    let other = broken_pipe(Err(Error::from(ErrorKind::StorageFull).into()));
    assert!(other.is_err());
    assert!(broken_pipe(Err(anyhow::anyhow!("not io"))).is_err());
}

#[test]
fn a_round_is_complete_when_every_point_that_did_not_fail_ran_it() {
    // Two points; round 0 ran at both, round 1 at point 0 only, round 2 at
    // both: rounds 0 and 2 are complete.
    let ran = [(0, 0), (1, 0), (0, 1), (1, 2), (0, 2)];
    assert_eq!(complete_rounds(2, &[], &ran), vec![0, 2]);
    // Point 1 failed: its rounds are not waited for.
    assert_eq!(complete_rounds(2, &[1], &ran), vec![0, 1, 2]);
    assert!(complete_rounds(2, &[], &[]).is_empty());
}

// ------------------------------------------- the adaptive rounds' stop rule

use crate::measure::protocol::RawSeries;
use crate::run::plan::DEFAULT_PRECISION;

/// yardstick.timer planned at `points` points.
fn timer(points: usize) -> Planned {
    Planned {
        exp: crate::experiments::find("yardstick.timer").unwrap(),
        params: Default::default(),
        points: vec![serde_json::Value::Null; points],
        notes: vec![],
        fewer_than_asked: vec![],
        unsupported: None,
        side: None,
    }
}

/// A round of 20 samples within ±0.5% of `at`, of `call_ns` at `clock`.
fn raw(clock: &str, at: f64, detail: bool) -> RawSeries {
    RawSeries {
        name: "call_ns".into(),
        unit: Some(Unit::Ns),
        labels: [("clock".to_string(), clock.to_string())].into(),
        samples: (0..20)
            .map(|i| at * (1.0 + 0.005 * (i as f64 - 9.5) / 9.5))
            .collect(),
        detail,
    }
}

/// An experiment's state after `rounds`: (point, round) -> its series.
fn pending_of(rounds: Vec<(usize, usize, Vec<RawSeries>)>) -> Pending {
    Pending {
        outputs: rounds
            .into_iter()
            .map(|(point, round, series)| {
                (
                    point,
                    round,
                    WorkerOutput {
                        series,
                        ..WorkerOutput::default()
                    },
                )
            })
            .collect(),
        twins: vec![],
        took_s: vec![],
        jobs_left: 0,
        jobs: 0,
        failed: None,
        failed_points: vec![],
        extra_failed: false,
        extra_notes: vec![],
        reached: vec![],
        summary: None,
        next_round: vec![],
        interrupted: None,
        busy_s: 0.0,
        done: false,
    }
}

/// Round medians that wander up to ±18% around 25 ns, evenly spread (no
/// two groups) and in no order (no trend): imprecise, not flagged.
const WIDE: [f64; 8] = [1.03, 0.87, 1.18, 0.92, 1.08, 0.82, 1.13, 0.97];

/// Round medians within ±0.2% of 25 ns.
const TIGHT: [f64; 8] = [1.0, 1.002, 0.999, 1.001, 0.998, 1.0, 1.002, 0.999];

#[test]
fn a_steady_point_reaches_the_target_and_a_wandering_one_needs_more_rounds() {
    // Point 0 steady, point 1 wandering, over eight rounds.
    let rounds = (0..8)
        .flat_map(|r| {
            [
                (0, r, vec![raw("monotonic", 25.0 * TIGHT[r], false)]),
                (1, r, vec![raw("monotonic", 25.0 * WIDE[r], false)]),
            ]
        })
        .collect();
    let (p, state) = (timer(2), pending_of(rounds));
    let widths: std::collections::BTreeMap<usize, f64> =
        point_widths(&p, &state).into_iter().collect();
    let (steady, wandering) = (widths[&0], widths[&1]);
    assert!(
        steady.is_finite() && steady > 0.0 && steady <= DEFAULT_PRECISION,
        "a steady point: ±{:.2}%",
        100.0 * steady
    );
    assert!(
        wandering > DEFAULT_PRECISION && wandering > steady,
        "a point wandering ±18%: ±{:.2}%",
        100.0 * wandering
    );
    // The bootstrap's interval, checked before a point stops, agrees.
    let exact = point_width_exact(&p, &state, 0);
    assert!(
        exact.is_finite() && exact <= DEFAULT_PRECISION,
        "±{:.2}%",
        100.0 * exact
    );
    assert!(point_width_exact(&p, &state, 1) > DEFAULT_PRECISION);
}

#[test]
fn a_point_is_as_wide_as_its_widest_series_that_counts() {
    // Two series at one point: the wandering one sets the point's width.
    let both = (0..8)
        .map(|r| {
            (
                0,
                r,
                vec![
                    raw("monotonic", 25.0 * TIGHT[r], false),
                    raw("realtime", 25.0 * WIDE[r], false),
                ],
            )
        })
        .collect();
    let p = timer(1);
    let w = point_widths(&p, &pending_of(both));
    assert_eq!(w.len(), 1);
    assert!(w[0].1 > DEFAULT_PRECISION, "±{:.2}%", 100.0 * w[0].1);
    // A series shown only in detail has no target: it never holds the
    // point back, however it wanders.
    let detail = (0..8)
        .map(|r| {
            (
                0,
                r,
                vec![
                    raw("monotonic", 25.0 * TIGHT[r], false),
                    raw("realtime", 25.0 * WIDE[r], true),
                ],
            )
        })
        .collect();
    let w = point_widths(&p, &pending_of(detail));
    assert!(w[0].1 <= DEFAULT_PRECISION, "±{:.2}%", 100.0 * w[0].1);
}

#[test]
fn a_series_that_drifts_one_way_gets_no_more_rounds() {
    // Each round 10% above the last: a trend, which more rounds do not
    // fix, so it does not count against the point.
    let drifting = (0..8)
        .map(|r| {
            (
                0,
                r,
                vec![
                    raw("monotonic", 25.0 * TIGHT[r], false),
                    raw("realtime", 25.0 * 1.1f64.powi(r as i32), false),
                ],
            )
        })
        .collect();
    let w = point_widths(&timer(1), &pending_of(drifting));
    assert!(w[0].1 <= DEFAULT_PRECISION, "±{:.2}%", 100.0 * w[0].1);
}

#[test]
fn under_why_a_figure_comes_from_the_unsampled_rounds_alone() {
    use crate::measure::why::RawStacks;
    let exp = crate::experiments::find("yardstick.timer").unwrap();
    let clock = [("clock".to_string(), "x".to_string())].into();
    let round = |round: usize, at: f64, sampled: bool| {
        let mut out = WorkerOutput {
            series: vec![raw("x", at, false)],
            ..WorkerOutput::default()
        };
        if sampled {
            out.why.push(RawStacks {
                labels: [("clock".to_string(), "x".to_string())].into(),
                user: 10,
                lost: 0,
                kernel: vec![],
            });
        }
        (0, round, out)
    };
    let plain: Vec<_> = (0..4).map(|r| round(r, 100.0, false)).collect();
    // The sampled twins are twice as slow: the figure must not see them.
    let mut twins: Vec<_> = (0..4).map(|r| round(r, 200.0, true)).collect();
    twins[1].2.why_failed = Some("--why: this worker could not sample: EMFILE".into());
    let mut r = ExperimentResult::default_named(exp.name);
    absorb(&mut r, exp, plain.clone(), twins);
    let m = r.metrics.iter().find(|m| m.labels == clock).unwrap();
    let mut alone = ExperimentResult::default_named(exp.name);
    absorb(&mut alone, exp, plain, Vec::new());
    let n = alone.metrics.iter().find(|m| m.labels == clock).unwrap();
    assert_eq!(m.summary, n.summary);
    assert_eq!(m.samples.len(), 80);
    assert!(m.samples.iter().all(|x| *x < 101.0));
    // The twins give the attribution (all user time) and the cost.
    assert_eq!(r.why.len(), 1);
    assert_eq!(r.why[0].samples, 40);
    let o = r.why[0].overhead_of("call_ns", &clock).unwrap();
    assert_eq!(o.pairs, 4);
    assert!((o.ratio - 2.0).abs() < 1e-9, "{o:?}");
    // A twin that could not sample says so in a note.
    assert!(r
        .notes
        .iter()
        .any(|n| n.ends_with("could not sample: EMFILE")));
}

/// Each point's widest interval, as a half-width over its median, among
/// its series that count ([`series_widths`]).
fn point_widths(p: &Planned, state: &Pending) -> Vec<(usize, f64)> {
    series_widths(p, state)
        .into_iter()
        .map(|(point, w)| (point, w.into_iter().fold(0.0, f64::max)))
        .collect()
}
