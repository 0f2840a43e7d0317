//! A figure with its 95% interval, and the straight line between two.

use crate::stats::rounds::widen_ends;
use serde::{Deserialize, Serialize};

/// A figure and its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Range {
    pub median: f64,
    pub lo: f64,
    pub hi: f64,
}

impl Range {
    /// Every figure times `k`; a negative `k` swaps the ends, so `lo`
    /// stays the lower.
    pub(super) fn scaled(self, k: f64) -> Range {
        let (a, b) = (self.lo * k, self.hi * k);
        Range {
            median: self.median * k,
            lo: a.min(b),
            hi: a.max(b),
        }
    }

    /// The median's interval widened by the run-to-run noise `tau` (a
    /// standard deviation in logs) in quadrature, as compare adds the
    /// second run's (`SE² = se_A² + se_B² + 2τ²`): the slopes' series carry
    /// their own run's τ already, and the process's fork, timed later in
    /// another process, is another run. Always holds `self`; a `tau` of 0
    /// leaves it as it is.
    pub fn with_run_noise(self, tau: f64) -> Range {
        let positive = self.median > 0.0 && self.lo > 0.0;
        let (lo, hi) = widen_ends(self.median, self.lo, self.hi, tau, positive);
        Range { lo, hi, ..self }
    }

    pub(super) fn plus(self, o: Range) -> Range {
        Range {
            median: self.median + o.median,
            lo: self.lo + o.lo,
            hi: self.hi + o.hi,
        }
    }
}

/// Where single forks fall: 80% of them between `p10` and `p90`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub p10: f64,
    pub p90: f64,
}

/// The normal's 90th percentile: an 80% range's half-width in standard
/// deviations, as `stats::Z95` is a 95% interval's.
const Z90: f64 = 1.281_551_565_544_6;

impl Spread {
    /// The median fork's figures and one fork's spread, both for the
    /// process's fork being a run of its own: the median's interval widened
    /// by `tau` ([`Range::with_run_noise`]); the spread, p10 to p90 of a
    /// run's forks, by the same offset at an 80% range's quantile, and
    /// never narrower than the widened interval (it held the interval
    /// before). A `tau` of 0 leaves both as they are.
    pub fn with_run_noise((m, one): (Range, Option<Spread>), tau: f64) -> (Range, Option<Spread>) {
        if !(tau.is_finite() && tau > 0.0) {
            return (m, one);
        }
        let median = m.with_run_noise(tau);
        let one = one.map(|o| {
            let positive = m.median > 0.0 && o.p10 > 0.0;
            let k = tau * Z90 / crate::stats::Z95;
            let (p10, p90) = widen_ends(m.median, o.p10, o.p90, k, positive);
            Spread {
                p10: p10.min(median.lo),
                p90: p90.max(median.hi),
            }
        });
        (median, one)
    }
}

/// The straight line between the two points either side of `x` (which
/// lies within the points, sorted by x).
pub fn between(v: &[(f64, Range)], x: f64) -> Option<Range> {
    let i = v.iter().position(|(p, _)| *p >= x)?;
    if i == 0 {
        return Some(v[0].1);
    }
    let ((x0, a), (x1, b)) = (v[i - 1], v[i]);
    let t = (x - x0) / (x1 - x0);
    let mix = |p: f64, q: f64| p + (q - p) * t;
    Some(Range {
        median: mix(a.median, b.median),
        lo: mix(a.lo, b.lo),
        hi: mix(a.hi, b.hi),
    })
}

/// The run-to-run noise at `x` KiB of page tables from each heap's
/// (VmPTE KiB, τ), sorted: on the straight line between the two heaps
/// either side, the nearest heap's beyond them (never extrapolated); the
/// floor (`stats::noise::FLOOR`) when no heap records one.
pub fn tau_at(v: &[(f64, f64)], x: f64) -> f64 {
    let points: Vec<(f64, Range)> = v
        .iter()
        .map(|&(p, t)| {
            (
                p,
                Range {
                    median: t,
                    lo: t,
                    hi: t,
                },
            )
        })
        .collect();
    match (points.first(), points.last()) {
        (Some(first), _) if x <= first.0 => first.1.median,
        (_, Some(last)) if x >= last.0 => last.1.median,
        _ => between(&points, x).map_or(crate::stats::noise::FLOOR, |r| r.median),
    }
}
