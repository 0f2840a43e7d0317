//! switch.wakeup: what waking a thread on another CPU costs, each figure
//! measured, none derived under a stacking model. On the two CPUs
//! switch.pingpong uses:
//! - the one-way wake-up, stamped with the invariant TSC (`rdtscp`) just
//!   before FUTEX_WAKE and on return from FUTEX_WAIT: across CPUs with both
//!   halting when idle, across CPUs with a SCHED_IDLE spinner keeping each
//!   awake, and between two threads on one CPU;
//! - the waker's FUTEX_WAKE call alone, in the same hand-offs;
//! - how late a timer fires on a halted CPU against one kept awake (halt
//!   to run with no IPI);
//! - a membarrier with the peer running (a synchronous IPI round trip to a
//!   running CPU) against it blocked;
//! - per operation, the cpuidle states entered and the RES/CAL interrupts,
//!   so each figure shows the path it took.
//!
//! The arithmetic and the series are in [`super::wakeup_parts`];
//! docs/switch-wakeup.md gives the model and its limits on a VM.

use super::series::ROUND_TRIP_NS;
use super::wakeup_idle::{idled, path_of, Idled};
pub use super::wakeup_parts::*;
use super::{plan_cpus, worker_cpus, CpusPoint, CPUS_PARAM};
use crate::experiments::prelude::*;
use crate::measure::explain::contamination;
use crate::measure::sampler::{interleave, per_op, Budget, CPU_NS, PASSES};
use crate::metric::key::VARIANT;
use crate::sys;
use crate::sys::tsc::{self, TscRate};
use std::hint::spin_loop;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// Whether the barrier's peer was `running` or `blocked`.
pub const PEER: LabelKey = "peer";
/// Which figure a `timed_pct` reading is the share of.
pub const OF: LabelKey = "of";

