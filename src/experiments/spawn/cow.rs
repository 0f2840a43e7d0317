//! spawn.cow: copy-on-write after fork, the cost fork defers. fork copies
//! the page tables and write-protects every private page in both processes;
//! while the child lives, each page the parent writes is copied on its first
//! write. No seed measures it (seed 004 stops at fork's return); the anchors
//! are a first write after fork at 0.74 µs per page in a QEMU guest and
//! Redis's fork at 9-13 ms per GB on bare metal.

use super::heap::heap_room;
use crate::experiments::prelude::*;
use crate::measure::rss::{ANON_HUGE_KIB, RSS_BOUND_KIB, RSS_CROSS_CHECK_KIB};
use crate::measure::sampler::interleave;
use crate::metric::key::{self, CHILD, HEAP, HEAP_BYTES, WRITES};
use crate::stats::compare_text::{quote, summary_ratio_quote, together};
use crate::stats::Summary;
use crate::sys::procfs::Sharing;
use crate::sys::{self, forkwork::HeldChild, Heap, Thp};
use serde::{Deserialize, Serialize};

pub static EXPERIMENT: Experiment = Experiment {
    name: "spawn.cow",
    metrics: &[
        &WRITE_NS,
        &FORK_NS,
        &EXTRA_KIB,
        &FAULTS_PER_PAGE,
        &ANON_HUGE_KIB,
        &PARENT_PRIVATE_KIB,
        &PARENT_SHARED_KIB,
        &CHILD_PRIVATE_KIB,
        &CHILD_SHARED_KIB,
        &PARENT_ANON_HUGE_KIB,
        &RSS_BOUND_KIB,
        &RSS_CROSS_CHECK_KIB,
    ],
    summary: "copy-on-write after fork: ns per page the parent writes while its child lives vs with no child, the extra memory (smaps_rollup of both) and minor faults; 4 KiB pages vs THP",
    reproduces: "no seed measures it; anchors: a first write after fork 0.74 µs per page (QEMU guest), Redis fork 9-13 ms per GB (bare metal)",
    params: &[
        HEAP_PARAM.spec,
        WRITES_PARAM.spec,
        THP_PARAM.spec,
        THP_WRITES_PARAM.spec,
        CYCLES_PARAM.spec,
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

pub const HEAP_PARAM: Param<u64> = Param::number(ParamSpec {
    name: "heap",
    help: "the parent's touched heap; it may double while the child lives",
    kind: ParamKind::Size {
        min: 2 << 20,
        max: 1 << 40,
    },
    // 128 MiB in the quick profile: on a KVM guest with free page
    // reporting a round at 512 MiB took 1.3-2.8 s (the host
    // faulting the heap back in), at 256 MiB 0.5-0.8 s, and the
    // quick profile runs eight rounds; the figures are per page.
    quick: "128M",
    thorough: "2G",
});

pub const WRITES_PARAM: Param<Vec<u64>> = Param::numbers(ParamSpec {
    name: "writes",
    help: "shares of the heap's pages the parent writes, in percent",
    kind: ParamKind::CountList { min: 0, max: 100 },
    quick: "0,1,10,50,100",
    thorough: "0,1,10,50,100",
});

pub const THP_PARAM: Param<bool> = Param::flag(ParamSpec {
    name: "thp",
    help: "also measure the heap on transparent huge pages (MADV_HUGEPAGE)",
    kind: ParamKind::Bool,
    quick: "true",
    thorough: "true",
});

pub const THP_WRITES_PARAM: Param<Vec<u64>> = Param::numbers(ParamSpec {
        name: "thp_writes",
        help: "write shares on huge pages, in percent; each cycle needs a fresh heap (a write after fork splits huge pages for good), and the split shows most at small shares",
        kind: ParamKind::CountList { min: 0, max: 100 },
        quick: "1,10",
        thorough: "0,1,10,50,100",
    });

pub const CYCLES_PARAM: Param<u64> = Param::number(ParamSpec {
    name: "cycles",
    help: "forks per write share per round",
    kind: ParamKind::Count { min: 1, max: 100 },
    quick: "1",
    thorough: "3",
});

/// The `child` label: the parent wrote with no child, or while its child
/// lived.
pub const NO_CHILD: &str = "none";
pub const CHILD_ALIVE: &str = "alive";

/// ns per page the parent writes, with its child alive or with none.
pub const WRITE_NS: MetricSpec = MetricSpec {
    name: "write_ns",
    unit: Unit::Ns,
    // The control: a plain write with no child is a page walk of a
    // private page, which the host's backing of guest memory moves from
    // one run to the next (docs/REPEATABILITY.md); compare reports it
    // and gates on the copy-on-write figures only.
    better: Direction::ByLabel {
        key: CHILD,
        cases: &[(NO_CHILD, Better::Neither)],
        otherwise: Better::Lower,
    },
    kind: Kind::Creation,
    about: "ns per page of the parent's first writes to its heap, while its child lives (copy-on-write) or with no child (the control)",
    signed: false,
};

/// fork's return to the parent with the touched heap.
pub const FORK_NS: MetricSpec = MetricSpec::new(
    "fork_ns",
    Unit::Ns,
    Better::Lower,
    Kind::Creation,
    "fork's return to the parent with the touched heap, every fork of the cycles",
);

/// The memory the child's life costs: what copy-on-write copied.
pub const EXTRA_KIB: MetricSpec = MetricSpec::new(
    "extra_kib",
    Unit::Kib,
    Better::Lower,
    Kind::Memory,
    "memory of parent and child together (smaps_rollup, shared pages once) less the parent's before the fork",
)
.signed();

/// Minor faults per page written.
pub const FAULTS_PER_PAGE: MetricSpec = MetricSpec::new(
    "faults_per_page",
    Unit::Count,
    Better::Neither,
    Kind::Creation,
    "minor page faults the parent took per page it wrote",
);

/// Parent's and child's memory after the writes (smaps_rollup), KiB.
pub const PARENT_PRIVATE_KIB: MetricSpec = MetricSpec::new(
    "parent_private_kib",
    Unit::Kib,
    Better::Neither,
    Kind::Memory,
    "the parent's private memory (smaps_rollup) after its writes, the child alive",
);
pub const PARENT_SHARED_KIB: MetricSpec = MetricSpec::new(
    "parent_shared_kib",
    Unit::Kib,
    Better::Neither,
    Kind::Memory,
    "the parent's shared memory (smaps_rollup) after its writes, the child alive",
);
pub const CHILD_PRIVATE_KIB: MetricSpec = MetricSpec::new(
    "child_private_kib",
    Unit::Kib,
    Better::Neither,
    Kind::Memory,
    "the child's private memory (smaps_rollup) after the parent's writes",
);
pub const CHILD_SHARED_KIB: MetricSpec = MetricSpec::new(
    "child_shared_kib",
    Unit::Kib,
    Better::Neither,
    Kind::Memory,
    "the child's shared memory (smaps_rollup) after the parent's writes",
);
pub const PARENT_ANON_HUGE_KIB: MetricSpec = MetricSpec::new(
    "parent_anon_huge_kib",
    Unit::Kib,
    Better::Neither,
    Kind::Memory,
    "the parent's memory still on huge pages (AnonHugePages) after its writes, the child alive",
);

/// The heap's page sizes: its `pages` label and how it is advised.
const PAGES: &[(&str, Thp)] = &[("4k", Thp::Off), ("thp", Thp::On)];

/// What one spawn.cow job measures: a heap of `heap` bytes on the pages
/// `pages` names (a label of [`PAGES`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CowPoint {
    pub heap: u64,
    pub pages: String,
}

fn points(ctx: &PlanCtx) -> Result<Points, String> {
    let mut pts = Points::default();
    let heap_bytes = ctx.params.get(&HEAP_PARAM);
    let available = crate::env::mem_available_bytes().unwrap_or(ctx.env.mem_available_bytes);
    let (room, why) = heap_room(ctx.env, available);
    // Parent and child may each end up with a private copy of every page.
    if heap_bytes.saturating_mul(2) > room {
        let msg = format!(
            "a heap of {} needs twice that while the child lives, which does not fit: {why} (largest heap here: {})",
            fmt_size(heap_bytes),
            fmt_size(room / 2)
        );
        if ctx.set_by_user(&HEAP_PARAM) {
            return Err(msg);
        }
        pts.notes.push(format!("{msg}; nothing measured"));
        return Ok(pts);
    }
    let mut pages = vec!["4k"];
    if ctx.params.get(&THP_PARAM) {
        if ctx.env.thp_enabled.as_deref() == Some("never") {
            pts.notes.push(
                "transparent huge pages are disabled here (enabled=never): the THP heap was skipped"
                    .into(),
            );
        } else {
            pages.push("thp");
        }
    }
    for p in pages {
        pts.push(&CowPoint {
            heap: heap_bytes,
            pages: p.into(),
        });
    }
    Ok(pts)
}

/// The pages a `pct` share writes, spread evenly over the heap.
pub fn written_pages(pages: usize, pct: u64) -> Vec<usize> {
    let count = (pages as u128 * pct as u128 / 100) as usize;
    (0..count).map(|k| k * pages / count).collect()
}

/// Writes `pages`, timed in up to 32 chunks of at least 16 pages: ns per
/// page of each chunk (one sample each), and the minor faults taken. Under
/// `run --why` the chunks are the windows of the series with labels `why`.
fn timed_writes(
    heap: &Heap,
    pages: &[usize],
    timer_ns: f64,
    why: &Labels,
) -> anyhow::Result<Alone> {
    let chunks = (pages.len() / 16).clamp(1, 32);
    let per = pages.len().div_ceil(chunks).max(1);
    let mut ns = Vec::with_capacity(chunks);
    let _scope = crate::measure::why::Scope::enter(why);
    // The window brackets the faults read (--why's reading of the rings is
    // not in it).
    let _window = crate::measure::why::Window::open();
    let faults0 = sys::own_minor_faults()?;
    for chunk in pages.chunks(per) {
        let t0 = sys::monotonic_ns();
        for &i in chunk {
            heap.write_page(i);
        }
        let dt = (sys::monotonic_ns() - t0) as f64;
        ns.push((dt - timer_ns) / chunk.len() as f64);
    }
    Ok((ns, sys::own_minor_faults()? - faults0))
}

/// One fork with the child held alive while the parent writes `pct` of the
/// heap.
struct CowCycle {
    fork_ns: f64,
    write_ns: Vec<f64>,
    faults: u64,
    parent: Sharing,
    child: Sharing,
    /// Memory of parent and child together (shared pages once) less the
    /// parent's before the fork, KiB.
    extra_kib: f64,
}

/// `why`: the labels of the written series with the child alive.
fn cow_cycle(heap: &Heap, pct: u64, timer_ns: f64, why: &Labels) -> anyhow::Result<CowCycle> {
    let me = std::process::id();
    let pages = written_pages(heap.pages(), pct);
    let before = Sharing::of(me)?;
    let t0 = sys::monotonic_ns();
    let child = HeldChild::fork()?;
    let fork_ns = (sys::monotonic_ns() - t0) as f64;
    let measured = (|| {
        let (write_ns, faults) = timed_writes(heap, &pages, timer_ns, why)?;
        let parent = Sharing::of(me)?;
        let child_mem = Sharing::of(child.pid() as u32)?;
        anyhow::Ok((write_ns, faults, parent, child_mem))
    })();
    // Reaped whatever happened above.
    child.release()?;
    let (write_ns, faults, parent, child_mem) = measured?;
    let total = |s: &Sharing| (s.private_kib + s.shared_kib) as f64;
    Ok(CowCycle {
        fork_ns,
        write_ns,
        faults,
        parent,
        child: child_mem,
        extra_kib: total(&parent) + child_mem.private_kib as f64 - total(&before),
    })
}

fn measure(job: &Job) -> anyhow::Result<WorkerOutput> {
    let point: CowPoint = job.point()?;
    let (heap_bytes, pages_label) = (point.heap, point.pages.as_str());
    let thp = PAGES
        .iter()
        .find(|(l, _)| *l == pages_label)
        .map(|p| p.1)
        .ok_or_else(|| anyhow::anyhow!("unknown pages {pages_label}"))?;
    let heap_name = fmt_size(heap_bytes);
    let heap_bytes_text = heap_bytes.to_string();
    let base = [
        (key::PAGES, pages_label),
        (HEAP, heap_name.as_str()),
        (HEAP_BYTES, heap_bytes_text.as_str()),
    ];
    let with = |extra: &[(&str, &str)]| {
        let mut v = base.to_vec();
        v.extend_from_slice(extra);
        labels(&v)
    };
    // The series a share's writes are timed for (`run --why`'s windows).
    let written_at = |pct: u64, child: &str| with(&[(WRITES, &format!("{pct}%")), (CHILD, child)]);
    let mut out = WorkerOutput::default();
    let shares = job.params.get(if thp == Thp::On {
        &THP_WRITES_PARAM
    } else {
        &WRITES_PARAM
    });
    let cycles = job.params.get(&CYCLES_PARAM) as usize;
    let written: Vec<u64> = shares.iter().copied().filter(|&p| p > 0).collect();
    let timer = job.timer_overhead_ns;
    let mut huge_kib = Vec::new();
    let (alone, held) = if thp == Thp::On {
        fresh_cycles(
            heap_bytes as usize,
            (&shares, cycles),
            job.seed,
            timer,
            &written_at,
            &mut huge_kib,
        )?
    } else {
        let heap = Heap::touched(heap_bytes as usize, thp)?;
        huge_kib.push(Sharing::of(std::process::id())?.anon_huge_kib);
        // The parent's VmRSS against smaps_rollup, with the heap touched.
        crate::measure::rss::record_now(&mut out, &with(&[]));
        // The writes with no child come first: before any fork every page
        // is private and writable; after one, a page the parent has not
        // written since stays write-protected and its next write faults,
        // child or not. Each fork write-protects the whole heap again, so
        // the forks need no fresh heap.
        let alone = interleave(&written, cycles, job.seed, |&pct| {
            let why = written_at(pct, NO_CHILD);
            timed_writes(&heap, &written_pages(heap.pages(), pct), timer, &why)
        })?;
        let held = interleave(&shares, cycles, job.seed.rotate_left(1), |&pct| {
            cow_cycle(&heap, pct, timer, &written_at(pct, CHILD_ALIVE))
        })?;
        (alone, held)
    };
    crate::measure::rss::record_bound(&mut out, &with(&[]));
    for &k in &huge_kib {
        out.reading(&ANON_HUGE_KIB, with(&[]), k as f64);
    }
    if thp == Thp::On && huge_kib.iter().all(|&k| k == 0) {
        out.notes.push(
            "the THP heap got no huge pages (AnonHugePages 0): its figures are 4 KiB pages".into(),
        );
    }
    let heap_pages = (heap_bytes as usize).div_ceil(sys::PAGE);
    for (&pct, runs) in written.iter().zip(alone) {
        let share = format!("{pct}%");
        let n = written_pages(heap_pages, pct).len() as f64;
        let l = with(&[(WRITES, &share), (CHILD, NO_CHILD)]);
        out.push(
            &WRITE_NS,
            l.clone(),
            runs.iter().flat_map(|r| r.0.clone()).collect(),
        );
        out.push_detail(
            &FAULTS_PER_PAGE,
            l,
            runs.iter().map(|r| r.1 as f64 / n).collect(),
        );
    }
    // Every fork, whatever share followed it: the same heap, the same fork.
    let forks_ns = held.iter().flatten().map(|c| c.fork_ns).collect();
    out.push(&FORK_NS, with(&[]), forks_ns);
    for (&pct, runs) in shares.iter().zip(held) {
        let share = format!("{pct}%");
        let n = written_pages(heap_pages, pct).len() as f64;
        let l = with(&[(WRITES, &share), (CHILD, CHILD_ALIVE)]);
        let lw = with(&[(WRITES, &share)]);
        if n > 0.0 {
            out.push(
                &WRITE_NS,
                l.clone(),
                runs.iter().flat_map(|r| r.write_ns.clone()).collect(),
            );
            out.push_detail(
                &FAULTS_PER_PAGE,
                l,
                runs.iter().map(|r| r.faults as f64 / n).collect(),
            );
        }
        out.push(
            &EXTRA_KIB,
            lw.clone(),
            runs.iter().map(|r| r.extra_kib).collect(),
        );
        for r in &runs {
            for (spec, v) in [
                (&PARENT_PRIVATE_KIB, r.parent.private_kib),
                (&PARENT_SHARED_KIB, r.parent.shared_kib),
                (&CHILD_PRIVATE_KIB, r.child.private_kib),
                (&CHILD_SHARED_KIB, r.child.shared_kib),
                (&PARENT_ANON_HUGE_KIB, r.parent.anon_huge_kib),
            ] {
                out.reading(spec, lw.clone(), v as f64);
            }
        }
    }
    Ok(out)
}

/// What one pass of writes with no child gave: ns per page of each chunk,
/// and the minor faults.
type Alone = (Vec<f64>, u64);

/// Per share: the passes with no child (shares written only), the forks.
type Cycles = (Vec<Vec<Alone>>, Vec<Vec<CowCycle>>);

/// The huge-page heap's cycles. The first write after a fork splits a huge
/// page, and it stays split after the child exits: each cycle gets a fresh
/// heap, written with no child first, then forked and written again.
/// Returns the writes alone by share written (in `shares` order, 0 left
/// out) and the forks by share.
fn fresh_cycles(
    len: usize,
    (shares, cycles): (&[u64], usize),
    seed: u64,
    timer_ns: f64,
    written_at: &dyn Fn(u64, &str) -> Labels,
    huge_kib: &mut Vec<u64>,
) -> anyhow::Result<Cycles> {
    let both = interleave(shares, cycles, seed, |&pct| {
        let heap = Heap::touched(len, Thp::On)?;
        huge_kib.push(Sharing::of(std::process::id())?.anon_huge_kib);
        let pages = written_pages(heap.pages(), pct);
        let alone = match pct {
            0 => None,
            _ => Some(timed_writes(
                &heap,
                &pages,
                timer_ns,
                &written_at(pct, NO_CHILD),
            )?),
        };
        let held = cow_cycle(&heap, pct, timer_ns, &written_at(pct, CHILD_ALIVE))?;
        anyhow::Ok((alone, held))
    })?;
    let mut alone = Vec::new();
    let mut held = Vec::new();
    for runs in both {
        let (a, h): (Vec<_>, Vec<_>) = runs.into_iter().unzip();
        let a: Vec<Alone> = a.into_iter().flatten().collect();
        if !a.is_empty() {
            alone.push(a);
        }
        held.push(h);
    }
    Ok((alone, held))
}

/// `a` against `b` (`b_text`, which quotes `b`): "3.0x b_text", or
/// "indistinguishable here from b_text" when the intervals overlap; and
/// when either figure is flagged or its interval bounds nothing, "cannot
/// be compared with b_text: <name> is flagged" (`names` name `a` and `b`),
/// so no finding rests on such a figure.
fn against(a: &Summary, b: &Summary, b_text: &str, names: [&str; 2]) -> String {
    if let Some(why) = unusable(a, names[0]).or_else(|| unusable(b, names[1])) {
        return format!("cannot be compared with {b_text}: {why}");
    }
    if apart(a, b) {
        let r = ratio_text(a, b).unwrap_or_else(|| fmt_ratio(a.median / b.median));
        format!("{r} {b_text}")
    } else {
        format!("indistinguishable here from {b_text}")
    }
}

/// Why no comparison may rest on `s` (named `name`): flagged, or an
/// interval that bounds nothing; None when it may.
fn unusable(s: &Summary, name: &str) -> Option<String> {
    if s.unstable {
        Some(format!("{name} is flagged (the notes say why)"))
    } else if bounds_nothing(s, Unit::Ns) {
        Some(format!("{name} has no usable interval"))
    } else {
        None
    }
}

/// A median with its interval, "1.20 µs [1.10 µs, 1.31 µs]", or with its
/// mark when it is flagged ([`shown`]): the subject stays either way.
fn with_ci(s: &Summary) -> String {
    shown(s, Unit::Ns)
}

/// The write shares measured with a child alive, smallest first, for one
/// page size: (pct, metric), settled or not, so a finding's share is the
/// same in every run (issue 39 item 9).
fn shares<'a>(r: &'a ExperimentResult, pages: &str) -> Vec<(u64, &'a Metric)> {
    let mut v: Vec<(u64, &Metric)> = r
        .metrics
        .iter()
        .filter(|m| m.name == WRITE_NS.name)
        .filter(|m| m.label(key::PAGES) == Some(pages) && m.label(CHILD) == Some(CHILD_ALIVE))
        .filter_map(|m| Some((m.label(WRITES)?.trim_end_matches('%').parse().ok()?, m)))
        .collect();
    v.sort_by_key(|x| x.0);
    v
}

