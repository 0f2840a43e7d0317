//! switch.userspace: Bendersky's goroutine ping-pong (seed 002): ~2.8 M
//! iterations/s, ~170 ns per switch. Beside it, a stackful coroutine, two
//! async tasks on a single-threaded runtime, and a kernel pipe switch for
//! comparison: switches that never enter the kernel against one that does.

use super::engine::{batches, run_pair, Place, MAX_BATCH};
use super::go::{go_round_trips, GoError};
use super::methods::{
    UserSwitch, ASYNC, COROUTINE, GO_DEFAULT, GO_LOCKED, GO_MAXPROCS1, KERNEL_PIPE, PIPE_THREADS,
    VARIANTS, VARIANT_CHOICES,
};
use super::series::{ITERATIONS_PER_S, ROUND_TRIP_NS, SWITCH_NS};
use super::{plan_cpus, worker_cpus, CpusPoint, CPUS_PARAM, PER_SWITCH_NOTE};
use crate::experiments::prelude::*;
use crate::measure::explain::{cpu_of_wall, cpu_of_wall_pinned};
use crate::measure::sampler::{
    interleave, per_op_cpu, push_cpu, Budget, CpuPerOp, Warmup, CPU_NS, PASSES,
};
use crate::metric::key::VARIANT;
use crate::sys;
use std::hint::black_box;
use std::io;
use tokio::sync::mpsc;

pub static EXPERIMENT: Experiment = Experiment {
    name: "switch.userspace",
    metrics: &[&SWITCH_NS, &ROUND_TRIP_NS, &ITERATIONS_PER_S, &CPU_NS],
    summary: "user-space switching: a stackful coroutine (corosensei), async tasks on a single-threaded tokio runtime, Go goroutines over an unbuffered channel; beside a kernel pipe switch",
    reproduces: "Bendersky's goroutine ping-pong: ~2.8 M iterations/s, ~170 ns per switch",
    params: &[VARIANTS_PARAM.spec, CPUS_PARAM.spec],
    seeds: &[
        SeedFigure::of(
            &SWITCH_NS,
            (170.0, 170.0),
            SeedStat::Mean,
            SEED_SWITCH,
            BENDERSKY_HW,
            "two goroutines ping-ponging over a channel, default GOMAXPROCS",
        )
        .labels(&[(VARIANT, GO_DEFAULT.name())]),
        SeedFigure::of(
            &ITERATIONS_PER_S,
            (2_800_000.0, 2_800_000.0),
            SeedStat::Mean,
            SEED_SWITCH,
            BENDERSKY_HW,
            "two goroutines ping-ponging over a channel, default GOMAXPROCS",
        )
        .labels(&[(VARIANT, GO_DEFAULT.name())]),
    ],
    points,
    measure,
    analyze,
    helper: Some(Helper {
        name: "the Go helper",
        used: uses_go,
        ready: super::go::helper_ready,
    }),
    headlines,
    attributed: true,
    ..Experiment::DEFAULT
};

/// Whether the variants asked for run Go (the first such job builds the
/// helper, unless it is cached).
fn uses_go(params: &Params) -> bool {
    params
        .get(&VARIANTS_PARAM)
        .iter()
        .filter_map(|n| find(VARIANTS, n))
        .any(|v| matches!(v.switch, UserSwitch::Go(_)))
}

pub const VARIANTS_PARAM: Param<Vec<String>> = Param::names(ParamSpec {
        name: "variants",
        help: "coroutine, async, kernel_pipe (the kernel reference, pipe threads on one CPU), go_default (GOMAXPROCS default), go_maxprocs1 (GOMAXPROCS=1, one CPU), go_locked (runtime.LockOSThread, on one CPU)",
        kind: ParamKind::Names(VARIANT_CHOICES),
        quick: "all",
        thorough: "all",
    });

fn points(ctx: &PlanCtx) -> Result<Points, String> {
    let mut pts = Points::default();
    let cpus = plan_cpus(ctx, &mut pts.notes)?;
    pts.notes.push(PER_SWITCH_NOTE.into());
    pts.push(&CpusPoint { cpus });
    Ok(pts)
}

