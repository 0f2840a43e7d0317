//! The placement between the layouts measured: on the line either side,
//! never beyond them, and the prediction that says where it lies.

use super::*;
use crate::predict::model::Process;
use crate::predict::model::{predict, ColdFork, Slopes};
use crate::predict::render;
use crate::predict::tests::{process, with_cold};

fn range(median: f64, lo: f64, hi: f64) -> Range {
    Range { median, lo, hi }
}

fn shares(pte: f64, touched: f64, scattered: Option<f64>, contiguous: Option<f64>) -> FrameShares {
    FrameShares {
        pte,
        touched,
        scattered,
        contiguous,
    }
}

#[test]
fn placement_is_on_the_line_between_the_layouts_either_side() {
    let touched = vec![
        (10.0, range(1.0, 0.9, 1.1)),
        (100.0, range(10.0, 9.0, 11.0)),
    ];
    let scattered = vec![(100.0, range(20.0, 18.0, 22.0))];
    let contiguous = vec![(100.0, range(6.0, 5.0, 7.0))];
    // As touched, 50% of pages in runs: the line from the scattered (0%)
    // to the contiguous (100%) gives 13 there, outside its [9, 11]: the
    // touched heap is a point of its own.
    let off = vec![shares(100.0, 50.0, Some(0.0), Some(100.0))];
    let at = |sh: &[FrameShares], pct| placed(&touched, &scattered, &contiguous, sh, pct).unwrap();
    // A heap not measured in other layouts (no pages: heap 0) is left as it is.
    for pct in [0.0, 30.0, 100.0] {
        assert_eq!(at(&off, pct).0[0], touched[0]);
    }
    // At each layout's own share, its figures.
    assert_eq!(at(&off, 0.0).0[1].1, scattered[0].1);
    assert_eq!(at(&off, 50.0).0[1].1, touched[1].1);
    assert_eq!(at(&off, 100.0).0[1].1, contiguous[0].1);
    // Between two: on the straight line, each end alike.
    let (v, how) = at(&off, 25.0);
    assert_eq!(v[1].1, range(15.0, 13.5, 16.5));
    assert_eq!(how.outside, None);
    assert_eq!(
        (how.touched_pct, how.scattered_pct, how.contiguous_pct),
        (50.0, Some(0.0), Some(100.0))
    );
    let (v, _) = at(&off, 75.0);
    assert_eq!(v[1].1, range(8.0, 7.0, 9.0));
    // As touched at 70%: the line gives 10.2 there, inside its [9, 11]:
    // the line stands, and the touched heap adds no point.
    let on = vec![shares(100.0, 70.0, Some(0.0), Some(100.0))];
    let near = |a: Range, b: Range| {
        let d = (a.median - b.median).abs() + (a.lo - b.lo).abs() + (a.hi - b.hi).abs();
        assert!(d < 1e-9, "{a:?} against {b:?}");
    };
    near(at(&on, 70.0).0[1].1, range(10.2, 8.9, 11.5));
    near(at(&on, 50.0).0[1].1, range(13.0, 11.5, 14.5));
}

#[test]
fn placement_never_extrapolates_beyond_the_layouts_and_says_so() {
    let touched = vec![(100.0, range(10.0, 9.0, 11.0))];
    let scattered = vec![(100.0, range(20.0, 18.0, 22.0))];
    let contiguous = vec![(100.0, range(6.0, 5.0, 7.0))];
    let sh = vec![shares(100.0, 50.0, Some(4.0), Some(96.0))];
    let at = |pct| placed(&touched, &scattered, &contiguous, &sh, pct).unwrap();
    let (v, how) = at(99.0);
    assert_eq!(
        (v[0].1, how.outside),
        (contiguous[0].1, Some(Outside::MoreContiguous))
    );
    let (v, how) = at(1.0);
    assert_eq!(
        (v[0].1, how.outside),
        (scattered[0].1, Some(Outside::MoreScattered))
    );
    assert_eq!(at(96.0).1.outside, None);
    // Without the contiguous layout (an older run), the touched heap is
    // the most contiguous measured: beyond it, said so.
    let (v, how) = placed(&touched, &scattered, &[], &sh, 80.0).unwrap();
    assert_eq!(
        (v[0].1, how.outside),
        (touched[0].1, Some(Outside::MoreContiguous))
    );
    assert_eq!(how.contiguous_pct, None);
    // Two layouts too close to tell apart: one point, nothing placed.
    let close = vec![shares(100.0, 7.0, Some(4.0), None)];
    assert!(placed(&touched, &scattered, &[], &close, 0.0).is_none());
    // No heap measured in another layout: no placement.
    assert!(placed(&touched, &[], &[], &[], 30.0).is_none());
}

