//! The fork-cost model, pure: what a process is (its page tables, its
//! anonymous memory, its huge pages), the slopes measured on this machine
//! (fork's return against the page tables it copies, from spawn.heap; ns per
//! page written after fork, from spawn.cow; ns per extra mapping and per
//! extra descriptor, from spawn.heap's image series), and the prediction
//! with its interval.

use crate::experiments::spawn::cow::WRITE_NS;
use crate::experiments::spawn::engine::PARENT_RETURN_NS;
use crate::experiments::spawn::heap::{base_thp, PAUSED_CALL, PAUSE_MS_PARAM};
use crate::experiments::spawn::heap_image as image;
use crate::experiments::spawn::{cow, heap};
use crate::measure::rss::VM_PTE_KIB;
use crate::metric::key::{CALL, CHILD, HEAP, METHOD, PAGES, THP, WRITES};
use crate::metric::MetricSpec;
use crate::results::{ExperimentResult, RunResults};
use crate::stats::linear_fit;
use serde::Serialize;

/// What fork would have to deal with in a live process, from /proc.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Process {
    pub pid: u32,
    /// VmPTE: its page tables.
    pub vm_pte_kib: u64,
    /// RssAnon: private anonymous memory, shared copy-on-write after fork.
    pub rss_anon_kib: u64,
    /// RssShmem: shared memory, which fork shares without copying.
    pub rss_shmem_kib: u64,
    /// AnonHugePages: anonymous memory on transparent huge pages.
    pub anon_huge_kib: u64,
    /// Mappings (VMAs): lines of /proc/PID/maps.
    pub vmas: u64,
    /// Open file descriptors: entries of /proc/PID/fd.
    pub fds: u64,
    /// How far its RssAnon and RssShmem (the kernel's RSS counters) may
    /// lag, KiB, for its threads on this kernel; None when unknown.
    pub rss_bound_kib: Option<f64>,
    /// VmRSS − smaps_rollup Rss, read one after the other: the counters
    /// against the page tables' exact count, KiB.
    pub rss_cross_check_kib: Option<f64>,
}

impl Process {
    /// Page tables fork copies entry by entry: VmPTE less the page table
    /// the kernel keeps deposited for each huge page (4 KiB per 2 MiB),
    /// which fork does not walk.
    pub fn copied_pte_kib(&self) -> f64 {
        self.vm_pte_kib as f64 - self.anon_huge_kib as f64 / 512.0
    }
}

/// A figure and its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Range {
    pub median: f64,
    pub lo: f64,
    pub hi: f64,
}

impl Range {
    /// Every figure times `k`; a negative `k` swaps the ends, so `lo`
    /// stays the lower.
    fn scaled(self, k: f64) -> Range {
        let (a, b) = (self.lo * k, self.hi * k);
        Range {
            median: self.median * k,
            lo: a.min(b),
            hi: a.max(b),
        }
    }

    fn plus(self, o: Range) -> Range {
        Range {
            median: self.median + o.median,
            lo: self.lo + o.lo,
            hi: self.hi + o.hi,
        }
    }
}

