use super::*;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1e-300)
}

#[test]
fn the_special_functions_have_their_known_values() {
    // ψ(1) = -γ, ψ'(1) = π²/6, ψ''(1) = -2ζ(3), ψ(1/2) = -γ - 2 ln 2
    let gamma = 0.577_215_664_901_532_9;
    assert!(close(digamma(1.0), -gamma, 1e-10));
    assert!(close(digamma(0.5), -gamma - 2.0 * 2f64.ln(), 1e-10));
    assert!(close(
        trigamma(1.0),
        std::f64::consts::PI.powi(2) / 6.0,
        1e-9
    ));
    assert!(close(tetragamma(1.0), -2.0 * 1.202_056_903_159_594, 1e-9));
    for y in [0.3, 1.0, 3.7, 40.0, 2000.0] {
        assert!(close(trigamma_inverse(trigamma(y)), y, 1e-6), "{y}");
    }
}

#[test]
fn variances_that_agree_give_an_infinite_prior_that_every_series_takes() {
    // Equal sample variances vary less than their 2 degrees of freedom
    // explain: the prior is their figure, infinitely sure.
    let vars = vec![(0.0004, 2.0); 12];
    let p = fit_prior(&vars).unwrap();
    assert!(p.df.is_infinite(), "{p:?}");
    // e's mean is ln s² - ψ(1) + ln 1: s0² = s² e^γ.
    assert!(close(p.s2, 0.0004 * 0.577_215_664_901_532_9f64.exp(), 1e-9));
    assert_eq!(posterior(0.01, 2.0, p), p.s2);
}

#[test]
fn one_huge_series_keeps_the_others_near_their_own() {
    // Eleven series spread around 1e-4 and one a thousand times wider: on
    // the log scale the wide one is one point among twelve, so the prior's
    // scale stays near the eleven (a mean of the variances would be ~84
    // times theirs) and each of them keeps close to its own.
    let mut vars: Vec<(f64, f64)> = (0..11)
        .map(|i| (1e-4 * (0.5 + 0.1 * i as f64), 2.0))
        .collect();
    vars.push((0.1, 2.0));
    let p = fit_prior(&vars).unwrap();
    let mean = vars.iter().map(|v| v.0).sum::<f64>() / vars.len() as f64;
    assert!(p.s2 < 5e-4, "{p:?}");
    assert!(mean > 50.0 * p.s2, "{mean} {p:?}");
    for &(s2, d) in &vars[..11] {
        let post = posterior(s2, d, p);
        assert!(post < 3.0 * s2 && post > s2 / 3.0, "{s2} -> {post} ({p:?})");
    }
    // The wide one is pulled in, never past the prior.
    let wide = posterior(0.1, 2.0, p);
    assert!(wide < 0.1 && wide > p.s2);
}

#[test]
fn a_series_on_no_degrees_of_freedom_takes_the_prior() {
    let p = Prior { s2: 3e-4, df: 4.0 };
    assert_eq!(posterior(0.5, 0.0, p), 3e-4);
    assert_eq!(posterior(f64::NAN, f64::NAN, p), 3e-4);
    // With d degrees of freedom the weights are d0 and d, exactly.
    assert!(close(
        posterior(9e-4, 2.0, p),
        (4.0 * 3e-4 + 2.0 * 9e-4) / 6.0,
        1e-12
    ));
}

#[test]
fn too_little_to_fit_is_said() {
    assert_eq!(fit_prior(&[]), None);
    assert_eq!(fit_prior(&[(f64::NAN, 2.0), (1.0, 0.0)]), None);
    // One variance: its own figure, on no degrees of freedom.
    let one = fit_prior(&[(2e-4, 2.0)]).unwrap();
    assert_eq!(one.df, 0.0);
    assert_eq!(posterior(5e-4, 2.0, one), 5e-4);
    // Zeros are raised to 1e-5 of the median, not taken as minus infinity.
    let p = fit_prior(&[(0.0, 2.0), (1e-4, 2.0), (2e-4, 2.0), (1.5e-4, 2.0)]).unwrap();
    assert!(p.s2.is_finite() && p.s2 > 0.0 && p.df > 0.0, "{p:?}");
}
