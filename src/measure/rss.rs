//! The error bound beside every RSS figure (issue 14 §5). VmRSS, RssAnon and
//! ru_maxrss come from the kernel's RSS counters, which lag: before 6.2 each
//! thread batches up to 64 pages of changes; from 6.2 per-CPU counters are
//! read without summing (`env::rss_counting`). smaps_rollup walks the page
//! tables and is exact. A worker that reads RSS records the bound of one
//! reading at that moment (`rss_bound_kib`, the regime as its label) and,
//! where it reads both, the cross-check VmRSS − smaps_rollup Rss
//! (`rss_cross_check_kib`); the findings and one note print them.
//!
//! The figures of a worker's own memory that several groups read (spawn,
//! memory, parallel) are declared here too, the floor they all import.

use crate::measure::protocol::WorkerOutput;
use crate::metric::{Kind, LabelKey, MetricSpec};
use crate::results::{Better, ExperimentResult, Labels, Unit};
use crate::stats::compare_text::fmt_delta;
use crate::sys::procfs;
use crate::units::fmt_value;

/// The reading: how far one VmRSS reading of the worker may lag, KiB.
pub const RSS_BOUND_KIB: MetricSpec = MetricSpec::new(
    "rss_bound_kib",
    Unit::Kib,
    Better::Neither,
    Kind::Memory,
    "how far one VmRSS reading of the worker may lag the true count (the regime as a label)",
);
/// The reading: VmRSS − smaps_rollup Rss, read one after the other, KiB.
pub const RSS_CROSS_CHECK_KIB: MetricSpec = MetricSpec::new(
    "rss_cross_check_kib",
    Unit::Kib,
    Better::Neither,
    Kind::Memory,
    "VmRSS less the exact smaps_rollup Rss, read one after the other",
)
.signed();
/// The kernel's RSS-counting regime a bound was computed under.
pub const REGIME: LabelKey = "regime";

/// VmSize of /proc/self/status: the address space reserved.
pub const VM_SIZE_KIB: MetricSpec = MetricSpec::new(
    "vm_size_kib",
    Unit::Kib,
    Better::Lower,
    Kind::Memory,
    "VmSize of the process (/proc/self/status): the address space it has reserved",
);
/// VmRSS of /proc/self/status, read once.
pub const VM_RSS_KIB: MetricSpec = MetricSpec::new(
    "vm_rss_kib",
    Unit::Kib,
    Better::Neither,
    Kind::Memory,
    "VmRSS of the process (/proc/self/status) at one moment, from the kernel's RSS counters",
);
/// VmPTE of /proc/self/status: what the page tables take.
pub const VM_PTE_KIB: MetricSpec = MetricSpec::new(
    "vm_pte_kib",
    Unit::Kib,
    Better::Neither,
    Kind::Memory,
    "VmPTE of the process (/proc/self/status): the memory its page tables take",
);
/// AnonHugePages of /proc/self/smaps_rollup: memory on huge pages.
pub const ANON_HUGE_KIB: MetricSpec = MetricSpec::new(
    "anon_huge_kib",
    Unit::Kib,
    Better::Neither,
    Kind::Memory,
    "AnonHugePages of the process (smaps_rollup): its anonymous memory on transparent huge pages",
);

/// The bound on one RSS-counter reading of a process with `threads` threads
/// under `regime` (`env::rss_counting`), KiB: the per-CPU bound as it is,
/// the per-thread one times the threads.
pub fn bound_kib(regime: &crate::env::RssCounting, threads: u64) -> f64 {
    match regime.bound_bytes {
        Some(b) => b as f64 / 1024.0,
        None => 256.0 * threads.max(1) as f64,
    }
}

/// This kernel's regime: its release and the CPUs online.
pub fn regime_here() -> Option<crate::env::RssCounting> {
    let release = procfs::kernel_release()?;
    let cpus = procfs::cpus_online_list()
        .and_then(|s| crate::env::parse_cpu_list(&s).ok())
        .map(|v| v.len())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    crate::env::rss_counting(&release, cpus)
}

/// The bound on one VmRSS reading of this process now, KiB, with the regime
/// in words; None when the kernel's release cannot be read.
pub fn bound_now() -> Option<(f64, String)> {
    let r = regime_here()?;
    let threads = procfs::status_count("Threads").unwrap_or(1);
    Some((bound_kib(&r, threads), r.regime))
}

/// Records the bound of one reading now under `labels`.
pub fn record_bound(out: &mut WorkerOutput, labels: &Labels) {
    if let Some(b) = bound_now() {
        push_bound(out, labels, b);
    }
}

