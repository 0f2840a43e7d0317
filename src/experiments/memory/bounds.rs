//! How many more threads one process may start here, from every limit the
//! kernel applies: the arithmetic behind memory.limits (Bendersky, `002_…`:
//! "about 32K" threads) and the clamp memory.threads plans with.

use super::{usable_memory, Snap};
use crate::env::{Env, Limits};
use crate::sys::procfs;
use crate::units::{fmt_size, group_digits};

/// What bounds the threads one process may still start, each bound as a
/// number of further threads with the reason.
#[derive(Clone, Debug)]
pub struct LimitInputs {
    pub limits: Limits,
    /// Tasks (threads) on the whole system now (/proc/loadavg).
    pub tasks_now: Option<u64>,
    /// Of them, those with a pid below 300 (boot-time kernel threads): the
    /// kernel never hands out those pids again.
    pub tasks_low_pids: u64,
    /// Mappings of this process now (/proc/self/maps lines).
    pub own_maps: Option<u64>,
    /// Threads of this process now.
    pub own_threads: u64,
    /// This process's virtual size now.
    pub vm_size_bytes: u64,
    /// The stack each new thread gets.
    pub stack_bytes: u64,
    pub root: bool,
    pub mem_available_bytes: Option<u64>,
}

/// Lowest user-space address range on x86-64/aarch64 with 4-level tables.
const USER_ADDRESS_SPACE: u64 = 128 << 40;
/// What one blocked thread needs at the least, besides its stack's virtual
/// range: a kernel stack (16 KiB), a few resident pages of user stack, TLS
/// and page tables. Used only to bound counts before anything starts.
pub const THREAD_FLOOR_BYTES: u64 = 32 << 10;

/// The kernel's RESERVED_PIDS: allocation wraps around to this pid.
const RESERVED_PIDS: u64 = 300;

/// One bound: (name, how many more threads, why).
pub type Bound = (&'static str, u64, String);

pub fn thread_bounds(i: &LimitInputs) -> Vec<Bound> {
    // Digits grouped, as every other count in the report.
    let g = |v: u64| group_digits(i64::try_from(v).unwrap_or(i64::MAX));
    let l = &i.limits;
    let tasks = i.tasks_now.unwrap_or(0);
    let mut out: Vec<Bound> = Vec::new();
    if let Some(t) = l.threads_max {
        out.push((
            "threads-max",
            t.saturating_sub(tasks),
            format!(
                "kernel.threads-max {}, less the {} tasks running on the system",
                g(t),
                g(tasks)
            ),
        ));
    }
    if let Some(p) = l.pid_max {
        // Pids wrap around to RESERVED_PIDS (300), not to 1.
        let free = p
            .saturating_sub(RESERVED_PIDS)
            .saturating_sub(tasks.saturating_sub(i.tasks_low_pids));
        out.push((
            "pid_max",
            free,
            format!("kernel.pid_max {}: every thread takes a pid; {} are in use and pids below {RESERVED_PIDS} are never reused", g(p), g(tasks)),
        ));
    }
    if let Some(n) = l.rlimit_nproc {
        if i.root {
            // Not a bound: the kernel lets root (CAP_SYS_RESOURCE) past it.
        } else {
            out.push((
                "RLIMIT_NPROC",
                n.saturating_sub(i.own_threads),
                format!("ulimit -u {} tasks for this user, less this process's {} threads (and the user's other tasks)", g(n), g(i.own_threads)),
            ));
        }
    }
    if let Some(m) = l.max_map_count {
        let maps = i.own_maps.unwrap_or(0);
        out.push((
            "vm.max_map_count",
            m.saturating_sub(maps) / 2,
            format!("vm.max_map_count {}, {} in use; each thread maps a stack and a guard page (2 maps)", g(m), g(maps)),
        ));
    }
    // Every thread reserves its stack plus a guard page (never 0 bytes).
    let per_thread_bytes = i.stack_bytes + crate::sys::PAGE as u64;
    let (space_bytes, what) = match l.rlimit_as {
        Some(a) => (a, "RLIMIT_AS"),
        None => (USER_ADDRESS_SPACE, "the 128 TiB user address space"),
    };
    out.push((
        "address space",
        space_bytes.saturating_sub(i.vm_size_bytes) / per_thread_bytes,
        format!("{what} / ({} stack + guard page)", fmt_size(i.stack_bytes)),
    ));
    if let Some(c) = l.cgroup_pids_max {
        out.push((
            "cgroup pids.max",
            c.saturating_sub(i.own_threads),
            format!("cgroup pids.max {}, less this process's threads", g(c)),
        ));
    }
    if let Some(m) = i.mem_available_bytes {
        out.push((
            "memory",
            m / THREAD_FLOOR_BYTES,
            format!(
                "{} available / about {} per blocked thread (kernel stack, resident stack pages, page tables)",
                fmt_size(m),
                fmt_size(THREAD_FLOOR_BYTES)
            ),
        ));
    }
    out
}

/// The binding bound: the smallest.
pub fn binding(bounds: &[Bound]) -> Option<&Bound> {
    bounds.iter().min_by_key(|b| b.1)
}

/// The inputs as they are now, for threads of `stack_bytes` each.
pub fn limit_inputs(env: &Env, stack_bytes: u64) -> LimitInputs {
    LimitInputs {
        limits: env.limits.clone(),
        tasks_now: procfs::system_tasks(),
        tasks_low_pids: procfs::pids_below(RESERVED_PIDS),
        own_maps: procfs::self_maps(),
        own_threads: Snap::now().map(|s| s.threads).unwrap_or(1),
        vm_size_bytes: procfs::status_kib("VmSize").unwrap_or(0) * 1024,
        stack_bytes,
        root: crate::sys::is_root(),
        mem_available_bytes: Some(usable_memory(env)),
    }
}

#[cfg(test)]
#[path = "bounds_tests.rs"]
mod tests;
