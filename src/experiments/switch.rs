//! Context switching: what it costs to hand the CPU from one task to another.
//!
//! Reproduces Bendersky's "How expensive are context switches?" (seed 002):
//! two tasks ping-pong a 4-byte message through a pipe or a condition variable,
//! pinned to one core (1.2–1.5 µs per switch) and unpinned (~2.2 µs); a pipe
//! echo (~400,000 iterations/s pinned, about half unpinned); goroutines over a
//! channel (~2.8 M iterations/s, ~170 ns per switch). Every figure here is
//! **per switch = round trip / 2**; `round_trip_ns` is what `perf bench sched
//! pipe` reports per op. Beyond the seed: futexes and `sched_yield`, processes
//! as well as threads, cross-CPU placements (a wake-up latency, not a switch
//! path), CPUs kept awake by `SCHED_IDLE` spinners, the IPC's own cost without
//! a switch, the indirect (cache) cost, and user-space switches.

use super::prelude::*;
use crate::measure::sampler::{per_op, Budget};
use crate::sys::{self, SharedPage};
use std::fs::File;
use std::hint::black_box;
use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};

// ------------------------------------------------------------- the engine

/// A message asking the partner to record its switch counters and CPU.
const MARK: u32 = u32::MAX - 1;
/// A message telling the partner to stop (no reply).
const STOP: u32 = u32::MAX;

/// Shared-page slots: the partner's counters (u64 1, 2), the CPUs it ran on
/// as a bit mask (u64 3); the futex/yield turn word (i32 8) and message
/// (u64 8).
const SLOT_VOL: usize = 1;
const SLOT_INVOL: usize = 2;
const SLOT_CPUS: usize = 3;
/// The partner's CPU at its last mark (i32).
const SLOT_BCPU: usize = 1;
const SLOT_TURN: usize = 8;
const SLOT_MSG: usize = 8;

/// Whose turn it is in the futex and yield protocols.
const TURN_B: i32 = 1;
const TURN_A: i32 = 2;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mech {
    Pipe,
    Futex,
    Condvar,
    Yield,
}

/// One ping-pong method.
pub struct Method {
    pub name: &'static str,
    pub mech: Mech,
    pub processes: bool,
    pub what: &'static str,
    /// What the IPC costs per switch without a switch, in words.
    pub baseline: &'static str,
}

pub const METHODS: &[Method] = &[
    Method {
        name: "pipe_threads",
        mech: Mech::Pipe,
        processes: false,
        what: "two threads, 4 bytes out on one pipe and back on another (perf bench sched pipe -T)",
        baseline: "one write + one read of 4 bytes on a pipe by one task",
    },
    Method {
        name: "pipe_processes",
        mech: Mech::Pipe,
        processes: true,
        what: "two processes (fork), 4 bytes out on one pipe and back on another (perf bench sched pipe)",
        baseline: "one write + one read of 4 bytes on a pipe by one task",
    },
    Method {
        name: "futex_threads",
        mech: Mech::Futex,
        processes: false,
        what: "two threads taking turns on a private futex word",
        baseline: "an uncontended FUTEX_WAKE (no waiter) + a FUTEX_WAIT that returns at once",
    },
    Method {
        name: "futex_processes",
        mech: Mech::Futex,
        processes: true,
        what: "two processes taking turns on a shared futex word in a MAP_SHARED page",
        baseline: "an uncontended shared FUTEX_WAKE + a FUTEX_WAIT that returns at once",
    },
    Method {
        name: "condvar",
        mech: Mech::Condvar,
        processes: false,
        what: "two threads taking turns on a std Mutex + Condvar",
        baseline: "lock + notify_one with no waiter + unlock",
    },
    Method {
        name: "sched_yield",
        mech: Mech::Yield,
        processes: false,
        what: "two threads on one CPU spinning on a turn word with sched_yield",
        baseline: "sched_yield with nothing else runnable on the CPU",
    },
];

/// The ping-pong methods as `-p methods=` takes them.
pub const METHOD_NAMES: &[Choice] = &[
    Choice::new("pipe_threads", "two threads over a pair of pipes"),
    Choice::new("pipe_processes", "two processes over a pair of pipes"),
    Choice::new("futex_threads", "two threads on a private futex word"),
    Choice::new("futex_processes", "two processes on a shared futex word"),
    Choice::new("condvar", "two threads on a Mutex + Condvar"),
    Choice::new("sched_yield", "two threads on one CPU yielding in turn"),
];

fn method(name: &str) -> Option<&'static Method> {
    METHODS.iter().find(|m| m.name == name)
}

/// Where the two tasks run.
#[derive(Clone, Debug)]
pub struct Place {
    pub name: &'static str,
    pub a: Vec<usize>,
    pub b: Vec<usize>,
    /// Keep these CPUs busy with SCHED_IDLE spinners while measuring.
    pub awake: Vec<usize>,
}

impl Place {
    pub fn same(cpu: usize) -> Place {
        Place {
            name: "same_cpu",
            a: vec![cpu],
            b: vec![cpu],
            awake: vec![],
        }
    }

    pub fn unpinned(all: &[usize]) -> Place {
        Place {
            name: "unpinned",
            a: all.to_vec(),
            b: all.to_vec(),
            awake: vec![],
        }
    }
}

/// The measuring side's end of a ping-pong.
enum AEnd {
    Pipe { w: File, r: File },
    Futex { page: Arc<SharedPage>, shared: bool },
    Condvar(Arc<Cv>),
    Yield(Arc<SharedPage>),
}

/// The partner's end: it echoes every message back.
enum BEnd {
    Pipe { r: File, w: File },
    Futex { page: Arc<SharedPage>, shared: bool },
    Condvar(Arc<Cv>),
    Yield(Arc<SharedPage>),
}

struct Cv {
    state: Mutex<(i32, u32)>,
    cv: Condvar,
}

fn ends(mech: Mech, page: &Arc<SharedPage>, shared: bool) -> io::Result<(AEnd, BEnd)> {
    page.i32(SLOT_TURN).store(TURN_A, Ordering::SeqCst);
    Ok(match mech {
        Mech::Pipe => {
            let (r1, w1) = sys::pipe(false)?;
            let (r2, w2) = sys::pipe(false)?;
            (
                AEnd::Pipe {
                    w: File::from(w1),
                    r: File::from(r2),
                },
                BEnd::Pipe {
                    r: File::from(r1),
                    w: File::from(w2),
                },
            )
        }
        Mech::Futex => (
            AEnd::Futex {
                page: page.clone(),
                shared,
            },
            BEnd::Futex {
                page: page.clone(),
                shared,
            },
        ),
        Mech::Condvar => {
            let cv = Arc::new(Cv {
                state: Mutex::new((TURN_A, 0)),
                cv: Condvar::new(),
            });
            (AEnd::Condvar(cv.clone()), BEnd::Condvar(cv))
        }
        Mech::Yield => (AEnd::Yield(page.clone()), BEnd::Yield(page.clone())),
    })
}

fn poisoned<T>(_: T) -> io::Error {
    io::Error::other("partner thread panicked holding the lock")
}

impl AEnd {
    /// Sends `v` and waits for it to come back: one round trip.
    #[inline]
    fn round_trip(&mut self, v: u32) -> io::Result<()> {
        match self {
            AEnd::Pipe { w, r } => {
                w.write_all(&v.to_ne_bytes())?;
                let mut buf = [0u8; 4];
                r.read_exact(&mut buf)
            }
            AEnd::Futex { page, shared } => {
                let turn = page.i32(SLOT_TURN);
                page.u64(SLOT_MSG).store(v as u64, Ordering::Relaxed);
                turn.store(TURN_B, Ordering::Release);
                sys::futex_wake(turn, 1, *shared)?;
                while turn.load(Ordering::Acquire) != TURN_A {
                    sys::futex_wait(turn, TURN_B, *shared)?;
                }
                Ok(())
            }
            AEnd::Condvar(cv) => {
                let mut g = cv.state.lock().map_err(poisoned)?;
                *g = (TURN_B, v);
                cv.cv.notify_one();
                while g.0 != TURN_A {
                    g = cv.cv.wait(g).map_err(poisoned)?;
                }
                Ok(())
            }
            AEnd::Yield(page) => {
                let turn = page.i32(SLOT_TURN);
                page.u64(SLOT_MSG).store(v as u64, Ordering::Relaxed);
                turn.store(TURN_B, Ordering::Release);
                while turn.load(Ordering::Acquire) != TURN_A {
                    sys::sched_yield();
                }
                Ok(())
            }
        }
    }

