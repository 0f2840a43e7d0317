//! switch.pingpong's chart: the cost of one context switch by mechanism and
//! placement, as in Bendersky's "How expensive are context switches?"
//! (1.2–1.5 µs pinned, ~2.2 µs unpinned), with the 95% interval as whiskers,
//! the seed's published ranges beside the bars they match, "n/a" where a
//! mechanism has no figure for a placement, and hollow bars for figures that are
//! imprecise or flagged.

use super::style::{
    chart, color, entry, framed, log_axis, log_ticks, mesh_style, plot, solid, Mark, FONT, H, TEXT,
};
use crate::experiments::seeds::cite_short;
use crate::experiments::switch::series::SWITCH_NS;
use crate::metric::key::{METHOD, PLACEMENT};
use crate::report::doc::Chart;
use crate::results::{ExperimentResult, Metric};
use crate::units::fmt_ns;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Grouped bars, log y: one group per mechanism, one bar per placement.
pub(super) fn draw(e: &ExperimentResult) -> anyhow::Result<Option<Chart>> {
    let mut mechanisms: Vec<String> = Vec::new();
    let mut placements: Vec<String> = Vec::new();
    let mut bars: Vec<(usize, usize, &Metric)> = Vec::new();
    for m in e.metrics.iter().filter(|m| m.name == SWITCH_NS.name) {
        let (Some(mech), Some(place)) = (m.label(METHOD), m.label(PLACEMENT)) else {
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
        bars.iter().flat_map(|b| {
            let s = &b.2.summary;
            let seed =
                b.2.seed
                    .as_ref()
                    .map(|x| [x.lo, x.hi])
                    .into_iter()
                    .flatten();
            [s.ci95_lo, s.ci95_hi, s.median].into_iter().chain(seed)
        }),
        10.0,
    )
    .expect("bars");
    let n = mechanisms.len() as f64;
    let k = placements.len() as f64;
    let width = 0.8 / k;
    let x0 = |i: usize, j: usize| i as f64 - 0.4 + j as f64 * width;
    let mut cited: Vec<String> = bars
        .iter()
        .filter_map(|b| Some(cite_short(&b.2.seed.as_ref()?.source)))
        .collect();
    cited.dedup();
    let text = framed(
        "Context switch cost by mechanism and placement",
        H,
        |root| {
            let mut legend = Vec::new();
            let mut c = plot(root).build_cartesian_2d(
                -0.5..n - 0.5,
                y.clone().log_scale().with_key_points(log_ticks(&y, 10.0)),
            )?;
            let mut mesh = c.configure_mesh();
            mesh.disable_x_mesh()
                .x_labels(mechanisms.len() * 2 + 1)
                .x_label_formatter(&|_| String::new())
                .y_label_formatter(&|v| fmt_ns(*v))
                .y_desc("per switch, median (log scale)");
            mesh_style(&mut mesh).draw()?;
            // The mechanisms' names on two lines ("pipe" over "threads"), so
            // six fit side by side.
            let (bx, by) = root.get_base_pixel();
            let under =
                TextStyle::from((FONT, TEXT).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
            for (i, name) in mechanisms.iter().enumerate() {
                let (px, py) = c.backend_coord(&(i as f64, y.start));
                let (a, b) = name.split_once('_').unwrap_or((name.as_str(), ""));
                for (k, line) in [a, b].into_iter().enumerate() {
                    root.draw(&Text::new(
                        line.to_string(),
                        (px - bx, py - by + 8 + 17 * k as i32),
                        under.clone(),
                    ))?;
                }
            }
            let floor = y.start;
            for (j, place) in placements.iter().enumerate() {
                let col = color(j);
                let mine = || bars.iter().filter(move |b| b.1 == j);
                // A figure that is imprecise or flagged is drawn hollow:
                // no confident figure.
                c.draw_series(mine().map(|&(i, _, m)| {
                    let style = if !solid(&m.summary) {
                        col.stroke_width(2)
                    } else {
                        col.filled()
                    };
                    Rectangle::new(
                        [
                            (x0(i, j), floor),
                            (x0(i, j) + width * 0.92, m.summary.median),
                        ],
                        style,
                    )
                }))?;
                legend.push(entry(place.replace('_', " "), col, Mark::Bar));
                // The 95% interval of the median, as a whisker.
                c.draw_series(mine().map(|&(i, _, m)| {
                    let xm = x0(i, j) + width * 0.46;
                    PathElement::new(
                        vec![(xm, m.summary.ci95_lo), (xm, m.summary.ci95_hi)],
                        BLACK.stroke_width(1),
                    )
                }))?;
                // The seed's figure for this bar: its range, as a bracket.
                for &(i, _, m) in mine() {
                    let Some(s) = &m.seed else { continue };
                    let (a, b) = (x0(i, j) - width * 0.1, x0(i, j) + width * 1.02);
                    let ink = BLACK.stroke_width(3);
                    c.draw_series([
                        PathElement::new(vec![(a, s.lo), (b, s.lo)], ink),
                        PathElement::new(vec![(a, s.hi), (b, s.hi)], ink),
                    ])?;
                }
            }
            // No figure for a mechanism in a placement: say so.
            let style = TextStyle::from((FONT, TEXT).into_font())
                .color(&RGBColor(90, 90, 90))
                .transform(FontTransform::Rotate270)
                .pos(Pos::new(HPos::Left, VPos::Center));
            for i in 0..mechanisms.len() {
                for j in 0..placements.len() {
                    if !bars.iter().any(|b| b.0 == i && b.1 == j) {
                        let xm = x0(i, j) + width * 0.46;
                        c.draw_series(std::iter::once(Text::new(
                            "n/a",
                            (xm, floor * 1.05),
                            style.clone(),
                        )))?;
                    }
                }
            }
            legend.push(entry(
                "whisker: 95% interval of the median",
                BLACK,
                Mark::Line,
            ));
            if bars.iter().any(|b| !solid(&b.2.summary)) {
                legend.push(entry(
                    "hollow: imprecise (~) or flagged (!)",
                    BLACK,
                    Mark::Square,
                ));
            }
            if !cited.is_empty() {
                legend.push(entry(
                    format!("bold ticks: {}'s published range", cited.join(", ")),
                    BLACK,
                    Mark::Line,
                ));
            }
            legend.push(entry(
                "n/a: not measured in that placement",
                RGBColor(90, 90, 90),
                Mark::Line,
            ));
            Ok(legend)
        },
    )?;
    let seeds = if cited.is_empty() {
        String::new()
    } else {
        format!(
            " Bold ticks: the range {} published for that mechanism and placement, on its machine.",
            cited.join(" and ")
        )
    };
    Ok(Some(chart("Context switch cost by mechanism and placement", &format!("Median cost of one switch (half a round trip); whiskers: 95% confidence interval of the median; hollow: a figure that is imprecise (~) or flagged (!), no confident figure. same cpu: both tasks pinned to one CPU, so every hand-off is a switch; two cpus: pinned apart, so every hand-off wakes the other CPU; two cpus awake: apart, with the other CPU kept busy-awake; unpinned: where the scheduler put them.{seeds}"), text)))
}
