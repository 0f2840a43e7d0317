//! spawn.heap: creation cost against the parent's touched heap. Reproduces
//! Bendersky's "launch time vs memory image" figure (seed 000: fork grows
//! with the heap, a thread does not) and Sysel's 4 GB fork ≈ 20 ms (seed
//! 004), and explains the growth by the page tables fork copies (VmPTE).
//! An untouched heap of each size ([`super::heap_untouched`]) says which
//! heap the seed's 4 GB row was.

use super::engine::{push_launches, Launcher};
use super::heap_untouched as untouched;
use super::table::{self, CHOICES};
use crate::experiments::prelude::*;
use crate::measure::sampler::{events, interleave, Budget, PASSES};
use crate::stats::{linear_fit, Fit};
use crate::sys;
use crate::sys::procfs;

pub static EXPERIMENT: Experiment = Experiment {
    name: "spawn.heap",
    better: &[("parent_return_ns", Better::Lower), ("child_start_ns", Better::Lower), ("lifecycle_ns", Better::Lower), ("untouched_parent_return_ns", Better::Lower), ("untouched_lifecycle_ns", Better::Lower)],
    summary: "creation cost vs the parent's touched heap (0 to 4 GiB), VmPTE, cost per KiB of page tables, THP on vs off",
    reproduces: "Bendersky's \"launch time vs memory image\" figure; Sysel's 4 GB fork ≈ 20 ms",
    params: &[
        ParamSpec {
            name: "heap_sizes",
            help: "parent heap sizes, touched so they are resident",
            kind: ParamKind::SizeList { min: 0, max: 1 << 40 },
            quick: "0,2M,64M,512M,4G",
            thorough: "0,2M,16M,64M,256M,512M,1G,2G,4G",
        },
        ParamSpec {
            name: "methods",
            help: "methods swept over the heap",
            kind: ParamKind::Names(&CHOICES),
            quick: "fork,fork_exec_static,vfork,clone_vfork,posix_spawn,clone_vm,pthread_create",
            thorough: "fork,fork_exec_static,vfork,clone_vfork,posix_spawn,clone_vm,pthread_create,clone_thread_flags",
        },
        ParamSpec {
            name: "thp",
            help: "also measure fork and pthread_create with each heap of 64 MiB and more on transparent huge pages (MADV_HUGEPAGE); the other points leave the heap as the system's THP setting backs it (thp=system)",
            kind: ParamKind::Bool,
            quick: "true",
            thorough: "true",
        },
        ParamSpec {
            name: "thp_max",
            help: "the largest heap also measured on huge pages (touching a huge-page heap is slow in a VM: the quick profile stops at 512 MiB)",
            kind: ParamKind::Size { min: 0, max: 1 << 40 },
            quick: "512M",
            thorough: "4G",
        },
        ParamSpec {
            name: "untouched",
            help: "also fork with each heap mapped but never written (untouched_* series): fork skips it, so that line stays flat",
            kind: ParamKind::Bool,
            quick: "true",
            thorough: "true",
        },
    ],
    seeds: &[
        SeedFigure {
            metric: "lifecycle_ns",
            labels: &[("method", "fork"), ("heap", "2 MiB"), ("thp", BASE_THP)],
            lo: 35_000.0,
            hi: 35_000.0,
            unit: Unit::Ns,
            source: SEED_CLONE,
            hardware: BENDERSKY_HW,
            method: "fork launch averaged over 10,000 launches, 2 MB heap",
        },
        SeedFigure {
            metric: "lifecycle_ns",
            labels: &[("method", "pthread_create"), ("heap", "2 MiB"), ("thp", BASE_THP)],
            lo: 5_000.0,
            hi: 5_000.0,
            unit: Unit::Ns,
            source: SEED_CLONE,
            hardware: BENDERSKY_HW,
            method: "thread launch averaged over 10,000 launches, 2 MB heap",
        },
        SeedFigure {
            metric: "parent_return_ns",
            labels: &[("method", "fork"), ("heap", "4 GiB"), ("thp", BASE_THP)],
            lo: 20_000_000.0,
            hi: 20_000_000.0,
            unit: Unit::Ns,
            source: SEED_SYSEL,
            hardware: SYSEL_HW,
            method: "single fork after malloc(4 GB), return to the parent",
        },
        SeedFigure {
            metric: "child_start_ns",
            labels: &[("method", "pthread_create"), ("heap", "4 GiB"), ("thp", BASE_THP)],
            lo: 170_000.0,
            hi: 290_000.0,
            unit: Unit::Ns,
            source: SEED_SYSEL,
            hardware: SYSEL_HW,
            method: "single cold call with a 4 GB address space, to the thread's start",
        },
    ],
    points,
    measure,
    analyze,
    ..Experiment::DEFAULT
};