    /// Tells the partner to stop; it does not reply.
    fn stop(&mut self) -> io::Result<()> {
        match self {
            AEnd::Pipe { w, .. } => w.write_all(&STOP.to_ne_bytes()),
            AEnd::Futex { page, shared } => {
                let turn = page.i32(SLOT_TURN);
                page.u64(SLOT_MSG).store(STOP as u64, Ordering::Relaxed);
                turn.store(TURN_B, Ordering::Release);
                sys::futex_wake(turn, 1, *shared).map(drop)
            }
            AEnd::Condvar(cv) => {
                let mut g = cv.state.lock().map_err(poisoned)?;
                *g = (TURN_B, STOP);
                cv.cv.notify_one();
                Ok(())
            }
            AEnd::Yield(page) => {
                page.u64(SLOT_MSG).store(STOP as u64, Ordering::Relaxed);
                page.i32(SLOT_TURN).store(TURN_B, Ordering::Release);
                Ok(())
            }
        }
    }
}

/// The partner records its own switch counters and CPU where the measuring
/// side can read them (a MARK message asks for it, outside the timed window).
fn record(page: &SharedPage) {
    if let Ok(s) = sys::switches(false) {
        page.u64(SLOT_VOL).store(s.voluntary, Ordering::SeqCst);
        page.u64(SLOT_INVOL).store(s.involuntary, Ordering::SeqCst);
    }
    let cpu = sys::current_cpu();
    page.i32(SLOT_BCPU).store(cpu, Ordering::SeqCst);
    page.u64(SLOT_CPUS).fetch_or(cpu_bit(cpu), Ordering::SeqCst);
}

fn cpu_bit(cpu: i32) -> u64 {
    if (0..64).contains(&cpu) {
        1 << cpu
    } else {
        0
    }
}

/// Touches one byte per cache line of `buf`: a task's working set.
#[inline]
fn walk(buf: &mut [u8]) {
    let mut i = 0;
    while i < buf.len() {
        buf[i] = buf[i].wrapping_add(1);
        i += 64;
    }
    black_box(buf);
}

impl BEnd {
    /// Echoes messages until STOP, walking `ws` bytes of its own before each
    /// reply (the indirect-cost experiment; 0 for none).
    fn serve(self, page: &SharedPage, ws: usize) -> io::Result<()> {
        let mut buf_ws = vec![1u8; ws];
        let mut work = |v: u32| {
            if v == MARK {
                record(page);
            } else if ws > 0 {
                walk(&mut buf_ws);
            }
        };
        match self {
            BEnd::Pipe { mut r, mut w } => loop {
                let mut buf = [0u8; 4];
                match r.read_exact(&mut buf) {
                    Ok(()) => {}
                    Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(()),
                    Err(e) => return Err(e),
                }
                let v = u32::from_ne_bytes(buf);
                if v == STOP {
                    return Ok(());
                }
                work(v);
                w.write_all(&buf)?;
            },
            BEnd::Futex { page: p, shared } => {
                let turn = p.i32(SLOT_TURN);
                loop {
                    while turn.load(Ordering::Acquire) != TURN_B {
                        sys::futex_wait(turn, TURN_A, shared)?;
                    }
                    let v = p.u64(SLOT_MSG).load(Ordering::Relaxed) as u32;
                    if v == STOP {
                        return Ok(());
                    }
                    work(v);
                    turn.store(TURN_A, Ordering::Release);
                    sys::futex_wake(turn, 1, shared)?;
                }
            }
            BEnd::Condvar(cv) => {
                let mut g = cv.state.lock().map_err(poisoned)?;
                loop {
                    while g.0 != TURN_B {
                        g = cv.cv.wait(g).map_err(poisoned)?;
                    }
                    let v = g.1;
                    if v == STOP {
                        return Ok(());
                    }
                    work(v);
                    g.0 = TURN_A;
                    cv.cv.notify_one();
                }
            }
            BEnd::Yield(p) => {
                let turn = p.i32(SLOT_TURN);
                loop {
                    while turn.load(Ordering::Acquire) != TURN_B {
                        sys::sched_yield();
                    }
                    let v = p.u64(SLOT_MSG).load(Ordering::Relaxed) as u32;
                    if v == STOP {
                        return Ok(());
                    }
                    work(v);
                    turn.store(TURN_A, Ordering::Release);
                }
            }
        }
    }
}

enum Partner {
    Thread(std::thread::JoinHandle<io::Result<()>>),
    Process(sys::Child),
}

impl Partner {
    fn finish(self) -> io::Result<()> {
        match self {
            Partner::Thread(h) => h
                .join()
                .map_err(|_| io::Error::other("partner thread panicked"))?,
            Partner::Process(c) => c.wait(),
        }
    }

    fn kill(self) {
        match self {
            // A thread cannot be killed; the worker's exit ends it.
            Partner::Thread(_) => {}
            Partner::Process(c) => {
                let _ = sys::kill_pid(c.pid);
                let _ = c.wait();
            }
        }
    }
}

fn start_partner(
    b: BEnd,
    page: &Arc<SharedPage>,
    cpus: &[usize],
    processes: bool,
    ws: usize,
) -> io::Result<Partner> {
    let cpus = cpus.to_vec();
    if processes {
        let page = page.clone();
        let child = sys::fork_run(move || {
            if sys::pin_current_thread(&cpus).is_err() {
                return 3;
            }
            match b.serve(&page, ws) {
                Ok(()) => 0,
                Err(_) => 4,
            }
        })?;
        Ok(Partner::Process(child))
    } else {
        let page = page.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        let h = std::thread::Builder::new()
            .name("pingpong-b".into())
            .spawn(move || {
                let pinned = sys::pin_current_thread(&cpus);
                let ok = pinned.is_ok();
                let _ = tx.send(pinned);
                if !ok {
                    return Ok(());
                }
                b.serve(&page, ws)
            })?;
        match rx.recv() {
            Ok(Ok(())) => Ok(Partner::Thread(h)),
            Ok(Err(e)) => {
                let _ = h.join();
                Err(io::Error::other(format!("cannot pin the partner: {e}")))
            }
            Err(_) => Err(io::Error::other("partner thread died at start")),
        }
    }
}

/// SCHED_IDLE spinners that keep CPUs out of their idle state.
struct Spinners {
    stop: Arc<AtomicBool>,
    handles: Vec<std::thread::JoinHandle<io::Result<()>>>,
}

