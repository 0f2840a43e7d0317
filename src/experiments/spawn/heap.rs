//! spawn.heap: creation cost against the parent's touched heap. Reproduces
//! Bendersky's "launch time vs memory image" figure (seed 000: fork grows
//! with the heap, a thread does not) and Sysel's 4 GB fork ≈ 20 ms (seed
//! 004), and explains the growth by the page tables fork copies (VmPTE).
//! An untouched heap of each size ([`super::heap_untouched`]) says which
//! heap the seed's 4 GB row was. Extra mappings and descriptors
//! ([`super::heap_image`]) give what each adds to fork.

use super::engine::{push_launches, Launcher, CHILD_START_NS, LIFECYCLE_NS, PARENT_RETURN_NS};
use super::heap_fit;
use super::heap_image as image;
use super::heap_placed as placed;
#[cfg(test)]
pub use super::heap_placed::AS_TOUCHED_CALL;
pub use super::heap_placed::{
    as_touched_shares, CONTIGUOUS_CALL, CONTIGUOUS_PARAM, FRAMES_ADJACENT_PCT, FRAMES_NEAR_PCT,
    NEAR_PARAM, PAUSED_CALL, PAUSED_FORKS_PARAM, PAUSE_MS_PARAM, SCATTERED_CALL, SCATTERED_PARAM,
};
use super::heap_untouched as untouched;
use super::table::{self, CHOICES};
use crate::experiments::prelude::*;
use crate::measure::rss::{
    ANON_HUGE_KIB, RSS_BOUND_KIB, RSS_CROSS_CHECK_KIB, VM_PTE_KIB, VM_RSS_KIB, VM_SIZE_KIB,
};
use crate::measure::sampler::{events_cpu, interleave, push_cpu, Budget, CPU_NS, PASSES};
use crate::metric::key::{CALL, HEAP, HEAP_BYTES, METHOD, THP};
use crate::stats::linear_fit;
use crate::sys;
use crate::sys::procfs;
use serde::{Deserialize, Serialize};

pub static EXPERIMENT: Experiment = Experiment {
    name: "spawn.heap",
    metrics: &[
        &PARENT_RETURN_NS,
        &CHILD_START_NS,
        &LIFECYCLE_NS,
        &untouched::UNTOUCHED_PARENT_RETURN_NS,
        &untouched::UNTOUCHED_LIFECYCLE_NS,
        &image::IMAGE_PARENT_RETURN_NS,
        &image::IMAGE_LIFECYCLE_NS,
        &CPU_NS,
        &VM_PTE_KIB,
        &VM_RSS_KIB,
        &VM_SIZE_KIB,
        &ANON_HUGE_KIB,
        &RSS_BOUND_KIB,
        &RSS_CROSS_CHECK_KIB,
        &untouched::UNTOUCHED_VM_PTE_KIB,
        &untouched::UNTOUCHED_VM_RSS_KIB,
        &image::IMAGE_WORKER_MAPPINGS,
        &image::IMAGE_WORKER_FDS,
        &FRAMES_ADJACENT_PCT,
        &FRAMES_NEAR_PCT,
    ],
    summary: "creation cost vs the parent's touched heap (0 to 4 GiB), pinned to one CPU: VmPTE, cost per page, THP on vs off, the first call apart",
    reproduces: "Bendersky's \"launch time vs memory image\" figure; Sysel's 4 GB fork ≈ 20 ms",
    params: &[
        HEAP_SIZES_PARAM.spec,
        METHODS_PARAM.spec,
        THP_PARAM.spec,
        THP_MAX_PARAM.spec,
        UNTOUCHED_PARAM.spec,
        IMAGE_PARAM.spec,
        PAUSED_FORKS_PARAM.spec,
        PAUSE_MS_PARAM.spec,
        SCATTERED_PARAM.spec,
        CONTIGUOUS_PARAM.spec,
        NEAR_PARAM.spec,
        image::EXTRA_MAPPINGS_PARAM.spec,
        image::EXTRA_FDS_PARAM.spec,
    ],
    seeds: &[
        SeedFigure::of(
            &PARENT_RETURN_NS,
            (20_000_000.0, 20_000_000.0),
            SeedStat::Single,
            SEED_SYSEL,
            SYSEL_HW,
            "single fork after malloc(4 GB), return to the parent (\"about 20 000\" µs)",
        )
        .labels(&[(METHOD, table::FORK.name()), (HEAP, "4 GiB"), (THP, BASE_THP), (CALL, "first")])
        .cold(),
        SeedFigure::of(
            &CHILD_START_NS,
            (170_000.0, 290_000.0),
            SeedStat::Single,
            SEED_SYSEL,
            SYSEL_HW,
            "single cold call with a 4 GB address space, to the thread's start",
        )
        .labels(&[(METHOD, table::PTHREAD_CREATE.name()), (HEAP, "4 GiB"), (THP, BASE_THP), (CALL, "first")])
        .cold()
        .swept(SYSEL_SWEEP)
        .at_clock(SYSEL_TURBO_MHZ, SYSEL_BASE_MHZ),
    ],
    points,
    measure,
    analyze,
    headlines,
    attributed: true,
    starts_processes: true,
    memory_work: true,
    ..Experiment::DEFAULT
};

