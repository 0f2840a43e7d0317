//! switch.indirect's chart: the cache-refill cost Bendersky leaves
//! unmeasured (no seed figure): a switch's cost against the working set each
//! task walks, the indirect share, and the bare switch as a baseline.

use super::style::{bytes_axis, chart, color, entry, framed, log_range, mesh_style, plot, Mark, H};
use crate::report::doc::Chart;
use crate::results::ExperimentResult;
use crate::units::{fmt_ns, fmt_short_size};
use plotters::prelude::*;

/// The indirect cost of a switch (caches refilled) against the working set.
pub(super) fn draw(e: &ExperimentResult) -> anyhow::Result<Option<Chart>> {
    let mut total: Vec<(f64, f64)> = Vec::new();
    let mut baseline = None;
    for m in e.metrics_named("switch_ns") {
        match m.label_num("bytes") {
            Some(0) => baseline = Some(m.summary.median),
            Some(b) => total.push((b as f64, m.summary.median)),
            None => {}
        }
    }
    let mut indirect: Vec<(f64, f64)> = e
        .readings
        .iter()
        .filter(|r| r.name == "indirect_ns_per_switch")
        .filter_map(|r| Some((r.labels.get("bytes")?.parse::<f64>().ok()?, r.value)))
        .filter(|p| p.0 > 0.0)
        .collect();
    total.sort_by(|a, b| a.0.total_cmp(&b.0));
    indirect.sort_by(|a, b| a.0.total_cmp(&b.0));
    if total.is_empty() {
        return Ok(None);
    }
    let x = log_range(total.iter().map(|p| p.0)).expect("points");
    let ymax = total
        .iter()
        .chain(&indirect)
        .map(|p| p.1)
        .chain(baseline)
        .fold(0.0f64, f64::max)
        * 1.15;
    let ymin = indirect.iter().map(|p| p.1).fold(0.0f64, f64::min) * 1.15;
    let text = framed("Indirect cost of a switch vs working set", H, |root| {
        let mut legend = Vec::new();
        let mut c = plot(root).build_cartesian_2d(bytes_axis(&x), ymin..ymax)?;
        let mut mesh = c.configure_mesh();
        mesh.x_desc("memory each task walks between switches (log scale)")
            .y_desc("per switch, median")
            .x_label_formatter(&|v| fmt_short_size(*v))
            .y_label_formatter(&|v| fmt_ns(*v));
        mesh_style(&mut mesh).draw()?;
        let (a, b) = (color(0), color(3));
        c.draw_series(LineSeries::new(total.iter().copied(), a.stroke_width(2)))?;
        legend.push(entry(
            "switch with the working set walked (raw)",
            a,
            Mark::Line,
        ));
        c.draw_series(total.iter().map(|&p| Circle::new(p, 4, a.filled())))?;
        if !indirect.is_empty() {
            c.draw_series(LineSeries::new(indirect.iter().copied(), b.stroke_width(2)))?;
            legend.push(entry(
                "indirect cost: raw − bare switch − the walk on a warm cache",
                b,
                Mark::Line,
            ));
            c.draw_series(indirect.iter().map(|&p| Circle::new(p, 4, b.filled())))?;
        }
        if let Some(base) = baseline {
            let g = RGBColor(110, 110, 110);
            c.draw_series(DashedLineSeries::new(
                [(x.start, base), (x.end, base)],
                8,
                5,
                g.stroke_width(2),
            ))?;
            legend.push(entry("bare switch, nothing walked", g, Mark::Dashed));
        }
        Ok(legend)
    })?;
    Ok(Some(chart("Indirect cost of a switch vs working set", "Two tasks on one CPU each walk a working set between hand-offs. The indirect cost is what the switch adds beyond itself: the caches and TLB the other task evicted, refilled.", text)))
}
