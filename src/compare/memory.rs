//! The host's memory in a comparison (issue 37 item 4): the memory
//! canary's difference between the sides as an environment line
//! ([`memory_state`]), and what its shift adds to the memory-heavy rows
//! ([`MemoryCanary`]; the term itself: `stats::memstate`, per family:
//! `family::sensitivities`), and the same of the system call's canary
//! ([`MachineCanary`]).

use super::pool::Side;
use super::Row;
use crate::results::RunResults;
use serde::Serialize;

/// The memory canary of each side (the first touch of fresh memory per
/// 4 KiB page: the geometric mean of its runs' medians over every round)
/// and what its shift added to the rows of memory-heavy families
/// (`stats::memstate`).
#[derive(Debug, Clone, Serialize)]
pub struct MemoryCanary {
    pub base_ns: f64,
    pub new_ns: f64,
    /// The rows it widened (`memory_noise_pct` above 0), and the median of
    /// what it added to their standard deviation, in percent.
    pub rows: usize,
    pub median_pct: Option<f64>,
}

impl MemoryCanary {
    /// The sides' canaries and what the rows hold of their shift; None when
    /// a side lacks the canary.
    pub fn of(base: &Side, new: &Side, rows: &[Row]) -> Option<MemoryCanary> {
        let (b, n) = (base.memory_canary_ln?, new.memory_canary_ln?);
        let widened: Vec<f64> = rows
            .iter()
            .map(|r| r.memory_noise_pct)
            .filter(|x| x.is_finite() && *x > 0.0)
            .collect();
        Some(MemoryCanary {
            base_ns: b.exp(),
            new_ns: n.exp(),
            rows: widened.len(),
            median_pct: crate::stats::median(&widened),
        })
    }
}

/// The system call's canary of each side (the geometric mean of its runs'
/// medians over every round) and what its shift added to the rows of the
/// experiments whose rounds follow it (`stats::memstate::follows`).
#[derive(Debug, Clone, Serialize)]
pub struct MachineCanary {
    pub base_ns: f64,
    pub new_ns: f64,
    /// The rows it widened (`machine_noise_pct` above 0), the median of
    /// what it added to their standard deviation in percent, and their
    /// experiments.
    pub rows: usize,
    pub median_pct: Option<f64>,
    pub experiments: Vec<String>,
}

impl MachineCanary {
    /// The sides' canaries and what the rows hold of their shift; None when
    /// a side lacks the canary.
    pub fn of(base: &Side, new: &Side, rows: &[Row]) -> Option<MachineCanary> {
        let (b, n) = (base.syscall_canary_ln?, new.syscall_canary_ln?);
        let widened: Vec<&Row> = rows
            .iter()
            .filter(|r| r.machine_noise_pct.is_finite() && r.machine_noise_pct > 0.0)
            .collect();
        let pct: Vec<f64> = widened.iter().map(|r| r.machine_noise_pct).collect();
        let mut experiments: Vec<String> = widened.iter().map(|r| r.experiment.clone()).collect();
        experiments.sort();
        experiments.dedup();
        Some(MachineCanary {
            base_ns: b.exp(),
            new_ns: n.exp(),
            rows: widened.len(),
            median_pct: crate::stats::median(&pct),
            experiments,
        })
    }
}

