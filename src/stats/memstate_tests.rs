use super::*;

/// Rounds whose canary (in logs) steps through `xs`, and a series that
/// follows it at slope `beta` around `level`, with a small wobble that is
/// not the canary's.
fn run_of(xs: &[f64], beta: f64, level: f64) -> (Vec<f64>, Vec<f64>) {
    let ys = xs
        .iter()
        .enumerate()
        .map(|(i, x)| level + beta * x + 0.001 * [1.0, -1.0, 0.5, -0.5][i % 4])
        .collect();
    (xs.to_vec(), ys)
}

#[test]
fn a_known_sensitivity_is_recovered_from_the_rounds() {
    let (x1, y1) = run_of(&[7.0, 7.3, 7.1, 7.6, 7.2, 7.4], 0.3, 1.0);
    let (x2, y2) = run_of(&[8.0, 8.2, 7.9, 8.5, 8.1, 8.3], 0.3, 2.0);
    let s = sensitivity(&[
        FamilyRun {
            canary: &x1,
            series: vec![&y1],
        },
        FamilyRun {
            canary: &x2,
            series: vec![&y2],
        },
    ])
    .unwrap();
    assert!((s.beta - 0.3).abs() < 0.02, "{s:?}");
    assert!(s.se < 0.02, "{s:?}");
    assert_eq!(s.rounds, 12);
    // each run's own level is its own: the shift between the runs' levels
    // is not read as sensitivity
    assert!(extra_variance(&s, 0.0) == 0.0);
    let v = extra_variance(&s, 0.5);
    assert!((v - (s.beta.powi(2) + s.se.powi(2)) * 0.25).abs() < 1e-12);
}

#[test]
fn a_family_averages_its_series_round_by_round() {
    let x = [7.0, 7.4, 7.1, 7.5, 7.2];
    let (_, a) = run_of(&x, 0.2, 1.0);
    let (_, b) = run_of(&x, 0.4, 3.0);
    let s = sensitivity(&[FamilyRun {
        canary: &x,
        series: vec![&a, &b],
    }])
    .unwrap();
    assert!((s.beta - 0.3).abs() < 0.02, "{s:?}");
}

#[test]
fn no_sensitivity_without_variation_or_rounds() {
    // a canary that never moved within the run
    let flat = [7.0; 6];
    let y = [1.0, 1.1, 0.9, 1.0, 1.05, 0.95];
    assert!(sensitivity(&[FamilyRun {
        canary: &flat,
        series: vec![&y],
    }])
    .is_none());
    // three rounds of one run: one degree of freedom
    let x = [7.0, 7.3, 7.1];
    assert!(sensitivity(&[FamilyRun {
        canary: &x,
        series: vec![&y[..3]],
    }])
    .is_none());
    // a series whose rounds do not line up with the canary's is left out
    assert!(sensitivity(&[FamilyRun {
        canary: &x,
        series: vec![&y],
    }])
    .is_none());
    assert!(sensitivity(&[]).is_none());
}

#[test]
fn a_shift_that_is_not_finite_adds_nothing() {
    let s = Sensitivity {
        beta: 0.5,
        se: 0.1,
        rounds: 10,
    };
    assert_eq!(extra_variance(&s, f64::NAN), 0.0);
}

#[test]
fn rounds_follow_a_canary_only_beyond_twice_the_standard_error() {
    let s = |beta, se| Sensitivity {
        beta,
        se,
        rounds: 10,
    };
    assert!(follows(&s(0.5, 0.2)));
    assert!(!follows(&s(0.3, 0.2)));
    // a figure that gets cheaper as the canary gets dearer does not follow it
    assert!(!follows(&s(-1.0, 0.1)));
}
