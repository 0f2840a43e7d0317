//! What the machine did around one round: a canary yardstick at its start
//! and end (a bare system call, a pipe write and read, the first touch of
//! fresh memory), the steal time the
//! hypervisor took, how long the worker waited for a CPU, its involuntary
//! switches, how many tasks were runnable, its CPU time beside the wall
//! time, each CPU's steal and idle time, the IPIs (RES, CAL, TLB), the
//! minor faults, the cgroup's CPU throttling, the CPU's clock at the
//! round's start and the growth of the THP and compaction counters. A
//! figure is only as good as the round it came from: these say whether the
//! round was quiet.

use super::timer::per_call;
pub use crate::results::{Canary, RoundTelemetry};
use crate::sys::{self, procfs};
use std::io::{Read, Write};

/// Batches per canary figure on each CPU; the figure is their median.
const BATCHES: usize = 9;
/// System calls per batch: 9 batches of 300 at 120-215 ns take 0.3-0.6 ms
/// per CPU, long enough that a batch is rarely cut by a tick.
const CALLS: u64 = 300;
/// Round trips of the coherence floor's cache line.
const BOUNCES: usize = 2_000;
/// The most the coherence floor may take (2,000 round trips take 0.1-1 ms).
const COHERENCE_LIMIT_NS: u64 = 20_000_000;
/// The block the memory canary touches, twice: 512 pages of 4 KiB, one
/// block of free page reporting's usual order, about 0.6 ms each time on a
/// KVM guest whose host still backs the memory, up to 5 ms where the host
/// must back every page again (about 10 µs a page).
const TOUCH_BYTES: usize = 2 << 20;

/// Measures the canary now (about half a millisecond per CPU, the
/// coherence floor's 2,000 round trips and the memory canary's two blocks):
/// the bare system call pinned to each of `cpus` in turn (a vCPU the host
/// serves slower shows as itself, not as noise of whichever CPU the round
/// landed on), its median over them, the pipe's write and read, the
/// coherence floor between the first two, and the first touch of fresh
/// memory and of memory freed just before ([`memory`]). The thread's CPUs are restored after, whatever they were: a
/// round's end canary reads the CPUs its start read, though the experiment
/// pinned the thread meanwhile.
pub fn canary_on(cpus: &[usize]) -> Canary {
    let before = sys::allowed_cpus().unwrap_or_default();
    // The median of batches of bare system calls where the thread is now.
    let syscall = || {
        per_call(CALLS, BATCHES, || {
            std::hint::black_box(sys::bare_syscall());
        })
    };
    let mut per_cpu_ns = Vec::new();
    for &cpu in cpus {
        if sys::pin_current_thread(&[cpu]).is_ok() {
            per_cpu_ns.push((cpu, syscall()));
        }
    }
    let coherence_ns = match cpus {
        [a, b, ..] => coherence_floor(*a, *b),
        _ => None,
    };
    if !before.is_empty() {
        let _ = sys::pin_current_thread(&before);
    }
    let syscall_ns = if per_cpu_ns.is_empty() {
        syscall()
    } else {
        let v: Vec<f64> = per_cpu_ns.iter().map(|(_, ns)| *ns).collect();
        crate::stats::median(&v).unwrap_or(f64::NAN)
    };
    let (fresh_page_ns, recycled_page_ns, fresh_in_order) = memory();
    let pipe_ns = match sys::pipe(false) {
        Ok((r, w)) => {
            let (mut r, mut w) = (std::fs::File::from(r), std::fs::File::from(w));
            let mut byte = [0u8; 1];
            per_call(200, BATCHES, || {
                let _ = w.write_all(b"x");
                let _ = r.read_exact(&mut byte);
            })
        }
        Err(_) => f64::NAN,
    };
    Canary {
        syscall_ns,
        pipe_ns,
        per_cpu_ns,
        coherence_ns,
        fresh_page_ns,
        recycled_page_ns,
        fresh_in_order,
    }
}

/// The memory canary: the first touch of a fresh block of [`TOUCH_BYTES`]
/// (ns per 4 KiB page), how much of it the kernel gave in physical order,
/// then the first touch of a second block mapped just after the first was
/// unmapped, which the kernel fills with the pages just freed. On a VM
/// with free page reporting the first may draw memory the guest gave back
/// to the host (every page of it a fault on the host too); the second
/// draws memory the host still backs: the guest's own cost.
fn memory() -> (Option<f64>, Option<f64>, Option<f64>) {
    let (fresh, frames) = touch().unzip();
    let recycled = touch().map(|(ns, _)| ns);
    (
        fresh,
        recycled,
        frames.flatten().as_deref().and_then(in_order),
    )
}

