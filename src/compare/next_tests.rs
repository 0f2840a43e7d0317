use super::*;
use crate::compare::pool::{self, Series};
use crate::compare::{gate, verdict, Comparison, Row};
use crate::results::{Better, Labels, Unit};
use crate::stats::{self, Verdict};

/// A series of `rounds` rounds whose medians spread by `spread` (0.1 =
/// ±10%) around `median`.
fn series(median: f64, spread: f64, rounds: usize) -> Series {
    let r: Vec<Vec<f64>> = (0..rounds)
        .map(|k| {
            let f = 1.0 + spread * (2.0 * k as f64 / (rounds - 1) as f64 - 1.0);
            (0..20)
                .map(|i| median * f * (1.0 + 0.001 * i as f64))
                .collect()
        })
        .collect();
    Series::of_runs(
        "test.x",
        "m_ns",
        Labels::new(),
        (Unit::Ns, Better::Lower),
        &[r],
    )
    .unwrap()
}

fn setting(runs: usize) -> Setting {
    Setting {
        runs,
        ..Default::default()
    }
}

fn row(b: &Series, n: &Series, threshold: f64, s: &Setting) -> Row {
    let floor = (stats::noise::FLOOR, stats::noise::Basis::Floor);
    verdict::row((b, n), threshold, s, 1.0, true, floor, (0.0, 0.0))
}

/// The `--rounds N` a next step names.
fn rounds_in(next: &str) -> Option<usize> {
    let at = next.find("--rounds ")? + "--rounds ".len();
    next[at..].split(' ').next()?.parse().ok()
}

#[test]
fn rounds_scale_with_the_square_of_the_width_ratio_and_stop_at_the_cap() {
    // Twice as wide as the target: four times the rounds.
    assert_eq!(rounds_to_paired(0.10, 8, 0.05), Narrow::Rounds(32));
    assert_eq!(rounds_to_paired(0.15, 8, 0.05), Narrow::Rounds(72));
    assert_eq!(rounds_to_paired(0.20, 8, 0.05), Narrow::Cap);
    // Always more than were taken, never fewer than the minimum.
    assert_eq!(rounds_to_paired(0.051, 8, 0.05), Narrow::Rounds(9));
    assert_eq!(rounds_to_paired(0.06, 1, 0.05), Narrow::Rounds(3));
    // The run-to-run floor does not shrink with rounds: below it, no
    // number of rounds will do.
    let (b, n) = (series(100.0, 0.2, 8), series(100.0, 0.2, 8));
    let tau = 0.01;
    assert_eq!(
        rounds_to(&b.summary, &n.summary, 1, 0.02, tau),
        Narrow::Floor
    );
    match rounds_to(&b.summary, &n.summary, 1, 0.049, tau) {
        Narrow::Rounds(k) => assert!(k > 8, "{k}"),
        other => assert_eq!(other, Narrow::Cap),
    }
    // From four runs a side, the runs are measured: more runs narrow it.
    assert!(matches!(
        rounds_to(&b.summary, &n.summary, 4, 0.049, tau),
        Narrow::Runs(k) if k > 4
    ));
}