/// One variant's series, from its round trips (ns), and its CPU time per
/// round trip (both sides), one figure per pass or batch.
fn push_user(out: &mut WorkerOutput, variant: &str, round_trip_ns: Vec<f64>, cpu: &[CpuPerOp]) {
    let l = labels(&[(VARIANT, variant)]);
    push_cpu(out, &l, cpu);
    out.push(
        &ITERATIONS_PER_S,
        l.clone(),
        round_trip_ns.iter().map(|x| 1e9 / x.max(1e-9)).collect(),
    );
    out.push(
        &SWITCH_NS,
        l.clone(),
        round_trip_ns.iter().map(|x| x / 2.0).collect(),
    );
    out.push_detail(&ROUND_TRIP_NS, l, round_trip_ns);
}

fn measure(job: &Job) -> anyhow::Result<WorkerOutput> {
    let mut out = WorkerOutput::default();
    let point: CpusPoint = job.point()?;
    let (all, cpus) = worker_cpus(&point.cpus, &mut out.notes)?;
    let variants = job.params.get(&VARIANTS_PARAM);
    let share = Budget::from_job(job).split(PASSES);
    let chosen = variants
        .iter()
        .map(|n| find(VARIANTS, n).ok_or_else(|| anyhow::anyhow!("unknown variant {n}")))
        .collect::<anyhow::Result<Vec<_>>>()?;
    // The variants take turns, a share of the budget at a time.
    let mut go_notes = Vec::new();
    let per_variant = interleave(&chosen, PASSES, job.seed, |v| {
        let name = v.name();
        // Each turn's round trips and CPU time per round trip: one figure
        // for the turn, or one per batch (the kernel pipe's).
        let one = |(rt, cpu): (Vec<f64>, Option<CpuPerOp>)| -> (Vec<f64>, Vec<CpuPerOp>) {
            (rt, cpu.into_iter().collect())
        };
        // `run --why`: the variants timed here are their series' windows;
        // a Go variant is timed inside its own program, and not sampled.
        let _why = (!matches!(v.switch, UserSwitch::Go(_)))
            .then(|| crate::measure::why::Scope::enter(&labels(&[(VARIANT, name)])));
        Ok::<_, anyhow::Error>(match v.switch {
            UserSwitch::Coroutine => Ok(one(coroutine_round_trips(&share, job.loop_overhead_ns))),
            UserSwitch::Async => Ok(one(async_round_trips(&share)?)),
            UserSwitch::KernelPipe => {
                let r = run_pair(&PIPE_THREADS, &Place::same(cpus[0]), &share, &all, 0)?;
                Ok((r.round_trip_ns, r.cpu_per_round_trip))
            }
            UserSwitch::Go(mode) => {
                match go_round_trips(mode, &share, cpus[0], &all, job.scratch.as_deref()) {
                    Ok(run) => {
                        go_notes.extend(run.note);
                        Ok(one((run.round_trip_ns, run.cpu)))
                    }
                    Err(GoError::Skipped(why)) => Err(format!("{name} skipped: {why}")),
                    Err(GoError::Failed(e)) => anyhow::bail!("{name}: {e}"),
                }
            }
        })
    })?;
    for n in go_notes {
        if !out.notes.contains(&n) {
            out.notes.push(n);
        }
    }
    for (v, passes) in chosen.iter().zip(per_variant) {
        let mut round_trip_ns = Vec::new();
        let mut cpu = Vec::new();
        for pass in passes {
            match pass {
                Ok((rt, c)) => {
                    round_trip_ns.extend(rt);
                    cpu.extend(c);
                }
                Err(why) => {
                    if !out.notes.contains(&why) {
                        out.notes.push(why);
                    }
                }
            }
        }
        if !round_trip_ns.is_empty() {
            push_user(&mut out, v.name(), round_trip_ns, &cpu);
        }
    }
    Ok(out)
}

