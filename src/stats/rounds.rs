//! Figures measured in independent rounds (each round a fresh worker, the
//! rounds spread over the run): an interval for this run's median, a
//! standard error the comparisons build on, and a flag for what more rounds
//! cannot fix (a trend over the run, or rounds that fall in two modes).
//!
//! The variance that matters lives between rounds (process start, memory
//! layout, the machine's state: Kalibera and Jones, "Rigorous Benchmarking
//! in Reasonable Time", 2013), so the interval comes from a cluster
//! bootstrap: resample the rounds (each drawn round with all its samples)
//! and take the median of what was drawn. A round's median already carries
//! the noise within it, so the samples are not resampled again (a second
//! stage would count that noise twice). With few rounds a bootstrap
//! percentile interval is too narrow (it sees the between-round variance as
//! (R-1)/R of itself, and its tails are those of a normal, not of a t with
//! R-1 degrees of freedom), so its two half-widths are widened by
//! `t(R-1) / z · sqrt(R / (R-1))`. Tested on synthetic rounds with a known
//! median (`tests.rs`).
//!
//! What the rounds cannot see, the host's state from one run to the next,
//! is not a constant here: [`widen_by_run_noise`] takes a run-to-run
//! standard deviation measured for the series' family (`stats::noise`).

use super::{Sample, StatsError, Summary, Z95};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// Bootstrap replicates per interval.
const REPLICATES: usize = 1000;
/// Fewer points than this: the interval is [min, max] and says its coverage.
const MIN_POINTS: usize = 6;
/// Two modes, or a trend, are flagged only when they are at least this far
/// apart (10%): smaller structure is within what the interval says.
pub const UNSETTLED_RATIO: f64 = 1.10;

/// Two-sided 97.5% quantiles of Student's t for 1..=30 degrees of freedom.
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

pub(crate) fn t975(df: usize) -> f64 {
    T975.get(df.wrapping_sub(1)).copied().unwrap_or(Z95)
}

/// How much the bootstrap half-widths are widened for `rounds` rounds.
pub fn small_rounds_factor(rounds: usize) -> f64 {
    if rounds < 2 {
        return 1.0;
    }
    let r = rounds as f64;
    t975(rounds - 1) / Z95 * (r / (r - 1.0)).sqrt()
}

/// Summarises a series measured in rounds, over one run or several runs of
/// the same series (`compare A1 A2 --vs B1 B2`): the figures of all samples
/// pooled, the interval from the bootstrap, which resamples the runs, then
/// the rounds of each run drawn, so the variance between runs enters the
/// interval (with one run, its rounds are the only level). `seed` makes the
/// bootstrap reproducible (derive it from the series, not the clock).
/// No run-to-run noise is added: that is [`widen_by_run_noise`]'s, from a
/// measured figure.
pub fn summarize_runs(runs: &[&[Vec<f64>]], seed: u64) -> Result<Summary, StatsError> {
    let groups: Vec<Vec<&Vec<f64>>> = runs
        .iter()
        .map(|run| run.iter().filter(|r| !r.is_empty()).collect::<Vec<_>>())
        .filter(|g| !g.is_empty())
        .collect();
    let rounds: Vec<&Vec<f64>> = groups.iter().flatten().copied().collect();
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
    let positive_medians = s.round_medians.iter().all(|m| *m > 0.0) && s.median > 0.0;
    if s.n < MIN_POINTS {
        // A point or so per round: too few to resample, but the rounds are
        // independent, so Student's t over the round medians gives a 95%
        // interval, centred on the median. For a quantity every round found
        // positive (a time, a size) it is taken over their logs: such
        // figures scatter by factors, and an interval of a duration must not
        // reach below zero (three rounds at 0.77, 0.84 and 1.42 ms gave
        // [-0.05, 1.73] ms on the plain values).
        let se = se_of_mean(&s.round_medians, positive_medians);
        let half = t975(rounds.len() - 1) * se;
        (s.ci95_lo, s.ci95_hi) = if positive_medians {
            s.se_ln = Some(se);
            (s.median * (-half).exp(), s.median * half.exp())
        } else {
            // On the plain values: a lower bound below zero is kept as
            // computed, never raised to zero (issue 39); the report says so
            // in words for a figure that cannot be negative.
            (s.median - half, s.median + half)
        };
        widen_by_quantum(&mut s, sorted);
        within_the_data(&mut s);
        s.ci_covers_95 = true;
        s.interval = format!(
            "95% (t), {} rounds of {}",
            rounds.len(),
            points_per(&rounds)
        );
        if groups.len() == 1 {
            flag(&mut s);
        }
        return Ok(with_noise(s));
    }
    let reps = run_replicates(&groups, seed, sorted.len() * 2);
    let q = |p: f64| reps[((REPLICATES - 1) as f64 * p).round() as usize];
    let k = small_rounds_factor(rounds.len());
    if s.min > 0.0 && s.median > 0.0 {
        // The standard error of the log median: the replicates' spread,
        // with the same small-sample correction the interval takes (its
        // t factor is the comparison's, from its degrees of freedom).
        let logs: Vec<f64> = reps.iter().map(|x| x.ln()).collect();
        let r = rounds.len() as f64;
        s.se_ln = Some(sd(&logs) * (r / (r - 1.0)).sqrt());
    }
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
        // A bound below zero kept as computed, as above.
        (lo, hi)
    };
    widen_by_quantum(&mut s, sorted);
    within_the_data(&mut s);
    s.ci_covers_95 = true;
    s.interval = if groups.len() > 1 {
        format!("95%, {} runs, {} rounds", groups.len(), rounds.len())
    } else {
        format!("95%, {} rounds", rounds.len())
    };
    // A trend or two modes are read in one run's rounds; across runs, the
    // caller joins each run's own flag (a difference between runs is what
    // the run level of the interval is for).
    if groups.len() == 1 {
        flag(&mut s);
    }
    Ok(with_noise(s))
}

