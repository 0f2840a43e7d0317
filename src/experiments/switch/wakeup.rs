//! switch.wakeup: what waking a thread on another CPU costs, each figure
//! measured, none derived under a stacking model. On the two CPUs
//! switch.pingpong uses:
//! - the one-way wake-up, stamped with the invariant TSC (`rdtscp`) just
//!   before FUTEX_WAKE and on return from FUTEX_WAIT: across CPUs with both
//!   halting when idle, across CPUs with a SCHED_IDLE spinner keeping each
//!   awake, and between two threads on one CPU;
//! - the waker's FUTEX_WAKE call alone, in the same hand-offs;
//! - how late a timer fires on a halted CPU against one kept awake (halt
//!   to run with no IPI), and on the halted CPU by the timer's period (the
//!   sweep: where the host stops polling a halted vCPU, lateness steps up);
//! - as root with debugfs's sched/features writable, the halted wake-up
//!   with the TTWU_QUEUE feature off for its passes (restored after): the
//!   kept-awake control's kernel path, so the two compare like for like;
//! - a membarrier with the peer running (a synchronous IPI round trip to a
//!   running CPU) against it blocked;
//! - per operation, the cpuidle states entered and the RES/CAL interrupts,
//!   so each figure shows the path it took.
//!
//! The arithmetic and the series are in [`super::wakeup_parts`];
//! docs/switch-wakeup.md gives the model and its limits on a VM.

use super::series::ROUND_TRIP_NS;
use super::wakeup_findings::analyze;
pub use super::wakeup_parts::*;
use super::wakeup_path;
use super::wakeup_sweep::{self, TIMER_SWEEP_PARAM};
use super::{plan_cpus, worker_cpus, CpusPoint, CPUS_PARAM};
use crate::experiments::prelude::*;
use crate::measure::sampler::{interleave, per_op, Budget, CPU_NS, PASSES};
use crate::metric::key::VARIANT;
use crate::sys;
use crate::sys::tsc::{self, TscRate};
use std::hint::spin_loop;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

pub static EXPERIMENT: Experiment = Experiment {
    name: "switch.wakeup",
    metrics: &[
        &WAKE_NS,
        &WAKE_DIR_NS,
        &WAKE_CALL_NS,
        &TIMER_LATE_NS,
        &TIMER_SWEEP_NS,
        &BARRIER_NS,
        &RES_PER_OP,
        &CAL_PER_OP,
        &IDLE_ENTRIES_PER_OP,
        &TIMED_PCT,
        &TSC_MHZ,
        // Older files' series, declared once with switch.pingpong: they
        // still read and compare.
        &ROUND_TRIP_NS,
        &CPU_NS,
    ],
    summary: "waking a thread on another CPU, measured: the one-way wake-up by the invariant TSC (halting, kept awake, one CPU), the waker's FUTEX_WAKE, a timer on a halted CPU, an IPI round trip to a running CPU, the idle states entered",
    reproduces: "beyond the seeds: why switch.pingpong's two_cpus placement costs several same-CPU switches",
    params: &[TIMER_US_PARAM.spec, TIMER_SWEEP_PARAM.spec, CPUS_PARAM.spec],
    supported,
    points,
    measure,
    analyze,
    attributed: true,
    ..Experiment::DEFAULT
};

pub const TIMER_US_PARAM: Param<u64> = Param::number(ParamSpec {
    name: "timer_us",
    help: "the period of the timer probe's absolute sleeps, µs",
    kind: ParamKind::Count {
        min: 20,
        max: 100_000,
    },
    quick: "200",
    thorough: "200",
});

fn supported(env: &Env) -> Result<(), String> {
    if env.cpus_allowed.len() < 2 {
        return Err(format!(
            "a cross-CPU wake-up needs two CPUs; {} allowed here",
            env.cpus_allowed.len()
        ));
    }
    Ok(())
}

