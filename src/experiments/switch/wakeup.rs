//! switch.wakeup: why a cross-CPU hand-off costs several same-CPU switches.
//! On the two CPUs switch.pingpong uses, variants that each remove one cost:
//! (a) the coherence floor, two threads busy-polling one cache line with no
//! system call; (b) the futex hand-off without sleep, each side spinning up
//! to `spin_us` before it parks; (c) the IPI alone, a membarrier with the
//! peer thread running on the other CPU (one IPI) against it blocked (none);
//! (d) the futex hand-off to an idle CPU (switch.pingpong's `two_cpus`); (e)
//! the same with a polling idle state, where the machine offers one; and the
//! futex hand-off on one CPU, the syscall and switch path with no IPI and no
//! idle. Each pass records the RES, CAL and TLB interrupts per operation and
//! the peer CPU's idle share, so each variant shows which path it took. The
//! parts ([`super::wakeup_parts`]) stack into the full hand-off.

use super::series::ROUND_TRIP_NS;
use super::wakeup_parts::{decompose, Part};
pub use super::wakeup_parts::{Variant, BARRIER_NS, CAL_PER_OP, RES_PER_OP, TLB_PER_OP};
use super::{plan_cpus, worker_cpus, CPUS};
use crate::experiments::prelude::*;
use crate::measure::explain::{contamination, cpu_of_wall, per_op_phrase};
use crate::measure::sampler::{interleave, per_op, push_cpu, Budget, CpuPerOp, CPU_NS, PASSES};
use crate::metric::key::VARIANT;
use crate::sys::{self, procfs};
use serde::{Deserialize, Serialize};
use std::hint::spin_loop;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// Futex parks (waits that slept) per round trip, both sides.
pub const PARKS_PER_OP: MetricSpec = MetricSpec::new(
    "parks_per_op",
    Unit::Count,
    Better::Neither,
    Kind::Other,
    "futex waits that parked (slept) per round trip, both sides",
);

/// The share of the pass the peer's CPU spent idle.
pub const PEER_IDLE_PCT: MetricSpec = MetricSpec::new(
    "peer_idle_pct",
    Unit::Percent,
    Better::Neither,
    Kind::Other,
    "share of the pass the peer's CPU spent idle",
);

/// A reading per part of the stack (`part`): its median and the ends of
/// its interval. Where the time goes, not a figure to beat.
pub const PART_NS: MetricSpec = MetricSpec::new(
    "part_ns",
    Unit::Ns,
    Better::Neither,
    Kind::HandOff,
    "one part of the cross-CPU hand-off per round trip (coherence, path, ipi, idle_exit, residual)",
);

pub const PART_LO_NS: MetricSpec = MetricSpec::new(
    "part_lo_ns",
    Unit::Ns,
    Better::Neither,
    Kind::HandOff,
    "the low end of a part's interval, per round trip",
);

pub const PART_HI_NS: MetricSpec = MetricSpec::new(
    "part_hi_ns",
    Unit::Ns,
    Better::Neither,
    Kind::HandOff,
    "the high end of a part's interval, per round trip",
);

/// Which part of the stack a `part_*` reading is.
pub const PART: LabelKey = "part";
/// Whether the barrier's peer was `running` or `blocked`.
pub const PEER: LabelKey = "peer";

pub static EXPERIMENT: Experiment = Experiment {
    name: "switch.wakeup",
    metrics: &[
        &ROUND_TRIP_NS,
        &BARRIER_NS,
        &RES_PER_OP,
        &CAL_PER_OP,
        &TLB_PER_OP,
        &PARKS_PER_OP,
        &PEER_IDLE_PCT,
        &CPU_NS,
        &PART_NS,
        &PART_LO_NS,
        &PART_HI_NS,
    ],
    summary: "a cross-CPU futex hand-off decomposed: coherence floor, syscall and switch path, IPI, idle exit, residual, each variant with its interrupts and idle time",
    reproduces: "beyond the seeds: why switch.pingpong's two_cpus placement costs several same-CPU switches",
    params: &[
        ParamSpec {
            name: "spin_us",
            help: "how long the spin-then-park variant spins on the futex word before it parks, µs",
            kind: ParamKind::Count { min: 1, max: 100_000 },
            quick: "50",
            thorough: "50",
        },
        CPUS,
    ],
    supported,
    points,
    measure,
    analyze,
    ..Experiment::DEFAULT
};

