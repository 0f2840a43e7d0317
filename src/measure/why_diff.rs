//! The difference between two attributed runs: the change of a series'
//! figure shared out over where its time went. A function's time in a
//! round is its self share of that round's samples times the round's
//! figure (the figure's time per operation); user space, the kernel and
//! the kernel functions not named are parts alike. Each part's change gets
//! its 95% interval by the rule of the tool's verdicts:
//!
//! - [`Design::Independent`] (`compare`, two separate runs): each side's
//!   part, round by round, summarised as every figure is
//!   (`stats::rounds::summarize_runs`, the rounds the unit, several runs a
//!   level), widened by the series' run-to-run noise as `compare` widens a
//!   figure it cannot take the ratio of, and the two combined by
//!   `stats::contrast::difference` (the interval of the difference, never
//!   an overlap of intervals);
//! - [`Design::Paired`] (`ab`): the rounds of A and B that ran next to
//!   each other, the mean of their differences with the bootstrap over the
//!   pairs (`stats::paired::paired_difference`).
//!
//! A part's change is stated only when its interval excludes zero; shares
//! stay within 0 to 1, and their changes within -1 to 1. The parts need not
//! add up to the whole (medians do not add), and the kernel functions left
//! out of those shown are one part of their own, "other functions".

use crate::results::why::{Attribution, PerRound};
use crate::stats::contrast::{self, Interval, Order};
use serde::Serialize;
use std::collections::HashMap;

/// Fewest rounds with a sample a side needs, and fewest samples in all.
pub const MIN_ROUNDS: usize = 3;
pub const MIN_SAMPLES: u64 = 30;
/// The part of the kernel's time in no function shown.
pub const OTHER: &str = "other functions";
pub const USER: &str = "user space";
pub const KERNEL: &str = "the kernel";
pub const TOTAL: &str = "the figure";

/// One run's attributed series: its attribution, and its figure in each of
/// its rounds (the round's median), in the series' round order (which is
/// the order of `PerRound`'s rounds).
pub struct Run<'a> {
    pub attribution: &'a Attribution,
    pub figures: Vec<f64>,
}

/// How the two sides' rounds relate, and so how an interval is formed.
#[derive(Clone, Copy, Debug)]
pub enum Design {
    /// Separate runs (`compare`): `tau` is the series' run-to-run noise (a
    /// standard deviation in logs, `compare::Row::run_noise_pct` / 100).
    Independent { tau: f64 },
    /// One run's rounds of A and B in pairs (`ab`).
    Paired,
}

/// A part of the time and how it changed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Part {
    /// A kernel function, or [`USER`], [`KERNEL`], [`OTHER`], [`TOTAL`].
    pub what: String,
    /// Its time per operation on each side (the median over the rounds), ns.
    pub base_ns: f64,
    pub new_ns: f64,
    /// The change of its time, ns, with its 95% interval.
    pub change_ns: f64,
    pub lo_ns: f64,
    pub hi_ns: f64,
    /// Its share of each side's samples (the median over the rounds, 0 to 1).
    pub base_share: f64,
    pub new_share: f64,
    /// The change of its share (-1 to 1), with its 95% interval as computed
    /// (a bound may pass ±1 by sampling noise).
    pub share_change: f64,
    pub share_lo: f64,
    pub share_hi: f64,
}

impl Part {
    /// Where the change of its time lies against zero: told apart only
    /// when the interval excludes it.
    pub fn time_order(&self) -> Order {
        interval(self.change_ns, self.lo_ns, self.hi_ns).against(0.0)
    }

    pub fn share_order(&self) -> Order {
        interval(self.share_change, self.share_lo, self.share_hi).against(0.0)
    }
}

fn interval(value: f64, lo: f64, hi: f64) -> Interval {
    Interval { value, lo, hi }
}

/// A series' change, shared out.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WhyDiff {
    /// The whole figure, by the same rule as its parts.
    pub total: Part,
    pub user: Part,
    pub kernel: Part,
    /// The kernel functions with the largest changes of time (by their
    /// size), at most as many as asked.
    pub functions: Vec<Part>,
    /// The kernel's time in no function of `functions`.
    pub other: Part,
    /// Samples and rounds with a sample, each side.
    pub base_samples: u64,
    pub new_samples: u64,
    pub base_rounds: usize,
    pub new_rounds: usize,
}

/// One round of one run, as the parts read it.
struct RoundView<'a> {
    figure: f64,
    samples: u64,
    user: u64,
    own: HashMap<&'a str, u64>,
    /// Every kernel sample is in a function the record names.
    complete: bool,
}

/// A side: each run's rounds (None: no sample in that round).
type SideView<'a> = Vec<Vec<Option<RoundView<'a>>>>;

/// A part's time and share in one round, and which of the two is read.
type Both = (f64, f64);
type Pick = fn(&Both) -> f64;

