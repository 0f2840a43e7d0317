//! The statistics every tasklab figure goes through.
//!
//! The worker measures raw samples; the parent summarises them here. Everything
//! in this module is pure (no I/O, no clocks) so that summaries are
//! reproducible from the recorded samples alone.
//!
//! Robust, distribution-free statistics are preferred throughout: timing
//! samples are skewed and heavy-tailed (preemption, page faults, frequency
//! changes), so the median with an order-statistic confidence interval is the
//! headline figure rather than the mean.

pub mod amdahl;
pub mod change;
pub mod compare_text;
pub mod contrast;
pub mod fdr;
pub mod memstate;
pub mod noise;
pub mod paired;
pub mod rounds;
pub mod share;
pub mod split;
pub mod squeeze;
pub mod twoside;

pub use change::{change, drift, drift_of, drift_range, mde, verdict, Change, Verdict};
use std::fmt;

/// Interquartile range relative to the median above which a sample is noisy.
pub const NOISY_REL_SPREAD: f64 = 0.25;
/// Half-width of the median's 95% CI, relative to the median, above which a
/// sample is noisy.
pub const NOISY_CI_FRACTION: f64 = 0.10;

/// Two-sided 95% standard normal quantile.
pub(crate) const Z95: f64 = 1.959_963_984_540_054;
/// Probability allowed in each tail of the median CI.
const TAIL95: f64 = 0.025;
/// Largest n for which the median CI ranks come from the exact binomial
/// distribution. Up to here `0.5^n` is still a normal f64, so the CDF can be
/// summed directly; beyond it the normal approximation is within a rank.
const EXACT_CI_MAX_N: usize = 1000;
/// Smallest n for which [min, max] covers the median with >= 95%:
/// 1 - 2·0.5^n >= 0.95 first holds at n = 6.
const MIN_N_FOR_95: usize = 6;
/// Tukey's fence multiplier.
const TUKEY_K: f64 = 1.5;

/// Descriptive statistics of one sample.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Summary {
    pub n: usize,
    pub min: f64,
    pub max: f64,
    pub median: f64,
    pub mean: f64,
    pub p10: f64,
    pub p25: f64,
    pub p75: f64,
    pub p90: f64,
    pub p99: f64,
    /// Sample standard deviation (n - 1 denominator); 0 for n == 1.
    pub stddev: f64,
    /// Lower end of the distribution-free 95% confidence interval of the
    /// median (an order statistic).
    pub ci95_lo: f64,
    /// Upper end of the distribution-free 95% confidence interval of the
    /// median (an order statistic).
    pub ci95_hi: f64,
    /// False when n is too small (< 6) for any order-statistic interval to
    /// reach 95%; the interval is then [min, max].
    pub ci_covers_95: bool,
    /// Points below `p25 - 1.5·IQR`.
    pub outliers_low: usize,
    /// Points above `p75 + 1.5·IQR`.
    pub outliers_high: usize,
    /// `(p75 - p25) / |median|`, 0 if the median is 0.
    pub rel_spread: f64,
    /// True when `rel_spread > NOISY_REL_SPREAD` or the CI half-width exceeds
    /// `NOISY_CI_FRACTION` of the median.
    pub noisy: bool,
    /// Independent rounds the samples come from (0 in files older than
    /// rounds: one round).
    #[serde(default)]
    pub rounds: usize,
    /// Each round's median, in round order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub round_medians: Vec<f64>,
    /// The order-statistic interval of the pooled samples: what the interval
    /// would be if the samples were independent (they are not across rounds).
    #[serde(default)]
    pub within_ci95_lo: Option<f64>,
    #[serde(default)]
    pub within_ci95_hi: Option<f64>,
    /// What `ci95_lo..ci95_hi` is: "95%, 8 rounds", or "min–max of 3, 75%"
    /// when too few points allow no 95% interval.
    #[serde(default)]
    pub interval: String,
    /// Flagged: what more rounds cannot fix ([`Unsettled`]: a trend over
    /// the run, or rounds in two modes). The figure is still shown with its
    /// (wide) interval; no finding or headline may rest on it.
    #[serde(default)]
    pub unstable: bool,
    /// Why it is flagged, when it is (files before this field: none given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsettled: Option<rounds::Unsettled>,
    /// The step the samples were read in, when they take only a few values
    /// (`rounds::quantum`; 0 for figures that vary continuously). The
    /// interval is widened by half of it each way.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub quantum: f64,
    /// The standard error of the log of the median from this run's rounds
    /// alone (the rounds' cluster bootstrap): what a comparison builds its
    /// own interval from. None for a figure not positive throughout, and in
    /// files from before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub se_ln: Option<f64>,
    /// The run-to-run standard deviation in logs the interval was widened by
    /// (`rounds::widen_by_run_noise`), measured for the series' experiment
    /// and point; None when the interval is this run's rounds alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_noise: Option<f64>,
}