/// What was measured here, reduced to what the model needs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Slopes {
    /// fork's return to the parent against the page tables of the heap it
    /// forked with: (VmPTE KiB, ns), smallest first. Between two heaps the
    /// figure is on the line between them; beyond the largest, on along
    /// the least-squares slope.
    pub fork: Vec<(f64, Range)>,
    /// One fork's spread at the same heaps: (VmPTE KiB, the 10th and 90th
    /// percentiles of the single forks pooled over the rounds, as `lo` and
    /// `hi`, the median between). Empty: no single-fork spread is given.
    pub fork_single: Vec<(f64, Range)>,
    /// The same two for forks after a pause (spawn.heap's `call=paused`,
    /// `-p paused_forks=`): a cold fork, as a server forking now and then
    /// sees. Empty: no cold figures are given.
    pub fork_paused: Vec<(f64, Range)>,
    pub fork_paused_single: Vec<(f64, Range)>,
    /// The pause before each of those forks, ms (the run's `pause_ms`).
    pub pause_ms: Option<f64>,
    /// ns per page written with the child alive, by write share in percent:
    /// on 4 KiB pages and on huge pages.
    pub cow_4k: Vec<(f64, Range)>,
    pub cow_thp: Vec<(f64, Range)>,
    /// fork's return per extra mapping and per extra open descriptor, and
    /// the measured worker's own counts they start from; None when the
    /// results have no such series.
    pub per_mapping: Option<PerExtra>,
    pub per_fd: Option<PerExtra>,
    /// The series used whose rounds did not settle (a trend over the run,
    /// two modes), by name and case: each is priced with an interval that
    /// spans its rounds' medians, and the prediction says so.
    pub flagged: Vec<String>,
}

/// ns per extra one (a mapping, a descriptor) on fork's return, and how
/// many the worker it was measured in had of its own.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PerExtra {
    pub per: Range,
    pub worker: f64,
}

impl Slopes {
    /// The slopes in a run's results: spawn.heap's fork series (the heaps
    /// without huge-page advice) with their VmPTE readings, spawn.cow's
    /// writes with the child alive. A series whose rounds did not settle is
    /// used with an interval wide enough to hold each of its rounds'
    /// medians, and named in [`Slopes::flagged`]: an imprecise slope gives
    /// a wide interval, not an error.
    pub fn from_results(r: &RunResults) -> Slopes {
        let mut s = Slopes::default();
        if let Some(heap) = r
            .experiments
            .iter()
            .find(|x| x.name == heap::EXPERIMENT.name)
        {
            let base = base_thp(heap);
            for m in all_named(heap, &PARENT_RETURN_NS).filter(|m| {
                // The warm series (back to back) and the paused one: a
                // first call (`call=first`, a fresh worker's first fork,
                // one sample a round) is neither.
                m.label(METHOD) == Some("fork")
                    && m.label(THP) == Some(base)
                    && matches!(m.label(CALL), None | Some(PAUSED_CALL))
            }) {
                let h = m.label(HEAP).unwrap_or("");
                let Some(pte) = heap.reading(&VM_PTE_KIB, &[(HEAP, h), (THP, base)]) else {
                    continue;
                };
                let (median, one, what) = if m.label(CALL).is_none() {
                    (&mut s.fork, &mut s.fork_single, "fork")
                } else {
                    (
                        &mut s.fork_paused,
                        &mut s.fork_paused_single,
                        "fork after a pause",
                    )
                };
                median.push((pte, range(&m.summary)));
                one.push((pte, single(&m.summary)));
                if m.summary.unstable {
                    s.flagged.push(format!("{what} at a heap of {h}"));
                }
            }
            for v in [
                &mut s.fork,
                &mut s.fork_single,
                &mut s.fork_paused,
                &mut s.fork_paused_single,
            ] {
                v.sort_by(|a, b| a.0.total_cmp(&b.0));
            }
            if !s.fork_paused.is_empty() {
                s.pause_ms = heap
                    .params
                    .get(PAUSE_MS_PARAM.spec.name)
                    .and_then(|v| v.as_f64());
            }
            let per = |kind: &str, worker: &MetricSpec| {
                let slope = image::slope(heap, &image::IMAGE_PARENT_RETURN_NS, kind)?;
                Some(PerExtra {
                    per: Range {
                        median: slope.per.ns,
                        lo: slope.per.lo,
                        hi: slope.per.hi,
                    },
                    worker: heap.reading(worker, &[])?,
                })
            };
            s.per_mapping = per("mappings", &image::IMAGE_WORKER_MAPPINGS);
            s.per_fd = per("fds", &image::IMAGE_WORKER_FDS);
        }
        if let Some(cow) = r
            .experiments
            .iter()
            .find(|x| x.name == cow::EXPERIMENT.name)
        {
            s.cow_4k = cow_shares(cow, "4k", &mut s.flagged);
            s.cow_thp = cow_shares(cow, "thp", &mut s.flagged);
        }
        s
    }
}