#[test]
fn every_inconclusive_reason_comes_with_a_specific_next_step() {
    let one = setting(1);
    // Too wide: the rounds that would narrow it, runs per side.
    let (b, n) = (series(100.0, 0.08, 8), series(100.0, 0.08, 8));
    let r = row(&b, &n, 0.05, &one);
    assert_eq!(r.reason(), Some(Reason::TooWide), "{r:?}");
    let next = r.inconclusive.clone().unwrap().next;
    let k = rounds_in(&next).unwrap_or_else(|| panic!("{next}"));
    assert!((9..=MAX_ROUNDS).contains(&k), "{next}");
    assert!(
        next.contains("two runs per side (A1 A2 --vs B1 B2)"),
        "{next}"
    );
    assert!(
        !next.contains("--profile thorough") && !next.contains("quieter"),
        "{next}"
    );
    // A wider one needs more rounds.
    let wider = row(&series(100.0, 0.12, 8), &series(100.0, 0.12, 8), 0.05, &one);
    if let Some(k2) = wider
        .inconclusive
        .as_ref()
        .map(|i| i.next.as_str())
        .and_then(rounds_in)
    {
        assert!(k2 > k, "{k2} vs {k}");
    }
    // A quick side, a busy machine, a threshold under the floor.
    let s = Setting {
        quick: true,
        busy: vec!["new: 1.5 runnable tasks of other work".into()],
        ..setting(1)
    };
    let next = row(&b, &n, 0.05, &s).inconclusive.unwrap().next;
    assert!(next.contains("--profile thorough"), "{next}");
    assert!(
        next.contains("a quieter machine (new: 1.5 runnable tasks of other work)"),
        "{next}"
    );
    // ±1% is within the two sides' run-to-run floor (0.5% sd each: a
    // half-width of 1.4%): rounds cannot reach it
    let r = row(&b, &n, 0.01, &one);
    assert_eq!(r.reason(), Some(Reason::TooWide));
    let next = r.inconclusive.unwrap().next;
    assert!(next.contains("runs per side (A1 .. A4"), "{next}");
    // Four runs a side: more runs, not rounds.
    let next = row(&b, &n, 0.05, &setting(4)).inconclusive.unwrap().next;
    assert!(
        next.contains("runs per side with --vs") && rounds_in(&next).is_none(),
        "{next}"
    );
    // ab: its own --rounds, no --vs.
    let ab = Setting {
        ab: true,
        ..setting(1)
    };
    let next = row(&b, &n, 0.05, &ab).inconclusive.unwrap().next;
    assert!(
        rounds_in(&next).is_some() && !next.contains("--vs"),
        "{next}"
    );
    // Near the threshold: which side of it, by rounds.
    let r = row(
        &series(100.0, 0.002, 8),
        &series(105.0, 0.002, 8),
        0.05,
        &one,
    );
    assert_eq!(r.reason(), Some(Reason::NearThreshold), "{r:?}");
    assert!(r.inconclusive.unwrap().next.contains("which side of it"));
    // Flagged, huge pages, no ratio: each its own step.
    let mut f = series(100.0, 0.01, 8);
    f.flagged = Some("b.json: two modes".into());
    let r = row(&series(100.0, 0.01, 8), &f, 0.05, &one);
    assert_eq!(r.reason(), Some(Reason::Flagged));
    assert!(r.inconclusive.unwrap().next.contains("steady"));
    let (mut h1, mut h2) = (series(100.0, 0.01, 8), series(100.0, 0.01, 8));
    (h1.huge_kib, h2.huge_kib) = (vec![0.0], vec![400_000.0]);
    let r = row(&h1, &h2, 0.05, &one);
    assert_eq!(r.reason(), Some(Reason::HugePages));
    assert!(r.inconclusive.unwrap().next.contains("THP"));
    let mut z = series(1.0, 0.5, 8);
    z.unit = Unit::Count;
    z.summary.median = 0.0;
    // a median of zero has no log: no run's figure either
    z.runs.clear();
    let r = row(&z, &series(1.0, 0.01, 8), 0.05, &one);
    assert_eq!(r.reason(), Some(Reason::NoRatio));
    assert!(r.inconclusive.unwrap().next.contains("--all table"));
    // A zero median whose interval reaches above zero is not unchanged.
    let r = row(&z, &z, 0.05, &one);
    assert_eq!(r.verdict, Verdict::Inconclusive, "{r:?}");
}

