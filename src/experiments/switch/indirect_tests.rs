use super::*;
use crate::experiments::testing::{metric, near, result};

fn ws(size: &'static str, bytes: &'static str) -> [(&'static str, &'static str); 2] {
    [("working_set", size), ("bytes", bytes)]
}

#[test]
fn the_indirect_cost_takes_away_the_bare_switch_and_the_warm_walk() {
    let r = result(vec![
        metric("switch_ns", &ws("0 B", "0"), &[1000.0]),
        metric("switch_ns", &ws("1 MiB", "1048576"), &[9000.0]),
        metric("switch_ns", &ws("64 KiB", "65536"), &[1500.0]),
        metric("walk_warm_ns", &ws("64 KiB", "65536"), &[100.0]),
        metric("walk_warm_ns", &ws("1 MiB", "1048576"), &[2000.0]),
    ]);
    let a = analyze(&r);
    let got: Vec<(&str, f64)> = a
        .readings
        .iter()
        .map(|r| (r.labels["bytes"].as_str(), r.value))
        .collect();
    // sorted by size; 0 is its own reference
    assert_eq!(got, [("0", 0.0), ("65536", 400.0), ("1048576", 6000.0)]);
    assert_eq!(a.findings.len(), 1);
    assert!(
        a.findings[0].contains("the direct switch is 1.00 µs ["),
        "{}",
        a.findings[0]
    );
    // a cost whose interval covers zero is within noise
    let r = result(vec![
        near("switch_ns", &ws("0 B", "0"), 1000.0, 5.0),
        near("switch_ns", &ws("64 KiB", "65536"), 1100.0, 5.0),
        near("walk_warm_ns", &ws("64 KiB", "65536"), 50.0, 5.0),
    ]);
    let f = &analyze(&r).findings[0];
    assert!(
        f.contains("64 KiB: 50.0 ns [-24.4 ns, 124.4 ns]: within noise"),
        "{f}"
    );
    // without the zero working set there is nothing to measure against
    assert_eq!(analyze(&result(vec![])), Analysis::default());
}