fn points(ctx: &PlanCtx) -> Result<Points, String> {
    let mut pts = Points::default();
    let cpus = plan_cpus(ctx, &mut pts.notes)?;
    if cpus.len() < 2 {
        pts.notes.push(
            "switch.wakeup skipped: the cpus parameter names one CPU, and a cross-CPU wake-up needs two"
                .into(),
        );
        return Ok(pts);
    }
    pts.push(&CpusPoint { cpus });
    Ok(pts)
}

/// Hand-offs a pass keeps at most (both directions).
const MAX_HANDOFFS: usize = 200_000;
/// Hand-offs the measuring side makes at least.
const MIN_HANDOFFS: usize = 4 * BATCH;
/// Hand-offs or timer wakes per recorded sample (a batch median).
const BATCH: usize = 16;

fn measure(job: &Job) -> anyhow::Result<WorkerOutput> {
    let mut out = WorkerOutput::default();
    let point: CpusPoint = job.point()?;
    let (all, cpus) = worker_cpus(&point.cpus, &mut out.notes)?;
    anyhow::ensure!(
        cpus.len() >= 2,
        "switch.wakeup needs two CPUs in this worker's mask"
    );
    let pair = (cpus[0], cpus[1]);
    let period_ns = job.params.get(&TIMER_US_PARAM) * 1_000;
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let rate = match tsc::invariant_tsc(&cpuinfo) {
        Ok(()) => TscRate::measure(20),
        Err(why) => {
            out.notes.push(format!(
                "the one-way wake-up and the FUTEX_WAKE call are not measured: {why}"
            ));
            None
        }
    };
    let mut variants = Vec::new();
    if rate.is_some() {
        variants.extend([Variant::CrossCpu, Variant::CrossCpuAwake, Variant::SameCpu]);
        match wakeup_path::same_path_plan(&sys::sysfs_knob::root()) {
            Ok(()) => {
                variants.push(Variant::CrossCpuRemote);
                out.notes.push(wakeup_path::SWITCHED_NOTE.into());
            }
            Err(why) => out
                .notes
                .push(format!("{} {why}", wakeup_path::NOT_SWITCHED_NOTE)),
        }
    }
    variants.extend([Variant::TimerIdle, Variant::TimerAwake]);
    variants.extend(wakeup_sweep::periods(job).map(Variant::TimerSweep));
    match sys::membarrier_register_private_expedited() {
        Ok(()) => variants.extend([Variant::IpiRunning, Variant::IpiBlocked]),
        Err(e) => out.notes.push(format!(
            "the IPI round trip is not measured: membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) failed: {e}"
        )),
    }
    let share = Budget::from_job(job).split(PASSES);
    let passes = interleave(&variants, PASSES, job.seed, |v| {
        // `run --why` samples the variants with no spinner: a SCHED_IDLE
        // spinner (or the running peer of an IPI) would be sampled with
        // them, its spinning most of their samples.
        let _why = super::wakeup_why::sampled(*v)
            .then(|| crate::measure::why::Scope::enter(&labels(&[(VARIANT, v.name())])));
        let r = run_pass(*v, pair, rate, period_ns, &share, job.loop_overhead_ns);
        sys::pin_current_thread(&all)?;
        r.map_err(|e| anyhow::anyhow!("{}: {e}", v.name()))
    })?;
    for (v, passes) in variants.iter().zip(passes) {
        push_pass(&mut out, *v, &passes);
    }
    // The rate at the worker's end too: a TSC that changed rate is no clock.
    if let (Some(a), Some(b)) = (rate, TscRate::measure(20)) {
        out.push_detail(
            &TSC_MHZ,
            Labels::new(),
            vec![a.cycles_per_ns * 1e3, b.cycles_per_ns * 1e3],
        );
    }
    Ok(out)
}