pub const HEAP_SIZES_PARAM: Param<Vec<u64>> = Param::numbers(ParamSpec {
    name: "heap_sizes",
    help: "parent heap sizes, touched so they are resident",
    kind: ParamKind::SizeList {
        min: 0,
        max: 1 << 40,
    },
    // 256 MiB where 512 MiB was: eight rounds of a 512 MiB heap cost
    // 6.6 s of the quick minute on a KVM guest, and the slope comes
    // from the whole sweep up to 1 GiB either way.
    quick: "0,2M,64M,256M,1G",
    thorough: "0,2M,16M,64M,256M,512M,1G,2G,4G",
});

pub const METHODS_PARAM: Param<Vec<String>> = Param::names(ParamSpec {
        name: "methods",
        help: "methods swept over the heap",
        kind: ParamKind::Names(CHOICES),
        quick: "fork,fork_exec_static,vfork,clone_vfork,posix_spawn,clone_vm,pthread_create",
        thorough: "fork,fork_exec_static,vfork,clone_vfork,posix_spawn,clone_vm,pthread_create,clone_thread_flags",
    });

pub const THP_PARAM: Param<bool> = Param::flag(ParamSpec {
        name: "thp",
        help: "also measure fork and pthread_create with each heap of 64 MiB and more on transparent huge pages (MADV_HUGEPAGE); the other points leave the heap as the system's THP setting backs it (thp=system)",
        kind: ParamKind::Bool,
        quick: "true",
        thorough: "true",
    });

pub const THP_MAX_PARAM: Param<u64> = Param::number(ParamSpec {
        name: "thp_max",
        help: "the largest heap also measured on huge pages (touching a huge-page heap is slow in a VM, 1.3 s a round at 512 MiB on a KVM guest: the quick profile stops at 64 MiB; spawn.cow measures huge pages at its own heap, quick 128 MiB)",
        kind: ParamKind::Size { min: 0, max: 1 << 40 },
        quick: "64M",
        thorough: "4G",
    });

pub const UNTOUCHED_PARAM: Param<bool> = Param::flag(ParamSpec {
        name: "untouched",
        help: "also fork with each heap mapped but never written (untouched_* series): fork skips it, so that line stays flat",
        kind: ParamKind::Bool,
        quick: "true",
        thorough: "true",
    });

pub const IMAGE_PARAM: Param<bool> = Param::flag(ParamSpec {
        name: "image",
        help: "also fork with extra one-page mappings and extra open descriptors (image_* series): what each adds to fork, the slopes `tasklab predict` prices them with",
        kind: ParamKind::Bool,
        quick: "true",
        thorough: "true",
    });

/// What one spawn.heap job measures. Untagged, so each kind keeps the JSON
/// it always had, told apart by its marker (`touch`, `image`); the most
/// specific kind is tried first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum HeapPoint {
    /// fork with M extra mappings and F extra descriptors ([`image`]).
    Image {
        heap: u64,
        thp: String,
        image: Image,
        mappings: u64,
        fds: u64,
    },
    /// A heap mapped and never written ([`untouched`]).
    Untouched {
        heap: u64,
        thp: String,
        touch: Touch,
    },
    /// A touched heap: `thp` is [`BASE_THP`] or `on` (MADV_HUGEPAGE).
    Touched { heap: u64, thp: String },
}

/// The untouched point's marker, `"touch": "none"`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Touch {
    #[serde(rename = "none")]
    Never,
}

