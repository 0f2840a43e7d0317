//! The A/B verdict on constructed paired rounds: a change the test sets
//! itself, on rounds that drift over the run as a busy machine's do, and
//! drift alike on both rounds of a pair (what the blocks' order is for).

use super::*;
use crate::results::AbRecord;
use crate::stats::Verdict;

/// How far the machine's speed sat from its mean in each round: up to 30%,
/// more than any threshold, so only the pairing can see a change through it.
const DRIFT: [f64; 8] = [1.0, 1.3, 0.8, 1.2, 0.9, 1.25, 0.75, 1.1];

/// A small wobble of one pair's ratio, within ±1%.
const WOBBLE: [f64; 8] = [0.004, -0.007, 0.01, -0.002, 0.006, -0.01, 0.0, 0.003];

/// One round of 20 samples within ±0.5% of `at`.
fn round_at(at: f64) -> Vec<f64> {
    (0..20)
        .map(|i| at * (1.0 + 0.005 * (i as f64 - 9.5) / 9.5))
        .collect()
}

/// An A/B run of yardstick.syscall's series (from the fixture's run): in
/// pair `r`, side A's round at `100 · DRIFT[r]` ns and side B's at `k`
/// times that, wobbled by `WOBBLE[r]`.
fn ab_run(k: f64) -> RunResults {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-results.json");
    let mut r = RunResults::read(&path).unwrap();
    r.warnings.clear();
    let mut e = r
        .experiments
        .iter()
        .find(|e| e.name == "yardstick.syscall")
        .unwrap()
        .clone();
    e.round_log.clear();
    e.metrics.truncate(1);
    let mut sides = Vec::new();
    for (side, factor) in [(Side::A, 1.0), (Side::B, k)] {
        let mut x = e.clone();
        x.side = Some(side);
        let m = &mut x.metrics[0];
        let rounds: Vec<Vec<f64>> = DRIFT
            .iter()
            .zip(WOBBLE)
            .map(|(d, w)| {
                let wobble = if side == Side::B { 1.0 + w } else { 1.0 };
                round_at(100.0 * d * factor * wobble)
            })
            .collect();
        m.samples = rounds.concat();
        m.rounds = vec![20; rounds.len()];
        m.summary = crate::results::summarize_series(&x.name, &m.name, &m.labels, &rounds).unwrap();
        // The drift is the machine's, not the code's: the pairs judge.
        m.summary.unstable = false;
        m.summary.unsettled = None;
        sides.push(x);
    }
    r.experiments = sides;
    r.ab = Some(AbRecord {
        a: vec![Spec::parse("param:x=1").unwrap()],
        b: vec![Spec::parse("param:x=2").unwrap()],
        blocks: 2 * DRIFT.len(),
        judged: None,
        printed: None,
    });
    r
}

/// The one row of `ab_run(k)` at ±5%.
fn row_of(k: f64) -> compare::Row {
    let c = comparison(&ab_run(k), 5.0, 5.0);
    assert_eq!(c.rows.len(), 1, "one series");
    c.rows[0].clone()
}

/// A row's figures in a line, for a failing assertion.
fn said(r: &compare::Row) -> String {
    format!(
        "{:?}: {:+.2}% [{:+.2}%, {:+.2}%] {}",
        r.verdict,
        r.change,
        r.ci_lo,
        r.ci_hi,
        r.inconclusive
            .as_ref()
            .map(|i| i.why.as_str())
            .unwrap_or("")
    )
}

#[test]
fn side_b_twice_side_a_in_every_pair_is_regressed_through_any_drift() {
    let r = row_of(2.0);
    assert_eq!(r.verdict, Verdict::Regressed, "{}", said(&r));
    // the change is the pairs' ratio, within their ±1% wobble of 2
    assert!((r.change - 100.0).abs() < 2.0, "{}", said(&r));
    assert!(r.ci_lo <= r.change && r.change <= r.ci_hi, "{}", said(&r));
    assert!(r.ci_lo > 5.0, "wholly beyond the threshold: {}", said(&r));
}

#[test]
fn side_b_half_side_a_is_improved() {
    let r = row_of(0.5);
    assert_eq!(r.verdict, Verdict::Improved, "{}", said(&r));
    assert!((r.change + 50.0).abs() < 1.0, "{}", said(&r));
    assert!(r.ci_lo <= r.change && r.change <= r.ci_hi, "{}", said(&r));
}

#[test]
fn the_same_rounds_on_both_sides_are_no_change_though_the_machine_drifted() {
    let r = row_of(1.0);
    assert!(
        r.verdict != Verdict::Regressed && r.verdict != Verdict::Improved,
        "{}",
        said(&r)
    );
    assert!(r.ci_lo < 1.0 && r.ci_hi > -1.0, "{}", said(&r));
    assert!(r.change.abs() < 1.0, "{}", said(&r));
}

#[test]
fn round_medians_are_in_the_order_the_rounds_ran() {
    let r = ab_run(1.0);
    let m = &r.experiments[0].metrics[0];
    let medians = round_medians(m);
    assert_eq!(medians.len(), DRIFT.len());
    for (got, d) in medians.iter().zip(DRIFT) {
        assert!((got / (100.0 * d) - 1.0).abs() < 1e-3, "{got} vs {d}");
    }
}

/// `ab_run(k)` with each side's windows attributed (`copy` of every 100
/// samples a round in copy_page_range, the rest in user space), or not.
fn attributed_run(k: f64, copy: [Option<u64>; 2]) -> RunResults {
    use crate::results::why::{Attribution, PerRound};
    let mut r = ab_run(k);
    let n = DRIFT.len();
    for (e, copy) in r.experiments.iter_mut().zip(copy) {
        let Some(copy) = copy else { continue };
        e.why.push(Attribution::of_rounds(
            e.metrics[0].labels.clone(),
            PerRound {
                round: (0..n).collect(),
                samples: vec![100; n],
                user: vec![100 - copy; n],
                functions: vec![("copy_page_range".into(), vec![copy; n])],
            },
        ));
    }
    r
}

#[test]
fn a_changed_row_of_two_sampled_sides_is_shared_out_by_its_pairs() {
    use crate::stats::contrast::Order;
    let c = comparison(&attributed_run(0.5, [Some(80), Some(30)]), 5.0, 5.0);
    assert_eq!(c.rows[0].verdict, Verdict::Improved);
    let d = c.why[0].diff.as_ref().expect("a difference");
    let copy = &d.functions[0];
    assert_eq!(copy.what, "copy_page_range");
    // The same shares in every round: the pairs' share change is exact.
    assert!((copy.share_change + 0.5).abs() < 1e-12, "{copy:?}");
    assert!((copy.share_lo + 0.5).abs() < 1e-12 && (copy.share_hi + 0.5).abs() < 1e-12);
    // Its time fell in every pair, through the machine's drift.
    assert_eq!(copy.time_order(), Order::Below, "{copy:?}");
    // A's side unsampled: why, naming the side as ab does.
    let c = comparison(&attributed_run(0.5, [None, Some(30)]), 5.0, 5.0);
    assert_eq!(
        c.why[0].none.as_deref(),
        Some("A was not sampled (--why): no difference of attributions")
    );
}