/// The cold fixture measured again with each heap's pages scattered (none
/// in runs: twice the cold figures) and in a row (all in runs: 0.4 times
/// them), at the heaps with pages; 60% of the heaps' pages in runs as
/// touched, where the line between the two (1.04 times) lies inside the
/// touched heaps' intervals (0.9 to 1.1 times): the line stands.
fn with_layouts() -> Slopes {
    let c = with_cold();
    let times = |k: f64, v: &[(f64, Range)]| -> Vec<(f64, Range)> {
        v.iter()
            .filter(|(x, _)| *x > 100.0)
            .map(|&(x, r)| {
                (
                    x,
                    Range {
                        median: k * r.median,
                        lo: k * r.lo,
                        hi: k * r.hi,
                    },
                )
            })
            .collect()
    };
    let shares = |pte| FrameShares {
        pte,
        touched: 60.0,
        scattered: Some(0.0),
        contiguous: Some(100.0),
    };
    Slopes {
        fork_scattered: times(2.0, &c.fork_paused),
        fork_scattered_single: times(2.0, &c.fork_paused_single),
        fork_contiguous: times(0.4, &c.fork_paused),
        fork_contiguous_single: times(0.4, &c.fork_paused_single),
        frames_adjacent: vec![shares(1_000.0), shares(8_000.0)],
        ..c
    }
}

#[test]
fn the_cold_fork_is_placed_by_the_processs_pages_in_physical_memory() {
    let s = with_layouts();
    let at = |pct: Option<f64>| {
        let p = Process {
            frames_adjacent_pct: pct,
            ..process(4_000)
        };
        predict(&s, &p, 10.0).unwrap().cold_fork.unwrap()
    };
    let hidden = at(None);
    let (contiguous, as_touched, scattered) = (at(Some(100.0)), at(Some(60.0)), at(Some(0.0)));
    // Frames hidden: the worker's own placement, unplaced.
    assert!(hidden.frames.is_none());
    assert_eq!(
        hidden.parent_return_ns,
        predict(&with_cold(), &process(4_000), 10.0)
            .unwrap()
            .cold_fork
            .unwrap()
            .parent_return_ns
    );
    // More scattered: dearer, the median and both ends, single forks too.
    for (a, b) in [(&contiguous, &as_touched), (&as_touched, &scattered)] {
        let (x, y) = (a.parent_return_ns, b.parent_return_ns);
        assert!(
            x.median < y.median && x.lo < y.lo && x.hi < y.hi,
            "{x:?} {y:?}"
        );
        assert!(a.single_fork_ns.p90 < b.single_fork_ns.p90);
    }
    // At the layouts' own shares, their figures: 0.4 and 2 times the
    // unplaced ones (the heap of 4,000 KiB is between two heaps placed).
    let mid = |c: &ColdFork| c.parent_return_ns.median;
    let close = |a: f64, b: f64| (a - b).abs() < 1e-6 * b;
    assert!(close(mid(&contiguous), 0.4 * mid(&hidden)));
    assert!(close(mid(&scattered), 2.0 * mid(&hidden)));
    // At the touched heaps' share the line stands (their intervals hold
    // it): 1.04 times, not the touched heaps' own figure.
    assert!(close(mid(&as_touched), 1.04 * mid(&hidden)));
    let f = as_touched.frames.unwrap();
    assert_eq!(
        (
            f.process_pct,
            f.touched_pct,
            f.scattered_pct,
            f.contiguous_pct
        ),
        (60.0, 60.0, Some(0.0), Some(100.0))
    );
    assert_eq!(f.outside, None);
    // The warm figures are not placed.
    let p = Process {
        frames_adjacent_pct: Some(0.0),
        ..process(4_000)
    };
    assert_eq!(
        predict(&s, &p, 10.0).unwrap().parent_return_ns,
        predict(&s, &process(4_000), 10.0).unwrap().parent_return_ns
    );
}