/// Methods measured again with the heap on transparent huge pages.
const THP_METHODS: &[&str] = &["fork", "pthread_create"];

/// Heaps from this size on are measured on huge pages too.
const THP_MIN_HEAP_BYTES: u64 = 64 << 20;

/// Memory a heap point must leave free, beyond the heap itself.
pub fn heap_margin(env: &Env) -> u64 {
    (1u64 << 30).max(env.mem_total_bytes / 10)
}

/// Address space a worker needs beyond its heap: the binary, the libraries,
/// the stacks of the threads it starts.
const ADDRESS_MARGIN_BYTES: u64 = 512 << 20;

/// The largest heap a point may touch here, and why, in words: the memory
/// available less [`heap_margin`], the address-space limit (RLIMIT_AS) less
/// the worker's own mappings, and the cgroup's memory limit (v1 or v2) less
/// a tenth of it (at least 256 MiB): the tightest of the three.
pub fn heap_room(env: &Env, available_bytes: u64) -> (u64, String) {
    let margin = heap_margin(env);
    let mut room = (
        available_bytes.saturating_sub(margin),
        format!(
            "{} is available and {} must stay free",
            fmt_size(available_bytes),
            fmt_size(margin)
        ),
    );
    if let Some(limit) = env.limits.rlimit_as {
        let r = limit.saturating_sub(ADDRESS_MARGIN_BYTES);
        if r < room.0 {
            room = (
                r,
                format!(
                    "the address-space limit (RLIMIT_AS, ulimit -v) is {} and a worker's own mappings take up to {}",
                    fmt_size(limit),
                    fmt_size(ADDRESS_MARGIN_BYTES)
                ),
            );
        }
    }
    if let Some(limit) = env.limits.cgroup_memory_max {
        let keep = (256u64 << 20).max(limit / 10);
        let r = limit.saturating_sub(keep);
        if r < room.0 {
            room = (
                r,
                format!(
                    "the cgroup's memory limit is {} and {} of it must stay free",
                    fmt_size(limit),
                    fmt_size(keep)
                ),
            );
        }
    }
    room
}

fn points(ctx: &PlanCtx) -> Result<Points, String> {
    let mut pts = Points::default();
    let available_bytes = crate::env::mem_available_bytes().unwrap_or(ctx.env.mem_available_bytes);
    let (limit_bytes, why) = heap_room(ctx.env, available_bytes);
    let user_set = ctx.user_set.iter().any(|n| n == "heap_sizes");
    let mut sizes_bytes = Vec::new();
    for s in ctx.params.list("heap_sizes") {
        if s > limit_bytes {
            let msg = format!(
                "heap size {} does not fit: {why} (largest allowed here: {})",
                fmt_size(s),
                fmt_size(limit_bytes)
            );
            if user_set {
                return Err(msg);
            }
            pts.notes.push(format!("{msg}; that point was dropped"));
            continue;
        }
        sizes_bytes.push(s);
    }
    let thp_possible = ctx.env.thp_enabled.as_deref() != Some("never");
    if ctx.params.flag("thp") && !thp_possible {
        pts.notes
            .push("transparent huge pages are disabled here (enabled=never): no THP points".into());
    }
    for &s in &sizes_bytes {
        pts.points
            .push(serde_json::json!({"heap": s, "thp": BASE_THP}));
    }
    if ctx.params.flag("untouched") {
        for &s in sizes_bytes.iter().filter(|&&s| s > 0) {
            pts.points.push(untouched::point(s, BASE_THP));
        }
    }
    if ctx.params.flag("thp") && thp_possible {
        let thp_max = ctx.params.int("thp_max");
        for &s in sizes_bytes
            .iter()
            .filter(|&&s| s >= THP_MIN_HEAP_BYTES && s <= thp_max)
        {
            pts.points.push(serde_json::json!({"heap": s, "thp": "on"}));
        }
    }
    Ok(pts)
}

