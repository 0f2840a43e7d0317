//! spawn.heap's untouched variant: the heap mapped (a `malloc` of that
//! size) but never written. fork copies page tables only where pages were
//! touched, so this line stays flat; seed 004's 4 GB row ("malloc(1e9 *
//! sizeof(int))", about 20 ms) is put beside both lines to say which heap it
//! was. Its own series names (`untouched_*`) keep it out of the touched
//! heap's fits.

use super::engine::{Launcher, PARENT_RETURN_NS};
use super::heap_fit::warm_line;
use super::table;
use crate::experiments::prelude::*;
use crate::measure::rss::VM_PTE_KIB;
use crate::measure::sampler::{events, Budget};
use crate::metric::key::{HEAP, HEAP_BYTES, METHOD, THP};
use crate::stats::contrast::Order;
use crate::sys;
use crate::sys::procfs;

/// Methods measured on an untouched heap: fork is the one whose cost the
/// touched heap moves.
pub const UNTOUCHED_METHODS: &[&str] = &[table::FORK.name()];

/// fork's return to the parent and fork+reap with the untouched heap.
pub const UNTOUCHED_PARENT_RETURN_NS: MetricSpec = MetricSpec::new(
    "untouched_parent_return_ns",
    Unit::Ns,
    Better::Lower,
    Kind::Creation,
    "fork's return to the parent with the heap mapped but never written",
);
pub const UNTOUCHED_LIFECYCLE_NS: MetricSpec = MetricSpec::new(
    "untouched_lifecycle_ns",
    Unit::Ns,
    Better::Lower,
    Kind::Creation,
    "fork+reap with the heap mapped but never written",
);
/// The worker's page tables and resident set with the untouched heap.
pub const UNTOUCHED_VM_PTE_KIB: MetricSpec = MetricSpec::new(
    "untouched_vm_pte_kib",
    Unit::Kib,
    Better::Neither,
    Kind::Memory,
    "the worker's page tables (VmPTE) with the heap mapped but never written",
);
pub const UNTOUCHED_VM_RSS_KIB: MetricSpec = MetricSpec::new(
    "untouched_vm_rss_kib",
    Unit::Kib,
    Better::Neither,
    Kind::Memory,
    "the worker's resident set (VmRSS) with the heap mapped but never written",
);

/// fork with a heap of `heap_bytes` mapped and never touched.
pub fn measure(job: &Job, heap_bytes: u64) -> anyhow::Result<WorkerOutput> {
    let heap = sys::Heap::untouched(heap_bytes as usize, sys::Thp::Default)?;
    let l = Launcher::new(job.scratch.as_deref(), job.timer_overhead_ns)?;
    let heap_name = fmt_size(heap_bytes);
    let heap_bytes_text = heap_bytes.to_string();
    let mut out = WorkerOutput::default();
    let point = labels(&[(HEAP, &heap_name), (HEAP_BYTES, &heap_bytes_text)]);
    for (field, spec) in [
        ("VmPTE", &UNTOUCHED_VM_PTE_KIB),
        ("VmRSS", &UNTOUCHED_VM_RSS_KIB),
    ] {
        if let Some(v) = procfs::status_kib(field) {
            out.reading(spec, point.clone(), v as f64);
        }
    }
    // The bound of the VmRSS reading and its cross-check against smaps_rollup.
    crate::measure::rss::record_now(&mut out, &point);
    let budget = Budget::from_job(job);
    for &name in UNTOUCHED_METHODS {
        let method =
            find(table::METHODS, name).ok_or_else(|| anyhow::anyhow!("unknown method {name}"))?;
        let launches = events(&budget, 2, || l.launch(method))?;
        let l = labels(&[
            (METHOD, name),
            (HEAP, &heap_name),
            (HEAP_BYTES, &heap_bytes_text),
        ]);
        out.push(
            &UNTOUCHED_PARENT_RETURN_NS,
            l.clone(),
            launches.iter().map(|x| x.parent_return_ns).collect(),
        );
        out.push(
            &UNTOUCHED_LIFECYCLE_NS,
            l,
            launches.iter().map(|x| x.lifecycle_ns).collect(),
        );
    }
    drop(heap);
    Ok(out)
}

/// Sysel's 4 GB fork, to the parent (seed 004).
const SEED_4G_NS: f64 = 20e6;

/// Every series named `spec`, flagged ones included: the untouched
/// finding keeps its subject whatever settled (issue 39 item 9).
fn every<'a>(r: &'a ExperimentResult, spec: &'a MetricSpec) -> impl Iterator<Item = &'a Metric> {
    r.metrics.iter().filter(move |m| m.name == spec.name)
}

/// The untouched fork series at the largest heap also measured touched.
fn largest_both_ways<'a>(r: &'a ExperimentResult, base: &str) -> Option<&'a Metric> {
    every(r, &UNTOUCHED_PARENT_RETURN_NS)
        .filter(|m| m.label(METHOD) == Some(table::FORK.name()))
        .filter(|m| touched_fork(r, m.label(HEAP).unwrap_or(""), base).is_some())
        .max_by_key(|m| m.label_num(HEAP_BYTES))
}