impl Spinners {
    fn start(cpus: &[usize]) -> io::Result<Spinners> {
        let stop = Arc::new(AtomicBool::new(false));
        let mut s = Spinners {
            stop: stop.clone(),
            handles: Vec::new(),
        };
        for &c in cpus {
            let stop = stop.clone();
            let (tx, rx) = std::sync::mpsc::channel();
            s.handles.push(std::thread::spawn(move || {
                let r = sys::pin_current_thread(&[c]).and_then(|_| sys::set_sched_idle());
                let failed = r.as_ref().err().map(|e| e.to_string());
                let _ = tx.send(failed);
                while !stop.load(Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
                r
            }));
            if let Ok(Some(e)) = rx.recv() {
                s.finish();
                return Err(io::Error::other(format!(
                    "cannot start a SCHED_IDLE spinner on CPU {c}: {e}"
                )));
            }
        }
        Ok(s)
    }

    fn finish(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
    }
}

impl Drop for Spinners {
    fn drop(&mut self) {
        self.finish();
    }
}

/// What one ping-pong series measured.
#[derive(Default, Debug)]
pub struct PairResult {
    pub round_trip_ns: Vec<f64>,
    pub voluntary: Vec<f64>,
    pub involuntary: Vec<f64>,
    pub a_cpus: u64,
    pub b_cpus: u64,
    /// Fraction of batches that ended with both tasks on one CPU.
    pub same_cpu_fraction: f64,
    pub round_trips_per_sample: u64,
}

/// Ping-pongs between this thread (pinned to `place.a`) and a partner
/// (`place.b`), `ws` bytes walked by each side between switches. The
/// partner is created before and joined after the timed batches.
pub fn run_pair(
    m: &Method,
    place: &Place,
    budget: &Budget,
    all: &[usize],
    ws: usize,
) -> io::Result<PairResult> {
    sys::pin_current_thread(&place.a)?;
    let page = Arc::new(SharedPage::new()?);
    let (mut a, b) = ends(m.mech, &page, m.processes)?;
    let partner = start_partner(b, &page, &place.b, m.processes, ws)?;
    let result = (|| {
        let _spin = if place.awake.is_empty() {
            None
        } else {
            Some(Spinners::start(&place.awake)?)
        };
        drive(&mut a, &page, budget, ws)
    })();
    let stopped = a.stop();
    let outcome = match (&result, stopped) {
        (Ok(_), Ok(())) => partner.finish(),
        _ => {
            partner.kill();
            Ok(())
        }
    };
    sys::pin_current_thread(all)?;
    let r = result?;
    outcome?;
    Ok(r)
}

/// How many batches, and how long each, a series' budget buys: batches of
/// 0.1 to 1 ms, at least 15 of them.
fn batches(budget: &Budget) -> (usize, f64) {
    let target_ns = (budget.seconds * 1e9 / 30.0).clamp(100_000.0, 1_000_000.0);
    let samples = ((budget.seconds * 1e9 / target_ns) as usize)
        .clamp(budget.min_samples.max(15), budget.max_samples.max(15));
    (samples, target_ns)
}

/// The measuring side: size a batch to its share of the budget, then time
/// batches, reading both tasks' switch counters around each.
fn drive(a: &mut AEnd, page: &SharedPage, budget: &Budget, ws: usize) -> io::Result<PairResult> {
    let mut buf_ws = vec![1u8; ws];
    // Short batches (as per_op does): on a busy machine most run without
    // being preempted, and the budget buys more of them, not longer ones.
    let (samples, target_ns) = batches(budget);
    let mut n: u64 = 1;
    for _ in 0..3 {
        a.round_trip(0)?; // the partner is up and warm
    }
    let mut batch = |a: &mut AEnd, n: u64| -> io::Result<f64> {
        let t0 = sys::monotonic_ns();
        for i in 0..n {
            if ws > 0 {
                walk(&mut buf_ws);
            }
            a.round_trip(i as u32 & 0xffff)?;
        }
        Ok((sys::monotonic_ns() - t0) as f64)
    };
    loop {
        let dt = batch(a, n)?;
        if dt >= target_ns || n >= 1 << 32 {
            break;
        }
        let grow = (target_ns / dt.max(1.0)).clamp(2.0, 10.0);
        n = (n as f64 * grow).ceil() as u64;
    }
    let n = n.max(4);
    let mut r = PairResult {
        round_trips_per_sample: n,
        ..Default::default()
    };
    let b_counts = |p: &SharedPage| {
        (
            p.u64(SLOT_VOL).load(Ordering::SeqCst),
            p.u64(SLOT_INVOL).load(Ordering::SeqCst),
        )
    };
    a.round_trip(MARK)?;
    let mut b0 = b_counts(page);
    let mut same = 0;
    for _ in 0..samples {
        let a0 = sys::switches(false)?;
        let cpu = sys::current_cpu();
        r.a_cpus |= cpu_bit(cpu);
        let dt = batch(a, n)?;
        let a1 = sys::switches(false)?;
        let a_cpu = sys::current_cpu();
        r.a_cpus |= cpu_bit(a_cpu);
        a.round_trip(MARK)?;
        let b1 = b_counts(page);
        // The partner blocks once more than we do between two marks: it
        // waits for the first message of the batch after answering the mark.
        let per = |a: u64, b: u64| a as f64 / n as f64 + b as f64 / (n + 1) as f64;
        r.round_trip_ns.push(dt / n as f64);
        r.voluntary
            .push(per(a1.voluntary - a0.voluntary, b1.0.saturating_sub(b0.0)));
        r.involuntary.push(per(
            a1.involuntary - a0.involuntary,
            b1.1.saturating_sub(b0.1),
        ));
        b0 = b1;
        // where both were at the end of the batch
        if a_cpu >= 0 && page.i32(SLOT_BCPU).load(Ordering::SeqCst) == a_cpu {
            same += 1;
        }
    }
    r.b_cpus = page.u64(SLOT_CPUS).load(Ordering::SeqCst);
    r.same_cpu_fraction = same as f64 / samples as f64;
    Ok(r)
}

fn cpu_mask_list(mask: u64) -> String {
    let v: Vec<usize> = (0..64).filter(|i| mask & (1 << i) != 0).collect();
    if v.is_empty() {
        "?".into()
    } else {
        crate::env::cpu_list(&v)
    }
}

/// Pushes one ping-pong series under `base` labels; notes where it ran.
fn push_pair(out: &mut WorkerOutput, base: &Labels, r: &PairResult) {
    out.push(
        "switch_ns",
        Unit::Ns,
        base.clone(),
        r.round_trip_ns.iter().map(|x| x / 2.0).collect(),
    );
    out.push_detail(
        "round_trip_ns",
        Unit::Ns,
        base.clone(),
        r.round_trip_ns.clone(),
    );
    let total: Vec<f64> = r
        .voluntary
        .iter()
        .zip(&r.involuntary)
        .map(|(v, i)| v + i)
        .collect();
    out.push("switches_per_round_trip", Unit::Count, base.clone(), total);
    out.push_detail(
        "voluntary_per_round_trip",
        Unit::Count,
        base.clone(),
        r.voluntary.clone(),
    );
    out.push_detail(
        "involuntary_per_round_trip",
        Unit::Count,
        base.clone(),
        r.involuntary.clone(),
    );
    out.reading(
        "same_cpu_fraction",
        Unit::Ratio,
        base.clone(),
        r.same_cpu_fraction,
    );
    let case: Vec<String> = base
        .iter()
        .filter(|(k, _)| !crate::results::HIDDEN_LABELS.contains(&k.as_str()))
        .map(|(_, v)| v.clone())
        .collect();
    out.notes.push(format!(
        "{}: task A ran on CPU {}, task B on CPU {} ({} round trips per sample)",
        case.join("/"),
        cpu_mask_list(r.a_cpus),
        cpu_mask_list(r.b_cpus),
        r.round_trips_per_sample
    ));
}

// ------------------------------------------------------------ parameters

const CPUS_PARAM: ParamSpec = ParamSpec {
    name: "cpus",
    help: "the CPU for same-CPU runs, then the second CPU for two-CPU runs",
    kind: ParamKind::CountList { min: 0, max: 4095 },
    quick: "0,1",
    thorough: "0,1",
};

const PER_SWITCH_NOTE: &str =
    "switch_ns is per switch = round trip / 2 (a round trip is two switches); round_trip_ns is what `perf bench sched pipe` reports per op";

/// Checks the `cpus` parameter against the affinity mask: a CPU the user
/// named that cannot be used is an error; a default that does not fit is
/// replaced by allowed CPUs with a note.
fn plan_cpus(ctx: &PlanCtx, notes: &mut Vec<String>) -> Result<Vec<usize>, String> {
    let allowed = &ctx.env.cpus_allowed;
    let asked: Vec<usize> = ctx
        .params
        .list("cpus")
        .iter()
        .map(|&c| c as usize)
        .collect();
    let user_set = ctx.user_set.iter().any(|n| n == "cpus");
    if let Some(bad) = asked.iter().find(|c| !allowed.contains(c)) {
        let msg = format!(
            "CPU {bad} does not exist or is not in this process's affinity mask (allowed: {})",
            crate::env::cpu_list(allowed)
        );
        if user_set {
            return Err(msg);
        }
        let mut v: Vec<usize> = allowed.iter().copied().take(2).collect();
        if v.is_empty() {
            v.push(0);
        }
        notes.push(format!(
            "{msg}; using CPU {} instead",
            crate::env::cpu_list(&v)
        ));
        return Ok(v);
    }
    if user_set && asked.len() >= 2 && asked[0] == asked[1] {
        return Err(format!(
            "cpus: the two CPUs must differ (got {},{}); give one CPU to skip the two-CPU placements",
            asked[0], asked[1]
        ));
    }
    Ok(asked)
}

fn job_cpus(job: &Job) -> Vec<usize> {
    job.point["cpus"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|c| c.as_u64())
                .map(|c| c as usize)
                .collect()
        })
        .unwrap_or_else(|| vec![0])
}

