//! Parallel work with fork: reproduces seed 003 ("Linux Fu: An Odd Use For
//! Fork()"): the average of a 55,256,000-double array, serial (458 ms) vs
//! split across two processes (395 ms, 1.16x; about 150 ms saved at
//! 155,256,000), and the line-printer story of fanning out I/O-bound reports.
//!
//! Past the seed: the children send their partial sums back through a pipe
//! (the seed skipped it), threads and a work-stealing pool run the same loop
//! on the same array, every variant's average is checked against serial, the
//! fill is timed apart from the average, Amdahl's law bounds what the whole
//! program could gain, and `parallel.forktime` shows where a forked child's
//! time goes (the fork, its first pass over inherited pages vs a second pass,
//! the reap), on 4 KiB and on huge pages.
//!
//! This module holds what the group's experiments share: the array-size and
//! worker-count parameters and how they are planned, and the watch on other
//! programs' CPU time.

pub mod array;
pub mod average;
pub mod fanout;
pub mod forktime;
pub mod program;
pub mod variants;

#[cfg(test)]
mod tests;

use crate::experiments::prelude::*;
use crate::sys::procfs;
use crate::sys::{self, forkwork as par};

/// The average phase alone, pushed by parallel.average and (as a phase of
/// the whole program) by parallel.program.
pub const AVERAGE_NS: MetricSpec = MetricSpec::new(
    "average_ns",
    Unit::Ns,
    Better::Lower,
    Kind::Other,
    "averaging the seed's array by one variant with W workers, the array already filled",
);
/// Serial over parallel: parallel.average, parallel.program, parallel.fanout.
pub const SPEEDUP: MetricSpec = MetricSpec::new(
    "speedup",
    Unit::Ratio,
    Better::Higher,
    Kind::Other,
    "the serial median over each repetition's time of a parallel variant",
);
/// The CPUs the worker may run on.
pub const CPUS: MetricSpec = MetricSpec::new(
    "cpus",
    Unit::Count,
    Better::Neither,
    Kind::Other,
    "the CPUs the worker was allowed to run on",
);
/// The cgroup's CPU quota, where it has one: what the CPUs could give.
pub const CPU_QUOTA: MetricSpec = MetricSpec::new(
    "cpu_quota",
    Unit::Ratio,
    Better::Neither,
    Kind::Other,
    "CPUs' worth of time the worker's cgroup's CPU quota allowed (cpu.max or cpu.cfs_quota_us), where it has one",
);
/// CPUs' worth of time other programs used while a point was measured.
pub const OTHERS_CPUS: MetricSpec = MetricSpec::new(
    "others_cpus",
    Unit::Ratio,
    Better::Neither,
    Kind::Other,
    "CPUs' worth of time other programs used while the point was measured (/proc/stat less our own)",
)
.signed();

/// The most workers anyone may ask for, whatever the machine.
const MAX_WORKERS: u64 = 256;

/// The CPUs this process may run on.
/// A speedup as the Summary quotes it (`quoted`), with the words a figure
/// not above 1 beyond its interval needs (docs/REPORT.md): "slower than
/// serially" when its interval lies wholly below 1x, "not told apart from
/// serial" when it holds 1x. A flagged figure, or one its interval cannot
/// bound, is quoted as it is: no conclusion rests on it.
fn speedup_quoted(s: &Summary) -> String {
    let text = quoted(s, Unit::Ratio);
    if s.unstable || !crate::stats::compare_text::summary_bounds(s, Unit::Ratio) {
        return text;
    }
    if s.ci95_hi < 1.0 {
        format!("{text} (slower than serially)")
    } else if s.ci95_lo <= 1.0 {
        format!("{text} (not told apart from serial)")
    } else {
        text
    }
}

fn cpus(env: &Env) -> usize {
    if env.cpus_allowed.is_empty() {
        env.cpus_online.max(1)
    } else {
        env.cpus_allowed.len()
    }
}

/// Memory a point must leave free beyond its array.
fn margin_bytes(env: &Env) -> u64 {
    (512u64 << 20).max(env.mem_total_bytes / 10)
}

