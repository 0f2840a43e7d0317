//! spawn.heap's chart: Bendersky's "launch time vs memory image" figure,
//! one line per creation method against the parent's touched heap (log
//! scales, ticked at the measured heaps), each line named at its end, the
//! 95% intervals as whiskers, and the seeds' published points overlaid with
//! one marker shape per seed metric.

use super::style::{
    bytes_axis, chart, color, end_labels, entry, framed, log_axis, log_ticks, mesh_style, plot,
    EndLabel, Mark, H,
};
use crate::experiments::seeds::cite_short;
use crate::report::doc::Chart;
use crate::results::{ExperimentResult, Metric};
use crate::units::{fmt_ns, fmt_short_size};
use plotters::prelude::*;
use std::collections::BTreeMap;

/// (heap bytes, median, CI low, CI high)
type Points = Vec<(f64, f64, f64, f64)>;

/// A seed metric's marker and what it measured.
fn seed_mark(metric: &str) -> (Mark, &'static str) {
    match metric {
        "parent_return_ns" => (Mark::Triangle, "to the parent's return"),
        "child_start_ns" => (Mark::Square, "to the child's start"),
        _ => (Mark::Cross, "create + reap"),
    }
}

/// The seed's figure: launch time against the parent's heap, log x, one
/// line per creation method, the seeds' own points overlaid.
pub(super) fn draw(e: &ExperimentResult) -> anyhow::Result<Option<Chart>> {
    let mut lines: BTreeMap<(String, String), Points> = BTreeMap::new();
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
        let s = &m.summary;
        lines.entry((method.to_string(), thp)).or_default().push((
            bytes as f64,
            s.median,
            s.ci95_lo,
            s.ci95_hi,
        ));
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
    // Ticks at the heaps measured (and the seeds'), nothing else.
    let mut ticks: Vec<f64> = lines
        .values()
        .flatten()
        .map(|p| p.0)
        .chain(seeds.iter().map(|s| s.1))
        .collect();
    ticks.sort_by(f64::total_cmp);
    ticks.dedup();
    let (lo, hi) = (ticks[0], ticks[ticks.len() - 1]);
    // Room on the right of the last heap for the lines' names.
    let x = lo / 1.6..hi * 24.0;
    let all_y = lines.values().flatten().flat_map(|p| [p.1, p.2, p.3]);
    let y = log_axis(
        all_y.chain(seeds.iter().map(|s| s.0.seed.as_ref().expect("seed").mid())),
        10.0,
    )
    .expect("points");
    let cited: Vec<String> = {
        let mut c: Vec<String> = seeds
            .iter()
            .map(|s| cite_short(&s.0.seed.as_ref().expect("seed").source))
            .collect();
        c.dedup();
        c
    };
    let text = framed("Launch time vs the parent's memory image", H, |root| {
        let mut legend = Vec::new();
        let mut c = plot(root).build_cartesian_2d(
            bytes_axis(&x).with_key_points(ticks.clone()),
            y.clone().log_scale().with_key_points(log_ticks(&y, 10.0)),
        )?;
        let mut mesh = c.configure_mesh();
        mesh.x_desc("parent's heap, touched (log scale)")
            .y_desc("create + reap, median (log scale)")
            .x_label_formatter(&|v| fmt_short_size(*v))
            .y_label_formatter(&|v| fmt_ns(*v));
        mesh_style(&mut mesh).draw()?;
        let mut names = Vec::new();
        for ((method, thp), pts) in &lines {
            let i = order.iter().position(|o| o == method).unwrap_or(0);
            let col = color(i);
            let style = col.stroke_width(2);
            let line = pts.iter().map(|p| (p.0, p.1));
            if thp == "on" {
                c.draw_series(DashedLineSeries::new(line, 8, 5, style))?;
            } else {
                c.draw_series(LineSeries::new(line, style))?;
            }
            c.draw_series(pts.iter().map(|p| Circle::new((p.0, p.1), 3, col.filled())))?;
            c.draw_series(
                pts.iter()
                    .map(|p| PathElement::new(vec![(p.0, p.2), (p.0, p.3)], col.stroke_width(1))),
            )?;
            let last = pts[pts.len() - 1];
            names.push(EndLabel {
                at: c.backend_coord(&(last.0, last.1)),
                text: if thp == "on" {
                    format!("{method}, huge pages")
                } else {
                    method.clone()
                },
                color: col,
            });
        }
        legend.push(entry(
            "dashed: the heap on huge pages",
            RGBColor(90, 90, 90),
            Mark::Dashed,
        ));
        legend.push(entry("whisker: 95% interval", BLACK, Mark::Line));
        for (m, bytes) in &seeds {
            let s = m.seed.as_ref().expect("seed");
            let method = m.label("method").unwrap_or("?");
            let col = color(order.iter().position(|o| o == method).unwrap_or(0));
            let (mark, what) = seed_mark(&m.name);
            let at = (*bytes, s.mid());
            match mark {
                Mark::Triangle => {
                    c.draw_series(std::iter::once(TriangleMarker::new(at, 8, col.filled())))?
                }
                Mark::Square => c.draw_series(std::iter::once(
                    EmptyElement::at(at) + Rectangle::new([(-6, -6), (6, 6)], col.stroke_width(2)),
                ))?,
                _ => c.draw_series(std::iter::once(Cross::new(at, 7, col.stroke_width(3))))?,
            };
            let label = format!("{}: {method}, {what}", cite_short(&s.source));
            if !legend.iter().any(|l| l.label() == label) {
                legend.push(entry(label, col, mark));
            }
        }
        end_labels(root, names)?;
        Ok(legend)
    })?;
    let caption = format!(
        "One line per creation method: create a task and reap it, median of warm launches with its 95% interval, against the touched heap of the parent (the 0 B heap is in the table, not on a log axis). Marks: the seeds' published figures on their machines, one shape per quantity (× create + reap, ▲ to the parent's return, □ to the child's start){}.",
        if cited.is_empty() {
            String::new()
        } else {
            format!(", from {}", cited.join(" and "))
        }
    );
    Ok(Some(chart(
        "Launch time vs the parent's memory image",
        &caption,
        text,
    )))
}
