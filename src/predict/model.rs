//! The fork-cost model, pure: what a process is (its page tables, its
//! anonymous memory, its huge pages), the slopes measured on this machine
//! (fork's return against the page tables it copies, from spawn.heap; ns per
//! page written after fork, from spawn.cow; ns per extra mapping and per
//! extra descriptor, from spawn.heap's image series), and the prediction
//! with its interval.

use super::placement::{frame_shares, placed};
pub use super::placement::{near_shares, FrameShares, Outside, Placement};
use super::range::{between, tau_at};
pub use super::range::{Range, Spread};
use crate::experiments::spawn::cow::WRITE_NS;
use crate::experiments::spawn::engine::PARENT_RETURN_NS;
use crate::experiments::spawn::heap::{
    base_thp, CONTIGUOUS_CALL, PAUSED_CALL, PAUSE_MS_PARAM, SCATTERED_CALL,
};
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
    /// The share of its resident anonymous pages whose physical frame
    /// follows the page before's, percent (`procfs::AnonPages`);
    /// None when the frames are hidden (no CAP_SYS_ADMIN).
    pub frames_adjacent_pct: Option<f64>,
    /// The share of those pages outside such runs whose frame lies near
    /// the pages before (`procfs::Adjacency::near_pct`), percent; None
    /// likewise.
    pub frames_near_pct: Option<f64>,
    /// The part of those near pages priced as pages in a row, percent of
    /// its resident pages: each counted by how full its block of frames is
    /// with the process's pages ([`super::placement::near_in_row`]); the rest of them are
    /// priced as scattered. None likewise.
    pub frames_near_in_row_pct: Option<f64>,
    /// The near pages' blocks' mean fill with the process's pages,
    /// percent; None likewise, or when no page is near.
    pub frames_near_fill_pct: Option<f64>,
    /// Its anonymous private mappings' page-table entries that fork copies
    /// one by one (present or swapped pages), and the page tables holding
    /// them (`procfs::TableFill`); None when its pagemap cannot be read.
    pub anon_pte_entries: Option<u64>,
    pub anon_pte_tables: Option<u64>,
}

/// What a page table costs fork on its own (allocating the child's,
/// walking its 512 entries), as a share of what a full one costs with its
/// 512 pages: 2,048 tables holding one page each forked in 4.8 ms warm and
/// 6.6 to 8.2 ms after a 300 ms pause, 256 full ones in 6.6 to 7.7 ms warm
/// and 13.9 ms after the pause (this 2-vCPU KVM guest, docs/PREDICT.md):
/// 2.4 against 26 to 30 µs a table warm, 3.2 to 4.0 against 54 µs cold,
/// 6 to 9%.
pub const TABLE_OWN_SHARE: f64 = 0.08;

impl Process {
    /// The share of its pages priced as pages in a row, percent: those in
    /// runs ([`Process::frames_adjacent_pct`]) and its near pages' part
    /// counted in a row ([`Process::frames_near_in_row_pct`]); None when
    /// its frames are hidden.
    pub fn in_row_pct(&self) -> Option<f64> {
        self.frames_adjacent_pct
            .map(|a| (a + self.frames_near_in_row_pct.unwrap_or(0.0)).min(100.0))
    }

    /// Page tables fork copies entry by entry, as the heap's page tables it
    /// would cost as much as: VmPTE less the page table the kernel keeps
    /// deposited for each huge page (4 KiB per 2 MiB), which fork does not
    /// walk, less the empty part of its anonymous page tables but for
    /// [`TABLE_OWN_SHARE`] of it ([`Process::unfilled_pte_kib`]). The
    /// slopes are measured on heaps written whole, whose tables are full:
    /// a table half empty costs fork about half a full one (its pages'
    /// `struct page` work is most of it), where VmPTE counts it whole.
    pub fn copied_pte_kib(&self) -> f64 {
        self.vm_pte_kib as f64
            - self.anon_huge_kib as f64 / 512.0
            - self.unfilled_pte_kib() * (1.0 - TABLE_OWN_SHARE)
    }