/// The CPUs this worker may use, and the first-choice CPUs from the plan
/// that are among them (a `--pin` can narrow the mask).
fn worker_cpus(job: &Job, notes: &mut Vec<String>) -> io::Result<(Vec<usize>, Vec<usize>)> {
    let all = sys::allowed_cpus()?;
    let want = job_cpus(job);
    let mut use_: Vec<usize> = want.iter().copied().filter(|c| all.contains(c)).collect();
    if use_.len() < want.len() {
        notes.push(format!(
            "CPUs {} are not all in this worker's affinity mask {} (--pin?); using {}",
            crate::env::cpu_list(&want),
            crate::env::cpu_list(&all),
            crate::env::cpu_list(&all[..all.len().min(2)])
        ));
        use_ = all.iter().copied().take(want.len().max(1)).collect();
    }
    Ok((all, use_))
}

// -------------------------------------------------------------- pingpong

pub const PLACEMENTS: &[Choice] = &[
    Choice::new("same_cpu", "both tasks pinned to one CPU: the switch path"),
    Choice::new("two_cpus", "pinned to two CPUs: a wake-up on the other CPU"),
    Choice::new(
        "two_cpus_awake",
        "two CPUs kept awake by SCHED_IDLE spinners",
    ),
    Choice::new("unpinned", "wherever the scheduler puts them"),
];

pub static PINGPONG: Experiment = Experiment {
    name: "switch.pingpong",
    summary: "ns per switch (round trip / 2) of two tasks ping-ponging: pipe, futex, condvar, sched_yield; threads and processes; one CPU, two CPUs, two CPUs kept awake, unpinned",
    reproduces: "Bendersky \"How expensive are context switches?\": 1.2–1.5 µs per switch pinned, ~2.2 µs unpinned",
    params: &[
        ParamSpec {
            name: "methods",
            help: "ping-pong methods",
            kind: ParamKind::Names(METHOD_NAMES),
            quick: "all",
            thorough: "all",
        },
        ParamSpec {
            name: "placements",
            help: "same_cpu: both pinned to one CPU; two_cpus: pinned apart; two_cpus_awake: apart, with SCHED_IDLE spinners keeping both CPUs out of idle; unpinned",
            kind: ParamKind::Names(PLACEMENTS),
            quick: "all",
            thorough: "all",
        },
        CPUS_PARAM,
    ],
    seeds: &[
        SeedFigure {
            metric: "switch_ns",
            labels: &[("method", "pipe_threads"), ("placement", "same_cpu")],
            lo: 1200.0,
            hi: 1500.0,
            unit: Unit::Ns,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "two threads ping-ponging over a pipe, taskset to one core, per switch",
        },
        SeedFigure {
            metric: "switch_ns",
            labels: &[("method", "condvar"), ("placement", "same_cpu")],
            lo: 1200.0,
            hi: 1500.0,
            unit: Unit::Ns,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "two threads signalling over a condition variable, taskset to one core, per switch",
        },
        SeedFigure {
            metric: "copy_ns",
            labels: &[("size", "64 KiB")],
            lo: 3000.0,
            hi: 3000.0,
            unit: Unit::Ns,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "memcpy of 64 KiB, the seed's yardstick for a switch",
        },
        SeedFigure {
            metric: "switch_ns",
            labels: &[("method", "pipe_threads"), ("placement", "unpinned")],
            lo: 2200.0,
            hi: 2200.0,
            unit: Unit::Ns,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "two threads ping-ponging over a pipe, unpinned, per switch",
        },
        SeedFigure {
            metric: "switch_ns",
            labels: &[("method", "condvar"), ("placement", "unpinned")],
            lo: 2200.0,
            hi: 2200.0,
            unit: Unit::Ns,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "two threads over a condition variable, unpinned, per switch",
        },
    ],
    hidden: false,
    supported: always_supported,
    points: pingpong_points,
    measure: measure_pingpong,
    analyze: analyze_pingpong,
    ..Experiment::DEFAULT
};

fn pingpong_points(ctx: &PlanCtx) -> Result<Points, String> {
    let mut pts = Points::default();
    let cpus = plan_cpus(ctx, &mut pts.notes)?;
    let mut placements = ctx.params.names("placements");
    let two: Vec<&str> = vec!["two_cpus", "two_cpus_awake"];
    if cpus.len() < 2 && placements.iter().any(|p| two.contains(&p.as_str())) {
        let why = if ctx.env.cpus_allowed.len() < 2 {
            format!("only {} CPU is allowed here", ctx.env.cpus_allowed.len())
        } else {
            "the cpus parameter names one CPU".to_string()
        };
        pts.notes.push(format!("two-CPU placements skipped: {why}"));
        placements.retain(|p| !two.contains(&p.as_str()));
    }
    pts.notes.push(PER_SWITCH_NOTE.into());
    // One fresh worker per method: a forked partner needs a single-threaded
    // parent, and no method inherits another's warm caches or leftovers.
    for m in ctx.params.names("methods") {
        let place: Vec<&String> = placements
            .iter()
            .filter(|p| m != "sched_yield" || p.as_str() == "same_cpu")
            .collect();
        if m == "sched_yield" && place.len() < placements.len() {
            pts.notes.push(
                "sched_yield runs on one CPU only: on two CPUs the tasks would spin, not switch"
                    .into(),
            );
        }
        if place.is_empty() {
            continue;
        }
        pts.points.push(serde_json::json!({
            "method": m, "placements": place, "cpus": cpus,
        }));
    }
    Ok(pts)
}

fn placement(name: &str, cpus: &[usize], all: &[usize]) -> Place {
    let (c0, c1) = (cpus[0], *cpus.get(1).unwrap_or(&cpus[0]));
    match name {
        "same_cpu" => Place::same(c0),
        "two_cpus" => Place {
            name: "two_cpus",
            a: vec![c0],
            b: vec![c1],
            awake: vec![],
        },
        "two_cpus_awake" => Place {
            name: "two_cpus_awake",
            a: vec![c0],
            b: vec![c1],
            awake: vec![c0, c1],
        },
        _ => Place::unpinned(all),
    }
}