impl Summary {
    /// Half the interval's width over the median: the "±X%" a figure is
    /// known to (a fraction; infinite for a median of 0).
    pub fn half_width(&self) -> f64 {
        (self.ci95_hi - self.ci95_lo) / 2.0 / self.median.abs()
    }

    /// The mark the tables, the grids and the matrix put beside a figure:
    /// "!" flagged (its rounds did not agree), "~" noisy, "" otherwise.
    pub fn mark(&self) -> &'static str {
        match (self.unstable, self.noisy) {
            (true, _) => "!",
            (false, true) => "~",
            _ => "",
        }
    }

    /// [`Summary::mark`] with the space that sets it after a figure: " !",
    /// " ~" or "".
    pub fn spaced_mark(&self) -> &'static str {
        match self.mark() {
            "!" => " !",
            "~" => " ~",
            _ => "",
        }
    }
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// Why a set of values is not a usable sample.
#[derive(Debug, Clone, PartialEq)]
pub enum StatsError {
    /// No values at all.
    Empty,
    /// The value at this index is NaN or infinite.
    NonFinite(usize),
}

impl fmt::Display for StatsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StatsError::Empty => write!(f, "sample is empty"),
            StatsError::NonFinite(i) => write!(f, "sample value at index {i} is not finite"),
        }
    }
}

impl std::error::Error for StatsError {}

/// A validated sample: at least one point, all finite, kept sorted
/// ascending.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    sorted: Vec<f64>,
}

impl Sample {
    /// Validates `values`; the error names the first non-finite index.
    pub fn new(values: Vec<f64>) -> Result<Sample, StatsError> {
        if values.is_empty() {
            return Err(StatsError::Empty);
        }
        if let Some(i) = values.iter().position(|v| !v.is_finite()) {
            return Err(StatsError::NonFinite(i));
        }
        let mut sorted = values;
        // All values are finite, so total_cmp agrees with numeric order
        // (apart from -0.0 < 0.0, which is harmless).
        sorted.sort_unstable_by(f64::total_cmp);
        Ok(Sample { sorted })
    }

    /// The values in ascending order.
    pub fn sorted(&self) -> &[f64] {
        &self.sorted
    }

    /// Quantile by linear interpolation between closest ranks (Hyndman–Fan
    /// type 7, numpy's default). `q` is clamped to [0, 1].
    pub fn quantile(&self, q: f64) -> f64 {
        let s = &self.sorted;
        // NaN would make the rank meaningless; treat it as the median rather
        // than panic, since callers pass constants.
        let q = if q.is_nan() { 0.5 } else { q.clamp(0.0, 1.0) };
        let h = (s.len() - 1) as f64 * q;
        let lo = h.floor() as usize;
        let frac = h - lo as f64;
        if frac == 0.0 || lo + 1 >= s.len() {
            return s[lo];
        }
        let (a, b) = (s[lo], s[lo + 1]);
        let diff = b - a;
        // `a + frac·(b - a)` is monotone in `frac`, which keeps quantiles
        // ordered; the other form only guards against `b - a` overflowing
        // for values near ±f64::MAX.
        let v = if diff.is_finite() {
            a + frac * diff
        } else {
            (1.0 - frac) * a + frac * b
        };
        v.clamp(a, b)
    }

