use super::*;
use crate::experiments::testing::{near, result, unsettled};

fn noisy(mut m: Metric) -> Metric {
    m.summary.noisy = true;
    m
}

#[test]
fn every_figure_carries_its_interval_and_its_mark() {
    assert_eq!(cell(&near("a", &[], 1000.0, 5.0)), "1.00 µs ±5.0%");
    assert_eq!(cell(&noisy(near("a", &[], 1000.0, 20.0))), "1.00 µs ±20% ~");
    // A flagged series shows its median and interval, marked: never
    // replaced by words.
    assert_eq!(
        cell(&unsettled(near("a", &[], 1000.0, 30.0))),
        "1.00 µs ±30% !"
    );
    // An interval that reaches zero bounds nothing: said, not hidden.
    let mut zero = near("a", &[], 1000.0, 5.0);
    zero.summary.ci95_lo = -10.0;
    assert_eq!(cell(&zero), "1.00 µs ±?");
}

fn methods() -> ExperimentResult {
    let mut ms = Vec::new();
    for (method, base) in [("fork", 100_000.0), ("fork_exec_dynamic", 800_000.0)] {
        for (i, name) in ["lifecycle_ns", "parent_return_ns", "child_start_ns"]
            .iter()
            .enumerate()
        {
            let l = [("method", method), ("placement", "one_cpu")];
            ms.push(near(name, &l, base / (i + 1) as f64, 4.0));
        }
    }
    result(ms)
}

#[test]
fn methods_pivot_to_a_method_by_metric_grid() {
    let lines = grid(&methods(), false, 80).expect("a grid at 80 columns");
    // The label every row shares is said once, the others name the rows.
    assert_eq!(lines[0], "every row: placement=one_cpu");
    assert!(lines[1].starts_with("method "), "{}", lines[1]);
    for name in ["lifecycle", "parent return", "child start"] {
        assert!(lines[1].contains(name), "{}", lines[1]);
    }
    let fork = lines.iter().find(|l| l.starts_with("fork ")).unwrap();
    assert_eq!(fork.matches('±').count(), 3, "{fork}");
    for l in &lines {
        assert!(l.chars().count() <= 80, "{l}");
    }
}

#[test]
fn a_grid_too_wide_is_not_drawn() {
    assert!(grid(&methods(), false, 40).is_none());
}

#[test]
fn one_metric_or_nothing_to_pivot_gives_no_grid() {
    let one = result(vec![
        near("call_ns", &[("clock", "a")], 20.0, 3.0),
        near("call_ns", &[("clock", "b")], 20.0, 3.0),
    ]);
    assert!(grid(&one, false, 200).is_none());
    // Every series its own case: a grid would be a diagonal.
    let diagonal = result(vec![
        near("a_ns", &[("x", "1")], 20.0, 3.0),
        near("b_ns", &[("x", "2")], 20.0, 3.0),
    ]);
    assert!(grid(&diagonal, false, 200).is_none());
}

#[test]
fn a_heading_is_the_name_without_its_unit() {
    assert_eq!(heading("parent_return_ns"), "parent return");
    assert_eq!(heading("rss_per_thread_kib"), "rss per thread");
    assert_eq!(heading("speedup"), "speedup");
    assert_eq!(heading("ns"), "ns");
}
