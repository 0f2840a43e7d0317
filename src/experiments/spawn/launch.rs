//! spawn.launch: Bendersky's launch benchmark replayed by its own protocol
//! (seed 000, `launch-benchmark.c`): with a 2 MB heap touched, create a
//! process or a thread, read the clock as soon as the parent is back, sleep
//! 500 µs, then reap or join, timed apart. The seed reports the mean launch
//! time over 10,000 launches (35 µs for fork, 5 µs for a thread) and prints
//! the minimum too; this experiment gives both, unpinned as the seed ran.

use super::engine::{
    push_placement_share, Launcher, CHILD_ON_PARENT_CPU, CHILD_START_NS, PARENT_RETURN_NS, REAP_NS,
};
use super::table;
use crate::experiments::prelude::*;
use crate::measure::sampler::{events_cpu, interleave, push_cpu, Budget, CPU_NS, PASSES};
use crate::metric::key::METHOD;
use crate::sys;
use std::time::Duration;

/// The seed's pause between launch and reap.
const PAUSE: Duration = Duration::from_micros(500);

/// The seed's heap.
const HEAP_BYTES: usize = 2 << 20;

const METHODS: &[&str] = &[table::FORK.name(), table::PTHREAD_CREATE.name()];

pub static EXPERIMENT: Experiment = Experiment {
    name: "spawn.launch",
    metrics: &[
        &PARENT_RETURN_NS,
        &CHILD_START_NS,
        &REAP_NS,
        &CPU_NS,
        &CHILD_ON_PARENT_CPU,
    ],
    summary: "Bendersky's launch benchmark by its own protocol: 2 MiB heap, launch, sleep 500 µs, reap; the mean and the minimum of the parent's return",
    reproduces: "Bendersky's launch benchmark: fork 35 µs vs a thread 5 µs (mean of 10,000 launches, 2 MB heap)",
    seeds: &[
        SeedFigure::of(
            &PARENT_RETURN_NS,
            (35_000.0, 35_000.0),
            SeedStat::Mean,
            SEED_CLONE,
            BENDERSKY_HW,
            "parent's return from fork(), mean of 10,000 launches, 2 MB heap, 500 µs sleep before each reap",
        )
        .labels(&[(METHOD, table::FORK.name())]),
        SeedFigure::of(
            &PARENT_RETURN_NS,
            (5_000.0, 5_000.0),
            SeedStat::Mean,
            SEED_CLONE,
            BENDERSKY_HW,
            "parent's return from pthread_create(), mean of 10,000 launches, 2 MB heap, 500 µs sleep before each join",
        )
        .labels(&[(METHOD, table::PTHREAD_CREATE.name())]),
    ],
    measure,
    analyze,
    memory_work: true,
    attributed: true,
    starts_processes: true,
    ..Experiment::DEFAULT
};

fn measure(job: &Job) -> anyhow::Result<WorkerOutput> {
    let _heap = sys::Heap::touched(HEAP_BYTES, sys::Thp::Default)?;
    let l = Launcher::new(job.scratch.as_deref(), job.timer_overhead_ns)?;
    let mut out = WorkerOutput::default();
    let share = Budget::from_job(job).split(PASSES);
    let methods: Vec<&'static table::Method> = METHODS
        .iter()
        .filter_map(|name| find(table::METHODS, name))
        .collect();
    let per_method = interleave(&methods, PASSES, job.seed, |method| {
        let _why = method.why_scope(&labels(&[(METHOD, method.name())]));
        events_cpu(&share, 5, || l.launch_paused(method, Some(PAUSE)))
            .map_err(|e| anyhow::anyhow!("{}: {e}", method.name()))
    })?;
    for (method, passes) in methods.iter().zip(per_method) {
        let (runs, cpu): (Vec<_>, Vec<_>) = passes.into_iter().unzip();
        let runs = runs.concat();
        let base = labels(&[(METHOD, method.name())]);
        push_cpu(&mut out, &base, &cpu);
        let col = |f: &dyn Fn(&(super::engine::Launch, f64)) -> f64| {
            runs.iter().map(f).collect::<Vec<f64>>()
        };
        out.push(
            &PARENT_RETURN_NS,
            base.clone(),
            col(&|r| r.0.parent_return_ns),
        );
        out.push(&CHILD_START_NS, base.clone(), col(&|r| r.0.child_start_ns));
        out.push(&REAP_NS, base.clone(), col(&|r| r.1));
        let launches: Vec<_> = runs.iter().map(|r| r.0).collect();
        push_placement_share(&mut out, &base, &launches);
    }
    Ok(out)
}

/// The findings; under `run --why`, where each launch's sampled CPU time
/// went, a note each (the pause is asleep, so unsampled).
fn analyze(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::findings(findings(r));
    a.notes.extend(super::launch_why::paths(r, None));
    a
}

fn findings(r: &ExperimentResult) -> Vec<String> {
    let mut out = Vec::new();
    // Fixed subjects in every run (issue 39 item 9): the seed's comparison
    // of fork against a thread, and the mean against the median for both,
    // each quoted with its mark; a figure that did not settle tells nothing
    // apart.
    let ret = |method: &str| {
        r.find(&PARENT_RETURN_NS, &[(METHOD, method)])
            .map(|m| &m.summary)
    };
    let (Some(f), Some(t)) = (ret(table::FORK.name()), ret(table::PTHREAD_CREATE.name())) else {
        return out;
    };
    let mean = |s: &Summary| format!("{}{}", fmt_ns(s.mean), s.spaced_mark());
    let verdict = if f.unstable || t.unstable {
        "fork against a thread not told apart here (a figure did not settle)".to_string()
    } else if apart(f, t) && t.mean > 0.0 {
        format!("fork against a thread {}", fmt_ratio(f.mean / t.mean))
    } else {
        "fork against a thread not told apart here".to_string()
    };
    out.push(format!(
        "by the seed's protocol (2 MiB heap, launch, sleep 500 µs, reap): the parent is back from fork in {} and from pthread_create in {} on average (mean), {verdict} ({}: 35 vs 5 µs, 7x); the fastest launches took {} and {}",
        mean(f),
        mean(t),
        cite_short(SEED_CLONE),
        fmt_ns(f.min),
        fmt_ns(t.min)
    ));
    let against = |s: &Summary| {
        // No reason rests on a figure that did not settle.
        let how = if s.unstable {
            "not told apart: a figure did not settle"
        } else if s.mean > 1.5 * s.median {
            "well above: a few slow launches pull the seed's statistic up"
        } else {
            "within 1.5x"
        };
        format!(
            "{} against {}{} ({how})",
            fmt_ns(s.mean),
            fmt_ns(s.median),
            s.spaced_mark()
        )
    };
    out.push(format!(
        "the seed's mean against the median: fork {}, a thread {}",
        against(f),
        against(t)
    ));
    out
}

#[cfg(test)]
#[path = "launch_tests.rs"]
mod tests;
