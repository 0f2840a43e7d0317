use super::*;
use crate::stats::Change;

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
    assert_eq!(s.sorted(), &[1.0, 3.0, 7.0, 10.0]);
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
    use crate::units::Better;
    let base = summary_with_ci(100.0, 98.0, 102.0);

    let slower = summary_with_ci(130.0, 127.0, 133.0);
    let c = change(&base, &slower).unwrap();
    assert!(close(c.ratio, 1.3, 1e-12));
    // the two sides' errors combine in logs, as independent errors
    let lo = (1.3f64.ln() - (130f64.ln() - 127f64.ln()).hypot(102f64.ln() - 100f64.ln())).exp();
    assert!(close(c.lo, lo, 1e-12));
    assert!(c.lo <= c.ratio && c.ratio <= c.hi);
    assert_eq!(verdict(&c, 0.05, Better::Lower), Verdict::Regressed);
    // the direction comes from the metric, never from the unit
    assert_eq!(verdict(&c, 0.05, Better::Higher), Verdict::Improved);
    assert_eq!(verdict(&c, 0.05, Better::Neither), Verdict::Changed);

    let faster = summary_with_ci(70.0, 69.0, 71.0);
    let c = change(&base, &faster).unwrap();
    assert_eq!(verdict(&c, 0.05, Better::Lower), Verdict::Improved);
    assert_eq!(verdict(&c, 0.05, Better::Higher), Verdict::Regressed);

    // Ratio 1.06 is past the 5% threshold, but the interval straddles it:
    // a change, not one clear of the noise.
    let straddle = summary_with_ci(106.0, 104.0, 108.0);
    let c = change(&base, &straddle).unwrap();
    assert!(c.lo < 1.05 && c.hi > 1.05 && c.lo > 1.0);
    assert_eq!(verdict(&c, 0.05, Better::Lower), Verdict::Inconclusive);

    // unchanged only when the whole interval lies within the threshold
    let same = summary_with_ci(100.0, 98.0, 102.0);
    let c = change(&base, &same).unwrap();
    assert_eq!(verdict(&c, 0.05, Better::Lower), Verdict::Unchanged);
    // no threshold: no interval of a measured figure lies within it
    assert_eq!(verdict(&c, 0.0, Better::Lower), Verdict::Inconclusive);
    // a 10% slowdown measured too loosely holds "no change" but reaches past
    // the threshold: not "unchanged", it could not be seen
    let loose = summary_with_ci(110.0, 92.0, 123.0);
    let c = change(&base, &loose).unwrap();
    assert!(c.lo < 1.0 && c.hi > 1.05);
    assert_eq!(verdict(&c, 0.05, Better::Lower), Verdict::Inconclusive);
}

#[test]
fn the_minimum_detectable_change_is_what_an_interval_this_wide_could_call() {
    use crate::stats::mde;
    use crate::units::Better;
    let c = Change {
        ratio: 1.0,
        lo: 0.9,
        hi: 1.1,
    };
    // moved up by k, the interval [0.9k, 1.1k] clears 1.05 at k = 1.05/0.9
    let m = mde(&c, 0.05);
    assert!(close(m, 1.05 / 0.9 - 1.0, 1e-12), "{m}");
    // and a change that large, measured as widely, is called
    let k = 1.0 + m + 1e-9;
    let moved = Change {
        ratio: k,
        lo: 0.9 * k,
        hi: 1.1 * k,
    };
    assert_eq!(verdict(&moved, 0.05, Better::Lower), Verdict::Regressed);
    // a narrower interval sees smaller changes
    let narrow = Change {
        ratio: 1.0,
        lo: 0.98,
        hi: 1.02,
    };
    assert!(mde(&narrow, 0.05) < m);
    // never below the threshold itself
    assert!(mde(&narrow, 0.05) > 0.05);
    // additive figures (a saving that may be negative)
    let signed = Change {
        ratio: 1.0,
        lo: -0.2,
        hi: 2.2,
    };
    assert!(close(mde(&signed, 0.05), 1.25, 1e-12));
}

#[test]
fn a_change_of_figures_that_can_be_negative_is_a_difference() {
    use crate::units::Better;
    // a saving that fell from 40 ms to -10 ms is a regression
    let base = summary_with_ci(40.0, 35.0, 45.0);
    let new = summary_with_ci(-10.0, -15.0, -5.0);
    let c = change(&base, &new).unwrap();
    assert!(close(c.ratio, 1.0 - 50.0 / 40.0, 1e-12));
    assert_eq!(verdict(&c, 0.05, Better::Higher), Verdict::Regressed);
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

#[test]
fn the_one_median() {
    assert_eq!(median(&[5.0, 1.0, 3.0]), Some(3.0));
    assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
    assert_eq!(median(&[]), None);
    assert_eq!(median(&[1.0, f64::NAN]), None);
}
