//! memory.threads's chart: Bendersky's 10,000 threads (≈ 80 GiB virtual,
//! ≈ 80 MiB resident), as three panels of memory against thread count, one
//! line per stack variant.

use super::style::{chart, color, entry, framed, mesh_style, Mark, FONT, TEXT};
use crate::report::doc::Chart;
use crate::results::ExperimentResult;
use crate::units::group_digits;
use plotters::prelude::*;
use std::collections::BTreeMap;

/// Three panels (virtual, resident, kernel) of memory against thread count,
/// one line per stack variant.
pub(super) fn draw(e: &ExperimentResult) -> anyhow::Result<Option<Chart>> {
    // variant -> threads -> (virtual, resident, kernel) in bytes
    let mut data: BTreeMap<String, BTreeMap<u64, [f64; 3]>> = BTreeMap::new();
    let mut variants: Vec<String> = Vec::new();
    for m in &e.metrics {
        let (Some(v), Some(n)) = (m.label("variant"), m.label_num("threads")) else {
            continue;
        };
        let slot = match m.name.as_str() {
            "vm_size_growth_kib" => 0,
            "rss_exact_growth_kib" => 1,
            "kernel_stack_per_thread_kib" => 2,
            "page_tables_per_thread_bytes" => 3,
            _ => continue,
        };
        if !variants.iter().any(|x| x == v) {
            variants.push(v.into());
        }
        let cell = data.entry(v.into()).or_default().entry(n).or_default();
        let med = m.summary.median;
        match slot {
            0 | 1 => cell[slot] = med * 1024.0,
            2 => cell[2] += med * 1024.0 * n as f64,
            _ => cell[2] += med * n as f64,
        }
    }
    if data.is_empty() {
        return Ok(None);
    }
    let nmax = data
        .values()
        .flat_map(|d| d.keys())
        .copied()
        .max()
        .unwrap_or(1) as f64;
    let stack_of = |v: &str| {
        e.metrics
            .iter()
            .find(|m| m.label("variant") == Some(v))
            .and_then(|m| m.label("stack"))
            .map(|s| format!("{v} ({s} stack)"))
            .unwrap_or_else(|| v.to_string())
    };
    let panels = [
        "address space (VmSize)",
        "resident (exact RSS)",
        "kernel (stacks + page tables)",
    ];
    let text = framed(
        "Thread memory vs thread count, by stack variant",
        460,
        |root| {
            let areas = root.split_evenly((1, 3));
            for (p, area) in areas.iter().enumerate() {
                let top = data
                    .values()
                    .flat_map(|d| d.values())
                    .map(|c| c[p])
                    .fold(0.0f64, f64::max)
                    .max(1.0);
                // Each panel in the binary unit that suits its largest value.
                let (unit, div) = [("GiB", 30), ("MiB", 20), ("KiB", 10)]
                    .into_iter()
                    .map(|(u, shift)| (u, (1u64 << shift) as f64))
                    .find(|(_, d)| top >= 2.0 * d)
                    .unwrap_or(("bytes", 1.0));
                let mut c = ChartBuilder::on(area)
                    .caption(panels[p], (FONT, TEXT))
                    .margin(10)
                    .x_label_area_size(40)
                    .y_label_area_size(56)
                    .build_cartesian_2d(0.0..nmax * 1.08, 0.0..top / div * 1.12)?;
                let mut mesh = c.configure_mesh();
                mesh.x_desc("threads")
                    .y_desc(unit)
                    .x_labels(4)
                    .y_labels(6)
                    .x_label_formatter(&|v| group_digits(v.round() as i64));
                // A size smaller than the single-panel charts': three panels share the width.
                mesh_style(&mut mesh).draw()?;
                for (i, v) in variants.iter().enumerate() {
                    let col = color(i);
                    let mut pts: Vec<(f64, f64)> = vec![(0.0, 0.0)];
                    pts.extend(data[v].iter().map(|(n, cell)| (*n as f64, cell[p] / div)));
                    c.draw_series(LineSeries::new(pts.clone(), col.stroke_width(2)))?;
                    c.draw_series(pts.iter().skip(1).map(|&q| Circle::new(q, 3, col.filled())))?;
                }
            }
            Ok(variants
                .iter()
                .enumerate()
                .map(|(i, v)| entry(stack_of(v), color(i), Mark::Line))
                .collect())
        },
    )?;
    Ok(Some(chart("Thread memory vs thread count", "What N blocked threads add to the process: address space reserved (mostly stacks, virtual until used), memory resident (the exact count from smaps_rollup), and the kernel's own share outside both (a 16 KiB kernel stack and page tables per thread). Medians of independent rounds.", text)))
}