fn supported(env: &Env) -> Result<(), String> {
    if env.cpus_allowed.len() < 2 {
        return Err(format!(
            "a cross-CPU hand-off needs two CPUs; {} allowed here",
            env.cpus_allowed.len()
        ));
    }
    Ok(())
}

/// How each variant ([`Variant`], declared beside the arithmetic) runs.
impl Variant {
    fn is_barrier(self) -> bool {
        matches!(self, Variant::IpiRunning | Variant::IpiBlocked)
    }

    /// How a hand-off variant waits: spin for ever (None), or spin up to
    /// this many ns and then park.
    fn spin(self, spin_ns: u64) -> Option<u64> {
        match self {
            Variant::Coherence => None,
            Variant::SpinPark => Some(spin_ns),
            _ => Some(0),
        }
    }
}

/// The one switch.wakeup job: the two CPUs, and how the machine idles.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WakeupPoint {
    pub cpus: Vec<usize>,
    pub idle: Idle,
}

/// Whether a polling idle state could be had for variant (e).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Idle {
    Polls,
    Halts,
}

fn points(ctx: &PlanCtx) -> Result<Points, String> {
    let mut pts = Points::default();
    let cpus = plan_cpus(ctx, &mut pts.notes)?;
    if cpus.len() < 2 {
        pts.notes.push(
            "switch.wakeup skipped: the cpus parameter names one CPU, and a cross-CPU hand-off needs two"
                .into(),
        );
        return Ok(pts);
    }
    let idle = match ctx.env.facts.polling_idle() {
        Ok(how) => {
            pts.notes.push(format!(
                "this machine polls when idle ({how}): the hand-off is measured with a polling idle state (e); one to a halting CPU (d) cannot be had without changing the kernel's settings, so the idle exit is not isolated"
            ));
            Idle::Polls
        }
        Err(why) => {
            pts.notes.push(format!(
                "(e) the hand-off with a polling idle state skipped: {why}; the idle exit is not isolated and stays in the residual"
            ));
            Idle::Halts
        }
    };
    pts.push(&WakeupPoint { cpus, idle });
    Ok(pts)
}

fn measure(job: &Job) -> anyhow::Result<WorkerOutput> {
    let mut out = WorkerOutput::default();
    let point: WakeupPoint = job.point()?;
    let (all, cpus) = worker_cpus(&point.cpus, &mut out.notes)?;
    anyhow::ensure!(
        cpus.len() >= 2,
        "switch.wakeup needs two CPUs in this worker's mask"
    );
    let pair = (cpus[0], cpus[1]);
    let spin_ns = job.params.int("spin_us") * 1_000;
    let mut variants = vec![Variant::Coherence, Variant::SpinPark, Variant::SameCpu];
    variants.push(if point.idle == Idle::Polls {
        Variant::PollingIdle
    } else {
        Variant::IdleCpu
    });
    match sys::membarrier_register_private_expedited() {
        Ok(()) => variants.extend([Variant::IpiRunning, Variant::IpiBlocked]),
        Err(e) => out.notes.push(format!(
            "(c) the IPI alone skipped: membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) failed: {e}"
        )),
    }
    let share = Budget::from_job(job).split(PASSES);
    let passes = interleave(&variants, PASSES, job.seed, |v| {
        let r = run_pass(*v, pair, spin_ns, &share, job.loop_overhead_ns);
        sys::pin_current_thread(&all)?;
        r.map_err(|e| anyhow::anyhow!("{}: {e}", v.name()))
    })?;
    for (v, passes) in variants.iter().zip(passes) {
        let l = labels(&[(VARIANT, v.name())]);
        let samples: Vec<f64> = passes.iter().flat_map(|p| p.samples.clone()).collect();
        let cpu: Vec<CpuPerOp> = passes.iter().map(|p| p.cpu).collect();
        if v.is_barrier() {
            let peer = if *v == Variant::IpiRunning {
                "running"
            } else {
                "blocked"
            };
            let with_peer = labels(&[(VARIANT, v.name()), (PEER, peer)]);
            out.push(&BARRIER_NS, with_peer.clone(), samples);
            push_cpu(&mut out, &with_peer, &cpu);
        } else {
            out.push(&ROUND_TRIP_NS, l.clone(), samples);
            push_cpu(&mut out, &l, &cpu);
        }
        let per = |f: &dyn Fn(&Pass) -> f64| passes.iter().map(f).collect::<Vec<f64>>();
        for (i, spec) in [&RES_PER_OP, &CAL_PER_OP, &TLB_PER_OP].iter().enumerate() {
            out.push_detail(spec, l.clone(), per(&|p| p.ipis[i] as f64 / p.ops as f64));
        }
        if !v.is_barrier() {
            out.push_detail(
                &PARKS_PER_OP,
                l.clone(),
                per(&|p| p.parks as f64 / p.ops as f64),
            );
        }
        if passes.iter().all(|p| p.peer_idle_ns.is_some()) {
            let pct =
                per(&|p| p.peer_idle_ns.unwrap_or(0) as f64 / p.wall_ns.max(1) as f64 * 100.0);
            out.push_detail(&PEER_IDLE_PCT, l, pct);
        }
    }
    Ok(out)
}