/// Every series of `spec`, flagged or not (`metrics_named` leaves the
/// flagged out).
fn all_named<'a>(
    r: &'a ExperimentResult,
    spec: &'a MetricSpec,
) -> impl Iterator<Item = &'a crate::results::Metric> + 'a {
    r.metrics.iter().filter(move |m| m.name == spec.name)
}

/// A series' figure and interval; for a flagged series, the interval
/// widened to hold every round's median, since its rounds disagree by more
/// than its interval says.
fn range(s: &crate::stats::Summary) -> Range {
    let mut r = Range {
        median: s.median,
        lo: s.ci95_lo,
        hi: s.ci95_hi,
    };
    if s.unstable {
        for m in &s.round_medians {
            r.lo = r.lo.min(*m);
            r.hi = r.hi.max(*m);
        }
    }
    r
}

/// One sample's spread: the 10th to the 90th percentile of the samples
/// pooled over the rounds (each sample of fork's return is one fork), the
/// median between.
fn single(s: &crate::stats::Summary) -> Range {
    Range {
        median: s.median,
        lo: s.p10.min(s.median),
        hi: s.p90.max(s.median),
    }
}

fn cow_shares(r: &ExperimentResult, pages: &str, flagged: &mut Vec<String>) -> Vec<(f64, Range)> {
    let mut v: Vec<(f64, Range)> = all_named(r, &WRITE_NS)
        .filter(|m| m.label(PAGES) == Some(pages) && m.label(CHILD) == Some("alive"))
        .filter_map(|m| {
            let share = m.label(WRITES)?;
            let pct: f64 = share.trim_end_matches('%').parse().ok()?;
            if m.summary.unstable {
                flagged.push(format!("writes after fork of {share} on {pages} pages"));
            }
            Some((pct, range(&m.summary)))
        })
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    v
}

/// What fork would cost the process here.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Prediction {
    /// The median fork's return to the parent, ns, and the 95% interval of
    /// that median: the page tables' figure plus the mappings' and
    /// descriptors' below.
    pub parent_return_ns: Range,
    /// A single fork's return (what one fork sees, one BGSAVE): the 10th
    /// to the 90th percentile, ns, on the same lines as the median, with
    /// the mappings' and descriptors' interval ends; None when the slopes
    /// have no single-fork spread.
    pub single_fork_ns: Option<Spread>,
    /// The same two for a fork after a pause (a cold fork: what a server
    /// forking now and then, as Redis's BGSAVE, sees); None when the slopes
    /// have no paused forks at two heaps.
    pub cold_fork: Option<ColdFork>,
    /// What the process's mappings and descriptors beyond the measured
    /// worker's add to fork's return (fewer than the worker's: a negative
    /// figure); None when the slopes lack them.
    pub mappings: Option<ExtraCost>,
    pub descriptors: Option<ExtraCost>,
    /// True when the process's page tables are beyond the largest heap
    /// measured: the line is extrapolated.
    pub extrapolated: bool,
    /// True when they are below the smallest heap measured: the figure is
    /// at most that heap's, and at least that heap's scaled down to its
    /// page tables (fork's fixed costs make the scaled figure a floor).
    pub below_smallest: bool,
    /// The flagged series the prediction rests on (see [`Slopes::flagged`]).
    pub flagged: Vec<String>,
    /// The write share the COW cost is for, percent.
    pub writes_pct: f64,
    /// Pages (4 KiB) written with the child alive, on 4 KiB and huge pages.
    pub written_4k_pages: f64,
    pub written_thp_pages: f64,
    /// The first pass of copy-on-write over those pages, ns.
    pub cow_first_pass_ns: Range,
    /// Huge pages were priced at the 4 KiB rate: no huge-page figures.
    pub thp_at_4k_rate: bool,
}

