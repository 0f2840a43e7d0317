//! switch.pingpong's chart: the cost of one context switch by mechanism and
//! placement, as in Bendersky's "How expensive are context switches?"
//! (1.2–1.5 µs pinned, ~2.2 µs unpinned), with the 95% interval as whiskers.

use super::style::{chart, color, entry, framed, log_axis, log_ticks, mesh_style, plot, Mark, H};
use crate::report::doc::Chart;
use crate::results::{ExperimentResult, Metric};
use crate::units::fmt_ns;
use plotters::prelude::*;

/// Grouped bars, log y: one group per mechanism, one bar per placement.
pub(super) fn draw(e: &ExperimentResult) -> anyhow::Result<Option<Chart>> {
    let mut mechanisms: Vec<String> = Vec::new();
    let mut placements: Vec<String> = Vec::new();
    let mut bars: Vec<(usize, usize, &Metric)> = Vec::new();
    for m in e.metrics_named("switch_ns") {
        let (Some(mech), Some(place)) = (m.label("method"), m.label("placement")) else {
            continue;
        };
        if !mechanisms.iter().any(|x| x == mech) {
            mechanisms.push(mech.into());
        }
        if !placements.iter().any(|x| x == place) {
            placements.push(place.into());
        }
        let i = mechanisms.iter().position(|x| x == mech).expect("pushed");
        let j = placements.iter().position(|x| x == place).expect("pushed");
        bars.push((i, j, m));
    }
    if bars.is_empty() {
        return Ok(None);
    }
    let y = log_axis(
        bars.iter()
            .flat_map(|b| [b.2.summary.ci95_lo, b.2.summary.ci95_hi, b.2.summary.median]),
        10.0,
    )
    .expect("bars");
    let n = mechanisms.len() as f64;
    let k = placements.len() as f64;
    let width = 0.8 / k;
    let text = framed(
        "Context switch cost by mechanism and placement",
        H,
        |root| {
            let mut legend = Vec::new();
            let mut c = plot(root).build_cartesian_2d(
                -0.5..n - 0.5,
                y.clone().log_scale().with_key_points(log_ticks(&y, 10.0)),
            )?;
            let name_at = |v: &f64| {
                let r = v.round();
                if (v - r).abs() < 1e-6 && r >= 0.0 {
                    mechanisms.get(r as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            };
            let mut mesh = c.configure_mesh();
            mesh.disable_x_mesh()
                .x_labels(mechanisms.len() * 2 + 1)
                .x_label_formatter(&name_at)
                .y_label_formatter(&|v| fmt_ns(*v))
                .x_desc("mechanism (threads or processes handing a token back and forth)")
                .y_desc("per switch, median (log scale)");
            mesh_style(&mut mesh).draw()?;
            let floor = y.start;
            for (j, place) in placements.iter().enumerate() {
                let col = color(j);
                let x0 = |i: usize| i as f64 - 0.4 + j as f64 * width;
                c.draw_series(bars.iter().filter(|b| b.1 == j).map(|&(i, _, m)| {
                    Rectangle::new(
                        [(x0(i), floor), (x0(i) + width * 0.92, m.summary.median)],
                        col.filled(),
                    )
                }))?;
                legend.push(entry(place.replace('_', " "), col, Mark::Bar));
                // The 95% interval of the median, as a whisker.
                c.draw_series(bars.iter().filter(|b| b.1 == j).map(|&(i, _, m)| {
                    let xm = x0(i) + width * 0.46;
                    PathElement::new(
                        vec![(xm, m.summary.ci95_lo), (xm, m.summary.ci95_hi)],
                        BLACK.stroke_width(1),
                    )
                }))?;
            }
            legend.push(entry("95% interval of the median", BLACK, Mark::Line));
            Ok(legend)
        },
    )?;
    Ok(Some(chart("Context switch cost by mechanism and placement", "Median cost of one switch (half a round trip); whiskers: 95% confidence interval of the median. same cpu: both tasks pinned to one CPU, so every hand-off is a switch; two cpus: pinned apart, so every hand-off wakes the other CPU; two cpus awake: apart, with the other CPU kept busy-awake; unpinned: where the scheduler put them.", text)))
}