/// The image point's marker, `"image": "extra"`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Image {
    #[serde(rename = "extra")]
    Extra,
}

/// Methods whose first call in the worker is kept as a series of its own.
const FIRST_CALL: &[&str] = &[table::FORK.name(), table::PTHREAD_CREATE.name()];

/// Methods measured again with the heap on transparent huge pages.
const THP_METHODS: &[&str] = &[table::FORK.name(), table::PTHREAD_CREATE.name()];

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
    let memory = (
        available_bytes.saturating_sub(margin),
        format!(
            "{} is available and {} must stay free",
            fmt_size(available_bytes),
            fmt_size(margin)
        ),
    );
    let address = env.limits.rlimit_as.map(|limit| {
        (
            limit.saturating_sub(ADDRESS_MARGIN_BYTES),
            format!(
                "the address-space limit (RLIMIT_AS, ulimit -v) is {} and a worker's own mappings take up to {}",
                fmt_size(limit),
                fmt_size(ADDRESS_MARGIN_BYTES)
            ),
        )
    });
    let cgroup = env.limits.cgroup_memory_max.map(|limit| {
        let keep = (256u64 << 20).max(limit / 10);
        (
            limit.saturating_sub(keep),
            format!(
                "the cgroup's memory limit is {} and {} of it must stay free",
                fmt_size(limit),
                fmt_size(keep)
            ),
        )
    });
    // The tightest; of two equal, the first.
    [address, cgroup]
        .into_iter()
        .flatten()
        .fold(memory, |room, b| if b.0 < room.0 { b } else { room })
}

