//! yardstick.timer: what one clock read costs. Reproduces Sysel §4.1-4.2
//! (seed 004): clock_gettime(CLOCK_REALTIME) ≈ 94 ns, std::chrono ≈ 110 ns.

use super::{CALL_NS, CLOCK};
use crate::experiments::prelude::*;
use crate::measure::sampler::{interleave, per_op, Budget, PASSES};
use crate::sys;
use std::hint::black_box;
use std::time::Instant;

pub static EXPERIMENT: Experiment = Experiment {
    name: "yardstick.timer",
    metrics: &[&CALL_NS],
    summary: "cost of one clock read: clock_gettime MONOTONIC and REALTIME, Instant::now, rdtsc",
    reproduces: "Sysel §4.1-4.2: clock_gettime and chrono overhead",
    seeds: &[
        SeedFigure::of(
            &CALL_NS,
            (94.0, 94.0),
            SeedStat::Single,
            SEED_SYSEL,
            SYSEL_HW,
            "one empty region timed once with clock_gettime(CLOCK_REALTIME), at 3.4 GHz",
        )
        .labels(&[(CLOCK, "realtime")])
        .protocol(TIMED_REGION)
        .at_clock(SYSEL_TURBO_MHZ, SYSEL_TURBO_MHZ),
        SeedFigure::of(
            &CALL_NS,
            (110.0, 110.0),
            SeedStat::Single,
            SEED_SYSEL,
            SYSEL_HW,
            "one empty region timed once with C++ std::chrono::high_resolution_clock::now(), the nearest to Rust's Instant::now, \"at high speed CPU frequency\" (taken as his 3.4 GHz)",
        )
        .labels(&[(CLOCK, "instant")])
        .protocol(TIMED_REGION)
        .at_clock(SYSEL_TURBO_MHZ, SYSEL_TURBO_MHZ),
    ],
    measure,
    analyze,
    attributed: true,
    ..Experiment::DEFAULT
};

/// How Sysel's clock figures were taken, against ours: the cause of the
/// gap between them, not the CPU.
const TIMED_REGION: &str = "the seed timed one empty region once (the end of one clock read and the start of the next, in a program just started: a single value), ours is the median of many clock reads in a warm loop, each batch's time divided by its reads, the loop's own overhead taken off";

fn measure(job: &Job) -> anyhow::Result<WorkerOutput> {
    let share = Budget::from_job(job).scaled(0.5).split(PASSES);
    let loop_overhead_ns = job.loop_overhead_ns;
    let mut out = WorkerOutput::default();
    let mut clocks: Vec<(&str, fn())> = vec![
        ("monotonic", || {
            black_box(sys::monotonic_ns());
        }),
        ("realtime", || {
            black_box(sys::realtime_ns());
        }),
        ("instant", || {
            black_box(Instant::now());
        }),
    ];
    if sys::rdtsc().is_some() {
        clocks.push(("rdtsc", || {
            black_box(sys::rdtsc());
        }));
    } else {
        out.notes
            .push("no time-stamp counter on this architecture: rdtsc skipped".into());
    }
    // The clocks take turns, a share of the budget at a time.
    let per_clock = interleave(&clocks, PASSES, job.seed, |(clock, read)| {
        let _why = crate::measure::why::Scope::enter(&labels(&[(CLOCK, clock)]));
        Ok::<_, std::convert::Infallible>(per_op(&share, loop_overhead_ns, read))
    })
    .unwrap_or_else(|never| match never {});
    for ((clock, _), passes) in clocks.iter().zip(per_clock) {
        let call_ns = passes.concat();
        out.push(&CALL_NS, labels(&[(CLOCK, clock)]), call_ns);
    }
    Ok(out)
}

fn analyze(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    let call = |clock: &str| r.settled(&CALL_NS, &[(CLOCK, clock)]);
    if let (Some(mono), Some(rdtsc)) = (call("monotonic"), call("rdtsc")) {
        let (mono_ns, rdtsc_ns) = (mono.median, rdtsc.median);
        // A ratio only where the intervals part.
        let ratio = if apart(mono, rdtsc) {
            fmt_ratio(mono_ns / rdtsc_ns.max(0.01))
        } else {
            "indistinguishable from".to_string()
        };
        a.findings.push(format!(
            "reading CLOCK_MONOTONIC costs {} ({ratio} an rdtsc at {}): {}",
            fmt_ns(mono_ns),
            fmt_ns(rdtsc_ns),
            where_served(r, mono_ns)
        ));
    }
    a
}

/// Where a clock read is served: measured under `run --why` (the share of
/// its sampled CPU time in the kernel, with its interval), else guessed
/// from its cost (a vDSO read costs well under 100 ns).
fn where_served(r: &ExperimentResult, mono_ns: f64) -> String {
    let at = labels(&[(CLOCK, "monotonic")]);
    let Some(w) = r.why.iter().find(|w| w.covers(&at)) else {
        return if mono_ns < 100.0 {
            "the vDSO serves it without entering the kernel".into()
        } else {
            "slow enough that the clock source may not be vDSO-readable (check `tasklab env`: clock source)".into()
        };
    };
    let k = &w.kernel;
    let share = crate::experiments::why_parts::interval(k);
    let on = format!("--why: {} samples in {} rounds", w.samples, w.rounds);
    // The vDSO's read is user time: a kernel share whose interval reaches
    // no further than a twentieth says the kernel is not entered.
    if k.hi <= VDSO_KERNEL_MOST {
        format!("measured in user space, the vDSO's read: {share} of its sampled CPU time in the kernel ({on})")
    } else if k.lo > VDSO_KERNEL_MOST {
        let top = crate::experiments::why_parts::most_in(w, 2);
        format!(
            "measured in the kernel, not the vDSO: {share} of its sampled CPU time there{top} ({on}); the clock source may not be vDSO-readable (check `tasklab env`: clock source)"
        )
    } else {
        format!("where it is served not told apart: {share} of its sampled CPU time in the kernel ({on})")
    }
}

/// The kernel share below which a clock read is the vDSO's.
const VDSO_KERNEL_MOST: f64 = 0.05;

#[cfg(test)]
#[path = "timer_tests.rs"]
mod tests;