/// What one pass of one variant measured.
struct Pass {
    /// ns per operation (a round trip, or a barrier), one per batch.
    samples: Vec<f64>,
    /// Operations between the two counter snapshots.
    ops: u64,
    /// RES, CAL, TLB interrupts on the two CPUs over the pass.
    ipis: [u64; 3],
    parks: u64,
    /// Time the peer's CPU spent idle over the pass.
    peer_idle_ns: Option<u64>,
    wall_ns: u64,
    /// Both threads' CPU time per operation over the pass.
    cpu: CpuPerOp,
}

/// The turn word's values.
const TURN_A: i32 = 0;
const TURN_B: i32 = 1;
const STOP: i32 = 2;

/// The counters a pass reads at its start and end.
struct Snapshot {
    ipis: [u64; 3],
    idle_ns: Option<u64>,
    /// The worker's CPU time: both threads of the hand-off.
    cpu_ns: u64,
    t: u64,
}

fn snapshot(cpus: &[usize], peer: usize) -> Snapshot {
    let ipis = procfs::ipis().map_or([0; 3], |rows| {
        rows.map(|row| cpus.iter().filter_map(|&c| row.get(c)).sum())
    });
    let idle_ns = procfs::cpuidle_ns(peer).or_else(|| {
        procfs::per_cpu_times()?
            .into_iter()
            .find(|c| c.cpu == peer)
            .map(|c| c.idle_ns)
    });
    Snapshot {
        ipis,
        idle_ns,
        cpu_ns: sys::cpu_ns(sys::CpuOf::ProcessAndChildren).unwrap_or_default(),
        t: sys::monotonic_ns(),
    }
}

/// Waits until `word` differs from `busy` and returns its new value:
/// spinning for ever (`spin` None), or up to `spin` ns and then parking on
/// the futex; each park is counted.
fn await_turn(word: &AtomicI32, busy: i32, spin: Option<u64>, parks: &mut u64) -> io::Result<i32> {
    let v = word.load(Ordering::Acquire);
    if v != busy {
        return Ok(v);
    }
    let limit = spin.unwrap_or(u64::MAX);
    if limit > 0 {
        let t0 = sys::monotonic_ns();
        let mut i = 0u32;
        loop {
            spin_loop();
            let v = word.load(Ordering::Acquire);
            if v != busy {
                return Ok(v);
            }
            i = i.wrapping_add(1);
            if i.is_multiple_of(64) && sys::monotonic_ns() - t0 > limit {
                break;
            }
        }
    }
    loop {
        *parks += 1;
        sys::futex_wait(word, busy, false)?;
        let v = word.load(Ordering::Acquire);
        if v != busy {
            return Ok(v);
        }
    }
}

/// Hands the turn to the other side; a futex variant always wakes (a
/// partner that spins costs the waker one system call that finds nobody).
fn hand_over(word: &AtomicI32, to: i32, spin: Option<u64>) -> io::Result<()> {
    word.store(to, Ordering::Release);
    if spin.is_some() {
        sys::futex_wake(word, 1, false)?;
    }
    Ok(())
}