/// The touched heap's warm fork to the parent at `heap`: never the
/// `call=first` series (the cold first fork of a fresh process), which
/// carries the same method, heap and thp labels.
fn touched_fork<'a>(r: &'a ExperimentResult, heap: &str, base: &str) -> Option<&'a Metric> {
    every(r, &PARENT_RETURN_NS)
        .find(|m| warm_line(m, table::FORK.name(), base) && m.label(HEAP) == Some(heap))
}

/// When no heap of 4 GiB was measured both ways: a note that seed 004's
/// 4 GB row lies beyond this run, and how to measure it (the finding then
/// cannot say which line it matches).
pub fn seed_row_note(r: &ExperimentResult, base: &str) -> Option<String> {
    let big = largest_both_ways(r, base)?;
    (big.label_num(HEAP_BYTES)? < 4 << 30).then(|| {
        format!(
            "{}'s 4 GB row (a fork of about 20 ms to the parent after malloc(4 GB), not said to be written) lies beyond the largest heap measured both ways here ({}): which line it matches, the untouched (flat) or the touched (growing), is measured at 4 GiB by the thorough profile or `-p heap_sizes=0,2M,64M,512M,1G,4G`",
            cite_short(SEED_SYSEL),
            big.label(HEAP).unwrap_or("")
        )
    })
}

/// The untouched heap against the touched one at the largest size measured
/// both ways, and which of the two seed 004's 4 GB row matches. `base` is
/// the touched points' `thp` label.
pub fn finding(r: &ExperimentResult, base: &str) -> Vec<String> {
    let mut out = Vec::new();
    let Some(big) = largest_both_ways(r, base) else {
        return out;
    };
    let heap = big.label(HEAP).unwrap_or("");
    let untouched = &big.summary;
    let Some(touched) = touched_fork(r, heap, base).map(|m| &m.summary) else {
        return out;
    };
    let pte = |spec: &MetricSpec, with: &[(&str, &str)]| {
        r.reading(spec, with)
            .map(|k| format!(" (VmPTE {})", fmt_size((k * 1024.0) as u64)))
            .unwrap_or_default()
    };
    // Decided on the interval of the ratio (stats::contrast), as every
    // other difference is; a figure that did not settle tells nothing apart
    // and no reason rests on it (issue 39 item 9).
    let unsettled = touched.unstable || untouched.unstable;
    let verdict = if unsettled {
        "not told apart here: a figure did not settle, so no reason is drawn".to_string()
    } else {
        let why = "because fork copies page tables only where pages were touched";
        match crate::stats::contrast::order(touched, untouched) {
            // The ratio with its interval where that is wide: a figure
            // whose own interval spans more than threefold is no ground for
            // a bare "147x".
            Order::Above => format!(
                "{} faster, {why}",
                crate::stats::compare_text::ratio_text(touched, untouched)
                    .unwrap_or_else(|| fmt_ratio(touched.median / untouched.median))
            ),
            Order::Below => "slower, which the page tables do not explain".to_string(),
            Order::Overlap => "indistinguishable here".to_string(),
        }
    };
    let smallest = every(r, &UNTOUCHED_PARENT_RETURN_NS)
        .filter(|m| m.label(METHOD) == Some(table::FORK.name()))
        .min_by_key(|m| m.label_num(HEAP_BYTES));
    let flat = smallest
        .filter(|s| s.label(HEAP) != Some(heap))
        .map(|s| {
            format!(
                "; from {} to {heap} untouched, fork goes from {} to {}",
                s.label(HEAP).unwrap_or(""),
                quoted(&s.summary, Unit::Ns),
                quoted(untouched, Unit::Ns)
            )
        })
        .unwrap_or_default();
    out.push(format!(
        "an untouched {heap} heap (mapped, never written) forks to the parent in {}{}, a touched one in {}{}: {verdict}{flat}",
        quoted(untouched, Unit::Ns),
        pte(&UNTOUCHED_VM_PTE_KIB, &[(HEAP, heap)]),
        quoted(touched, Unit::Ns),
        pte(&VM_PTE_KIB, &[(HEAP, heap), (THP, base)]),
    ));
    if big.label_num(HEAP_BYTES) == Some(4 << 30) && unsettled {
        out.push(format!(
            "{}'s 4 GB fork (about 20 ms to the parent after malloc(4 GB)) against the heaps here: not said, a figure did not settle",
            cite_short(SEED_SYSEL),
        ));
    } else if big.label_num(HEAP_BYTES) == Some(4 << 30) {
        // Which line the seed's row sits closer to, by ratio.
        let off = |ns: f64| (SEED_4G_NS / ns).ln().abs();
        let (near, far) = if off(touched.median) <= off(untouched.median) {
            ("touched", touched.median)
        } else {
            ("untouched", untouched.median)
        };
        out.push(format!(
            "{}'s 4 GB fork (about 20 ms to the parent after malloc(4 GB)) matches the {near} heap here ({}){}",
            cite_short(SEED_SYSEL),
            fmt_ns(far),
            if near == "touched" {
                ": the figure fits memory written before the fork, though the article says only that it was allocated"
            } else {
                ""
            }
        ));
    }
    out
}
