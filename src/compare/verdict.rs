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
    /// What the host's memory state adds to the change's standard
    /// deviation, in percent: a memory-heavy family's sensitivity to the
    /// memory canary times the canary's shift between the sides
    /// (`stats::memstate`); 0 for other rows and when the canary did not
    /// move.
    pub memory_noise_pct: f64,
    /// What the machine's speed adds to it, in percent: the family's
    /// sensitivity to the system call's canary times that canary's shift,
    /// in the families of an experiment whose rounds follow it
    /// (`stats::memstate::follows`); 0 for other rows and when the canary
    /// did not move.
    pub machine_noise_pct: f64,
    pub verdict: Verdict,
    /// For a regressed row: whether the same series moved the same way
    /// across the experiment's points (`gate::consistency`); null for other
    /// rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consistent: Option<bool>,
    /// Why the verdict is inconclusive and what would decide it (every
    /// inconclusive row has one); its fields sit in the row's JSON.
    #[serde(flatten)]
    pub inconclusive: Option<Inconclusive>,
}

/// Why a row is inconclusive, in a word and in full, and what would decide
/// it: one value, so the three are set and cleared together.
#[derive(Debug, Clone, Serialize)]
pub struct Inconclusive {
    /// For a reader who groups or filters rows.
    pub reason: Reason,
    /// The same, said in full.
    pub why: String,
    /// What would decide it.
    pub next: String,
    /// How far rounds could narrow it, and to what half-width (percent):
    /// what the counts' next step per reason is made of.
    #[serde(skip)]
    pub narrow: (Narrow, f64),
}