/// What a part counts in one round: None when the record cannot tell.
type Count<'f> = &'f dyn Fn(&RoundView) -> Option<u64>;

fn view<'a>(run: &Run<'a>, side: &str) -> Result<Vec<Option<RoundView<'a>>>, String> {
    let Some(p) = run.attribution.per_round.as_ref() else {
        return Err(format!(
            "{side}'s attribution holds no per-round counts (a results file from before \
             tasklab recorded them)"
        ));
    };
    let n = p.samples.len();
    if p.user.len() != n || p.functions.iter().any(|(_, c)| c.len() != n) {
        return Err(format!("{side}'s per-round counts are inconsistent"));
    }
    if run.figures.len() != n {
        return Err(format!(
            "{side}'s sampled rounds ({n}) are not its figure's rounds ({})",
            run.figures.len()
        ));
    }
    Ok((0..n).map(|i| round_view(p, &run.figures, i)).collect())
}

fn round_view<'a>(p: &'a PerRound, figures: &[f64], i: usize) -> Option<RoundView<'a>> {
    let samples = p.samples[i];
    if samples == 0 || !figures[i].is_finite() {
        return None;
    }
    let user = p.user[i].min(samples);
    let own: HashMap<&str, u64> = p
        .functions
        .iter()
        .filter(|(_, c)| c[i] > 0)
        .map(|(f, c)| (f.as_str(), c[i]))
        .collect();
    let listed: u64 = own.values().sum();
    Some(RoundView {
        figure: figures[i],
        samples,
        user,
        own,
        complete: listed >= samples - user,
    })
}

/// Samples and rounds with a sample over a side's runs.
fn counted(side: &SideView) -> (u64, usize) {
    side.iter()
        .flatten()
        .flatten()
        .fold((0, 0), |(s, r), v| (s + v.samples, r + 1))
}

/// The change of `base`'s series to `new`'s (each side's runs: one for
/// `Design::Paired`), shared out over user space, the kernel and its
/// functions, the `top` functions whose time changed most named and the
/// rest of the kernel's time as [`OTHER`]. `seed` makes the intervals
/// reproducible (derive it from the series). An error says why no
/// difference of attributions can be formed.
pub fn diff(
    base: &[Run],
    new: &[Run],
    design: Design,
    top: usize,
    seed: u64,
) -> Result<WhyDiff, String> {
    if base.is_empty() || new.is_empty() {
        return Err("a side has no attributed run".into());
    }
    let b: SideView = base
        .iter()
        .map(|r| view(r, "base"))
        .collect::<Result<_, _>>()?;
    let n: SideView = new
        .iter()
        .map(|r| view(r, "new"))
        .collect::<Result<_, _>>()?;
    let ((bs, br), (ns, nr)) = (counted(&b), counted(&n));
    if br < MIN_ROUNDS || nr < MIN_ROUNDS || bs < MIN_SAMPLES || ns < MIN_SAMPLES {
        return Err(format!(
            "too few samples to share the change out (base {bs} in {br} rounds, new {ns} in \
             {nr}; at least {MIN_SAMPLES} in {MIN_ROUNDS} rounds a side)"
        ));
    }
    if let Design::Paired = design {
        if base.len() != 1 || new.len() != 1 || b[0].len() != n[0].len() {
            return Err("the two sides' rounds do not pair".into());
        }
        let pairs = b[0]
            .iter()
            .zip(&n[0])
            .filter(|(x, y)| x.is_some() && y.is_some())
            .count();
        if pairs < crate::stats::paired::MIN_PAIRS {
            return Err(format!(
                "too few pairs of rounds with samples on both sides ({pairs}; at least {})",
                crate::stats::paired::MIN_PAIRS
            ));
        }
    }
    let part = |what: &str, count: Count| part(what, (&b, &n), design, count, seed);
    let total = part(TOTAL, &|r| Some(r.samples)).ok_or("no round to compare")?;
    let user = part(USER, &|r| Some(r.user)).ok_or("no round to compare")?;
    let kernel = part(KERNEL, &|r| Some(r.samples - r.user)).ok_or("no round to compare")?;
    let mut functions: Vec<Part> = names(&b, &n)
        .into_iter()
        .filter_map(|f| part(f, &|r| own(r, f)))
        .collect();
    functions.sort_by(|x, y| {
        y.change_ns
            .abs()
            .total_cmp(&x.change_ns.abs())
            .then(x.what.cmp(&y.what))
    });
    functions.truncate(top);
    let shown: Vec<&str> = functions.iter().map(|f| f.what.as_str()).collect();
    let other = part(OTHER, &|r| {
        let named = shown.iter().map(|f| own(r, f)).sum::<Option<u64>>()?;
        Some((r.samples - r.user).saturating_sub(named))
    })
    .ok_or("no round to compare")?;
    Ok(WhyDiff {
        total,
        user,
        kernel,
        functions,
        other,
        base_samples: bs,
        new_samples: ns,
        base_rounds: br,
        new_rounds: nr,
    })
}

