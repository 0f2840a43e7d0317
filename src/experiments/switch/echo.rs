//! switch.echo: Bendersky's pipe echo (seed 002): a 16-byte message out on
//! one pipe and echoed back on another, ~400,000 iterations/s pinned to one
//! core, about half unpinned.

use super::engine::Place;
use super::methods::{SAME_CPU, UNPINNED};
use super::series::ITERATIONS_PER_S;
use super::{plan_cpus, worker_cpus, CpusPoint, CPUS_PARAM};
use crate::experiments::prelude::*;
use crate::measure::explain::{cpu_of_wall, cpu_of_wall_pinned};
use crate::measure::sampler::{cpu_over, interleave, push_cpu, CpuPerOp, CPU_NS};
use crate::metric::key::PLACEMENT;
use crate::sys;
use std::fs::File;
use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// One echo iteration's wall time: 1 s / `iterations_per_s`.
pub const ITERATION_NS: MetricSpec = MetricSpec::new(
    "iteration_ns",
    Unit::Ns,
    Better::Lower,
    Kind::HandOff,
    "one echo iteration (a 16-byte message out and back), wall time",
);

/// A reading: the echoes each timed run made.
pub const ITERATIONS_PER_RUN: MetricSpec = MetricSpec::new(
    "iterations_per_run",
    Unit::Count,
    Better::Neither,
    Kind::Other,
    "echoes each timed run sends (the `iterations` parameter)",
);

/// A reading: the echoes the echo thread answered per run, a check on
/// `iterations_per_run`.
pub const ECHOES_COUNTED_PER_RUN: MetricSpec = MetricSpec::new(
    "echoes_counted_per_run",
    Unit::Count,
    Better::Neither,
    Kind::Other,
    "echoes the echo thread counted per timed run (must equal iterations_per_run)",
);

pub static EXPERIMENT: Experiment = Experiment {
    name: "switch.echo",
    metrics: &[
        &ITERATIONS_PER_S,
        &ITERATION_NS,
        &CPU_NS,
        &ITERATIONS_PER_RUN,
        &ECHOES_COUNTED_PER_RUN,
    ],
    summary: "pipe echo throughput: a 16-byte message out on one pipe, echoed back by another thread on a second pipe; iterations/s pinned to one CPU and unpinned",
    reproduces: "Bendersky's pipe echo: ~400,000 iterations/s pinned, about half unpinned",
    params: &[ITERATIONS_PARAM.spec, RUNS_PARAM.spec, CPUS_PARAM.spec],
    seeds: &[
        SeedFigure::of(
            &ITERATIONS_PER_S,
            (400_000.0, 400_000.0),
            SeedStat::CountOverTime,
            SEED_SWITCH,
            BENDERSKY_HW,
            "pipe echo between two threads, taskset to one core",
        )
        .labels(&[(PLACEMENT, SAME_CPU.name())]),
        SeedFigure::of(
            &ITERATIONS_PER_S,
            (200_000.0, 200_000.0),
            SeedStat::CountOverTime,
            SEED_SWITCH,
            BENDERSKY_HW,
            "pipe echo, unpinned (\"the number of iterations per second halves\")",
        )
        .labels(&[(PLACEMENT, UNPINNED.name())]),
    ],
    points,
    measure,
    analyze,
    ..Experiment::DEFAULT
};

pub const ITERATIONS_PARAM: Param<u64> = Param::number(ParamSpec {
    name: "iterations",
    help: "echoes per run (each run is one sample)",
    kind: ParamKind::Count {
        min: 1,
        max: 100_000_000,
    },
    quick: "5000",
    thorough: "100000",
});

pub const RUNS_PARAM: Param<u64> = Param::number(ParamSpec {
    name: "runs",
    help: "timed runs per placement per round",
    kind: ParamKind::Count { min: 1, max: 1000 },
    // One a round in the quick profile: its eight rounds are the
    // repetitions that count (the variance lives between them).
    quick: "1",
    thorough: "2",
});

