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

use std::fmt;

/// Interquartile range relative to the median above which a sample is noisy.
pub const NOISY_REL_SPREAD: f64 = 0.25;
/// Half-width of the median's 95% CI, relative to the median, above which a
/// sample is noisy.
pub const NOISY_CI_FRACTION: f64 = 0.10;

/// Two-sided 95% standard normal quantile.
const Z95: f64 = 1.959_963_984_540_054;
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

/// A validated sample: at least one point, all finite. Keeps the values
/// sorted ascending internally as well as in the original order.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    values: Vec<f64>,
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
        let mut sorted = values.clone();
        // All values are finite, so total_cmp agrees with numeric order
        // (apart from -0.0 < 0.0, which is harmless).
        sorted.sort_unstable_by(f64::total_cmp);
        Ok(Sample { values, sorted })
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Always false: a `Sample` cannot be constructed empty.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The values in ascending order.
    pub fn sorted(&self) -> &[f64] {
        &self.sorted
    }

    /// The values in their original (measurement) order.
    pub fn values(&self) -> &[f64] {
        &self.values
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
        }
    }
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

/// Ratio of medians NEW/BASE with a conservative 95% interval.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Change {
    pub ratio: f64,
    pub lo: f64,
    pub hi: f64,
}

/// Ratio of medians NEW/BASE, for comparing two runs.
///
/// The interval combines the two order-statistic CIs in the most pessimistic
/// way (`new.lo / base.hi`, `new.hi / base.lo`): no distributional
/// assumptions, at the price of being wider than necessary. None when the
/// base median or its CI is not strictly positive, or a result is not finite.
pub fn change(base: &Summary, new: &Summary) -> Option<Change> {
    if !(base.median > 0.0 && base.ci95_lo > 0.0 && base.ci95_hi > 0.0) {
        return None;
    }
    let ratio = new.median / base.median;
    let lo = new.ci95_lo / base.ci95_hi;
    let hi = new.ci95_hi / base.ci95_lo;
    [ratio, lo, hi]
        .iter()
        .all(|v| v.is_finite())
        .then_some(Change { ratio, lo, hi })
}

/// Outcome of comparing a cost between two runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Improved,
    Regressed,
    Unchanged,
}