/// One byte written into each page of a block mapped anew on 4 KiB pages:
/// ns per page, and the pages' physical frames; the block is unmapped
/// after. None when it cannot be mapped.
fn touch() -> Option<(f64, Option<Vec<u64>>)> {
    // 4 KiB pages whatever the THP setting, so the figure means the same
    // on every machine; where the advice is refused, as the system backs it.
    let block = sys::Heap::untouched(TOUCH_BYTES, sys::Thp::Off)
        .or_else(|_| sys::Heap::untouched(TOUCH_BYTES, sys::Thp::Default))
        .ok()?;
    let pages = block.pages();
    let t0 = sys::monotonic_ns();
    for i in 0..pages {
        block.write_page(i);
    }
    let ns = sys::monotonic_ns() - t0;
    (pages > 0).then(|| (ns as f64 / pages as f64, block.frames()))
}

/// The share of neighbouring pages whose physical frames are neighbours
/// too (either way round): 1 when the kernel handed out free memory in
/// order, near 0 when scattered. None with fewer than two pages or a
/// frame unknown (0: hidden without CAP_SYS_ADMIN, or not present).
pub fn in_order(frames: &[u64]) -> Option<f64> {
    if frames.len() < 2 || frames.contains(&0) {
        return None;
    }
    let next = frames
        .windows(2)
        .filter(|w| w[0].abs_diff(w[1]) == 1)
        .count();
    Some(next as f64 / (frames.len() - 1) as f64)
}

/// Half the round trip of a cache line bounced between a thread on `a` and
/// one on `b` (each waits for the other's value, then writes its own): what
/// any hand-off between those CPUs pays at the least. None when a thread
/// cannot be pinned.
fn coherence_floor(a: usize, b: usize) -> Option<f64> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let line = AtomicUsize::new(0);
    let pinned = AtomicBool::new(true);
    // Set by the measuring side when it gives up. A flag of its own, not a
    // value of the line: the partner may write its turn to the line just
    // after the measuring side gave up, and would then wait forever on a
    // line that no longer says "stop" (a hang seen on a loaded machine).
    let stop = AtomicBool::new(false);
    let mut ns = None;
    std::thread::scope(|s| {
        let partner = std::thread::Builder::new().spawn_scoped(s, || {
            if sys::pin_current_thread(&[b]).is_err() {
                pinned.store(false, Ordering::SeqCst);
                return;
            }
            for i in 0..BOUNCES {
                while line.load(Ordering::Acquire) != 2 * i + 1 {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    std::hint::spin_loop();
                }
                line.store(2 * i + 2, Ordering::Release);
            }
        });
        if partner.is_err() {
            return;
        }
        if sys::pin_current_thread(&[a]).is_err() {
            stop.store(true, Ordering::SeqCst);
            return;
        }
        let t0 = sys::monotonic_ns();
        for i in 0..BOUNCES {
            line.store(2 * i + 1, Ordering::Release);
            let mut spins = 0u32;
            while line.load(Ordering::Acquire) != 2 * i + 2 {
                if !pinned.load(Ordering::Relaxed) {
                    return;
                }
                spins = spins.wrapping_add(1);
                // A partner the host keeps off its CPU: no floor this round.
                if spins.is_multiple_of(1024) && sys::monotonic_ns() - t0 > COHERENCE_LIMIT_NS {
                    stop.store(true, Ordering::SeqCst);
                    return;
                }
                std::hint::spin_loop();
            }
        }
        ns = Some((sys::monotonic_ns() - t0) as f64 / (2 * BOUNCES) as f64);
    });
    ns
}

