//! Families on constructed sides: the run-to-run noise each rests on, the
//! false discovery rate, and a regression at one point against one across
//! the experiment's points.

use super::super::pool::{Series, Side};
use super::super::{compare_at, Comparison, Row};
use crate::results::{Better, Labels, Unit};
use crate::stats::noise::{Basis, FLOOR};
use crate::stats::twoside::RunFig;
use crate::stats::Verdict;

/// 8 rounds of 20 samples around `median`, each round's median moved by a
/// fixed pattern of ±`spread` (in logs), `trend` added over the rounds.
fn rounds(median: f64, spread: f64, trend: f64) -> Vec<Vec<f64>> {
    let pattern = [0.0, 1.0, -1.0, 0.5, -0.5, 1.0, -1.0, 0.0];
    (0..8)
        .map(|r| {
            let m = median * (spread * pattern[r] + trend * r as f64 / 7.0).exp();
            (0..20)
                .map(|i| m * (1.0 + 0.002 * ((i % 5) as f64 - 2.0)))
                .collect()
        })
        .collect()
}

/// A series of `exp` at `point` with label heap=`heap` and method=`method`,
/// summarised from one run's rounds as `pool` does.
fn series(exp: &str, point: usize, heap: &str, method: &str, r: &[Vec<f64>]) -> Series {
    let mut labels = Labels::new();
    labels.insert("heap".into(), heap.into());
    // the same dimension named twice, as spawn.heap does (words and bytes):
    // freed together, or every line would hold one point
    labels.insert("heap_bytes".into(), format!("{heap} in bytes"));
    labels.insert("method".into(), method.into());
    let summary = crate::results::summarize_series(exp, "lifecycle", &labels, r).unwrap();
    let se = summary.se_ln.unwrap();
    Series {
        experiment: exp.into(),
        metric: "lifecycle".into(),
        labels,
        unit: Unit::Ns,
        better: Better::Lower,
        runs: vec![RunFig {
            ln_median: summary.median.ln(),
            se2: se * se,
            rounds: summary.rounds,
        }],
        spread2: crate::stats::noise::spread2(&summary.round_medians)
            .into_iter()
            .collect(),
        summary,
        flagged: None,
        huge_kib: vec![],
        point: Some(point),
        rounds_ln: vec![],
        canary_ln: vec![],
        syscall_ln: vec![],
        band: None,
    }
}

fn side(series: Vec<Series>) -> Side {
    Side {
        series,
        runs: 1,
        ..Side::default()
    }
}

const HEAPS: [&str; 4] = ["0", "64MiB", "256MiB", "1GiB"];
const METHODS: [&str; 3] = ["fork", "vfork", "posix_spawn"];

/// The sides of an experiment of 4 points × 3 methods, the new side's
/// figures times `k(point, method)`.
fn sides(k: impl Fn(usize, usize) -> f64) -> (Side, Side) {
    let mut b = Vec::new();
    let mut n = Vec::new();
    for (p, heap) in HEAPS.iter().enumerate() {
        for (m, method) in METHODS.iter().enumerate() {
            let base = 1000.0 * (1 + p + m) as f64;
            b.push(series(
                "spawn.heap",
                p,
                heap,
                method,
                &rounds(base, 0.01, 0.0),
            ));
            n.push(series(
                "spawn.heap",
                p,
                heap,
                method,
                &rounds(base * k(p, m), 0.01, 0.0),
            ));
        }
    }
    (side(b), side(n))
}

fn compared(b: &Side, n: &Side, strict: bool) -> Comparison {
    let (rows, found) = compare_at(b, n, 0.05, 1.0, 0.05);
    let shared = rows.len();
    let mut c = Comparison::of(
        (b, vec!["a".into()]),
        (n, vec!["b".into()]),
        shared,
        rows,
        5.0,
    );
    c.discoveries = found;
    c.strict = strict;
    c
}

#[test]
fn a_jump_at_one_point_is_isolated_and_fails_only_with_strict() {
    // every method 40% slower at 256 MiB, nothing else moved
    let (b, n) = sides(|p, _| if p == 2 { 1.4 } else { 1.0 });
    let c = compared(&b, &n, false);
    let (consistent, isolated) = c.regressions();
    assert!(
        consistent.is_empty(),
        "{:?}",
        consistent.iter().map(|r| &r.case).collect::<Vec<_>>()
    );
    assert_eq!(isolated.len(), 3);
    assert!(isolated.iter().all(|r| r.labels["heap"] == "256MiB"));
    assert!(!c.fails());
    assert!(compared(&b, &n, true).fails());
    let text = crate::compare::render::render_at(&c, false, 100);
    assert!(
        text.contains("isolated: 3 regressed rows, spawn.heap at heap=256MiB (3)"),
        "{text}"
    );
}