    /// Full summary of the sample.
    pub fn summary(&self) -> Summary {
        let s = &self.sorted;
        let n = s.len();
        let min = s[0];
        let max = s[n - 1];
        let median = self.quantile(0.5);
        let p25 = self.quantile(0.25);
        let p75 = self.quantile(0.75);

        let (mean, stddev) = mean_stddev(s);

        let (lo_rank, hi_rank, ci_covers_95) = median_ci_ranks(n);
        let ci95_lo = s[lo_rank - 1];
        let ci95_hi = s[hi_rank - 1];

        let iqr = p75 - p25;
        let fence_lo = p25 - TUKEY_K * iqr;
        let fence_hi = p75 + TUKEY_K * iqr;
        // Sorted, so the counts are partition points.
        let outliers_low = s.partition_point(|&v| v < fence_lo);
        let outliers_high = n - s.partition_point(|&v| v <= fence_hi);

        // |median| so that a negative median (e.g. a difference of costs)
        // still yields a meaningful, non-negative spread.
        let rel_spread = if median == 0.0 {
            0.0
        } else {
            iqr / median.abs()
        };
        let ci_half_width = (ci95_hi - ci95_lo) / 2.0;
        let noisy =
            rel_spread > NOISY_REL_SPREAD || ci_half_width > NOISY_CI_FRACTION * median.abs();

        Summary {
            n,
            min,
            max,
            median,
            mean,
            p10: self.quantile(0.10),
            p25,
            p75,
            p90: self.quantile(0.90),
            p99: self.quantile(0.99),
            stddev,
            ci95_lo,
            ci95_hi,
            ci_covers_95,
            outliers_low,
            outliers_high,
            rel_spread,
            noisy,
            rounds: 1,
            round_medians: Vec::new(),
            within_ci95_lo: None,
            within_ci95_hi: None,
            quantum: 0.0,
            interval: if ci_covers_95 {
                "95%".into()
            } else {
                format!(
                    "min–max of {n}, {:.0}%",
                    100.0 * (1.0 - 2.0 * 0.5f64.powi(n as i32))
                )
            },
            unstable: false,
            unsettled: None,
            se_ln: None,
            run_noise: None,
        }
    }
}

/// A seed derived from a name (FNV-1a): the same series always resamples the
/// same way, so a summary is reproducible from the recorded samples alone.
pub fn seed_for(key: &str) -> u64 {
    key.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The median of `values`; None when there are none or one is not finite.
pub fn median(values: &[f64]) -> Option<f64> {
    Sample::new(values.to_vec()).ok().map(|s| s.quantile(0.5))
}

/// Validates and summarises in one step.
pub fn summarize(values: &[f64]) -> Result<Summary, StatsError> {
    Ok(Sample::new(values.to_vec())?.summary())
}

/// Mean and sample standard deviation of a non-empty, finite, sorted slice.
fn mean_stddev(sorted: &[f64]) -> (f64, f64) {
    let n = sorted.len();
    let (min, max) = (sorted[0], sorted[n - 1]);
    let nf = n as f64;
    let mut mean = sorted.iter().sum::<f64>() / nf;
    if !mean.is_finite() {
        // The plain sum overflowed; dividing first cannot.
        mean = sorted.iter().map(|v| v / nf).sum();
    }
    // Rounding must not push the mean outside the data.
    let mean = mean.clamp(min, max);
    if n == 1 {
        return (mean, 0.0);
    }
    // Two-pass: far more accurate than the sum-of-squares shortcut when the
    // spread is small relative to the magnitude (typical for timings).
    let ss: f64 = sorted.iter().map(|v| (v - mean) * (v - mean)).sum();
    let mut stddev = (ss / (nf - 1.0)).sqrt();
    if !stddev.is_finite() {
        // Squares overflowed; rescale by the largest magnitude.
        let scale = min.abs().max(max.abs());
        let m = mean / scale;
        let ss: f64 = sorted
            .iter()
            .map(|v| (v / scale - m) * (v / scale - m))
            .sum();
        stddev = (ss / (nf - 1.0)).sqrt() * scale;
    }
    (mean, stddev)
}

/// 1-based ranks `(j, k)` such that `[x_(j), x_(k)]` is a 95% confidence
/// interval for the median, and whether it truly reaches 95%.
///
/// The interval covers the median with probability `P(j <= B < k)`,
/// `B ~ Binomial(n, 1/2)`, whatever the distribution (continuous case).
/// Ranks are symmetric: `k = n + 1 - j`.
fn median_ci_ranks(n: usize) -> (usize, usize, bool) {
    debug_assert!(n >= 1);
    if n < MIN_N_FOR_95 {
        return (1, n, false);
    }
    let j = if n <= EXACT_CI_MAX_N {
        exact_lower_rank(n)
    } else {
        // Normal approximation B ≈ N(n/2, n/4); flooring rounds the interval
        // outward so coverage stays >= 95%.
        let half = n as f64 / 2.0;
        let j = (half - Z95 * (n as f64).sqrt() / 2.0).floor();
        (j as usize).max(1)
    };
    (j, n + 1 - j, true)
}

/// Largest `j` with `P(B <= j - 1) <= 2.5%` for `B ~ Binomial(n, 1/2)`, i.e.
/// the tightest symmetric interval with at least 95% coverage. Requires
/// `MIN_N_FOR_95 <= n <= EXACT_CI_MAX_N`.
fn exact_lower_rank(n: usize) -> usize {
    let nf = n as f64;
    let mut pmf = 0.5f64.powi(n as i32);
    let mut cdf = pmf;
    let mut i = 0usize;
    // Invariant: cdf = P(B <= i) <= TAIL95 (true at i = 0 since n >= 6).
    while i < n / 2 {
        pmf *= (nf - i as f64) / (i as f64 + 1.0);
        if cdf + pmf > TAIL95 {
            break;
        }
        cdf += pmf;
        i += 1;
    }
    i + 1
}

/// Result of an ordinary least-squares fit `y = intercept + slope·x`.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Fit {
    pub intercept: f64,
    pub slope: f64,
    /// Coefficient of determination, `1 - SS_res / SS_tot`.
    pub r2: f64,
    pub n: usize,
}

