//! spawn.heap's chart: Bendersky's "launch time vs memory image" figure,
//! one line per creation method against the parent's touched heap (log
//! scales, ticked at the measured heaps), each line named at its end, the
//! 95% intervals as whiskers, and the seeds' published points overlaid with
//! one marker shape per seed metric.

use super::style::{
    bytes_axis, chart, color, dot, end_labels, entry, framed, labelled_ticks, log_axis, log_ticks,
    mesh_style, plot, solid, solid_runs, EndLabel, Mark, H, HOLLOW,
};
use crate::experiments::spawn::engine::{CHILD_START_NS, LIFECYCLE_NS, PARENT_RETURN_NS};
use crate::experiments::{self, seeds::cite_short};
use crate::metric::key::{CALL, HEAP, HEAP_BYTES, METHOD, THP};
use crate::report::doc::Chart;
use crate::results::{ExperimentResult, Metric};
use crate::units::{fmt_ns, fmt_short_size, parse_size};
use plotters::prelude::*;
use std::collections::BTreeMap;

/// (heap bytes, median, CI low, CI high, drawn solid)
type Points = Vec<(f64, f64, f64, f64, bool)>;

/// A seed metric's marker and what it measured.
fn seed_mark(metric: &str) -> (Mark, &'static str) {
    if metric == PARENT_RETURN_NS.name {
        (Mark::Triangle, "to the parent's return")
    } else if metric == CHILD_START_NS.name {
        (Mark::Square, "to the child's start")
    } else {
        (Mark::Cross, "create + reap")
    }
}

/// The seed's figure: launch time against the parent's heap, log x, one
/// line per creation method, the seeds' own points overlaid.
pub(super) fn draw(e: &ExperimentResult) -> anyhow::Result<Option<Chart>> {
    let mut lines: BTreeMap<(String, String), Points> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    // Every point, flagged ones included (drawn hollow), so the chart is
    // the same in every run.
    for m in e
        .metrics
        .iter()
        .filter(|m| m.name == LIFECYCLE_NS.name && m.label(CALL).is_none())
    {
        let (Some(method), Some(bytes)) = (m.label(METHOD), m.label_num(HEAP_BYTES)) else {
            continue;
        };
        if bytes == 0 {
            continue;
        }
        if !order.iter().any(|o| o == method) {
            order.push(method.to_string());
        }
        let thp = m.label(THP).unwrap_or("off").to_string();
        let s = &m.summary;
        lines.entry((method.to_string(), thp)).or_default().push((
            bytes as f64,
            s.median,
            s.ci95_lo,
            s.ci95_hi,
            solid(s),
        ));
    }
    let seeds: Vec<(&Metric, f64)> = e
        .metrics
        .iter()
        .filter_map(|m| Some((m, m.label_num(HEAP_BYTES)? as f64)))
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
    let largest = lines.values().flatten().map(|p| p.0).fold(0.0, f64::max);
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
        // A tick at every heap; a label where it has room.
        let xs: Vec<i32> = ticks
            .iter()
            .map(|t| c.backend_coord(&(*t, y.start)).0)
            .collect();
        let names: Vec<String> = ticks.iter().map(|t| fmt_short_size(*t)).collect();
        let shown: Vec<f64> = ticks
            .iter()
            .zip(labelled_ticks(&xs, &names))
            .filter_map(|(t, keep)| keep.then_some(*t))
            .collect();
        let x_label = |v: &f64| {
            if shown.iter().any(|t| (t / v - 1.0).abs() < 1e-9) {
                fmt_short_size(*v)
            } else {
                String::new()
            }
        };
        let mut mesh = c.configure_mesh();
        mesh.x_desc("parent's heap, touched (log scale)")
            .y_desc("create + reap, median (log scale)")
            .x_label_formatter(&x_label)
            .y_label_formatter(&|v| fmt_ns(*v));
        mesh_style(&mut mesh).draw()?;
        let mut names = Vec::new();
        for ((method, thp), pts) in &lines {
            let i = order.iter().position(|o| o == method).unwrap_or(0);
            let col = color(i);
            let style = col.stroke_width(2);
            // A line joins only neighbouring solid points: never across
            // an imprecise or flagged one.
            let marked: Vec<((f64, f64), bool)> = pts.iter().map(|p| ((p.0, p.1), p.4)).collect();
            for line in solid_runs(&marked) {
                if thp == "on" {
                    c.draw_series(DashedLineSeries::new(line, 8, 5, style))?;
                } else {
                    c.draw_series(LineSeries::new(line, style))?;
                }
            }
            c.draw_series(pts.iter().map(|p| dot((p.0, p.1), 3, col, p.4)))?;
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
        if lines.values().flatten().any(|p| !p.4) {
            legend.push(entry(HOLLOW, BLACK, Mark::Hollow));
        }
        for (m, bytes) in &seeds {
            let s = m.seed.as_ref().expect("seed");
            let method = m.label(METHOD).unwrap_or("?");
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
        end_labels(root, names, c.plotting_area().get_pixel_range().1)?;
        Ok(legend)
    })?;
    let mut shapes: Vec<String> = Vec::new();
    for (m, _) in &seeds {
        let shape = match seed_mark(&m.name) {
            (Mark::Triangle, what) => format!("▲ {what}"),
            (Mark::Square, what) => format!("□ {what}"),
            (_, what) => format!("× {what}"),
        };
        if !shapes.contains(&shape) {
            shapes.push(shape);
        }
    }
    let marks = if seeds.is_empty() {
        String::new()
    } else {
        format!(
            " Marks: the seeds' published figures on their machines, one shape per quantity ({}), from {}.",
            shapes.join(", "),
            cited.join(" and ")
        )
    };
    let caption = format!(
        "One line per creation method: create a task and reap it, median of warm launches with its 95% interval, against the touched heap of the parent (the 0 B heap is in the table, not on a log axis). A point that is imprecise (~) or flagged (!) is drawn hollow and no line joins it, so a gap in a line is such a point.{marks}{}",
        not_drawn(e, &seeds, largest)
    );
    Ok(Some(chart(
        "Launch time vs the parent's memory image",
        &caption,
        text,
    )))
}

