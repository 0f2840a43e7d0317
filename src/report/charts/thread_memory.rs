//! memory.threads's chart: Bendersky's 10,000 threads (≈ 80 GiB virtual,
//! ≈ 80 MiB resident), as three panels of memory against thread count, one
//! line per stack variant, on log memory axes (8 KiB a thread stays visible
//! beside 8 MiB), each line labelled with its per-thread slope, the default
//! stack drawn last and thickest.

use super::style::{
    chart, color, dot, end_labels, entry, framed, log_range, log_ticks, mesh_style, solid,
    solid_runs, EndLabel, Mark, FONT, H, HOLLOW, TEXT,
};
use crate::experiments::memory::threads_findings::{
    DEFAULT, KERNEL_STACK_PER_THREAD_KIB, PAGE_TABLES_PER_THREAD_BYTES, RSS_EXACT_GROWTH_KIB,
    STACK, VM_SIZE_GROWTH_KIB,
};
use crate::metric::key::{THREADS, VARIANT};
use crate::report::doc::Chart;
use crate::results::ExperimentResult;
use crate::units::{fmt_short_size, group_digits};
use plotters::prelude::*;
use std::collections::BTreeMap;

/// (median, CI low, CI high, 1 when a part of it is imprecise or
/// flagged) in bytes, per panel: virtual, resident, kernel.
type Cell = [[f64; 4]; 3];

