//! What would decide an inconclusive row: each reason's next step, made
//! specific from the row's own interval and the sides' record. An interval
//! too wide gets the rounds that would narrow it to the threshold (a 95%
//! interval narrows with the square root of the rounds, so the rounds scale
//! with the square of the width ratio; capped at [`MAX_ROUNDS`]), unless the
//! run-to-run floor alone is that wide; then runs per side (`--vs`),
//! `--profile thorough` when a side ran quick, and a quieter machine when a
//! side recorded other work or steal.

use crate::results::RunResults;
use crate::stats::rounds::RUNS_MEASURED;
use crate::stats::Summary;
use serde::Serialize;

use crate::measure::sizing::{MAX_ROUNDS, MIN_ROUNDS};

/// Other work runnable on average, and the share of time stolen, from which
/// a run is said to have had a busy machine (as `run` warns: run/busy.rs).
const BUSY_TASKS: f64 = crate::results::Busy::TASKS;
const BUSY_STEAL: f64 = crate::results::Busy::STEAL;

/// What the sides of a comparison allow as next steps.
#[derive(Clone, Debug, Default)]
pub struct Setting {
    /// `ab`: pairs of rounds inside one run (`--rounds` per side, no `--vs`).
    pub ab: bool,
    /// Runs (files) per side, the fewer of the two.
    pub runs: usize,
    /// A side ran the quick profile: `--profile thorough` takes more rounds.
    pub quick: bool,
    /// What a side recorded of other work on its machine ("base: 1.2
    /// runnable tasks of other work"): a quieter machine would help.
    pub busy: Vec<String>,
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
    /// Beyond the threshold on its own, but not a discovery once the false
    /// discovery rate across the comparison's families is controlled.
    NotDiscovered,
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
            Reason::NotDiscovered => "not a discovery",
        }
    }
}

/// What a run recorded of a busy machine, in a few words; None when quiet.
pub fn busy_words(r: &RunResults) -> Option<String> {
    let b = r.busy.as_ref()?;
    let mut seen = Vec::new();
    let tasks = b.before_other_runnable.max(b.during_other_runnable);
    if tasks >= BUSY_TASKS {
        seen.push(format!("{tasks:.1} runnable tasks of other work"));
    }
    if b.steal_share >= BUSY_STEAL {
        seen.push(format!("{:.1}% of CPU time stolen", 100.0 * b.steal_share));
    }
    (!seen.is_empty()).then(|| seen.join(", "))
}

/// How far more rounds could narrow a row's interval to its target.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Narrow {
    /// `--rounds N` would, by the square of the width ratio.
    Rounds(usize),
    /// N runs per side would (four or more runs a side: the runs are
    /// measured, and their number narrows it).
    Runs(usize),
    /// It would take more than [`MAX_ROUNDS`].
    Cap,
    /// The run-to-run noise alone (measured for the row's family:
    /// `stats::noise`) is as wide as the target: rounds cannot.
    Floor,
    /// Not a matter of width (flagged, huge pages, no ratio, not a
    /// discovery).
    #[default]
    NotWidth,
}

impl Narrow {
    /// For ordering rows by their need: fewer rounds first.
    fn need(self) -> usize {
        match self {
            Narrow::Rounds(n) | Narrow::Runs(n) => n,
            Narrow::Cap => MAX_ROUNDS + 1,
            Narrow::Floor => MAX_ROUNDS + 2,
            Narrow::NotWidth => MAX_ROUNDS + 3,
        }
    }
}

/// A side's interval as its half-width over its median, in logs for a
/// positive figure.
fn half(s: &Summary) -> Option<f64> {
    let h = if s.median > 0.0 && s.ci95_lo > 0.0 {
        (s.ci95_hi / s.ci95_lo).ln() / 2.0
    } else {
        (s.ci95_hi - s.ci95_lo) / 2.0 / s.median.abs()
    };
    h.is_finite().then_some(h)
}

/// The rounds per run that would bring the interval of `b` against `n` to a
/// half-width of `target` (in logs, or over the base median): the rounds'
/// own part shrinks with their number, the run-to-run noise `tau` (a
/// standard deviation in logs, 95% half-width 1.96·tau a side) does not.
/// From four runs a side the runs are measured, and more of them narrow it
/// instead.
pub fn rounds_to(b: &Summary, n: &Summary, runs: usize, target: f64, tau: f64) -> Narrow {
    let (Some(hb), Some(hn)) = (half(b), half(n)) else {
        return Narrow::NotWidth;
    };
    let whole = hb * hb + hn * hn;
    if runs >= RUNS_MEASURED {
        let k = (runs as f64 * whole / (target * target)).ceil();
        return if k.is_finite() && target > 0.0 {
            Narrow::Runs((k as usize).max(runs + 1))
        } else {
            Narrow::NotWidth
        };
    }
    // each side's run-to-run part, over its runs (`stats::twoside`)
    let noise = crate::stats::Z95 * tau.max(0.0);
    let floor = 2.0 * noise * noise / runs.max(1) as f64;
    let rounds = (b.rounds.min(n.rounds) / runs.max(1)).max(1);
    scaled(rounds, whole, floor, target)
}

/// [`rounds_to`] for an interval of pairs inside one run (`ab`): `half` is
/// its half-width in logs, from `rounds` pairs; no floor.
pub fn rounds_to_paired(half: f64, rounds: usize, target: f64) -> Narrow {
    scaled(rounds.max(1), half * half, 0.0, target)
}