#[test]
fn a_process_beyond_the_layouts_measured_is_priced_as_the_nearest_and_told_so() {
    // The contiguous heaps got 95% of their pages in runs, the scattered
    // 3%: a process at 99% or 1% lies outside them.
    let mut s = with_layouts();
    for f in &mut s.frames_adjacent {
        (f.scattered, f.contiguous) = (Some(3.0), Some(95.0));
    }
    let at = |pct: f64| {
        let p = Process {
            frames_adjacent_pct: Some(pct),
            ..process(4_000)
        };
        let pred = predict(&s, &p, 10.0).unwrap();
        (pred.cold_fork.unwrap(), render(&p, &pred, "a short run"))
    };
    let ((beyond, text), (edge, _)) = (at(99.0), at(95.0));
    assert_eq!(
        beyond.frames.unwrap().outside,
        Some(Outside::MoreContiguous)
    );
    assert_eq!(beyond.parent_return_ns, edge.parent_return_ns);
    assert!(
        text.contains("more in a row than the most contiguous heap measured: priced as that heap, not extrapolated"),
        "{text}"
    );
    let ((below, text), (edge, _)) = (at(1.0), at(3.0));
    assert_eq!(below.frames.unwrap().outside, Some(Outside::MoreScattered));
    assert_eq!(below.parent_return_ns, edge.parent_return_ns);
    assert!(
        text.contains("more scattered than the most scattered heap measured"),
        "{text}"
    );
    // Between them: nothing said of lying outside.
    let (_, text) = at(50.0);
    assert!(
        text.contains("on the line between the two layouts either side of its share"),
        "{text}"
    );
    // Slopes with no layouts to place by (an older results file): the
    // output says the cold figures are the heaps' as touched, and why.
    let p = Process {
        frames_adjacent_pct: Some(50.0),
        ..process(4_000)
    };
    let pred = predict(&with_cold(), &p, 10.0).unwrap();
    assert!(pred.cold_fork.unwrap().frames.is_none());
    assert!(render(&p, &pred, "x").contains("not placed by its pages in physical memory"));
}

#[test]
fn near_pages_count_in_a_row_by_how_full_their_blocks_are() {
    // At the knots, their shares; between two, on the line; outside 0 to
    // 1, clamped.
    for (fill, share) in NEAR_IN_ROW {
        assert_eq!(near_in_row(fill), share);
    }
    let ((x0, y0), (x1, y1)) = (NEAR_IN_ROW[2], NEAR_IN_ROW[3]);
    let mid = near_in_row((x0 + x1) / 2.0);
    assert!((mid - (y0 + y1) / 2.0).abs() < 1e-12, "{mid}");
    assert_eq!(near_in_row(-1.0), 0.0);
    assert_eq!(near_in_row(2.0), NEAR_IN_ROW[NEAR_IN_ROW.len() - 1].1);
    // A block holding 8 of its 512 frames or fewer: none of it in a row.
    assert_eq!(near_in_row(8.0 / 512.0), 0.0);
    // Never falling with the fill.
    let mut last = 0.0;
    for k in 0..=512 {
        let s = near_in_row(k as f64 / 512.0);
        assert!(s >= last, "{k}");
        last = s;
    }
    // 1,000 resident pages: 100 near in full blocks (each counted whole
    // in a row) and 100 in blocks holding 8 of their 512 frames (each as
    // the line says at 8/512).
    let mut by = vec![0u64; 513];
    by[512] = 100;
    by[8] = 100;
    let (in_row, fill) = near_shares(&by, 1_000);
    let want = 100.0 * (100.0 * near_in_row(1.0) + 100.0 * near_in_row(8.0 / 512.0)) / 1_000.0;
    assert_eq!(in_row, Some(want));
    assert_eq!(fill, Some(100.0 * (100.0 + 100.0 * 8.0 / 512.0) / 200.0));
    // Nothing resident: nothing said; none near: nothing more in a row.
    assert_eq!(near_shares(&by, 0), (None, None));
    assert_eq!(near_shares(&[], 10), (Some(0.0), None));
}

#[test]
fn the_near_pages_counted_in_a_row_move_the_placement() {
    let s = with_layouts();
    let at = |runs: f64, near_in_row: Option<f64>| {
        let p = Process {
            frames_adjacent_pct: Some(runs),
            frames_near_in_row_pct: near_in_row,
            ..process(4_000)
        };
        let c = predict(&s, &p, 10.0).unwrap().cold_fork.unwrap();
        (c.parent_return_ns, c.frames.unwrap().process_pct)
    };
    // 30% in runs and 20% counted from near pages: placed as 50% in runs.
    let (mixed, pct) = at(30.0, Some(20.0));
    assert_eq!(pct, 50.0);
    assert_eq!(mixed, at(50.0, None).0);
    // Cheaper than its runs alone; never past 100%.
    assert!(mixed.median < at(30.0, None).0.median);
    assert_eq!(at(90.0, Some(30.0)).1, 100.0);
    // Hidden frames: nothing placed, whatever the near part says.
    let p = Process {
        frames_adjacent_pct: None,
        frames_near_in_row_pct: Some(20.0),
        ..process(4_000)
    };
    assert!(predict(&s, &p, 10.0)
        .unwrap()
        .cold_fork
        .unwrap()
        .frames
        .is_none());
}
