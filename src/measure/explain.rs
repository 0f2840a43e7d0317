//! Sentences that name the round telemetry when it explains a figure:
//! "steal was 6% of the CPUs' time", "1.0 reschedule IPI per hand-off".
//! Pure functions of a result's `round_log` (`&r.round_log`), for any
//! experiment's `analyze` to call.

use crate::metric::MetricSpec;
use crate::results::{Canary, ExperimentResult, RoundRecord, RoundTelemetry};

/// Steal above this share of the CPUs' time is named.
pub const STEAL_SHARE: f64 = 0.01;
/// Run delay above this share of the wall time is named.
pub const RUN_DELAY_SHARE: f64 = 0.05;

/// "1.0 reschedule IPI per hand-off", "2.3 parks per round trip",
/// "0.02 TLB shootdowns per call": one decimal, two below 0.1; the singular
/// only for exactly one at that precision.
pub fn per_op_phrase(count: f64, one: &str, many: &str, per: &str) -> String {
    let shown = if count.abs() < 0.1 {
        format!("{count:.2}")
    } else {
        format!("{count:.1}")
    };
    let shown = if shown.starts_with('-') && shown.trim_start_matches(['-', '0', '.']).is_empty() {
        shown[1..].to_string()
    } else {
        shown
    };
    let noun = if shown == "1.0" { one } else { many };
    format!("{shown} {noun} per {per}")
}

/// What the rounds of `point` (every point when None) add up to.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Totals {
    pub rounds: usize,
    pub wall_ns: f64,
    pub cpu_ns: f64,
    pub steal_ns: f64,
    /// CPUs the per-CPU figures cover (0 when the file predates them).
    pub cpus: usize,
    pub run_delay_ns: f64,
    pub res_ipis: f64,
    pub cal_ipis: f64,
    pub tlb_ipis: f64,
    pub minor_faults: f64,
    pub nr_throttled: f64,
    pub throttled_usec: f64,
}

impl Totals {
    pub fn of(log: &[RoundRecord], point: Option<usize>) -> Totals {
        let mut t = Totals::default();
        let rounds = log
            .iter()
            .filter(|rec| point.is_none_or(|p| rec.point == p));
        for RoundRecord { telemetry: x, .. } in rounds {
            t.rounds += 1;
            t.wall_ns += x.wall_ns;
            t.cpu_ns += x.cpu_ns;
            t.steal_ns += x.steal_ns;
            t.cpus = t.cpus.max(x.cpu_steal_ns.len());
            t.run_delay_ns += x.run_delay_ns;
            t.res_ipis += x.res_ipis;
            t.cal_ipis += x.cal_ipis;
            t.tlb_ipis += x.tlb_ipis;
            t.minor_faults += x.minor_faults;
            t.nr_throttled += x.nr_throttled;
            t.throttled_usec += x.throttled_usec;
        }
        t
    }

    /// Steal as a share of all CPUs' time over the rounds.
    pub fn steal_share(&self) -> Option<f64> {
        (self.cpus > 0 && self.wall_ns > 0.0)
            .then(|| self.steal_ns / (self.wall_ns * self.cpus as f64))
    }
}

/// The sentences the rounds of `point` (every point when None) call for:
/// steal above [`STEAL_SHARE`] of the CPUs' time, run delay above
/// [`RUN_DELAY_SHARE`] of the wall time, any throttling by the cgroup's
/// CPU quota. Empty when the rounds were quiet
/// (or the file predates the telemetry).
pub fn contamination(log: &[RoundRecord], point: Option<usize>) -> Vec<String> {
    let t = Totals::of(log, point);
    // Whose work it waited for, the run-delay counter does not say: in a
    // ping-pong or with more workers than CPUs it is the worker's own.
    let delay = (t.wall_ns > 0.0 && t.run_delay_ns / t.wall_ns > RUN_DELAY_SHARE).then(|| {
        format!(
            "the measuring thread was runnable but waiting for a CPU {} of the time (run delay: behind the worker's own tasks or other programs)",
            pct(t.run_delay_ns / t.wall_ns)
        )
    });
    [steal(&t), delay, throttling(&t)]
        .into_iter()
        .flatten()
        .collect()
}

/// What held the worker back without its choosing during the rounds of
/// `point` (every point when None): steal above [`STEAL_SHARE`] (the
/// hypervisor) and throttling by the cgroup's CPU quota (which counts
/// tasklab's own use too). Run delay is not among them: it may be the
/// worker's own tasks.
pub fn held_back(log: &[RoundRecord], point: Option<usize>) -> Vec<String> {
    let t = Totals::of(log, point);
    [steal(&t), throttling(&t)].into_iter().flatten().collect()
}

