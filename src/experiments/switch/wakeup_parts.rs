//! switch.wakeup's series and its pure arithmetic: pairing the two sides'
//! TSC stamps into one-way wake-ups and wake calls, the idle-state and
//! interrupt counters per hand-off, and the interval of a difference.
//!
//! The model (docs/switch-wakeup.md): a futex hand-off to another CPU is
//! the waker's FUTEX_WAKE (which, when the wakee's CPU halted, queues the
//! wakee on that CPU's wake list and sends it a one-way function-call IPI)
//! and then the wakee's CPU leaving its idle state
//! and switching to the wakee. On a VM the IPI and the idle exit overlap in
//! the host (the halted vCPU's thread is woken and re-enters the guest):
//! they do not add, so no part here is a difference taken under a stacking
//! model. Each figure is measured; a difference is stated only as a bound,
//! the low end of its interval, and only when the interval excludes zero.

use crate::experiments::prelude::*;
use crate::metric::key::VARIANT;
use std::collections::HashMap;
use std::path::Path;

/// One-way wake-up latency: from the waker's TSC stamp just before
/// FUTEX_WAKE to the wakee's on return from FUTEX_WAIT.
pub const WAKE_NS: MetricSpec = MetricSpec::new(
    "wake_ns",
    Unit::Ns,
    Better::Lower,
    Kind::HandOff,
    "one-way futex wake-up, invariant TSC: the waker's stamp just before FUTEX_WAKE to the wakee's return from FUTEX_WAIT",
)
.signed();

/// The one-way wake-up of one direction (label `direction`: `a_to_b` from
/// the pair's first CPU to its second, `b_to_a` back): a TSC offset
/// between the two CPUs adds to one and takes from the other.
pub const WAKE_DIR_NS: MetricSpec = MetricSpec::new(
    "wake_dir_ns",
    Unit::Ns,
    Better::Lower,
    Kind::HandOff,
    "one-way futex wake-up of one direction (label direction: a_to_b, from the pair's first CPU to its second, or b_to_a), invariant TSC",
)
.signed();

/// Which way a [`WAKE_DIR_NS`] series goes.
pub const DIRECTION: LabelKey = "direction";
/// [`DIRECTION`]'s values: from the pair's first CPU to its second, and back.
pub const A_TO_B: &str = "a_to_b";
pub const B_TO_A: &str = "b_to_a";

/// How late an absolute timer sleep returns on an idle CPU, by the sleep's
/// period (label `period_us`): the timer sweep.
pub const TIMER_SWEEP_NS: MetricSpec = MetricSpec::new(
    "timer_sweep_late_ns",
    Unit::Ns,
    // A probe of the host, not a figure to improve: better neither way, so
    // its noisy long periods never draw the run's adaptive rounds.
    Better::Neither,
    Kind::Other,
    "how late an absolute CLOCK_MONOTONIC sleep (timer slack 1 ns) returns on an idle CPU, by its period (label period_us)",
);

/// The period of a [`TIMER_SWEEP_NS`] series, µs.
pub const PERIOD_US: LabelKey = "period_us";

/// The waker's FUTEX_WAKE system call alone.
pub const WAKE_CALL_NS: MetricSpec = MetricSpec::new(
    "wake_call_ns",
    Unit::Ns,
    Better::Lower,
    Kind::HandOff,
    "the waker's FUTEX_WAKE call that woke a sleeping thread, invariant TSC",
);

/// How late an absolute timer sleep returns on the measured CPU.
pub const TIMER_LATE_NS: MetricSpec = MetricSpec::new(
    "timer_late_ns",
    Unit::Ns,
    Better::Lower,
    Kind::Other,
    "how late an absolute CLOCK_MONOTONIC sleep (timer slack 1 ns) returns: the CPU halted, or kept awake by a SCHED_IDLE spinner",
);

/// One membarrier call: with the peer running, a synchronous IPI round
/// trip to a running CPU; with it blocked, none.
pub const BARRIER_NS: MetricSpec = MetricSpec::new(
    "barrier_ns",
    Unit::Ns,
    Better::Lower,
    Kind::HandOff,
    "one membarrier(PRIVATE_EXPEDITED) call: the peer thread running (a synchronous IPI round trip to a running CPU) or blocked (no IPI)",
);

