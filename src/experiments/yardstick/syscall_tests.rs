use super::analyze;
use crate::experiments::testing::{metric, result};

/// A default run's bare call (80.2 ns) beside a stackful coroutine
/// switch of 1.16 ns: the call is the floor only under what enters the
/// kernel, and the Summary's sentence says so (issue 39).
#[test]
fn the_headline_floors_only_what_enters_the_kernel() {
    let r = result(vec![metric(
        "call_ns",
        &[("call", "getppid")],
        &[80.2, 80.2, 80.2],
    )]);
    let a = analyze(&r);
    assert_eq!(a.headlines.len(), 1, "{:?}", a.headlines);
    let h = &a.headlines[0];
    assert!(
        h.ends_with("the floor under every switch through the kernel and every creation here"),
        "{h}"
    );
    assert!(!h.contains("every switch and creation"), "{h}");
}