/// What one pass of one variant measured.
#[derive(Default)]
struct Pass {
    /// ns: batch medians of one-way wake-ups, timer lateness or barriers.
    samples: Vec<f64>,
    /// ns: batch medians of the wake calls (hand-offs only).
    calls: Vec<f64>,
    /// Operations between the counter snapshots.
    ops: u64,
    /// Shares of the hand-offs timed: wake-up, wake call.
    timed: Option<(f64, f64)>,
    /// ns: batch medians of the one-way wake-ups of each direction, A to B
    /// and B to A (cross-CPU hand-offs only).
    directions: [Vec<f64>; 2],
    /// Why the pass measured nothing (the feature it needs was held by
    /// another run).
    skipped: Option<String>,
    /// RES and CAL over the pass; None when /proc/interrupts (or a row of
    /// it) could not be read: unknown, never zero.
    res_cal: Option<[u64; 2]>,
    idle: Vec<(String, f64)>,
}

fn push_pass(out: &mut WorkerOutput, v: Variant, passes: &[Pass]) {
    out.notes
        .extend(passes.iter().filter_map(|p| p.skipped.clone()));
    let passes: Vec<&Pass> = passes.iter().filter(|p| p.skipped.is_none()).collect();
    if passes.is_empty() {
        return;
    }
    let l = labels(&[(VARIANT, v.name())]);
    let all = |f: &dyn Fn(&Pass) -> &Vec<f64>| passes.iter().flat_map(|p| f(p)).copied().collect();
    match v {
        Variant::IpiRunning | Variant::IpiBlocked => {
            let peer = if v == Variant::IpiRunning {
                "running"
            } else {
                "blocked"
            };
            out.push(
                &BARRIER_NS,
                labels(&[(VARIANT, v.name()), (PEER, peer)]),
                all(&|p| &p.samples),
            );
        }
        Variant::TimerSweep(us) => out.push(
            &TIMER_SWEEP_NS,
            labels(&[(PERIOD_US, &us.to_string())]),
            all(&|p| &p.samples),
        ),
        _ if v.is_timer() => out.push(&TIMER_LATE_NS, l.clone(), all(&|p| &p.samples)),
        _ => {
            out.push(&WAKE_NS, l.clone(), all(&|p| &p.samples));
            if v != Variant::SameCpu {
                for (i, dir) in [A_TO_B, B_TO_A].into_iter().enumerate() {
                    out.push(
                        &WAKE_DIR_NS,
                        labels(&[(VARIANT, v.name()), (DIRECTION, dir)]),
                        all(&|p| &p.directions[i]),
                    );
                }
            }
            out.push(&WAKE_CALL_NS, l.clone(), all(&|p| &p.calls));
            for (of, i) in [(WAKE_NS.name, 0), (WAKE_CALL_NS.name, 1)] {
                let pct = passes
                    .iter()
                    .filter_map(|p| p.timed.map(|t| if i == 0 { t.0 } else { t.1 }))
                    .collect();
                out.push_detail(&TIMED_PCT, labels(&[(VARIANT, v.name()), (OF, of)]), pct);
            }
        }
    }
    let per = |i: usize| {
        passes
            .iter()
            .filter_map(|p| Some(p.res_cal?[i] as f64 / p.ops.max(1) as f64))
            .collect::<Vec<f64>>()
    };
    for (spec, i) in [(&RES_PER_OP, 0), (&CAL_PER_OP, 1)] {
        let v = per(i);
        if !v.is_empty() {
            out.push_detail(spec, l.clone(), v);
        }
    }
    let mut states: Vec<&str> = Vec::new();
    for p in &passes {
        for (s, _) in &p.idle {
            if !states.contains(&s.as_str()) {
                states.push(s);
            }
        }
    }
    for s in states {
        let v: Vec<f64> = passes
            .iter()
            .filter_map(|p| p.idle.iter().find(|(n, _)| n == s).map(|x| x.1))
            .collect();
        out.push_detail(
            &IDLE_ENTRIES_PER_OP,
            labels(&[(VARIANT, l[VARIANT].as_str()), (STATE, s)]),
            v,
        );
    }
}

/// The counters a pass reads at its start and end.
struct Snapshot {
    interrupts: String,
    idle: Vec<(usize, String, u64)>,
}

