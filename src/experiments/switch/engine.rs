//! The ping-pong engine of the switch group (seed 002, Bendersky's pipe and
//! condition-variable ping-pong): given a method's [`Handoff`] ends, it starts
//! the partner as a thread or a forked process, runs the measuring loop with
//! SCHED_IDLE spinners keeping CPUs awake where asked, and reports a series.
//! How a token is handed over is the mechanism's business (`handoff/`).
//!
//! [`Handoff`]: super::handoff::Handoff

use super::handoff::{PingEnd, PongEnd, MARK};
use super::methods::{Method, Placement, Spread, SAME_CPU, UNPINNED};
use super::series::{
    INVOLUNTARY_PER_ROUND_TRIP, ROUND_TRIPS_PER_SAMPLE, ROUND_TRIP_NS, SAME_CPU_FRACTION,
    SWITCHES_PER_ROUND_TRIP, SWITCH_NS, VOLUNTARY_PER_ROUND_TRIP,
};
use super::working_set::{Walk, Walking, WorkingSet};
use crate::experiments::prelude::*;
use crate::measure::sampler::{push_cpu, size_batch, Budget, CpuPerOp};
use crate::sys::{self, SharedPage};
use std::io;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::Arc;

/// What the partner writes at each MARK, on a page shared with it
/// (`MAP_SHARED`: it crosses a fork): its switch counters, its CPU time, the
/// CPUs it ran on as a bit mask, and the CPU it is on.
struct Record(SharedPage);

impl Record {
    fn new() -> io::Result<Record> {
        Ok(Record(SharedPage::new()?))
    }

    fn voluntary(&self) -> &AtomicU64 {
        self.0.u64(0)
    }

    fn involuntary(&self) -> &AtomicU64 {
        self.0.u64(1)
    }

    fn cpus(&self) -> &AtomicU64 {
        self.0.u64(2)
    }

    /// Its own CPU time, ns.
    fn cpu_ns(&self) -> &AtomicU64 {
        self.0.u64(3)
    }

    fn cpu(&self) -> &AtomicI32 {
        self.0.i32(0)
    }

    /// The partner records its own switch counters and CPU where the
    /// measuring side can read them.
    fn write(&self) {
        if let Ok(s) = sys::switches(false) {
            self.voluntary().store(s.voluntary, Ordering::SeqCst);
            self.involuntary().store(s.involuntary, Ordering::SeqCst);
        }
        if let Ok(ns) = sys::cpu_ns(sys::CpuOf::Thread) {
            self.cpu_ns().store(ns, Ordering::SeqCst);
        }
        let cpu = sys::current_cpu();
        self.cpu().store(cpu, Ordering::SeqCst);
        self.cpus().fetch_or(cpu_bit(cpu), Ordering::SeqCst);
    }
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
    /// Where `placement` puts the tasks: `cpus` from the plan (one, or two
    /// for the two-CPU placements), `all` the worker's whole mask.
    pub fn of(placement: &Placement, cpus: &[usize], all: &[usize]) -> Place {
        let first = cpus.first().copied().unwrap_or(0);
        let second = cpus.get(1).copied().unwrap_or(first);
        let (a, b, awake) = match placement.spread {
            Spread::OneCpu => (vec![first], vec![first], vec![]),
            Spread::TwoCpus { awake: false } => (vec![first], vec![second], vec![]),
            Spread::TwoCpus { awake: true } => (vec![first], vec![second], vec![first, second]),
            Spread::Unpinned => (all.to_vec(), all.to_vec(), vec![]),
        };
        Place {
            name: placement.name(),
            a,
            b,
            awake,
        }
    }

    pub fn same(cpu: usize) -> Place {
        Place::of(&SAME_CPU, &[cpu], &[cpu])
    }

    pub fn unpinned(all: &[usize]) -> Place {
        Place::of(&UNPINNED, all, all)
    }
}

fn cpu_bit(cpu: i32) -> u64 {
    if (0..64).contains(&cpu) {
        1 << cpu
    } else {
        0
    }
}