/// The peer's side of a pass, on its own CPU; returns its parks.
fn peer(
    v: Variant,
    cpu: usize,
    word: &AtomicI32,
    stop: &AtomicBool,
    ready: &AtomicBool,
    spin_ns: u64,
) -> io::Result<u64> {
    sys::pin_current_thread(&[cpu])?;
    ready.store(true, Ordering::Release);
    let mut parks = 0;
    match v {
        Variant::IpiRunning => {
            while !stop.load(Ordering::Relaxed) {
                spin_loop();
            }
        }
        Variant::IpiBlocked => {
            while word.load(Ordering::Acquire) != STOP {
                sys::futex_wait(word, TURN_A, false)?;
            }
        }
        _ => loop {
            let spin = v.spin(spin_ns);
            if await_turn(word, TURN_A, spin, &mut parks)? == STOP {
                break;
            }
            hand_over(word, TURN_A, spin)?;
        },
    }
    Ok(parks)
}

/// One pass of `v`: the measuring thread on the first CPU, the peer on the
/// second (on the first for [`Variant::SameCpu`]).
fn run_pass(
    v: Variant,
    (a, b): (usize, usize),
    spin_ns: u64,
    budget: &Budget,
    loop_ns: f64,
) -> anyhow::Result<Pass> {
    let peer_cpu = if v == Variant::SameCpu { a } else { b };
    let cpus: Vec<usize> = if a == peer_cpu {
        vec![a]
    } else {
        vec![a, peer_cpu]
    };
    sys::pin_current_thread(&[a])?;
    let word = AtomicI32::new(TURN_A);
    let (stop, ready) = (AtomicBool::new(false), AtomicBool::new(false));
    std::thread::scope(|s| {
        let handle = s.spawn(|| peer(v, peer_cpu, &word, &stop, &ready, spin_ns));
        while !ready.load(Ordering::Acquire) && !handle.is_finished() {
            std::thread::yield_now();
        }
        if v == Variant::IpiBlocked {
            // Time for the peer to park: its CPU then runs the idle task.
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        let (mut ops, mut parks, mut failed) = (0u64, 0u64, None);
        let spin = v.spin(spin_ns);
        let start = snapshot(&cpus, peer_cpu);
        let samples = per_op(budget, loop_ns, || {
            ops += 1;
            let r = if v.is_barrier() {
                sys::membarrier_private_expedited()
            } else {
                hand_over(&word, TURN_B, spin)
                    .and_then(|_| await_turn(&word, TURN_B, spin, &mut parks).map(drop))
            };
            if let Err(e) = r {
                failed.get_or_insert(e);
            }
        });
        let end = snapshot(&cpus, peer_cpu);
        stop.store(true, Ordering::Relaxed);
        word.store(STOP, Ordering::Release);
        let _ = sys::futex_wake(&word, 1, false);
        let peer_parks = handle
            .join()
            .map_err(|_| anyhow::anyhow!("the peer thread panicked"))??;
        if let Some(e) = failed {
            return Err(e.into());
        }
        Ok(Pass {
            samples,
            ops: ops.max(1),
            ipis: [0, 1, 2].map(|i| end.ipis[i].saturating_sub(start.ipis[i])),
            parks: parks + peer_parks,
            peer_idle_ns: match (start.idle_ns, end.idle_ns) {
                (Some(s), Some(e)) => Some(e.saturating_sub(s)),
                _ => None,
            },
            wall_ns: end.t - start.t,
            cpu: CpuPerOp::between(start.cpu_ns, end.cpu_ns, ops.max(1) as f64),
        })
    })
}

fn analyze(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    let full = if r
        .find(&ROUND_TRIP_NS, &[(VARIANT, Variant::PollingIdle.name())])
        .is_some()
    {
        Variant::PollingIdle
    } else {
        Variant::IdleCpu
    };
    let mut proof = path_proof(r, full);
    proof.extend(cpu_of_wall(
        r,
        "the futex hand-off to an idle CPU",
        &ROUND_TRIP_NS,
        &[(VARIANT, Variant::IdleCpu.name())],
    ));
    let quiet = contamination(&r.round_log, None);
    // What each variant's interrupts show, its CPU time and the run's
    // steal and run delay are the measurement's conditions: notes.
    let Some(d) = decompose(r) else {
        a.notes.extend(proof);
        a.notes.extend(quiet);
        return a;
    };
    for p in &d.parts {
        for (spec, v) in [
            (&PART_NS, p.median),
            (&PART_LO_NS, p.lo),
            (&PART_HI_NS, p.hi),
        ] {
            a.readings
                .push(Reading::of(spec, labels(&[(PART, p.name)]), v));
        }
    }
    let total = fmt_ns(d.total);
    let real: Vec<&Part> = d.parts.iter().filter(|p| p.lo > 0.0).collect();
    if let Some(big) = real.iter().max_by(|x, y| x.median.total_cmp(&y.median)) {
        let share = (big.median <= d.total)
            .then(|| format!(", {:.0}% of it", big.median / d.total * 100.0));
        let mut s = format!(
            "the largest part of a cross-CPU futex hand-off ({total} per round trip, {}) is the {}: {} {}{}",
            d.what,
            big.label(),
            fmt_ns(big.median),
            fmt_interval(&fmt_ns(big.lo), &fmt_ns(big.hi)),
            share.unwrap_or_default()
        );
        // The interrupt counters say whether the hand-off sent the IPIs
        // this part prices (one per hand-off, two per round trip).
        if big.name == "ipi" {
            let per = |spec: &MetricSpec| r.median(spec, &[(VARIANT, full.name())]);
            if let (Some(res), Some(cal)) = (per(&RES_PER_OP), per(&CAL_PER_OP)) {
                s.push_str(&format!(
                    "; the hand-off that sleeps took {} (counted machine-wide; the part counts one per hand-off, two per round trip)",
                    per_op_phrase(res + cal, "IPI", "IPIs", "round trip")
                ));
            }
        }
        a.headlines.push(s.clone());
        a.findings.push(s);
    }
    let zero: Vec<String> = d
        .parts
        .iter()
        .filter(|p| p.lo <= 0.0 && p.hi >= 0.0)
        .map(|p| {
            format!(
                "the {} {}",
                p.label(),
                fmt_interval(&fmt_signed(p.lo, Unit::Ns), &fmt_signed(p.hi, Unit::Ns))
            )
        })
        .collect();
    if !zero.is_empty() {
        a.findings.push(format!(
            "indistinguishable from zero here: {}",
            zero.join(", ")
        ));
    }
    a.findings.extend(d.sleep);
    a.notes.extend(d.notes);
    a.notes.extend(proof);
    a.notes.extend(quiet);
    a
}

/// What each variant's interrupts and idle time show about its path.
fn path_proof(r: &ExperimentResult, full: Variant) -> Vec<String> {
    let med = |spec: &MetricSpec, v: Variant| r.median(spec, &[(VARIANT, v.name())]);
    let mut out = Vec::new();
    for (v, what) in [
        (full, "the hand-off that sleeps"),
        (Variant::SpinPark, "the spin-then-park hand-off"),
        (Variant::Coherence, "the busy-polling pair"),
    ] {
        let (Some(res), Some(cal)) = (med(&RES_PER_OP, v), med(&CAL_PER_OP, v)) else {
            continue;
        };
        let mut s = format!(
            "{what} took {} and {}",
            per_op_phrase(res, "reschedule IPI", "reschedule IPIs", "round trip"),
            per_op_phrase(cal, "function-call IPI", "function-call IPIs", "round trip")
        );
        if let Some(parks) = med(&PARKS_PER_OP, v).filter(|_| v != Variant::Coherence) {
            s.push_str(&format!(
                ", {}",
                per_op_phrase(parks, "park", "parks", "round trip")
            ));
        }
        if let Some(idle) = med(&PEER_IDLE_PCT, v) {
            s.push_str(&format!(", its peer's CPU idle {idle:.0}% of the time"));
        }
        out.push(s);
    }
    let cal = |v: Variant| med(&CAL_PER_OP, v);
    if let (Some(run), Some(blk)) = (cal(Variant::IpiRunning), cal(Variant::IpiBlocked)) {
        out.push(format!(
            "a barrier sent {} with the peer running and {} with it blocked",
            per_op_phrase(run, "function-call IPI", "function-call IPIs", "call"),
            per_op_phrase(blk, "function-call IPI", "function-call IPIs", "call")
        ));
    }
    out
}

#[cfg(test)]
#[path = "wakeup_tests.rs"]
mod tests;
