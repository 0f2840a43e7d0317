//! yardstick.timer: what one clock read costs. Reproduces Sysel §4.1-4.2
//! (seed 004): clock_gettime(CLOCK_REALTIME) ≈ 94 ns, std::chrono ≈ 110 ns,
//! by his protocol (one empty region timed once, in a program just started:
//! `region_ns`, each in a fresh process) beside the warm loop (`call_ns`).

use super::{CALL, CALL_NS, CLOCK, REGION_NS};
use crate::experiments::prelude::*;
use crate::measure::probe::{self, Answer};
use crate::measure::sampler::{interleave, per_op, Budget, PASSES};
use crate::sys;
use std::hint::black_box;
use std::time::Instant;

pub static EXPERIMENT: Experiment = Experiment {
    name: "yardstick.timer",
    metrics: &[&CALL_NS, &REGION_NS],
    summary: "cost of one clock read: clock_gettime MONOTONIC and REALTIME, Instant::now, rdtsc; and the seed's empty timed region, in fresh processes",
    reproduces: "Sysel §4.1-4.2: clock_gettime and chrono overhead",
    seeds: &[
        SeedFigure::of(
            &REGION_NS,
            (94.0, 94.0),
            SeedStat::Single,
            SEED_SYSEL,
            SYSEL_HW,
            "one empty region timed once with clock_gettime(CLOCK_REALTIME) in a program just started, at 3.4 GHz",
        )
        .labels(&[(CLOCK, "realtime"), (CALL, "first")])
        .cold()
        .at_clock(SYSEL_TURBO_MHZ, SYSEL_TURBO_MHZ),
        SeedFigure::of(
            &REGION_NS,
            (110.0, 110.0),
            SeedStat::Single,
            SEED_SYSEL,
            SYSEL_HW,
            "one empty region timed once with C++ std::chrono::high_resolution_clock::now() in a program just started, the nearest to Rust's Instant::now, \"at high speed CPU frequency\" (taken as his 3.4 GHz)",
        )
        .labels(&[(CLOCK, "instant"), (CALL, "first")])
        .cold()
        .at_clock(SYSEL_TURBO_MHZ, SYSEL_TURBO_MHZ),
    ],
    measure,
    analyze,
    params: &[REGIONS_PARAM.spec],
    probe: Some(region_probe),
    attributed: true,
    ..Experiment::DEFAULT
};

pub const REGIONS_PARAM: Param<u64> = Param::number(ParamSpec {
    name: "regions",
    help: "fresh processes per clock per round, each timing the seed's empty region once (its first two clock reads)",
    kind: ParamKind::Count {
        min: 2,
        max: 10_000,
    },
    quick: "8",
    thorough: "16",
});

/// The clocks whose empty region Sysel timed: clock_gettime(CLOCK_REALTIME)
/// (§4.1) and chrono's high_resolution_clock (§4.2), whose nearest here is
/// Instant::now.
const REGION_CLOCKS: [&str; 2] = ["realtime", "instant"];

/// What one fresh process timed: its first empty region and the next.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Regions {
    first_ns: u64,
    second_ns: u64,
}

/// The probe yardstick.timer runs in a fresh tasklab process: the seed's
/// region (two reads of `clock` in a row, the second less the first),
/// the first time this process reads that clock, then once more.
fn region_probe(arg: &serde_json::Value) -> anyhow::Result<Answer<serde_json::Value>> {
    let clock: String = serde_json::from_value(arg.clone())?;
    let r = match clock.as_str() {
        "realtime" => {
            let (begin, end) = (sys::realtime_ns(), sys::realtime_ns());
            let (again, again_end) = (sys::realtime_ns(), sys::realtime_ns());
            Regions {
                first_ns: end.saturating_sub(begin),
                second_ns: again_end.saturating_sub(again),
            }
        }
        "instant" => {
            let (begin, end) = (Instant::now(), Instant::now());
            let (again, again_end) = (Instant::now(), Instant::now());
            Regions {
                first_ns: end.duration_since(begin).as_nanos() as u64,
                second_ns: again_end.duration_since(again).as_nanos() as u64,
            }
        }
        other => anyhow::bail!("no empty region for the clock {other}"),
    };
    Answer::Measured(r).encode()
}

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
    // The seed's protocol: one region per fresh process, the clocks in a
    // fresh random order each pass.
    let per_clock = interleave(
        &REGION_CLOCKS,
        job.params.get(&REGIONS_PARAM) as usize,
        job.seed ^ 0x7265_6769_6f6e,
        |clock| match probe::run::<Regions>(EXPERIMENT.name, serde_json::json!(clock))? {
            Answer::Measured(r) => Ok(r),
            Answer::Skipped { reason } => anyhow::bail!("the region probe skipped: {reason}"),
        },
    )?;
    for (clock, regions) in REGION_CLOCKS.iter().zip(per_clock) {
        let (first, second): (Vec<f64>, Vec<f64>) = regions
            .iter()
            .map(|r| (r.first_ns as f64, r.second_ns as f64))
            .unzip();
        out.push(
            &REGION_NS,
            labels(&[(CLOCK, clock), (CALL, "first")]),
            first,
        );
        out.push(
            &REGION_NS,
            labels(&[(CLOCK, clock), (CALL, "second")]),
            second,
        );
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
    a.findings.extend(region_findings(r));
    a
}

/// The seed's empty region, in a fresh process, against the next one in
/// the same process and against the warm loop's read of the same clock.
/// One subject per clock in every run: a figure that did not settle is
/// quoted with its mark and tells nothing apart.
fn region_findings(r: &ExperimentResult) -> Vec<String> {
    let mut out = Vec::new();
    for (clock, name) in [
        ("realtime", "clock_gettime(CLOCK_REALTIME)"),
        ("instant", "Instant::now"),
    ] {
        let region = |call: &str| {
            r.find(&REGION_NS, &[(CLOCK, clock), (CALL, call)])
                .map(|m| &m.summary)
        };
        let (Some(first), Some(second)) = (region("first"), region("second")) else {
            continue;
        };
        let how = if first.unstable || second.unstable {
            "not told apart: a figure did not settle".to_string()
        } else if apart(first, second) {
            format!(
                "the first {}",
                ratio_text(first, second)
                    .unwrap_or_else(|| fmt_ratio(first.median / second.median))
            )
        } else {
            "not told apart here".to_string()
        };
        let warm = r
            .find(&CALL_NS, &[(CLOCK, clock)])
            .map(|m| {
                format!(
                    "; a read in a warm loop costs {}",
                    shown(&m.summary, Unit::Ns)
                )
            })
            .unwrap_or_default();
        out.push(format!(
            "The seed's empty region, two {name} reads in a row, their difference: {} the first time a fresh process reads the clock, {} the next time ({how}){warm}",
            shown(first, Unit::Ns),
            shown(second, Unit::Ns),
        ));
    }
    out
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
