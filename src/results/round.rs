//! Each round's record: what the machine did while a worker measured (the
//! canary at the start and the end, steal, interrupts, faults, the CPU's
//! clock, the THP counters).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The canary: fixed operations whose cost should not move within a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Canary {
    /// One bare system call (getppid): the median over every CPU the worker
    /// may use, each read pinned to it.
    pub syscall_ns: f64,
    /// One byte written to a pipe and read back by the same task.
    pub pipe_ns: f64,
    /// The system call on each CPU in turn, pinned: (CPU, ns). A vCPU the
    /// host runs slower reads slower here, whatever the experiment did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_cpu_ns: Vec<(usize, f64)>,
    /// The coherence floor: half a round trip of a cache line bounced
    /// between the first two CPUs (whether they share a cache shows here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coherence_ns: Option<f64>,
    /// The first touch of fresh memory, per 4 KiB page: one byte written
    /// into each page of a block mapped anew (on 4 KiB pages), then
    /// unmapped. The guest's fault and zeroing, and on a VM whose freed
    /// memory the host takes back (free page reporting), the host's fault
    /// behind each page it must back again. None in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fresh_page_ns: Option<f64>,
    /// The same touch of a block whose pages were freed just before (a
    /// block touched and unmapped, another mapped and touched at once):
    /// memory the host still backs, so the guest's own part. None in older
    /// files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recycled_page_ns: Option<f64>,
    /// How much of the fresh block the kernel gave in physical order: the
    /// share of neighbouring pages whose frames are neighbours too. Low
    /// when what freed memory last left it scattered, which makes every
    /// walk of a large heap's pages (fork, exit) dearer. None without
    /// CAP_SYS_ADMIN (the kernel hides frames) and in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fresh_in_order: Option<f64>,
}

impl Canary {
    /// [`Canary::fresh_page_ns`] where it is a reading: positive and
    /// finite (None in older files, and never a zero or a NaN as one).
    pub fn fresh_page(&self) -> Option<f64> {
        self.fresh_page_ns.filter(|x| x.is_finite() && *x > 0.0)
    }

    /// [`Canary::syscall_ns`] where it is a reading: positive and finite.
    pub fn syscall(&self) -> Option<f64> {
        Some(self.syscall_ns).filter(|x| x.is_finite() && *x > 0.0)
    }

    /// A round's canary reading `read`, from its readings at the round's
    /// start and end: their geometric mean (a canary enters every
    /// comparison as a log: compare's memory and system-call terms,
    /// explain's modes by their ratio), or the one that is a reading; None
    /// when neither is. The one reading of a round that both `compare` and
    /// `explain` take.
    pub fn of_round(start: &Canary, end: &Canary, read: fn(&Canary) -> Option<f64>) -> Option<f64> {
        match (read(start), read(end)) {
            (Some(a), Some(b)) => Some((a * b).sqrt()),
            (a, b) => a.or(b),
        }
    }

    /// [`Canary::of_round`] of the memory canary (the fresh page).
    pub fn fresh_page_of_round(start: &Canary, end: &Canary) -> Option<f64> {
        Canary::of_round(start, end, Canary::fresh_page)
    }
}

/// One round's contamination record. The fields after
/// `procs_running_end` are schema 2 additions, absent (empty) in older
/// files.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RoundTelemetry {
    pub wall_ns: f64,
    /// User + system time of the worker and its reaped children.
    pub cpu_ns: f64,
    pub canary_start: Canary,
    pub canary_end: Canary,
    /// Steal time of all CPUs during the round.
    pub steal_ns: f64,
    /// Time the worker's main thread was runnable but waiting for a CPU.
    pub run_delay_ns: f64,
    /// Involuntary context switches of the worker (all its threads).
    pub involuntary_switches: f64,
    /// Tasks runnable on the machine at the start and the end (the worker
    /// itself included).
    pub procs_running_start: f64,
    pub procs_running_end: f64,
    /// Per CPU (indexed by CPU number), steal and idle time during the
    /// round, from /proc/stat's 10 ms ticks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpu_steal_ns: Vec<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpu_idle_ns: Vec<f64>,
    /// Reschedule, function-call and TLB-shootdown interrupts on all CPUs
    /// during the round (/proc/interrupts RES, CAL, TLB).
    #[serde(default)]
    pub res_ipis: f64,
    #[serde(default)]
    pub cal_ipis: f64,
    #[serde(default)]
    pub tlb_ipis: f64,
    /// Minor page faults of the worker and its reaped children.
    #[serde(default)]
    pub minor_faults: f64,
    /// Periods the cgroup's CPU quota throttled it, and the time held
    /// back, during the round (cpu.stat; 0 without a CPU controller and in
    /// older files). The cgroup is shared: other work in it counts too.
    #[serde(default)]
    pub nr_throttled: f64,
    #[serde(default)]
    pub throttled_usec: f64,
    /// The clock the CPU ran at when the round started, counted with a
    /// chain of dependent additions (as the calibration counts it once):
    /// the host may change it from round to round. None where additions do
    /// not count cycles and in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_mhz: Option<f64>,
    /// The growth of /proc/vmstat's THP and compaction counters during the
    /// round (system-wide: `thp_fault_alloc`, `thp_fault_fallback`,
    /// `compact_stall`, ...; those the kernel has; empty in older files).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub vmstat: BTreeMap<String, f64>,
}

/// One round of an experiment: which point, which round, and what the
/// machine did meanwhile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoundRecord {
    pub point: usize,
    pub round: usize,
    #[serde(flatten)]
    pub telemetry: RoundTelemetry,
}

impl super::Busy {
    /// Other work's runnable tasks, on average, that make a run busy: `run`
    /// warns from it, `compare` names it in its next steps.
    pub const TASKS: f64 = 0.5;
    /// A share of stolen CPU time that makes a run busy.
    pub const STEAL: f64 = 0.02;
}
