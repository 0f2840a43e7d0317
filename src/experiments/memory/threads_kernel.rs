//! kernel: split from threads_findings.rs (the 800-line limit): what the
//! kernel keeps per thread, each kind quoted whatever settled.

use super::*;

/// Issue 14 item 6: what the kernel keeps per 1,000 default-stack threads
/// (KernelStack, PageTables, Slab and SUnreclaim from /proc/meminfo, the
/// page tables replaced by the process's own VmPTE where that settled),
/// next to the user memory they keep resident.
pub(super) fn kernel_memory(r: &ExperimentResult, n: &str) -> Option<String> {
    let d = DEFAULT.name;
    // Every kind measured, settled or not (issue 39 item 9).
    let at = |kind: &'static str| {
        r.find(
            &KERNEL_KIB_PER_1000_THREADS,
            &[(VARIANT, d), (THREADS, n), (MEMINFO, kind)],
        )
        .map(|m| &m.summary)
    };
    // Each kind: its label, its figure, and words after the figure.
    let mut kinds: Vec<(String, Summary, String)> =
        ["KernelStack", "PageTables", "Slab", "SUnreclaim"]
            .into_iter()
            .filter_map(|k| Some((k.to_string(), at(k)?.clone(), String::new())))
            .collect();
    // The page tables from this process's own VmPTE where it settled: the
    // same quantity as /proc/meminfo's system-wide PageTables, exact and
    // unmoved by other processes (4,036 KiB per 1,000 in every run where
    // PageTables read 2,596 to 3,926). Its label names it, and the
    // system-wide PageTables it stands in for is quoted beside.
    let own_pte = r
        .find(&PAGE_TABLES_PER_THREAD_BYTES, &[(VARIANT, d), (THREADS, n)])
        .map(|m| &m.summary);
    if let (Some(own), false) = (own_pte, kinds.is_empty()) {
        let label = "page tables from this process's own VmPTE".to_string();
        let own = scaled(own, 1000.0 / 1024.0);
        match kinds.iter_mut().find(|(k, _, _)| k == "PageTables") {
            Some(slot) => {
                let system = format!(
                    " (the system-wide PageTables read {})",
                    shown(&slot.1, Unit::Kib)
                );
                *slot = (label, own, system);
            }
            None => kinds.insert(1.min(kinds.len()), (label, own, String::new())),
        }
    }
    if kinds.is_empty() {
        // A file from before these series: the kernel stack per thread.
        let k = &r
            .find(&KERNEL_STACK_PER_THREAD_KIB, &[(VARIANT, d), (THREADS, n)])?
            .summary;
        return Some(format!(
            "beyond its user memory each thread also costs the kernel {} of kernel stack (KernelStack, system-wide, so other activity adds noise; at {n} threads)",
            shown(k, Unit::Kib)
        ));
    }
    let parts: Vec<String> = kinds
        .iter()
        .map(|(k, s, beside)| {
            let noise = if !s.unstable && s.ci95_lo <= 0.0 && s.ci95_hi >= 0.0 {
                ", within noise"
            } else {
                ""
            };
            format!("{k} {}{noise}{beside}", shown(s, Unit::Kib))
        })
        .collect();
    let user = r
        .find(&RSS_EXACT_PER_THREAD_KIB, &[(VARIANT, d), (THREADS, n)])
        .map(|u| {
            let u = &u.summary;
            let per_1000 = if u.unstable {
                quoted(&scaled(u, 1000.0), Unit::Kib)
            } else {
                fmt_value(u.median * 1000.0, Unit::Kib)
            };
            format!(
                "; beside them the threads' user memory, resident (smaps_rollup), is {per_1000} per 1,000"
            )
        })
        .unwrap_or_default();
    Some(format!(
        "beyond the threads' user memory the kernel keeps, per 1,000 default-stack threads (at {n} threads): {}{user}{}",
        parts.join(", "),
        per_thread_total(&kinds)
    ))
}

/// The kernel's memory for one thread, in all: its kernel stack, its page
/// tables and its slab objects, each measured (the growth of a counter per
/// thread), summed with an interval that adds the three intervals' ends.
/// SUnreclaim is part of Slab and is not added again. Only when all three
/// were measured and settled; the kernel stack's size is set beside the
/// known one, with its source.
fn per_thread_total(kinds: &[(String, Summary, String)]) -> String {
    let find = |prefix: &str| {
        kinds
            .iter()
            .find(|(k, _, _)| k.starts_with(prefix))
            .map(|(_, s, _)| scaled(s, 1.0 / 1000.0))
    };
    // The page tables: this process's own VmPTE where it stands in.
    let tables = find("PageTables").or_else(|| find("page tables"));
    let (Some(stack), Some(tables), Some(slab)) = (find("KernelStack"), tables, find("Slab"))
    else {
        return String::new();
    };
    // Issue 39 item 9: the sentence stays, and no sum rests on a figure
    // that did not settle.
    if [&stack, &tables, &slab].iter().any(|s| s.unstable) {
        return ". Per thread in all: not summed, a figure did not settle".to_string();
    }
    let all = [&stack, &tables, &slab];
    let total = Difference {
        d: all.iter().map(|s| s.median).sum(),
        lo: all.iter().map(|s| s.ci95_lo).sum(),
        hi: all.iter().map(|s| s.ci95_hi).sum(),
        unit: Unit::Kib,
        weak: None,
    };
    let kib = |s: &Summary| {
        let noise = if s.ci95_lo <= 0.0 {
            " (within noise)"
        } else {
            ""
        };
        format!("{}{noise}", fmt_value(s.median, Unit::Kib))
    };
    format!(
        ". Per thread that is {} of kernel memory in all, measured: {} of kernel stack, {} of page tables and {} of slab (the thread's task_struct and what is allocated with it), each the growth of its counter per thread; the known size beside the measured stack: x86-64's kernel stack is THREAD_SIZE, 16 KiB (arch/x86/include/asm/page_64_types.h, without KASAN)",
        total.text(),
        kib(&stack),
        kib(&tables),
        kib(&slab)
    )
}