/// Records `bound` (KiB and regime, from [`bound_now`]) under `labels`, the
/// regime added as a label, keeping the larger when one is there already.
pub fn push_bound(out: &mut WorkerOutput, labels: &Labels, (kib, regime): (f64, String)) {
    let mut l = labels.clone();
    l.insert(REGIME.into(), regime);
    if let Some(r) = out
        .readings
        .iter_mut()
        .find(|r| r.name == RSS_BOUND_KIB.name && r.labels == l)
    {
        r.value = r.value.max(kib);
        return;
    }
    out.reading(&RSS_BOUND_KIB, l, kib);
}

/// Records the cross-check of `vm_rss_kib` against the exact count
/// `exact_kib` read beside it.
pub fn cross_check(out: &mut WorkerOutput, labels: &Labels, vm_rss_kib: f64, exact_kib: f64) {
    out.reading(&RSS_CROSS_CHECK_KIB, labels.clone(), vm_rss_kib - exact_kib);
}

/// Records the bound now and the cross-check of `vm_rss_kib` against
/// `exact_kib`.
pub fn record(out: &mut WorkerOutput, labels: &Labels, vm_rss_kib: f64, exact_kib: f64) {
    record_bound(out, labels);
    cross_check(out, labels, vm_rss_kib, exact_kib);
}

/// Reads VmRSS and smaps_rollup Rss now and records both the bound and the
/// cross-check; returns VmRSS.
pub fn record_now(out: &mut WorkerOutput, labels: &Labels) -> Option<f64> {
    let vm = procfs::status_kib("VmRSS")? as f64;
    match procfs::smaps_rollup_kib("Rss") {
        Some(exact) => record(out, labels, vm, exact as f64),
        None => record_bound(out, labels),
    }
    Some(vm)
}

/// The bound of one reading at the point whose labels include `with`: the
/// largest such reading (the rounds' maximum); None in a file from before.
pub fn bound(r: &ExperimentResult, with: &[(&str, &str)]) -> Option<f64> {
    r.readings
        .iter()
        .filter(|x| x.name == RSS_BOUND_KIB.name)
        .filter(|x| {
            with.iter()
                .all(|(k, v)| x.labels.get(*k).map(String::as_str) == Some(*v))
        })
        .map(|x| x.value)
        .reduce(f64::max)
}

/// "± 256 KiB": a bound as printed beside a figure; `readings` is how many
/// counter readings the figure combines (2 for a growth), `per` what it is
/// divided by (threads for a per-thread figure). Empty without a bound.
pub fn pm(bound_kib: Option<f64>, readings: f64, per: f64) -> String {
    bound_kib.map_or(String::new(), |b| {
        format!(" ± {}", fmt_value(b * readings / per.max(1.0), Unit::Kib))
    })
}

/// "+12.0 KiB", "-4.00 KiB", "0 KiB": a difference with its sign.
pub fn signed(kib: f64) -> String {
    fmt_delta(kib, Unit::Kib)
}

/// The note under an experiment whose table or findings print an RSS
/// figure: the bound of one reading with its regime, and the cross-check
/// against smaps_rollup where it was read. None in a file from before.
pub fn note(r: &ExperimentResult) -> Option<String> {
    let bounds: Vec<_> = r
        .readings
        .iter()
        .filter(|x| x.name == RSS_BOUND_KIB.name)
        .collect();
    let lo = bounds.iter().map(|x| x.value).reduce(f64::min)?;
    let hi = bounds.iter().map(|x| x.value).reduce(f64::max)?;
    let regime = bounds
        .iter()
        .find_map(|x| x.labels.get(REGIME))
        .map_or("", String::as_str);
    let kib = |v: f64| fmt_value(v, Unit::Kib);
    let one = if lo == hi {
        format!("± {}", kib(hi))
    } else {
        format!("± {} to ± {} (it grows with the threads)", kib(lo), kib(hi))
    };
    let mut s = format!(
        "RSS bound: a VmRSS, RssAnon or max-RSS figure here comes from the kernel's RSS counters, here {regime}, which may lag the true count by up to {one} per reading, a growth between two readings by twice that; smaps_rollup figures (Rss, Private, Shared) walk the page tables and are exact"
    );
    let mut cross: Vec<f64> = r
        .readings
        .iter()
        .filter(|x| x.name == RSS_CROSS_CHECK_KIB.name)
        .map(|x| x.value)
        .collect();
    if !cross.is_empty() {
        cross.sort_by(f64::total_cmp);
        let (first, last) = (cross[0], cross[cross.len() - 1]);
        let within = cross.iter().all(|c| c.abs() <= hi);
        s.push_str(&format!(
            ". Cross-check, VmRSS − smaps_rollup Rss read together: {} over {} reading{}, {} the bound",
            if first == last {
                signed(first)
            } else {
                format!("{} to {}", signed(first), signed(last))
            },
            cross.len(),
            if cross.len() == 1 { "" } else { "s" },
            if within { "within" } else { "beyond" }
        ));
    }
    Some(s)
}
