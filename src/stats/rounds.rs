//! Figures measured in independent rounds (each round a fresh worker, the
//! rounds spread over the run): an interval that holds on the next run, and
//! a flag when the rounds disagree beyond their own spread.
//!
//! The variance that matters lives between rounds (process start, memory
//! layout, the machine's state: Kalibera and Jones, "Rigorous Benchmarking
//! in Reasonable Time", 2013), so the interval comes from a two-stage
//! bootstrap: resample the rounds, then the samples within each chosen
//! round, and take the median of what was drawn. With few rounds a
//! bootstrap percentile interval is too narrow (it sees the between-round
//! variance as (R-1)/R of itself, and its tails are those of a normal, not
//! of a t with R-1 degrees of freedom), so its two half-widths are widened
//! by `t(R-1) / z · sqrt(R / (R-1))`. Tested on synthetic rounds with a known
//! median: this interval covers it at least 90% of the time, the
//! within-round interval far less (`tests.rs`).

use super::{Sample, StatsError, Summary, Z95};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// Bootstrap replicates per interval.
const REPLICATES: usize = 1000;
/// Fewer points than this: the interval is [min, max] and says its coverage.
const MIN_POINTS: usize = 6;
/// Rounds whose medians span more than this ratio (and disagree beyond
/// their own spread) flag the series unstable.
pub const UNSTABLE_RATIO: f64 = 1.25;

/// Two-sided 97.5% quantiles of Student's t for 1..=30 degrees of freedom.
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

/// 99.9% quantiles of the chi-squared distribution for 1..=30 degrees of freedom.
const CHI2_999: [f64; 30] = [
    10.828, 13.816, 16.266, 18.467, 20.515, 22.458, 24.322, 26.124, 27.877, 29.588, 31.264, 32.909,
    34.528, 36.123, 37.697, 39.252, 40.790, 42.312, 43.820, 45.315, 46.797, 48.268, 49.728, 51.179,
    52.620, 54.052, 55.476, 56.892, 58.301, 59.703,
];

fn t975(df: usize) -> f64 {
    T975.get(df.wrapping_sub(1)).copied().unwrap_or(Z95)
}

fn chi2_999(df: usize) -> f64 {
    // Wilson–Hilferty beyond the table.
    CHI2_999
        .get(df.wrapping_sub(1))
        .copied()
        .unwrap_or_else(|| {
            let k = df as f64;
            let z = 3.090_232;
            k * (1.0 - 2.0 / (9.0 * k) + z * (2.0 / (9.0 * k)).sqrt()).powi(3)
        })
}

/// How much the bootstrap half-widths are widened for `rounds` rounds.
pub fn small_rounds_factor(rounds: usize) -> f64 {
    if rounds < 2 {
        return 1.0;
    }
    let r = rounds as f64;
    t975(rounds - 1) / Z95 * (r / (r - 1.0)).sqrt()
}