fn snapshot(cpus: &[usize]) -> Snapshot {
    Snapshot {
        interrupts: std::fs::read_to_string("/proc/interrupts").unwrap_or_default(),
        idle: idle_usage(Path::new("/"), cpus),
    }
}

fn counters(pass: &mut Pass, start: &Snapshot, end: &Snapshot, cpus: &[usize]) {
    pass.res_cal = match (
        res_cal(&start.interrupts, cpus),
        res_cal(&end.interrupts, cpus),
    ) {
        (Some(a), Some(b)) => Some([b[0].saturating_sub(a[0]), b[1].saturating_sub(a[1])]),
        _ => None,
    };
    pass.idle = idle_entries_per_op(&start.idle, &end.idle, pass.ops);
}

/// A SCHED_IDLE thread spinning on `cpu` until `stop`: the CPU never
/// idles, and any normal thread that wakes there preempts it at once.
fn spinner(cpu: usize, stop: &AtomicBool) -> io::Result<()> {
    sys::pin_current_thread(&[cpu])?;
    sys::set_sched_idle()?;
    while !stop.load(Ordering::Relaxed) {
        spin_loop();
    }
    Ok(())
}

fn run_pass(
    v: Variant,
    (a, b): (usize, usize),
    rate: Option<TscRate>,
    period_ns: u64,
    budget: &Budget,
    loop_ns: f64,
) -> anyhow::Result<Pass> {
    let peer_cpu = if v == Variant::SameCpu { a } else { b };
    let cpus: Vec<usize> = if v.is_timer() {
        vec![b]
    } else if a == peer_cpu {
        vec![a]
    } else {
        vec![a, b]
    };
    let stop_spin = AtomicBool::new(false);
    std::thread::scope(|s| {
        let spinners: Vec<_> = if matches!(v, Variant::CrossCpuAwake | Variant::TimerAwake) {
            cpus.iter()
                .map(|&c| {
                    let stop = &stop_spin;
                    s.spawn(move || spinner(c, stop))
                })
                .collect()
        } else {
            Vec::new()
        };
        let r = match v {
            Variant::CrossCpuRemote => {
                let rate = rate.ok_or_else(|| anyhow::anyhow!("no TSC rate"))?;
                // The feature is off for this pass only: restored when the
                // pass ends, by the guard on an error, and by the run from
                // the worker's record when the worker is killed.
                match wakeup_path::hold_same_path(&sys::sysfs_knob::root()) {
                    Ok(mut held) => {
                        let r = handoffs(v, a, peer_cpu, &cpus, rate, budget);
                        held.restore()?;
                        r
                    }
                    Err(e) => Ok(Pass {
                        skipped: Some(format!(
                            "a pass of {} skipped: {e}",
                            Variant::CrossCpuRemote.name()
                        )),
                        ..Pass::default()
                    }),
                }
            }
            _ if v.is_handoff() => {
                let rate = rate.ok_or_else(|| anyhow::anyhow!("no TSC rate"))?;
                handoffs(v, a, peer_cpu, &cpus, rate, budget)
            }
            Variant::TimerSweep(us) => timer(
                b,
                &cpus,
                us * 1_000,
                &wakeup_sweep::budget(budget),
                wakeup_sweep::MIN_SLEEPS,
            ),
            _ if v.is_timer() => timer(b, &cpus, period_ns, budget, MIN_HANDOFFS),
            _ => barrier(v, a, b, &cpus, budget, loop_ns),
        };
        stop_spin.store(true, Ordering::Relaxed);
        for h in spinners {
            h.join()
                .map_err(|_| anyhow::anyhow!("a spinner panicked"))??;
        }
        r
    })
}

/// The stop value of the turn word (turns count up from 0).
const STOP: i32 = -1;

/// What one side of the hand-off recorded.
#[derive(Default)]
struct Log {
    wakes: Vec<WakeStamp>,
    returns: Vec<ReturnStamp>,
}

fn stamp() -> (u64, u32) {
    tsc::rdtscp().unwrap_or((0, u32::MAX))
}