fn measure(job: &Job) -> anyhow::Result<WorkerOutput> {
    let heap_bytes = job.point["heap"].as_u64().unwrap_or(0);
    if untouched::is_untouched(&job.point) {
        return untouched::measure(job, heap_bytes);
    }
    // The heap as the system backs it (no advice), or with MADV_HUGEPAGE.
    let (thp, thp_label) = if job.point["thp"] == "on" {
        (sys::Thp::On, "on")
    } else {
        (sys::Thp::Default, BASE_THP)
    };
    let heap = sys::Heap::touched(heap_bytes as usize, thp)?;
    let l = Launcher::new(job.scratch.as_deref(), job.timer_overhead_ns)?;
    let heap_name = fmt_size(heap_bytes);
    let base = |m: &str| {
        labels(&[
            ("method", m),
            ("heap", &heap_name),
            ("heap_bytes", &heap_bytes.to_string()),
            ("thp", thp_label),
        ])
    };
    let mut out = WorkerOutput::default();
    let point_labels = labels(&[
        ("heap", &heap_name),
        ("heap_bytes", &heap_bytes.to_string()),
        ("thp", thp_label),
    ]);
    for (field, name) in [
        ("VmPTE", "vm_pte_kib"),
        ("VmRSS", "vm_rss_kib"),
        ("VmSize", "vm_size_kib"),
    ] {
        if let Some(v) = procfs::status_kib(field) {
            out.reading(name, Unit::Kib, point_labels.clone(), v as f64);
        }
    }
    if let Some(v) = procfs::smaps_rollup_kib("AnonHugePages") {
        out.reading("anon_huge_kib", Unit::Kib, point_labels.clone(), v as f64);
    }
    let chosen = job.params.names("methods");
    let names = chosen
        .iter()
        .map(String::as_str)
        .filter(|m| thp != sys::Thp::On || THP_METHODS.contains(m));
    let share = Budget::from_job(job).split(PASSES);
    let mut runnable = Vec::new();
    for name in names {
        let method = table::method(name).ok_or_else(|| anyhow::anyhow!("unknown method {name}"))?;
        match l.unsupported(method) {
            Some(why) => out.notes.push(why),
            None => runnable.push((name, method)),
        }
    }
    // The methods take turns on the same heap, a share of the budget at a time.
    let per_method = interleave(&runnable, PASSES, job.seed, |(name, method)| {
        events(&share, 2, || l.launch(method)).map_err(|e| anyhow::anyhow!("{name}: {e}"))
    })?;
    for ((name, _), passes) in runnable.iter().zip(per_method) {
        push_launches(&mut out, &base(name), &passes.concat(), true);
    }
    drop(heap);
    Ok(out)
}

/// One method's straight line of lifecycle against VmPTE, and its medians
/// by heap size.
struct MethodFit {
    method: String,
    fit: Fit,
    /// (heap bytes, lifecycle median ns), smallest heap first.
    by_heap: Vec<(u64, f64)>,
}