#[test]
fn a_change_at_most_points_is_consistent_and_fails() {
    // fork 30% slower at three of four points; the other methods unchanged
    let (b, n) = sides(|p, m| if m == 0 && p > 0 { 1.3 } else { 1.0 });
    let c = compared(&b, &n, false);
    let (consistent, isolated) = c.regressions();
    assert_eq!(
        consistent.len(),
        3,
        "{:?}",
        c.rows
            .iter()
            .map(|r| (&r.case, r.verdict))
            .collect::<Vec<_>>()
    );
    assert!(isolated.is_empty());
    assert!(consistent.iter().all(|r| r.labels["method"] == "fork"));
    assert!(c.fails());
}

/// One point's sides, each method's rounds spread by `spread(method)`.
fn one_point(spread: impl Fn(usize) -> f64) -> (Side, Side) {
    let mut b = Vec::new();
    let mut n = Vec::new();
    for (m, method) in METHODS.iter().enumerate() {
        let base = 1000.0 * (m + 1) as f64;
        let r = rounds(base, spread(m), 0.0);
        b.push(series("spawn.heap", 0, "0", method, &r));
        n.push(series("spawn.heap", 0, "0", method, &r));
    }
    (side(b), side(n))
}

#[test]
fn a_family_whose_rounds_agree_rests_on_the_floor() {
    let (b, n) = one_point(|_| 0.0);
    let (rows, found) = compare_at(&b, &n, 0.05, 1.0, 0.05);
    assert_eq!(found.families, 1);
    assert_eq!(found.selected, 0);
    for r in &rows {
        assert_eq!(r.noise_basis, Basis::Floor);
        assert!((r.run_noise_pct - FLOOR * 100.0).abs() < 1e-9);
        assert_eq!(r.verdict, Verdict::Unchanged, "{}", r.case);
        // the change called 80% of the time is beyond the one called half the time
        assert!(r.mde80 > r.mde);
    }
}

#[test]
fn each_series_takes_a_share_of_its_own_spread_and_the_basis_says_so() {
    // fork's rounds spread 8%, the others' 1%: one family, three figures
    let (b, n) = one_point(|m| if m == 0 { 0.08 } else { 0.01 });
    let (rows, _) = compare_at(&b, &n, 0.05, 1.0, 0.05);
    let noise = |method: &str| {
        let r = rows.iter().find(|r| r.labels["method"] == method).unwrap();
        assert_eq!(r.noise_basis, Basis::Spread);
        r.run_noise_pct
    };
    let (fork, vfork) = (noise("fork"), noise("vfork"));
    assert!(vfork > FLOOR * 100.0, "{vfork}");
    assert!(fork > 4.0 * vfork, "{fork} against {vfork}");
}

#[test]
fn a_change_beyond_the_threshold_in_one_of_many_families_with_a_weak_p_is_not_a_discovery() {
    use super::super::verdict::Row;
    // 100 families of one row; one row's interval is just beyond the
    // threshold (p = 0.02), the others far inside (p = 1)
    let (b, n) = sides(|_, _| 1.0);
    let (rows, _) = compare_at(&b, &n, 0.05, 1.0, 0.05);
    let template: Row = rows[0].clone();
    let mut many: Vec<Row> = (0..100)
        .map(|i| Row {
            family: format!("x #{i}"),
            ..template.clone()
        })
        .collect();
    many[7].verdict = Verdict::Regressed;
    many[7].p = 0.02;
    let found = super::control(&mut many, 0.05);
    assert_eq!(found.not_discovered, 1);
    assert_eq!(many[7].verdict, Verdict::Inconclusive);
    assert!(many[7]
        .inconclusive
        .as_ref()
        .map(|i| i.why.as_str())
        .unwrap()
        .contains("not a discovery"));
    // a strong one is kept
    many[7].verdict = Verdict::Regressed;
    many[7].inconclusive = None;
    many[7].p = 1e-6;
    let found = super::control(&mut many, 0.05);
    assert_eq!(found.not_discovered, 0);
    assert_eq!(many[7].verdict, Verdict::Regressed);
}