/// For a cost (lower is better): Regressed only when the whole interval lies
/// above `1 + threshold`, Improved only when it lies wholly below
/// `1 - threshold`; else Unchanged. A negative threshold is treated as 0.
pub fn verdict(c: &Change, threshold: f64) -> Verdict {
    // max() also maps a NaN threshold to 0 rather than silently never firing.
    let t = threshold.max(0.0);
    if c.lo > 1.0 + t {
        Verdict::Regressed
    } else if c.hi < 1.0 - t {
        Verdict::Improved
    } else {
        Verdict::Unchanged
    }
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
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
    }

    fn one_to_ten() -> Sample {
        Sample::new((1..=10).map(f64::from).collect()).unwrap()
    }

    /// Evenly spaced values in (0, 1): a fixed "population" for CI widths.
    fn uniform_grid(n: usize) -> Vec<f64> {
        (1..=n).map(|i| i as f64 / (n + 1) as f64).collect()
    }

    /// Exact `P(B <= i)` for `B ~ Binomial(n, 1/2)`, in log space so it works
    /// for any n (unlike the production code's direct sum).
    fn binom_half_cdf(n: usize, i: usize) -> f64 {
        let mut lp = -(n as f64) * std::f64::consts::LN_2;
        let mut total = lp.exp();
        for k in 0..i {
            lp += ((n - k) as f64).ln() - ((k + 1) as f64).ln();
            total += lp.exp();
        }
        total
    }

    fn coverage(n: usize, j: usize) -> f64 {
        // P(j <= B <= n - j) = 1 - 2·P(B <= j - 1) by symmetry.
        1.0 - 2.0 * binom_half_cdf(n, j - 1)
    }

    #[test]
    fn quantiles_of_one_to_ten() {
        let s = one_to_ten();
        // Type 7: h = 9q, interpolate between s[floor(h)] and s[floor(h)+1].
        assert_eq!(s.quantile(0.0), 1.0);
        assert_eq!(s.quantile(1.0), 10.0);
        assert!(close(s.quantile(0.10), 1.9, 1e-12));
        assert!(close(s.quantile(0.25), 3.25, 1e-12));
        assert!(close(s.quantile(0.50), 5.5, 1e-12));
        assert!(close(s.quantile(0.75), 7.75, 1e-12));
        assert!(close(s.quantile(0.90), 9.1, 1e-12));
        assert!(close(s.quantile(0.99), 9.91, 1e-12));
        // Clamped.
        assert_eq!(s.quantile(-3.0), 1.0);
        assert_eq!(s.quantile(7.0), 10.0);

        let sum = s.summary();
        assert!(close(sum.p10, 1.9, 1e-12));
        assert!(close(sum.p25, 3.25, 1e-12));
        assert!(close(sum.p75, 7.75, 1e-12));
        assert!(close(sum.p90, 9.1, 1e-12));
        assert!(close(sum.p99, 9.91, 1e-12));
        assert_eq!(sum.mean, 5.5);
        assert_eq!((sum.min, sum.max, sum.n), (1.0, 10.0, 10));
    }

    #[test]
    fn quantile_is_order_independent() {
        let s = Sample::new(vec![10.0, 1.0, 7.0, 3.0]).unwrap();
        assert_eq!(s.values(), &[10.0, 1.0, 7.0, 3.0]);
        assert_eq!(s.sorted(), &[1.0, 3.0, 7.0, 10.0]);
        assert_eq!(s.len(), 4);
        assert!(!s.is_empty());
        assert_eq!(s.quantile(0.5), 5.0);
    }

    #[test]
    fn median_odd_and_even() {
        assert_eq!(summarize(&[5.0, 1.0, 3.0]).unwrap().median, 3.0);
        assert_eq!(summarize(&[4.0, 1.0, 3.0, 2.0]).unwrap().median, 2.5);
        assert_eq!(summarize(&[42.0]).unwrap().median, 42.0);
    }

    #[test]
    fn stddev_of_known_set() {
        // Population sd is 2; sample variance is 32/7.
        let s = summarize(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!(s.mean, 5.0);
        assert!(close(s.stddev, (32.0f64 / 7.0).sqrt(), 1e-12));
        // Sample variance of 1..=10 is n(n+1)/12.
        assert!(close(
            one_to_ten().summary().stddev,
            (110.0f64 / 12.0).sqrt(),
            1e-12
        ));
        assert_eq!(summarize(&[3.0]).unwrap().stddev, 0.0);
    }

    #[test]
    fn extreme_values_stay_finite() {
        let s = summarize(&[-f64::MAX, f64::MAX, f64::MAX]).unwrap();
        assert!(s.mean.is_finite());
        assert!(s.median.is_finite());
        assert!(s.p25.is_finite() && s.p10.is_finite());
        let s = summarize(&[f64::MAX / 2.0, f64::MAX]).unwrap();
        assert!(s.stddev.is_finite() && s.stddev > 0.0);
    }

    #[test]
    fn outliers_detected_only_when_present() {
        let mut v: Vec<f64> = (0..50).map(|i| 100.0 + i as f64 * 0.1).collect();
        let uniform = summarize(&v).unwrap();
        assert_eq!((uniform.outliers_low, uniform.outliers_high), (0, 0));

        v.push(1e6);
        let spiky = summarize(&v).unwrap();
        assert_eq!((spiky.outliers_low, spiky.outliers_high), (0, 1));

        v.push(-1e6);
        let both = summarize(&v).unwrap();
        assert_eq!((both.outliers_low, both.outliers_high), (1, 1));
    }

    #[test]
    fn ci_contains_median_and_is_ordered() {
        for n in 1..=300 {
            let mut v = uniform_grid(n);
            v.reverse();
            let s = summarize(&v).unwrap();
            assert!(s.ci95_lo <= s.median && s.median <= s.ci95_hi, "n={n}");
            assert!(s.min <= s.ci95_lo && s.ci95_hi <= s.max, "n={n}");
            assert_eq!(s.ci_covers_95, n >= 6, "n={n}");
        }
    }

    #[test]
    fn ci_widens_as_n_shrinks() {
        let widths: Vec<f64> = [5000, 1000, 300, 100, 30, 10]
            .iter()
            .map(|&n| {
                let s = summarize(&uniform_grid(n)).unwrap();
                s.ci95_hi - s.ci95_lo
            })
            .collect();
        for w in widths.windows(2) {
            assert!(w[0] < w[1], "{widths:?}");
        }
    }

    #[test]
    fn small_n_ci_matches_binomial_tables() {
        // n = 5: no interval reaches 95%, fall back to [min, max].
        assert_eq!(median_ci_ranks(5), (1, 5, false));
        // n = 6: [min, max] covers 1 - 2/64 = 96.9%.
        assert_eq!(median_ci_ranks(6), (1, 6, true));
        // Standard table values.
        assert_eq!(median_ci_ranks(10), (2, 9, true));
        assert_eq!(median_ci_ranks(20), (6, 15, true));
        assert_eq!(median_ci_ranks(1), (1, 1, false));
    }

    #[test]
    fn exact_ranks_are_tightest_with_95_coverage() {
        for n in MIN_N_FOR_95..=EXACT_CI_MAX_N {
            let (j, k, covers) = median_ci_ranks(n);
            assert!(covers);
            assert_eq!(k, n + 1 - j);
            assert!(coverage(n, j) >= 0.95, "n={n} j={j}");
            assert!(coverage(n, j + 1) < 0.95, "n={n} j={j} not tightest");
        }
    }

    #[test]
    fn normal_ranks_keep_95_coverage() {
        for n in (EXACT_CI_MAX_N + 1)..=6000 {
            let (j, _, covers) = median_ci_ranks(n);
            assert!(covers);
            let c = coverage(n, j);
            // Outward rounding: covers 95%, and at most a rank or so wider
            // than the exact interval.
            assert!(c >= 0.95, "n={n} j={j} coverage={c}");
            assert!(coverage(n, j + 2) < 0.95, "n={n} j={j} too conservative");
        }
    }

    #[test]
    fn rejects_empty_and_non_finite() {
        assert_eq!(Sample::new(vec![]), Err(StatsError::Empty));
        assert_eq!(summarize(&[]), Err(StatsError::Empty));
        assert_eq!(
            Sample::new(vec![1.0, f64::NAN, 2.0]),
            Err(StatsError::NonFinite(1))
        );
        assert_eq!(
            summarize(&[1.0, 2.0, 3.0, f64::INFINITY]),
            Err(StatsError::NonFinite(3))
        );
        assert_eq!(
            Sample::new(vec![f64::NEG_INFINITY, f64::NAN]),
            Err(StatsError::NonFinite(0))
        );
        assert_eq!(
            StatsError::NonFinite(4).to_string(),
            "sample value at index 4 is not finite"
        );
        assert_eq!(StatsError::Empty.to_string(), "sample is empty");
    }

    #[test]
    fn noisy_flag() {
        let tight: Vec<f64> = (0..100).map(|i| 1000.0 + (i % 10) as f64).collect();
        let s = summarize(&tight).unwrap();
        assert!(!s.noisy, "{s:?}");
        assert!(s.rel_spread < 0.01);

        let wide: Vec<f64> = (0..100).map(|i| 100.0 + 10.0 * i as f64).collect();
        let s = summarize(&wide).unwrap();
        assert!(s.noisy, "{s:?}");
        assert!(s.rel_spread > NOISY_REL_SPREAD);

        // Small IQR but too few points for a tight CI: noisy via the CI.
        let s = summarize(&[100.0, 100.0, 100.0, 100.0, 100.0, 300.0]).unwrap();
        assert!(s.rel_spread <= NOISY_REL_SPREAD);
        assert!(s.noisy);

        let zero = summarize(&[0.0, 0.0, 0.0]).unwrap();
        assert_eq!(zero.rel_spread, 0.0);
        assert!(!zero.noisy);
    }

    #[test]
    fn linear_fit_recovers_exact_line() {
        let xs: Vec<f64> = (0..10).map(f64::from).collect();
        let ys: Vec<f64> = xs.iter().map(|x| 3.0 + 2.0 * x).collect();
        let f = linear_fit(&xs, &ys).unwrap();
        assert_eq!(f.slope, 2.0);
        assert_eq!(f.intercept, 3.0);
        assert_eq!(f.r2, 1.0);
        assert_eq!(f.n, 10);

        let flat = linear_fit(&[1.0, 2.0, 3.0], &[0.1, 0.1, 0.1]).unwrap();
        assert_eq!((flat.slope, flat.intercept, flat.r2), (0.0, 0.1, 1.0));
    }

    #[test]
    fn linear_fit_noisy_line() {
        let xs = [1.0, 2.0, 3.0, 4.0];
        let ys = [2.0, 4.5, 5.5, 8.0];
        let f = linear_fit(&xs, &ys).unwrap();
        // Hand-computed: Sxy = 9.5, Sxx = 5, so slope 1.9, intercept 0.25.
        assert!(close(f.slope, 1.9, 1e-12));
        assert!(close(f.intercept, 0.25, 1e-12));
        assert!(f.r2 > 0.9 && f.r2 < 1.0);
    }

    #[test]
    fn linear_fit_rejects_bad_input() {
        assert_eq!(linear_fit(&[2.0, 2.0, 2.0], &[1.0, 2.0, 3.0]), None);
        assert_eq!(linear_fit(&[1.0], &[1.0]), None);
        assert_eq!(linear_fit(&[1.0, 2.0], &[1.0]), None);
        assert_eq!(linear_fit(&[1.0, f64::NAN], &[1.0, 2.0]), None);
        assert_eq!(linear_fit(&[1.0, 2.0], &[1.0, f64::INFINITY]), None);
    }

    fn summary_with_ci(median: f64, lo: f64, hi: f64) -> Summary {
        let mut s = summarize(&[median]).unwrap();
        s.ci95_lo = lo;
        s.ci95_hi = hi;
        s
    }

    #[test]
    fn change_and_verdict() {
        let base = summary_with_ci(100.0, 98.0, 102.0);

        let slower = summary_with_ci(130.0, 127.0, 133.0);
        let c = change(&base, &slower).unwrap();
        assert!(close(c.ratio, 1.3, 1e-12));
        assert!(close(c.lo, 127.0 / 102.0, 1e-12));
        assert!(close(c.hi, 133.0 / 98.0, 1e-12));
        assert!(c.lo <= c.ratio && c.ratio <= c.hi);
        assert_eq!(verdict(&c, 0.05), Verdict::Regressed);

        let faster = summary_with_ci(70.0, 69.0, 71.0);
        let c = change(&base, &faster).unwrap();
        assert_eq!(verdict(&c, 0.05), Verdict::Improved);

        // Ratio 1.06 is past the 5% threshold, but the interval straddles it.
        let straddle = summary_with_ci(106.0, 104.0, 108.0);
        let c = change(&base, &straddle).unwrap();
        assert!(c.lo < 1.05 && c.hi > 1.05);
        assert_eq!(verdict(&c, 0.05), Verdict::Unchanged);

        let same = summary_with_ci(100.0, 98.0, 102.0);
        assert_eq!(
            verdict(&change(&base, &same).unwrap(), 0.0),
            Verdict::Unchanged
        );
    }

    #[test]
    fn change_guards_non_positive_base() {
        let new = summary_with_ci(1.0, 1.0, 1.0);
        assert_eq!(change(&summary_with_ci(0.0, 0.0, 0.0), &new), None);
        assert_eq!(change(&summary_with_ci(1.0, 0.0, 2.0), &new), None);
        assert_eq!(change(&summary_with_ci(-1.0, -2.0, -0.5), &new), None);
    }

    #[test]
    fn verdict_serializes_lowercase() {
        // Checked through serde's own value deserializer so the test needs no
        // format crate.
        use serde::de::value::{Error, StrDeserializer};
        use serde::de::IntoDeserializer;
        use serde::Deserialize;
        let d: StrDeserializer<Error> = "regressed".into_deserializer();
        assert_eq!(Verdict::deserialize(d).unwrap(), Verdict::Regressed);
    }

    #[test]
    fn amdahl_and_karp_flatt_are_inverse() {
        assert_eq!(amdahl_speedup(0.0, 8.0), 8.0);
        assert_eq!(amdahl_speedup(1.0, 8.0), 1.0);
        assert!(close(amdahl_speedup(0.5, 2.0), 4.0 / 3.0, 1e-12));
        for &s in &[0.0, 0.01, 0.1, 0.25, 0.5, 0.9, 1.0] {
            for &p in &[2.0, 3.0, 4.0, 8.0, 64.0, 1000.0] {
                let speedup = amdahl_speedup(s, p);
                let back = karp_flatt(speedup, p).unwrap();
                assert!(close(back, s, 1e-9), "s={s} p={p} back={back}");
            }
        }
        assert_eq!(karp_flatt(2.0, 1.0), None);
        assert_eq!(karp_flatt(0.0, 4.0), None);
        assert_eq!(karp_flatt(f64::NAN, 4.0), None);
        // Superlinear speedup gives a negative serial fraction, by design.
        assert!(karp_flatt(5.0, 4.0).unwrap() < 0.0);
    }

    mod props {
        use super::super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn summary_is_ordered(v in prop::collection::vec(-1e9f64..1e9, 1..300)) {
                let s = summarize(&v).unwrap();
                prop_assert!(s.min <= s.p10);
                prop_assert!(s.p10 <= s.p25);
                prop_assert!(s.p25 <= s.median);
                prop_assert!(s.median <= s.p75);
                prop_assert!(s.p75 <= s.p90);
                prop_assert!(s.p90 <= s.p99);
                prop_assert!(s.p99 <= s.max);
                prop_assert!(s.ci95_lo <= s.median && s.median <= s.ci95_hi);
                prop_assert!(s.min <= s.mean && s.mean <= s.max);
                prop_assert!(s.stddev >= 0.0 && s.rel_spread >= 0.0);
                prop_assert!(s.outliers_low + s.outliers_high < s.n);
            }

            #[test]
            fn summary_is_ordered_for_any_finite(
                v in prop::collection::vec(prop::num::f64::NORMAL | prop::num::f64::ZERO, 1..50)
            ) {
                let s = summarize(&v).unwrap();
                prop_assert!(s.min <= s.p10 && s.p10 <= s.p25 && s.p25 <= s.median);
                prop_assert!(s.median <= s.p75 && s.p75 <= s.p90 && s.p90 <= s.p99);
                prop_assert!(s.p99 <= s.max);
                prop_assert!(s.ci95_lo <= s.median && s.median <= s.ci95_hi);
                prop_assert!(s.mean.is_finite());
            }

            #[test]
            fn fit_recovers_lines(
                a in -1e3f64..1e3,
                b in -1e3f64..1e3,
                n in 2usize..50,
            ) {
                let xs: Vec<f64> = (0..n).map(|i| i as f64).collect();
                let ys: Vec<f64> = xs.iter().map(|x| a + b * x).collect();
                let f = linear_fit(&xs, &ys).unwrap();
                prop_assert!((f.slope - b).abs() <= 1e-9 * (1.0 + b.abs()));
                prop_assert!((f.intercept - a).abs() <= 1e-6 * (1.0 + a.abs() + b.abs()));
            }
        }
    }
}