/// The partner's side: echoes messages until STOP, recording itself at
/// each MARK and walking a working set of its own (`walking`) before each
/// other reply (the indirect-cost experiment; 0 bytes for none).
fn serve(pong: Box<dyn PongEnd>, record: &Record, walking: Walking) -> io::Result<()> {
    let mut ws = WorkingSet::new(walking, 0x9e37_79b9_7f4a_7c15);
    pong.serve(&mut |v| {
        if v == MARK {
            record.write();
        } else if !ws.is_empty() {
            ws.walk();
        }
    })
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
    pong: Box<dyn PongEnd>,
    record: &Arc<Record>,
    cpus: &[usize],
    processes: bool,
    walking: Walking,
) -> io::Result<Partner> {
    let cpus = cpus.to_vec();
    if processes {
        let record = record.clone();
        let child = sys::fork_run(move || {
            if sys::pin_current_thread(&cpus).is_err() {
                return 3;
            }
            match serve(pong, &record, walking) {
                Ok(()) => 0,
                Err(_) => 4,
            }
        })?;
        Ok(Partner::Process(child))
    } else {
        let record = record.clone();
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
                serve(pong, &record, walking)
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
    /// Switches per round trip, both tasks together, one per batch.
    pub voluntary_per_round_trip: Vec<f64>,
    pub involuntary_per_round_trip: Vec<f64>,
    /// The CPUs each task ran on, as a bit mask.
    pub a_cpu_mask: u64,
    pub b_cpu_mask: u64,
    /// Fraction of batches that ended with both tasks on one CPU.
    pub same_cpu_fraction: f64,
    pub round_trips_per_sample: u64,
    /// CPU time per round trip of both tasks together, one per batch.
    pub cpu_per_round_trip: Vec<CpuPerOp>,
}

/// Ping-pongs between this thread (pinned to `place.a`) and a partner
/// (`place.b`), `walk_bytes` walked in address order by each side between
/// switches: [`run_pair_walking`].
pub fn run_pair(
    m: &Method,
    place: &Place,
    budget: &Budget,
    all: &[usize],
    walk_bytes: usize,
) -> io::Result<PairResult> {
    let walking = Walking {
        bytes: walk_bytes,
        walk: Walk::Sequential,
    };
    run_pair_walking(m, place, budget, all, walking)
}

/// Ping-pongs between this thread (pinned to `place.a`) and a partner
/// (`place.b`), each side walking a working set of its own between
/// switches as `walking` says. The partner is created before and joined
/// after the timed batches.
pub fn run_pair_walking(
    m: &Method,
    place: &Place,
    budget: &Budget,
    all: &[usize],
    walking: Walking,
) -> io::Result<PairResult> {
    sys::pin_current_thread(&place.a)?;
    let record = Arc::new(Record::new()?);
    let (mut ping, pong) = m.handoff.ends(m.processes)?;
    let partner = start_partner(pong, &record, &place.b, m.processes, walking)?;
    let result = (|| {
        let _spin = if place.awake.is_empty() {
            None
        } else {
            Some(Spinners::start(&place.awake)?)
        };
        drive(ping.as_mut(), &record, budget, walking)
    })();
    let stopped = ping.stop();
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
pub fn batches(budget: &Budget) -> (usize, f64) {
    let target_ns = (budget.seconds * 1e9 / 30.0).clamp(100_000.0, 1_000_000.0);
    let samples = ((budget.seconds * 1e9 / target_ns) as usize)
        .clamp(budget.min_samples.max(15), budget.max_samples.max(15));
    (samples, target_ns)
}

/// The most round trips in one batch, warm-up included.
pub const MAX_BATCH: u64 = 1 << 32;

/// The measuring side: size a batch to its share of the budget, then time
/// batches, reading both tasks' switch counters around each.
fn drive(
    a: &mut dyn PingEnd,
    record: &Record,
    budget: &Budget,
    walking: Walking,
) -> io::Result<PairResult> {
    let mut ws = WorkingSet::new(walking, 0x2545_f491_4f6c_dd1d);
    // Short batches (as per_op does): on a busy machine most run without
    // being preempted, and the budget buys more of them, not longer ones.
    let (samples, target_ns) = batches(budget);
    for _ in 0..3 {
        a.round_trip(0)?; // the partner is up and warm
    }
    let mut batch = |a: &mut dyn PingEnd, n: u64| -> io::Result<f64> {
        let t0 = sys::monotonic_ns();
        for i in 0..n {
            if !ws.is_empty() {
                ws.walk();
            }
            a.round_trip(i as u32 & 0xffff)?;
        }
        Ok((sys::monotonic_ns() - t0) as f64)
    };
    let n = size_batch(target_ns, MAX_BATCH, |n| batch(a, n))?.max(4);
    let mut r = PairResult {
        round_trips_per_sample: n,
        ..Default::default()
    };
    let b_counts = |p: &Record| {
        (
            p.voluntary().load(Ordering::SeqCst),
            p.involuntary().load(Ordering::SeqCst),
        )
    };
    let b_cpu = |p: &Record| p.cpu_ns().load(Ordering::SeqCst);
    a.round_trip(MARK)?;
    let mut b0 = b_counts(record);
    let mut b_cpu0 = b_cpu(record);
    let mut same = 0;
    for _ in 0..samples {
        // `run --why` keeps the batch's samples (the rings read as it opens
        // and closes are outside the timed batch and the CPU time and
        // switches read around it).
        let why = crate::measure::why::Window::open();
        let a_cpu0 = sys::cpu_ns(sys::CpuOf::Thread)?;
        let a0 = sys::switches(false)?;
        let cpu = sys::current_cpu();
        r.a_cpu_mask |= cpu_bit(cpu);
        let dt = batch(a, n)?;
        let a1 = sys::switches(false)?;
        let a_cpu1 = sys::cpu_ns(sys::CpuOf::Thread)?;
        drop(why);
        let a_cpu = sys::current_cpu();
        r.a_cpu_mask |= cpu_bit(a_cpu);
        a.round_trip(MARK)?;
        let b1 = b_counts(record);
        // The partner blocks once more than we do between two marks: it
        // waits for the first message of the batch after answering the mark.
        let per = |a: u64, b: u64| a as f64 / n as f64 + b as f64 / (n + 1) as f64;
        r.round_trip_ns.push(dt / n as f64);
        r.voluntary_per_round_trip
            .push(per(a1.voluntary - a0.voluntary, b1.0.saturating_sub(b0.0)));
        r.involuntary_per_round_trip.push(per(
            a1.involuntary - a0.involuntary,
            b1.1.saturating_sub(b0.1),
        ));
        b0 = b1;
        // Both sides' CPU time over the batch (the partner's from mark to
        // mark: the batch's n round trips and the mark's own).
        let b_cpu1 = b_cpu(record);
        let (ca, cb) = (
            CpuPerOp::between(a_cpu0, a_cpu1, n as f64),
            CpuPerOp::between(b_cpu0, b_cpu1, (n + 1) as f64),
        );
        r.cpu_per_round_trip.push(CpuPerOp { ns: ca.ns + cb.ns });
        b_cpu0 = b_cpu1;
        // where both were at the end of the batch
        if a_cpu >= 0 && record.cpu().load(Ordering::SeqCst) == a_cpu {
            same += 1;
        }
    }
    r.b_cpu_mask = record.cpus().load(Ordering::SeqCst);
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
pub fn push_pair(out: &mut WorkerOutput, base: &Labels, r: &PairResult) {
    out.push(
        &SWITCH_NS,
        base.clone(),
        r.round_trip_ns.iter().map(|x| x / 2.0).collect(),
    );
    out.push_detail(&ROUND_TRIP_NS, base.clone(), r.round_trip_ns.clone());
    let total: Vec<f64> = r
        .voluntary_per_round_trip
        .iter()
        .zip(&r.involuntary_per_round_trip)
        .map(|(v, i)| v + i)
        .collect();
    out.push(&SWITCHES_PER_ROUND_TRIP, base.clone(), total);
    out.push_detail(
        &VOLUNTARY_PER_ROUND_TRIP,
        base.clone(),
        r.voluntary_per_round_trip.clone(),
    );
    out.push_detail(
        &INVOLUNTARY_PER_ROUND_TRIP,
        base.clone(),
        r.involuntary_per_round_trip.clone(),
    );
    push_cpu(out, base, &r.cpu_per_round_trip);
    out.reading(&SAME_CPU_FRACTION, base.clone(), r.same_cpu_fraction);
    let case: Vec<String> = base
        .iter()
        .filter(|(k, _)| !crate::results::HIDDEN_LABELS.contains(&k.as_str()))
        .map(|(_, v)| v.clone())
        .collect();
    // Where the tasks ran, one note per case and placement seen (the run
    // keeps each distinct note once); the batch size is a reading, so the
    // passes' notes do not differ by it.
    out.notes.push(format!(
        "{}: task A ran on CPU {}, task B on CPU {}",
        case.join("/"),
        cpu_mask_list(r.a_cpu_mask),
        cpu_mask_list(r.b_cpu_mask),
    ));
    out.reading(
        &ROUND_TRIPS_PER_SAMPLE,
        base.clone(),
        r.round_trips_per_sample as f64,
    );
}

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;
