//! The terminal's grid: an experiment's series pivoted to one row per case
//! (its labels) and one column per metric, each cell a median with its
//! interval as ±X% and its mark ("246 µs ±2.1%", "20.8 µs ±19% !"), when
//! the metric × case structure allows it and the grid fits the width. No
//! cell is ever wrapped, so no token is split; a grid that does not fit is
//! not drawn (the table falls back to a row per series).

use crate::results::{case_of, ExperimentResult, Labels, Metric};
use crate::stats::compare_text::{plus_minus, reaches_zero};
use crate::units::fmt_value;

/// Columns between two columns of the grid.
const GAP: usize = 2;

/// What the figures of a grid are, under it.
pub const LEGEND: &str = "each figure is a median ±half its 95% interval over the median";

/// A figure as the terminal shows it, with its interval and its mark,
/// whatever its state: "246 µs ±2.1%", "156 µs ±12% ~", "20.8 µs ±19% !";
/// "4.00 KiB" for a single reading (no spread to show); "19.4 ns ±? !"
/// when the interval bounds nothing (it reaches zero).
pub fn cell(m: &Metric) -> String {
    let sm = &m.summary;
    let median = fmt_value(sm.median, m.unit);
    // A single reading: one computed number, with no spread to show.
    if sm.n <= 1 {
        return median;
    }
    let hw = sm.half_width();
    let pm = if reaches_zero(sm, m.unit) || !hw.is_finite() {
        "±?".to_string()
    } else {
        plus_minus(hw)
    };
    format!("{median} {pm}{}", m.summary.spaced_mark())
}

/// One row's label: the labels that vary between rows, as values only
/// when every row has the same keys and each value is one word ("fork
/// one_cpu" under "method placement"), else as `k=v`.
struct Rows {
    head: String,
    labels: Vec<String>,
    /// The labels every row shares ("placement=one_cpu"), said once.
    common: String,
}

fn rows_of(cases: &[Labels]) -> Rows {
    let all: Vec<Vec<(String, String)>> = cases
        .iter()
        .map(|l| l.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .collect();
    let common: Vec<(String, String)> = match all.first() {
        Some(first) if all.len() > 1 => first
            .iter()
            .filter(|p| all.iter().all(|r| r.contains(p)))
            .cloned()
            .collect(),
        _ => Vec::new(),
    };
    let varying: Vec<Vec<(String, String)>> = all
        .iter()
        .map(|r| r.iter().filter(|p| !common.contains(p)).cloned().collect())
        .collect();
    let keys = |r: &Vec<(String, String)>| r.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>();
    // Values alone read well when each is one word under the same keys.
    let same_keys = varying.windows(2).all(|w| keys(&w[0]) == keys(&w[1]));
    let one_word = varying.iter().flatten().all(|(_, v)| !v.contains(' '));
    let bare = same_keys && one_word && varying.first().is_some_and(|r| !r.is_empty());
    let (head, labels) = if bare {
        (
            keys(&varying[0]).join(" "),
            varying
                .iter()
                .map(|r| {
                    r.iter()
                        .map(|(_, v)| v.as_str())
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect(),
        )
    } else {
        (
            "case".to_string(),
            varying
                .iter()
                .map(|r| {
                    r.iter()
                        .map(|(k, v)| format!("{k}={v}"))
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect(),
        )
    };
    Rows {
        head,
        labels,
        common: common
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" "),
    }
}

/// A column's heading: the series' name without its unit suffix (each
/// cell shows its unit), words apart: `parent_return_ns` is "parent return".
pub fn heading(name: &str) -> String {
    const UNITS: &[&str] = &[
        "ns", "us", "ms", "s", "kib", "bytes", "pct", "mhz", "x", "per_s",
    ];
    let stem = UNITS
        .iter()
        .filter_map(|u| name.strip_suffix(&format!("_{u}")))
        .find(|s| !s.is_empty())
        .unwrap_or(name);
    stem.replace('_', " ")
}

/// The grid of `e`'s shown series (`verbose`: the detail series too), as
/// lines of at most `width` columns; None when the series do not pivot
/// (one metric, or no case with two metrics, or a case twice under one
/// metric) or the grid is wider than `width`.
pub fn grid(e: &ExperimentResult, verbose: bool, width: usize) -> Option<Vec<String>> {
    let shown: Vec<&Metric> = e.metrics.iter().filter(|m| verbose || !m.detail).collect();
    let mut names: Vec<&str> = Vec::new();
    let mut cases: Vec<Labels> = Vec::new();
    for m in &shown {
        if !names.contains(&m.name.as_str()) {
            names.push(&m.name);
        }
        let visible: Labels = m
            .labels
            .iter()
            .filter(|(k, _)| !crate::results::HIDDEN_LABELS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !cases.contains(&visible) {
            cases.push(visible);
        }
    }
    if names.len() < 2 || cases.len() >= shown.len() {
        return None;
    }
    let mut cells = vec![vec![String::new(); names.len()]; cases.len()];
    for m in &shown {
        let c = cases
            .iter()
            .position(|l| case_of(l) == crate::results::case(m))?;
        let n = names.iter().position(|n| *n == m.name)?;
        if !cells[c][n].is_empty() {
            return None;
        }
        cells[c][n] = cell(m);
    }
    let rows = rows_of(&cases);
    let w = |s: &str| s.chars().count();
    let label_w = rows
        .labels
        .iter()
        .map(|l| w(l))
        .chain([w(&rows.head)])
        .max()
        .unwrap_or(0);
    let head: Vec<String> = names.iter().map(|n| heading(n)).collect();
    let col_w: Vec<usize> = (0..names.len())
        .map(|n| {
            cells
                .iter()
                .map(|r| w(&r[n]))
                .chain([w(&head[n])])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let total = label_w + col_w.iter().map(|c| c + GAP).sum::<usize>();
    if total > width {
        return None;
    }
    let line = |label: &str, row: &[String]| -> String {
        let mut s = format!("{label:<label_w$}");
        for (c, cw) in row.iter().zip(&col_w) {
            s.push_str(&" ".repeat(GAP));
            s.push_str(&format!("{c:>cw$}"));
        }
        s.trim_end().to_string()
    };
    let mut out = Vec::new();
    if !rows.common.is_empty() {
        out.push(crate::units::wrap(
            &format!("every row: {}", rows.common),
            width,
            "",
            "  ",
        ));
    }
    out.push(line(&rows.head, &head));
    let rule: Vec<String> = col_w.iter().map(|c| "─".repeat(*c)).collect();
    out.push(line(&"─".repeat(label_w), &rule));
    for (label, row) in rows.labels.iter().zip(&cells) {
        out.push(line(label, row));
    }
    Some(out)
}

#[cfg(test)]
#[path = "grid_tests.rs"]
mod tests;
