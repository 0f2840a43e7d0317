//! A share of samples pooled over rounds: what `run --why` says of a kernel
//! function, of user space, of the kernel.
//!
//! The share is the ratio estimator of cluster sampling: every round's
//! counts summed over every round's samples, so a round with more samples
//! weighs more, the shares of disjoint parts add up to the share of their
//! whole, and a share stays unbiased when a round holds only a few samples
//! (the median of per-round shares, used before, reads a function with
//! 15% of the samples as 0 when rounds hold 4 samples each, and the
//! medians of parts can add up past 100%).
//!
//! Its 95% interval is the wider of two, each valid under its own model:
//! the Wilson score interval of the pooled counts (what the samples alone
//! allow, as if every sample were independent; never empty at 0 or 1),
//! and Student's t over the rounds around the ratio estimator
//! (`se² = Σ (nᵢ − R·Tᵢ)² / (k (k − 1) T̄²)`, k − 1 degrees of freedom:
//! what the rounds' own spread gives, the rounds the unit as for every
//! figure), taken on the log-odds scale (the delta method) and turned
//! back into shares. Where the rounds agree no more than their samples
//! would, the first is the wider; where they disagree (the share moves
//! from one round to the next), the second. Both are intervals of a
//! share and stay inside 0 to 1 by their form, never by a clamp: on the
//! plain scale the second passed 0 or 1 for most shares of a default
//! run's few rounds at 99 Hz (issue 39's words for such a bound,
//! `units::fmt_share_interval`, stay for older files).

/// A share pooled over rounds and its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PooledShare {
    /// Σ counts / Σ samples over the rounds that hold a sample.
    pub share: f64,
    pub lo: f64,
    pub hi: f64,
    /// Rounds that held a sample.
    pub rounds: usize,
    /// Samples pooled.
    pub samples: u64,
}

/// The share of `(count, samples)` pooled over rounds, rounds with no
/// sample left out; `None` when no round holds a sample. A count above
/// its round's samples is not a share: `None` too.
pub fn pooled_share(per_round: &[(u64, u64)]) -> Option<PooledShare> {
    let rounds: Vec<(f64, f64)> = per_round
        .iter()
        .filter(|(_, t)| *t > 0)
        .map(|&(n, t)| (n as f64, t as f64))
        .collect();
    if rounds.is_empty() || per_round.iter().any(|(n, t)| n > t) {
        return None;
    }
    let count: f64 = rounds.iter().map(|r| r.0).sum();
    let samples: f64 = rounds.iter().map(|r| r.1).sum();
    let share = count / samples;
    let (mut lo, mut hi) = wilson(share, samples);
    let k = rounds.len();
    // At 0 or 1 every round agrees exactly (each count is 0, or all of its
    // samples): the rounds add nothing to the samples' own error.
    if k >= 2 && share > 0.0 && share < 1.0 {
        let mean_t = samples / k as f64;
        let ss: f64 = rounds.iter().map(|(n, t)| (n - share * t).powi(2)).sum();
        let se = (ss / (k as f64 * (k as f64 - 1.0))).sqrt() / mean_t;
        // On the log-odds scale (the delta method: se / (p (1 − p))), back
        // to a share: an interval of a share that stays one.
        let half = super::fdr::t975((k - 1) as f64) * se / (share * (1.0 - share));
        let centre = (share / (1.0 - share)).ln();
        let expit = |x: f64| 1.0 / (1.0 + (-x).exp());
        lo = lo.min(expit(centre - half));
        hi = hi.max(expit(centre + half));
    }
    Some(PooledShare {
        share,
        lo,
        hi,
        rounds: k,
        samples: samples as u64,
    })
}

/// The 95% Wilson score interval of a proportion `p` out of `n` trials.
fn wilson(p: f64, n: f64) -> (f64, f64) {
    use super::Z95;
    let z2 = Z95 * Z95;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z95 / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    // At 0 and 1 the interval's near end is that end exactly; computed, it
    // could miss it by a rounding error and read as a bound past it.
    let lo = if p == 0.0 { 0.0 } else { centre - half };
    let hi = if p == 1.0 { 1.0 } else { centre + half };
    (lo, hi)
}

#[cfg(test)]
#[path = "share_tests.rs"]
mod tests;