fn measure_pingpong(job: &Job) -> anyhow::Result<WorkerOutput> {
    let mut out = WorkerOutput::default();
    let (all, cpus) = worker_cpus(job, &mut out.notes)?;
    let name = job.point["method"].as_str().unwrap_or("");
    let m = method(name).ok_or_else(|| anyhow::anyhow!("unknown method {name}"))?;
    let budget = Budget::from_job(job);
    let places: Vec<String> = job.point["placements"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|p| p.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    for p in &places {
        if p.starts_with("two_cpus") && cpus.len() < 2 {
            out.notes.push(format!(
                "{name}/{p} skipped: this worker may use only one CPU"
            ));
            continue;
        }
        let place = placement(p, &cpus, &all);
        let r = run_pair(m, &place, &budget, &all, 0)
            .map_err(|e| anyhow::anyhow!("{name} {p}: {e}"))?;
        push_pair(
            &mut out,
            &labels(&[("method", name), ("placement", place.name)]),
            &r,
        );
    }
    // The IPC's own cost without a switch, on one CPU, by one task.
    sys::pin_current_thread(&cpus[..1])?;
    let b = budget.scaled(0.4);
    let base = baseline(m, &b, job.loop_overhead_ns)?;
    // The seed's yardstick: "a context switch is a bit quicker than copying
    // 64 KiB" (memcpy 64 KiB ≈ 3 µs on its machine).
    if m.name == "pipe_threads" {
        let src = vec![1u8; 64 << 10];
        let mut dst = vec![0u8; 64 << 10];
        let copy = per_op(&budget.scaled(0.2), job.loop_overhead_ns, || {
            dst.copy_from_slice(black_box(&src));
            black_box(&mut dst);
        });
        out.push_detail("copy_ns", Unit::Ns, labels(&[("size", "64 KiB")]), copy);
    }
    sys::pin_current_thread(&all)?;
    out.push(
        "baseline_ns",
        Unit::Ns,
        labels(&[("method", name), ("what", m.baseline)]),
        base,
    );
    Ok(out)
}

/// Per switch, what the IPC costs when no switch happens.
fn baseline(m: &Method, b: &Budget, loop_ns: f64) -> io::Result<Vec<f64>> {
    Ok(match m.mech {
        Mech::Pipe => {
            let (r, w) = sys::pipe(false)?;
            let (mut r, mut w) = (File::from(r), File::from(w));
            let mut failed = None;
            let v = per_op(b, loop_ns, || {
                let mut buf = [0u8; 4];
                if let Err(e) = w
                    .write_all(&[1, 2, 3, 4])
                    .and_then(|_| r.read_exact(&mut buf))
                {
                    failed = Some(e);
                }
            });
            if let Some(e) = failed {
                return Err(e);
            }
            v
        }
        Mech::Futex => {
            let page = SharedPage::new()?;
            let w = page.i32(0);
            let shared = m.processes;
            per_op(b, loop_ns, || {
                let _ = sys::futex_wake(w, 1, shared);
                let _ = sys::futex_wait(w, 1, shared); // the word is 0: returns at once
            })
        }
        Mech::Condvar => {
            let state = Mutex::new((0i32, 0u32));
            let cv = Condvar::new();
            per_op(b, loop_ns, || {
                if let Ok(mut g) = state.lock() {
                    g.0 = black_box(g.0 + 1);
                    cv.notify_one();
                }
            })
        }
        Mech::Yield => per_op(b, loop_ns, sys::sched_yield),
    })
}

fn analyze_pingpong(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    let mut findings = Vec::new();
    let mut readings = Vec::new();
    let med = |r: &ExperimentResult, metric: &str, m: &str, p: &str| {
        r.find(metric, &[("method", m), ("placement", p)])
            .map(|x| x.summary.median)
    };
    for m in names(METHOD_NAMES) {
        let base = r
            .find("baseline_ns", &[("method", m)])
            .map(|x| x.summary.median);
        let mut parts = Vec::new();
        for p in names(PLACEMENTS) {
            let Some(raw) = med(r, "switch_ns", m, p) else {
                continue;
            };
            if let Some(b) = base {
                let net = raw - b;
                readings.push(Reading {
                    name: "net_switch_ns".into(),
                    unit: Unit::Ns,
                    labels: labels(&[("method", m), ("placement", p)]),
                    value: net,
                });
                parts.push(format!(
                    "{p} raw {} / baseline {} / net {}{}",
                    fmt_ns(raw),
                    fmt_ns(b),
                    fmt_ns(net),
                    if net < 0.0 {
                        " (negative: odd, shown as measured)"
                    } else {
                        ""
                    }
                ));
            }
        }
        if !parts.is_empty() {
            findings.push(format!("{m} per switch: {}", parts.join("; ")));
        }
    }
    // Same CPU: the switch path, with its switch counts.
    for m in [
        "pipe_processes",
        "pipe_threads",
        "futex_threads",
        "condvar",
        "sched_yield",
    ] {
        let (Some(s), Some(n)) = (
            med(r, "switch_ns", m, "same_cpu"),
            med(r, "switches_per_round_trip", m, "same_cpu"),
        ) else {
            continue;
        };
        let vol = med(r, "voluntary_per_round_trip", m, "same_cpu").unwrap_or(0.0);
        let verdict = if (n - 2.0).abs() <= 0.3 {
            "close to 2, one switch each way: the figure is a switch".to_string()
        } else if n < 1.5 {
            "fewer than 2: some hand-offs happened without a switch, so the figure is not all switch".to_string()
        } else {
            "more than 2: extra switches (preemption or migration) are in the figure".to_string()
        };
        findings.push(format!(
            "same CPU, {m}: {} per switch is the kernel's switch path; {n:.2} switches per round trip ({vol:.2} voluntary), {verdict}",
            fmt_ns(s)
        ));
        break;
    }
    if let Some(n) = med(r, "switches_per_round_trip", "condvar", "same_cpu") {
        if n > 2.5 {
            findings.push(format!(
                "condvar on one CPU: {n:.2} switches per round trip, not 2: the notified thread wakes while the notifier still holds the mutex, blocks on it, and is woken again; its figure is more than one switch"
            ));
        }
    }
    if let Some(y) = med(r, "involuntary_per_round_trip", "sched_yield", "same_cpu") {
        findings.push(format!(
            "sched_yield hands over with {y:.2} involuntary switches per round trip: a yielding task stays runnable, so getrusage counts its switches as involuntary"
        ));
    }
    // Two CPUs: wake-up latency, and what keeping the CPUs awake removes.
    for m in names(METHOD_NAMES) {
        let (Some(same), Some(cross)) = (
            med(r, "switch_ns", m, "same_cpu"),
            med(r, "switch_ns", m, "two_cpus"),
        ) else {
            continue;
        };
        let mut f = format!(
            "{m}: on two CPUs a hand-off costs {} vs {} on one: that is wake-up latency (an inter-processor interrupt and the other CPU leaving idle), not the switch path",
            fmt_ns(cross),
            fmt_ns(same)
        );
        if let Some(awake) = med(r, "switch_ns", m, "two_cpus_awake") {
            let idle_part = cross - awake;
            let dominant = if idle_part > awake {
                "waking the idle CPU dominates"
            } else {
                "the hand-off itself dominates, not waking an idle CPU"
            };
            f.push_str(&format!(
                "; with both CPUs kept awake by SCHED_IDLE spinners it costs {}: {dominant} ({} of the {} is leaving idle{})",
                fmt_ns(awake),
                fmt_ns(idle_part.max(0.0)),
                fmt_ns(cross),
                if idle_part > awake {
                    ", large as on virtual machines where an idle vCPU halts into the hypervisor"
                } else {
                    ""
                }
            ));
        }
        findings.push(f);
        break;
    }
    for m in ["pipe_threads", "condvar"] {
        if let (Some(pin), Some(un)) = (
            med(r, "switch_ns", m, "same_cpu"),
            med(r, "switch_ns", m, "unpinned"),
        ) {
            let frac = r
                .reading(
                    "same_cpu_fraction",
                    &[("method", m), ("placement", "unpinned")],
                )
                .unwrap_or(0.0);
            findings.push(format!(
                "{m} unpinned: {} per switch vs {} pinned ({:.1}x; seed 002: ~2.2 vs 1.2–1.5 µs); the scheduler kept the two tasks on one CPU in {:.0}% of batches",
                fmt_ns(un),
                fmt_ns(pin),
                un / pin.max(1.0),
                frac * 100.0
            ));
        }
    }
    if let (Some(sw), Some(copy)) = (
        med(r, "switch_ns", "pipe_threads", "same_cpu"),
        r.find("copy_ns", &[("size", "64 KiB")])
            .map(|m| m.summary.median),
    ) {
        findings.push(format!(
            "yardstick: a pinned pipe switch costs {} and a memcpy of 64 KiB {} ({:.2}x; seed 002: 1.2–1.5 µs vs ~3 µs, \"a bit quicker than copying 64 KiB\")",
            fmt_ns(sw),
            fmt_ns(copy),
            sw / copy.max(1.0)
        ));
    }
    if let (Some(t), Some(p)) = (
        med(r, "switch_ns", "pipe_threads", "same_cpu"),
        med(r, "switch_ns", "pipe_processes", "same_cpu"),
    ) {
        findings.push(format!(
            "threads vs processes on one CPU (pipe): {} vs {} per switch; a process switch also changes the address space",
            fmt_ns(t),
            fmt_ns(p)
        ));
    }
    a.readings.extend(readings);
    a.findings.extend(findings);
    a.headlines.extend(placement_headline(r));
    a
}

// ------------------------------------------------------------------ echo

pub static ECHO: Experiment = Experiment {
    name: "switch.echo",
    summary: "pipe echo throughput: a 16-byte message out on one pipe, echoed back by another thread on a second pipe; iterations/s pinned to one CPU and unpinned",
    reproduces: "Bendersky's pipe echo: ~400,000 iterations/s pinned, about half unpinned",
    params: &[
        ParamSpec {
            name: "iterations",
            help: "echoes per run (each run is one sample)",
            kind: ParamKind::Count {
                min: 1,
                max: 100_000_000,
            },
            quick: "5000",
            thorough: "100000",
        },
        ParamSpec {
            name: "runs",
            help: "timed runs per placement",
            kind: ParamKind::Count { min: 1, max: 1000 },
            quick: "5",
            thorough: "10",
        },
        CPUS_PARAM,
    ],
    seeds: &[
        SeedFigure {
            metric: "iterations_per_s",
            labels: &[("placement", "same_cpu")],
            lo: 400_000.0,
            hi: 400_000.0,
            unit: Unit::PerSecond,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "pipe echo between two threads, taskset to one core",
        },
        SeedFigure {
            metric: "iterations_per_s",
            labels: &[("placement", "unpinned")],
            lo: 200_000.0,
            hi: 200_000.0,
            unit: Unit::PerSecond,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "pipe echo, unpinned (\"the number of iterations per second halves\")",
        },
    ],
    hidden: false,
    supported: always_supported,
    points: |ctx| {
        let mut pts = Points::default();
        let cpus = plan_cpus(ctx, &mut pts.notes)?;
        pts.points.push(serde_json::json!({ "cpus": cpus }));
        Ok(pts)
    },
    measure: measure_echo,
    analyze: analyze_echo,
    ..Experiment::DEFAULT
};

const ECHO_MSG: &[u8; 16] = b"ping from task A";

/// Runs `runs` timed runs of exactly `iterations` echoes; returns the
/// iterations/s of each run and how many echoes the echo thread counted.
pub fn echo_runs(
    place: &Place,
    all: &[usize],
    iterations: u64,
    runs: u64,
) -> io::Result<(Vec<f64>, u64)> {
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
    let result = (|| -> io::Result<(Vec<f64>, u64)> {
        one(iterations.min(1000))?; // warm-up, not counted
        let before = counted.load(Ordering::SeqCst);
        let mut rates = Vec::new();
        for _ in 0..runs {
            let dt = one(iterations)?;
            rates.push(iterations as f64 / (dt / 1e9));
        }
        Ok((rates, counted.load(Ordering::SeqCst) - before))
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

fn measure_echo(job: &Job) -> anyhow::Result<WorkerOutput> {
    let mut out = WorkerOutput::default();
    let (all, cpus) = worker_cpus(job, &mut out.notes)?;
    let iterations = job.params.int("iterations");
    let runs = job.params.int("runs");
    for place in [Place::same(cpus[0]), Place::unpinned(&all)] {
        let (rates, counted) = echo_runs(&place, &all, iterations, runs)?;
        let l = labels(&[("placement", place.name)]);
        out.push("iterations_per_s", Unit::PerSecond, l.clone(), rates);
        out.reading(
            "iterations_per_run",
            Unit::Count,
            l.clone(),
            iterations as f64,
        );
        out.reading(
            "echoes_counted_per_run",
            Unit::Count,
            l,
            counted as f64 / runs as f64,
        );
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

fn analyze_echo(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    let get = |p: &str| {
        r.find("iterations_per_s", &[("placement", p)])
            .map(|m| m.summary.median)
    };
    if let (Some(pin), Some(un)) = (get("same_cpu"), get("unpinned")) {
        let f = format!(
            "pipe echo: {:.0} iterations/s pinned to one CPU ({} per iteration, i.e. {} per switch), {:.0} unpinned ({:.2}x the pinned rate; seed 002: ~400,000 and about half)",
            pin,
            fmt_ns(1e9 / pin.max(1e-9)),
            fmt_ns(0.5e9 / pin.max(1e-9)),
            un,
            un / pin.max(1e-9)
        );
        a.findings.push(f);
    }
    a
}

// -------------------------------------------------------------- indirect

pub static INDIRECT: Experiment = Experiment {
    name: "switch.indirect",
    summary: "indirect cost of a switch: each task walks W KiB of its own between switches (pipe threads, one CPU); extra ns per switch vs W",
    reproduces: "the cache-refill cost Bendersky leaves unmeasured (no seed figure)",
    params: &[
        ParamSpec {
            name: "working_sets",
            help: "bytes each task walks (one write per cache line) between switches",
            kind: ParamKind::SizeList {
                min: 0,
                max: 256 << 20,
            },
            quick: "0,64K,1M",
            thorough: "0,16K,64K,256K,1M,4M,16M",
        },
        CPUS_PARAM,
    ],
    seeds: &[],
    hidden: false,
    supported: always_supported,
    points: indirect_points,
    measure: measure_indirect,
    analyze: analyze_indirect,
    ..Experiment::DEFAULT
};

fn indirect_points(ctx: &PlanCtx) -> Result<Points, String> {
    let mut pts = Points::default();
    let cpus = plan_cpus(ctx, &mut pts.notes)?;
    let avail = crate::env::mem_available_bytes().unwrap_or(ctx.env.mem_available_bytes);
    let mut ws = ctx.params.list("working_sets");
    // Two tasks, a buffer each, plus a warm-walk copy: at most a quarter of
    // what is free.
    if let Some(big) = ws.iter().find(|&&w| w.saturating_mul(4) > avail) {
        let msg = format!(
            "working set {} does not fit: three copies must stay under a quarter of the {} available",
            fmt_size(*big),
            fmt_size(avail)
        );
        if ctx.user_set.iter().any(|n| n == "working_sets") {
            return Err(msg);
        }
        pts.notes.push(format!("{msg}; dropped"));
        ws.retain(|&w| w.saturating_mul(4) <= avail);
    }
    if !ws.contains(&0) {
        ws.insert(0, 0);
        pts.notes
            .push("working set 0 added: the extra cost is measured against it".into());
    }
    pts.notes.push(PER_SWITCH_NOTE.into());
    pts.points
        .push(serde_json::json!({ "cpus": cpus, "working_sets": ws }));
    Ok(pts)
}

fn measure_indirect(job: &Job) -> anyhow::Result<WorkerOutput> {
    let mut out = WorkerOutput::default();
    let (all, cpus) = worker_cpus(job, &mut out.notes)?;
    let ws: Vec<u64> = job.point["working_sets"]
        .as_array()
        .map(|a| a.iter().filter_map(|v| v.as_u64()).collect())
        .unwrap_or_default();
    let m = method("pipe_threads").expect("known method");
    let budget = Budget::from_job(job).scaled(1.0 / ws.len().max(1) as f64 * 2.0);
    for &w in &ws {
        let size = fmt_size(w);
        let l = labels(&[("working_set", &size), ("bytes", &w.to_string())]);
        let r = run_pair(m, &Place::same(cpus[0]), &budget, &all, w as usize)?;
        push_pair(&mut out, &l, &r);
        // The same walk with no switch in between: the cache stays warm.
        sys::pin_current_thread(&cpus[..1])?;
        let mut buf = vec![1u8; w as usize];
        let warm = per_op(&budget.scaled(0.3), job.loop_overhead_ns, || walk(&mut buf));
        sys::pin_current_thread(&all)?;
        out.push_detail("walk_warm_ns", Unit::Ns, l, warm);
    }
    Ok(out)
}

fn analyze_indirect(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    let Some(zero) = r
        .find("switch_ns", &[("bytes", "0")])
        .map(|m| m.summary.median)
    else {
        return a;
    };
    let mut pts: Vec<(u64, String, f64)> = Vec::new();
    for m in r.metrics_named("switch_ns") {
        let Some(bytes) = m.label("bytes").and_then(|b| b.parse::<u64>().ok()) else {
            continue;
        };
        let ws = m.label("working_set").unwrap_or("?").to_string();
        let warm = r
            .find("walk_warm_ns", &[("bytes", &bytes.to_string())])
            .map_or(0.0, |w| w.summary.median);
        // Per switch, one task walks its set once: take away the switch with
        // no working set and the walk itself as it runs with a warm cache.
        pts.push((bytes, ws, m.summary.median - zero - warm));
    }
    pts.sort_by_key(|p| p.0);
    let mut parts = Vec::new();
    for (bytes, ws, extra) in &pts {
        a.readings.push(Reading {
            name: "indirect_ns_per_switch".into(),
            unit: Unit::Ns,
            labels: labels(&[("working_set", ws), ("bytes", &bytes.to_string())]),
            value: *extra,
        });
        if *bytes > 0 {
            parts.push(format!(
                "{ws}: {}{}",
                fmt_ns(*extra),
                if *extra < 0.0 {
                    " (negative: within noise)"
                } else {
                    ""
                }
            ));
        }
    }
    if !parts.is_empty() {
        a.findings.push(format!(
            "indirect cost per switch (switch with W walked, minus the switch with nothing walked, minus the walk on a warm cache): {}; the direct switch is {}",
            parts.join(", "),
            fmt_ns(zero)
        ));
    }
    a
}

// ------------------------------------------------------------- userspace

pub const USER_VARIANTS: &[Choice] = &[
    Choice::new(
        "coroutine",
        "a stackful coroutine (corosensei) resumed and yielding",
    ),
    Choice::new(
        "async",
        "two async tasks on a single-threaded tokio runtime",
    ),
    Choice::new("kernel_pipe", "two threads over pipes, for comparison"),
    Choice::new("go_default", "goroutines over an unbuffered channel").needing("a Go toolchain"),
    Choice::new("go_maxprocs1", "the same with GOMAXPROCS=1").needing("a Go toolchain"),
    Choice::new(
        "go_locked",
        "the same with each goroutine locked to an OS thread",
    )
    .needing("a Go toolchain"),
];

pub static USERSPACE: Experiment = Experiment {
    name: "switch.userspace",
    summary: "user-space switching: a stackful coroutine (corosensei), async tasks on a single-threaded tokio runtime, Go goroutines over an unbuffered channel; beside a kernel pipe switch",
    reproduces: "Bendersky's goroutine ping-pong: ~2.8 M iterations/s, ~170 ns per switch",
    params: &[
        ParamSpec {
            name: "variants",
            help: "coroutine, async, kernel_pipe (the kernel reference, pipe threads on one CPU), go_default (GOMAXPROCS default), go_maxprocs1 (GOMAXPROCS=1, one CPU), go_locked (runtime.LockOSThread)",
            kind: ParamKind::Names(USER_VARIANTS),
            quick: "all",
            thorough: "all",
        },
        CPUS_PARAM,
    ],
    seeds: &[
        SeedFigure {
            metric: "switch_ns",
            labels: &[("variant", "go_default")],
            lo: 170.0,
            hi: 170.0,
            unit: Unit::Ns,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "two goroutines ping-ponging over a channel, default GOMAXPROCS",
        },
        SeedFigure {
            metric: "iterations_per_s",
            labels: &[("variant", "go_default")],
            lo: 2_800_000.0,
            hi: 2_800_000.0,
            unit: Unit::PerSecond,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "two goroutines ping-ponging over a channel, default GOMAXPROCS",
        },
    ],
    hidden: false,
    supported: always_supported,
    points: |ctx| {
        let mut pts = Points::default();
        let cpus = plan_cpus(ctx, &mut pts.notes)?;
        pts.notes.push(PER_SWITCH_NOTE.into());
        pts.points.push(serde_json::json!({ "cpus": cpus }));
        Ok(pts)
    },
    measure: measure_userspace,
    analyze: analyze_userspace,
    ..Experiment::DEFAULT
};

fn push_user(out: &mut WorkerOutput, variant: &str, rt: Vec<f64>) {
    let l = labels(&[("variant", variant)]);
    out.push(
        "iterations_per_s",
        Unit::PerSecond,
        l.clone(),
        rt.iter().map(|x| 1e9 / x.max(1e-9)).collect(),
    );
    out.push(
        "switch_ns",
        Unit::Ns,
        l.clone(),
        rt.iter().map(|x| x / 2.0).collect(),
    );
    out.push_detail("round_trip_ns", Unit::Ns, l, rt);
}

fn measure_userspace(job: &Job) -> anyhow::Result<WorkerOutput> {
    let mut out = WorkerOutput::default();
    let (all, cpus) = worker_cpus(job, &mut out.notes)?;
    let variants = job.params.names("variants");
    let budget = Budget::from_job(job);
    for v in variants.iter().map(String::as_str) {
        match v {
            "coroutine" => {
                let rt = coroutine_round_trips(&budget, job.loop_overhead_ns);
                push_user(&mut out, v, rt);
            }
            "async" => {
                let rt = async_round_trips(&budget)?;
                push_user(&mut out, v, rt);
            }
            "kernel_pipe" => {
                let m = method("pipe_threads").expect("known method");
                let r = run_pair(m, &Place::same(cpus[0]), &budget, &all, 0)?;
                push_user(&mut out, v, r.round_trip_ns);
            }
            go => match go_round_trips(go, &budget, cpus[0], &all, job.scratch.as_deref()) {
                Ok(rt) => push_user(&mut out, v, rt),
                Err(GoError::Skipped(why)) => out.notes.push(format!("{go} skipped: {why}")),
                Err(GoError::Failed(e)) => {
                    anyhow::bail!("{go}: {e}")
                }
            },
        }
    }
    Ok(out)
}

fn analyze_userspace(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    let get = |v: &str| {
        r.find("switch_ns", &[("variant", v)])
            .map(|m| m.summary.median)
    };
    let mut findings = Vec::new();
    let kernel = get("kernel_pipe");
    let mut parts = Vec::new();
    for v in [
        "coroutine",
        "async",
        "go_maxprocs1",
        "go_default",
        "go_locked",
    ] {
        if let Some(s) = get(v) {
            parts.push(match kernel {
                Some(k) if s <= k => format!("{v} {} ({:.1}x cheaper)", fmt_ns(s), k / s.max(0.01)),
                Some(k) => format!("{v} {} ({:.1}x dearer)", fmt_ns(s), s / k.max(0.01)),
                None => format!("{v} {}", fmt_ns(s)),
            });
        }
    }
    if !parts.is_empty() {
        let k = kernel.map_or(String::new(), |k| {
            format!(" against {} for a kernel pipe switch on one CPU", fmt_ns(k))
        });
        findings.push(format!(
            "per switch: {}{k}; a coroutine, an async task or an unlocked goroutine switches without a system call or the kernel scheduler",
            parts.join(", ")
        ));
    }
    if let (Some(d), Some(l)) = (get("go_default"), get("go_locked")) {
        findings.push(format!(
            "locking the goroutines to OS threads turns {} into {} per switch: every channel hand-off becomes a kernel switch between threads",
            fmt_ns(d),
            fmt_ns(l)
        ));
    }
    if let (Some(d), Some(one)) = (get("go_default"), get("go_maxprocs1")) {
        findings.push(format!(
            "GOMAXPROCS=1 on one CPU: {} vs {} with the default ({:.2}x; seed 002 saw pinning gain only ~10%)",
            fmt_ns(one),
            fmt_ns(d),
            d / one.max(0.01)
        ));
    }
    a.findings.extend(findings);
    a.headlines.extend(userspace_headline(r));
    a
}

// ------------------------------------------------- user-space mechanisms

/// Round trips (ns) of a stackful coroutine: resume into it, it suspends
/// straight back. One round trip is two switches of stack and registers.
fn coroutine_round_trips(budget: &Budget, loop_ns: f64) -> Vec<f64> {
    use corosensei::{Coroutine, CoroutineResult};
    let mut co = Coroutine::new(|yielder, mut x: u64| loop {
        x = yielder.suspend(x.wrapping_add(1));
    });
    let mut v = 0u64;
    per_op(budget, loop_ns, || {
        if let CoroutineResult::Yield(y) = co.resume(black_box(v)) {
            v = y;
        }
    })
}

/// Round trips (ns) of two async tasks ping-ponging over bounded channels
/// on a single-threaded tokio runtime.
fn async_round_trips(budget: &Budget) -> io::Result<Vec<f64>> {
    use tokio::sync::mpsc;
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
        let closed = || io::Error::other("the echo task ended early");
        let (samples, target_ns) = batches(budget);
        let mut n: u64 = 1;
        let mut out = Vec::new();
        let mut sizing = true;
        while out.len() < samples {
            let t0 = sys::monotonic_ns();
            for i in 0..n {
                tx1.send(i as u32).await.map_err(|_| closed())?;
                rx2.recv().await.ok_or_else(closed)?;
            }
            let dt = (sys::monotonic_ns() - t0) as f64;
            if sizing {
                if dt < target_ns && n < 1 << 32 {
                    n = (n as f64 * (target_ns / dt.max(1.0)).clamp(2.0, 10.0)).ceil() as u64;
                    continue;
                }
                sizing = false;
                continue;
            }
            out.push(dt / n as f64);
        }
        drop(tx1);
        echo.await.map_err(|e| io::Error::other(e.to_string()))?;
        Ok(out)
    })
}

/// Why a Go variant did not run: the toolchain is absent (a skip, with the
/// reason) or something broke (a failure).
enum GoError {
    Skipped(String),
    Failed(String),
}

/// Longest a first-use `go build` may take before the variant is skipped.
const GO_BUILD_LIMIT_S: u64 = 80;

const GO_SOURCE: &str = include_str!("../../helpers/go/pingpong/main.go");

/// The Go toolchain to use: `$TASKLAB_GO`, else `go` on PATH.
fn go_command() -> String {
    std::env::var("TASKLAB_GO").unwrap_or_else(|_| "go".into())
}

/// Private cache for the built Go program: `$XDG_CACHE_HOME/tasklab` or
/// `~/.cache/tasklab`, created with mode 0700.
fn cache_dir() -> Option<std::path::PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".cache")))?;
    let dir = base.join("tasklab");
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)
        .ok()?;
    Some(dir)
}

