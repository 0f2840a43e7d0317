use super::analyze;
use crate::experiments::testing::{metric, result};

#[test]
fn the_clock_read_is_put_against_rdtsc() {
    let m = |clock, ns: f64| metric("call_ns", &[("clock", clock)], &[ns, ns, ns]);
    let fast = analyze(&result(vec![m("monotonic", 20.0), m("rdtsc", 10.0)]));
    assert_eq!(fast.findings.len(), 1);
    assert!(
        fast.findings[0].contains("(2.0x an rdtsc"),
        "{:?}",
        fast.findings
    );
    assert!(fast.findings[0].ends_with("without entering the kernel"));
    let slow = analyze(&result(vec![m("monotonic", 500.0), m("rdtsc", 10.0)]));
    assert!(slow.findings[0].contains("may not be vDSO-readable"));
    assert!(analyze(&result(vec![m("monotonic", 20.0)]))
        .findings
        .is_empty());
}
