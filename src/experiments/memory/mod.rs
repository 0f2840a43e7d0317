//! The memory group: what a thread costs to keep, and what `clone` shares.
//!
//! Reproduces Bendersky's "Memory usage of threads" (`002_…`, to the end):
//! the malloc-then-touch demo (VM 416,128 kB; RSS 4,780 → 410,916 kB),
//! 10,000 blocked threads (~80 GiB virtual, ~80 MiB resident; 400 KiB of
//! stack touched each → ~2.6 GiB, not 4 GiB, which the seed's footnote blames
//! on approximate RSS accounting: checked here against the exact count of
//! `/proc/self/smaps_rollup`), the most threads one process may start, and
//! the clone article's (`000_…`) sharing demonstrations: clone-vm-sample
//! (`tasklab demo clone-vm [vm]`) and a verified `CLONE_*` sharing matrix.
//!
//! One file per experiment ([`malloc`], [`threads`], [`limits`],
//! [`sharing`]); [`crowd`] starts and blocks the threads, [`bounds`] works
//! out how many this machine lets one process start.

pub mod bounds;
pub mod crowd;
pub mod limits;
pub mod malloc;
pub mod sharing;
pub mod threads;
pub mod threads_findings;
pub mod threads_why;

use crate::env::Env;
use crate::metric::{Kind, MetricSpec};
use crate::sys::procfs;
use crate::units::{Better, Unit};

/// VmRSS grown, the one series memory.malloc and memory.threads both push.
pub const RSS_GROWTH_KIB: MetricSpec = MetricSpec::new(
    "rss_growth_kib",
    Unit::Kib,
    Better::Lower,
    Kind::Memory,
    "VmRSS grown since the start: at a stage of the malloc demo, or while the blocked threads started",
)
.signed();

/// The memory figures of this process (and the kernel's stacks) at a moment.
#[derive(Clone, Copy, Debug, Default)]
struct Snap {
    vm_size_kib: f64,
    vm_rss_kib: f64,
    vm_pte_kib: f64,
    /// Rss of /proc/self/smaps_rollup: a walk of the page tables, exact
    /// where VmRSS may lag.
    rss_exact_kib: f64,
    /// System-wide (/proc/meminfo), so other activity shows up in it.
    kernel_stack_kib: f64,
    /// The kernel's memory beside the stacks, system-wide (/proc/meminfo):
    /// PageTables, Slab and its unreclaimable part SUnreclaim.
    page_tables_kib: f64,
    slab_kib: f64,
    sunreclaim_kib: f64,
    threads: u64,
}

impl Snap {
    fn now() -> anyhow::Result<Snap> {
        let need = |what: &str, v: Option<u64>| {
            v.map(|x| x as f64)
                .ok_or_else(|| anyhow::anyhow!("cannot read {what} from /proc"))
        };
        Ok(Snap {
            vm_size_kib: need("VmSize", procfs::status_kib("VmSize"))?,
            vm_rss_kib: need("VmRSS", procfs::status_kib("VmRSS"))?,
            vm_pte_kib: need("VmPTE", procfs::status_kib("VmPTE"))?,
            rss_exact_kib: need("Rss (smaps_rollup)", procfs::smaps_rollup_kib("Rss"))?,
            kernel_stack_kib: need("KernelStack", procfs::meminfo_kib("KernelStack"))?,
            page_tables_kib: need("PageTables", procfs::meminfo_kib("PageTables"))?,
            slab_kib: need("Slab", procfs::meminfo_kib("Slab"))?,
            sunreclaim_kib: need("SUnreclaim", procfs::meminfo_kib("SUnreclaim"))?,
            // Only a diagnostic (threads_seen): its absence fails nothing.
            threads: procfs::status_count("Threads").unwrap_or(0),
        })
    }
}

/// Memory the machine can give a run now: MemAvailable, capped by a cgroup
/// memory limit when there is one.
fn usable_memory(env: &Env) -> u64 {
    let avail = crate::env::mem_available_bytes().unwrap_or(env.mem_available_bytes);
    env.limits.cgroup_memory_max.map_or(avail, |c| avail.min(c))
}

/// The stack a thread gets when none is asked for, bytes.
fn default_stack(env: &Env) -> u64 {
    crate::sys::pthread::default_thread_stack()
        .map(|s| s as u64)
        .unwrap_or(env.limits.rlimit_stack.unwrap_or(8 << 20))
}
