use super::*;

#[test]
fn unusable_figures_are_named_with_the_reason() {
    let want = |v: f64, u: Unit, e: Expect| unusable(v, u, e).unwrap_or_default();
    assert!(want(-100.0, Unit::Ns, NS).contains("-100 ns, is negative"));
    assert!(want(f64::INFINITY, Unit::Ns, NS).contains("not a finite number"));
    assert!(want(0.0, Unit::Ns, NS).contains("0 ns"));
    assert!(want(1e300, Unit::Ns, NS).contains("above an hour"));
    assert!(want(8.0, Unit::Kib, BYTES).contains("'KiB' where 'bytes' is expected"));
    assert_eq!(unusable(8.5, Unit::Kib, KIB), None);
    assert_eq!(unusable(0.0, Unit::Bytes, BYTES), None);
}
