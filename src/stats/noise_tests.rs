use super::*;

/// The noise of a series from its `runs` (each a list of rounds, each
/// round its samples), each run's standard error from the spread of its
/// rounds' log medians (`tasklab calibrate` takes compare's bootstrap
/// instead). None with fewer than two runs that each have two rounds, or
/// when a round's median is not positive.
fn estimate(runs: &[&[Vec<f64>]]) -> Option<RunNoise> {
    let mut figures = Vec::new();
    for run in runs {
        let rounds: Vec<&Vec<f64>> = run.iter().filter(|r| !r.is_empty()).collect();
        if rounds.len() < 2 {
            continue;
        }
        let medians: Vec<f64> = rounds
            .iter()
            .filter_map(|r| crate::stats::median(r))
            .collect();
        if medians.iter().any(|x| !(x.is_finite() && *x > 0.0)) {
            return None;
        }
        let pooled: Vec<f64> = rounds.iter().flat_map(|r| r.iter().copied()).collect();
        let whole = crate::stats::median(&pooled)?;
        if !(whole.is_finite() && whole > 0.0) {
            return None;
        }
        let logs: Vec<f64> = medians.iter().map(|x| x.ln()).collect();
        figures.push((whole.ln(), variance(&logs) / logs.len() as f64));
    }
    from_figures(&figures)
}

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
}

fn cal(total: f64, within: f64) -> Calibrated {
    Calibrated {
        total,
        within,
        df: 2.0,
    }
}

#[test]
fn a_calibration_is_moderated_by_its_family_and_never_wider_than_the_spread_gives() {
    let s2 = 0.02f64.powi(2);
    // Eleven quiet series (runs' sd 1%, rounds explain 0.5%) and one wide
    // (20%): the family's prior is near the quiet ones, so each keeps
    // close to its own (the mean of the variances would put them near 6%).
    let mut family: Vec<Calibrated> = (0..11)
        .map(|i| cal((0.01 * (0.8 + 0.04 * i as f64)).powi(2), 0.005f64.powi(2)))
        .collect();
    family.push(cal(0.2f64.powi(2), 0.005f64.powi(2)));
    let fam = family_noise(&family, &[(s2, 3.0, s2)]);
    let FamilyNoise::Calibrated { prior, without, .. } = fam else {
        panic!("a calibration: calibrated");
    };
    assert!(prior.s2 < 0.02f64.powi(2), "{prior:?}");
    assert_eq!(without.1, Basis::Runs);
    // a spread so wide that the cap does not bind: the moderated figure
    let big = Some(1.0);
    let (quiet, b) = series_noise(fam, Some(family[5]), big);
    assert_eq!(b, Basis::Calibrated);
    let own = (family[5].total - family[5].within).sqrt();
    assert!(quiet > own / 2.0 && quiet < 2.0 * own, "{quiet} vs {own}");
    let (wide, _) = series_noise(fam, Some(family[11]), big);
    assert!(wide > quiet && wide < 0.2, "{wide}");
    // never wider than the family's share of the series' spread gives
    let (capped, b) = series_noise(fam, Some(family[11]), Some(0.01f64.powi(2)));
    assert_eq!(b, Basis::Calibrated);
    let (plain, _) = series_noise(FamilyNoise::Share(without.0, without.1), None, Some(1e-4));
    assert_eq!(capped, plain);
    // a series the calibration lacks takes the prior, less the family's
    // within
    let (none, _) = series_noise(fam, None, big);
    assert!(none <= prior.s2.sqrt() && none >= FLOOR, "{none}");
    // runs that agree within their rounds: the floor
    let (agree, _) = series_noise(fam, Some(cal(1e-6, 1e-4)), big);
    assert_eq!(agree, FLOOR);
    // no spread to cap by (no run had two rounds): the moderated figure,
    // never the floor the spread's absence would give
    let (unspread, b) = series_noise(fam, Some(family[11]), None);
    assert_eq!(b, Basis::Calibrated);
    assert_eq!(unspread, wide);
}

#[test]
fn a_family_whose_runs_agree_gives_every_series_its_figure() {
    // every series' runs spread alike: d0 infinite, each takes the prior
    let family = vec![cal(0.03f64.powi(2), 0.01f64.powi(2)); 6];
    let fam = family_noise(&family, &[]);
    let FamilyNoise::Calibrated { prior, .. } = fam else {
        panic!("a calibration: calibrated");
    };
    assert!(prior.df.is_infinite(), "{prior:?}");
    let (a, _) = series_noise(fam, Some(cal(0.05f64.powi(2), 0.01f64.powi(2))), Some(1.0));
    let (b, _) = series_noise(fam, Some(family[0]), Some(1.0));
    assert_eq!(a, b);
}

#[test]
fn a_run_noise_gives_what_compare_moderates() {
    let n = from_figures(&[(0.0, 1e-4), (0.03, 1e-4), (-0.03, 1e-4)]).unwrap();
    let c = n.calibrated().unwrap();
    assert!((c.total - 9e-4).abs() < 1e-15 && (c.within - 1e-4).abs() < 1e-15);
    assert_eq!(c.df, 2.0);
    // the band: t(2) times sqrt(V - W)
    assert!((n.band - 4.303 * 8e-4f64.sqrt()).abs() < 1e-4, "{n:?}");
    assert!(from_figures(&[(0.0, 1e-4)]).is_none());
    assert!(from_figures(&[(0.0, 1e-4), (f64::NAN, 1e-4)]).is_none());
}
