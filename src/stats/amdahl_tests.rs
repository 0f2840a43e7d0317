use super::{fit_serial_fraction, Reading, SerialFit, SpeedupPoint};
use crate::stats::amdahl_speedup;

fn point(workers: f64, speedup: f64, lo: f64, hi: f64) -> SpeedupPoint {
    SpeedupPoint {
        workers,
        speedup,
        lo,
        hi,
    }
}

#[test]
fn exact_amdahl_data_gives_its_serial_fraction_back() {
    let pts: Vec<SpeedupPoint> = [1.0, 2.0, 3.0, 4.0, 8.0]
        .iter()
        .map(|&p| {
            let s = amdahl_speedup(0.1, p);
            point(p, s, s * 0.97, s * 1.02)
        })
        .collect();
    let f = fit_serial_fraction(&pts).expect("a fit");
    assert!((f.fraction - 0.1).abs() < 1e-12, "{f:?}");
    assert!(f.lo <= f.fraction && f.fraction <= f.hi, "{f:?}");
    assert_eq!(f.points, 4, "the one-worker point says nothing of f");
    // Points with no interval at all weigh the same, and still fit exactly.
    let bare: Vec<SpeedupPoint> = pts
        .iter()
        .map(|p| point(p.workers, p.speedup, p.speedup, p.speedup))
        .collect();
    let f = fit_serial_fraction(&bare).expect("a fit");
    assert!((f.fraction - 0.1).abs() < 1e-12, "{f:?}");
    assert!((f.lo - 0.1).abs() < 1e-12 && (f.hi - 0.1).abs() < 1e-12);
}

#[test]
fn noisy_points_whose_intervals_hold_the_truth_give_an_interval_holding_it() {
    // Each point moved off Amdahl's curve (f = 0.1) by a fixed pattern of
    // up to 6%, its interval reaching just past the true value.
    let noise = [0.06, -0.04, 0.03, -0.06, 0.05, -0.02, 0.01];
    let pts: Vec<SpeedupPoint> = [2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
        .iter()
        .zip(noise)
        .map(|(&p, e)| {
            let truth = amdahl_speedup(0.1, p);
            let s = truth * (1.0 + e);
            let half = (s - truth).abs() * 1.1 + 0.01 * s;
            point(p, s, s - half, s + half)
        })
        .collect();
    let f = fit_serial_fraction(&pts).expect("a fit");
    assert!(f.lo <= 0.1 && 0.1 <= f.hi, "{f:?}");
    assert!(f.lo <= f.fraction && f.fraction <= f.hi, "{f:?}");
    assert!(f.lo < f.hi, "noisy points leave an interval: {f:?}");
}

#[test]
fn a_tight_point_outweighs_a_loose_one() {
    let tight = point(2.0, amdahl_speedup(0.1, 2.0), 1.80, 1.83);
    let loose = point(4.0, amdahl_speedup(0.4, 4.0), 1.2, 2.6);
    let f = fit_serial_fraction(&[tight, loose]).expect("a fit");
    assert!((f.fraction - 0.1).abs() < (f.fraction - 0.4).abs(), "{f:?}");
}

#[test]
fn superlinear_speedup_gives_a_negative_fraction_unclamped() {
    let f = fit_serial_fraction(&[point(2.0, 2.2, 2.1, 2.3)]).expect("a fit");
    assert!(f.fraction < 0.0 && f.hi < 0.0, "{f:?}");
}

#[test]
fn nothing_to_fit_is_none() {
    assert!(fit_serial_fraction(&[]).is_none());
    assert!(fit_serial_fraction(&[point(1.0, 1.0, 1.0, 1.0)]).is_none());
    assert!(fit_serial_fraction(&[point(2.0, f64::NAN, 1.0, 2.0)]).is_none());
    assert!(fit_serial_fraction(&[point(2.0, 1.5, 0.0, 2.0)]).is_none());
}

#[test]
fn a_fraction_above_100_percent_is_read_as_a_law_that_does_not_hold() {
    let fit = |fraction, lo, hi| SerialFit {
        fraction,
        lo,
        hi,
        points: 3,
    };
    assert_eq!(fit(0.2, 0.1, 0.3).reading(), Reading::Fraction);
    assert_eq!(fit(0.9, 0.7, 1.04).reading(), Reading::Unbounded);
    assert_eq!(fit(1.038, 0.9, 1.2).reading(), Reading::DoesNotHold);
    assert_eq!(fit(-0.05, -0.1, 0.02).reading(), Reading::DoesNotHold);
    // from points: speedups below 1 on two workers fit a fraction above 1
    let slower = [SpeedupPoint {
        workers: 2.0,
        speedup: 0.9,
        lo: 0.85,
        hi: 0.95,
    }];
    let f = fit_serial_fraction(&slower).unwrap();
    assert!(f.fraction > 1.0, "{f:?}");
    assert_eq!(f.reading(), Reading::DoesNotHold);
}