/// The memory canary of every round of a side's runs, as environment
/// lines when the two sides differ: "the host's memory state" when
/// touching fresh memory cost more on one side (free page reporting: memory
/// the guest gave back costs a fault on the host again), "the guest's free
/// memory" when fresh pages came in physical order on one side and
/// scattered on the other. Each side's figure is the median of its rounds'
/// canaries (start and end) with its 95% interval; a line only when the
/// interval of the change lies wholly beyond what the rounds of a flagged
/// series must differ by to be named (`measure::explain::mode_covariate`):
/// a ratio beyond 20%, a share beyond 20 points.
pub fn memory_state(base: &[RunResults], new: &[RunResults]) -> Vec<(String, String, String)> {
    use crate::results::Canary;
    use crate::stats::contrast::{difference, ratio};
    use crate::stats::Summary;
    let of = |runs: &[RunResults], f: fn(&Canary) -> Option<f64>| {
        let v: Vec<f64> = runs
            .iter()
            .flat_map(|r| r.canaries())
            .filter_map(|c| f(&c))
            .filter(|x| x.is_finite())
            .collect();
        crate::stats::summarize(&v).ok()
    };
    type Line = (
        &'static str,
        fn(&Canary) -> Option<f64>,
        fn(&Summary, &Summary) -> bool,
        fn(f64) -> String,
    );
    let lines: [Line; 2] = [
        (
            "the host's memory state differed between the runs (touching fresh memory, per 4 KiB page)",
            |c| c.fresh_page(),
            |n, b| ratio(n, b).is_some_and(|r| r.lo > 1.2 || r.hi < 1.0 / 1.2),
            |x| crate::units::fmt_value(x, crate::units::Unit::Ns),
        ),
        (
            "the guest's free memory differed between the runs (fresh pages in physical order)",
            |c| c.fresh_in_order.map(|x| x * 100.0),
            |n, b| {
                let d = difference(n, b);
                d.lo > 20.0 || d.hi < -20.0
            },
            |x| format!("{x:.0}%"),
        ),
    ];
    lines
        .into_iter()
        .filter_map(|(what, f, apart, shown)| {
            let (b, n) = (of(base, f)?, of(new, f)?);
            apart(&n, &b).then(|| (what.to_string(), shown(b.median), shown(n.median)))
        })
        .chain(heap_in_a_row(base, new))
        .collect()
}

/// The sides' shares of spawn.heap's heap lying in a row in physical
/// memory, apart by at least this many points (and every run of one side
/// beyond every run of the other), make an environment line.
pub const HEAP_IN_A_ROW_APART_POINTS: f64 = 20.0;

/// spawn.heap's share of its heap's frames in a row as touched
/// (`frames_adjacent_pct`, `call=as_touched`) at the largest heap every
/// run of both sides read, as an environment line when the sides lie
/// apart ([`HEAP_IN_A_ROW_APART_POINTS`]): the same heap written the same
/// way forks up to twice as fast in a row as scattered (docs/REPEATABILITY.md,
/// session 21). Each side's figure is the median of its runs'. None when a
/// run has no such reading (an older file, a run not as root).
pub fn heap_in_a_row(base: &[RunResults], new: &[RunResults]) -> Option<(String, String, String)> {
    use crate::experiments::spawn::heap::{as_touched_shares, BASE_THP, EXPERIMENT};
    use std::collections::BTreeMap;
    // Each run's share by heap size, at thp=system.
    let shares = |r: &RunResults| -> BTreeMap<u64, f64> {
        r.experiments
            .iter()
            .find(|e| e.name == EXPERIMENT.name)
            .map(|e| as_touched_shares(e, BASE_THP))
            .unwrap_or_default()
    };
    let (b, n): (Vec<_>, Vec<_>) = (
        base.iter().map(shares).collect(),
        new.iter().map(shares).collect(),
    );
    let all: Vec<&BTreeMap<u64, f64>> = b.iter().chain(&n).collect();
    let heap = *all
        .first()?
        .keys()
        .rev()
        .find(|h| all.iter().all(|m| m.contains_key(h)))?;
    let at = |side: &[BTreeMap<u64, f64>]| -> Vec<f64> { side.iter().map(|m| m[&heap]).collect() };
    let (bv, nv) = (at(&b), at(&n));
    let (bm, nm) = (crate::stats::median(&bv)?, crate::stats::median(&nv)?);
    let max = |v: &[f64]| v.iter().copied().fold(f64::MIN, f64::max);
    let min = |v: &[f64]| v.iter().copied().fold(f64::MAX, f64::min);
    let apart = (nm - bm).abs() >= HEAP_IN_A_ROW_APART_POINTS
        && (min(&nv) > max(&bv) || min(&bv) > max(&nv));
    apart.then(|| {
        (
            format!(
                "spawn.heap's {} heap lay in a row differently (its pages in runs of {} or more frames next to each other, as the free lists gave them: how the heap lies moves fork's cost from run to run, and this share alone does not set it)",
                crate::units::fmt_size(heap),
                crate::sys::procfs::RUN_MIN_PAGES
            ),
            format!("{bm:.0}%"),
            format!("{nm:.0}%"),
        )
    })
}