impl Row {
    /// Why the row is inconclusive, when it is.
    pub fn reason(&self) -> Option<Reason> {
        self.inconclusive.as_ref().map(|i| i.reason)
    }
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
/// measured. `host`: the variances in logs the host's memory state and
/// the machine's speed add to the change (`stats::memstate::extra_variance`
/// of the memory canary and of the system call's; 0 for none).
pub fn row(
    (b, n): (&Series, &Series),
    threshold: f64,
    setting: &Setting,
    factor: f64,
    same_thp: bool,
    noise: (f64, Basis),
    host: (f64, f64),
) -> Row {
    let (tau, basis) = noise;
    let known = |v: f64| if v.is_finite() && v > 0.0 { v } else { 0.0 };
    let (memory, machine) = (known(host.0), known(host.1));
    let measured = measure((b, n), threshold, factor, (tau, memory + machine));
    let mut r = judged_measured((b, n), measured, threshold, setting, same_thp, tau);
    r.run_noise_pct = tau * 100.0;
    r.noise_basis = basis;
    // only where the model of runs holds it (a figure positive throughout)
    if twoside::diff(&b.runs, &n.runs, tau).is_some() {
        r.memory_noise_pct = memory.sqrt() * 100.0;
        r.machine_noise_pct = machine.sqrt() * 100.0;
    }
    r
}

/// The direction a row is judged in: the new side's, else the base's.
fn better_of(b: &Series, n: &Series) -> Better {
    match n.better {
        Better::Unknown => b.better,
        x => x,
    }
}

/// The change from `b` to `n` by the model of runs, with the run-to-run
/// noise `tau` and the host's memory state's variance `memory` in its
/// interval and `factor` divided out; by the sides' intervals for a figure
/// not positive throughout (without `memory`). None when no ratio can be
/// formed.
fn measure(
    (b, n): (&Series, &Series),
    threshold: f64,
    factor: f64,
    (tau, memory): (f64, f64),
) -> Option<Measured> {
    let better = better_of(b, n);
    let Some(d) = twoside::diff(&b.runs, &n.runs, tau) else {
        // Not positive throughout: the sides' intervals, each widened
        // by the run-to-run noise over the square root of its runs.
        let widen = |s: &Series| {
            let mut x = s.summary.clone();
            let runs = s.runs.len().max(1) as f64;
            stats::rounds::widen_by_run_noise(&mut x, tau / runs.sqrt());
            x
        };
        return stats::change(&widen(b), &widen(n))
            .map(|c| relative(c, better, factor))
            .map(|c| Measured::of_interval(c, threshold));
    };
    let d = d.scaled(relative_k(better, factor)).widened(memory);
    let step = |s: &Series| {
        let (q, m) = (s.summary.quantum, s.summary.median);
        if q > 0.0 && m > 0.0 {
            (1.0 + q / 2.0 / m).ln()
        } else {
            0.0
        }
    };
    let steps = step(b) + step(n);
    if steps <= 0.0 {
        return Some(Measured::of_diff(&d, threshold));
    }
    // Figures read in steps (a clock that ticks in 10 ns) have a bounded
    // error of half a step each: the ends are taken end to end, outside
    // the random part (`stats::contrast`).
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
    let better = better_of(b, n);
    let change = measured.as_ref().map(|m| &m.change);
    let (measured_verdict, mde) = verdict_of((b, n), change, threshold, better);
    let inconclusive = inconclusive_of((b, n), change, measured_verdict, threshold, mde, same_thp)
        .map(|(reason, why)| {
            let narrow = narrowing(reason, (b, n), change, threshold, setting, tau);
            Inconclusive {
                reason,
                why,
                next: next::step(reason, narrow.0, setting, narrow.1),
                narrow,
            }
        });
    let verdict = if inconclusive.is_some() {
        Verdict::Inconclusive
    } else {
        measured_verdict
    };
    let (p, mde80, z) = measured
        .as_ref()
        .map_or((f64::NAN, f64::NAN, f64::NAN), |m| (m.p, m.mde80, m.z));
    // A row no verdict may rest on (flagged, huge pages that differ, no
    // ratio) takes no part in the false discovery rate: its p would select
    // its family and loosen every other family's level.
    let p = match inconclusive.as_ref().map(|i| i.reason) {
        Some(Reason::Flagged | Reason::HugePages | Reason::NoRatio) => 1.0,
        _ => p,
    };
    let (ratio, lo, hi) = match change {
        Some(c) => (c.ratio, c.lo, c.hi),
        // no ratio, though nothing changed: zero on both sides throughout
        None if measured_verdict == Verdict::Unchanged => (1.0, f64::NAN, f64::NAN),
        None => (f64::NAN, f64::NAN, f64::NAN),
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
        memory_noise_pct: 0.0,
        machine_noise_pct: 0.0,
        verdict,
        consistent: None,
        inconclusive,
    }
}

/// A ratio as a change in percent.
fn pct(x: f64) -> f64 {
    (x - 1.0) * 100.0
}

/// The verdict of `change` at `threshold` in the direction `better`, and
/// the smallest change it calls; with no ratio, unchanged only when both
/// sides are zero throughout.
fn verdict_of(
    (b, n): (&Series, &Series),
    change: Option<&Change>,
    threshold: f64,
    better: Better,
) -> (Verdict, f64) {
    match change {
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
    }
}

/// Why a row is inconclusive, in a word and in full; None when its
/// `verdict` stands. A flag or huge pages that differ hold back any
/// verdict; an inconclusive one is so for want of a ratio, or for an
/// interval too wide or about the threshold's size.
fn inconclusive_of(
    (b, n): (&Series, &Series),
    change: Option<&Change>,
    verdict: Verdict,
    threshold: f64,
    mde: f64,
    same_thp: bool,
) -> Option<(Reason, String)> {
    let flagged: Vec<&str> = [&b.flagged, &n.flagged]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .collect();
    if !flagged.is_empty() {
        let why = format!("flagged, so no verdict rests on it: {}", flagged.join("; "));
        return Some((Reason::Flagged, why));
    }
    if let Some(why) = same_thp.then(|| super::huge_pages_differ(b, n)).flatten() {
        return Some((Reason::HugePages, why));
    }
    if verdict != Verdict::Inconclusive {
        return None;
    }
    let Some(c) = change else {
        let why = if b.summary.median == 0.0 && n.summary.median == 0.0 {
            "no ratio can be formed: both medians are zero, but an interval reaches above zero, so it has not shown that nothing changed"
        } else {
            "no ratio can be formed: the base median is zero and the new one is not, or an interval is not finite"
        };
        return Some((Reason::NoRatio, why.into()));
    };
    let interval = format!(
        "its interval [{}, {}]",
        signed(pct(c.lo)),
        signed(pct(c.hi))
    );
    let (t, mde) = (threshold * 100.0, mde * 100.0);
    Some(if too_wide(c.lo, c.hi, threshold) {
        let why = format!(
            "{interval} is wider than ±{t:.0}%: it could see only a change of {mde:.0}% or more"
        );
        (Reason::TooWide, why)
    } else {
        let why = format!(
            "{interval} straddles the ±{t:.0}% threshold: it could see a change of {mde:.0}% or more"
        );
        (Reason::NearThreshold, why)
    })
}

/// How far rounds could narrow an inconclusive row of `reason`, and to
/// what half-width in percent: by pairs of rounds in `ab`, by rounds and
/// runs in `compare`; not a matter of width for any other reason.
fn narrowing(
    reason: Reason,
    (b, n): (&Series, &Series),
    change: Option<&Change>,
    threshold: f64,
    setting: &Setting,
    tau: f64,
) -> (Narrow, f64) {
    let (Reason::TooWide | Reason::NearThreshold, Some(c)) = (reason, change) else {
        return (Narrow::NotWidth, f64::NAN);
    };
    let target = next::target(reason, (c.ratio, c.lo), threshold);
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