/// Keeps the sizes `n` whose arrays fit in the memory available now. A size
/// the user asked for that does not fit is an error; a default one is
/// dropped with a note.
fn fitting_sizes(
    ctx: &PlanCtx,
    param: &Param<Vec<u64>>,
    notes: &mut Vec<String>,
) -> Result<Vec<u64>, String> {
    let name = param.name();
    let available_bytes = crate::env::mem_available_bytes().unwrap_or(ctx.env.mem_available_bytes);
    let limit_bytes = available_bytes.saturating_sub(margin_bytes(ctx.env));
    let user_set = ctx.set_by_user(param);
    let mut out = Vec::new();
    for n in ctx.params.get(param) {
        let bytes = n.saturating_mul(8);
        if bytes > limit_bytes {
            let msg = format!(
                "{name}={n} needs {} for its array, but only {} is available and {} must stay free \
                 (the largest {name} that fits here is {})",
                fmt_size(bytes),
                fmt_size(available_bytes),
                fmt_size(margin_bytes(ctx.env)),
                limit_bytes / 8
            );
            if user_set {
                return Err(msg);
            }
            notes.push(format!("{msg}; that point was dropped"));
            continue;
        }
        out.push(n);
    }
    if out.is_empty() && !user_set {
        notes.push("no array size fits in the memory available: nothing to measure".into());
    }
    Ok(out)
}

/// Whether the user chose the worker counts: set with `-p`, and not to 0,
/// which means the default counts (as `tasklab list` shows it).
fn workers_chosen(ctx: &PlanCtx, param: &Param<Vec<u64>>) -> bool {
    ctx.set_by_user(param) && ctx.params.get(param) != [0]
}

/// The worker counts: the user's list (each 1..=4×CPUs), or by default 2 up
/// to the CPU count and one more, to show oversubscription. `0` alone is
/// the default; in a list with other counts it is refused (it is no count).
fn worker_counts(ctx: &PlanCtx, param: &Param<Vec<u64>>) -> Result<Vec<usize>, String> {
    let name = param.name();
    let c = cpus(ctx.env);
    let cap = (4 * c as u64).clamp(4, MAX_WORKERS);
    let asked = ctx.params.get(param);
    if !workers_chosen(ctx, param) || asked.is_empty() {
        return Ok((2..=c.max(2) + 1).collect());
    }
    let mut out = Vec::new();
    for w in asked {
        if w == 0 {
            return Err(format!(
                "{name}=0 means the default worker counts and stands alone: give 0, or counts from 1 to {cap} (four times the {c} CPUs here)"
            ));
        }
        if w > cap {
            return Err(format!(
                "{name}={w} is absurd for {c} CPUs: at most {cap} (four times the CPU count) is allowed"
            ));
        }
        if !out.contains(&(w as usize)) {
            out.push(w as usize);
        }
    }
    Ok(out)
}

/// The array sizes, shared by the average and the whole program.
const N_PARAM: Param<Vec<u64>> = Param::numbers(ParamSpec {
    name: "n",
    help: "array sizes (doubles); each must fit in the memory available",
    kind: ParamKind::CountList {
        min: 1,
        max: 1 << 40,
    },
    quick: "55256000",
    thorough: "55256000,155256000",
});

const WORKERS_HELP: &str =
    "worker counts W, each 1 to 4×CPUs; 0 (alone), the default, means 2 up to the CPU count plus one";

fn notes_for_cpus(out: &mut WorkerOutput, workers: &[usize]) {
    let allowed = sys::allowed_cpus().map(|c| c.len()).unwrap_or(0);
    if let Some(w) = workers.iter().find(|&&w| allowed > 0 && w > allowed) {
        out.notes.push(format!(
            "{w} workers share {allowed} CPU(s): the workers beyond {allowed} show oversubscription, not more parallelism"
        ));
    }
}

/// Records the CPUs the worker may run on (`cpus`), which the findings
/// read, and the cgroup's CPU quota (`cpu_quota`) where it has one.
fn reading_cpus(out: &mut WorkerOutput) {
    out.reading(
        &CPUS,
        Labels::new(),
        sys::allowed_cpus().map(|c| c.len()).unwrap_or(0) as f64,
    );
    if let Some(q) = crate::env::cpu_quota_now() {
        out.reading(&CPU_QUOTA, Labels::new(), q);
    }
}