/// The standard error of the mean of `medians` (at least two), taken over
/// their logs when `logs`.
fn se_of_mean(medians: &[f64], logs: bool) -> f64 {
    let values: Vec<f64> = if logs {
        medians.iter().map(|m| m.ln()).collect()
    } else {
        medians.to_vec()
    };
    let r = values.len() as f64;
    let mean = values.iter().sum::<f64>() / r;
    let var = values.iter().map(|m| (m - mean) * (m - mean)).sum::<f64>() / (r - 1.0);
    (var / r).sqrt()
}

/// Points per round in words: "5", or "3–5" when they differ.
fn points_per(rounds: &[&Vec<f64>]) -> String {
    let (few, most) = rounds.iter().fold((usize::MAX, 0), |(a, b), r| {
        (a.min(r.len()), b.max(r.len()))
    });
    if few == most {
        few.to_string()
    } else {
        format!("{few}–{most}")
    }
}

/// The bootstrap's medians, sorted: each replicate draws the runs, then
/// the rounds of each run drawn (`capacity`: a replicate's points, about).
fn run_replicates(groups: &[Vec<&Vec<f64>>], seed: u64, capacity: usize) -> Vec<f64> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut reps = Vec::with_capacity(REPLICATES);
    let mut draw: Vec<f64> = Vec::with_capacity(capacity);
    for _ in 0..REPLICATES {
        draw.clear();
        for _ in 0..groups.len() {
            let run = &groups[rng.random_range(0..groups.len())];
            for _ in 0..run.len() {
                draw.extend_from_slice(run[rng.random_range(0..run.len())]);
            }
        }
        reps.push(median_in_place(&mut draw));
    }
    reps.sort_unstable_by(f64::total_cmp);
    reps
}

