//! The matrix's rows: the Summary's quantities, each picked in a run as the
//! Summary's sentence picks it (the same lookups: `heap_fit::all_by_heap`
//! and `base_thp` for the heap figures, `find` with the experiment's own
//! method, placement and variant rows for the others), so a row is the
//! figure a reader of that run's Summary saw. The picks are made on the
//! baseline run (or, for a quantity it lacks, the first run that has it);
//! every column then shows the series with exactly those labels.

use crate::experiments::memory::threads_findings::{
    DEFAULT as DEFAULT_STACK, RSS_EXACT_PER_THREAD_KIB, VIRT_PER_THREAD_KIB,
};
use crate::experiments::parallel::array::Variant as Par;
use crate::experiments::parallel::{CPUS as PAR_CPUS, SPEEDUP};
use crate::experiments::spawn::cow::{CHILD_ALIVE, NO_CHILD, WRITE_NS};
use crate::experiments::spawn::heap::base_thp;
use crate::experiments::spawn::{heap_fit, table as spawn};
use crate::experiments::switch::methods::{
    ASYNC, COROUTINE, GO_DEFAULT, PIPE_THREADS, SAME_CPU, TWO_CPUS,
};
use crate::experiments::switch::series::SWITCH_NS;
use crate::experiments::yardstick::CALL_NS;
use crate::measure::params::Row;
use crate::metric::key::{
    CHILD, METHOD, N, PAGES, PLACEMENT, THP, THREADS, VARIANT, WORKERS, WRITES,
};
use crate::metric::MetricSpec;
use crate::results::{ExperimentResult, Labels, Metric, RunResults};
use serde::Serialize;

/// One row: a series by experiment, name and labels; or fork's growth per
/// 100 MiB of heap between two of its points (`slope_from`: the smaller
/// heap's labels, `labels` the larger's).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Pick {
    /// What the row is, in words.
    pub name: String,
    pub experiment: String,
    pub metric: String,
    pub labels: Labels,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slope_from: Option<Labels>,
    /// Bytes between the slope's two heaps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slope_bytes: Option<u64>,
}

/// A row's figure in one run: the median, its 95% interval, its unit and
/// its mark ("!" flagged, "~" noisy, "" precise).
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    pub median: f64,
    pub lo: f64,
    pub hi: f64,
    pub unit: crate::results::Unit,
    pub mark: &'static str,
}

impl Pick {
    fn of(name: impl Into<String>, e: &ExperimentResult, m: &Metric) -> Pick {
        Pick {
            name: name.into(),
            experiment: e.name.clone(),
            metric: m.name.clone(),
            labels: m.labels.clone(),
            slope_from: None,
            slope_bytes: None,
        }
    }

    /// The run's figure for this row: its series' median and interval as
    /// its own report shows them, or the slope between two of its heap
    /// points (in ns per [`SLOPE_PER`] bytes); None when `r` lacks it.
    pub fn figure(&self, r: &RunResults) -> Option<Figure> {
        let to = self.find(r)?;
        if let (Some(from), Some(bytes)) = (&self.slope_from, self.slope_bytes) {
            let from = r
                .measured(&self.experiment)?
                .metrics
                .iter()
                .find(|m| m.name == self.metric && m.labels == *from)?;
            let per =
                heap_fit::per_unit(&from.summary, &to.summary, bytes as f64 / SLOPE_PER as f64)?;
            let flagged = from.summary.unstable || to.summary.unstable;
            return Some(Figure {
                median: per.ns,
                lo: per.lo,
                hi: per.hi,
                unit: to.unit,
                mark: if flagged { "!" } else { "" },
            });
        }
        let s = &to.summary;
        Some(Figure {
            median: s.median,
            lo: s.ci95_lo,
            hi: s.ci95_hi,
            unit: to.unit,
            mark: s.mark(),
        })
    }

    /// The same series in another run (None: it was not measured there).
    pub fn find<'a>(&self, r: &'a RunResults) -> Option<&'a Metric> {
        let e = r.measured(&self.experiment)?;
        e.metrics
            .iter()
            .find(|m| m.name == self.metric && m.labels == self.labels)
    }
}

/// Bytes the slope is given per: 100 MiB, as the Summary says it.
pub const SLOPE_PER: u64 = 100 << 20;

