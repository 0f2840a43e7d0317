use super::*;

fn run(median: f64, se: f64, rounds: usize) -> RunFig {
    RunFig {
        ln_median: median.ln(),
        se2: se * se,
        rounds,
    }
}

#[test]
fn the_change_is_the_log_ratio_and_its_error_adds_both_sides_and_the_run_noise() {
    let d = diff(&[run(100.0, 0.03, 8)], &[run(150.0, 0.04, 8)], 0.0).unwrap();
    assert!((d.delta - 1.5f64.ln()).abs() < 1e-12);
    assert!((d.se - 0.05).abs() < 1e-12);
    let with = diff(&[run(100.0, 0.03, 8)], &[run(150.0, 0.04, 8)], 0.02).unwrap();
    // 0.03² + 0.04² + 2·0.02²
    assert!((with.se - (0.0025f64 + 0.0008).sqrt()).abs() < 1e-12);
    // the run noise counts as known: more degrees of freedom, not fewer
    assert!(with.df > d.df);
}

#[test]
fn more_runs_a_side_divide_both_parts() {
    let one = diff(&[run(100.0, 0.02, 8)], &[run(100.0, 0.02, 8)], 0.02).unwrap();
    let four = diff(&[run(100.0, 0.02, 8); 4], &[run(100.0, 0.02, 8); 4], 0.02).unwrap();
    assert!((one.se / four.se - 2.0).abs() < 1e-9);
}

#[test]
fn the_interval_holds_the_ratio_and_the_p_value_follows_the_threshold() {
    let d = diff(&[run(100.0, 0.01, 8)], &[run(300.0, 0.01, 8)], 0.01).unwrap();
    let (r, lo, hi) = d.ratio_interval();
    assert!(lo < r && r < hi && (r - 3.0).abs() < 1e-9);
    assert!(d.p_beyond(0.05) < 1e-6);
    // a change inside the threshold has p = 1
    let small = diff(&[run(100.0, 0.01, 8)], &[run(102.0, 0.01, 8)], 0.01).unwrap();
    assert_eq!(small.p_beyond(0.05), 1.0);
    // an improvement is held against 1 - t
    let down = diff(&[run(100.0, 0.01, 8)], &[run(50.0, 0.01, 8)], 0.01).unwrap();
    assert!(down.p_beyond(0.05) < 1e-6);
}

#[test]
fn mde80_exceeds_the_half_width_rule_by_about_0_43_half_widths() {
    let d = diff(&[run(100.0, 0.02, 30)], &[run(100.0, 0.02, 30)], 0.0).unwrap();
    let (_, _, hi) = d.ratio_interval();
    let half = hi.ln();
    let mde50 = (1.05f64.ln() + half).exp() - 1.0;
    let mde80 = d.mde80(0.05);
    assert!(mde80 > mde50);
    let k = ((1.0 + mde80).ln() - 1.05f64.ln()) / half;
    assert!((k - 1.43).abs() < 0.03, "{k}");
}

#[test]
fn no_run_or_no_error_gives_none() {
    assert!(diff(&[], &[run(1.0, 0.1, 8)], 0.0).is_none());
    assert!(diff(&[run(1.0, 0.0, 8)], &[run(1.0, 0.0, 8)], 0.0).is_none());
    assert!(diff(&[run(1.0, f64::NAN, 8)], &[run(1.0, 0.1, 8)], 0.0).is_none());
}

#[test]
fn a_known_variance_widens_the_change_and_nothing_else() {
    let d = diff(&[run(100.0, 0.02, 8)], &[run(110.0, 0.02, 8)], 0.01).unwrap();
    let w = d.widened(0.03 * 0.03);
    assert_eq!(w.delta, d.delta);
    assert!((w.se * w.se - d.se * d.se - 0.0009).abs() < 1e-12);
    // the known part does not shrink the degrees of freedom
    assert!(w.df >= d.df);
    // nothing added: the same change
    assert_eq!(d.widened(0.0), d);
    assert_eq!(d.widened(f64::NAN), d);
}