/// FNV-1a of the source: the cached binary is rebuilt when the program changes.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Builds the Go ping-pong program on first use and returns its path.
fn go_binary(scratch: Option<&std::path::Path>) -> Result<std::path::PathBuf, GoError> {
    let go = go_command();
    match std::process::Command::new(&go).arg("version").output() {
        Ok(o) if o.status.success() => {}
        Ok(o) => {
            return Err(GoError::Skipped(format!(
                "'{go} version' failed: {}",
                String::from_utf8_lossy(&o.stderr).trim()
            )))
        }
        Err(e) => {
            return Err(GoError::Skipped(format!(
                "no Go toolchain ('{go}': {e}); install Go or set TASKLAB_GO to its path"
            )))
        }
    }
    let dir = cache_dir()
        .or_else(|| scratch.map(|s| s.to_path_buf()))
        .ok_or_else(|| {
            GoError::Skipped("no cache directory (neither XDG_CACHE_HOME nor HOME is set)".into())
        })?;
    let bin = dir.join(format!("go-pingpong-{:016x}", fnv(GO_SOURCE)));
    if bin.is_file() {
        return Ok(bin);
    }
    let build = tempfile::Builder::new()
        .prefix("go-build-")
        .tempdir_in(&dir)
        .map_err(|e| {
            GoError::Failed(format!(
                "cannot make a build folder in {}: {e}",
                dir.display()
            ))
        })?;
    std::fs::write(build.path().join("main.go"), GO_SOURCE)
        .map_err(|e| GoError::Failed(e.to_string()))?;
    let mut cmd = std::process::Command::new(&go);
    cmd.args(["build", "-o", "pingpong", "main.go"])
        .current_dir(build.path())
        .env("GOTOOLCHAIN", "local")
        .env("GOPROXY", "off")
        .env("GOFLAGS", "");
    if std::env::var_os("GOCACHE").is_none() && std::env::var_os("HOME").is_none() {
        cmd.env("GOCACHE", dir.join("gocache"));
    }
    // A cold Go build cache compiles the runtime first (about a minute on
    // a small machine): bounded, so the worker's own time limit is not hit.
    let log = build.path().join("build.log");
    let log_file = File::create(&log).map_err(|e| GoError::Failed(e.to_string()))?;
    let mut child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(log_file)
        .spawn()
        .map_err(|e| GoError::Failed(format!("cannot run {go} build: {e}")))?;
    let started = std::time::Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) if started.elapsed().as_secs() >= GO_BUILD_LIMIT_S => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(GoError::Skipped(format!(
                    "building the Go program took more than {GO_BUILD_LIMIT_S} s (a cold Go build cache?); run again to finish it"
                )));
            }
            Ok(None) => std::thread::sleep(std::time::Duration::from_millis(50)),
            Err(e) => return Err(GoError::Failed(e.to_string())),
        }
    };
    if !status.success() {
        let msg = std::fs::read_to_string(&log).unwrap_or_default();
        return Err(GoError::Failed(format!("go build failed: {}", msg.trim())));
    }
    std::fs::rename(build.path().join("pingpong"), &bin).map_err(|e| {
        GoError::Failed(format!(
            "cannot place the Go binary in {}: {e}",
            dir.display()
        ))
    })?;
    Ok(bin)
}