fn scaled(rounds: usize, own: f64, floor: f64, target: f64) -> Narrow {
    let room = target * target - floor;
    if !(own.is_finite() && room.is_finite()) || target <= 0.0 {
        return Narrow::NotWidth;
    }
    if room <= 0.0 {
        return Narrow::Floor;
    }
    let n = (rounds as f64 * own / room)
        .ceil()
        .max((rounds + 1).max(MIN_ROUNDS) as f64);
    if n > MAX_ROUNDS as f64 {
        Narrow::Cap
    } else {
        Narrow::Rounds(n as usize)
    }
}

/// The half-width a row's interval must reach to be decided, in logs for a
/// ratio of positive figures: the threshold, when it is too wide (then an
/// interval about no change lies within it); the distance from the change
/// to the threshold, when it straddles it.
pub fn target(reason: Reason, (ratio, lo): (f64, f64), threshold: f64) -> f64 {
    let positive = lo > 0.0 && ratio > 0.0;
    let at = |x: f64| if positive { x.ln() } else { x - 1.0 };
    match reason {
        Reason::NearThreshold => {
            let r = at(ratio);
            (r - at(1.0 + threshold))
                .abs()
                .min((r - at(1.0 - threshold)).abs())
        }
        _ => at(1.0 + threshold),
    }
}

/// The next step for a row of `reason`, with how far rounds could narrow
/// it (`narrow`) and to what (`target_pct`).
pub fn step(reason: Reason, narrow: Narrow, s: &Setting, target_pct: f64) -> String {
    match reason {
        Reason::Flagged => {
            let mut t = "rerun the flagged side when the machine is steady: a trend or two modes may be the machine's state while it ran (or the operation's own), which more rounds do not fix (its report names the flag)".to_string();
            if let Some(q) = quieter(s) {
                t.push_str(&format!("; {q}"));
            }
            t
        }
        Reason::HugePages => {
            "rerun both with THP pinned (-p thp=off or on) or after compacting memory, so the kernel backs both alike".into()
        }
        Reason::NotDiscovered => {
            "it may be one of the false alarms expected among this many families: confirm it with more runs per side (A1 A2 A3 --vs B1 B2 B3), or with tasklab ab where the change can be switched at run time".into()
        }
        Reason::NoRatio => {
            "no ratio with an interval exists here (a median of zero, or an interval that is not finite): judge base against new by their figures in the --all table".into()
        }
        Reason::TooWide | Reason::NearThreshold => {
            format!("{}: {}", width_head(reason), narrowing(narrow, s, target_pct))
        }
    }
}

/// A quieter machine, when a side recorded other work on its own.
fn quieter(s: &Setting) -> Option<String> {
    (!s.busy.is_empty()).then(|| format!("a quieter machine ({})", s.busy.join("; ")))
}

/// What the steps of a row whose interval must narrow are for.
fn width_head(reason: Reason) -> &'static str {
    if reason == Reason::NearThreshold {
        "a change about the threshold's size; to tell which side of it"
    } else {
        "narrow it"
    }
}

/// The steps that would narrow an interval: the rounds or runs (`narrow`,
/// to about `target_pct`), more runs, the thorough profile, a quieter
/// machine, each an alternative.
fn narrowing(narrow: Narrow, s: &Setting, target_pct: f64) -> String {
    let mut steps = Vec::new();
    let both = if s.ab { "" } else { " on both sides" };
    match narrow {
        Narrow::Rounds(n) => steps.push(format!("--rounds {n}{both} (about ±{target_pct:.1}%)")),
        Narrow::Runs(n) => steps.push(format!(
            "{n} runs per side with --vs (about ±{target_pct:.1}%)"
        )),
        Narrow::Cap => steps.push(format!(
            "even --rounds {MAX_ROUNDS} would not narrow it to ±{target_pct:.1}%"
        )),
        Narrow::Floor => steps.push(format!(
            "rounds cannot narrow it to ±{target_pct:.1}% (the run-to-run noise alone is as wide): more runs per side (A1 .. A4 --vs B1 .. B4) average it down"
        )),
        Narrow::NotWidth => {}
    }
    if !s.ab && s.runs < 2 {
        steps.push("two runs per side (A1 A2 --vs B1 B2)".into());
    }
    if s.quick {
        steps.push("--profile thorough".into());
    }
    steps.extend(quieter(s));
    if steps.is_empty() {
        "more runs per side".into()
    } else {
        steps.join("; or ")
    }
}

/// The step for a group of rows of one reason: the median row's need, and
/// how many need more than the cap or cannot be narrowed by rounds.
pub fn group_step(reason: Reason, rows: &[(Narrow, f64)], s: &Setting) -> String {
    match reason {
        Reason::TooWide | Reason::NearThreshold => {
            format!("{}: {}", width_head(reason), group_narrowing(rows, s))
        }
        _ => step(reason, Narrow::NotWidth, s, f64::NAN),
    }
}

/// The steps that would narrow a group of rows' intervals, by the median
/// row's need, and how many need more than the cap or cannot be narrowed
/// by rounds.
pub fn group_narrowing(rows: &[(Narrow, f64)], s: &Setting) -> String {
    let mut v: Vec<(Narrow, f64)> = rows.to_vec();
    v.sort_by_key(|(n, _)| n.need());
    let (narrow, target) = v
        .get(v.len() / 2)
        .copied()
        .unwrap_or((Narrow::NotWidth, 0.0));
    let mut t = narrowing(narrow, s, target);
    let beyond = v
        .iter()
        .filter(|(n, _)| matches!(n, Narrow::Cap | Narrow::Floor))
        .count();
    if matches!(narrow, Narrow::Rounds(_) | Narrow::Runs(_)) && v.len() > 1 {
        t.push_str(" (the median row's need");
        if beyond > 0 {
            t.push_str(&format!(
                "; {beyond} need more than {MAX_ROUNDS} rounds or more runs"
            ));
        }
        t.push(')');
    }
    t
}

#[cfg(test)]
#[path = "next_tests.rs"]
mod tests;