/// A fork after a pause, priced as the warm one on its own series.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ColdFork {
    /// The pause measured before each fork, ms (None: not recorded).
    pub pause_ms: Option<f64>,
    /// The median cold fork and the 95% interval of that median, ns.
    pub parent_return_ns: Range,
    /// A single cold fork: its 10th to 90th percentile, ns.
    pub single_fork_ns: Spread,
    /// Beyond the largest heap measured after a pause / below the smallest.
    pub extrapolated: bool,
    pub below_smallest: bool,
}

/// Where single forks fall: 80% of them between `p10` and `p90`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Spread {
    pub p10: f64,
    pub p90: f64,
}

/// The process's mappings or descriptors against the measured worker's.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ExtraCost {
    /// The process's count less the worker's.
    pub beyond_worker: f64,
    pub ns: Range,
}

impl ExtraCost {
    fn of(per: Option<PerExtra>, count: u64) -> Option<ExtraCost> {
        let per = per?;
        let beyond_worker = count as f64 - per.worker;
        Some(ExtraCost {
            beyond_worker,
            ns: per.per.scaled(beyond_worker),
        })
    }
}

/// Why a prediction cannot be made from these slopes.
pub fn missing(s: &Slopes) -> Option<&'static str> {
    if s.fork.len() < 2 {
        Some("fork's return measured at two heap sizes at least (spawn.heap, method fork)")
    } else if s.cow_4k.is_empty() {
        Some("writes after fork on 4 KiB pages (spawn.cow)")
    } else {
        None
    }
}

/// The prediction for `p` writing `writes_pct` percent of its anonymous
/// memory while the child lives. None when [`missing`] says why.
pub fn predict(s: &Slopes, p: &Process, writes_pct: f64) -> Option<Prediction> {
    if missing(s).is_some() {
        return None;
    }
    let x = p.copied_pte_kib();
    let (first, last) = (s.fork.first()?, s.fork.last()?);
    let mappings = ExtraCost::of(s.per_mapping, p.vmas);
    let descriptors = ExtraCost::of(s.per_fd, p.fds);
    let with_extras = |r: Range| {
        [mappings, descriptors]
            .iter()
            .flatten()
            .fold(r, |sum, e| sum.plus(e.ns))
    };
    let (parent_return_ns, single_fork_ns) = fork_figures(&s.fork, &s.fork_single, x, with_extras)?;
    // The cold fork on its own series, with the same (warm) mappings and
    // descriptors: only where it was measured at two heaps.
    let cold_fork = match (s.fork_paused.first(), s.fork_paused.last()) {
        (Some(lo), Some(hi)) if s.fork_paused.len() >= 2 => {
            match fork_figures(&s.fork_paused, &s.fork_paused_single, x, with_extras) {
                Some((median, Some(one))) => Some(ColdFork {
                    pause_ms: s.pause_ms,
                    parent_return_ns: median,
                    single_fork_ns: one,
                    extrapolated: x > hi.0,
                    below_smallest: x < lo.0,
                }),
                _ => None,
            }
        }
        _ => None,
    };
    let huge_kib = p.anon_huge_kib.min(p.rss_anon_kib) as f64;
    let small_kib = p.rss_anon_kib as f64 - huge_kib;
    let share = writes_pct / 100.0;
    let written_4k_pages = small_kib / 4.0 * share;
    let written_thp_pages = huge_kib / 4.0 * share;
    let per_4k = at_share(&s.cow_4k, writes_pct)?;
    let thp_at_4k_rate = s.cow_thp.is_empty() && written_thp_pages > 0.0;
    let per_thp = at_share(&s.cow_thp, writes_pct).unwrap_or(per_4k);
    Some(Prediction {
        parent_return_ns,
        single_fork_ns,
        cold_fork,
        mappings,
        descriptors,
        extrapolated: x > last.0,
        below_smallest: x < first.0,
        flagged: s.flagged.clone(),
        writes_pct,
        written_4k_pages,
        written_thp_pages,
        cow_first_pass_ns: per_4k
            .scaled(written_4k_pages)
            .plus(per_thp.scaled(written_thp_pages)),
        thp_at_4k_rate,
    })
}

