//! The cold fork placed by the process's pages in physical memory: its
//! share of pages in runs of frames next to each other against the same
//! share of the worker's heaps in each layout their forks after a pause
//! were timed in (as touched, scattered, contiguous), on the straight line
//! between the two layouts either side, never beyond them; its pages near
//! each other outside runs counted in a row by how full their blocks of
//! frames are ([`NEAR_IN_ROW`]).

use super::range::{between, Range};
use crate::experiments::spawn::heap::{
    CONTIGUOUS_CALL, CONTIGUOUS_PARAM, FRAMES_ADJACENT_PCT, PAUSED_CALL, SCATTERED_CALL,
};
use crate::measure::rss::VM_PTE_KIB;
use crate::metric::key::{CALL, HEAP, THP};
use crate::results::ExperimentResult;
use serde::Serialize;

/// A heap's share of frames next to the page before's (percent) in each
/// layout its forks after a pause were timed in.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameShares {
    /// The heap's page tables, VmPTE KiB: which heap.
    pub pte: f64,
    pub touched: f64,
    pub scattered: Option<f64>,
    pub contiguous: Option<f64>,
}

/// Each heap's [`FrameShares`], smallest first: only from a run that
/// measured the contiguous layout (`-p contiguous=true`), whose shares
/// count frames next to each other either way; an older run's counted only
/// ascending ones, which a process's share read now cannot be held against.
pub(super) fn frame_shares(heap: &ExperimentResult, base: &str) -> Vec<FrameShares> {
    let measured = heap
        .params
        .get(CONTIGUOUS_PARAM.spec.name)
        .and_then(|v| v.as_bool());
    if measured != Some(true) {
        return Vec::new();
    }
    let mut v: Vec<FrameShares> = heap
        .readings
        .iter()
        .filter(|r| r.name == FRAMES_ADJACENT_PCT.name)
        .filter(|r| r.labels.get(CALL).map(String::as_str) == Some(PAUSED_CALL))
        .filter_map(|r| {
            let h = r.labels.get(HEAP)?;
            let at = |call| {
                heap.reading(
                    &FRAMES_ADJACENT_PCT,
                    &[(HEAP, h.as_str()), (THP, base), (CALL, call)],
                )
            };
            Some(FrameShares {
                pte: heap.reading(&VM_PTE_KIB, &[(HEAP, h.as_str()), (THP, base)])?,
                touched: r.value,
                scattered: at(SCATTERED_CALL),
                contiguous: at(CONTIGUOUS_CALL),
            })
        })
        .collect();
    v.sort_by(|a, b| a.pte.total_cmp(&b.pte));
    v
}

/// The process's pages against the worker's in physical memory.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Placement {
    /// The share of frames next to the page before's, percent: the
    /// process's, and the worker's heaps' in each layout (the mean over
    /// the heaps placed; None where no heap was measured so).
    pub process_pct: f64,
    pub touched_pct: f64,
    pub scattered_pct: Option<f64>,
    pub contiguous_pct: Option<f64>,
    /// Where the process lies outside every layout measured (then priced
    /// as the nearest, not extrapolated); None when it lies between.
    pub outside: Option<Outside>,
}

/// A process beyond the layouts measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outside {
    MoreContiguous,
    MoreScattered,
}

/// Two layouts' shares closer than this (points) are not told apart: the
/// one not chosen by the run (the heap as touched) is left out.
const SHARES_APART: f64 = 5.0;

