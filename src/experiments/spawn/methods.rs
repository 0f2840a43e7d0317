//! spawn.methods: every creation method, warm. Reproduces Bendersky's launch
//! benchmark (seed 000: fork 35 µs vs a thread 5 µs, averaged over 10,000
//! launches) and Sysel's Table 1 (seed 004) in the steady state.

use super::engine::{push_launches, Launcher};
use super::table::{self, CHOICES};
use crate::experiments::prelude::*;
use crate::measure::sampler::{events, interleave, Budget, PASSES};

pub static EXPERIMENT: Experiment = Experiment {
    name: "spawn.methods",
    better: &[("parent_return_ns", Better::Lower), ("child_start_ns", Better::Lower), ("lifecycle_ns", Better::Lower)],
    summary: "every creation method, warm (steady state): to the parent's return, to the child's start, create+reap",
    reproduces: "Bendersky's launch benchmark and Sysel Table 1, steady state",
    params: &[ParamSpec {
        name: "methods",
        help: "creation methods to measure",
        kind: ParamKind::Names(&CHOICES),
        quick: "all",
        thorough: "all",
    }],
    seeds: &[
        SeedFigure {
            metric: "lifecycle_ns",
            labels: &[("method", "fork_exec_static")],
            lo: 700_000.0,
            hi: 700_000.0,
            unit: Unit::Ns,
            source: SEED_SYSEL,
            hardware: SYSEL_HW,
            method: "fork+exec of HelloWorld, single call (\"about 700 and more\")",
        },
        SeedFigure {
            metric: "lifecycle_ns",
            labels: &[("method", "pthread_create")],
            lo: 5_000.0,
            hi: 5_000.0,
            unit: Unit::Ns,
            source: SEED_CLONE,
            hardware: BENDERSKY_HW,
            method: "thread launch averaged over 10,000 launches (2 MB heap)",
        },
        SeedFigure {
            metric: "lifecycle_ns",
            labels: &[("method", "fork")],
            lo: 35_000.0,
            hi: 35_000.0,
            unit: Unit::Ns,
            source: SEED_CLONE,
            hardware: BENDERSKY_HW,
            method: "fork launch averaged over 10,000 launches (2 MB heap)",
        },
    ],
    measure,
    analyze,
    ..Experiment::DEFAULT
};

fn measure(job: &Job) -> anyhow::Result<WorkerOutput> {
    let l = Launcher::new(job.scratch.as_deref(), job.timer_overhead_ns)?;
    let mut out = WorkerOutput::default();
    let share = Budget::from_job(job).split(PASSES);
    let mut runnable = Vec::new();
    for name in job.params.names("methods") {
        let method =
            table::method(&name).ok_or_else(|| anyhow::anyhow!("unknown method {name}"))?;
        match l.unsupported(method) {
            Some(why) => out.notes.push(why),
            None => runnable.push((name, method)),
        }
    }
    // The methods take turns, a share of the budget at a time.
    let per_method = interleave(&runnable, PASSES, job.seed, |(name, method)| {
        events(&share, 5, || l.launch(method)).map_err(|e| anyhow::anyhow!("{name}: {e}"))
    })?;
    for ((name, _), passes) in runnable.iter().zip(per_method) {
        push_launches(
            &mut out,
            &labels(&[("method", name)]),
            &passes.concat(),
            false,
        );
    }
    Ok(out)
}

fn analyze(r: &ExperimentResult) -> Analysis {
    Analysis::findings(findings(r))
}

fn findings(r: &ExperimentResult) -> Vec<String> {
    let mut out = Vec::new();
    let lifecycle_ns = |method: &str| r.median("lifecycle_ns", &[("method", method)]);
    if let (Some(fork_ns), Some(thread_ns)) = (lifecycle_ns("fork"), lifecycle_ns("pthread_create"))
    {
        out.push(format!(
            "warm, a fork+reap costs {} and a pthread create+join {}: fork is {:.1}x a thread (seed 000: 35 vs 5 µs, 7x)",
            fmt_ns(fork_ns),
            fmt_ns(thread_ns),
            fork_ns / thread_ns.max(1.0)
        ));
    }
    if let (Some(fork_ns), Some(vfork_ns), Some(spawn_ns)) = (
        lifecycle_ns("fork_exec_static"),
        lifecycle_ns("vfork_exec_static"),
        lifecycle_ns("posix_spawn"),
    ) {
        out.push(format!(
            "starting a program: fork+exec {}, vfork+exec {}, posix_spawn {}",
            fmt_ns(fork_ns),
            fmt_ns(vfork_ns),
            fmt_ns(spawn_ns)
        ));
    }
    if let (Some(static_ns), Some(dynamic_ns), Some(sh_ns)) = (
        lifecycle_ns("fork_exec_static"),
        lifecycle_ns("fork_exec_dynamic"),
        lifecycle_ns("sh_c"),
    ) {
        out.push(format!(
            "the exec'd program's own start-up is part of the bill: static {}, dynamically linked {} (+{} for the loader), through /bin/sh -c {} (what system() costs)",
            fmt_ns(static_ns),
            fmt_ns(dynamic_ns),
            fmt_ns((dynamic_ns - static_ns).max(0.0)),
            fmt_ns(sh_ns)
        ));
    }
    if let (Some(clone_ns), Some(pthread_ns)) = (
        lifecycle_ns("clone_thread_flags"),
        lifecycle_ns("pthread_create"),
    ) {
        out.push(format!(
            "raw clone with pthread's flags costs {}; pthread_create adds {} of library work (stack cache, TLS, attributes)",
            fmt_ns(clone_ns),
            fmt_ns((pthread_ns - clone_ns).max(0.0))
        ));
    }
    out
}

#[cfg(test)]
#[path = "methods_tests.rs"]
mod tests;