fn analyze(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    for (pages, what) in [("4k", "4 KiB pages"), ("thp", "huge pages")] {
        a.findings.extend(cow_vs_alone(r, pages, what));
        a.notes.extend(extra_memory(r, pages, what));
    }
    a.findings.extend(huge_vs_small(r));
    a.findings.extend(fork_per_gib(r));
    if let Some(h) = headline(r) {
        a.headlines.push(h);
    }
    if !a.findings.is_empty() {
        a.notes.push(
            "an anchor for the copy-on-write figures: 0.74 µs per page for a first write after fork in a QEMU guest".into(),
        );
    }
    a.notes.extend(crate::measure::rss::note(r));
    a
}

/// Writes after fork against the same writes with no child, at the largest
/// share both were measured at, settled or not: one subject in every run
/// (issue 39 item 9), a flagged figure quoted with its mark and compared
/// with nothing ([`against`]).
fn cow_vs_alone(r: &ExperimentResult, pages: &str, what: &str) -> Option<String> {
    let (pct, cow) = shares(r, pages)
        .into_iter()
        .rev()
        .find(|(pct, _)| alone(r, pages, *pct).is_some())?;
    let none = alone(r, pages, pct)?;
    let heap = cow.label(HEAP).unwrap_or("the");
    let verdict = against(
        &cow.summary,
        &none.summary,
        &format!("the same write with no child, {}", with_ci(&none.summary)),
        ["the write with the child alive", "the write with no child"],
    );
    let faults_of = |child: &str| {
        r.find(
            &FAULTS_PER_PAGE,
            &[
                (key::PAGES, pages),
                (WRITES, &format!("{pct}%")),
                (CHILD, child),
            ],
        )
        .map(|f| format!("{:.2}{}", f.summary.median, f.summary.spaced_mark()))
    };
    let faults = faults_of(CHILD_ALIVE)
        .map(|f| format!("; {f} minor faults per written page"))
        .unwrap_or_default();
    let compared = unusable(&cow.summary, "").is_none()
        && unusable(&none.summary, "").is_none()
        && apart(&cow.summary, &none.summary);
    let isolates = if compared && !control_negligible(&cow.summary, &none.summary) {
        format!(
            "; the write with no child{} is not negligible beside the write with the child alive (its interval reaches \
             past a tenth of that one's low end), and whether the write with the child alive pays that cost too is not \
             measured: this comparison does not isolate the copy-on-write copy, by ratio or by difference",
            faults_of(NO_CHILD)
                .map(|f| format!(" ({f} minor faults per page)"))
                .unwrap_or_default()
        )
    } else {
        String::new()
    };
    Some(format!(
        "{what}: with the child alive, writing {pct}% of a {heap} heap costs {} per page, {verdict}{faults}{isolates}",
        with_ci(&cow.summary)
    ))
}

