//! A change measured inside one run, side A against side B, from rounds
//! taken in pairs next to each other in time (`tasklab ab`'s blocks, in the
//! order A B B A): the host's slow minute falls on both rounds of a pair and
//! cancels in their ratio, which two separate runs can never do.
//!
//! Each pair gives one ratio of its round medians, B over A (for a figure
//! that can be negative, a difference over the scale of A's figures). The
//! change is the geometric mean of the pairs' ratios, and its 95% interval
//! is resampled over the pairs (a bootstrap of the mean log ratio), its two
//! half-widths widened by `t(n-1) / z · sqrt(n / (n-1))` as the rounds'
//! intervals are ([`super::rounds::small_rounds_factor`]): a bootstrap over
//! few pairs is too narrow on its own. The pairs are taken as independent
//! of each other; what they share (the whole run on one machine) is what the
//! design cancels. This is the randomised multiple interleaved trials of
//! Abedi and Brecht (ICPE 2017), with the order balanced (A B B A) so that a
//! linear drift over the run moves both sides alike.

use super::rounds::small_rounds_factor;
use super::Change;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// Bootstrap replicates of the mean over the pairs.
const REPLICATES: usize = 2000;

/// The fewest pairs from which an interval is formed.
pub const MIN_PAIRS: usize = 3;

/// The change from side A to side B of a series measured in pairs of rounds:
/// `a[i]` and `b[i]` are the medians of the two rounds of pair `i`. None
/// with fewer than [`MIN_PAIRS`] pairs, unequal lengths, a value that is not
/// finite, or (for a figure that can be negative) A's figures all zero.
pub fn paired_change(a: &[f64], b: &[f64], seed: u64) -> Option<Change> {
    if a.len() != b.len() || a.len() < MIN_PAIRS {
        return None;
    }
    if a.iter().chain(b).any(|v| !v.is_finite()) {
        return None;
    }
    let positive = a.iter().chain(b).all(|v| *v > 0.0);
    // Per pair: the log ratio, or the difference over A's scale.
    let scale = if positive {
        1.0
    } else {
        let s = a.iter().map(|v| v.abs()).sum::<f64>() / a.len() as f64;
        if s == 0.0 {
            return None;
        }
        s
    };
    let d: Vec<f64> = a
        .iter()
        .zip(b)
        .map(|(x, y)| {
            if positive {
                y.ln() - x.ln()
            } else {
                (y - x) / scale
            }
        })
        .collect();
    let (mean, lo, hi) = mean_interval(&d, seed);
    let c = if positive {
        Change {
            ratio: mean.exp(),
            lo: lo.exp(),
            hi: hi.exp(),
        }
    } else {
        Change {
            ratio: 1.0 + mean,
            lo: 1.0 + lo,
            hi: 1.0 + hi,
        }
    };
    [c.ratio, c.lo, c.hi]
        .iter()
        .all(|v| v.is_finite())
        .then_some(c)
}

/// The mean of the pairs' differences `b[i] - a[i]` in the figures' own
/// unit, with its 95% interval by the same bootstrap over the pairs as
/// [`paired_change`]: for a quantity that is often zero on one side (a
/// function's time), where no ratio can be formed. None as
/// [`paired_change`].
pub fn paired_difference(a: &[f64], b: &[f64], seed: u64) -> Option<super::contrast::Interval> {
    if a.len() != b.len() || a.len() < MIN_PAIRS || a.iter().chain(b).any(|v| !v.is_finite()) {
        return None;
    }
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| y - x).collect();
    let (value, lo, hi) = mean_interval(&d, seed);
    Some(super::contrast::Interval { value, lo, hi })
}

/// The mean of `d` and its 95% interval: the bootstrap percentiles of the
/// mean over resampled values, each half-width widened for few values.
fn mean_interval(d: &[f64], seed: u64) -> (f64, f64, f64) {
    let n = d.len();
    let mean = d.iter().sum::<f64>() / n as f64;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut reps: Vec<f64> = (0..REPLICATES)
        .map(|_| (0..n).map(|_| d[rng.random_range(0..n)]).sum::<f64>() / n as f64)
        .collect();
    reps.sort_unstable_by(f64::total_cmp);
    let q = |p: f64| reps[((REPLICATES - 1) as f64 * p).round() as usize];
    let k = small_rounds_factor(n);
    let lo = mean - k * (mean - q(0.025)).max(0.0);
    let hi = mean + k * (q(0.975) - mean).max(0.0);
    (mean, lo, hi)
}

/// Which side each block of an A/B run measures: A B B A, repeated, so that
/// round `r` of each side sits in blocks `2r` and `2r + 1`, next to each
/// other, and a drift that is linear over four blocks moves both sides alike.
pub fn block_side(block: usize) -> Side {
    match block % 4 {
        0 | 3 => Side::A,
        _ => Side::B,
    }
}

/// One side of an A/B comparison.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Side {
    A,
    B,
}

impl Side {
    pub fn name(self) -> &'static str {
        match self {
            Side::A => "A",
            Side::B => "B",
        }
    }
}

#[cfg(test)]
#[path = "paired_tests.rs"]
mod tests;