/// One side: on its turn (the word at a value it did not write) it hands
/// the next turn over, stamping just before FUTEX_WAKE and on its return,
/// then parks until the turn comes back, stamping on return. The measuring
/// side (`until` Some) ends the pass at its deadline.
fn side(word: &AtomicI32, first: bool, until: Option<u64>, cpu: usize) -> io::Result<Log> {
    sys::pin_current_thread(&[cpu])?;
    let mut log = Log::default();
    let mut turn = if first { 0 } else { -2 };
    if !first {
        // Wait for the first turn (1).
        loop {
            let cur = word.load(Ordering::Acquire);
            if cur != 0 {
                turn = cur;
                break;
            }
            sys::futex_wait(word, 0, false)?;
        }
    }
    while turn != STOP {
        // A few batches at least, however late the peer first ran.
        let done = log.wakes.len() >= MIN_HANDOFFS
            && (until.is_some_and(|t| sys::monotonic_ns() >= t)
                || log.wakes.len() >= MAX_HANDOFFS / 2);
        if done {
            word.store(STOP, Ordering::Release);
            sys::futex_wake(word, 1, false)?;
            break;
        }
        let next = turn + 1;
        word.store(next, Ordering::Release);
        let (before, _) = stamp();
        let woken = sys::futex_wake(word, 1, false)?;
        let (after, _) = stamp();
        log.wakes.push(WakeStamp {
            seq: next,
            before,
            after,
            woken,
        });
        let (waited_from, _) = stamp();
        loop {
            let cur = word.load(Ordering::Acquire);
            if cur != next {
                turn = cur;
                break;
            }
            sys::futex_wait(word, next, false)?;
        }
        if turn == STOP {
            break;
        }
        let (returned, cpu) = stamp();
        log.returns.push(ReturnStamp {
            seq: turn,
            waited_from,
            returned,
            cpu,
        });
    }
    Ok(log)
}

fn handoffs(
    v: Variant,
    a: usize,
    peer_cpu: usize,
    cpus: &[usize],
    rate: TscRate,
    budget: &Budget,
) -> anyhow::Result<Pass> {
    let word = AtomicI32::new(0);
    let start = snapshot(cpus);
    let until = sys::monotonic_ns() + (budget.seconds * 1e9) as u64;
    let window = crate::measure::why::Window::open();
    let (mine, theirs) = std::thread::scope(|s| {
        // A side that fails stops the other, which would wait for ever.
        let word = &word;
        let stop_other = move |r: &io::Result<Log>| {
            if r.is_err() {
                word.store(STOP, Ordering::Release);
                let _ = sys::futex_wake(word, 1, false);
            }
        };
        let peer = s.spawn(move || {
            let r = side(word, false, None, peer_cpu);
            stop_other(&r);
            r
        });
        let mine = side(word, true, Some(until), a);
        stop_other(&mine);
        let theirs = peer
            .join()
            .map_err(|_| anyhow::anyhow!("the peer panicked"));
        (mine, theirs)
    });
    drop(window);
    let (mine, theirs) = (mine?, theirs??);
    let end = snapshot(cpus);
    let same = v == Variant::SameCpu;
    let to_peer = pair_up(&mine.wakes, &theirs.returns, peer_cpu as u32, same);
    let to_me = pair_up(&theirs.wakes, &mine.returns, a as u32, same);
    let ns =
        |c: &[u64], d: &[u64]| -> Vec<f64> { c.iter().chain(d).map(|&x| rate.ns(x)).collect() };
    let wake = ns(&to_peer.wake_cycles, &to_me.wake_cycles);
    let directions = [
        batch_medians(&ns(&to_peer.wake_cycles, &[]), BATCH),
        batch_medians(&ns(&to_me.wake_cycles, &[]), BATCH),
    ];
    let calls = ns(&to_peer.call_cycles, &to_me.call_cycles);
    let n = (to_peer.handoffs + to_me.handoffs).max(1) as f64;
    let mut pass = Pass {
        samples: batch_medians(&wake, BATCH),
        calls: batch_medians(&calls, BATCH),
        // Every wake call between the snapshots, for the counters.
        ops: (mine.wakes.len() + theirs.wakes.len()) as u64,
        timed: Some((
            wake.len() as f64 / n * 100.0,
            calls.len() as f64 / n * 100.0,
        )),
        directions,
        ..Pass::default()
    };
    counters(&mut pass, &start, &end, cpus);
    Ok(pass)
}

