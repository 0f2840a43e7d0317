//! switch.indirect's chart: the cache-refill cost Bendersky leaves
//! unmeasured (no seed figure): a switch's cost against the working set each
//! task walks, the indirect share with its interval, and the bare switch as
//! a baseline. Where the indirect cost's interval covers zero the chart says
//! "within noise" instead of drawing a line.

use super::style::{
    bytes_axis, chart, color, dot, entry, framed, log_range, mesh_style, plot, solid, solid_runs,
    Mark, FONT, H, HOLLOW, TEXT,
};
use crate::experiments::switch::indirect::{TASKS, WALK, WALK_WARM_NS};
use crate::experiments::switch::series::SWITCH_NS;
use crate::metric::key::BYTES;
use crate::metric::MetricSpec;
use crate::report::doc::Chart;
use crate::results::{ExperimentResult, Metric};
use crate::stats::compare_text::difference;
use crate::units::Unit;
use crate::units::{fmt_ns, fmt_short_size};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// (bytes, median, CI low, CI high, drawn solid)
type Point = (f64, f64, f64, f64, bool);

/// The bare switch (nothing walked), the raw switch at each working set,
/// and the indirect cost at each, sorted by size.
fn points(e: &ExperimentResult) -> (Option<&crate::stats::Summary>, Vec<Point>, Vec<Point>) {
    // The sequential walk between threads, the variant every file has (one
    // from before the walk and tasks labels measured only it); every point,
    // flagged or imprecise ones drawn hollow, not left out.
    let drawn = |m: &&Metric| {
        m.label(WALK).is_none_or(|w| w == "sequential")
            && m.label(TASKS).is_none_or(|t| t == "threads")
    };
    let every = |spec: &'static MetricSpec| e.metrics.iter().filter(move |m| m.name == spec.name);
    let any = |spec: &'static MetricSpec, bytes: &str| {
        every(spec)
            .filter(drawn)
            .find(|m| m.label(BYTES) == Some(bytes))
            .map(|m| &m.summary)
    };
    let zero = any(&SWITCH_NS, "0");
    let mut total: Vec<Point> = Vec::new();
    let mut indirect: Vec<Point> = Vec::new();
    for m in every(&SWITCH_NS).filter(drawn) {
        let Some(b) = m.label_num(BYTES).filter(|b| *b > 0) else {
            continue;
        };
        let s = &m.summary;
        total.push((b as f64, s.median, s.ci95_lo, s.ci95_hi, solid(s)));
        // raw − bare switch − warm walk, with the interval the finding
        // gives it (the three half-widths in quadrature).
        if let (Some(z), Some(w)) = (zero, any(&WALK_WARM_NS, &b.to_string())) {
            let d = difference(s, z, Unit::Ns).minus(w);
            let ok = solid(s) && solid(z) && solid(w) && !(d.lo <= 0.0 && d.hi >= 0.0);
            indirect.push((b as f64, d.d, d.lo, d.hi, ok));
        }
    }
    total.sort_by(|a, b| a.0.total_cmp(&b.0));
    indirect.sort_by(|a, b| a.0.total_cmp(&b.0));
    (zero, total, indirect)
}

/// The indirect cost of a switch (caches refilled) against the working set.
pub(super) fn draw(e: &ExperimentResult) -> anyhow::Result<Option<Chart>> {
    let (zero, total, indirect) = points(e);
    if total.is_empty() {
        return Ok(None);
    }
    let noise = |p: &Point| p.2 <= 0.0 && p.3 >= 0.0;
    let x = log_range(total.iter().map(|p| p.0)).expect("points");
    let ys = total
        .iter()
        .chain(&indirect)
        .flat_map(|p| [p.1, p.2, p.3])
        .chain(zero.map(|z| z.ci95_hi));
    let ymax = ys.clone().fold(0.0f64, f64::max) * 1.15;
    let ymin = ys.fold(0.0f64, f64::min) * 1.15;
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
        let whiskers = |pts: &[Point], col: RGBColor| {
            pts.iter()
                .map(move |p| PathElement::new(vec![(p.0, p.2), (p.0, p.3)], col.stroke_width(2)))
                .collect::<Vec<_>>()
        };
        let marked = |pts: &[Point]| -> Vec<((f64, f64), bool)> {
            pts.iter().map(|p| ((p.0, p.1), p.4)).collect()
        };
        for line in solid_runs(&marked(&total)) {
            c.draw_series(LineSeries::new(line, a.stroke_width(2)))?;
        }
        c.draw_series(total.iter().map(|p| dot((p.0, p.1), 4, a, p.4)))?;
        c.draw_series(whiskers(&total, a))?;
        legend.push(entry(
            "switch with the working set walked (raw)",
            a,
            Mark::Line,
        ));
        if !indirect.is_empty() {
            // A line only between neighbours told apart from zero and
            // precise: never across a point within noise or hollow.
            for line in solid_runs(&marked(&indirect)) {
                c.draw_series(LineSeries::new(line, b.stroke_width(2)))?;
            }
            c.draw_series(indirect.iter().map(|p| dot((p.0, p.1), 4, b, p.4)))?;
            c.draw_series(whiskers(&indirect, b))?;
            let said = TextStyle::from((FONT, TEXT).into_font())
                .color(&b)
                .pos(Pos::new(HPos::Center, VPos::Bottom));
            c.draw_series(
                indirect
                    .iter()
                    .filter(|p| noise(p))
                    .map(|p| Text::new("within noise", (p.0, p.3), said.clone())),
            )?;
            legend.push(entry(
                "indirect cost: raw − bare switch − the walk on a warm cache",
                b,
                Mark::Line,
            ));
        }
        if let Some(z) = zero {
            let g = RGBColor(110, 110, 110);
            c.draw_series(DashedLineSeries::new(
                [(x.start, z.median), (x.end, z.median)],
                8,
                5,
                g.stroke_width(2),
            ))?;
            legend.push(entry("bare switch, nothing walked", g, Mark::Dashed));
        }
        legend.push(entry("whisker: 95% interval", BLACK, Mark::Line));
        if total.iter().chain(&indirect).any(|p| !p.4) {
            legend.push(entry(HOLLOW, BLACK, Mark::Hollow));
        }
        Ok(legend)
    })?;
    Ok(Some(chart("Indirect cost of a switch vs working set", "Two threads on one CPU each walk a working set, in address order, between hand-offs (the random walk and the process variant are in the findings). The indirect cost is what the switch adds beyond itself: the caches and TLB the other task evicted, refilled. Whiskers: 95% intervals; the indirect cost's combines its three medians' intervals (in quadrature, as the findings do), and where it covers zero the chart says \"within noise\". A point within noise, imprecise (~) or flagged (!) is drawn hollow and no line joins it.", text)))
}
