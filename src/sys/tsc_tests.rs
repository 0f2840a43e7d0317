use super::*;

#[test]
fn cycles_convert_at_the_measured_rate() {
    // 3,000 cycles over 1,000 ns: 3 cycles per ns (a 3 GHz TSC).
    let r = TscRate::between((1_000, 10_000), (2_000, 13_000)).unwrap();
    assert!((r.cycles_per_ns - 3.0).abs() < 1e-12);
    assert!((r.ns(4_500) - 1_500.0).abs() < 1e-9);
    assert_eq!(r.ns(0), 0.0);
    // A clock that did not move gives no rate, never a division by zero.
    assert!(TscRate::between((5, 10), (5, 20)).is_none());
    assert!(TscRate::between((5, 10), (6, 10)).is_none());
    assert!(TscRate::between((6, 10), (5, 20)).is_none());
}

#[test]
fn the_invariant_tsc_needs_all_three_flags() {
    let ok = "processor\t: 0\nflags\t\t: fpu tsc rdtscp constant_tsc nonstop_tsc pcid\n";
    let no = "processor\t: 0\nflags\t\t: fpu tsc rdtscp constant_tsc\n";
    if cfg!(target_arch = "x86_64") {
        assert_eq!(invariant_tsc(ok), Ok(()));
        let e = invariant_tsc(no).unwrap_err();
        assert!(
            e.contains("nonstop_tsc") && !e.contains("constant_tsc and"),
            "{e}"
        );
    } else {
        assert!(invariant_tsc(ok).is_err());
    }
    assert!(invariant_tsc("").is_err());
}

#[test]
fn the_measured_rate_converts_a_monotonic_interval_back() {
    let Ok(text) = std::fs::read_to_string("/proc/cpuinfo") else {
        return;
    };
    if invariant_tsc(&text).is_err() {
        return;
    }
    let r = TscRate::measure(5).expect("a rate");
    assert!(r.cycles_per_ns > 0.0);
    let (c0, _) = rdtscp().unwrap();
    let t0 = crate::sys::monotonic_ns();
    std::thread::sleep(std::time::Duration::from_millis(2));
    let (c1, _) = rdtscp().unwrap();
    let t1 = crate::sys::monotonic_ns();
    // The TSC never runs backwards, and its interval converts to a
    // positive duration.
    assert!(c1 > c0 && t1 > t0 && r.ns(c1 - c0) > 0.0);
}