/// Three panels (virtual, resident, kernel) of memory against thread count,
/// one line per stack variant.
pub(super) fn draw(e: &ExperimentResult) -> anyhow::Result<Option<Chart>> {
    // variant -> threads -> cell
    let mut data: BTreeMap<String, BTreeMap<u64, Cell>> = BTreeMap::new();
    let mut variants: Vec<String> = Vec::new();
    // Every point, flagged or imprecise ones drawn hollow, not left out.
    for m in &e.metrics {
        let (Some(v), Some(n)) = (m.label(VARIANT), m.label_num(THREADS)) else {
            continue;
        };
        // (panel, bytes per unit of the figure)
        let (panel, scale) = match &m.name {
            x if *x == VM_SIZE_GROWTH_KIB.name => (0, 1024.0),
            x if *x == RSS_EXACT_GROWTH_KIB.name => (1, 1024.0),
            x if *x == KERNEL_STACK_PER_THREAD_KIB.name => (2, 1024.0 * n as f64),
            x if *x == PAGE_TABLES_PER_THREAD_BYTES.name => (2, n as f64),
            _ => continue,
        };
        if !variants.iter().any(|x| x == v) {
            variants.push(v.into());
        }
        let cell = data.entry(v.into()).or_default().entry(n).or_default();
        let s = &m.summary;
        for (k, x) in [s.median, s.ci95_lo, s.ci95_hi].into_iter().enumerate() {
            cell[panel][k] += x * scale;
        }
        if !solid(s) {
            cell[panel][3] = 1.0;
        }
    }
    if data.is_empty() {
        return Ok(None);
    }
    // The default stack last, drawn over the others.
    variants.sort_by_key(|v| v == DEFAULT.name);
    let nmax = data
        .values()
        .flat_map(|d| d.keys())
        .copied()
        .max()
        .unwrap_or(1) as f64;
    let stack_of = |v: &str| {
        e.metrics
            .iter()
            .find(|m| m.label(VARIANT) == Some(v))
            .and_then(|m| m.label(STACK))
            .map(|s| format!("{v} ({s} stack)"))
            .unwrap_or_else(|| v.to_string())
    };
    let panels = ["virtual (VmSize)", "resident (RSS)", "kernel"];
    let text = framed(
        "Thread memory vs thread count, by stack variant",
        H,
        |root| {
            let areas = root.split_evenly((1, 3));
            for (p, area) in areas.iter().enumerate() {
                let Some(y) = log_range(
                    data.values()
                        .flat_map(|d| d.values())
                        .flat_map(|c| c[p].into_iter()),
                ) else {
                    continue;
                };
                let mut c = ChartBuilder::on(area)
                    .caption(panels[p], (FONT, TEXT))
                    .margin(8)
                    .margin_right(80)
                    .x_label_area_size(44)
                    .y_label_area_size(66)
                    .build_cartesian_2d(
                        0.0..nmax * 1.05,
                        y.clone()
                            .log_scale()
                            .base(2.0)
                            .with_key_points(log_ticks(&y, 2.0)),
                    )?;
                let mut mesh = c.configure_mesh();
                mesh.x_desc("threads")
                    .x_labels(2)
                    .x_label_formatter(&|v| group_digits(v.round() as i64))
                    .y_label_formatter(&|v| fmt_short_size(*v));
                mesh_style(&mut mesh).draw()?;
                let mut names = Vec::new();
                for v in &variants {
                    let i = variants_order(&data, v);
                    let col = color(i);
                    let width = if v == DEFAULT.name { 4 } else { 2 };
                    let pts: Vec<(f64, [f64; 4])> = data[v]
                        .iter()
                        .map(|(n, cell)| (*n as f64, cell[p]))
                        .filter(|(_, c)| c[0] > 0.0)
                        .collect();
                    let Some(&(nl, last)) = pts.last() else {
                        continue;
                    };
                    let marked: Vec<((f64, f64), bool)> =
                        pts.iter().map(|(n, c)| ((*n, c[0]), c[3] == 0.0)).collect();
                    for line in solid_runs(&marked) {
                        c.draw_series(LineSeries::new(line, col.stroke_width(width)))?;
                    }
                    c.draw_series(marked.iter().map(|&(at, ok)| dot(at, 3, col, ok)))?;
                    c.draw_series(pts.iter().filter(|(_, c)| c[1] > 0.0).map(|(n, c)| {
                        PathElement::new(vec![(*n, c[1]), (*n, c[2])], col.stroke_width(1))
                    }))?;
                    // The slope between the fewest and the most threads.
                    let (n0, first) = pts[0];
                    let slope = if nl > n0 {
                        (last[0] - first[0]) / (nl - n0)
                    } else {
                        last[0] / nl
                    };
                    names.push(EndLabel {
                        at: c.backend_coord(&(nl, last[0])),
                        text: format!("{}/thr", signed_size(slope)),
                        color: col,
                    });
                }
                end_labels(root, names, c.plotting_area().get_pixel_range().1)?;
            }
            let mut legend: Vec<_> = variants
                .iter()
                .map(|v| entry(stack_of(v), color(variants_order(&data, v)), Mark::Line))
                .collect();
            if data
                .values()
                .flat_map(|d| d.values())
                .any(|c| c.iter().any(|p| p[3] != 0.0))
            {
                legend.push(entry(HOLLOW, BLACK, Mark::Hollow));
            }
            Ok(legend)
        },
    )?;
    Ok(Some(chart("Thread memory vs thread count", "What N blocked threads add to the process, on log memory axes: address space reserved (mostly stacks, virtual until used), memory resident (the exact count from smaps_rollup), and the kernel's own share outside both (its stack and page tables per thread). Each line is labelled with its slope per thread (thr) between the fewest and the most threads; the default stack, the headline, is drawn last and thickest. Medians of independent rounds with their 95% intervals; a point that is imprecise (~) or flagged (!) is drawn hollow and no line joins it.", text)))
}

/// A variant's colour index: its place in the results' (sorted) order, so
/// a colour does not change when the drawing order does.
fn variants_order(data: &BTreeMap<String, BTreeMap<u64, Cell>>, v: &str) -> usize {
    data.keys().position(|k| k == v).unwrap_or(0)
}

/// A slope in bytes, its sign kept (a series may shrink as threads are
/// added; the label says so rather than "0 B"), never "-0 B".
fn signed_size(v: f64) -> String {
    let b = v.round();
    if b < 0.0 {
        format!("-{}", fmt_short_size(-b))
    } else {
        fmt_short_size(b)
    }
}

#[cfg(test)]
#[path = "thread_memory_tests.rs"]
mod tests;