#[test]
fn unchanged_only_when_the_whole_interval_lies_within_the_threshold() {
    let one = setting(1);
    // Identical sides: the same medians, but only the narrow ones are
    // unchanged; the wide ones say inconclusive with their mde.
    for spread in [0.002, 0.01, 0.05, 0.1, 0.2] {
        let (b, n) = (series(100.0, spread, 8), series(100.0, spread, 8));
        let r = row(&b, &n, 0.05, &one);
        let within = r.ci_lo >= -5.0 && r.ci_hi <= 5.0;
        assert_eq!(r.verdict == Verdict::Unchanged, within, "{r:?}");
        if !within {
            assert_eq!(r.verdict, Verdict::Inconclusive);
            assert!(r
                .inconclusive
                .as_ref()
                .map(|i| i.why.as_str())
                .unwrap()
                .contains(&format!("{:.0}%", r.mde)));
        }
    }
}

fn comparison_of(rows: Vec<Row>) -> Comparison {
    let side = pool::Side::default();
    Comparison::of(
        (&side, vec!["a".into()]),
        (&side, vec!["b".into()]),
        0,
        rows,
        5.0,
    )
}

#[test]
fn the_gates_fail_when_too_little_was_judged_and_say_why_in_one_line() {
    let one = setting(1);
    let tight = |m: f64| series(m, 0.002, 8);
    let decided = row(&tight(100.0), &tight(100.0), 0.05, &one);
    let open = row(&series(100.0, 0.2, 8), &series(100.0, 0.2, 8), 0.05, &one);
    assert_eq!(decided.verdict, Verdict::Unchanged);
    assert_eq!(open.verdict, Verdict::Inconclusive);
    let c = comparison_of(vec![decided.clone(), open.clone(), open.clone(), open]);
    let g = |fail: bool, pct: Option<f64>| crate::cli::GateArgs {
        fail_on_inconclusive: fail,
        min_verdicts: pct,
        ..Default::default()
    };
    assert_eq!(gate::failed(&g(false, None), &c), None);
    let why = gate::failed(&g(true, None), &c).unwrap();
    assert!(why.contains("3 of 4") && why.contains("too imprecise") && !why.contains('\n'));
    assert_eq!(gate::failed(&g(false, Some(25.0)), &c), None);
    let why = gate::failed(&g(false, Some(50.0)), &c).unwrap();
    assert!(why.contains("1 of 4") && why.contains("25.0%"), "{why}");
    let all = comparison_of(vec![decided.clone(), decided]);
    assert_eq!(gate::failed(&g(true, Some(100.0)), &all), None);
    for bad in [-1.0, 100.5, f64::NAN, f64::INFINITY] {
        assert!(gate::check(&g(false, Some(bad))).is_err(), "{bad}");
    }
    assert!(gate::check(&g(true, Some(0.0))).is_ok());
    for bad in [0.0, -5.0, 50.5, f64::NAN] {
        let mut args = g(false, None);
        args.fdr = bad;
        let e = gate::check(&args).unwrap_err();
        assert!(e.0.contains("above 0 and at most 50"), "{bad}: {e:?}");
    }
}

#[test]
fn what_a_side_lacks_is_one_line() {
    let exp = |e: &str, k: usize| {
        (0..k)
            .map(|i| Series {
                experiment: e.into(),
                metric: format!("m{i}"),
                ..series(100.0, 0.01, 8)
            })
            .collect::<Vec<_>>()
    };
    let base = pool::Side {
        series: [exp("a.x", 3), exp("b.y", 4), exp("c.z", 2)].concat(),
        ..Default::default()
    };
    let new = pool::Side {
        series: [exp("a.x", 3), exp("b.y", 1)].concat(),
        partial: vec![("b.y".into(), "2 points failed".into())],
        ..Default::default()
    };
    let shared = crate::compare::pairs(&base, &new).len();
    let m = crate::compare::missing(&base, &new, shared).unwrap();
    assert_eq!(
        m,
        "new lacks 1 experiment of base: c.z; and 3 series of b.y (2 points failed); compared 4 of 9 series"
    );
    assert_eq!(crate::compare::missing(&base, &base, 9), None);
}