/// Interrupts per operation (a hand-off, a timer wake, a barrier) on the
/// CPUs of the pass, from /proc/interrupts.
pub const RES_PER_OP: MetricSpec = MetricSpec::new(
    "res_per_op",
    Unit::Count,
    Better::Neither,
    Kind::Other,
    "rescheduling interrupts (RES) per operation on the two CPUs",
);

pub const CAL_PER_OP: MetricSpec = MetricSpec::new(
    "cal_per_op",
    Unit::Count,
    Better::Neither,
    Kind::Other,
    "function-call interrupts (CAL) per operation on the two CPUs",
);

/// Whether the barrier's peer was `running` or `blocked`.
pub const PEER: LabelKey = "peer";
/// Which figure a `timed_pct` reading is the share of.
pub const OF: LabelKey = "of";

/// The cpuidle state an `idle_entries_per_op` reading counts.
pub const STATE: LabelKey = "state";

/// Idle-state entries per operation, by state (`state`), from
/// cpuN/cpuidle/stateK/usage on the CPUs of the pass.
pub const IDLE_ENTRIES_PER_OP: MetricSpec = MetricSpec::new(
    "idle_entries_per_op",
    Unit::Count,
    Better::Neither,
    Kind::Other,
    "entries into each cpuidle state (label state) per operation, on the CPUs of the pass",
);

/// The share of hand-offs a figure could time (label `of`).
pub const TIMED_PCT: MetricSpec = MetricSpec::new(
    "timed_pct",
    Unit::Percent,
    Better::Neither,
    Kind::Other,
    "share of hand-offs timed: the wakee slept, this call woke it, it ran on its own CPU (and, for the wake call on one CPU, the wakee did not run before the call returned)",
);

/// The TSC's rate, measured in each worker against CLOCK_MONOTONIC.
pub const TSC_MHZ: MetricSpec = MetricSpec::new(
    "tsc_mhz",
    Unit::Mhz,
    Better::Neither,
    Kind::Other,
    "the time-stamp counter's rate, measured in the worker against CLOCK_MONOTONIC",
);

/// Which probe a pass runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// Futex hand-offs between the two CPUs, each halting when idle.
    CrossCpu,
    /// The same with a SCHED_IDLE spinner on each CPU: never idle.
    CrossCpuAwake,
    /// Halting when idle, with the TTWU_QUEUE scheduler feature off for the
    /// pass: the wake a remote enqueue and RES, the kept-awake one's path.
    CrossCpuRemote,
    /// Futex hand-offs between two threads on one CPU: no IPI, no idle.
    SameCpu,
    /// Absolute timer sleeps on the second CPU, idle in between.
    TimerIdle,
    /// The same with a SCHED_IDLE spinner there.
    TimerAwake,
    /// Absolute sleeps of this period (µs) on the idle second CPU.
    TimerSweep(u64),
    /// membarrier with the peer thread spinning on the second CPU.
    IpiRunning,
    /// membarrier with the peer thread blocked.
    IpiBlocked,
}

impl Variant {
    pub const fn name(self) -> &'static str {
        match self {
            Variant::CrossCpu => "cross_cpu",
            Variant::CrossCpuAwake => "cross_cpu_awake",
            Variant::CrossCpuRemote => "cross_cpu_remote",
            Variant::SameCpu => "same_cpu",
            Variant::TimerIdle => "idle",
            Variant::TimerAwake => "kept_awake",
            Variant::TimerSweep(_) => "idle_sweep",
            Variant::IpiRunning => "ipi_peer_running",
            Variant::IpiBlocked => "ipi_peer_blocked",
        }
    }

    pub fn is_handoff(self) -> bool {
        matches!(
            self,
            Variant::CrossCpu | Variant::CrossCpuAwake | Variant::CrossCpuRemote | Variant::SameCpu
        )
    }

    pub fn is_timer(self) -> bool {
        matches!(
            self,
            Variant::TimerIdle | Variant::TimerAwake | Variant::TimerSweep(_)
        )
    }
}