pub static EXPERIMENT: Experiment = Experiment {
    name: "switch.wakeup",
    metrics: &[
        &WAKE_NS,
        &WAKE_CALL_NS,
        &TIMER_LATE_NS,
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
    params: &[TIMER_US_PARAM.spec, CPUS_PARAM.spec],
    supported,
    points,
    measure,
    analyze,
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
    }
    variants.extend([Variant::TimerIdle, Variant::TimerAwake]);
    match sys::membarrier_register_private_expedited() {
        Ok(()) => variants.extend([Variant::IpiRunning, Variant::IpiBlocked]),
        Err(e) => out.notes.push(format!(
            "the IPI round trip is not measured: membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) failed: {e}"
        )),
    }
    let share = Budget::from_job(job).split(PASSES);
    let passes = interleave(&variants, PASSES, job.seed, |v| {
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
    /// RES and CAL over the pass; None when /proc/interrupts (or a row of
    /// it) could not be read: unknown, never zero.
    res_cal: Option<[u64; 2]>,
    idle: Vec<(String, f64)>,
}

fn push_pass(out: &mut WorkerOutput, v: Variant, passes: &[Pass]) {
    let l = labels(&[(VARIANT, v.name())]);
    let all = |f: &dyn Fn(&Pass) -> &Vec<f64>| passes.iter().flat_map(f).copied().collect();
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
        _ if v.is_timer() => out.push(&TIMER_LATE_NS, l.clone(), all(&|p| &p.samples)),
        _ => {
            out.push(&WAKE_NS, l.clone(), all(&|p| &p.samples));
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
    for p in passes {
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
            _ if v.is_handoff() => {
                let rate = rate.ok_or_else(|| anyhow::anyhow!("no TSC rate"))?;
                handoffs(v, a, peer_cpu, &cpus, rate, budget)
            }
            _ if v.is_timer() => timer(b, &cpus, period_ns, budget),
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
    let (mine, theirs) = (mine?, theirs??);
    let end = snapshot(cpus);
    let same = v == Variant::SameCpu;
    let to_peer = pair_up(&mine.wakes, &theirs.returns, peer_cpu as u32, same);
    let to_me = pair_up(&theirs.wakes, &mine.returns, a as u32, same);
    let ns =
        |c: &[u64], d: &[u64]| -> Vec<f64> { c.iter().chain(d).map(|&x| rate.ns(x)).collect() };
    let wake = ns(&to_peer.wake_cycles, &to_me.wake_cycles);
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
        ..Pass::default()
    };
    counters(&mut pass, &start, &end, cpus);
    Ok(pass)
}

/// Absolute sleeps of `period_ns` on `cpu`: how late each returns.
fn timer(cpu: usize, cpus: &[usize], period_ns: u64, budget: &Budget) -> anyhow::Result<Pass> {
    let r = std::thread::scope(|s| {
        s.spawn(|| -> io::Result<(Vec<f64>, Snapshot, Snapshot, u64)> {
            sys::pin_current_thread(&[cpu])?;
            tsc::set_timer_slack_min()?;
            let mut late = Vec::new();
            let start = snapshot(cpus);
            let until = sys::monotonic_ns() + (budget.seconds * 1e9) as u64;
            let mut ops = 0;
            loop {
                let target = sys::monotonic_ns() + period_ns;
                if target > until && ops >= MIN_HANDOFFS as u64 {
                    break;
                }
                tsc::sleep_until_ns(target)?;
                late.push(sys::monotonic_ns().saturating_sub(target) as f64);
                ops += 1;
            }
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

/// A series' figure: median and interval, with the flag when flagged.
fn fig(s: &Summary) -> String {
    if s.unstable {
        quoted(s, Unit::Ns)
    } else {
        figure(s, Unit::Ns)
    }
}

/// A series' summary at one variant.
fn get<'a>(r: &'a ExperimentResult, spec: &MetricSpec, v: Variant) -> Option<&'a Summary> {
    r.find(spec, &[(VARIANT, v.name())]).map(|m| &m.summary)
}

/// How a difference is set in its sentence: " (… per hand-off)" or ": …".
enum Wrap {
    PerHandoff,
    Colon,
}

/// `x` against `y` in words: the bound of their difference (`more` when
/// `x` is the larger, `less` when it is the smaller), set as `wrap` says;
/// when the interval cannot tell them apart, its own text if `unclear`
/// says so, or nothing.
fn versus(
    x: &Summary,
    y: &Summary,
    (more, less): (&str, &str),
    wrap: Wrap,
    unclear: bool,
) -> String {
    let Some(d) = diff(x, y, Unit::Ns) else {
        return String::new();
    };
    match (bound(&d, more, less), wrap) {
        (Some(b), Wrap::PerHandoff) => format!(" ({b} per hand-off)"),
        (Some(b), Wrap::Colon) => format!(": {b}"),
        (None, _) if !unclear => String::new(),
        (None, Wrap::PerHandoff) => format!(" (indistinguishable here: {})", d.text()),
        (None, Wrap::Colon) => format!(": indistinguishable here ({})", d.text()),
    }
}

/// The one-way wake-up, where each CPU idled, kept awake, and on one CPU.
fn handoff_finding(r: &ExperimentResult) -> Option<String> {
    let cross = get(r, &WAKE_NS, Variant::CrossCpu)?;
    let how = match idled(r, Variant::CrossCpu) {
        Some(Idled::Uncounted) => format!(", {}", Idled::Uncounted.word()),
        Some(h) => format!(", the CPUs {} when idle", h.word()),
        None => ", the CPUs entering no idle state in most hand-offs".into(),
    };
    let mut s = format!(
        "a one-way futex wake-up to the other CPU (invariant TSC, from just before FUTEX_WAKE to the return from FUTEX_WAIT{how}) takes {}",
        fig(cross)
    );
    if let Some(awake) = get(r, &WAKE_NS, Variant::CrossCpuAwake) {
        s.push_str(&format!(
            "; with each CPU kept awake by a SCHED_IDLE spinner {}",
            fig(awake)
        ));
        let words = (
            "keeping the peer awake saves",
            "keeping the peer awake costs",
        );
        s.push_str(&versus(cross, awake, words, Wrap::PerHandoff, true));
    }
    if let Some(same) = get(r, &WAKE_NS, Variant::SameCpu) {
        s.push_str(&format!("; on one CPU {}", fig(same)));
        let words = (
            "the other CPU takes longer, by",
            "the other CPU is quicker, by",
        );
        s.push_str(&versus(cross, same, words, Wrap::PerHandoff, false));
    }
    Some(s)
}

/// The waker's own call.
fn wake_call_finding(r: &ExperimentResult) -> Option<String> {
    let cross = get(r, &WAKE_CALL_NS, Variant::CrossCpu)?;
    let same = get(r, &WAKE_CALL_NS, Variant::SameCpu)?;
    let words = (
        "waking across CPUs costs the waker more, by",
        "waking across CPUs costs the waker less, by",
    );
    // On one CPU a call is timed only when the sleeper had not run before
    // it returned: the figure (and any bound on it) is of those calls.
    let subset = r
        .median(
            &TIMED_PCT,
            &[(VARIANT, Variant::SameCpu.name()), (OF, WAKE_CALL_NS.name)],
        )
        .filter(|pct| *pct < 90.0)
        .map_or(String::new(), |pct| {
            format!(" (of the {pct:.0}% of its calls timed there: those the sleeper did not run before)")
        });
    Some(format!(
        "the waker's FUTEX_WAKE call takes {} when the sleeper is on the other CPU, {} when it is on the same CPU{subset}{}",
        fig(cross),
        fig(same),
        versus(cross, same, words, Wrap::Colon, true)
    ))
}

/// A timer: halt to run with no IPI.
fn timer_finding(r: &ExperimentResult) -> Option<String> {
    let idle = get(r, &TIMER_LATE_NS, Variant::TimerIdle)?;
    let awake = get(r, &TIMER_LATE_NS, Variant::TimerAwake)?;
    let idle_state = idled(r, Variant::TimerIdle);
    let cpu = match idle_state {
        Some(Idled::Halting) => "a halted CPU",
        Some(Idled::Polling) => "an idle CPU that polled",
        Some(Idled::Uncounted) => "a CPU left without work (no cpuidle driver: HLT, not counted)",
        None => "a CPU left without work (it entered no idle state in most wakes)",
    };
    let more = match idle_state {
        Some(Idled::Halting) => "leaving the halt (no IPI) costs",
        Some(Idled::Polling) => "leaving the polling idle loop (no IPI) costs",
        Some(Idled::Uncounted) | None => "not being kept awake costs",
    };
    let words = (more, "the kept-awake CPU is later by");
    Some(format!(
        "a timer fires {} late on {cpu}, {} late on one kept awake by a SCHED_IDLE spinner{}",
        fig(idle),
        fig(awake),
        versus(idle, awake, words, Wrap::Colon, true)
    ))
}

/// The membarrier figure, under its real name.
fn barrier_finding(r: &ExperimentResult) -> Option<String> {
    let run = get(r, &BARRIER_NS, Variant::IpiRunning)?;
    let mut s = format!(
        "a synchronous IPI round trip to a running CPU (membarrier, the peer thread spinning there) takes {}",
        fig(run)
    );
    if let Some(blk) = get(r, &BARRIER_NS, Variant::IpiBlocked) {
        s.push_str(&format!(", {} with the peer blocked (no IPI)", fig(blk)));
        let words = ("the round trip adds", "the round trip saves");
        s.push_str(&versus(run, blk, words, Wrap::Colon, false));
    }
    s.push_str("; it is not a part of the hand-off, whose IPI is one-way and goes to a CPU that may have halted");
    Some(s)
}

/// The path each probe took.
fn paths_finding(r: &ExperimentResult) -> Option<String> {
    let paths: Vec<String> = [
        (Variant::CrossCpu, "cross-CPU hand-off", "hand-off"),
        (Variant::CrossCpuAwake, "kept-awake hand-off", "hand-off"),
        (Variant::SameCpu, "one-CPU hand-off", "hand-off"),
        (Variant::TimerIdle, "timer on an idle CPU", "wake"),
    ]
    .iter()
    .filter_map(|&(v, what, per)| Some(format!("{what}: {}", path_of(r, v, per)?)))
    .collect();
    (!paths.is_empty()).then(|| {
        format!(
            "the path each took (counted on its CPUs, machine-wide): {}",
            paths.join("; ")
        )
    })
}

/// The hand-off variants whose probes were timed for fewer than 90% of
/// the hand-offs.
fn timed_notes(r: &ExperimentResult) -> Vec<String> {
    let mut notes = Vec::new();
    for v in [Variant::CrossCpu, Variant::CrossCpuAwake, Variant::SameCpu] {
        let pct = |of: &str| r.median(&TIMED_PCT, &[(VARIANT, v.name()), (OF, of)]);
        if let (Some(w), Some(c)) = (pct(WAKE_NS.name), pct(WAKE_CALL_NS.name)) {
            if w < 90.0 || c < 90.0 {
                notes.push(format!(
                    "{}: {w:.0}% of the hand-offs timed for the wake-up, {c:.0}% for the wake call (the others: the wakee was not asleep, ran on another CPU, or on one CPU ran before the call returned)",
                    v.name()
                ));
            }
        }
    }
    notes
}

fn analyze(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    a.findings.extend(
        [
            handoff_finding(r),
            wake_call_finding(r),
            timer_finding(r),
            barrier_finding(r),
            paths_finding(r),
        ]
        .into_iter()
        .flatten(),
    );
    a.notes.extend(timed_notes(r));
    a.notes.extend(contamination(&r.round_log, None));
    a
}

#[cfg(test)]
#[path = "wakeup_tests.rs"]
mod tests;
