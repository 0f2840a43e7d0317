use super::*;

#[test]
fn calibration_is_positive_and_finite() {
    let c = calibrate(true);
    assert!(c.loop_overhead_ns >= 0.0 && c.loop_overhead_ns.is_finite());
    assert!(c.timer_overhead_ns.is_finite());
    assert!(c.timer_resolution_ns > 0.0);
    if let Some(mhz) = c.measured_mhz {
        // measured, so a throttled or preempted machine may read any low
        // figure: no floor, only a real number
        assert!(mhz > 0.0 && mhz.is_finite(), "{mhz}");
    }
}
