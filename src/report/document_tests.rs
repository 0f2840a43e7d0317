use super::rounds_sentence;
use crate::results::{Precision, RunResults};

/// The fixture run with a time budget that gave its series 3 to 8 rounds,
/// and `adaptive` rounds bought for precision.
fn budgeted(adaptive: usize) -> RunResults {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-results.json");
    let mut r = RunResults::read(&path).expect("the fixture reads");
    let mut p = Precision::of(&r.experiments, 10.0, adaptive);
    p.budget_s = Some(600.0);
    p.rounds = Some((3, 8));
    r.precision = Some(p);
    r
}

#[test]
fn rounds_bought_for_precision_are_said_only_when_adaptive_rounds_ran() {
    // The reviewer's runs: 3 to 8 rounds, adaptive_jobs 0.
    let none = rounds_sentence(&budgeted(0));
    assert!(none.contains(": 3 at least"), "{none}");
    assert!(!none.contains("bought"), "{none}");
    let some = rounds_sentence(&budgeted(12));
    assert!(
        some.contains(", up to 8 where a round bought the most precision per second"),
        "{some}"
    );
}