/// The counters at the start of a round.
pub struct Recorder {
    t0: u64,
    cpu0: u64,
    steal0: u64,
    delay0: u64,
    invol0: u64,
    running0: u64,
    cpus0: Vec<procfs::CpuTimes>,
    ipis0: [u64; 3],
    faults0: u64,
    throttled0: Option<crate::env::Throttling>,
    vmstat0: Vec<(&'static str, u64)>,
    cpu_mhz: Option<f64>,
    canary_start: Canary,
    /// The CPUs the start canary read, for the end canary to read again.
    cpus: Vec<usize>,
}

/// The RES, CAL and TLB interrupts of all CPUs now.
fn ipis_now() -> [u64; 3] {
    procfs::ipis().map_or([0; 3], |rows| rows.map(|r| r.iter().sum()))
}

/// Per CPU number, `now − then` of one field of [`procfs::CpuTimes`].
fn per_cpu(
    now: &[procfs::CpuTimes],
    then: &[procfs::CpuTimes],
    f: fn(&procfs::CpuTimes) -> u64,
) -> Vec<f64> {
    let n = now.iter().map(|c| c.cpu + 1).max().unwrap_or(0);
    let mut out = vec![0.0; n];
    for c in now {
        let before = then.iter().find(|t| t.cpu == c.cpu).map_or(f(c), f);
        out[c.cpu] = f(c).saturating_sub(before) as f64;
    }
    out
}

/// `now − then` of every counter both readings have, by name.
pub fn vmstat_growth(
    now: &[(&'static str, u64)],
    then: &[(&'static str, u64)],
) -> std::collections::BTreeMap<String, f64> {
    now.iter()
        .filter_map(|(k, v)| {
            let before = then.iter().find(|(t, _)| t == k)?.1;
            Some((k.to_string(), v.saturating_sub(before) as f64))
        })
        .collect()
}

fn or0<E>(v: Result<u64, E>) -> u64 {
    v.unwrap_or(0)
}

impl Recorder {
    /// Takes the start counters and the start canary.
    pub fn start() -> Recorder {
        let cpus = sys::allowed_cpus().unwrap_or_default();
        let canary_start = canary_on(&cpus);
        let cpu_mhz = super::timer::round_mhz();
        Recorder {
            running0: procfs::procs_running().unwrap_or(0),
            steal0: procfs::steal_ns().unwrap_or(0),
            delay0: procfs::run_delay_ns().unwrap_or(0),
            invol0: or0(sys::switches(true).map(|s| s.involuntary)),
            cpu0: or0(sys::cpu_ns(sys::CpuOf::ProcessAndChildren)),
            cpus0: procfs::per_cpu_times().unwrap_or_default(),
            ipis0: ipis_now(),
            faults0: or0(sys::minor_faults()),
            throttled0: crate::env::throttling_now(),
            vmstat0: procfs::vmstat(),
            cpu_mhz,
            canary_start,
            cpus,
            t0: sys::monotonic_ns(),
        }
    }

    /// The round's record, with the end canary.
    pub fn finish(self) -> RoundTelemetry {
        let wall = sys::monotonic_ns() - self.t0;
        let d = |now: u64, then: u64| now.saturating_sub(then) as f64;
        let cpus = procfs::per_cpu_times().unwrap_or_default();
        let ipis = ipis_now();
        let throttled = match (crate::env::throttling_now(), self.throttled0) {
            (Some(now), Some(then)) => now.since(then),
            _ => crate::env::Throttling::default(),
        };
        let t = RoundTelemetry {
            wall_ns: wall as f64,
            cpu_ns: d(or0(sys::cpu_ns(sys::CpuOf::ProcessAndChildren)), self.cpu0),
            canary_start: self.canary_start,
            canary_end: Canary::default(),
            steal_ns: d(procfs::steal_ns().unwrap_or(0), self.steal0),
            run_delay_ns: d(procfs::run_delay_ns().unwrap_or(0), self.delay0),
            involuntary_switches: d(or0(sys::switches(true).map(|s| s.involuntary)), self.invol0),
            procs_running_start: self.running0 as f64,
            procs_running_end: procfs::procs_running().unwrap_or(0) as f64,
            cpu_steal_ns: per_cpu(&cpus, &self.cpus0, |c| c.steal_ns),
            cpu_idle_ns: per_cpu(&cpus, &self.cpus0, |c| c.idle_ns),
            res_ipis: d(ipis[0], self.ipis0[0]),
            cal_ipis: d(ipis[1], self.ipis0[1]),
            tlb_ipis: d(ipis[2], self.ipis0[2]),
            minor_faults: d(or0(sys::minor_faults()), self.faults0),
            nr_throttled: throttled.nr_throttled as f64,
            throttled_usec: throttled.throttled_usec as f64,
            cpu_mhz: self.cpu_mhz,
            vmstat: vmstat_growth(&procfs::vmstat(), &self.vmstat0),
        };
        RoundTelemetry {
            canary_end: canary_on(&self.cpus),
            ..t
        }
    }
}

#[cfg(test)]
#[path = "telemetry_tests.rs"]
mod tests;