/// Whether the write with no child (`none`) is small enough beside the
/// write with the child alive (`cow`) that the difference is the child's
/// doing, whatever part of the control the write after fork pays as well:
/// the control's interval lies below [`CONTROL_SHARE`] of the other's low
/// end. Otherwise the control is a cost of its own (on a guest, a write
/// with no fault at all was seen at 2.45 µs a page) and the comparison
/// does not isolate the copy (issue 39).
fn control_negligible(cow: &Summary, none: &Summary) -> bool {
    none.ci95_hi < CONTROL_SHARE * cow.ci95_lo
}

/// The share of the write after fork below which the control is
/// negligible: a tenth.
const CONTROL_SHARE: f64 = 0.1;

fn alone<'a>(r: &'a ExperimentResult, pages: &str, pct: u64) -> Option<&'a Metric> {
    r.find(
        &WRITE_NS,
        &[
            (key::PAGES, pages),
            (WRITES, &format!("{pct}%")),
            (CHILD, NO_CHILD),
        ],
    )
}

/// The memory parent and child hold together beyond the parent's before
/// the fork, per page written, at the largest share.
fn extra_memory(r: &ExperimentResult, pages: &str, what: &str) -> Option<String> {
    let m = r
        .metrics_named(&EXTRA_KIB)
        .filter(|m| m.label(key::PAGES) == Some(pages))
        .max_by_key(|m| m.label(WRITES)?.trim_end_matches('%').parse::<u64>().ok())?;
    let pct: u64 = m.label(WRITES)?.trim_end_matches('%').parse().ok()?;
    let heap_bytes = m.label_num(HEAP_BYTES)?;
    let written = (heap_bytes / sys::PAGE as u64) as f64 * pct as f64 / 100.0;
    if written < 1.0 {
        return None;
    }
    let per_page_kib = m.summary.median / written;
    Some(format!(
        "{what}: writing {pct}% of the {} heap while the child lives adds {} to parent and child together \
         ({:.1} KiB per written 4 KiB page; smaps_rollup Private and Shared of both, page-table walks, exact{})",
        m.label(HEAP)?,
        // As measured, never clamped: a negative median is printed so.
        crate::units::fmt_value(m.summary.median * 1024.0, Unit::Bytes),
        per_page_kib,
        crate::measure::rss::bound(r, &[(key::PAGES, pages)]).map_or(String::new(), |b| format!(
            " where the RSS counters may lag ± {}",
            fmt_value(b, Unit::Kib)
        ))
    ))
}