fn analyze(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    let base = base_thp(r);
    // Fit lifecycle = a + b * VmPTE per method, over the THP-off points.
    let mut methods: Vec<String> = r
        .metrics_named("lifecycle_ns")
        .filter_map(|m| m.label("method").map(String::from))
        .collect();
    methods.sort();
    methods.dedup();
    let mut fits = Vec::new();
    for method in &methods {
        let mut pte_kib = Vec::new();
        let mut lifecycle_ns = Vec::new();
        let mut by_heap: Vec<(u64, f64)> = Vec::new();
        for m in r
            .metrics_named("lifecycle_ns")
            .filter(|m| m.label("method") == Some(method) && m.label("thp") == Some(base))
        {
            let heap = m.label("heap").unwrap_or("");
            if let Some(pte) = r.reading("vm_pte_kib", &[("heap", heap), ("thp", base)]) {
                pte_kib.push(pte);
                lifecycle_ns.push(m.summary.median);
            }
            by_heap.push((m.label_num("heap_bytes").unwrap_or(0), m.summary.median));
        }
        by_heap.sort_by_key(|x| x.0);
        if let Some(fit) = linear_fit(&pte_kib, &lifecycle_ns) {
            fits.push(MethodFit {
                method: method.clone(),
                fit,
                by_heap,
            });
        }
    }
    for f in &fits {
        a.fits.push(NamedFit {
            name: format!("{} lifecycle_ns vs VmPTE KiB", f.method),
            labels: labels(&[("method", &f.method), ("thp", base)]),
            x_unit: "KiB of page tables".into(),
            y_unit: "ns".into(),
            fit: f.fit.clone(),
        });
    }
    for f in &fits {
        let (Some(&(from_bytes, lo_ns)), Some(&(to_bytes, hi_ns))) =
            (f.by_heap.first(), f.by_heap.last())
        else {
            continue;
        };
        let (from, to) = (fmt_size(from_bytes), fmt_size(to_bytes));
        let ratio = hi_ns / lo_ns.max(1.0);
        let text = if ratio < 1.5 {
            format!(
                "{} stays flat as the heap grows: {} at {from}, {} at {to} ({ratio:.2}x)",
                f.method,
                fmt_ns(lo_ns),
                fmt_ns(hi_ns)
            )
        } else {
            format!(
                "{} grows with the heap: {} at {from}, {} at {to} ({ratio:.1}x); {:.0} ns per KiB of page tables (R² {:.3})",
                f.method,
                fmt_ns(lo_ns),
                fmt_ns(hi_ns),
                f.fit.slope,
                f.fit.r2
            )
        };
        a.findings.push(text);
    }
    a.findings.extend(huge_pages(r));
    a.findings.extend(untouched::finding(r, base));
    if let (Some(fork_ns), Some(thread_ns)) = (
        r.median(
            "lifecycle_ns",
            &[("method", "fork"), ("heap", "2 MiB"), ("thp", base)],
        ),
        r.median(
            "lifecycle_ns",
            &[
                ("method", "pthread_create"),
                ("heap", "2 MiB"),
                ("thp", base),
            ],
        ),
    ) {
        a.findings.push(format!(
            "at a 2 MiB heap fork costs {} and a thread {}: {:.1}x (seed 000: 35 vs 5 µs, 7x)",
            fmt_ns(fork_ns),
            fmt_ns(thread_ns),
            fork_ns / thread_ns.max(1.0)
        ));
    }
    if methods.iter().any(|m| m == "posix_spawn") {
        a.findings.push(
            "advice: a process with a large heap that must start programs should use posix_spawn or vfork, whose cost does not grow with the heap; fork+exec pays for copying the page tables first".into(),
        );
    }
    a.headlines
        .extend(fork_vs_thread(r).into_iter().chain(program_start(r)));
    a
}

/// The `thp` label of the heap points without huge-page advice: "system"
/// (the heap as the system's THP setting backs it), or "off" in results
/// from before, when those heaps were kept off huge pages.
pub const BASE_THP: &str = "system";

/// The label the heap points without advice carry in `r`.
pub fn base_thp(r: &ExperimentResult) -> &'static str {
    if r.metrics.iter().any(|m| m.label("thp") == Some(BASE_THP)) {
        BASE_THP
    } else {
        "off"
    }
}

