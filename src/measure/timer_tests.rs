use super::*;

#[test]
fn calibration_is_positive_and_finite() {
    let c = calibrate(true);
    assert!(c.loop_overhead_ns >= 0.0 && c.loop_overhead_ns.is_finite());
    assert!(c.timer_overhead_ns.is_finite());
    assert!(c.timer_resolution_ns > 0.0);
    if let Some(mhz) = c.measured_mhz {
        // any CPU tasklab runs on is between 100 MHz and 10 GHz
        assert!(mhz > 100.0 && mhz < 10_000.0, "{mhz}");
    }
}