fn picks(r: &ExperimentResult) -> Option<Picks<'_>> {
    let with = |child: &str, pct: u64| {
        r.find(
            &WRITE_NS,
            &[
                (key::PAGES, "4k"),
                (WRITES, &format!("{pct}%")),
                (CHILD, child),
            ],
        )
    };
    // The share is fixed (every page) so the subject is the same in every
    // run; a run asked for other shares takes its largest.
    let pct = if with(CHILD_ALIVE, HEADLINE_SHARE).is_some() {
        HEADLINE_SHARE
    } else {
        r.metrics
            .iter()
            .filter(|m| m.name == WRITE_NS.name && m.label(key::PAGES) == Some("4k"))
            .filter(|m| m.label(CHILD) == Some(CHILD_ALIVE))
            .filter_map(|m| m.label(WRITES)?.trim_end_matches('%').parse().ok())
            .max()?
    };
    Some(Picks {
        pct,
        alive: with(CHILD_ALIVE, pct),
        none: with(NO_CHILD, pct),
    })
}

/// The Summary's quantities: [`Picks`] in words.
fn headlines(r: &ExperimentResult) -> Vec<Headline> {
    let Some(p) = picks(r) else {
        return Vec::new();
    };
    [
        (p.alive, "a page written after fork, the child alive (COW)"),
        (p.none, "a page written, no child"),
    ]
    .into_iter()
    .filter_map(|(m, what)| Some(Headline::of(what, &WRITE_NS, m?)))
    .collect()
}