/// Huge pages: fork with the largest heap measured both ways.
fn huge_pages(r: &ExperimentResult) -> Option<String> {
    let big = r
        .metrics_named("lifecycle_ns")
        .filter(|m| m.label("method") == Some("fork") && m.label("thp") == Some("on"))
        .max_by_key(|m| m.label_num("heap_bytes"))?;
    let heap = big.label("heap").unwrap_or("");
    let off_ns = r.median(
        "lifecycle_ns",
        &[("method", "fork"), ("heap", heap), ("thp", base_thp(r))],
    )?;
    let on_ns = big.summary.median;
    let huge_kib = r
        .reading("anon_huge_kib", &[("heap", heap), ("thp", "on")])
        .unwrap_or(0.0);
    Some(format!(
        "on transparent huge pages ({} of the heap in 2 MiB pages) a fork with a {heap} heap costs {} instead of {} as the system backs it ({:.1}x cheaper): \
         fork copies one entry per 2 MiB instead of 512. VmPTE barely changes, because the kernel keeps a spare page table \
         deposited for every huge page in case it must be split",
        fmt_size((huge_kib * 1024.0) as u64),
        fmt_ns(on_ns),
        fmt_ns(off_ns),
        off_ns / on_ns.max(1.0),
    ))
}

/// Warm fork vs thread at the smallest non-empty heap, and fork's growth
/// per 100 MiB of heap from a straight-line fit over every heap measured.
fn fork_vs_thread(e: &ExperimentResult) -> Option<String> {
    let series = |method: &str| -> Vec<(u64, f64, String)> {
        let mut v: Vec<(u64, f64, String)> = e
            .metrics_named("lifecycle_ns")
            .filter(|m| m.label("method") == Some(method) && m.label("thp") != Some("on"))
            .filter_map(|m| {
                Some((
                    m.label_num("heap_bytes")?,
                    m.summary.median,
                    m.label("heap")?.to_string(),
                ))
            })
            .collect();
        v.sort_by_key(|p| p.0);
        v
    };
    let fork = series("fork");
    let thread = series("pthread_create");
    let (heap_bytes, fork_ns, heap) = fork.iter().find(|p| p.0 > 0).or(fork.first())?.clone();
    let thread_ns = thread.iter().find(|p| p.0 == heap_bytes)?.1;
    let mut s = format!(
        "fork is {:.1}x slower than a thread at a {heap} heap ({} vs {}, created and reaped)",
        fork_ns / thread_ns,
        fmt_ns(fork_ns),
        fmt_ns(thread_ns)
    );
    let heaps_bytes: Vec<f64> = fork.iter().map(|p| p.0 as f64).collect();
    let forks_ns: Vec<f64> = fork.iter().map(|p| p.1).collect();
    if let (Some(fit), Some(last)) = (linear_fit(&heaps_bytes, &forks_ns), fork.last()) {
        if fork.len() >= 3 && fit.slope > 0.0 {
            s.push_str(&format!(
                " and grows {} per 100 MiB of heap ({} at {}); a thread does not grow",
                fmt_ns(fit.slope * 100.0 * 1024.0 * 1024.0),
                fmt_ns(last.1),
                last.2
            ));
        }
    }
    Some(s)
}

/// posix_spawn against fork+exec from the largest heap measured.
fn program_start(e: &ExperimentResult) -> Option<String> {
    let biggest = e
        .metrics_named("lifecycle_ns")
        .filter(|m| m.label("method") == Some("posix_spawn"))
        .max_by_key(|m| m.label_num("heap_bytes").unwrap_or(0))?;
    let heap = biggest.label("heap")?;
    let spawn_ns = biggest.summary.median;
    let exec_ns = e.median(
        "lifecycle_ns",
        &[
            ("method", "fork_exec_static"),
            ("heap", heap),
            ("thp", base_thp(e)),
        ],
    )?;
    Some(format!(
        "to start a program from a process with a {heap} heap, posix_spawn takes {} and fork+exec {} ({:.0}x): fork copies the page tables exec then throws away",
        fmt_ns(spawn_ns),
        fmt_ns(exec_ns),
        exec_ns / spawn_ns
    ))
}

#[cfg(test)]
#[path = "heap_tests.rs"]
mod tests;