/// The Summary's quantities measured in `r`, in the Summary's order.
pub fn summary_picks(r: &RunResults) -> Vec<Pick> {
    picks_in(&|name| r.measured(name))
}

/// The Summary's quantities among the experiments `measured` finds by
/// name: the run picks them from an experiment's first rounds, to give
/// their points the profile's rounds (`run::budget::summary_points`).
pub fn picks_in<'a>(measured: &dyn Fn(&str) -> Option<&'a ExperimentResult>) -> Vec<Pick> {
    let mut v = Vec::new();
    if let Some(e) = measured("yardstick.syscall") {
        v.extend(find(e, &CALL_NS, &[]).map(|m| Pick::of("a bare system call", e, m)));
    }
    if let Some(e) = measured("spawn.heap") {
        v.extend(heap_picks(e));
    }
    if let Some(e) = measured("spawn.cow") {
        for (child, what) in [
            (
                CHILD_ALIVE,
                "a page written after fork, the child alive (COW)",
            ),
            (NO_CHILD, "a page written, no child"),
        ] {
            let at = [(PAGES, "4k"), (WRITES, "100%"), (CHILD, child)];
            v.extend(find(e, &WRITE_NS, &at).map(|m| Pick::of(what, e, m)));
        }
    }
    if let Some(e) = measured("switch.pingpong") {
        for (place, what) in [
            (SAME_CPU.name(), "a same-CPU switch (pipe, threads)"),
            (TWO_CPUS.name(), "a cross-CPU wake-up (pipe, threads)"),
        ] {
            let at = [(METHOD, PIPE_THREADS.name()), (PLACEMENT, place)];
            v.extend(find(e, &SWITCH_NS, &at).map(|m| Pick::of(what, e, m)));
        }
    }
    if let Some(e) = measured("switch.userspace") {
        for (variant, what) in [
            (COROUTINE.name(), "a stackful coroutine switch"),
            (ASYNC.name(), "an async task switch"),
            (GO_DEFAULT.name(), "a goroutine switch"),
        ] {
            v.extend(find(e, &SWITCH_NS, &[(VARIANT, variant)]).map(|m| Pick::of(what, e, m)));
        }
    }
    if let Some(e) = measured("memory.threads") {
        v.extend(thread_memory(e));
    }
    if let Some(e) = measured("parallel.average") {
        v.extend(speedup(e));
    }
    if let Some(e) = measured("parallel.program") {
        v.extend(whole_program(e));
    }
    v
}

fn find<'a>(e: &'a ExperimentResult, s: &MetricSpec, at: &[(&str, &str)]) -> Option<&'a Metric> {
    e.find(s, at)
}

/// Fork and a thread at the smallest heap, fork's slope between the two
/// largest, posix_spawn and fork+exec at the largest: as spawn.heap's
/// Summary sentences take them.
fn heap_picks(e: &ExperimentResult) -> Vec<Pick> {
    let base = base_thp(e);
    let line = |m: &spawn::Method| heap_fit::all_by_heap(e, m.name(), base);
    let mut v = Vec::new();
    let fork = line(&spawn::FORK);
    if let Some(&(bytes, m)) = fork.first() {
        v.push(Pick::of(
            format!("fork+reap, {} heap", crate::units::fmt_size(bytes)),
            e,
            m,
        ));
        if let Some(&(_, t)) = line(&spawn::PTHREAD_CREATE).iter().find(|p| p.0 == bytes) {
            v.push(Pick::of(
                format!("thread create+join, {} heap", crate::units::fmt_size(bytes)),
                e,
                t,
            ));
        }
    }
    let n = fork.len();
    if n >= 3 {
        let ((b0, m0), (b1, m1)) = (fork[n - 2], fork[n - 1]);
        if b1 > b0 {
            let mut p = Pick::of(
                format!(
                    "fork's growth per 100 MiB of heap ({} to {})",
                    crate::units::fmt_size(b0),
                    crate::units::fmt_size(b1)
                ),
                e,
                m1,
            );
            p.slope_from = Some(m0.labels.clone());
            p.slope_bytes = Some(b1 - b0);
            v.push(p);
        }
    }
    if let Some(&(bytes, s)) = line(&spawn::POSIX_SPAWN).last() {
        let size = crate::units::fmt_size(bytes);
        v.push(Pick::of(format!("posix_spawn, {size} heap"), e, s));
        if let Some(&(_, x)) = line(&spawn::FORK_EXEC_STATIC).iter().find(|p| p.0 == bytes) {
            v.push(Pick::of(format!("fork+exec, {size} heap"), e, x));
        }
    }
    v
}

