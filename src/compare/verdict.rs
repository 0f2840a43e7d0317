//! One row of a comparison: the change NEW/BASE of a series with its 95%
//! interval, the verdict under the user's threshold (never raised), the
//! one-sided p-value of a change beyond the threshold (what the false
//! discovery rate across families is controlled on: `stats::fdr`), the
//! smallest change the row calls (`mde`, half the time; `mde80`, 80% of
//! the time), and, when it is inconclusive, why and what to do next.

pub use super::next::Reason;
use super::next::{self, Narrow, Setting};
use super::pool::Series;
use crate::results::{case_of, Better, Labels, Unit};
use crate::stats::noise::Basis;
use crate::stats::twoside::{self, Diff};
use crate::stats::{self, fdr, Change, Verdict};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub experiment: String,
    pub metric: String,
    pub labels: Labels,
    /// The labels people read, as the tables show them.
    pub case: String,
    pub unit: Unit,
    pub better: Better,
    /// The medians.
    pub base: f64,
    pub new: f64,
    /// The change NEW/BASE - 1 in percent, and its 95% interval.
    pub change: f64,
    pub ci_lo: f64,
    pub ci_hi: f64,
    /// The smallest change this comparison calls, in percent: a measured
    /// change of that size puts the interval just beyond the threshold, so
    /// a true change of that size is called about half the time
    /// (`stats::mde`); null when no ratio can be formed.
    pub mde: f64,
    /// The true change, in percent, this comparison calls 80% of the time:
    /// about the threshold plus 1.43 half-widths.
    pub mde80: f64,
    /// The one-sided p-value of a change beyond the threshold in the
    /// direction measured (1 when the change is within it); null when no
    /// ratio can be formed.
    pub p: f64,
    /// The change over its standard error, in logs (the model of runs:
    /// `stats::twoside`): what an A/A pair of runs is judged by for
    /// calibration (|z| above 1.96 in about 5% of pairs when the
    /// intervals are right); null for a figure not positive throughout.
    pub z: f64,
    /// The series' family: its experiment at one point.
    pub family: String,
    /// The point, when the files record it.
    #[serde(skip)]
    pub point: Option<usize>,
    /// The run-to-run standard deviation the row's interval holds, in
    /// percent, and what it rests on.
    pub run_noise_pct: f64,
    pub noise_basis: Basis,
    pub verdict: Verdict,
    /// For a regressed row: whether the same series moved the same way
    /// across the experiment's points (`gate::consistency`); null for other
    /// rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consistent: Option<bool>,
    /// Why the verdict is inconclusive (every inconclusive row has one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<Reason>,
    /// The same, said in full.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// What would decide it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
    /// How far rounds could narrow it, and to what half-width (percent):
    /// what the counts' next step per reason is made of.
    #[serde(skip)]
    pub narrow: (Narrow, f64),
}

/// A change measured, with what the false discovery rate and the power
/// figures need.
#[derive(Clone, Debug)]
pub struct Measured {
    pub change: Change,
    /// The change over its standard error in logs (NaN when the change is
    /// not from the model of runs).
    pub z: f64,
    /// One-sided p of a change beyond the threshold (`Diff::p_beyond`).
    pub p: f64,
    /// The change called 80% of the time, as a fraction.
    pub mde80: f64,
}

impl Measured {
    /// From the model of runs (`stats::twoside`).
    pub fn of_diff(d: &Diff, threshold: f64) -> Measured {
        let (ratio, lo, hi) = d.ratio_interval();
        Measured {
            z: d.delta / d.se,
            change: Change { ratio, lo, hi },
            p: d.p_beyond(threshold),
            mde80: d.mde80(threshold),
        }
    }

    /// From a 95% interval alone (pairs of rounds in `ab`, a figure that is
    /// not positive throughout): its half-width read as 1.96 standard
    /// errors of a normal.
    pub fn of_interval(c: Change, threshold: f64) -> Measured {
        let t = threshold.max(0.0);
        let (delta, bound, se, half) = if c.lo > 0.0 && c.ratio > 0.0 {
            let half = (c.hi / c.lo).ln() / 2.0;
            let bound = if c.ratio >= 1.0 {
                (1.0 + t).ln()
            } else {
                -(1.0 - t).max(f64::MIN_POSITIVE).ln()
            };
            (c.ratio.ln(), bound, half / stats::Z95, half)
        } else {
            let half = (c.hi - c.lo) / 2.0;
            (c.ratio - 1.0, t, half / stats::Z95, half)
        };
        let k = 1.0 + 0.8416 / stats::Z95;
        let mde80 = if c.lo > 0.0 && c.ratio > 0.0 {
            ((1.0 + t).ln() + k * half).exp() - 1.0
        } else {
            t + k * half
        };
        Measured {
            z: f64::NAN,
            p: fdr::beyond(delta, bound, se, f64::INFINITY),
            mde80,
            change: c,
        }
    }
}

