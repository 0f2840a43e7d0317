//! yardstick.syscall: what one bare system call costs. A yardstick the seeds
//! imply (seeds 002 and 004): every switch and creation enters the kernel.

use super::{CALL, CALL_NS};
use crate::experiments::prelude::*;
use crate::measure::sampler::{per_op, Budget};
use crate::sys;
use std::hint::black_box;

pub static EXPERIMENT: Experiment = Experiment {
    name: "yardstick.syscall",
    metrics: &[&CALL_NS],
    summary: "cost of one bare system call (getppid): the floor under every kernel switch",
    reproduces: "a yardstick the seeds imply: every switch and creation enters the kernel",
    measure,
    analyze,
    headlines,
    attributed: true,
    ..Experiment::DEFAULT
};

fn measure(job: &Job) -> anyhow::Result<WorkerOutput> {
    let mut out = WorkerOutput::default();
    let b = Budget::from_job(job).scaled(0.5);
    let l = labels(&[(CALL, "getppid")]);
    // `run --why`: per_op's timed batches are this series' windows.
    let _why = crate::measure::why::Scope::enter(&l);
    let samples = per_op(&b, job.loop_overhead_ns, || {
        black_box(sys::bare_syscall());
    });
    out.push(&CALL_NS, l, samples);
    Ok(out)
}

fn analyze(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    if let Some(call_ns) = r.median(&CALL_NS, &[]) {
        a.findings.push(format!(
            "a bare system call costs {}: entering and leaving the kernel, mitigations included",
            fmt_ns(call_ns)
        ));
    }
    // The Summary's first figure, flagged or not: a flag is quoted with it.
    for m in headlines(r).iter().filter_map(|h| h.find(r)) {
        a.headlines.push(format!(
            "a bare system call costs {}: entering and leaving the kernel, the floor under every switch through the kernel and every creation here",
            quoted(&m.summary, m.unit)
        ));
    }
    a
}

/// The Summary's quantity: the bare call.
fn headlines(r: &ExperimentResult) -> Vec<Headline> {
    r.find(&CALL_NS, &[])
        .map(|m| Headline::of("a bare system call", &CALL_NS, m))
        .into_iter()
        .collect()
}

#[cfg(test)]
#[path = "syscall_tests.rs"]
mod tests;
