//! A figure with its 95% interval, and the straight line between two.

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

    pub(super) fn plus(self, o: Range) -> Range {
        Range {
            median: self.median + o.median,
            lo: self.lo + o.lo,
            hi: self.hi + o.hi,
        }
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
