//! What changed between two runs: the ratio NEW/BASE of a median with a 95%
//! interval, a verdict that needs the whole interval beyond the threshold
//! (criterion's rule) in the direction the metric declares, or wholly
//! within it to say "unchanged", and the smallest change the comparison
//! could have seen ([`mde`]).

use super::{contrast, Summary};
use crate::units::Better;

/// NEW/BASE with a 95% interval. For figures that are not all positive
/// (a saving can be negative) the ratio is 1 + (NEW - BASE) / |BASE|.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Change {
    pub ratio: f64,
    pub lo: f64,
    pub hi: f64,
}

/// The change from `base` to `new`, its interval combining the two sides'
/// intervals as independent errors (in logs for positive figures, so a
/// doubling and a halving are alike): [`super::contrast`]'s ratio, the rule
/// every finding decides a difference by; for figures that are not all
/// positive, its difference over `|base|`. None when the base median is 0
/// or a result is not finite.
pub fn change(base: &Summary, new: &Summary) -> Option<Change> {
    if let Some(r) = contrast::ratio(new, base) {
        return Some(Change {
            ratio: r.value,
            lo: r.lo,
            hi: r.hi,
        });
    }
    let scale = base.median.abs();
    if scale == 0.0 {
        return None;
    }
    let d = contrast::difference(new, base);
    let c = Change {
        ratio: 1.0 + d.value / scale,
        lo: 1.0 + d.lo / scale,
        hi: 1.0 + d.hi / scale,
    };
    [c.ratio, c.lo, c.hi]
        .iter()
        .all(|v| v.is_finite())
        .then_some(c)
}

/// How far a machine's speed moved while a side was measured, as a noise
/// floor for its comparisons: from a yardstick taken many times over the run
/// (the canary at each round's start and end), half the distance in logs
/// between its 10th and 90th percentiles, as a fraction (0.06 = ±6%). A
/// change smaller than that is within what the machine itself did. None
/// with fewer than 10 readings.
pub fn drift(readings: &[f64]) -> Option<f64> {
    drift_range(readings).map(drift_of)
}

/// [`drift`] from the range [`drift_range`] gives: half the log-distance
/// between the 10th and the 90th percentile, as a fraction.
pub fn drift_of((p10, p90): (f64, f64)) -> f64 {
    (p90 / p10).sqrt() - 1.0
}

/// The 10th and 90th percentiles [`drift`] is taken from (nearest rank,
/// over the finite positive readings); None with fewer than 10.
pub fn drift_range(readings: &[f64]) -> Option<(f64, f64)> {
    let mut v: Vec<f64> = readings
        .iter()
        .copied()
        .filter(|x| x.is_finite() && *x > 0.0)
        .collect();
    if v.len() < 10 {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    Some((at(0.1), at(0.9)))
}

/// The minimum detectable change of a comparison, as a fraction (0.12 =
/// 12%): the smallest measured change that an interval as wide as this
/// one, around it, would put wholly beyond the threshold `threshold`, so
/// that it is called. It is the larger of the two directions' (an interval
/// is wider on one side in logs when the sides' spreads differ). A true
/// change of that size is measured above or below it about as often, so it
/// is called about half the time, a larger one more often; a smaller one
/// may have happened unseen.
pub fn mde(c: &Change, threshold: f64) -> f64 {
    let t = threshold.max(0.0);
    if c.lo > 0.0 && c.ratio > 0.0 {
        // by factors: the interval of r·k is [lo·k, hi·k]
        let up = (1.0 + t) * c.ratio / c.lo - 1.0;
        let down = 1.0 - (1.0 - t) * c.ratio / c.hi;
        up.max(down)
    } else {
        // additive (a figure that can be negative): the interval moves as is
        let up = t + (c.ratio - c.lo);
        let down = t + (c.hi - c.ratio);
        up.max(down)
    }
}

/// Outcome of comparing a figure between two runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Better, and the whole interval beyond the threshold.
    Improved,
    /// Worse, and the whole interval beyond the threshold.
    Regressed,
    /// Beyond the threshold, for a figure that is neither better higher nor
    /// lower (a count of what happened).
    Changed,
    /// The whole interval lies within the threshold (and, in `compare`, a
    /// figure zero on both sides).
    Unchanged,
    /// Neither: the interval reaches both inside and beyond the threshold
    /// (too wide to tell, or a change about the threshold's size); or, in
    /// `compare`, no ratio can be formed or the figure is flagged
    /// (`compare::Reason` says which).
    Inconclusive,
}

/// The verdict on `c` with a threshold (0.05 = 5%) for a figure that
/// is better `better`. A negative or NaN threshold is taken as 0.
pub fn verdict(c: &Change, threshold: f64, better: Better) -> Verdict {
    // max() also maps a NaN threshold to 0 rather than silently never firing.
    let t = threshold.max(0.0);
    let up = c.lo > 1.0 + t;
    let down = c.hi < 1.0 - t;
    if up || down {
        return match (better, up) {
            (Better::Lower, true) | (Better::Higher, false) => Verdict::Regressed,
            (Better::Lower, false) | (Better::Higher, true) => Verdict::Improved,
            (Better::Neither | Better::Unknown, _) => Verdict::Changed,
        };
    }
    // An interval that holds "no change" but reaches past the threshold has
    // not shown that nothing changed: a 10% slowdown measured as [-3%, +23%]
    // is not "unchanged".
    let within = c.lo >= 1.0 - t && c.hi <= 1.0 + t;
    if within {
        Verdict::Unchanged
    } else {
        Verdict::Inconclusive
    }
}