    /// The empty part of its anonymous page tables, KiB: the tables
    /// holding its entries less the tables those entries would fill
    /// (4 KiB per 512 entries); 0 when unknown.
    pub fn unfilled_pte_kib(&self) -> f64 {
        match (self.anon_pte_entries, self.anon_pte_tables) {
            (Some(entries), Some(tables)) => {
                4.0 * (tables as f64 - entries as f64 / 512.0).max(0.0)
            }
            _ => 0.0,
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
    /// percentiles of the single forks pooled over the rounds, as
    /// [`spread_of`] takes them, as `lo` and `hi`, the median between).
    /// Empty, or not one a heap: no single-fork spread is given.
    pub fork_single: Vec<(f64, Range)>,
    /// The same two for forks after a pause (spawn.heap's `call=paused`,
    /// `-p paused_forks=`): a cold fork, as a server forking now and then
    /// sees. Empty: no cold figures are given.
    pub fork_paused: Vec<(f64, Range)>,
    pub fork_paused_single: Vec<(f64, Range)>,
    /// The same forks after a pause with each heap's pages scattered in
    /// physical memory (`call=paused_scattered`, `-p scattered=true`) and
    /// in a row (`call=paused_contiguous`, `-p contiguous=true`), and each
    /// heap's share of frames next to the page before's in each layout.
    /// Empty: the cold figures are for the worker's own placement.
    pub fork_scattered: Vec<(f64, Range)>,
    pub fork_scattered_single: Vec<(f64, Range)>,
    pub fork_contiguous: Vec<(f64, Range)>,
    pub fork_contiguous_single: Vec<(f64, Range)>,
    pub frames_adjacent: Vec<FrameShares>,
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
    /// The run-to-run noise each heap's warm and cold fork series carry:
    /// (VmPTE KiB, `run_noise`: a share of the series' own spread over its
    /// rounds, at least the floor, `stats::noise::one_run_tau`), the
    /// largest of a heap's layouts for the cold; empty where no series
    /// records it (a file from before), taken as the floor.
    pub run_noise: Vec<(f64, f64)>,
    pub paused_run_noise: Vec<(f64, f64)>,
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
                    && matches!(
                        m.label(CALL),
                        None | Some(PAUSED_CALL) | Some(SCATTERED_CALL) | Some(CONTIGUOUS_CALL)
                    )
            }) {
                let h = m.label(HEAP).unwrap_or("");
                let Some(pte) = heap.reading(&VM_PTE_KIB, &[(HEAP, h), (THP, base)]) else {
                    continue;
                };
                let (median, one, what) = match m.label(CALL) {
                    None => (&mut s.fork, &mut s.fork_single, "fork"),
                    Some(SCATTERED_CALL) => (
                        &mut s.fork_scattered,
                        &mut s.fork_scattered_single,
                        "fork after a pause, its pages scattered,",
                    ),
                    Some(CONTIGUOUS_CALL) => (
                        &mut s.fork_contiguous,
                        &mut s.fork_contiguous_single,
                        "fork after a pause, its pages in a row,",
                    ),
                    _ => (
                        &mut s.fork_paused,
                        &mut s.fork_paused_single,
                        "fork after a pause",
                    ),
                };
                median.push((pte, range(&m.summary)));
                let taus = match m.label(CALL) {
                    None => &mut s.run_noise,
                    _ => &mut s.paused_run_noise,
                };
                if let Some(t) = m.summary.run_noise {
                    match taus.iter_mut().find(|(x, _)| *x == pte) {
                        Some((_, u)) => *u = u.max(t),
                        None => taus.push((pte, t)),
                    }
                }
                // A heap whose forks give no spread (one fork) gives none
                // to the line, so the prediction gives none either.
                if let Some(spread) = single(m) {
                    one.push((pte, spread));
                }
                if m.summary.unstable {
                    s.flagged.push(format!("{what} at a heap of {h}"));
                }
            }
            for v in [
                &mut s.fork,
                &mut s.fork_single,
                &mut s.fork_paused,
                &mut s.fork_paused_single,
                &mut s.fork_scattered,
                &mut s.fork_scattered_single,
                &mut s.fork_contiguous,
                &mut s.fork_contiguous_single,
            ] {
                v.sort_by(|a, b| a.0.total_cmp(&b.0));
            }
            s.run_noise.sort_by(|a, b| a.0.total_cmp(&b.0));
            s.paused_run_noise.sort_by(|a, b| a.0.total_cmp(&b.0));
            s.frames_adjacent = frame_shares(heap, base);
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

/// One fork's spread at a heap: where four in five single forks fall
/// ([`spread_of`] over the series' samples, each one fork, pooled over the
/// rounds), the median between. From a file without samples, the summary's
/// 10th and 90th percentiles; None from a single fork.
fn single(m: &crate::results::Metric) -> Option<Range> {
    let s = &m.summary;
    let (lo, hi) = if m.samples.is_empty() {
        (s.p10, s.p90)
    } else {
        spread_of(&m.samples)?
    };
    Some(Range {
        median: s.median,
        lo: lo.min(s.median),
        hi: hi.max(s.median),
    })
}

/// Student's t, one-sided 90% (a two-sided 80% interval), for 1 to 8
/// degrees of freedom.
const T90: [f64; 8] = [3.078, 1.886, 1.638, 1.533, 1.476, 1.440, 1.415, 1.397];

/// Samples from which order statistics alone hold four in five of the
/// next ones on average: [X(1), X(n)] holds (n − 1)/(n + 1) of them.
pub const SPREAD_FROM: usize = 9;

/// The 10th to the 90th percentile of what `samples` come from, honest for
/// few of them: the order statistics X(r) and X(n+1−r), r = ⌊(n+1)/10⌋,
/// which hold (n+1−2r)/(n+1) ≥ 80% of a next sample on average, whatever
/// the distribution (the sample's own p10 and p90 hold less than that from
/// few samples: 62% from 8); from many samples they are the percentiles.
/// From 2 to 8 samples, where even [min, max] holds less than 80%, the
/// range widened to the 80% prediction interval of a log-normal
/// (Student's t over the logs, √(1 + 1/n)), which widens as the samples
/// get fewer. None from fewer than two: one fork says nothing of the next.
pub fn spread_of(samples: &[f64]) -> Option<(f64, f64)> {
    let mut v: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n < 2 {
        return None;
    }
    if n >= SPREAD_FROM {
        let r = (n + 1) / 10;
        return Some((v[r - 1], v[n - r]));
    }
    let (min, max) = (v[0], v[n - 1]);
    let t = T90[n - 2] * (1.0 + 1.0 / n as f64).sqrt();
    let positive = min > 0.0;
    let xs: Vec<f64> = if positive {
        v.iter().map(|x| x.ln()).collect()
    } else {
        v.clone()
    };
    let mean = xs.iter().sum::<f64>() / n as f64;
    let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
    let (lo, hi) = (mean - t * sd, mean + t * sd);
    Some(if positive {
        (min.min(lo.exp()), max.max(hi.exp()))
    } else {
        (min.min(lo), max.max(hi))
    })
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
    /// Why the heaps measured did not reach the process's page tables,
    /// when the warm or the cold figure is extrapolated and the slopes come
    /// from predict's own run (set by the caller; None from `predict`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extrapolated_why: Option<String>,
    /// The host's memory state when the slopes were measured and when the
    /// prediction was made (set by the caller; None from `predict`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_memory: Option<HostMemory>,
    /// The flagged series the prediction rests on (see [`Slopes::flagged`]).
    pub flagged: Vec<String>,
    /// The run-to-run noise (a standard deviation in logs) the median's
    /// interval holds once more, for the process's own fork being another
    /// run than the slopes' ([`Range::with_run_noise`]).
    pub run_noise: f64,
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
    /// As [`Prediction::run_noise`], the cold series'.
    pub run_noise: f64,
    /// Beyond the largest heap measured after a pause / below the smallest.
    pub extrapolated: bool,
    pub below_smallest: bool,
    /// How the figures were placed between the worker's heaps as touched
    /// and scattered, by the process's own physical placement; None when
    /// they were not (no scattered heaps in the slopes, or the process's
    /// frames hidden).
    pub frames: Option<Placement>,
}

/// The memory canary (the first touch of a fresh page and of one freed
/// just before, ns per 4 KiB page: `Canary::fresh_page_ns`,
/// `recycled_page_ns`) over the rounds the slopes come from (their
/// median) and at the prediction: on this project's KVM guest a fork's cost
/// moved with that state (Redis's fork of 4.5 GiB cost 46 ms on one hour
/// and 79 ms on another), so slopes measured in one state price a fork in
/// another only as well as the two agree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct HostMemory {
    pub slopes_fresh_page_ns: Option<f64>,
    pub slopes_recycled_page_ns: Option<f64>,
    pub now_fresh_page_ns: Option<f64>,
    pub now_recycled_page_ns: Option<f64>,
}