fn points(ctx: &PlanCtx) -> Result<Points, String> {
    let mut pts = Points::default();
    let available_bytes = crate::env::mem_available_bytes().unwrap_or(ctx.env.mem_available_bytes);
    let (limit_bytes, why) = heap_room(ctx.env, available_bytes);
    let user_set = ctx.set_by_user(&HEAP_SIZES_PARAM);
    let mut sizes_bytes = Vec::new();
    for s in ctx.params.get(&HEAP_SIZES_PARAM) {
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
    if ctx.params.get(&THP_PARAM) && !thp_possible {
        pts.notes
            .push("transparent huge pages are disabled here (enabled=never): no THP points".into());
    }
    let touched = |heap, thp: &str| HeapPoint::Touched {
        heap,
        thp: thp.into(),
    };
    for &s in &sizes_bytes {
        pts.push(&touched(s, BASE_THP));
    }
    if ctx.params.get(&UNTOUCHED_PARAM) {
        for &s in sizes_bytes.iter().filter(|&&s| s > 0) {
            pts.push(&HeapPoint::Untouched {
                heap: s,
                thp: BASE_THP.into(),
                touch: Touch::Never,
            });
        }
    }
    if ctx.params.get(&IMAGE_PARAM) {
        if let Some((mappings, fds)) = image::extras(ctx, &mut pts.notes)? {
            pts.push(&HeapPoint::Image {
                heap: 0,
                thp: BASE_THP.into(),
                image: Image::Extra,
                mappings,
                fds,
            });
        }
    }
    if ctx.params.get(&THP_PARAM) && thp_possible {
        let thp_max = ctx.params.get(&THP_MAX_PARAM);
        for &s in sizes_bytes
            .iter()
            .filter(|&&s| s >= THP_MIN_HEAP_BYTES && s <= thp_max)
        {
            pts.push(&touched(s, "on"));
        }
    }
    Ok(pts)
}

fn measure(job: &Job) -> anyhow::Result<WorkerOutput> {
    let (heap_bytes, point_thp) = match job.point::<HeapPoint>()? {
        HeapPoint::Untouched { heap, .. } => return untouched::measure(job, heap),
        HeapPoint::Image { mappings, fds, .. } => return image::measure(job, mappings, fds),
        HeapPoint::Touched { heap, thp } => (heap, thp),
    };
    // The heap as the system backs it (no advice), or with MADV_HUGEPAGE.
    let (thp, thp_label) = if point_thp == "on" {
        (sys::Thp::On, "on")
    } else {
        (sys::Thp::Default, BASE_THP)
    };
    // Populated by the kernel: resident and written as a touch loop leaves
    // it, in the same order, in 25-40% less time (the fill is most of an
    // untimed round at 1 GiB: docs/REPEATABILITY.md, session 19).
    let heap = sys::Heap::populated(heap_bytes as usize, thp)?;
    let l = Launcher::new(job.scratch.as_deref(), job.timer_overhead_ns)?;
    let heap_name = fmt_size(heap_bytes);
    let base = |m: &str| {
        labels(&[
            (METHOD, m),
            (HEAP, &heap_name),
            (HEAP_BYTES, &heap_bytes.to_string()),
            (THP, thp_label),
        ])
    };
    let mut out = WorkerOutput::default();
    let point_labels = labels(&[
        (HEAP, &heap_name),
        (HEAP_BYTES, &heap_bytes.to_string()),
        (THP, thp_label),
    ]);
    for (field, spec) in [
        ("VmPTE", &VM_PTE_KIB),
        ("VmRSS", &VM_RSS_KIB),
        ("VmSize", &VM_SIZE_KIB),
    ] {
        if let Some(v) = procfs::status_kib(field) {
            out.reading(spec, point_labels.clone(), v as f64);
        }
    }
    // The bound of the VmRSS reading and its cross-check against smaps_rollup.
    crate::measure::rss::record_now(&mut out, &point_labels);
    if let Some(v) = procfs::smaps_rollup_kib("AnonHugePages") {
        out.reading(&ANON_HUGE_KIB, point_labels.clone(), v as f64);
    }
    // How the free lists laid the heap out in physical memory, which moves
    // fork's figure between runs (root only; before any timed window).
    if thp == sys::Thp::Default {
        placed::as_touched(&mut out, &heap, heap_bytes, &point_labels);
    }
    let chosen = job.params.get(&METHODS_PARAM);
    let names = chosen
        .iter()
        .map(String::as_str)
        .filter(|m| thp != sys::Thp::On || THP_METHODS.contains(m));
    // One CPU, so a child never pays for waking the other (see placement).
    let allowed = sys::allowed_cpus()?;
    sys::pin_current_thread(&allowed[..1.min(allowed.len())])?;
    let share = Budget::from_job(job).split(PASSES);
    let mut runnable = Vec::new();
    for name in names {
        let method =
            find(table::METHODS, name).ok_or_else(|| anyhow::anyhow!("unknown method {name}"))?;
        match l.unsupported(method) {
            Some(why) => out.notes.push(why),
            None => runnable.push((name, method)),
        }
    }
    // The first call of fork and pthread_create in this fresh process, as
    // Sysel timed them (seed 004): one sample a round, kept apart.
    for (name, method) in runnable.iter().filter(|(n, _)| FIRST_CALL.contains(n)) {
        let first = l
            .launch(method)
            .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        let mut with = base(name);
        with.insert(CALL.into(), "first".into());
        push_launches(&mut out, &with, &[first], true);
    }
    // The methods take turns on the same heap, a share of the budget at a time.
    let per_method = interleave(&runnable, PASSES, job.seed, |(name, method)| {
        let _why = method.why_scope(&base(name));
        events_cpu(&share, 2, || l.launch(method)).map_err(|e| anyhow::anyhow!("{name}: {e}"))
    })?;
    for ((name, _), passes) in runnable.iter().zip(per_method) {
        let (launches, cpu): (Vec<_>, Vec<_>) = passes.into_iter().unzip();
        push_launches(&mut out, &base(name), &launches.concat(), true);
        push_cpu(&mut out, &base(name), &cpu);
    }
    // Forks after a pause, in the same worker and round as the warm ones,
    // and again with the heap's pages laid out otherwise in physical memory.
    let fork = runnable.iter().find(|(n, _)| *n == table::FORK.name());
    if let (Some((name, method)), true) = (fork, thp == sys::Thp::Default) {
        placed::paused_forks(
            job,
            &mut out,
            &heap,
            || l.launch(method),
            (name, &base(name)),
            &point_labels,
        )?;
    }
    drop(heap);
    Ok(out)
}

fn analyze(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    let base = base_thp(r);
    // Every method measured, settled or not: the trend finding names each.
    let mut methods: Vec<String> = r
        .metrics
        .iter()
        .filter(|m| m.name == LIFECYCLE_NS.name)
        .filter_map(|m| m.label(METHOD).map(String::from))
        .collect();
    methods.sort();
    methods.dedup();
    // The least-squares line of lifecycle against VmPTE stays in the fits
    // table for those who want it; no finding quotes its R².
    for method in &methods {
        let mut pte_kib = Vec::new();
        let mut lifecycle_ns = Vec::new();
        for (bytes, s) in heap_fit::by_heap(r, method, base) {
            let heap = fmt_size(bytes);
            if let Some(pte) = r.reading(&VM_PTE_KIB, &[(HEAP, &heap), (THP, base)]) {
                pte_kib.push(pte);
                lifecycle_ns.push(s.median);
            }
        }
        if let Some(fit) = linear_fit(&pte_kib, &lifecycle_ns) {
            a.fits.push(NamedFit {
                name: format!("{method} {} vs VmPTE KiB", LIFECYCLE_NS.name),
                labels: labels(&[(METHOD, method), (THP, base)]),
                x_unit: "KiB of page tables".into(),
                y_unit: "ns".into(),
                fit,
            });
        }
        if let Some(text) = heap_fit::growth(method, &heap_fit::spanning(r, method, base)) {
            a.notes.push(text);
        }
    }
    a.findings.extend(measured_causes(r));
    a.findings
        .extend(
            heap_fit::trends(r, &methods, base).map(|t| match placed::in_a_row(r, base) {
                Some(words) => format!("{t}; {words}"),
                None => t,
            }),
        );
    if let Some(h) = huge_pages(r) {
        a.findings.push(h);
        a.notes.push("on huge pages VmPTE barely changes, because the kernel keeps a spare page table deposited for every huge page in case it must be split".into());
    }
    a.findings.extend(untouched::finding(r, base));
    a.notes.extend(untouched::seed_row_note(r, base));
    a.findings.extend(image::findings(r));
    a.findings.extend(heap_fit::advice(r, base));
    let p = picks(r);
    a.headlines
        .extend(fork_vs_thread(&p).into_iter().chain(program_start(&p)));
    a
}

/// What the kernel functions a name stands for do, where it is plain.
const DOES: &[(&str, &str)] = &[
    ("copy_page_range", "copying the page tables"),
    ("copy_pte_range", "copying the page tables"),
    ("clear_page_erms", "zeroing pages"),
    ("clear_page_rep", "zeroing pages"),
    ("unmap_page_range", "unmapping pages"),
    ("zap_pte_range", "unmapping pages"),
];

/// `run --why`: the measured cause of fork and fork+exec at the largest
/// sampled heap, the kernel function with the largest self share, with
/// its interval across rounds.
fn measured_causes(r: &ExperimentResult) -> Vec<String> {
    let largest = r
        .why
        .iter()
        .filter_map(|w| w.labels.get(HEAP_BYTES)?.parse::<u64>().ok())
        .max();
    let forks = [table::FORK.name(), table::FORK_EXEC_STATIC.name()];
    r.why
        .iter()
        .filter(|w| w.labels.get(HEAP_BYTES).and_then(|b| b.parse().ok()) == largest)
        .filter(|w| w.labels.get(METHOD).is_some_and(|m| forks.contains(&m.as_str())))
        .filter_map(|w| {
            let top = w
                .functions
                .iter()
                .max_by(|x, y| x.self_share.share.total_cmp(&y.self_share.share))
                .filter(|f| f.self_share.share > 0.0)?;
            let s = &top.self_share;
            let does = DOES
                .iter()
                .find(|(n, _)| *n == top.function)
                .map_or(String::new(), |(_, d)| format!(" ({d})"));
            Some(format!(
                "{} at {}: {} of its sampled CPU time in {}{does}, measured (--why: {} samples in {} rounds)",
                w.labels.get(METHOD)?,
                w.labels.get(HEAP)?,
                crate::units::fmt_share_interval(s.share, s.lo, s.hi),
                top.function,
                w.samples,
                w.rounds
            ))
        })
        .collect()
}

/// The `thp` label of the heap points without huge-page advice: "system"
/// (the heap as the system's THP setting backs it), or "off" in results
/// from before, when those heaps were kept off huge pages.
pub const BASE_THP: &str = "system";

/// The label the heap points without advice carry in `r`.
pub fn base_thp(r: &ExperimentResult) -> &'static str {
    if r.metrics.iter().any(|m| m.label(THP) == Some(BASE_THP)) {
        BASE_THP
    } else {
        "off"
    }
}