/// The sample standard deviation (N - 1); 0 for fewer than two.
fn sd(x: &[f64]) -> f64 {
    let n = x.len();
    if n < 2 {
        return 0.0;
    }
    let mean = x.iter().sum::<f64>() / n as f64;
    (x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
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
/// The lower end may pass zero: it is kept as computed.
fn widen_by_quantum(s: &mut Summary, sorted: &[f64]) {
    s.quantum = quantum(sorted);
    let half = s.quantum / 2.0;
    if half > 0.0 {
        s.ci95_lo -= half;
        s.ci95_hi += half;
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

/// A quick estimate of a one-run interval's half-width over its median (as
/// a fraction): Student's t over the logs of the round medians. What
/// adaptive rounds steer by (more rounds narrow this part, never the
/// run-to-run part); the results carry the bootstrap interval. NaN for
/// fewer than two rounds or a median that is not positive.
pub fn quick_half_width(medians: &[f64]) -> f64 {
    let r = medians.len();
    if r < 2 || medians.iter().any(|m| m.is_nan() || *m <= 0.0) {
        return f64::NAN;
    }
    let logs: Vec<f64> = medians.iter().map(|m| m.ln()).collect();
    let h = t975(r - 1) * sd(&logs) / (r as f64).sqrt();
    // (hi - lo) / 2 / median of [m·e^-h, m·e^h], as `Summary::half_width`
    // (sinh, written out: the binary defines no C `sinh`, sys/math_symbols)
    (h.exp() - (-h).exp()) / 2.0
}

/// From this many runs of a series a side, `compare` takes their spread as
/// the run-to-run noise itself; with fewer it combines them with the
/// series' own spread (`stats::noise`).
pub const RUNS_MEASURED: usize = 4;

/// Widens a one-run interval by the run-to-run noise `tau` (a standard
/// deviation in logs, measured: `stats::noise`) in quadrature, so the
/// interval speaks of the next run's median too: by factors for a figure
/// positive throughout, by the same share of its median otherwise (a lower
/// end below zero kept as computed, never raised to it). Records `tau` in
/// the summary.
pub fn widen_by_run_noise(s: &mut Summary, tau: f64) {
    if !(tau.is_finite() && tau > 0.0) {
        return;
    }
    let positive = s.min > 0.0;
    (s.ci95_lo, s.ci95_hi) = widen_ends(s.median, s.ci95_lo, s.ci95_hi, tau, positive);
    s.run_noise = Some(tau);
    let half = (s.ci95_hi - s.ci95_lo) / 2.0;
    s.noisy =
        s.rel_spread > super::NOISY_REL_SPREAD || half > super::NOISY_CI_FRACTION * s.median.abs();
}

/// An interval's ends, widened by the run-to-run noise `tau` (a standard
/// deviation in logs) in quadrature, each side on its own: by factors
/// when the figure and its ends are positive (`positive`: and every
/// sample was), else by the same share of the median (a lower end below
/// zero kept as computed, never raised to it). A `tau` of 0 or not a
/// number leaves them as they are; the widened interval always holds the
/// one given.
pub fn widen_ends(median: f64, lo: f64, hi: f64, tau: f64, positive: bool) -> (f64, f64) {
    if !(tau.is_finite() && tau > 0.0) {
        return (lo, hi);
    }
    let noise = super::Z95 * tau;
    if positive && median > 0.0 && lo > 0.0 {
        let below = (median / lo).ln().hypot(noise);
        let above = (hi / median).ln().hypot(noise);
        (median * (-below).exp(), median * above.exp())
    } else {
        let floor = noise * median.abs();
        let below = (median - lo).hypot(floor);
        let above = (hi - median).hypot(floor);
        (median - below, median + above)
    }
}

/// Keeps a rounds interval of [`BOUNDED_FROM`] rounds or more inside the
/// samples: the median of the rounds' population lies below every sample of
/// R independent rounds only if each round's median does, which happens with
/// probability 0.5^R, so the bound costs the interval at most 2·0.5^R of its
/// coverage (0.8% at 8 rounds) while the small-rounds widening would
/// otherwise reach past the data (three rounds of a system call whose every
/// sample was at least 163.9 ns gave [107.7, 234.2] ns). Fewer rounds (only
/// by `--rounds`) keep the unbounded interval: at 3 rounds the bound would
/// cost 25%.
fn within_the_data(s: &mut Summary) {
    if s.round_medians.len() >= BOUNDED_FROM {
        s.ci95_lo = s.ci95_lo.max(s.min);
        s.ci95_hi = s.ci95_hi.min(s.max);
    }
}

/// The fewest rounds whose interval [`within_the_data`] bounds.
pub const BOUNDED_FROM: usize = 8;

/// What more rounds cannot fix, found in a series' round medians (in the
/// order the rounds ran, when the caller knows it).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unsettled {
    /// The rounds drifted one way over the run: from about `first` to about
    /// `last` (the medians of its first and last thirds).
    Trend { first: f64, last: f64 },
    /// The rounds fall in two groups apart: `low` and `high` are each
    /// group's median, `low_share` the share of rounds in the low one;
    /// `explained`, what the rounds' own record says sets them apart, when it
    /// does (`measure::explain::mode_covariate`).
    TwoModes {
        low: f64,
        high: f64,
        low_share: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        explained: Option<String>,
    },
}

impl Unsettled {
    /// In words, with the figure's unit: "two modes: 530 ns and 680 ns, 40%
    /// / 60% of rounds".
    pub fn words(&self, unit: crate::units::Unit) -> String {
        let v = |x: f64| crate::units::fmt_value(x, unit);
        match *self {
            Unsettled::Trend { first, last } => format!(
                "a trend over the run: its rounds went from about {} to {}",
                v(first),
                v(last)
            ),
            Unsettled::TwoModes {
                low,
                high,
                low_share,
                ref explained,
            } => format!(
                "two modes: {} and {}, {:.0}% / {:.0}% of rounds{}",
                v(low),
                v(high),
                100.0 * low_share,
                100.0 * (1.0 - low_share),
                explained.as_ref().map_or(String::new(), |why| format!(
                    " (in this series' rounds: {why})"
                ))
            ),
        }
    }
}

/// The largest ratio of the gap between two groups of round medians to the
/// spread inside them that is still one mode, by the number of rounds:
/// chosen on simulated rounds (normal and Student-t(3) noise of 5-8%) to
/// flag fewer than 0.5% of one-mode series at 8 rounds and 0.1% from 12,
/// while finding most 40/60 mixtures 25% apart.
fn mode_gap(rounds: usize) -> f64 {
    if rounds < 10 {
        6.0
    } else {
        4.0
    }
}

/// Sets `unstable` and `unsettled` from the round medians: a monotone trend
/// (Kendall's tau against the order, p < 0.001, and at least
/// [`UNSETTLED_RATIO`] from the first third to the last), or two modes (the
/// widest gap of the sorted medians, each side at least a fifth of the
/// rounds and two, at least [`UNSETTLED_RATIO`] apart and [`mode_gap`]
/// times the spread inside the two groups). A spread that is wide but
/// one-moded is not flagged: more rounds narrow it, and the interval says it.
fn flag(s: &mut Summary) {
    let step = if s.median > 0.0 {
        s.quantum / s.median
    } else {
        0.0
    };
    s.unsettled = unsettled_in_steps(&s.round_medians, step);
    s.unstable = s.unsettled.is_some();
}

/// The fewest rounds [`flag`]'s test reads a trend or two modes in: a
/// series of fewer rounds is never flagged, however its rounds fell.
pub const FLAG_ROUNDS: usize = 6;

/// [`flag`]'s test, on round medians in run order.
pub fn unsettled(medians: &[f64]) -> Option<Unsettled> {
    unsettled_in_steps(medians, 0.0)
}

/// [`unsettled`] for figures read in steps of `step` (a share of the
/// median, `Summary::quantum` over it): medians that sit on two steps of a
/// clock are one mode read at its resolution, so the spread inside a group
/// is taken as at least a step's (a uniform step's sd, step/√3).
pub fn unsettled_in_steps(medians: &[f64], step: f64) -> Option<Unsettled> {
    let r = medians.len();
    if r < FLAG_ROUNDS || medians.iter().any(|m| !m.is_finite() || *m <= 0.0) {
        return None;
    }
    let logs: Vec<f64> = medians.iter().map(|m| m.ln()).collect();
    trend(&logs).or_else(|| two_modes(&logs, step / 3f64.sqrt()))
}

fn trend(logs: &[f64]) -> Option<Unsettled> {
    let r = logs.len();
    let mut score = 0i64;
    for i in 0..r {
        for j in i + 1..r {
            score += match logs[j].total_cmp(&logs[i]) {
                std::cmp::Ordering::Greater => 1,
                std::cmp::Ordering::Less => -1,
                std::cmp::Ordering::Equal => 0,
            };
        }
    }
    let n = r as f64;
    let z = score as f64 / (n * (n - 1.0) * (2.0 * n + 5.0) / 18.0).sqrt();
    let third = r / 3;
    let mid = |v: &[f64]| super::median(v).map(f64::exp);
    let (first, last) = (mid(&logs[..third])?, mid(&logs[r - third..])?);
    let moved = (last / first).max(first / last);
    (z.abs() > 3.29 && moved >= UNSETTLED_RATIO).then_some(Unsettled::Trend { first, last })
}

fn two_modes(logs: &[f64], least_sd: f64) -> Option<Unsettled> {
    let mut x = logs.to_vec();
    x.sort_by(f64::total_cmp);
    let r = x.len();
    let least = 2usize.max((r as f64 * 0.2).ceil() as usize);
    let mut best: Option<(f64, usize)> = None;
    for k in least..=r.saturating_sub(least) {
        let (a, b) = x.split_at(k);
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        let (ma, mb) = (mean(a), mean(b));
        if mb - ma < UNSETTLED_RATIO.ln() {
            continue;
        }
        let ss: f64 = a.iter().map(|v| (v - ma).powi(2)).sum::<f64>()
            + b.iter().map(|v| (v - mb).powi(2)).sum::<f64>();
        let sd = (ss / (r - 2) as f64).sqrt().max(least_sd);
        let gap = (b[0] - a[k - 1]) / sd.max(1e-9);
        if best.is_none_or(|(g, _)| gap > g) {
            best = Some((gap, k));
        }
    }
    let (gap, k) = best?;
    (gap > mode_gap(r)).then(|| {
        let (a, b) = x.split_at(k);
        let mid = |v: &[f64]| super::median(v).map_or(f64::NAN, f64::exp);
        Unsettled::TwoModes {
            low: mid(a),
            high: mid(b),
            low_share: k as f64 / r as f64,
            explained: None,
        }
    })
}

#[cfg(test)]
#[path = "rounds_tests.rs"]
mod tests;