impl HostMemory {
    /// The median of the slopes' rounds' canaries (start and end of each)
    /// beside one read now.
    pub fn of(slopes: &[crate::results::Canary], now: &crate::results::Canary) -> HostMemory {
        let median = |v: Vec<f64>| crate::stats::median(&v);
        let ok = |x: Option<f64>| x.filter(|v| v.is_finite() && *v > 0.0);
        HostMemory {
            slopes_fresh_page_ns: median(slopes.iter().filter_map(|c| c.fresh_page()).collect()),
            slopes_recycled_page_ns: median(
                slopes
                    .iter()
                    .filter_map(|c| ok(c.recycled_page_ns))
                    .collect(),
            ),
            now_fresh_page_ns: now.fresh_page(),
            now_recycled_page_ns: ok(now.recycled_page_ns),
        }
    }

    /// Now's fresh-page figure over the slopes', when both are known.
    pub fn ratio(&self) -> Option<f64> {
        Some(self.now_fresh_page_ns? / self.slopes_fresh_page_ns?)
    }
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
    let (run_noise, cold_noise) = (tau_at(&s.run_noise, x), tau_at(&s.paused_run_noise, x));
    let (parent_return_ns, single_fork_ns) = Spread::with_run_noise(
        fork_figures(&s.fork, &s.fork_single, x, with_extras)?,
        run_noise,
    );
    // The cold fork on its own series, with the same (warm) mappings and
    // descriptors: only where it was measured at two heaps.
    // Placed by the process's pages in physical memory, where both are known.
    let placed_median = p.in_row_pct().and_then(|a| {
        placed(
            &s.fork_paused,
            &s.fork_scattered,
            &s.fork_contiguous,
            &s.frames_adjacent,
            a,
        )
    });
    let placed_single = p.in_row_pct().and_then(|a| {
        placed(
            &s.fork_paused_single,
            &s.fork_scattered_single,
            &s.fork_contiguous_single,
            &s.frames_adjacent,
            a,
        )
    });
    let (paused, paused_single, frames) = match (placed_median, placed_single) {
        (Some((m, how)), Some((one, _))) => (m, one, Some(how)),
        _ => (s.fork_paused.clone(), s.fork_paused_single.clone(), None),
    };
    let cold_fork = match (paused.first(), paused.last()) {
        (Some(lo), Some(hi)) if paused.len() >= 2 => {
            match fork_figures(&paused, &paused_single, x, with_extras)
                .map(|f| Spread::with_run_noise(f, cold_noise))
            {
                Some((median, Some(one))) => Some(ColdFork {
                    pause_ms: s.pause_ms,
                    parent_return_ns: median,
                    single_fork_ns: one,
                    run_noise: cold_noise,
                    extrapolated: x > hi.0,
                    below_smallest: x < lo.0,
                    frames,
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
        run_noise,
        cold_fork,
        mappings,
        descriptors,
        extrapolated: x > last.0,
        below_smallest: x < first.0,
        extrapolated_why: None,
        host_memory: None,
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
/// Beyond the largest heap the percentiles are not extrapolated on their
/// own lines (from few forks their slopes are rough and may cross the
/// median's, which collapsed the spread onto it): the spread is the median's
/// interval there, each end widened by the factor that heap's spread has
/// over its interval ([`beyond_spread`]). It always holds the median fork's
/// figure. An end below zero, where a time cannot be, is kept as computed
/// (issue 39: never raised to zero) and said so by `render`. No spread when
/// `singles` does not match.
fn fork_figures(
    points: &[(f64, Range)],
    singles: &[(f64, Range)],
    x: f64,
    with_extras: impl Fn(Range) -> Range,
) -> Option<(Range, Option<Spread>)> {
    let tables = on_the_line(points, x)?;
    let median = with_extras(tables);
    let m = median.median;
    let one = if singles.len() == points.len() {
        let line = match (points.last(), singles.last()) {
            (Some(last), Some(one)) if x > last.0 => Some(beyond_spread(tables, last.1, one.1)),
            _ => on_the_line(singles, x),
        };
        line.map(&with_extras).map(|r| Spread {
            p10: r.lo.min(m),
            p90: r.hi.max(m),
        })
    } else {
        None
    };
    Some((median, one))
}

/// One fork's spread beyond the largest heap: the median's interval `at`
/// there, its low end times that heap's p10 over its interval's low end
/// (at most 1), its high end times its p90 over its high end (at least 1):
/// at the heap itself, that heap's own spread; farther on, as wide by
/// factors around an interval that widens.
fn beyond_spread(at: Range, last: Range, one: Range) -> Range {
    let down = if last.lo > 0.0 {
        (one.lo / last.lo).min(1.0)
    } else {
        1.0
    };
    let up = if last.hi > 0.0 {
        (one.hi / last.hi).max(1.0)
    } else {
        1.0
    };
    Range {
        median: at.median,
        lo: at.lo * down,
        hi: at.hi * up,
    }
}

/// The figure at `x` KiB of page tables on the points measured (by VmPTE,
/// smallest first): at a point, its figure; between two, on the straight
/// line joining them, the median and each end alike; below the smallest,
/// at most its figure: a cost a + b·pte with a, b ≥ 0 is at least its
/// figure scaled by x/first (the fixed part a shrinks too), so that is the
/// floor, and the figure given is the middle of the two. Beyond the
/// largest, see [`beyond`].
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
        beyond(points, x)?
    })
}

/// Beyond the largest point: the median on from its figure along the
/// least-squares slope of all the points' medians; the interval's ends
/// along the shallowest and the steepest lines the measured intervals
/// allow: through the largest point's low end and another point's high
/// end, and through its high end and the other's low end (the slopes of
/// the medians' line between them). The ends thus never cross the median,
/// and the interval widens with the distance and with the points' own
/// intervals (few forks, wide intervals, a wide extrapolation), where
/// each end's own least-squares slope could bring it onto the median. The
/// figures are kept as the lines give them (issue 39): where a falling line
/// takes the median or the low end below zero, which a time cannot be, the
/// line bounds nothing there, and `render` says so rather than print it or
/// raise it to zero.
fn beyond(points: &[(f64, Range)], x: f64) -> Option<Range> {
    let last = points.last()?;
    let xs: Vec<f64> = points.iter().map(|(k, _)| *k).collect();
    let ys: Vec<f64> = points.iter().map(|(_, r)| r.median).collect();
    let b = linear_fit(&xs, &ys)?.slope;
    let (mut b_lo, mut b_hi) = (b, b);
    for (px, pr) in &points[..points.len() - 1] {
        let d = last.0 - px;
        if d > 0.0 {
            b_lo = b_lo.min((last.1.lo - pr.hi) / d);
            b_hi = b_hi.max((last.1.hi - pr.lo) / d);
        }
    }
    let dx = x - last.0;
    // b_lo <= b and last's low end is at most its median, so the low end
    // stays at or below the median with no clamp.
    Some(Range {
        median: last.1.median + b * dx,
        lo: last.1.lo + b_lo * dx,
        hi: last.1.hi + b_hi * dx,
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

#[cfg(test)]
#[path = "model_tests.rs"]
mod tests;