/// A function's self samples in a round: 0 when the round's record names
/// every kernel sample's function and not this one; None when it cannot tell.
fn own(r: &RoundView, f: &str) -> Option<u64> {
    match r.own.get(f) {
        Some(n) => Some(*n),
        None if r.complete => Some(0),
        None => None,
    }
}

/// The functions either side names, each known in every round of both.
fn names<'a>(b: &SideView<'a>, n: &SideView<'a>) -> Vec<&'a str> {
    let mut all: Vec<&str> = b
        .iter()
        .chain(n)
        .flatten()
        .flatten()
        .flat_map(|r| r.own.keys().copied())
        .collect();
    all.sort_unstable();
    all.dedup();
    all.retain(|f| {
        b.iter()
            .chain(n)
            .flatten()
            .flatten()
            .all(|r| own(r, f).is_some())
    });
    all
}

/// One part's change: its time (the count's share of the round's samples
/// times the round's figure) and its share, round by round, compared by
/// `design`. None when a round's count cannot be told or no round is left.
fn part(
    what: &str,
    (b, n): (&SideView, &SideView),
    design: Design,
    count: Count,
    seed: u64,
) -> Option<Part> {
    let seed = crate::stats::seed_for(&format!("{seed}/{what}"));
    // Per run, per round: (time, share), None for a round with no sample.
    type Rounds = Vec<Vec<Option<(f64, f64)>>>;
    let per = |side: &SideView| -> Option<Rounds> {
        side.iter()
            .map(|run| {
                run.iter()
                    .map(|r| match r {
                        Some(r) => {
                            let share = count(r)? as f64 / r.samples as f64;
                            Some(Some((share * r.figure, share)))
                        }
                        None => Some(None),
                    })
                    .collect()
            })
            .collect()
    };
    let (pb, pn) = (per(b)?, per(n)?);
    let median_of = |p: &Rounds, pick: Pick| {
        let v: Vec<f64> = p.iter().flatten().flatten().map(pick).collect();
        crate::stats::median(&v)
    };
    let (time, share): (Pick, Pick) = (|x| x.0, |x| x.1);
    let (t, s) = match design {
        Design::Independent { tau } => (
            independent(&pb, &pn, time, tau, seed)?,
            independent(&pb, &pn, share, 0.0, seed ^ 1)?,
        ),
        Design::Paired => {
            let (x, y): (Vec<Both>, Vec<Both>) = pb[0]
                .iter()
                .zip(&pn[0])
                .filter_map(|(x, y)| Some(((*x)?, (*y)?)))
                .unzip();
            let d = |pick: Pick, seed| {
                let (a, b): (Vec<f64>, Vec<f64>) =
                    (x.iter().map(pick).collect(), y.iter().map(pick).collect());
                crate::stats::paired::paired_difference(&a, &b, seed)
            };
            (d(time, seed)?, d(share, seed ^ 1)?)
        }
    };
    Some(Part {
        what: what.to_string(),
        base_ns: median_of(&pb, time)?,
        new_ns: median_of(&pn, time)?,
        change_ns: t.value,
        lo_ns: t.lo,
        hi_ns: t.hi,
        base_share: median_of(&pb, share)?,
        new_share: median_of(&pn, share)?,
        // As computed, never clamped (issue 39): a bound past ±1 stays in
        // the JSON as the interval gave it.
        share_change: s.value,
        share_lo: s.lo,
        share_hi: s.hi,
    })
}

/// Two separate sides' figures (each a list of runs of rounds) summarised
/// as every figure is, each widened by the run-to-run noise `tau` over the
/// square root of its runs, and their difference new - base.
fn independent(
    b: &[Vec<Option<(f64, f64)>>],
    n: &[Vec<Option<(f64, f64)>>],
    pick: Pick,
    tau: f64,
    seed: u64,
) -> Option<Interval> {
    let summary = |side: &[Vec<Option<(f64, f64)>>], seed: u64| {
        let runs: Vec<Vec<Vec<f64>>> = side
            .iter()
            .map(|run| run.iter().flatten().map(|x| vec![pick(x)]).collect())
            .collect();
        let refs: Vec<&[Vec<f64>]> = runs.iter().map(Vec::as_slice).collect();
        let mut s = crate::stats::rounds::summarize_runs(&refs, seed).ok()?;
        let count = side.len().max(1) as f64;
        crate::stats::rounds::widen_by_run_noise(&mut s, tau / count.sqrt());
        Some(s)
    };
    let (sb, sn) = (summary(b, seed)?, summary(n, seed ^ 2)?);
    Some(contrast::difference(&sn, &sb))
}

#[cfg(test)]
#[path = "why_diff_tests.rs"]
mod tests;