/// Huge pages: fork with the largest heap measured both ways, flagged
/// points included (issue 39 item 9): the finding keeps its heap whatever
/// settled, a flagged figure quoted with its mark and nothing told apart.
fn huge_pages(r: &ExperimentResult) -> Option<String> {
    let on = heap_fit::all_by_heap(r, table::FORK.name(), "on");
    let off = heap_fit::all_by_heap(r, table::FORK.name(), base_thp(r));
    let (bytes, on_s, off_s) = on.iter().rev().find_map(|&(b, on_m)| {
        let off_m = off.iter().find(|p| p.0 == b)?.1;
        Some((b, &on_m.summary, &off_m.summary))
    })?;
    let heap = fmt_size(bytes);
    let huge_kib = r
        .reading(&ANON_HUGE_KIB, &[(HEAP, &heap), (THP, "on")])
        .unwrap_or(0.0);
    let verdict = if on_s.unstable || off_s.unstable {
        "not told apart here: a figure did not settle".to_string()
    } else if apart(on_s, off_s) && on_s.median < off_s.median {
        format!(
            "{} cheaper: fork copies one entry per 2 MiB instead of 512",
            ratio_text(off_s, on_s).unwrap_or_else(|| fmt_ratio(off_s.median / on_s.median))
        )
    } else {
        "not distinguishable here".to_string()
    };
    Some(format!(
        "on transparent huge pages ({} of the heap in 2 MiB pages) a fork with a {heap} heap costs {} against {} as the system backs it: {verdict}",
        fmt_value(huge_kib * 1024.0, Unit::Bytes),
        shown(on_s, Unit::Ns),
        shown(off_s, Unit::Ns),
    ))
}