/// Steal above [`STEAL_SHARE`] of the CPUs' time.
fn steal(t: &Totals) -> Option<String> {
    t.steal_share().filter(|s| *s > STEAL_SHARE).map(|s| {
        format!(
            "steal was {} of the CPUs' time: the hypervisor ran something else on these CPUs",
            pct(s)
        )
    })
}

/// Any throttling by the cgroup's CPU quota.
fn throttling(t: &Totals) -> Option<String> {
    (t.nr_throttled > 0.0).then(|| {
        // Sums of the rounds' whole counts and microseconds.
        let total = crate::env::Throttling {
            nr_throttled: t.nr_throttled as u64,
            throttled_usec: t.throttled_usec as u64,
        };
        format!(
            "the cgroup's CPU quota throttled these rounds {}: they stalled until the next period",
            total.words()
        )
    })
}

/// CPU time (both sides, user + system) against the wall time of the same
/// operation, from the `cpu_ns` series beside the series `wall` with the
/// labels `with`: "a futex round trip between two CPUs is 40% idle [23%,
/// 53%]: a mean CPU time of 32.4 µs per call against a mean wall time of
/// 53.7 µs over the same calls" (never the part in the kernel: see
/// [`crate::measure::sampler::push_cpu`]).
///
/// The CPU time is read over windows of calls, so each of its samples is
/// a mean per call: it is held against the mean wall time of the same
/// calls, never a median (issue 39). Each round gives the ratio of its
/// two means; a share is quoted only where the interval of the ratio
/// (Student's t over the rounds' ratios, in logs) excludes 1, and "not
/// told apart from a CPU kept busy throughout" where it holds 1, never
/// "busy throughout". The two are "not compared" where the rounds do not
/// pair (fewer than two, or not as many of one as of the other) or the
/// ratio's interval bounds nothing. None when either series is missing or
/// unsettled.
pub fn cpu_of_wall(
    r: &ExperimentResult,
    what: &str,
    wall: &MetricSpec,
    with: &[(&str, &str)],
) -> Option<String> {
    cpu_against_wall(r, what, wall, with, false)
}

/// [`cpu_of_wall`] for a series whose tasks are all pinned to one CPU:
/// they cannot keep more than that CPU busy, so a mean CPU time above the
/// mean wall time is never read as "more than one CPU busy": the sentence
/// says the run does not record what the excess is, naming no cause
/// (issue 39).
pub fn cpu_of_wall_pinned(
    r: &ExperimentResult,
    what: &str,
    wall: &MetricSpec,
    with: &[(&str, &str)],
) -> Option<String> {
    cpu_against_wall(r, what, wall, with, true)
}

/// Mean CPU time over mean wall time of the same calls, with its 95%
/// interval from the rounds: `(ratio, lo, hi)`. Each round's ratio is of
/// its two means; the interval is Student's t over their logs, about the
/// ratio of the whole series' means. None where the rounds do not pair
/// (fewer than two, not as many of each) or a mean is not positive.
pub fn cpu_wall_ratio(
    cpu: &crate::results::Metric,
    wall: &crate::results::Metric,
) -> Option<(f64, f64, f64)> {
    let (c, w) = (cpu.round_samples(), wall.round_samples());
    if c.len() < 2 || c.len() != w.len() {
        return None;
    }
    let mean = |x: &[f64]| (!x.is_empty()).then(|| x.iter().sum::<f64>() / x.len() as f64);
    let logs: Vec<f64> = c
        .iter()
        .zip(&w)
        .map(|(c, w)| {
            let (c, w) = (mean(c)?, mean(w)?);
            (c > 0.0 && w > 0.0 && c.is_finite() && w.is_finite()).then(|| (c / w).ln())
        })
        .collect::<Option<_>>()?;
    let ratio = cpu.summary.mean / wall.summary.mean;
    if !(ratio.is_finite() && ratio > 0.0) {
        return None;
    }
    let k = logs.len() as f64;
    let m = logs.iter().sum::<f64>() / k;
    let var = logs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (k - 1.0);
    let half = crate::stats::rounds::t975(logs.len() - 1) * (var / k).sqrt();
    Some((ratio, ratio * (-half).exp(), ratio * half.exp()))
}

