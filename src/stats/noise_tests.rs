use super::*;

/// `runs` runs of `rounds` rounds of 20 samples each; run j's figure is
/// `base · offsets[j]`, each round's samples a narrow fixed spread around it
/// with a round-to-round wobble of ±`wobble` (a fraction).
fn runs(offsets: &[f64], rounds: usize, wobble: f64) -> Vec<Vec<Vec<f64>>> {
    offsets
        .iter()
        .map(|k| {
            (0..rounds)
                .map(|r| {
                    let round = 100.0 * k * (1.0 + wobble * ((r % 3) as f64 - 1.0));
                    (0..20)
                        .map(|i| round * (1.0 + 0.001 * (i % 5) as f64))
                        .collect()
                })
                .collect()
        })
        .collect()
}

fn est(r: &[Vec<Vec<f64>>]) -> Option<RunNoise> {
    let refs: Vec<&[Vec<f64>]> = r.iter().map(Vec::as_slice).collect();
    estimate(&refs)
}

#[test]
fn runs_that_disagree_get_a_wider_band_than_runs_that_agree() {
    let steady = est(&runs(&[1.0, 1.0, 1.0, 1.0], 8, 0.01)).unwrap();
    let moving = est(&runs(&[1.0, 1.08, 0.95, 1.03], 8, 0.01)).unwrap();
    assert_eq!(steady.runs, 4);
    assert!(moving.band > steady.band, "{moving:?} vs {steady:?}");
    assert!(moving.spread > moving.within, "{moving:?}");
    // Runs at the same figure: the rounds explain all there is.
    assert_eq!(steady.band, 0.0, "{steady:?}");
}

#[test]
fn the_band_is_what_the_rounds_do_not_explain() {
    // The same spread between runs, but rounds that wobble far more: more
    // of the runs' spread is the rounds' own, so less is left for the band.
    let quiet_rounds = est(&runs(&[1.0, 1.06, 0.96, 1.02], 8, 0.002)).unwrap();
    let loud_rounds = est(&runs(&[1.0, 1.06, 0.96, 1.02], 8, 0.10)).unwrap();
    assert!(loud_rounds.within > quiet_rounds.within);
    assert!(loud_rounds.band < quiet_rounds.band);
    // The band is t(3)·s_b, and s_b is at most the runs' own spread.
    assert!(quiet_rounds.band <= 3.183 * quiet_rounds.spread);
    assert!(quiet_rounds.band > 0.0);
}

#[test]
fn too_little_or_a_figure_not_positive_gives_no_estimate() {
    assert!(est(&runs(&[1.0], 8, 0.01)).is_none());
    // One round a run: no within-run error to take off.
    assert!(est(&runs(&[1.0, 1.1], 1, 0.01)).is_none());
    let mut negative = runs(&[1.0, 1.0], 4, 0.01);
    negative[0][0] = vec![-1.0; 20];
    assert!(est(&negative).is_none());
}

#[test]
fn drift_is_what_the_early_and_late_rounds_differ_by_beyond_their_spread() {
    // steady rounds with a wobble: the excess is about zero, either sign
    let steady = [100.0, 101.0, 99.0, 100.5, 99.5, 100.0, 101.0, 99.0];
    let x = drift_excess(&steady).unwrap();
    assert!(x.abs() < 1e-4, "{x}");
    // a 20% step halfway: the excess is about ln(1.2)²
    let step = [100.0, 101.0, 99.0, 100.0, 120.0, 121.0, 119.0, 120.0];
    let x = drift_excess(&step).unwrap();
    assert!((x - 1.2f64.ln().powi(2)).abs() < 0.005, "{x}");
    assert!(drift_excess(&[1.0, 2.0, 3.0]).is_none());
    assert!(drift_excess(&[1.0, 2.0, 3.0, -1.0]).is_none());
    // a family's variance is half the mean excess, never below zero
    assert_eq!(tau2_from_drift(&[-0.01, -0.02]), Some(0.0));
    assert_eq!(tau2_from_drift(&[0.02, 0.04]), Some(0.015));
    assert_eq!(tau2_from_drift(&[]), None);
}

#[test]
fn a_family_rests_on_the_best_evidence_it_has_and_never_below_the_floor() {
    // nothing: the floor
    assert_eq!(family_tau(&[], &[], None), (FLOOR, Basis::Floor));
    // a drift smaller than the floor: the floor
    assert_eq!(family_tau(&[], &[], Some(1e-6)), (FLOOR, Basis::Floor));
    // a drift of 5% (sd): the drift
    let (t, b) = family_tau(&[], &[], Some(0.05f64.powi(2)));
    assert!((t - 0.05).abs() < 1e-12 && b == Basis::Drift);
    // runs a side: their between-run moments, with the drift as a prior
    let (t, b) = family_tau(&[], &[(0.03f64.powi(2), 3.0)], None);
    assert!((t - 0.03).abs() < 1e-12 && b == Basis::Runs);
    let (with_drift, _) = family_tau(&[], &[(0.03f64.powi(2), 3.0)], Some(0.0));
    assert!(with_drift < 0.03 && with_drift > FLOOR);
    // a calibration wins, each series shrunk toward the family's mean
    let (t, b) = family_tau(
        &[(0.04f64.powi(2), 3.0), (0.02f64.powi(2), 3.0)],
        &[],
        Some(0.5),
    );
    assert_eq!(b, Basis::Calibrated);
    assert!(t > 0.02 && t < 0.04, "{t}");
    // a series' own band, shrunk toward the family's
    let own = series_tau((0.04f64.powi(2), 3.0), t);
    assert!(own < 0.04 && own > t, "{own}");
    assert_eq!(series_tau((0.0, 3.0), 0.0), FLOOR);
}

#[test]
fn a_band_is_t_standard_deviations() {
    let (v, df) = band_variance(4.303 * 0.03, 3).unwrap();
    assert!((v.sqrt() - 0.03).abs() < 1e-6 && df == 2.0);
    assert!(band_variance(0.1, 1).is_none());
    assert!(band_variance(f64::NAN, 4).is_none());
}