/// A side's record of one wake call: the turn it handed over (`seq`), the
/// TSC just before FUTEX_WAKE and on its return, and how many it woke.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WakeStamp {
    pub seq: i32,
    pub before: u64,
    pub after: u64,
    pub woken: i32,
}

/// A side's record of one turn received: the TSC before it began to wait,
/// on return from the wait, and the CPU it returned on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReturnStamp {
    pub seq: i32,
    pub waited_from: u64,
    pub returned: u64,
    pub cpu: u32,
}

/// One direction's hand-offs, paired: cycles of each timed one-way
/// wake-up and wake call, and what was left out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Paired {
    pub handoffs: usize,
    pub wake_cycles: Vec<u64>,
    pub call_cycles: Vec<u64>,
    /// The wakee was not asleep (the call woke nobody, or the wakee began
    /// to wait after the stamp).
    pub not_asleep: usize,
    /// The wakee returned on another CPU than its own.
    pub wrong_cpu: usize,
    /// One CPU: the wakee ran before the wake call returned, so the call's
    /// time holds the wakee's run.
    pub preempted: usize,
}

/// Pairs the waker's wake calls with the wakee's returns by turn. A
/// one-way wake-up is timed only when the wakee was asleep (it began to
/// wait before the stamp and the call woke one thread) and returned on
/// `wakee_cpu`; a wake call only when it woke one sleeping thread, and, on
/// one CPU (`same_cpu`), when the wakee had not run before it returned.
pub fn pair_up(
    wakes: &[WakeStamp],
    returns: &[ReturnStamp],
    wakee_cpu: u32,
    same_cpu: bool,
) -> Paired {
    let by_seq: HashMap<i32, &ReturnStamp> = returns.iter().map(|r| (r.seq, r)).collect();
    let mut p = Paired::default();
    for w in wakes {
        let Some(r) = by_seq.get(&w.seq) else {
            continue;
        };
        p.handoffs += 1;
        if w.woken != 1 || r.waited_from >= w.before || r.returned < w.before {
            p.not_asleep += 1;
            continue;
        }
        if r.cpu != wakee_cpu {
            p.wrong_cpu += 1;
            continue;
        }
        p.wake_cycles.push(r.returned - w.before);
        if same_cpu && r.returned < w.after {
            p.preempted += 1;
        } else {
            p.call_cycles.push(w.after - w.before);
        }
    }
    p
}

/// The medians of consecutive batches of `n` values (a last, shorter batch
/// included when it holds at least half of `n`): one sample per batch, as
/// the other experiments record.
pub fn batch_medians(values: &[f64], n: usize) -> Vec<f64> {
    let n = n.max(1);
    values
        .chunks(n)
        .filter(|c| c.len() * 2 >= n)
        .filter_map(crate::stats::median)
        .collect()
}

/// (CPU, state name, entries since boot) of every cpuidle state of `cpus`,
/// read below `root` (`/` for real).
pub fn idle_usage(root: &Path, cpus: &[usize]) -> Vec<(usize, String, u64)> {
    let mut out = Vec::new();
    for &cpu in cpus {
        for k in 0.. {
            let dir = root.join(format!("sys/devices/system/cpu/cpu{cpu}/cpuidle/state{k}"));
            let Ok(name) = std::fs::read_to_string(dir.join("name")) else {
                break;
            };
            let usage = std::fs::read_to_string(dir.join("usage"))
                .ok()
                .and_then(|u| u.trim().parse().ok());
            if let Some(u) = usage {
                out.push((cpu, name.trim().to_string(), u));
            }
        }
    }
    out
}

/// Entries per operation into each state between two [`idle_usage`]
/// readings, summed over the CPUs, in the states' first order. A counter
/// that went backwards (a CPU taken offline and back) gives no figure.
pub fn idle_entries_per_op(
    before: &[(usize, String, u64)],
    after: &[(usize, String, u64)],
    ops: u64,
) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64)> = Vec::new();
    for (cpu, name, b) in before {
        let Some((_, _, a)) = after.iter().find(|(c, n, _)| c == cpu && n == name) else {
            continue;
        };
        let Some(d) = a.checked_sub(*b) else {
            continue;
        };
        let per = d as f64 / ops.max(1) as f64;
        match out.iter_mut().find(|(n, _)| n == name) {
            Some((_, v)) => *v += per,
            None => out.push((name.clone(), per)),
        }
    }
    out
}