fn cpu_against_wall(
    r: &ExperimentResult,
    what: &str,
    wall: &MetricSpec,
    with: &[(&str, &str)],
    pinned: bool,
) -> Option<String> {
    use crate::stats::compare_text::{fmt_ratio, UNUSABLE_SPAN};
    let w = r.find(wall, with).filter(|m| !m.summary.unstable)?;
    let c = r
        .find(&crate::measure::sampler::CPU_NS, with)
        .filter(|m| !m.summary.unstable)?;
    let ns = crate::units::fmt_ns;
    let means = format!(
        "a mean CPU time of {} per call against a mean wall time of {} over the same calls",
        ns(c.summary.mean),
        ns(w.summary.mean)
    );
    let Some((ratio, lo, hi)) = cpu_wall_ratio(c, w) else {
        return Some(format!(
            "{what}: {means}: not compared (the rounds of the two do not pair, so the ratio has no interval)"
        ));
    };
    let of_wall = format!(
        "CPU time {} {} the wall time",
        fmt_ratio(ratio),
        crate::units::fmt_interval(&fmt_ratio(lo), &fmt_ratio(hi))
    );
    Some(if hi / lo > UNUSABLE_SPAN {
        // An interval that bounds nothing tells nothing apart, not even
        // from a CPU kept busy (issue 39: session 18's unpinned echo).
        format!(
            "{what}: {means}: not compared (the rounds' ratios of the two disagree too much to bound it)"
        )
    } else if lo <= 1.0 && hi >= 1.0 {
        format!("{what}: {means} ({of_wall}), not told apart from a CPU kept busy throughout")
    } else if hi < 1.0 {
        // What the tasks did off the CPU (blocked, or runnable behind
        // other work) is not recorded: no cause is named (issue 39).
        format!(
            "{what} is {} idle {}: {means} (both sides); the rest is time off the CPU, which this figure does not split",
            pct(1.0 - ratio),
            crate::units::fmt_interval(&pct(1.0 - hi), &pct(1.0 - lo))
        )
    } else if pinned {
        // Tasks pinned to one CPU cannot use more than the wall time, and
        // nothing this run records says what the rest is: it is said so,
        // never given a cause (issue 39).
        format!(
            "{what}: {means} ({of_wall}); tasks pinned to one CPU cannot use more than the wall time, \
             and what the excess is this run does not record (the CPU time sums every thread of the worker and its reaped children, \
             RUSAGE_SELF + RUSAGE_CHILDREN, over each window of calls; the wall time is each call's own)"
        )
    } else {
        format!(
            "{what} keeps more than one CPU busy: {means} ({:.2} CPUs' worth [{:.2}, {:.2}])",
            ratio, lo, hi
        )
    })
}

fn pct(share: f64) -> String {
    let p = share * 100.0;
    if p >= 10.0 {
        format!("{p:.0}%")
    } else {
        format!("{p:.1}%")
    }
}

/// One figure of a round, from its canaries at the round's start and end.
type ReadOf = fn(&Canary, &Canary) -> Option<f64>;

/// A record read at a round's start and end: their mean, or the one there
/// is. The memory canary is not read so: it is the geometric mean of the
/// two ([`Canary::fresh_page_of_round`], as `compare` reads it).
fn start_and_end(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some((a + b) / 2.0),
        (a, b) => a.or(b),
    }
}

/// A record of each round that may set two modes apart: how to read it
/// from the round's canaries (start and end), whether two medians are far enough apart to name, the
/// words (the low mode's median, the high mode's, the figure's unit, the
/// slow mode, whether the series' work touches memory: [`Cause`]), and the
/// bare fact, for a split chance could give (what the record is, its two
/// medians in words).
struct Covariate {
    read: ReadOf,
    apart: fn(f64, f64) -> bool,
    words: fn(f64, f64, &dyn Fn(f64) -> String, Cause) -> String,
    fact: fn(f64, f64, &dyn Fn(f64) -> String) -> String,
}

/// What a memory record may name as a cause of two modes: which mode is
/// the slow one ("high" for a time, "low" for a rate), and whether the
/// series' timed work touches fresh memory or forks a heap
/// (`Experiment::memory_work`). Where it does not (a pipe ping-pong), the
/// memory the rounds found is a fact beside the modes, never their cause.
#[derive(Clone, Copy)]
pub struct Cause {
    pub slow: &'static str,
    pub memory_work: bool,
}

impl Cause {
    /// The words after a memory record's fact: its cause when the slow
    /// mode's rounds had the worse memory and the work touches memory;
    /// else that no cause is named, and why.
    fn memory(self, fact: String, worse_mode: &str, cause: &str) -> String {
        if worse_mode != self.slow {
            format!("{fact}, the mode that is not the slow one: no cause is named")
        } else if !self.memory_work {
            format!("{fact}; this experiment's timed work neither touches fresh memory nor forks a heap: no cause is named")
        } else {
            format!("{fact}: {cause}")
        }
    }
}