/// The change from `b` to `n` with the verdict at `threshold` (0.05 = 5%);
/// `noise`: the family's run-to-run standard deviation in logs and what it
/// rests on; `same_thp`: both sides ran with one THP setting, so huge pages
/// found for one side's memory and not the other's make the row
/// inconclusive. `factor` divides a common move of the whole machine out
/// of a directional series' cost (`--relative`); 1 leaves the figures as
/// measured.
pub fn row(
    (b, n): (&Series, &Series),
    threshold: f64,
    setting: &Setting,
    factor: f64,
    same_thp: bool,
    noise: (f64, Basis),
) -> Row {
    let better = match n.better {
        Better::Unknown => b.better,
        x => x,
    };
    let (tau, basis) = noise;
    let measured = match twoside::diff(&b.runs, &n.runs, tau) {
        Some(d) => {
            let d = d.scaled(relative_k(better, factor));
            let step = |s: &Series| {
                let (q, m) = (s.summary.quantum, s.summary.median);
                if q > 0.0 && m > 0.0 {
                    (1.0 + q / 2.0 / m).ln()
                } else {
                    0.0
                }
            };
            let steps = step(b) + step(n);
            if steps > 0.0 {
                // Figures read in steps (a clock that ticks in 10 ns) have
                // a bounded error of half a step each: the ends are taken
                // end to end, outside the random part (`stats::contrast`).
                let (ratio, lo, hi) = d.ratio_interval();
                let w = steps.exp();
                Some(Measured::of_interval(
                    Change {
                        ratio,
                        lo: lo / w,
                        hi: hi * w,
                    },
                    threshold,
                ))
            } else {
                Some(Measured::of_diff(&d, threshold))
            }
        }
        None => {
            // Not positive throughout: the sides' intervals, each widened
            // by the run-to-run noise over the square root of its runs.
            let widen = |s: &Series| {
                let mut x = s.summary.clone();
                let runs = s.runs.len().max(1) as f64;
                stats::rounds::widen_by_run_noise(&mut x, tau / runs.sqrt());
                x
            };
            stats::change(&widen(b), &widen(n))
                .map(|c| relative(c, better, factor))
                .map(|c| Measured::of_interval(c, threshold))
        }
    };
    let mut r = judged_measured((b, n), measured, threshold, setting, same_thp, tau);
    r.run_noise_pct = tau * 100.0;
    r.noise_basis = basis;
    r
}

/// The row of `b` against `n` for a change already measured (`None`: no
/// ratio could be formed): by pairs of rounds in `ab`.
pub fn judged(
    pair: (&Series, &Series),
    change: Option<Change>,
    threshold: f64,
    setting: &Setting,
    same_thp: bool,
) -> Row {
    let m = change.map(|c| Measured::of_interval(c, threshold));
    let mut r = judged_measured(pair, m, threshold, setting, same_thp, 0.0);
    r.run_noise_pct = 0.0;
    r.noise_basis = Basis::Paired;
    r
}