fn points(ctx: &PlanCtx) -> Result<Points, String> {
    let mut pts = Points::default();
    let cpus = plan_cpus(ctx, &mut pts.notes)?;
    pts.push(&CpusPoint { cpus });
    Ok(pts)
}

const ECHO_MSG: &[u8; 16] = b"ping from task A";

/// What the timed runs of one placement gave.
pub struct Echoes {
    /// Iterations per second, one per run.
    pub rates: Vec<f64>,
    /// Echoes the echo thread counted over the timed runs.
    pub counted: u64,
    /// CPU time of both sides (this process's threads) per iteration, one
    /// per run where it could be read.
    pub cpu: Vec<CpuPerOp>,
}

/// Runs `runs` timed runs of exactly `iterations` echoes.
pub fn echo_runs(place: &Place, all: &[usize], iterations: u64, runs: u64) -> io::Result<Echoes> {
    sys::pin_current_thread(&place.a)?;
    let (r1, w1) = sys::pipe(false)?;
    let (r2, w2) = sys::pipe(false)?;
    let (mut w1, mut r2) = (File::from(w1), File::from(r2));
    let counted = Arc::new(AtomicU64::new(0));
    let c = counted.clone();
    let bcpus = place.b.clone();
    let h = std::thread::spawn(move || -> io::Result<()> {
        sys::pin_current_thread(&bcpus)?;
        let (mut r, mut w) = (File::from(r1), File::from(w2));
        let mut buf = [0u8; 16];
        loop {
            match r.read_exact(&mut buf) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(()),
                Err(e) => return Err(e),
            }
            c.fetch_add(1, Ordering::Relaxed);
            w.write_all(&buf)?;
        }
    });
    let mut one = |n: u64| -> io::Result<f64> {
        let mut buf = [0u8; 16];
        let t0 = sys::monotonic_ns();
        for _ in 0..n {
            w1.write_all(ECHO_MSG)?;
            r2.read_exact(&mut buf)?;
        }
        Ok((sys::monotonic_ns() - t0) as f64)
    };
    let result = (|| -> io::Result<Echoes> {
        one(iterations.min(1000))?; // warm-up, not counted
        let before = counted.load(Ordering::SeqCst);
        let mut rates = Vec::new();
        let mut cpu = Vec::new();
        for _ in 0..runs {
            // Both sides: this process's threads.
            let (dt, c) = cpu_over(sys::CpuOf::ProcessAndChildren, iterations as f64, || {
                one(iterations)
            });
            cpu.extend(c);
            rates.push(iterations as f64 / (dt? / 1e9));
        }
        Ok(Echoes {
            rates,
            counted: counted.load(Ordering::SeqCst) - before,
            cpu,
        })
    })();
    drop(w1); // the echo thread sees EOF and ends
    let joined = h
        .join()
        .map_err(|_| io::Error::other("echo thread panicked"))?;
    sys::pin_current_thread(all)?;
    let r = result?;
    joined?;
    Ok(r)
}

fn measure(job: &Job) -> anyhow::Result<WorkerOutput> {
    let mut out = WorkerOutput::default();
    let point: CpusPoint = job.point()?;
    let (all, cpus) = worker_cpus(&point.cpus, &mut out.notes)?;
    let iterations = job.params.get(&ITERATIONS_PARAM);
    let runs = job.params.get(&RUNS_PARAM);
    let places = [Place::same(cpus[0]), Place::unpinned(&all)];
    // The placements take turns, one timed run at a time.
    let passes = interleave(&places, runs as usize, job.seed, |place| {
        echo_runs(place, &all, iterations, 1)
    })?;
    for (place, passes) in places.iter().zip(passes) {
        let (mut rates, mut counted, mut cpu) = (Vec::new(), 0, Vec::new());
        for e in passes {
            rates.extend(e.rates);
            counted += e.counted;
            cpu.extend(e.cpu);
        }
        let l = labels(&[(PLACEMENT, place.name)]);
        // The wall time per iteration beside the CPU time both sides spent on it.
        let wall = rates.iter().map(|r| 1e9 / r.max(1e-9)).collect();
        out.push_detail(&ITERATION_NS, l.clone(), wall);
        push_cpu(&mut out, &l, &cpu);
        out.push(&ITERATIONS_PER_S, l.clone(), rates);
        out.reading(&ITERATIONS_PER_RUN, l.clone(), iterations as f64);
        out.reading(&ECHOES_COUNTED_PER_RUN, l, counted as f64 / runs as f64);
        if counted != iterations * runs {
            anyhow::bail!(
                "the echo thread answered {counted} messages, expected {}",
                iterations * runs
            );
        }
    }
    out.notes.push(format!(
        "each run is exactly {iterations} echoes of a 16-byte message (two switches each on one CPU), counted by the echo thread"
    ));
    Ok(out)
}