/// Two costs at least 20% apart.
fn ratio_apart(a: f64, b: f64) -> bool {
    (a / b).ln().abs() >= 1.2f64.ln()
}

/// Two shares at least 20 points apart.
fn share_apart(a: f64, b: f64) -> bool {
    (a - b).abs() >= 0.2
}

/// Which mode's median is the larger, given the low mode's (`lo`) and the
/// high mode's (`hi`): "high" or "low".
fn mode_of(lo: f64, hi: f64) -> &'static str {
    if hi >= lo {
        "high"
    } else {
        "low"
    }
}

/// What may set two modes apart, in the order they are tried: where the
/// rounds ran, the host's speed, the host's memory, the guest's free
/// memory.
const COVARIATES: [Covariate; 4] = [
    Covariate {
        read: |s, e| start_and_end(s.coherence_ns, e.coherence_ns),
        apart: ratio_apart,
        words: |lo, hi, unit, _| {
            format!(
                "the coherence floor between the CPUs read {} in the low mode's rounds and {} in the high mode's: where the rounds ran, or the host's state, sets them apart",
                unit(lo),
                unit(hi)
            )
        },
        fact: |lo, hi, unit| {
            format!(
                "the coherence floor between the CPUs read {} in the low mode's rounds and {} in the high mode's",
                unit(lo),
                unit(hi)
            )
        },
    },
    Covariate {
        read: |s, e| {
            let read = |c: &Canary| Some(c.syscall_ns).filter(|x| *x > 0.0);
            start_and_end(read(s), read(e))
        },
        apart: ratio_apart,
        words: |lo, hi, unit, _| {
            format!(
                "the canary (a bare system call) read {} in the low mode's rounds and {} in the high mode's: where the rounds ran, or the host's state, sets them apart",
                unit(lo),
                unit(hi)
            )
        },
        fact: |lo, hi, unit| {
            format!(
                "the canary (a bare system call) read {} in the low mode's rounds and {} in the high mode's",
                unit(lo),
                unit(hi)
            )
        },
    },
    Covariate {
        read: Canary::fresh_page_of_round,
        apart: ratio_apart,
        words: |lo, hi, unit, cause| {
            let fact = format!(
                "the rounds of the {} mode found fresh memory dearer to touch ({} against {} per 4 KiB page)",
                mode_of(lo, hi),
                unit(lo.max(hi)),
                unit(lo.min(hi))
            );
            // Dearer memory explains the slow mode only.
            cause.memory(
                fact,
                mode_of(lo, hi),
                "the host's memory state (memory the guest gave back to the host, with free page reporting, costs a fault on the host again on every page touched)",
            )
        },
        fact: |lo, hi, unit| {
            format!(
                "a fresh 4 KiB page cost {} to touch in the low mode's rounds and {} in the high mode's",
                unit(lo),
                unit(hi)
            )
        },
    },
    Covariate {
        read: |s, e| start_and_end(s.fresh_in_order, e.fresh_in_order),
        apart: share_apart,
        words: |lo, hi, _, cause| {
            let fact = format!(
                "the rounds of the {} mode found free memory more scattered ({} of fresh pages in physical order against {})",
                // the mode whose rounds read the smaller share: the larger
                // of the shares turned round
                mode_of(hi, lo),
                pct(lo.min(hi)),
                pct(lo.max(hi))
            );
            // Scattered memory explains the slow mode only.
            cause.memory(
                fact,
                mode_of(hi, lo),
                "the guest's free memory (a heap built of scattered pages makes fork and exit walk scattered page records)",
            )
        },
        fact: |lo, hi, _| {
            format!(
                "{} of fresh pages came in physical order in the low mode's rounds and {} in the high mode's",
                pct(lo),
                pct(hi)
            )
        },
    },
];

/// A clean split is named as what sets two modes apart only when chance
/// alone gives one this clean less often than this (the exact permutation
/// p of `stats::split`, times the records tried).
pub const SPLIT_ALPHA: f64 = 0.05;