/// The median fork at `x` KiB of page tables on `points`, and one fork's
/// spread on `singles` (the percentiles' own lines), both with the extras.
/// Each line is ordered at every heap, but beyond the largest their slopes
/// may cross: the spread always holds the median fork's figure, and a fork
/// takes no less than no time. No spread when `singles` does not match.
fn fork_figures(
    points: &[(f64, Range)],
    singles: &[(f64, Range)],
    x: f64,
    with_extras: impl Fn(Range) -> Range,
) -> Option<(Range, Option<Spread>)> {
    let median = with_extras(on_the_line(points, x)?);
    let m = median.median;
    let one = if singles.len() == points.len() {
        on_the_line(singles, x).map(&with_extras).map(|r| Spread {
            p10: r.lo.min(m).max(0.0),
            p90: r.hi.max(m),
        })
    } else {
        None
    };
    Some((median, one))
}

/// The figure at `x` KiB of page tables on the points measured (by VmPTE,
/// smallest first), the median and each end alike: at a point, its
/// figure; between two, on the straight line joining them; beyond the
/// largest, on from it along the least-squares slope of all the points.
/// Below the smallest, at most its figure: a cost a + b·pte with a, b ≥ 0
/// is at least its figure scaled by x/first (the fixed part a shrinks
/// too), so that is the floor, and the figure given is the middle of the
/// two.
fn on_the_line(points: &[(f64, Range)], x: f64) -> Option<Range> {
    let (first, last) = (points.first()?, points.last()?);
    Some(if x < first.0 {
        let k = (x / first.0).max(0.0);
        let lo = first.1.lo * k;
        Range {
            median: (lo + first.1.hi) / 2.0,
            lo,
            hi: first.1.hi,
        }
    } else if x == first.0 {
        first.1
    } else if x <= last.0 {
        between(points, x)?
    } else {
        let xs: Vec<f64> = points.iter().map(|(k, _)| *k).collect();
        let slope = |f: fn(&Range) -> f64| {
            let ys: Vec<f64> = points.iter().map(|(_, r)| f(r)).collect();
            linear_fit(&xs, &ys).map(|fit| fit.slope * (x - last.0))
        };
        Range {
            median: last.1.median + slope(|r| r.median)?,
            lo: last.1.lo + slope(|r| r.lo)?,
            hi: last.1.hi + slope(|r| r.hi)?,
        }
    })
}

/// ns per written page at `pct`: the straight line between the two shares
/// measured either side, or the nearest share outside them.
fn at_share(v: &[(f64, Range)], pct: f64) -> Option<Range> {
    let (first, last) = (v.first()?, v.last()?);
    if pct <= first.0 {
        return Some(first.1);
    }
    if pct >= last.0 {
        return Some(last.1);
    }
    between(v, pct)
}

/// The straight line between the two points either side of `x` (which
/// lies within the points, sorted by x).
fn between(v: &[(f64, Range)], x: f64) -> Option<Range> {
    let i = v.iter().position(|(p, _)| *p >= x)?;
    if i == 0 {
        return Some(v[0].1);
    }
    let ((x0, a), (x1, b)) = (v[i - 1], v[i]);
    let t = (x - x0) / (x1 - x0);
    let mix = |p: f64, q: f64| p + (q - p) * t;
    Some(Range {
        median: mix(a.median, b.median),
        lo: mix(a.lo, b.lo),
        hi: mix(a.hi, b.hi),
    })
}