/// " under a CPU quota of 1.50 CPUs" when the worker's cgroup allowed less
/// than its `cpus`: why a speedup stops short of them. Empty otherwise.
pub(super) fn quota_words(r: &ExperimentResult, cpus: f64) -> String {
    match r.reading(&CPU_QUOTA, &[]) {
        Some(q) if q < cpus => format!(" under a CPU quota of {q:.2} CPUs"),
        _ => String::new(),
    }
}

/// Column `k` of per-rep rows (one row of readings per rep of a variant,
/// as `sampler::interleave` gives them back): that reading, rep by rep.
fn column<const N: usize>(reps: &[[f64; N]], k: usize) -> Vec<f64> {
    reps.iter().map(|r| r[k]).collect()
}

/// Speedup samples: the serial median over each repetition's time, so the
/// median speedup is exactly median(serial) / median(variant), and a
/// disturbed serial repetition does not skew one variant's figure.
fn speedups(serial_ns: &[f64], variant_ns: &[f64]) -> Vec<f64> {
    let serial_median_ns = crate::stats::median(serial_ns).unwrap_or(0.0);
    variant_ns
        .iter()
        .map(|x| serial_median_ns / x.max(1.0))
        .collect()
}

/// Watches how much CPU time other programs took while we measured: busy
/// time of the whole machine (/proc/stat, steal included) minus our own
/// threads' and children's. Parallel speedups mean little when another
/// program held a CPU, so the figure goes into the results and a note.
struct Contention {
    busy_ns: u64,
    ours_ns: u64,
    wall_ns: u64,
}

impl Contention {
    fn start() -> Contention {
        Contention {
            busy_ns: procfs::cpu_busy_ns().unwrap_or(0),
            ours_ns: par::cpu_ns(par::CpuOf::ProcessAndChildren).unwrap_or(0),
            wall_ns: sys::monotonic_ns(),
        }
    }

    /// CPUs' worth of time others used since start(), as a reading (the
    /// run keeps the median over the point's rounds; [`contention_notes`]
    /// says it where it matters).
    fn finish(self, out: &mut WorkerOutput, l: Labels) {
        let (Some(busy_ns), Ok(ours_ns)) = (
            procfs::cpu_busy_ns(),
            par::cpu_ns(par::CpuOf::ProcessAndChildren),
        ) else {
            return;
        };
        let wall_ns = (sys::monotonic_ns() - self.wall_ns).max(1) as f64;
        // As computed, never clamped (issue 39): /proc/stat's ticks against
        // our own CPU time in ns may leave a small negative difference.
        let others = (busy_ns.saturating_sub(self.busy_ns) as f64
            - ours_ns.saturating_sub(self.ours_ns) as f64)
            / wall_ns;
        out.reading(&OTHERS_CPUS, l, others);
    }
}

/// /proc/stat counts in 10 ms ticks and kernel threads always run a
/// little: a quarter of a CPU is where others start to matter.
const OTHERS_MATTER: f64 = 0.25;

/// A note per point where other programs held more than a quarter of a CPU
/// while it was measured, from its reading: the median over the point's
/// rounds, once per point (a note per round gave one subject three
/// different figures). `unlabelled` names a point with no labels. (A
/// results file written before this also carries its workers' notes, one a
/// round, as recorded.)
pub(super) fn contention_notes(r: &ExperimentResult, unlabelled: &str) -> Vec<String> {
    r.readings
        .iter()
        .filter(|x| x.name == OTHERS_CPUS.name && x.value > OTHERS_MATTER)
        .map(|x| {
            let what = if x.labels.is_empty() {
                unlabelled.to_string()
            } else {
                crate::results::case_of(&x.labels)
            };
            format!(
                "{what}: other programs kept {:.2} CPUs busy on average (the median over its rounds) while this was \
                 measured, so parallel speedups here understate an idle machine's",
                x.value
            )
        })
        .collect()
}