/// The cold series placed for a process with `process_pct` percent of its
/// frames next to the page before's: at each heap, the layouts measured
/// there are points on the share, and the figure (median and ends alike)
/// is on the straight line between the two either side of the process's
/// share. The points are the scattered and the contiguous layouts (laid
/// out by the run, the same in every round), and the heap as touched only
/// where its share is more than [`SHARES_APART`] from theirs and the line
/// between them misses it (its interval does not hold the line's median
/// at its share): where the line holds it, the touched heap, whose share
/// and forks vary with the free lists from round to round, confirms the
/// line and adds no point. Outside them all it is the nearest
/// layout's, and [`Placement::outside`] says so: never extrapolated. A
/// heap with fewer than two layouts apart is left as touched. None when no
/// heap was placed.
pub fn placed(
    touched: &[(f64, Range)],
    scattered: &[(f64, Range)],
    contiguous: &[(f64, Range)],
    shares: &[FrameShares],
    process_pct: f64,
) -> Option<(Vec<(f64, Range)>, Placement)> {
    let mut outside = None;
    let (mut n, mut t_sum) = (0.0, 0.0);
    let (mut s_sum, mut c_sum) = ((0.0, 0.0), (0.0, 0.0));
    let at = |v: &[(f64, Range)], x: f64| v.iter().find(|(p, _)| *p == x).map(|(_, r)| *r);
    let v = touched
        .iter()
        .map(|&(x, t)| {
            let Some(sh) = shares.iter().find(|f| f.pte == x) else {
                return (x, t);
            };
            let (sc, co) = (
                sh.scattered.zip(at(scattered, x)),
                sh.contiguous.zip(at(contiguous, x)),
            );
            // The layouts the run laid out itself first; the heap as
            // touched, where the free lists put it (its share differs from
            // round to round, and so its forks), only where it adds a share
            // of its own and the line between those two misses it.
            let mut knots: Vec<(f64, Range)> = Vec::new();
            for (a, r) in [sc, co].into_iter().flatten() {
                if knots.iter().all(|(k, _)| (k - a).abs() > SHARES_APART) {
                    knots.push((a, r));
                }
            }
            knots.sort_by(|a, b| a.0.total_cmp(&b.0));
            let apart = knots
                .iter()
                .all(|(k, _)| (k - sh.touched).abs() > SHARES_APART);
            let on_line = knots.len() == 2
                && (knots[0].0..=knots[1].0).contains(&sh.touched)
                && between(&knots, sh.touched).is_some_and(|l| (t.lo..=t.hi).contains(&l.median));
            if apart && !on_line {
                knots.push((sh.touched, t));
            }
            if knots.len() < 2 {
                return (x, t);
            }
            knots.sort_by(|a, b| a.0.total_cmp(&b.0));
            n += 1.0;
            t_sum += sh.touched;
            if let Some((a, _)) = sc {
                s_sum = (s_sum.0 + a, s_sum.1 + 1.0);
            }
            if let Some((a, _)) = co {
                c_sum = (c_sum.0 + a, c_sum.1 + 1.0);
            }
            let (first, last) = (knots[0].0, knots[knots.len() - 1].0);
            if process_pct < first {
                outside = Some(Outside::MoreScattered);
            } else if process_pct > last {
                outside = Some(Outside::MoreContiguous);
            }
            (
                x,
                between(&knots, process_pct.clamp(first, last)).unwrap_or(t),
            )
        })
        .collect();
    let mean = |(sum, k): (f64, f64)| (k > 0.0).then(|| sum / k);
    (n > 0.0).then(|| {
        (
            v,
            Placement {
                process_pct,
                touched_pct: t_sum / n,
                scattered_pct: mean(s_sum),
                contiguous_pct: mean(c_sum),
                outside,
            },
        )
    })
}

/// How much of a page in a row a near page costs fork as, by how full
/// its block of 512 frames (2 MiB) is with the process's resident pages:
/// (fill, share counted in a row), on the straight line between these.
/// Measured with a plain C process (docs/PREDICT.md, *Near pages in a
/// mix*): 256 MiB whose pages all lie near each other, each block's pages
/// visited one after another in a shuffled order, the blocks holding 8,
/// 32, 128, 256, 384 or 512 of the heap's pages, each layout's cold fork
/// placed between the same heap scattered and in a row (the medians
/// pooled over two calls): blocks of 8 forked as scattered pages, full
/// ones nearly as pages in a row.
pub const NEAR_IN_ROW: [(f64, f64); 7] = [
    (0.0, 0.0),
    (8.0 / 512.0, 0.0),
    (32.0 / 512.0, 0.12),
    (128.0 / 512.0, 0.47),
    (256.0 / 512.0, 0.71),
    (384.0 / 512.0, 0.89),
    (1.0, 0.96),
];

/// [`NEAR_IN_ROW`] at `fill` (0 to 1): the share of a page in a row a
/// near page in a block that full costs as.
pub fn near_in_row(fill: f64) -> f64 {
    let fill = fill.clamp(0.0, 1.0);
    NEAR_IN_ROW
        .windows(2)
        .find(|w| fill <= w[1].0)
        .map(|w| {
            let ((x0, y0), (x1, y1)) = (w[0], w[1]);
            if fill == x1 {
                y1
            } else {
                y0 + (y1 - y0) * (fill - x0) / (x1 - x0)
            }
        })
        .unwrap_or(NEAR_IN_ROW[NEAR_IN_ROW.len() - 1].1)
}

/// From the near pages by their block's fill (`procfs::Adjacency::near_by_fill`:
/// at index k, those whose block of 512 frames holds k of the process's
/// resident pages) and the resident pages: the near pages counted in a
/// row ([`near_in_row`]), percent of the resident pages, and their blocks'
/// mean fill, percent. (None, None) when no page was resident; (Some(0),
/// None) when none was near.
pub fn near_shares(near_by_fill: &[u64], resident: u64) -> (Option<f64>, Option<f64>) {
    if resident == 0 {
        return (None, None);
    }
    let frames = (near_by_fill.len().max(2) - 1) as f64;
    let (mut near, mut in_row, mut fill) = (0.0, 0.0, 0.0);
    for (k, &n) in near_by_fill.iter().enumerate() {
        let f = k as f64 / frames;
        near += n as f64;
        in_row += n as f64 * near_in_row(f);
        fill += n as f64 * f;
    }
    (
        Some(100.0 * in_row / resident as f64),
        (near > 0.0).then(|| 100.0 * fill / near),
    )
}

#[cfg(test)]
#[path = "placement_tests.rs"]
mod tests;
