//! The interval of a ratio `a/b` and of a difference `a − b`, from the two
//! figures' own 95% intervals: the one rule every finding, the Summary, the
//! seed table and `compare` decide a difference by.
//!
//! A difference is stated only when the interval of the ratio excludes 1
//! (figures that are both positive) or the interval of the difference
//! excludes 0 (any other). Asking instead whether the two figures'
//! intervals overlap is a much stricter test (near p = 0.006 for equal
//! widths), so findings built on it flipped between runs whenever two
//! figures sat a little more than one half-width apart.
//!
//! How the interval is built: each side's interval is taken as the 95%
//! interval of an independent error, the half-width below the median and
//! the half-width above it separately (a median's interval is seldom
//! symmetric), and the two are added in quadrature: the ratio's lower end
//! takes `a`'s half-width below and `b`'s above, its upper end the reverse.
//! A ratio is combined in logs (a doubling and a halving are alike, and the
//! interval of a ratio of positive figures never reaches zero); a
//! difference in the figures' own unit. Figures read in steps
//! (`Summary::quantum`) have a bounded, not a random, error: their ends are
//! taken end to end instead (lowest against highest).
//!
//! The assumption: the two figures come from independent rounds. Two series
//! measured in the same workers, interleaved (a method and its baseline, the
//! same-CPU and the cross-CPU hand-off), share each round's state of the
//! host, so their errors are positively correlated and the ratio is known
//! better than this says: a paired interval (the bootstrap of each round's
//! own ratio) would be narrower. The rule here is conservative for such
//! pairs, never optimistic; for figures from different runs (`compare`) it
//! is the right one.

use super::Summary;

/// Where one figure lies against another (or a difference against zero),
/// decided on the interval of their ratio or difference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Below, the whole interval of the ratio below 1 (of the difference
    /// below 0).
    Below,
    /// Above, the whole interval above 1 (above 0).
    Above,
    /// The interval holds "no difference": no order can be claimed.
    Overlap,
}

/// A value with its 95% interval: a ratio or a difference.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    pub value: f64,
    pub lo: f64,
    pub hi: f64,
}

impl Interval {
    /// Where the interval lies against `x`: `Overlap` when it holds `x`.
    pub fn against(&self, x: f64) -> Order {
        if self.hi < x {
            Order::Below
        } else if self.lo > x {
            Order::Above
        } else {
            Order::Overlap
        }
    }

    /// Half the interval's width over its value, in logs for a ratio: the
    /// "±X%" the ratio is known to (the larger side).
    pub fn ratio_half_width(&self) -> f64 {
        if self.lo > 0.0 && self.value > 0.0 {
            let below = 1.0 - self.lo / self.value;
            let above = self.hi / self.value - 1.0;
            below.max(above)
        } else {
            f64::INFINITY
        }
    }
}

/// Whether a figure and its interval are all above zero: only then has a
/// ratio to it an interval.
pub fn positive(s: &Summary) -> bool {
    s.median > 0.0 && s.ci95_lo > 0.0 && s.ci95_hi > 0.0
}

fn stepped(a: &Summary, b: &Summary) -> bool {
    a.quantum > 0.0 || b.quantum > 0.0
}

fn below(s: &Summary) -> f64 {
    (s.median - s.ci95_lo).max(0.0)
}

fn above(s: &Summary) -> f64 {
    (s.ci95_hi - s.median).max(0.0)
}

/// `a/b` with its 95% interval, the two sides' half-widths combined in
/// quadrature in logs (end to end for stepped figures). None unless both
/// figures and their intervals are positive, or when a result is not
/// finite.
pub fn ratio(a: &Summary, b: &Summary) -> Option<Interval> {
    if !(positive(a) && positive(b)) {
        return None;
    }
    let r = if stepped(a, b) {
        Interval {
            value: a.median / b.median,
            lo: a.ci95_lo / b.ci95_hi,
            hi: a.ci95_hi / b.ci95_lo,
        }
    } else {
        // A figure with its interval is a ratio to 1 with its interval:
        // the same combination as two ratios'.
        let of = |s: &Summary| Interval {
            value: s.median,
            lo: s.ci95_lo,
            hi: s.ci95_hi,
        };
        quotient(&of(a), &of(b))?
    };
    [r.value, r.lo, r.hi]
        .iter()
        .all(|v| v.is_finite())
        .then_some(r)
}

/// The quotient `a/b` of two values with their 95% intervals (two ratios:
/// how much more one figure grew than another; or, for [`ratio`], two
/// figures): in logs, the half-widths in quadrature, `a`'s below with `b`'s
/// above for the lower end. None unless every end is positive and finite.
pub fn quotient(a: &Interval, b: &Interval) -> Option<Interval> {
    if ![a.value, a.lo, a.hi, b.value, b.lo, b.hi]
        .iter()
        .all(|v| v.is_finite() && *v > 0.0)
    {
        return None;
    }
    let log = a.value.ln() - b.value.ln();
    let (a_down, a_up) = (a.value.ln() - a.lo.ln(), a.hi.ln() - a.value.ln());
    let (b_down, b_up) = (b.value.ln() - b.lo.ln(), b.hi.ln() - b.value.ln());
    Some(Interval {
        value: a.value / b.value,
        lo: (log - a_down.hypot(b_up)).exp(),
        hi: (log + a_up.hypot(b_down)).exp(),
    })
}

/// `a − b` with its 95% interval, the half-widths combined in quadrature
/// (end to end for stepped figures). Never clamped.
pub fn difference(a: &Summary, b: &Summary) -> Interval {
    let d = a.median - b.median;
    if stepped(a, b) {
        return Interval {
            value: d,
            lo: a.ci95_lo - b.ci95_hi,
            hi: a.ci95_hi - b.ci95_lo,
        };
    }
    Interval {
        value: d,
        lo: d - below(a).hypot(above(b)),
        hi: d + above(a).hypot(below(b)),
    }
}

/// Where `a` lies against `b`: on the interval of `a/b` against 1 when both
/// are positive, else on the interval of `a − b` against 0. Equal medians
/// are never apart.
pub fn order(a: &Summary, b: &Summary) -> Order {
    match ratio(a, b) {
        Some(r) => r.against(1.0),
        None => difference(a, b).against(0.0),
    }
}

#[cfg(test)]
#[path = "contrast_tests.rs"]
mod tests;