#[test]
fn noisy_neighbours_whose_estimates_drifted_up_do_not_make_a_jump_consistent() {
    // rounds 8% apart: each point's interval is wide; the other points'
    // estimates +6% (within what their intervals allow), one point +40%
    let mut b = Vec::new();
    let mut n = Vec::new();
    for (p, heap) in HEAPS.iter().enumerate() {
        let k = if p == 2 { 1.4 } else { 1.06 };
        b.push(series(
            "spawn.heap",
            p,
            heap,
            "fork",
            &rounds(1000.0, 0.08, 0.0),
        ));
        n.push(series(
            "spawn.heap",
            p,
            heap,
            "fork",
            &rounds(1000.0 * k, 0.08, 0.0),
        ));
    }
    let (b, n) = (side(b), side(n));
    let c = compared(&b, &n, false);
    let (consistent, isolated) = c.regressions();
    assert!(consistent.is_empty());
    assert_eq!(
        isolated.len(),
        1,
        "{:?}",
        c.rows
            .iter()
            .map(|r| (&r.case, r.change, r.ci_lo))
            .collect::<Vec<_>>()
    );
}

/// Issue 37's review: a clock read in 10 ns steps, two runs whose medians
/// sit one step apart, every round alike: the change is not told apart
/// from none (the half-steps are a bounded error, taken end to end).
#[test]
fn medians_one_clock_step_apart_are_not_a_regression() {
    let steps = |lo: usize, hi: usize| -> Vec<f64> {
        std::iter::repeat_n(55.9, lo)
            .chain(std::iter::repeat_n(65.9, hi))
            .collect()
    };
    let b = Series::of_runs(
        "test.x",
        "join_ns",
        Labels::new(),
        (Unit::Ns, Better::Lower),
        &[vec![steps(50, 30); 8]],
    )
    .unwrap();
    let n = Series::of_runs(
        "test.x",
        "join_ns",
        Labels::new(),
        (Unit::Ns, Better::Lower),
        &[vec![steps(30, 50); 8]],
    )
    .unwrap();
    let (rows, _) = compare_at(&side(vec![b]), &side(vec![n]), 0.05, 1.0, 0.05);
    assert_ne!(
        rows[0].verdict,
        Verdict::Regressed,
        "{:?}",
        (rows[0].change, rows[0].ci_lo, rows[0].ci_hi)
    );
    assert!(rows[0].ci_lo <= 0.0, "{}", rows[0].ci_lo);
}

/// A regression along one point dimension (every heap with one THP
/// setting) while the other setting's points held is consistent.
#[test]
fn a_change_along_one_dimension_of_the_points_is_consistent() {
    let mut b = Vec::new();
    let mut n = Vec::new();
    let mut point = 0;
    for thp in ["system", "on"] {
        for heap in HEAPS {
            let mut labels = Labels::new();
            labels.insert("heap".into(), heap.into());
            labels.insert("thp".into(), thp.into());
            labels.insert("method".into(), "fork".into());
            let k = if thp == "system" { 1.3 } else { 1.0 };
            for (side, factor) in [(&mut b, 1.0), (&mut n, k)] {
                let mut s = Series::of_runs(
                    "spawn.heap",
                    "lifecycle",
                    labels.clone(),
                    (Unit::Ns, Better::Lower),
                    &[rounds(1000.0 * factor, 0.01, 0.0)],
                )
                .unwrap();
                s.point = Some(point);
                side.push(s);
            }
            point += 1;
        }
    }
    let c = compared(&side(b), &side(n), false);
    let (consistent, isolated) = c.regressions();
    assert_eq!(
        consistent.len(),
        4,
        "{:?}",
        isolated.iter().map(|r| &r.case).collect::<Vec<_>>()
    );
    assert!(c.fails());
}

/// An exact change (every pair the same ratio: no error at all) beyond the
/// threshold is a discovery, not "not a discovery at p = 1".
#[test]
fn an_exact_change_is_a_discovery() {
    let (b, n) = sides(|_, _| 1.0);
    let (rows, _) = compare_at(&b, &n, 0.05, 1.0, 0.05);
    let mut one = vec![Row {
        family: "x #0".into(),
        ..rows[0].clone()
    }];
    let exact = crate::stats::Change {
        ratio: 2.0,
        lo: 2.0,
        hi: 2.0,
    };
    let m = super::super::verdict::Measured::of_interval(exact, 0.05);
    assert_eq!(m.p, 0.0);
    one[0].verdict = Verdict::Regressed;
    one[0].p = m.p;
    let found = super::control(&mut one, 0.05);
    assert_eq!(
        (found.not_discovered, one[0].verdict),
        (0, Verdict::Regressed)
    );
}
