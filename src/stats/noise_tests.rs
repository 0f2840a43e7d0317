use super::*;
use crate::stats::Summary;

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

fn summary(median: f64, lo: f64, hi: f64) -> Summary {
    let mut s = crate::stats::summarize(&[median]).unwrap();
    (s.median, s.ci95_lo, s.ci95_hi) = (median, lo, hi);
    s
}

#[test]
fn at_least_widens_a_narrow_interval_and_leaves_a_wide_one() {
    let mut narrow = summary(100.0, 99.0, 101.0);
    at_least(&mut narrow, 0.05);
    assert!((narrow.ci95_lo - 100.0 * (-0.05f64).exp()).abs() < 1e-9);
    assert!((narrow.ci95_hi - 100.0 * 0.05f64.exp()).abs() < 1e-9);
    let mut wide = summary(100.0, 80.0, 130.0);
    at_least(&mut wide, 0.05);
    assert_eq!((wide.ci95_lo, wide.ci95_hi), (80.0, 130.0));
    // A figure that may be negative: by the same share of its median.
    let mut saving = summary(-10.0, -10.1, -9.9);
    at_least(&mut saving, 0.1);
    assert!((saving.ci95_lo + 11.0).abs() < 1e-9 && (saving.ci95_hi + 9.0).abs() < 1e-9);
    // No band, or a band that is not a number: nothing moves.
    for band in [0.0, f64::NAN] {
        let mut s = summary(100.0, 99.0, 101.0);
        at_least(&mut s, band);
        assert_eq!((s.ci95_lo, s.ci95_hi), (99.0, 101.0));
    }
}

#[test]
fn a_calibrated_noise_replaces_the_default_in_a_summary() {
    // Three rounds: an interval not bounded by the samples (`within_the_data`).
    let r = runs(&[1.0], 3, 0.01);
    let one: Vec<&[Vec<f64>]> = r.iter().map(Vec::as_slice).collect();
    let half = |s: &Summary| (s.ci95_hi / s.ci95_lo).ln() / 2.0;
    let default = crate::stats::summarize_runs(&one, 1).unwrap();
    let quiet = crate::stats::rounds::summarize_runs_with(&one, 1, 0.001).unwrap();
    let loud = crate::stats::rounds::summarize_runs_with(&one, 1, 0.10).unwrap();
    assert!(half(&quiet) < half(&default), "{quiet:?}");
    assert!(half(&loud) > half(&default), "{loud:?}");
    assert!(half(&loud) >= 0.10);
}