/// RES and CAL on `cpus` in a /proc/interrupts text; None when a row or a
/// CPU's column is missing (unknown, never zero).
pub fn res_cal(text: &str, cpus: &[usize]) -> Option<[u64; 2]> {
    let count = |name: &str| -> Option<u64> {
        let row = crate::sys::procfs::interrupt_row(text, name)?;
        cpus.iter().map(|&c| row.get(c).copied()).sum()
    };
    Some([count("RES")?, count("CAL")?])
}

/// `a − b` with the interval of the difference itself
/// (`stats::contrast::difference`: each side's half-widths combined as
/// independent errors). None when either series is flagged or its interval
/// bounds nothing (an interval that bounds nothing supports no sentence).
pub fn diff(a: &Summary, b: &Summary, unit: Unit) -> Option<Difference> {
    if [a, b].iter().any(|s| s.unstable || bounds_nothing(s, unit)) {
        return None;
    }
    let i = crate::stats::contrast::difference(a, b);
    Some(Difference {
        d: i.value,
        lo: i.lo,
        hi: i.hi,
        unit,
        weak: None,
    })
}

/// The bound a difference supports, in words: "`more` ≥ X" when its whole
/// interval is above zero, "`less` ≥ X" when below, and None when it holds
/// zero (then nothing is stated but the interval).
pub fn bound(d: &Difference, more: &str, less: &str) -> Option<String> {
    if d.lo > 0.0 {
        Some(format!("{more} ≥ {}", fmt_ns(d.lo)))
    } else if d.hi < 0.0 {
        Some(format!("{less} ≥ {}", fmt_ns(-d.hi)))
    } else {
        None
    }
}

/// A series' figure: median and interval, with the flag when flagged.
pub(super) fn fig(s: &Summary) -> String {
    shown(s, Unit::Ns)
}

/// A series' summary at one variant.
pub(super) fn get<'a>(
    r: &'a ExperimentResult,
    spec: &MetricSpec,
    v: Variant,
) -> Option<&'a Summary> {
    r.find(spec, &[(VARIANT, v.name())]).map(|m| &m.summary)
}

/// How a difference is set in its sentence: " (… per hand-off)" or ": …".
pub(super) enum Wrap {
    PerHandoff,
    Colon,
}

/// `x` against `y` in words: the bound of their difference (`more` when
/// `x` is the larger, `less` when it is the smaller), set as `wrap` says;
/// when the interval cannot tell them apart, its own text if `unclear`
/// says so, or nothing. With `unclear`, a pair that gives no difference (a
/// figure flagged, or an interval that bounds nothing) says so too, so the
/// subject stays (issue 39 item 9).
pub(super) fn against(
    x: &Summary,
    y: &Summary,
    (more, less): (&str, &str),
    wrap: Wrap,
    unclear: bool,
) -> String {
    let Some(d) = diff(x, y, Unit::Ns) else {
        if !unclear {
            return String::new();
        }
        let why = if x.unstable || y.unstable {
            "a figure did not settle"
        } else {
            "an interval bounds nothing"
        };
        return match wrap {
            Wrap::PerHandoff => format!(" (not told apart here: {why})"),
            Wrap::Colon => format!(": not told apart here ({why})"),
        };
    };
    match (bound(&d, more, less), wrap) {
        (Some(b), Wrap::PerHandoff) => format!(" ({b} per hand-off)"),
        (Some(b), Wrap::Colon) => format!(": {b}"),
        (None, _) if !unclear => String::new(),
        (None, Wrap::PerHandoff) => format!(" (indistinguishable here: {})", d.text()),
        (None, Wrap::Colon) => format!(": indistinguishable here ({})", d.text()),
    }
}