/// The experiment's seed figures that are not on the chart, and why: a
/// heap beyond those this run measured (and whether the thorough profile
/// measures it), or a series this run does not have.
fn not_drawn(e: &ExperimentResult, drawn: &[(&Metric, f64)], largest: f64) -> String {
    let Some(reg) = experiments::find(&e.name) else {
        return String::new();
    };
    let thorough: Vec<u64> = reg
        .params
        .iter()
        .find(|p| p.name == "heap_sizes")
        .map(|p| {
            p.thorough
                .split(',')
                .filter_map(|t| parse_size(t).ok())
                .collect()
        })
        .unwrap_or_default();
    let mut out = Vec::new();
    for s in reg.seeds {
        if drawn.iter().any(|(m, _)| s.matches(&m.name, &m.labels)) {
            continue;
        }
        let get = |k: &str| s.labels.iter().find(|l| l.0 == k).map(|l| l.1);
        let (Some(heap), Some(method)) = (get(HEAP), get(METHOD)) else {
            continue;
        };
        let Ok(bytes) = parse_size(heap) else {
            continue;
        };
        let why = if bytes as f64 > largest {
            let more = if thorough.contains(&bytes) {
                "; --profile thorough measures it"
            } else {
                ""
            };
            format!(
                "beyond this run's largest heap, {}{more}",
                fmt_short_size(largest)
            )
        } else {
            "this run has no stable series for it".to_string()
        };
        out.push(format!(
            "{}'s {method} at {heap}, {} ({why})",
            cite_short(s.source),
            seed_mark(s.metric).1
        ));
    }
    if out.is_empty() {
        String::new()
    } else {
        format!(" Not drawn: {}.", out.join("; "))
    }
}
