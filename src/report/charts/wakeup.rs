//! switch.wakeup's chart: the full cross-CPU hand-off beside the stack of
//! its parts (coherence floor, syscall and switch path, IPI, idle exit,
//! residual), each part's 95% interval as a whisker at its segment's top.

use super::style::{category_at, chart, color, entry, framed, mesh_style, plot, Mark, H};
use crate::experiments::switch::series::ROUND_TRIP_NS;
use crate::experiments::switch::wakeup::{PART, PART_HI_NS, PART_LO_NS, PART_NS};
use crate::metric::key::VARIANT;
use crate::metric::MetricSpec;
use crate::report::doc::Chart;
use crate::results::ExperimentResult;
use crate::units::fmt_ns;
use plotters::prelude::*;

/// The parts in stack order, as the experiment names them in its readings.
const ORDER: &[&str] = &["coherence", "path", "ipi", "idle_exit", "residual"];

fn words(part: &str) -> &str {
    match part {
        "coherence" => "coherence floor",
        "path" => "syscall and switch path",
        "ipi" => "IPI",
        "idle_exit" => "idle exit",
        _ => "residual",
    }
}

/// Two bars, linear y: the measured hand-off, and its parts stacked.
pub(super) fn draw(e: &ExperimentResult) -> anyhow::Result<Option<Chart>> {
    let reading = |spec: &MetricSpec, part: &str| e.reading(spec, &[(PART, part)]);
    let parts: Vec<(&str, f64, f64, f64)> = ORDER
        .iter()
        .filter_map(|p| {
            Some((
                *p,
                reading(&PART_NS, p)?,
                reading(&PART_LO_NS, p)?,
                reading(&PART_HI_NS, p)?,
            ))
        })
        .collect();
    let full = ["idle_cpu", "polling_idle"].iter().find_map(|v| {
        e.metrics_named(&ROUND_TRIP_NS)
            .find(|m| m.label(VARIANT) == Some(v))
    });
    let (Some(full), false) = (full, parts.is_empty()) else {
        return Ok(None);
    };
    let s = &full.summary;
    let stacked: f64 = parts.iter().map(|p| p.1.max(0.0)).sum();
    let ymax = parts
        .iter()
        .map(|p| p.3)
        .chain([s.ci95_hi, stacked])
        .fold(0.0f64, f64::max)
        * 1.15;
    let title = "A cross-CPU hand-off, part by part";
    let text = framed(title, H, |root| {
        let mut legend = Vec::new();
        let mut c = plot(root).build_cartesian_2d(-0.5f64..1.5f64, 0.0..ymax)?;
        let names = [
            "full hand-off, measured".to_string(),
            "its parts, stacked".to_string(),
        ];
        let name_at = |v: &f64| category_at(&names, *v);
        let mut mesh = c.configure_mesh();
        mesh.disable_x_mesh()
            .x_labels(5)
            .x_label_formatter(&name_at)
            .y_label_formatter(&|v| fmt_ns(*v))
            .y_desc("per round trip (two hand-offs), median");
        mesh_style(&mut mesh).draw()?;
        let grey = RGBColor(110, 110, 110);
        c.draw_series([Rectangle::new(
            [(-0.3, 0.0), (0.3, s.median)],
            grey.filled(),
        )])?;
        c.draw_series([PathElement::new(
            vec![(0.0, s.ci95_lo), (0.0, s.ci95_hi)],
            BLACK.stroke_width(1),
        )])?;
        legend.push(entry(
            format!("full hand-off: {}", fmt_ns(s.median)),
            grey,
            Mark::Bar,
        ));
        let mut base = 0.0;
        for (i, &(name, median, lo, hi)) in parts.iter().enumerate() {
            let col = color(i);
            let zero = lo <= 0.0 && hi >= 0.0;
            let note = if zero {
                ", indistinguishable from zero"
            } else {
                ""
            };
            legend.push(entry(
                format!("{}: {}{note}", words(name), fmt_ns(median)),
                col,
                Mark::Bar,
            ));
            if median <= 0.0 {
                continue;
            }
            let top = base + median;
            c.draw_series([Rectangle::new([(0.7, base), (1.3, top)], col.filled())])?;
            c.draw_series([PathElement::new(
                vec![(1.0, top - (median - lo)), (1.0, top + (hi - median))],
                BLACK.stroke_width(1),
            )])?;
            base = top;
        }
        legend.push(entry(
            "95% interval (each part's at its top)",
            BLACK,
            Mark::Line,
        ));
        Ok(legend)
    })?;
    Ok(Some(chart(title, "Left: the futex hand-off to the other CPU, round trip median with its 95% interval. Right: the parts it is made of, each a difference of measured variants (coherence floor: two threads polling one cache line; syscall and switch path: the same hand-off on one CPU; IPI: a membarrier with the peer running minus with it blocked, once per hand-off; idle exit: only where a polling idle state can be set against a halting one; residual: what is left). A part with a negative median is listed, not drawn.", text)))
}