fn analyze(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    let mut findings = Vec::new();
    // Every subject in every run that measured a switch (issue 39 item 9):
    // each variant in a fixed order, a figure that did not settle quoted
    // with its mark and set against nothing, a variant not measured named.
    let get = |v: &str| r.find(&SWITCH_NS, &[(VARIANT, v)]).map(|m| &m.summary);
    let any_measured = r.metrics.iter().any(|m| m.name == SWITCH_NS.name);
    let kernel = get(KERNEL_PIPE.name());
    let mut parts = Vec::new();
    let mut any_variant = false;
    for v in [COROUTINE, ASYNC, GO_MAXPROCS1, GO_DEFAULT, GO_LOCKED].map(|v| v.name()) {
        let Some(s) = get(v) else {
            if any_measured {
                parts.push(format!("{v} not measured"));
            }
            continue;
        };
        any_variant = true;
        let m = s.median;
        // A ratio only where both settled and the intervals part.
        parts.push(match kernel {
            Some(k) if unsettled(s, k).is_some() => format!(
                "{v} {} (not told apart: {})",
                shown(s, Unit::Ns),
                unsettled(s, k).unwrap_or_default()
            ),
            Some(k) if !apart(s, k) => format!("{v} {} (indistinguishable)", fmt_ns(m)),
            Some(k) if m <= k.median => {
                format!(
                    "{v} {} ({} cheaper)",
                    fmt_ns(m),
                    ratio_text(k, s).unwrap_or_else(|| fmt_ratio(k.median / m.max(0.01)))
                )
            }
            Some(k) => format!(
                "{v} {} ({} dearer)",
                fmt_ns(m),
                ratio_text(s, k).unwrap_or_else(|| fmt_ratio(m / k.median.max(0.01)))
            ),
            None => format!("{v} {}", shown(s, Unit::Ns)),
        });
    }
    if any_variant {
        let k = kernel.map_or(
            " (no kernel pipe switch measured to set them against)".to_string(),
            |k| {
                format!(
                    " against {} for a kernel pipe switch on one CPU",
                    quoted(k, Unit::Ns)
                )
            },
        );
        findings.push(format!(
            "per switch: {}{k}; a coroutine, an async task or an unlocked goroutine switches without a system call or the kernel scheduler",
            parts.join(", ")
        ));
    }
    let (default, locked, one) = (
        get(GO_DEFAULT.name()),
        get(GO_LOCKED.name()),
        get(GO_MAXPROCS1.name()),
    );
    if any_measured {
        let pair = |x: Option<&Summary>, xn: &str, y: Option<&Summary>, yn: &str| match (x, y) {
            (Some(x), Some(y)) => match unsettled(x, y) {
                Some(why) => format!(
                    "{xn} {} vs {yn} {} (not told apart: {why})",
                    quoted(x, Unit::Ns),
                    quoted(y, Unit::Ns)
                ),
                None => format!(
                    "{xn} {}",
                    versus(x, y).replacen(" vs ", &format!(" vs {yn} "), 1)
                ),
            },
            _ => format!(
                "not measured ({} not in this run: the notes say why)",
                [(x, xn), (y, yn)]
                    .iter()
                    .filter(|(s, _)| s.is_none())
                    .map(|(_, n)| *n)
                    .collect::<Vec<_>>()
                    .join(" and ")
            ),
        };
        findings.push(format!(
            "locking the goroutines to OS threads (on one CPU), per switch: {}; locked, every channel hand-off is a kernel switch between threads",
            pair(locked, GO_LOCKED.name(), default, GO_DEFAULT.name())
        ));
        findings.push(format!(
            "GOMAXPROCS=1 on one CPU against the default, per switch: {} ({} saw pinning gain only ~10%)",
            pair(one, GO_MAXPROCS1.name(), default, GO_DEFAULT.name()),
            cite_short(SEED_SWITCH)
        ));
    }
    a.findings.extend(findings);
    // go_locked runs on one CPU: its CPU time above the wall time is no
    // second CPU (session 20: "keeps more than one CPU busy ... 1.01 CPUs'
    // worth [1.00, 1.01]"), it is said to be unrecorded, as spawn's pinned
    // notes say it.
    a.notes.extend(cpu_of_wall(
        r,
        "a goroutine round trip (default GOMAXPROCS)",
        &ROUND_TRIP_NS,
        &[(VARIANT, GO_DEFAULT.name())],
    ));
    a.notes.extend(cpu_of_wall_pinned(
        r,
        "a round trip of goroutines locked to OS threads (on one CPU)",
        &ROUND_TRIP_NS,
        &[(VARIANT, GO_LOCKED.name())],
    ));
    a.headlines.extend(userspace_headline(r));
    a
}

/// Why two figures are compared with nothing: one did not settle, or an
/// interval bounds nothing; None when they may be compared.
fn unsettled(a: &Summary, b: &Summary) -> Option<&'static str> {
    if a.unstable || b.unstable {
        Some("a figure did not settle")
    } else if bounds_nothing(a, Unit::Ns) || bounds_nothing(b, Unit::Ns) {
        Some("an interval bounds nothing")
    } else {
        None
    }
}