/// What sets the two modes of a flagged series apart, when a record of
/// each round does: the coherence floor between the two CPUs (a VM's vCPUs
/// sharing a cache or not), the canary (the host in a faster or slower
/// state), the first touch of fresh memory (the host's memory: free page
/// reporting) or how much of it came in physical order (the guest's free
/// memory). `low_mode` says which rounds fell in the low mode; `rounds` is
/// each round's record, in the same order; `unit_of` writes a time. A record
/// is a candidate only when it splits the rounds exactly as the modes do,
/// and its two medians are at least 20% apart (20 points for a share). A
/// clean split of few rounds is often chance (4 rounds against 2: 2 of
/// the 15 ways to split them), so it is named only when chance alone gives
/// one this clean with p below [`SPLIT_ALPHA`] (exact: `stats::split`,
/// taken once for each record read, as each was a chance to find one);
/// otherwise the words give the fact and its p, say it could be chance and
/// name no cause. A memory record names a cause only when it is the slow
/// mode's rounds (the high mode's when `high_is_slow`, as for a time; the
/// low mode's for a rate) that had the dearer or more scattered memory,
/// and only in an experiment whose timed work touches memory
/// (`memory_work`): else the fact alone.
pub fn mode_covariate(
    low_mode: &[bool],
    rounds: &[&RoundTelemetry],
    unit_of: impl Fn(f64) -> String,
    high_is_slow: bool,
    memory_work: bool,
) -> Option<String> {
    let cause = Cause {
        slow: if high_is_slow { "high" } else { "low" },
        memory_work,
    };
    if low_mode.len() != rounds.len() || low_mode.len() < 4 {
        return None;
    }
    let mut tried = 0usize;
    let mut clean: Vec<(f64, &Covariate, f64, f64)> = Vec::new();
    for cov in &COVARIATES {
        let v: Option<Vec<f64>> = rounds
            .iter()
            .map(|t| (cov.read)(&t.canary_start, &t.canary_end))
            .collect();
        let Some(v) = v else { continue };
        let of = |low: bool| -> Vec<f64> {
            v.iter()
                .zip(low_mode)
                .filter(|(_, l)| **l == low)
                .map(|(x, _)| *x)
                .collect()
        };
        let (lo, hi) = (of(true), of(false));
        let (Some(ml), Some(mh)) = (crate::stats::median(&lo), crate::stats::median(&hi)) else {
            continue;
        };
        tried += 1;
        let Some(p) = crate::stats::split::clean_split_p(&v, low_mode) else {
            continue;
        };
        if p < 1.0 && (cov.apart)(ml, mh) {
            clean.push((p, cov, ml, mh));
        }
    }
    let chance = |p: f64| Chance {
        p,
        rounds: low_mode.len(),
        low: low_mode.iter().filter(|l| **l).count(),
        tried,
    };
    if let Some(&(p, cov, ml, mh)) = clean.iter().find(|c| chance(c.0).p_tried() < SPLIT_ALPHA) {
        return Some(format!(
            "{}; {}",
            (cov.words)(ml, mh, &unit_of, cause),
            chance(p).words()
        ));
    }
    clean.first().map(|&(p, cov, ml, mh)| {
        format!(
            "{}, but {}: it could be chance, and no cause is named",
            (cov.fact)(ml, mh, &unit_of),
            chance(p).words()
        )
    })
}

/// How often chance alone splits the rounds this cleanly: the exact p of
/// one record (`stats::split::clean_split_p`), the rounds and the low
/// mode's share of them, and the records tried.
struct Chance {
    p: f64,
    rounds: usize,
    low: usize,
    tried: usize,
}

impl Chance {
    /// The p taken once for each record tried (Bonferroni), at most 1.
    fn p_tried(&self) -> f64 {
        (self.p * self.tried.max(1) as f64).min(1.0)
    }

    /// "chance alone splits 6 rounds 4 and 2 this cleanly with p = 0.53
    /// (2 of the 15 ways to split them, for each of the 4 records tried)".
    fn words(&self) -> String {
        let ways = crate::stats::split::choose(self.rounds, self.low);
        let p = self.p_tried();
        let p = if p < 0.001 {
            "p < 0.001".to_string()
        } else {
            format!("p = {}", fmt_p(p))
        };
        let tried = match self.tried {
            0 | 1 => "the one record tried".to_string(),
            n => format!("each of the {n} records tried"),
        };
        format!(
            "chance alone splits {} rounds {} and {} this cleanly with {p} ({} of the {} ways to split them, for {tried})",
            self.rounds,
            self.low,
            self.rounds - self.low,
            (self.p * ways).round(),
            crate::units::fmt_count(ways),
        )
    }
}

/// A p-value in two significant figures: 0.53, 0.029, 0.0041.
fn fmt_p(p: f64) -> String {
    let digits = (-p.log10().floor()) as usize + 1;
    format!("{p:.digits$}")
}

#[cfg(test)]
#[path = "explain_tests.rs"]
mod tests;