/// Summarises a series measured in rounds: the figures of all samples
/// pooled, the interval from the rounds. `seed` makes the bootstrap
/// reproducible (derive it from the series, not the clock).
pub fn summarize_rounds(rounds: &[Vec<f64>], seed: u64) -> Result<Summary, StatsError> {
    let rounds: Vec<&Vec<f64>> = rounds.iter().filter(|r| !r.is_empty()).collect();
    let pooled: Vec<f64> = rounds.iter().flat_map(|r| r.iter().copied()).collect();
    let sample = Sample::new(pooled)?;
    let mut s = sample.summary();
    s.within_ci95_lo = Some(s.ci95_lo);
    s.within_ci95_hi = Some(s.ci95_hi);
    s.rounds = rounds.len();
    let sorted = sample.sorted();
    s.round_medians = rounds
        .iter()
        .map(|r| super::median(r).expect("validated above"))
        .collect();
    if rounds.len() < 2 || (s.n < MIN_POINTS && rounds.len() < 3) {
        // Too little to resample: [min, max], and what it covers.
        s.interval = single_round_label(&s);
        s.unstable = false;
        return Ok(with_noise(s));
    }
    if s.n < MIN_POINTS {
        // A point or so per round: too few to resample, but the rounds are
        // independent, so Student's t over the round medians gives a 95%
        // interval, centred on the median. For a quantity every round found
        // positive (a time, a size) it is taken over their logs: such
        // figures scatter by factors, and an interval of a duration must not
        // reach below zero (three rounds at 0.77, 0.84 and 1.42 ms gave
        // [-0.05, 1.73] ms on the plain values).
        let positive = s.round_medians.iter().all(|m| *m > 0.0) && s.median > 0.0;
        let values: Vec<f64> = if positive {
            s.round_medians.iter().map(|m| m.ln()).collect()
        } else {
            s.round_medians.clone()
        };
        let r = values.len() as f64;
        let mean = values.iter().sum::<f64>() / r;
        let var = values.iter().map(|m| (m - mean) * (m - mean)).sum::<f64>() / (r - 1.0);
        let half = t975(rounds.len() - 1) * (var / r).sqrt();
        (s.ci95_lo, s.ci95_hi) = if positive {
            (s.median * (-half).exp(), s.median * half.exp())
        } else {
            (
                at_least_zero_if(s.min >= 0.0, s.median - half),
                s.median + half,
            )
        };
        widen_by_quantum(&mut s, sorted);
        s.ci_covers_95 = true;
        let (few, most) = rounds.iter().fold((usize::MAX, 0), |(a, b), r| {
            (a.min(r.len()), b.max(r.len()))
        });
        let per = if few == most {
            few.to_string()
        } else {
            format!("{few}–{most}")
        };
        s.interval = format!("95% (t), {} rounds of {per}", rounds.len());
        s.unstable = false;
        return Ok(with_noise(s));
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut reps = Vec::with_capacity(REPLICATES);
    let mut draw: Vec<f64> = Vec::with_capacity(sorted.len() * 2);
    for _ in 0..REPLICATES {
        draw.clear();
        for _ in 0..rounds.len() {
            let r = rounds[rng.random_range(0..rounds.len())];
            for _ in 0..r.len() {
                draw.push(r[rng.random_range(0..r.len())]);
            }
        }
        reps.push(median_in_place(&mut draw));
    }
    reps.sort_unstable_by(f64::total_cmp);
    let q = |p: f64| reps[((REPLICATES - 1) as f64 * p).round() as usize];
    let k = small_rounds_factor(rounds.len());
    (s.ci95_lo, s.ci95_hi) = if s.min > 0.0 && s.median > 0.0 {
        // Every sample positive (a time, a size): widen by factors, so the
        // interval of a duration never reaches below zero.
        (
            s.median * (q(0.025) / s.median).min(1.0).powf(k),
            s.median * (q(0.975) / s.median).max(1.0).powf(k),
        )
    } else {
        let lo = s.median - k * (s.median - q(0.025)).max(0.0);
        let hi = s.median + k * (q(0.975) - s.median).max(0.0);
        (at_least_zero_if(s.min >= 0.0, lo), hi)
    };
    widen_by_quantum(&mut s, sorted);
    s.ci_covers_95 = true;
    s.interval = format!("95%, {} rounds", rounds.len());
    s.unstable = unstable(&rounds, &s.round_medians);
    Ok(with_noise(s))
}

/// The step of samples that mostly take a few values (a short interval read
/// off a clock that ticks in steps: 50, 60, 70 ns, with the odd 51 or 61 from
/// rounding): the smallest gap between values that each hold at least 5% of
/// the samples, when such values hold at least half of them; 0 for figures
/// that vary continuously (no value repeats that often) or never vary.
pub fn quantum(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n < 8 {
        return 0.0;
    }
    let floor = (n / 20).max(2);
    let mut frequent: Vec<f64> = Vec::new();
    let mut covered = 0;
    for run in sorted.chunk_by(|a, b| a == b) {
        if run.len() >= floor {
            frequent.push(run[0]);
            covered += run.len();
        }
    }
    if frequent.len() < 2 || 2 * covered < n {
        return 0.0;
    }
    frequent
        .windows(2)
        .map(|w| w[1] - w[0])
        .fold(f64::INFINITY, f64::min)
}

/// Widens a median's interval by half a [`quantum`] each way: the median of
/// samples taken in steps is known to no better than a step, however many
/// there are (two runs at 60.0 and 65.6 ns of a join read in 10 ns steps
/// had intervals that did not meet, and compare called it a regression).
fn widen_by_quantum(s: &mut Summary, sorted: &[f64]) {
    s.quantum = quantum(sorted);
    let half = s.quantum / 2.0;
    if half > 0.0 {
        s.ci95_lo = at_least_zero_if(s.min >= 0.0, s.ci95_lo - half);
        s.ci95_hi += half;
    }
}

/// An interval's lower end, kept at zero or above when `nonnegative` (no
/// sample was below zero: a count, a share): a bound below zero would be the
/// widening's arithmetic, not a value the figure could take.
fn at_least_zero_if(nonnegative: bool, lo: f64) -> f64 {
    if nonnegative {
        lo.max(0.0)
    } else {
        lo
    }
}

/// The label of an interval that is not a rounds interval.
fn single_round_label(s: &Summary) -> String {
    if s.ci_covers_95 {
        "95%, one round".into()
    } else {
        let cover = 100.0 * (1.0 - 2.0 * 0.5f64.powi(s.n as i32));
        format!("min–max of {}, {cover:.0}%", s.n)
    }
}

fn with_noise(mut s: Summary) -> Summary {
    let half = (s.ci95_hi - s.ci95_lo) / 2.0;
    s.noisy =
        s.rel_spread > super::NOISY_REL_SPREAD || half > super::NOISY_CI_FRACTION * s.median.abs();
    s
}

/// The median of `v`, reordering it.
fn median_in_place(v: &mut [f64]) -> f64 {
    let n = v.len();
    let (_, hi, _) = v.select_nth_unstable_by(n / 2, f64::total_cmp);
    let hi = *hi;
    if n % 2 == 1 {
        hi
    } else {
        let lo = v[..n / 2].iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (lo + hi) / 2.0
    }
}

/// Whether the rounds of a series disagree beyond their own spread: a
/// chi-squared test of the round medians against each round's standard
/// error of the median (p < 0.001), and a spread large enough to matter
/// (the largest round median over the smallest above [`UNSTABLE_RATIO`]).
fn unstable(rounds: &[&Vec<f64>], medians: &[f64]) -> bool {
    let (min, max) = medians
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &m| {
            (a.min(m), b.max(m))
        });
    if min.is_nan() || min <= 0.0 || max / min <= UNSTABLE_RATIO {
        return false;
    }
    // Standard error of each round's median from its interquartile range
    // (sigma ≈ IQR / 1.349; SE(median) ≈ 1.2533 sigma / sqrt(n)).
    let mut weights = Vec::new();
    for r in rounds {
        let Ok(s) = Sample::new(r.to_vec()) else {
            return false;
        };
        let iqr = s.quantile(0.75) - s.quantile(0.25);
        let se = 1.2533 * (iqr / 1.349) / (r.len() as f64).sqrt();
        // A round of one sample, or of equal samples, says nothing about
        // its own spread: no test, no flag.
        if r.len() < 5 || se.is_nan() || se <= 0.0 {
            return false;
        }
        weights.push(1.0 / (se * se));
    }
    let wsum: f64 = weights.iter().sum();
    let mean = medians
        .iter()
        .zip(&weights)
        .map(|(m, w)| m * w)
        .sum::<f64>()
        / wsum;
    let q: f64 = medians
        .iter()
        .zip(&weights)
        .map(|(m, w)| w * (m - mean) * (m - mean))
        .sum();
    q > chi2_999(medians.len() - 1)
}

#[cfg(test)]
#[path = "rounds_tests.rs"]
mod tests;
