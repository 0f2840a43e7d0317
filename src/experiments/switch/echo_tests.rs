use super::*;
use crate::experiments::testing::{metric, result};

#[test]
fn the_echo_finding_compares_unpinned_with_pinned() {
    let r = result(vec![
        metric(
            "iterations_per_s",
            &[("placement", "same_cpu")],
            &[400_000.0],
        ),
        metric(
            "iterations_per_s",
            &[("placement", "unpinned")],
            &[200_000.0],
        ),
    ]);
    let a = analyze(&r);
    assert_eq!(a.findings.len(), 1);
    assert!(
        a.findings[0].starts_with("pipe echo: 400000 iterations/s pinned to one CPU"),
        "{}",
        a.findings[0]
    );
    assert!(
        a.findings[0].contains("200000 unpinned (0.50x the pinned rate"),
        "{}",
        a.findings[0]
    );
    assert!(analyze(&result(vec![])).findings.is_empty());
}