/// Round trips (ns) of a stackful coroutine: resume into it, it suspends
/// straight back. One round trip is two switches of stack and registers.
/// With the thread's CPU time per round trip (both sides are this thread).
fn coroutine_round_trips(budget: &Budget, loop_ns: f64) -> (Vec<f64>, Option<CpuPerOp>) {
    use corosensei::{Coroutine, CoroutineResult};
    let mut co = Coroutine::new(|yielder, mut x: u64| loop {
        x = yielder.suspend(x.wrapping_add(1));
    });
    let mut v = 0u64;
    per_op_cpu(budget, loop_ns, || {
        if let CoroutineResult::Yield(y) = co.resume(black_box(v)) {
            v = y;
        }
    })
}

/// `n` round trips to the echo task: the ns they took.
async fn async_batch(
    tx: &mpsc::Sender<u32>,
    rx: &mut mpsc::Receiver<u32>,
    n: u64,
) -> io::Result<f64> {
    let closed = || io::Error::other("the echo task ended early");
    let t0 = sys::monotonic_ns();
    for i in 0..n {
        tx.send(i as u32).await.map_err(|_| closed())?;
        rx.recv().await.ok_or_else(closed)?;
    }
    Ok((sys::monotonic_ns() - t0) as f64)
}

/// Round trips (ns) of two async tasks ping-ponging over bounded channels
/// on a single-threaded tokio runtime, and the thread's CPU time per round
/// trip over the recorded batches (both tasks run on it).
fn async_round_trips(budget: &Budget) -> io::Result<(Vec<f64>, Option<CpuPerOp>)> {
    let rt = tokio::runtime::Builder::new_current_thread().build()?;
    rt.block_on(async {
        let (tx1, mut rx1) = mpsc::channel::<u32>(1);
        let (tx2, mut rx2) = mpsc::channel::<u32>(1);
        let echo = tokio::task::spawn(async move {
            while let Some(v) = rx1.recv().await {
                if tx2.send(v).await.is_err() {
                    break;
                }
            }
        });
        let (samples, target_ns) = batches(budget);
        // The warm-up of sampler::size_batch, awaited: grow the batch until
        // one takes its share of the budget (that batch is not recorded).
        let mut w = Warmup::new(target_ns, MAX_BATCH);
        while w.took(async_batch(&tx1, &mut rx2, w.n()).await?) {}
        let n = w.n();
        let mut out = Vec::with_capacity(samples);
        // The window brackets the CPU time read (--why's reading of the
        // rings is not in it).
        let window = crate::measure::why::Window::open();
        let cpu0 = sys::cpu_ns(sys::CpuOf::Thread);
        while out.len() < samples {
            out.push(async_batch(&tx1, &mut rx2, n).await? / n as f64);
        }
        let cpu1 = sys::cpu_ns(sys::CpuOf::Thread);
        drop(window);
        let cpu = CpuPerOp::between_reads(cpu0, cpu1, (samples as u64 * n) as f64);
        drop(tx1);
        echo.await.map_err(|e| io::Error::other(e.to_string()))?;
        Ok((out, cpu))
    })
}

/// The Summary's figures, picked by labels: a switch of each user-space
/// variant the Summary names, with its words in the sentence and in the
/// Summary's list.
fn picks(e: &ExperimentResult) -> Vec<(&'static str, &'static str, &Metric)> {
    [
        (
            COROUTINE.name(),
            "a stackful coroutine",
            "a stackful coroutine switch",
        ),
        (ASYNC.name(), "an async task", "an async task switch"),
        (GO_DEFAULT.name(), "a goroutine", "a goroutine switch"),
    ]
    .into_iter()
    .filter_map(|(v, name, what)| Some((name, what, e.find(&SWITCH_NS, &[(VARIANT, v)])?)))
    .collect()
}

/// The Summary's quantities: [`picks`] in words.
fn headlines(e: &ExperimentResult) -> Vec<Headline> {
    picks(e)
        .into_iter()
        .map(|(_, what, m)| Headline::of(what, &SWITCH_NS, m))
        .collect()
}

/// User-space switches beside the kernel's ([`picks`]).
/// (The kernel switch beside them is switch.pingpong's to quote: one source
/// per quantity.)
fn userspace_headline(e: &ExperimentResult) -> Option<String> {
    let parts: Vec<String> = picks(e)
        .into_iter()
        .map(|(name, _, m)| format!("{name} {}", quoted(&m.summary, Unit::Ns)))
        .collect();
    (!parts.is_empty()).then(|| {
        format!(
            "switching in user space: {} per switch, without entering the kernel",
            parts.join(", ")
        )
    })
}

#[cfg(test)]
#[path = "userspace_tests.rs"]
mod tests;
