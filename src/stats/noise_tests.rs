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
fn spread_is_the_variance_of_the_rounds_in_logs() {
    let x = spread2(&[100.0, 110.0]).unwrap();
    assert!((x - (1.1f64.ln()).powi(2) / 2.0).abs() < 1e-12, "{x}");
    assert_eq!(spread2(&[5.0, 5.0, 5.0]), Some(0.0));
    // a saving that can be negative: relative to the medians' median
    let x = spread2(&[-1.0, 1.0, 1.0]).unwrap();
    assert!((x - 4.0 / 3.0).abs() < 1e-12, "{x}");
    assert!(spread2(&[1.0]).is_none());
    assert!(spread2(&[1.0, f64::NAN]).is_none());
}

#[test]
fn a_series_rests_on_the_best_evidence_it_has_and_never_below_the_floor() {
    let prior = SPREAD_SHARE * SPREAD_SHARE;
    // nothing: the prior share of each series' spread
    let fam = family_noise(&[], &[]);
    assert_eq!(fam, FamilyNoise::Share(prior, Basis::Spread));
    // a series whose rounds agree, or with no rounds to tell: the floor
    assert_eq!(series_noise(fam, None, Some(0.0)), (FLOOR, Basis::Floor));
    assert_eq!(series_noise(fam, None, None), (FLOOR, Basis::Floor));
    // a spread of 4% (sd): the share of it, in quadrature with the floor
    let (t, b) = series_noise(fam, None, Some(0.04f64.powi(2)));
    assert_eq!(b, Basis::Spread);
    assert!((t - (FLOOR.powi(2) + prior * 0.04f64.powi(2)).sqrt()).abs() < 1e-12);
    assert_eq!(one_run_tau(&[100.0, 104.0, 96.0]), {
        let s2 = spread2(&[100.0, 104.0, 96.0]).unwrap();
        (FLOOR.powi(2) + prior * s2).sqrt()
    });
    // runs a side that moved by as much as their rounds spread: a share
    // above the prior's, pulled toward it
    let s2 = 0.02f64.powi(2);
    let FamilyNoise::Share(share, b) = family_noise(&[], &[(s2, 3.0, s2), (s2, 3.0, s2)]) else {
        panic!("no calibration: a share");
    };
    assert_eq!(b, Basis::Runs);
    assert!(share > prior && share < 1.0, "{share}");
    // runs that agree beyond their rounds: a share below the prior's
    let FamilyNoise::Share(share, _) = family_noise(&[], &[(-s2, 3.0, s2)]) else {
        panic!("no calibration: a share");
    };
    assert!(share < prior && share >= 0.0, "{share}");
    // a calibration wins, each series shrunk toward the family's mean
    let fam = family_noise(
        &[(0.04f64.powi(2), 3.0), (0.02f64.powi(2), 3.0)],
        &[(s2, 3.0, s2)],
    );
    let FamilyNoise::Calibrated(t) = fam else {
        panic!("a calibration: calibrated");
    };
    assert!(t > 0.02 && t < 0.04, "{t}");
    let (own, b) = series_noise(fam, Some((0.04f64.powi(2), 3.0)), Some(1.0));
    assert_eq!(b, Basis::Calibrated);
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
