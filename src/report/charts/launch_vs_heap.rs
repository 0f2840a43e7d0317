//! spawn.heap's chart: Bendersky's "launch time vs memory image" figure,
//! one line per creation method against the parent's touched heap (log
//! scales), the seeds' published points (Bendersky's, Sysel's 4 GB fork)
//! overlaid as crosses.

use super::style::{
    bytes_axis, chart, color, entry, framed, log_axis, log_range, log_ticks, mesh_style, plot,
    Mark, H,
};
use crate::report::doc::Chart;
use crate::report::seeds::short_hw;
use crate::results::{ExperimentResult, Metric};
use crate::units::{fmt_ns, fmt_short_size};
use plotters::prelude::*;
use std::collections::BTreeMap;

/// The seed's figure: launch time against the parent's heap, log x, one
/// line per creation method, the seeds' own points overlaid.
pub(super) fn draw(e: &ExperimentResult) -> anyhow::Result<Option<Chart>> {
    let mut lines: BTreeMap<(String, String), Vec<(f64, f64)>> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for m in e
        .metrics_named("lifecycle_ns")
        .filter(|m| m.label("call").is_none())
    {
        let (Some(method), Some(bytes)) = (m.label("method"), m.label_num("heap_bytes")) else {
            continue;
        };
        if bytes == 0 {
            continue;
        }
        if !order.iter().any(|o| o == method) {
            order.push(method.to_string());
        }
        let thp = m.label("thp").unwrap_or("off").to_string();
        lines
            .entry((method.to_string(), thp))
            .or_default()
            .push((bytes as f64, m.summary.median));
    }
    let seeds: Vec<(&Metric, f64)> = e
        .metrics
        .iter()
        .filter_map(|m| Some((m, m.label_num("heap_bytes")? as f64)))
        .filter(|(m, b)| m.seed.is_some() && *b > 0.0)
        .collect();
    if lines.is_empty() {
        return Ok(None);
    }
    for pts in lines.values_mut() {
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    let all_x = lines.values().flatten().map(|p| p.0);
    let x = log_range(all_x.chain(seeds.iter().map(|s| s.1))).expect("points");
    let all_y = lines.values().flatten().map(|p| p.1);
    let y = log_axis(
        all_y.chain(seeds.iter().map(|s| s.0.seed.as_ref().expect("seed").mid())),
        10.0,
    )
    .expect("points");
    let text = framed("Launch time vs the parent's memory image", H, |root| {
        let mut legend = Vec::new();
        let mut c = plot(root).build_cartesian_2d(
            bytes_axis(&x),
            y.clone().log_scale().with_key_points(log_ticks(&y, 10.0)),
        )?;
        let mut mesh = c.configure_mesh();
        mesh.x_desc("parent's heap, touched (log scale)")
            .y_desc("create + reap, median (log scale)")
            .x_label_formatter(&|v| fmt_short_size(*v))
            .y_label_formatter(&|v| fmt_ns(*v));
        mesh_style(&mut mesh, 16).draw()?;
        for ((method, thp), pts) in &lines {
            let i = order.iter().position(|o| o == method).unwrap_or(0);
            let col = color(i);
            let name = if thp == "on" {
                format!("{method}, huge pages")
            } else {
                method.clone()
            };
            let style = col.stroke_width(2);
            if thp == "on" {
                c.draw_series(DashedLineSeries::new(pts.iter().copied(), 8, 5, style))?;
                legend.push(entry(name, col, Mark::Dashed));
            } else {
                c.draw_series(LineSeries::new(pts.iter().copied(), style))?;
                legend.push(entry(name, col, Mark::Line));
            }
            c.draw_series(pts.iter().map(|&p| Circle::new(p, 3, col.filled())))?;
        }
        for (m, bytes) in &seeds {
            let s = m.seed.as_ref().expect("seed");
            let method = m.label("method").unwrap_or("?");
            let i = order.iter().position(|o| o == method).unwrap_or(0);
            let col = color(i);
            let what = match m.name.as_str() {
                "lifecycle_ns" => "",
                "parent_return_ns" => " (to the parent's return)",
                "child_start_ns" => " (to the child's start)",
                other => other,
            };
            let label = format!(
                "seed {} ({}): {method}{what}",
                &s.source[..3.min(s.source.len())],
                short_hw(&s.hardware)
            );
            c.draw_series(std::iter::once(Cross::new(
                (*bytes, s.mid()),
                7,
                col.stroke_width(3),
            )))?;
            legend.push(entry(label, col, Mark::Cross));
        }
        Ok(legend)
    })?;
    Ok(Some(chart("Launch time vs the parent's memory image", "One line per creation method: create a task and reap it, median of warm launches, against the touched heap of the parent (the 0 B heap is in the table, not on a log axis). Dashed: fork with the heap on transparent huge pages. Crosses: the seeds' published figures, on their machines.", text)))
}