/// The Summary's figures, picked by labels: fork and a thread at the
/// smallest heap (pinned to one CPU since spawn.methods had placements),
/// fork's two largest heaps (its growth), posix_spawn and fork+exec at the
/// largest heap posix_spawn was measured at. Flagged points included: the
/// Summary quotes them with their flag.
pub(super) struct Picks<'a> {
    fork: Option<(u64, &'a Metric)>,
    thread: Option<&'a Metric>,
    growth: Option<Growth<'a>>,
    spawn: Option<(u64, &'a Metric)>,
    exec: Option<&'a Metric>,
}

/// Fork's two largest heaps, the smaller first.
type Growth<'a> = ((u64, &'a Metric), (u64, &'a Metric));

pub(super) fn picks(e: &ExperimentResult) -> Picks<'_> {
    let base = base_thp(e);
    let line = |m: &table::Method| heap_fit::all_by_heap(e, m.name(), base);
    let at = |m: &table::Method, bytes: u64| line(m).into_iter().find(|p| p.0 == bytes);
    let fork = line(&table::FORK);
    let n = fork.len();
    let spawn = line(&table::POSIX_SPAWN).last().copied();
    Picks {
        fork: fork.first().copied(),
        thread: fork
            .first()
            .and_then(|&(b, _)| at(&table::PTHREAD_CREATE, b))
            .map(|p| p.1),
        growth: (n >= 3 && fork[n - 1].0 > fork[n - 2].0).then(|| (fork[n - 2], fork[n - 1])),
        spawn,
        exec: spawn
            .and_then(|(b, _)| at(&table::FORK_EXEC_STATIC, b))
            .map(|p| p.1),
    }
}

/// The Summary's quantities: [`Picks`] in words.
fn headlines(e: &ExperimentResult) -> Vec<Headline> {
    let p = picks(e);
    let mut v = Vec::new();
    let of = |what: String, m: &Metric| Headline::of(what, &LIFECYCLE_NS, m);
    if let Some((bytes, fork)) = p.fork {
        v.push(of(format!("fork+reap, {} heap", fmt_size(bytes)), fork));
        if let Some(t) = p.thread {
            let what = format!("thread create+join, {} heap", fmt_size(bytes));
            v.push(of(what, t));
        }
    }
    if let Some(((b0, m0), (b1, m1))) = p.growth {
        let what = format!(
            "fork's growth per 100 MiB of heap ({} to {})",
            fmt_size(b0),
            fmt_size(b1)
        );
        v.push(of(what, m1).sloped(m0, b1 - b0));
    }
    if let Some((bytes, s)) = p.spawn {
        let size = fmt_size(bytes);
        v.push(of(format!("posix_spawn, {size} heap"), s));
        if let Some(x) = p.exec {
            v.push(of(format!("fork+exec, {size} heap"), x));
        }
    }
    v
}