/// [`judged`] for a change measured with its p-value; `tau`, the
/// run-to-run noise its interval holds (what more rounds cannot narrow).
pub fn judged_measured(
    (b, n): (&Series, &Series),
    measured: Option<Measured>,
    threshold: f64,
    setting: &Setting,
    same_thp: bool,
    tau: f64,
) -> Row {
    let better = match n.better {
        Better::Unknown => b.better,
        x => x,
    };
    let change = measured.as_ref().map(|m| m.change.clone());
    let (p, mde80, z) = measured
        .as_ref()
        .map_or((f64::NAN, f64::NAN, f64::NAN), |m| (m.p, m.mde80, m.z));
    let (mut verdict, mde) = match &change {
        Some(c) => (
            stats::verdict(c, threshold, better),
            stats::mde(c, threshold),
        ),
        // Zero on both sides, every interval too (no involuntary switch
        // in any round of either run): nothing changed, though no ratio
        // can be formed. A zero median with an interval above it has not
        // shown that.
        None if [&b.summary, &n.summary]
            .iter()
            .all(|s| s.median == 0.0 && s.ci95_lo == 0.0 && s.ci95_hi == 0.0) =>
        {
            (Verdict::Unchanged, f64::NAN)
        }
        None => (Verdict::Inconclusive, f64::NAN),
    };
    let pct = |x: f64| (x - 1.0) * 100.0;
    let (ratio, lo, hi) = change
        .as_ref()
        .map_or((f64::NAN, f64::NAN, f64::NAN), |c| (c.ratio, c.lo, c.hi));
    let ratio = if change.is_none() && verdict == Verdict::Unchanged {
        1.0
    } else {
        ratio
    };
    let flagged: Vec<&str> = [&b.flagged, &n.flagged]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .collect();
    let (reason, why) = if !flagged.is_empty() {
        (
            Some(Reason::Flagged),
            Some(format!(
                "flagged, so no verdict rests on it: {}",
                flagged.join("; ")
            )),
        )
    } else if let Some(why) = same_thp.then(|| super::huge_pages_differ(b, n)).flatten() {
        (Some(Reason::HugePages), Some(why))
    } else if verdict != Verdict::Inconclusive {
        (None, None)
    } else if change.is_none() {
        (
            Some(Reason::NoRatio),
            Some(if b.summary.median == 0.0 && n.summary.median == 0.0 {
                "no ratio can be formed: both medians are zero, but an interval reaches above zero, so it has not shown that nothing changed".into()
            } else {
                "no ratio can be formed: the base median is zero and the new one is not, or an interval is not finite".into()
            }),
        )
    } else if too_wide(lo, hi, threshold) {
        (
            Some(Reason::TooWide),
            Some(format!(
                "its interval [{}, {}] is wider than ±{:.0}%: it could see only a change of {:.0}% or more",
                signed(pct(lo)),
                signed(pct(hi)),
                threshold * 100.0,
                mde * 100.0
            )),
        )
    } else {
        (
            Some(Reason::NearThreshold),
            Some(format!(
                "its interval [{}, {}] straddles the ±{:.0}% threshold: it could see a change of {:.0}% or more",
                signed(pct(lo)),
                signed(pct(hi)),
                threshold * 100.0,
                mde * 100.0
            )),
        )
    };
    if reason.is_some() {
        verdict = Verdict::Inconclusive;
    }
    // A row no verdict may rest on (flagged, huge pages that differ, no
    // ratio) takes no part in the false discovery rate: its p would select
    // its family and loosen every other family's level.
    let p = match reason {
        Some(Reason::Flagged | Reason::HugePages | Reason::NoRatio) => 1.0,
        _ => p,
    };
    let narrow = match (reason, &change) {
        (Some(why @ (Reason::TooWide | Reason::NearThreshold)), Some(c)) => {
            let target = next::target(why, (c.ratio, c.lo), threshold);
            let narrow = if setting.ab {
                let half = if c.lo > 0.0 {
                    (c.hi / c.lo).ln() / 2.0
                } else {
                    (c.hi - c.lo) / 2.0
                };
                next::rounds_to_paired(half, b.summary.rounds.min(n.summary.rounds), target)
            } else {
                next::rounds_to(&b.summary, &n.summary, setting.runs, target, tau)
            };
            let target_pct = if c.lo > 0.0 {
                (target.exp() - 1.0) * 100.0
            } else {
                target * 100.0
            };
            (narrow, target_pct)
        }
        _ => (Narrow::NotWidth, f64::NAN),
    };
    Row {
        experiment: n.experiment.clone(),
        metric: n.metric.clone(),
        case: case_of(&n.labels),
        labels: n.labels.clone(),
        unit: n.unit,
        better,
        base: b.summary.median,
        new: n.summary.median,
        change: pct(ratio),
        ci_lo: pct(lo),
        ci_hi: pct(hi),
        mde: mde * 100.0,
        mde80: mde80 * 100.0,
        p,
        z,
        family: n.family(),
        point: n.point,
        run_noise_pct: f64::NAN,
        noise_basis: Basis::Floor,
        verdict,
        consistent: None,
        next: reason.map(|r| next::step(r, narrow.0, setting, narrow.1)),
        reason,
        why,
        narrow,
    }
}

/// Whether an interval of a change is too wide to lie within ±`threshold`
/// wherever it sat: by factors for a ratio of positive figures, by plain
/// differences otherwise (a figure that may be negative).
fn too_wide(lo: f64, hi: f64, threshold: f64) -> bool {
    if lo > 0.0 {
        (hi / lo).ln() > ((1.0 + threshold) / (1.0 - threshold).max(f64::MIN_POSITIVE)).ln()
    } else {
        hi - lo > 2.0 * threshold
    }
}

/// What a change is multiplied by to divide the machine's common move
/// `factor` out: a cost (better lower) by `factor`, a rate (better higher)
/// times it; a figure with no direction as measured.
fn relative_k(better: Better, factor: f64) -> f64 {
    match better {
        Better::Lower => 1.0 / factor,
        Better::Higher => factor,
        Better::Neither | Better::Unknown => 1.0,
    }
}

/// A change with the machine's common move divided out ([`relative_k`]).
fn relative(c: Change, better: Better, factor: f64) -> Change {
    let k = relative_k(better, factor);
    if k == 1.0 || c.lo <= 0.0 {
        return c;
    }
    Change {
        ratio: c.ratio * k,
        lo: c.lo * k,
        hi: c.hi * k,
    }
}

/// A change in percent, signed: "+12.3%", "n/a" when not finite.
pub fn signed(x: f64) -> String {
    if x.is_finite() {
        format!("{x:+.1}%")
    } else {
        "n/a".into()
    }
}
