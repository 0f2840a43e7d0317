//! The common-mode check: when most unrelated series move together with the
//! canary, the whole machine moved (a slower host state, a kernel that
//! slows every entry), and the header says so in one line. The verdicts
//! stay as measured; `--relative` divides the common factor out.

use super::pool::Series;
use crate::results::Better;
use serde::Serialize;
use std::collections::BTreeMap;

/// The fewest shared series that are better one way a common factor is
/// estimated from.
pub const MIN_SERIES: usize = 10;

/// How the whole new side moved against the base, as a cost.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct CommonMode {
    /// NEW/BASE of a cost (a rate's ratio inverted): 1.12 = 12% slower.
    pub factor: f64,
    /// The series it was estimated from (better lower or higher, a ratio on
    /// both sides), and how many of them moved with it: their interval holds
    /// the factor and not "no change".
    pub series: usize,
    pub with_it: usize,
    /// The canary's NEW/BASE (a bare system call), where both sides have one.
    pub canary: Option<f64>,
}

impl CommonMode {
    /// Whether to say it: the machine moved by at least `threshold` and
    /// most series moved with it.
    pub fn worth_saying(&self, threshold: f64) -> bool {
        (self.factor.ln().abs() >= (1.0 + threshold).ln()) && 2 * self.with_it > self.series
    }

    /// The header's line; `relative`: the verdicts below have the factor
    /// divided out.
    pub fn line(&self, relative: bool) -> String {
        let pct = (self.factor - 1.0).abs() * 100.0;
        let way = if self.factor >= 1.0 {
            "slower"
        } else {
            "faster"
        };
        let canary = self.canary.map_or(String::new(), |c| {
            format!("; the canary moved {:+.0}%", (c - 1.0) * 100.0)
        });
        format!(
            "common mode: the whole new side is {pct:.0}% {way}: {} of {} series ({:.0}%) moved with it{canary}. {}",
            self.with_it,
            self.series,
            100.0 * self.with_it as f64 / self.series as f64,
            if relative {
                "The verdicts below have this factor divided out (--relative)"
            } else {
                "The verdicts below are as measured; --relative gives them with this factor divided out"
            }
        )
    }
}

/// A directional series' cost ratio and interval: times as they are, rates
/// inverted.
fn cost(b: &Series, n: &Series) -> Option<(f64, f64, f64)> {
    let better = match n.better {
        Better::Unknown => b.better,
        x => x,
    };
    let c = crate::stats::change(&b.summary, &n.summary)?;
    if c.lo <= 0.0 {
        return None;
    }
    match better {
        Better::Lower => Some((c.ratio, c.lo, c.hi)),
        Better::Higher => Some((1.0 / c.ratio, 1.0 / c.hi, 1.0 / c.lo)),
        Better::Neither | Better::Unknown => None,
    }
}

/// The common factor of `pairs` (base, new) of shared series: the median,
/// over experiments, of each experiment's median log cost ratio, so one
/// experiment with many series does not make the machine's move. None with
/// fewer than [`MIN_SERIES`] directional series.
pub fn estimate(pairs: &[(&Series, &Series)], canary: Option<f64>) -> Option<CommonMode> {
    let mut per: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    let mut all = Vec::new();
    for (b, n) in pairs {
        if let Some((r, lo, hi)) = cost(b, n) {
            per.entry(n.experiment.as_str()).or_default().push(r.ln());
            all.push((lo, hi));
        }
    }
    if all.len() < MIN_SERIES {
        return None;
    }
    let medians: Vec<f64> = per
        .values()
        .filter_map(|v| crate::stats::median(v))
        .collect();
    let factor = crate::stats::median(&medians)?.exp();
    let with_it = all
        .iter()
        .filter(|(lo, hi)| *lo <= factor && factor <= *hi && !(*lo <= 1.0 && 1.0 <= *hi))
        .count();
    Some(CommonMode {
        factor,
        series: all.len(),
        with_it,
        canary,
    })
}

/// How many directional series two sides share: what `--relative` needs.
pub fn directional(pairs: &[(&Series, &Series)]) -> usize {
    pairs.iter().filter(|(b, n)| cost(b, n).is_some()).count()
}