/// Round trips (ns) of two goroutines ping-ponging over unbuffered channels.
fn go_round_trips(
    variant: &str,
    budget: &Budget,
    cpu: usize,
    all: &[usize],
    scratch: Option<&std::path::Path>,
) -> Result<Vec<f64>, GoError> {
    let bin = go_binary(scratch)?;
    let samples = budget.min_samples.max(10).min(budget.max_samples.max(2));
    let sample_ns = ((budget.seconds * 1e9 / samples as f64) as u64).max(20_000);
    let mut cmd = std::process::Command::new(&bin);
    cmd.arg(sample_ns.to_string()).arg(samples.to_string());
    cmd.env_remove("GOMAXPROCS");
    match variant {
        "go_maxprocs1" => {
            cmd.env("GOMAXPROCS", "1");
        }
        "go_locked" => {
            cmd.arg("lock");
        }
        _ => {}
    }
    // The child inherits the spawning thread's affinity: pin, spawn, restore.
    let pin: Vec<usize> = if variant == "go_maxprocs1" {
        vec![cpu]
    } else {
        all.to_vec()
    };
    sys::pin_current_thread(&pin).map_err(|e| GoError::Failed(e.to_string()))?;
    let o = cmd.output();
    sys::pin_current_thread(all).map_err(|e| GoError::Failed(e.to_string()))?;
    let o = o.map_err(|e| GoError::Failed(format!("cannot run {}: {e}", bin.display())))?;
    if !o.status.success() {
        return Err(GoError::Failed(format!(
            "the Go program failed: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        )));
    }
    let text = String::from_utf8_lossy(&o.stdout);
    let rt: Vec<f64> = text
        .lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let n: f64 = it.next()?.parse().ok()?;
            let ns: f64 = it.next()?.parse().ok()?;
            (n > 0.0).then(|| ns / n)
        })
        .collect();
    if rt.is_empty() {
        return Err(GoError::Failed(format!(
            "the Go program printed no samples: {text}"
        )));
    }
    Ok(rt)
}

// ------------------------------------------------------------- summary

/// The same-CPU switch against the wake-up on the other CPU.
fn placement_headline(e: &ExperimentResult) -> Option<String> {
    for method in ["pipe_threads", "futex_threads", "pipe_processes"] {
        let same = e.median(
            "switch_ns",
            &[("method", method), ("placement", "same_cpu")],
        );
        let apart = e.median(
            "switch_ns",
            &[("method", method), ("placement", "two_cpus")],
        );
        if let (Some(a), Some(b)) = (same, apart) {
            return Some(format!(
                "a same-CPU switch costs {} ({}); waking a task on the other CPU costs {} ({:.1}x)",
                fmt_ns(a),
                method.replace('_', " "),
                fmt_ns(b),
                b / a
            ));
        }
    }
    None
}

/// User-space switches beside the kernel's.
fn userspace_headline(e: &ExperimentResult) -> Option<String> {
    let kernel = e.median("switch_ns", &[("variant", "kernel_pipe")])?;
    let mut parts = Vec::new();
    for (v, name) in [
        ("coroutine", "a stackful coroutine"),
        ("async", "an async task"),
        ("go_default", "a goroutine"),
    ] {
        if let Some(x) = e.median("switch_ns", &[("variant", v)]) {
            parts.push(format!("{name} {}", fmt_ns(x)));
        }
    }
    (!parts.is_empty()).then(|| {
        format!(
            "switching in user space: {} per switch, against {} for a kernel switch between threads",
            parts.join(", "),
            fmt_ns(kernel)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TINY: Budget = Budget {
        seconds: 0.02,
        min_samples: 5,
        max_samples: 50,
    };

    #[test]
    fn every_method_ping_pongs_on_one_cpu() {
        let all = sys::allowed_cpus().unwrap();
        for m in METHODS.iter().filter(|m| !m.processes) {
            let r = run_pair(m, &Place::same(all[0]), &TINY, &all, 0).unwrap();
            assert!(!r.round_trip_ns.is_empty(), "{}", m.name);
            assert!(r.round_trip_ns.iter().all(|x| *x > 0.0));
        }
    }

    #[test]
    fn cpu_masks_print_as_lists() {
        assert_eq!(cpu_mask_list(0b1011), "0-1,3");
        assert_eq!(cpu_mask_list(0), "?");
    }

    #[test]
    fn walk_touches_every_line() {
        let mut b = vec![0u8; 256];
        walk(&mut b);
        assert_eq!(b.iter().filter(|&&x| x == 1).count(), 4);
    }
}
