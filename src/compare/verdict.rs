//! One row of a comparison: the change NEW/BASE of a series with its 95%
//! interval, the verdict under the user's threshold (never raised), the
//! smallest change the row could have seen (`mde`), and, when it is
//! inconclusive, why and what to do next.

use super::pool::Series;
use crate::results::{case_of, Better, Labels, Unit};
use crate::stats::{self, Change, Verdict};
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
    /// The minimum detectable change in percent: the smallest change this
    /// row's interval could have called beyond the threshold (`stats::mde`);
    /// null when no ratio can be formed.
    pub mde: f64,
    pub verdict: Verdict,
    /// Why the verdict is inconclusive (every inconclusive row has one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<Reason>,
    /// The same, said in full.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// What would decide it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

/// Why a row is inconclusive, for a reader who groups or filters them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// A side flagged the series: a trend over its run, or two modes.
    Flagged,
    /// The kernel put one side's memory on huge pages and not the other's.
    HugePages,
    /// The interval is wider than the threshold allows: it can hold "no
    /// change" and a change beyond the threshold at once.
    TooWide,
    /// The interval is narrow enough but straddles the threshold: a change
    /// about the threshold's size.
    NearThreshold,
    /// No ratio can be formed (a base of zero, or an interval not finite).
    NoRatio,
}

impl Reason {
    /// A few words, for the summary line and the table.
    pub fn short(self) -> &'static str {
        match self {
            Reason::Flagged => "flagged",
            Reason::HugePages => "huge pages differ",
            Reason::TooWide => "too imprecise",
            Reason::NearThreshold => "near the threshold",
            Reason::NoRatio => "no ratio",
        }
    }

    /// The next step that would decide such a row.
    pub fn next(self, runs_per_side: usize) -> &'static str {
        match self {
            Reason::Flagged => {
                "see the flag in each side's report: a trend or two modes is a property of the machine while it ran; rerun when it is steady"
            }
            Reason::HugePages => {
                "rerun both with THP pinned (-p thp=off or on) or after compacting memory, so the kernel backs both alike"
            }
            Reason::TooWide if runs_per_side < 2 => {
                "narrow it: compare two runs per side (A1 A2 --vs B1 B2), --profile thorough, --rounds 16, or a quieter machine"
            }
            Reason::TooWide => {
                "narrow it: more runs per side, --profile thorough, --rounds 16, or a quieter machine"
            }
            Reason::NearThreshold => {
                "a change about the threshold's size: more rounds or runs per side decide which side of it"
            }
            Reason::NoRatio => "no ratio to judge: compare the medians by eye",
        }
    }
}

/// The change from `b` to `n` with the verdict at `threshold` (0.05 = 5%);
/// `same_thp`: both sides ran with one THP setting, so huge pages found for
/// one side's memory and not the other's make the row inconclusive.
/// `factor` divides a common move of the whole machine out of a directional
/// series' cost (`--relative`); 1 leaves the figures as measured.
pub fn row(
    (b, n): (&Series, &Series),
    threshold: f64,
    runs_per_side: usize,
    factor: f64,
    same_thp: bool,
) -> Row {
    let better = match n.better {
        Better::Unknown => b.better,
        x => x,
    };
    let change = stats::change(&b.summary, &n.summary).map(|c| relative(c, better, factor));
    judged((b, n), change, threshold, runs_per_side, same_thp)
}

/// The row of `b` against `n` for a change already measured (`None`: no
/// ratio could be formed): by the two sides' summaries in `compare`, by
/// pairs of rounds in `ab`.
pub fn judged(
    (b, n): (&Series, &Series),
    change: Option<Change>,
    threshold: f64,
    runs_per_side: usize,
    same_thp: bool,
) -> Row {
    let better = match n.better {
        Better::Unknown => b.better,
        x => x,
    };
    let (mut verdict, mde) = match &change {
        Some(c) => (
            stats::verdict(c, threshold, better),
            stats::mde(c, threshold),
        ),
        // Zero on both sides (no involuntary switch in either run): the
        // medians agree, though no ratio can be formed for an interval.
        None if b.summary.median == 0.0 && n.summary.median == 0.0 => {
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
            Some(
                "no ratio can be formed: the base median is zero and the new one is not, or an interval is not finite"
                    .into(),
            ),
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
                "its interval [{}, {}] straddles the ±{:.0}% threshold",
                signed(pct(lo)),
                signed(pct(hi)),
                threshold * 100.0
            )),
        )
    };
    if reason.is_some() {
        verdict = Verdict::Inconclusive;
    }
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
        verdict,
        next: reason.map(|r| r.next(runs_per_side).to_string()),
        reason,
        why,
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

/// A change with the machine's common move divided out: a cost (better
/// lower) by `factor`, a rate (better higher) times it; a figure with no
/// direction as measured.
fn relative(c: Change, better: Better, factor: f64) -> Change {
    let k = match better {
        Better::Lower => 1.0 / factor,
        Better::Higher => factor,
        Better::Neither | Better::Unknown => 1.0,
    };
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