/// Ordinary least squares `y = intercept + slope·x`.
///
/// None if fewer than 2 points, mismatched lengths, non-finite input, all x
/// equal, or a result that overflows. `r2 = 1 - SS_res/SS_tot` (1.0 when
/// `SS_tot == 0` and the fit is exact).
pub fn linear_fit(xs: &[f64], ys: &[f64]) -> Option<Fit> {
    let n = xs.len();
    if n < 2 || ys.len() != n {
        return None;
    }
    if xs.iter().chain(ys).any(|v| !v.is_finite()) {
        return None;
    }
    if xs.iter().all(|&x| x == xs[0]) {
        return None;
    }
    if ys.iter().all(|&y| y == ys[0]) {
        // Handled exactly: the computed mean of identical values can differ
        // from them by rounding, which would give a spurious slope and r2.
        return Some(Fit {
            intercept: ys[0],
            slope: 0.0,
            r2: 1.0,
            n,
        });
    }
    let nf = n as f64;
    let mx = xs.iter().sum::<f64>() / nf;
    let my = ys.iter().sum::<f64>() / nf;
    // Centred sums avoid the cancellation of the textbook Σxy - n·x̄·ȳ form.
    let (mut sxx, mut sxy, mut ss_tot) = (0.0, 0.0, 0.0);
    for (&x, &y) in xs.iter().zip(ys) {
        let (dx, dy) = (x - mx, y - my);
        sxx += dx * dx;
        sxy += dx * dy;
        ss_tot += dy * dy;
    }
    if sxx == 0.0 {
        // Distinct xs whose deviations underflow: slope is undetermined.
        return None;
    }
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    let ss_res: f64 = xs
        .iter()
        .zip(ys)
        .map(|(&x, &y)| {
            let r = y - (intercept + slope * x);
            r * r
        })
        .sum();
    let r2 = if ss_tot == 0.0 {
        if ss_res == 0.0 {
            1.0
        } else {
            0.0
        }
    } else {
        // OLS with an intercept has r2 in [0, 1]; clamp rounding excursions.
        (1.0 - ss_res / ss_tot).clamp(0.0, 1.0)
    };
    [intercept, slope, r2]
        .iter()
        .all(|v| v.is_finite())
        .then_some(Fit {
            intercept,
            slope,
            r2,
            n,
        })
}

/// Amdahl's law: best speedup with serial fraction `s` (0..=1) on `p`
/// workers, `1 / (s + (1 - s) / p)`. Outside that domain the result is
/// whatever the formula gives.
pub fn amdahl_speedup(serial_fraction: f64, workers: f64) -> f64 {
    1.0 / (serial_fraction + (1.0 - serial_fraction) / workers)
}

/// Karp–Flatt metric: the serial fraction implied by a measured speedup `S`
/// on `p` workers, `(1/S - 1/p) / (1 - 1/p)`; the inverse of
/// [`amdahl_speedup`]. None unless `p > 1` and `S > 0` (both finite).
///
/// The result is not clamped: a negative value means superlinear speedup and
/// a value above 1 means a slowdown, both worth reporting as such.
pub fn karp_flatt(speedup: f64, workers: f64) -> Option<f64> {
    if !(speedup.is_finite() && workers.is_finite() && speedup > 0.0 && workers > 1.0) {
        return None;
    }
    let e = (1.0 / speedup - 1.0 / workers) / (1.0 - 1.0 / workers);
    e.is_finite().then_some(e)
}

#[cfg(test)]
mod tests;
