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

/// A preempted or throttled run reads the clock low, never high: the
/// fastest of the runs can be no more than the core's top clock. 8 GHz is
/// above every x86 core's turbo; a chain a core folds at rename (Golden
/// Cove's `add reg, imm`) read 20-24 GHz on an Intel Xeon guest.
#[test]
fn the_measured_clock_is_never_above_any_cores_top_clock() {
    if let Some(mhz) = measured_mhz(5) {
        assert!(
            mhz < 8_000.0,
            "{mhz} MHz: the chain is not one cycle an addition"
        );
    }
}