/// The Summary's copy-on-write cost: a write with the child alive against
/// the same write with no child ([`Picks`]), quoted whatever its state.
fn headline(r: &ExperimentResult) -> Option<String> {
    let p = picks(r)?;
    let (cow, none, pct) = (&p.alive?.summary, &p.none?.summary, p.pct);
    // A cause only on two figures that bound something, neither flagged.
    // The cause only where the control is negligible beside the write
    // after fork; where it is not, the comparison isolates no copy.
    let usable = |s: &Summary| !s.unstable && summary_bounds(s, Unit::Ns);
    let why = if apart(cow, none) && cow.median > none.median && usable(cow) && usable(none) {
        if control_negligible(cow, none) {
            ": the copy fork deferred"
        } else {
            "; the write with no child is not negligible beside it, so this does not isolate the copy fork deferred"
        }
    } else {
        ""
    };
    // Where no figure's interval bounds anything, the sentence says so
    // once, at its end.
    let (q, none_bounds) = together(&[
        quote(cow, Unit::Ns),
        quote(none, Unit::Ns),
        summary_ratio_quote(cow, none),
    ]);
    Some(format!(
        "after fork, a page the parent writes while the child lives costs {} instead of {} with no child ({}; {pct}% of the heap's 4 KiB pages written){why}{none_bounds}",
        q[0], q[1], q[2]
    ))
}

/// The write share the Summary quotes the copy-on-write cost at.
const HEADLINE_SHARE: u64 = 100;

/// The Summary's figures, picked by labels: a page written with the child
/// alive and with no child, at a fixed share of 4 KiB pages (a run asked
/// for other shares takes its largest), whatever their state.
struct Picks<'a> {
    pct: u64,
    alive: Option<&'a Metric>,
    none: Option<&'a Metric>,
}

#[path = "cow_huge.rs"]
mod huge;
use huge::{fork_per_gib, huge_vs_small};

#[cfg(test)]
#[path = "cow_tests.rs"]
mod tests;