fn analyze(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    // One subject in every run (issue 39 item 9): the pinned rate, quoted
    // with its mark whether it settled or not, and the unpinned one beside
    // it, compared only when both settled.
    if let Some(pin) = r.find(&ITERATIONS_PER_S, &[(PLACEMENT, SAME_CPU.name())]) {
        let pin = &pin.summary;
        let per = |rate: f64| fmt_ns(1e9 / rate.max(1e-9));
        let src = cite_short(SEED_SWITCH);
        let un = match r.find(&ITERATIONS_PER_S, &[(PLACEMENT, UNPINNED.name())]) {
            Some(u) => unpinned_against_pinned(&u.summary, pin),
            None => "unpinned not measured".to_string(),
        };
        let rate = shown(pin, Unit::PerSecond);
        a.findings.push(format!(
            "pipe echo: {rate} pinned to one CPU ({} per iteration, i.e. {} per switch); {un} ({src}: ~400,000 and about half)",
            per(pin.median),
            fmt_ns(0.5e9 / pin.median.max(1e-9)),
        ));
    }
    // Pinned to one CPU, a CPU time above the wall time is no second CPU
    // (session 20: "an echo iteration pinned to one CPU keeps more than one
    // CPU busy ... 1.00 CPUs' worth [1.00, 1.00]"): the pinned wording.
    a.notes.extend(cpu_of_wall_pinned(
        r,
        "an echo iteration pinned to one CPU",
        &ITERATION_NS,
        &[(PLACEMENT, SAME_CPU.name())],
    ));
    a.notes.extend(cpu_of_wall(
        r,
        "an unpinned echo iteration",
        &ITERATION_NS,
        &[(PLACEMENT, UNPINNED.name())],
    ));
    a
}

/// Unpinned against pinned, one phrase in every run (issue 39 item 9):
/// "unpinned R against the pinned rate: V", the rate quoted with its mark,
/// V a ratio only when both settled, both intervals bound something (an
/// interval that bounds nothing supports no sentence, "indistinguishable"
/// included) and the ratio's interval excludes 1.
fn unpinned_against_pinned(un: &Summary, pin: &Summary) -> String {
    let unusable: Vec<&str> = [("unpinned", un), ("pinned", pin)]
        .iter()
        .filter(|(_, s)| bounds_nothing(s, Unit::PerSecond))
        .map(|(name, _)| *name)
        .collect();
    let verdict = if un.unstable || pin.unstable {
        "not told apart (a figure did not settle)".to_string()
    } else if !unusable.is_empty() {
        format!(
            "not compared, the {} rate's rounds disagree too much to bound it",
            unusable.join(" and the ")
        )
    } else if apart(un, pin) {
        ratio_text(un, pin).unwrap_or_else(|| fmt_ratio(un.median / pin.median.max(1e-9)))
    } else {
        "indistinguishable here".to_string()
    };
    format!(
        "unpinned {} against the pinned rate: {verdict}",
        shown(un, Unit::PerSecond)
    )
}

#[cfg(test)]
#[path = "echo_tests.rs"]
mod tests;