/// Headline: warm fork against a thread at the smallest heap, and fork's
/// growth per 100 MiB between the two largest heaps ([`Picks`]). The two
/// figures are the Summary's basic ones: a flagged one is quoted with its
/// interval and flag, and the ratio is said only when both settled and
/// their intervals part.
fn fork_vs_thread(p: &Picks) -> Option<String> {
    let (heap_bytes, fork_m) = p.fork?;
    let Some(thread_m) = p.thread else {
        // No thread at that heap (not asked for): fork's figure alone.
        return Some(format!(
            "with a {} heap, a fork+reap costs {}",
            fmt_size(heap_bytes),
            quoted(&fork_m.summary, Unit::Ns)
        ));
    };
    let (fork_s, thread_s) = (&fork_m.summary, &thread_m.summary);
    let mut s = format!(
        "with a {} heap, a fork+reap costs {} and a thread create+join {} ({})",
        fmt_size(heap_bytes),
        quoted(fork_s, Unit::Ns),
        quoted(thread_s, Unit::Ns),
        summary_ratio(fork_s, thread_s),
    );
    if let Some(slope) = p.growth.and_then(fork_slope) {
        s.push_str(&slope);
    }
    Some(s)
}

/// Fork's growth per 100 MiB of touched heap between the two largest heaps,
/// always with its interval, flagged points quoted with their mark rather
/// than dropped: "; fork then grows 5.20 ms [4.1 ms, 6.3 ms] per 100 MiB
/// of touched heap (49.2 ms at 1 GiB)".
fn fork_slope(((b0, m0), (b1, m1)): Growth) -> Option<String> {
    let pages_per_100mib = 100.0 * 256.0;
    let pages = (b1 as f64 - b0 as f64) / 4096.0;
    if pages <= 0.0 {
        return None;
    }
    let d = contrast::difference(&m1.summary, &m0.summary);
    let per = |x: f64| x / pages * pages_per_100mib;
    let slope = Difference {
        d: per(d.value),
        lo: per(d.lo),
        hi: per(d.hi),
        unit: Unit::Ns,
        weak: None,
    };
    let flag = if m0.summary.unstable || m1.summary.unstable {
        " ! (a point of it is flagged)"
    } else {
        ""
    };
    let between = format!("between {} and {}", fmt_size(b0), fmt_size(b1));
    // Growth is stated when its interval excludes none, its size only as
    // the Summary's rule allows (told from half and twice itself).
    let vague = crate::stats::compare_text::half_or_double(slope.d, slope.lo, slope.hi);
    let (at, size) = (quoted(&m1.summary, Unit::Ns), fmt_size(b1));
    Some(match slope.sign() {
        Order::Above if vague => format!("; fork then grows per 100 MiB of touched heap {between}, by {}{flag}: an amount its interval cannot tell from half or twice itself ({at} at {size})", slope.text()),
        Order::Above => format!("; fork then grows {}{flag} per 100 MiB of touched heap {between} ({at} at {size})", slope.text()),
        _ => format!("; fork's growth per 100 MiB of touched heap {between}, {}{flag}, holds no growth ({at} at {size})", slope.text()),
    })
}

/// posix_spawn against fork+exec from the largest heap measured: always
/// quoted, the reason given only when the two differ and neither is
/// flagged.
fn program_start(p: &Picks) -> Option<String> {
    let ((bytes, spawn_m), exec_m) = (p.spawn?, p.exec?);
    let (spawn_s, exec_s) = (&spawn_m.summary, &exec_m.summary);
    let why = if apart(exec_s, spawn_s)
        && exec_s.median > spawn_s.median
        && !spawn_s.unstable
        && !exec_s.unstable
    {
        ": fork copies the page tables exec then throws away"
    } else {
        ""
    };
    Some(format!(
        "to start a program from a process with a {} heap, posix_spawn takes {} and fork+exec {} ({}){why}",
        fmt_size(bytes),
        quoted(spawn_s, Unit::Ns),
        quoted(exec_s, Unit::Ns),
        summary_ratio(exec_s, spawn_s),
    ))
}

#[cfg(test)]
#[path = "heap_tests.rs"]
mod tests;