/// A blocked thread's address space and resident memory at the largest
/// count of default-stack threads measured.
fn thread_memory(e: &ExperimentResult) -> Vec<Pick> {
    let most = e
        .metrics_named(&VIRT_PER_THREAD_KIB)
        .filter(|m| m.label(VARIANT) == Some(DEFAULT_STACK.name))
        .filter_map(|m| m.label_num(THREADS))
        .max();
    let Some(n) = most.map(|n| n.to_string()) else {
        return Vec::new();
    };
    let at = [(VARIANT, DEFAULT_STACK.name), (THREADS, n.as_str())];
    [
        (&VIRT_PER_THREAD_KIB, "a thread's address space"),
        (&RSS_EXACT_PER_THREAD_KIB, "a thread's resident memory"),
    ]
    .into_iter()
    .filter_map(|(s, what)| {
        find(e, s, &at).map(|m| Pick::of(format!("{what} ({n} threads)"), e, m))
    })
    .collect()
}

/// The speedup of each variant at the most workers the machine's CPUs
/// allowed and the largest array, as parallel.average's sentence takes it.
fn speedup(e: &ExperimentResult) -> Vec<Pick> {
    let cpus = e.reading(&PAR_CPUS, &[]).unwrap_or(1.0);
    let all = || e.metrics.iter().filter(|m| m.name == SPEEDUP.name);
    let (Some(w), Some(n)) = (
        all()
            .filter_map(|m| m.label_num(WORKERS))
            .filter(|&w| w as f64 <= cpus)
            .max(),
        all().filter_map(|m| m.label_num(N)).max(),
    ) else {
        return Vec::new();
    };
    let (w, n) = (w.to_string(), n.to_string());
    [Par::Fork, Par::Threads, Par::Pool]
        .into_iter()
        .filter_map(|v| {
            let at = [(VARIANT, v.name()), (WORKERS, w.as_str()), (N, n.as_str())];
            let m = find(e, &SPEEDUP, &at)?;
            Some(Pick::of(format!("speedup, {} × {w}", v.name()), e, m))
        })
        .collect()
}

/// The seed's whole program, 2 forked processes against serial, at the
/// largest array, for each THP setting measured: as parallel.program's
/// Summary sentence takes it.
fn whole_program(e: &ExperimentResult) -> Vec<Pick> {
    let all = || e.metrics.iter().filter(|m| m.name == SPEEDUP.name);
    let Some(n) = all().filter_map(|m| m.label_num(N)).max() else {
        return Vec::new();
    };
    let n = n.to_string();
    let mut v: Vec<Pick> = all()
        .filter(|m| {
            m.label(VARIANT) == Some(Par::Fork.name())
                && m.label(WORKERS) == Some("2")
                && m.label(N) == Some(n.as_str())
        })
        .map(|m| {
            let thp = m.label(THP).unwrap_or("?");
            Pick::of(format!("the whole program, fork × 2, thp={thp}"), e, m)
        })
        .collect();
    v.sort_by(|a, b| a.name.cmp(&b.name));
    v
}

/// Every series the first run has and at least one other run has too
/// (`--all`), in the first run's order, after the Summary's.
pub fn shared_picks(runs: &[&RunResults], already: &[Pick]) -> Vec<Pick> {
    let Some((first, rest)) = runs.split_first() else {
        return Vec::new();
    };
    let mut v = Vec::new();
    for e in first
        .experiments
        .iter()
        .filter(|e| e.status == crate::results::Status::Ok)
    {
        for m in &e.metrics {
            let p = Pick::of(
                format!("{} {} {}", e.name, m.name, crate::results::case(m))
                    .trim()
                    .to_string(),
                e,
                m,
            );
            let dup = already.iter().any(|a| {
                a.slope_from.is_none()
                    && a.experiment == p.experiment
                    && a.metric == p.metric
                    && a.labels == p.labels
            });
            if !dup && rest.iter().any(|r| p.find(r).is_some()) {
                v.push(p);
            }
        }
    }
    v
}