/// Absolute sleeps of `period_ns` on `cpu`, `min_ops` at least: how late
/// each returns.
fn timer(
    cpu: usize,
    cpus: &[usize],
    period_ns: u64,
    budget: &Budget,
    min_ops: usize,
) -> anyhow::Result<Pass> {
    let r = std::thread::scope(|s| {
        s.spawn(|| -> io::Result<(Vec<f64>, Snapshot, Snapshot, u64)> {
            sys::pin_current_thread(&[cpu])?;
            tsc::set_timer_slack_min()?;
            let mut late = Vec::new();
            let start = snapshot(cpus);
            let until = sys::monotonic_ns() + (budget.seconds * 1e9) as u64;
            let mut ops = 0;
            // Opened from the sleeper itself: sampling reaches it, and its
            // snapshots stay outside.
            let window = crate::measure::why::Window::open();
            loop {
                let target = sys::monotonic_ns() + period_ns;
                if target > until && ops >= min_ops as u64 {
                    break;
                }
                tsc::sleep_until_ns(target)?;
                late.push(sys::monotonic_ns().saturating_sub(target) as f64);
                ops += 1;
            }
            drop(window);
            Ok((late, start, snapshot(cpus), ops))
        })
        .join()
    });
    let (late, start, end, ops) = r.map_err(|_| anyhow::anyhow!("the sleeper panicked"))??;
    let mut pass = Pass {
        samples: batch_medians(&late, BATCH),
        ops,
        ..Pass::default()
    };
    counters(&mut pass, &start, &end, cpus);
    Ok(pass)
}

/// membarrier calls with a peer thread on `b` spinning (each call
/// interrupts it and waits for it) or blocked (nothing to interrupt).
fn barrier(
    v: Variant,
    a: usize,
    b: usize,
    cpus: &[usize],
    budget: &Budget,
    loop_ns: f64,
) -> anyhow::Result<Pass> {
    sys::pin_current_thread(&[a])?;
    let word = AtomicI32::new(0);
    let (stop, ready) = (AtomicBool::new(false), AtomicBool::new(false));
    std::thread::scope(|s| {
        let peer = s.spawn(|| -> io::Result<()> {
            sys::pin_current_thread(&[b])?;
            ready.store(true, Ordering::Release);
            if v == Variant::IpiRunning {
                while !stop.load(Ordering::Relaxed) {
                    spin_loop();
                }
            } else {
                while word.load(Ordering::Acquire) == 0 {
                    sys::futex_wait(&word, 0, false)?;
                }
            }
            Ok(())
        });
        while !ready.load(Ordering::Acquire) && !peer.is_finished() {
            std::thread::yield_now();
        }
        if v == Variant::IpiBlocked {
            // Time for the peer to park: its CPU then runs the idle task.
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        let (mut ops, mut failed) = (0u64, None);
        let start = snapshot(cpus);
        let samples = per_op(budget, loop_ns, || {
            ops += 1;
            if let Err(e) = sys::membarrier_private_expedited() {
                failed.get_or_insert(e);
            }
        });
        let end = snapshot(cpus);
        stop.store(true, Ordering::Relaxed);
        word.store(1, Ordering::Release);
        let _ = sys::futex_wake(&word, 1, false);
        peer.join()
            .map_err(|_| anyhow::anyhow!("the peer panicked"))??;
        if let Some(e) = failed {
            return Err(e.into());
        }
        let mut pass = Pass {
            samples,
            ops: ops.max(1),
            ..Pass::default()
        };
        counters(&mut pass, &start, &end, cpus);
        Ok(pass)
    })
}

#[cfg(test)]
#[path = "wakeup_tests.rs"]
mod tests;
