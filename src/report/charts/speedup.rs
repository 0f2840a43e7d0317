//! parallel.average's chart: seed 003's array average split across forked
//! processes (and threads and a pool), as speedup against workers, with the
//! ideal line and the Amdahl curve fitted to every measured point.

use super::style::{
    chart, color, dot, entry, framed, mesh_style, plot, solid, solid_runs, Mark, H, HOLLOW,
};
use crate::experiments::parallel::{program, CPUS, SPEEDUP};
use crate::experiments::seeds::cite_short;
use crate::metric::key::{N, VARIANT, WORKERS};
use crate::report::doc::Chart;
use crate::results::ExperimentResult;
use crate::stats::amdahl::{fit_serial_fraction, Reading, SerialFit, SpeedupPoint};
use crate::stats::amdahl_speedup;
use plotters::prelude::*;

/// Speedup of the parallel average against workers, with the ideal line and
/// the Amdahl curve whose serial fraction is fitted to every measured point.
pub(super) fn draw(e: &ExperimentResult) -> anyhow::Result<Option<Chart>> {
    let cpus = e
        .readings
        .iter()
        .find(|r| r.name == CPUS.name)
        .map(|r| r.value)
        .unwrap_or(1.0)
        .max(1.0);
    // The largest array gives the cleanest figure; one line per variant.
    // Every point, flagged or imprecise ones drawn hollow, not left out.
    let all = || e.metrics.iter().filter(|m| m.name == SPEEDUP.name);
    let n_max = all().filter_map(|m| m.label_num(N)).max();
    // (workers, median, CI low, CI high, drawn solid, flagged) per variant
    type Points = Vec<(f64, f64, f64, f64, bool, bool)>;
    let mut lines: Vec<(String, Points)> = Vec::new();
    for m in all() {
        if m.label_num(N) != n_max {
            continue;
        }
        let (Some(v), Some(w)) = (m.label(VARIANT), m.label_num(WORKERS)) else {
            continue;
        };
        let s = &m.summary;
        let point = (
            w as f64,
            s.median,
            s.ci95_lo,
            s.ci95_hi,
            solid(s),
            s.unstable,
        );
        match lines.iter_mut().find(|l| l.0 == v) {
            Some(l) => l.1.push(point),
            None => lines.push((
                v.to_string(),
                vec![(1.0, 1.0, 1.0, 1.0, true, false), point],
            )),
        }
    }
    if lines.is_empty() {
        return Ok(None);
    }
    for l in &mut lines {
        l.1.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    // Serial fraction: fitted to every settled point of every variant (no
    // conclusion rests on a flagged one); workers beyond the CPUs run no
    // more at once than the CPUs.
    let measured: Vec<SpeedupPoint> = lines
        .iter()
        .flat_map(|l| l.1.iter())
        .filter(|p| !p.5)
        .map(|p| SpeedupPoint {
            workers: p.0.min(cpus),
            speedup: p.1,
            lo: p.2,
            hi: p.3,
        })
        .collect();
    let serial = fit_serial_fraction(&measured);
    // The seed's own speedup: the whole program with one fork (seed 003),
    // as parallel.program records it.
    let seed = program::EXPERIMENT
        .seeds
        .iter()
        .find(|s| s.metric == SPEEDUP.name)
        .and_then(|s| {
            let w: f64 = s.labels.iter().find(|l| l.0 == WORKERS)?.1.parse().ok()?;
            Some((w, (s.lo + s.hi) / 2.0, cite_short(s.source)))
        });
    let wmax = lines
        .iter()
        .flat_map(|l| l.1.iter().map(|p| p.0))
        .chain(seed.iter().map(|s| s.0))
        .fold(cpus, f64::max);
    // Fitted to the data and the seed's point, not to the ideal.
    let ymax = lines
        .iter()
        .flat_map(|l| l.1.iter().map(|p| p.3))
        .chain(seed.iter().map(|s| s.1))
        .fold(1.0, f64::max)
        * 1.1;
    let ymin = lines
        .iter()
        .flat_map(|l| l.1.iter().map(|p| p.2))
        .chain(seed.iter().map(|s| s.1))
        .fold(1.0, f64::min)
        * 0.9;
    let text = framed("Speedup of the array average vs workers", H, |root| {
        let mut legend = Vec::new();
        let mut c = plot(root).build_cartesian_2d(0.8..wmax + 0.2, ymin..ymax)?;
        let mut mesh = c.configure_mesh();
        mesh.x_desc("workers (processes, threads or pool tasks)")
            .y_desc("speedup over serial, median")
            .x_labels(wmax as usize + 1)
            .x_label_formatter(&|v| {
                if (v - v.round()).abs() < 1e-6 {
                    format!("{v:.0}")
                } else {
                    String::new()
                }
            })
            .y_label_formatter(&|v| format!("{v:.2}x"));
        mesh_style(&mut mesh).draw()?;
        let grey = RGBColor(90, 90, 90);
        let steps: Vec<f64> = (0..=100)
            .map(|i| 1.0 + (wmax - 1.0) * i as f64 / 100.0)
            .collect();
        c.draw_series(DashedLineSeries::new(
            steps.iter().map(|&w| (w, w.min(cpus))),
            8,
            5,
            grey.stroke_width(2),
        ))?;
        legend.push(entry(
            format!("ideal on {cpus:.0} CPUs"),
            grey,
            Mark::Dashed,
        ));
        if let Some(f) = serial
            .as_ref()
            .filter(|f| f.reading() == Reading::DoesNotHold)
        {
            // No curve: an estimate outside 0–100% is no fraction.
            legend.push(entry(fit_label(f), RGBColor(148, 103, 189), Mark::Dotted));
        } else if let Some(f) = &serial {
            let purple = RGBColor(148, 103, 189);
            let curve = |f: f64| {
                steps
                    .iter()
                    .map(move |&w| (w, amdahl_speedup(f, w.min(cpus))))
            };
            // The band of the fraction's interval (only when it is one:
            // within 0–100%), then the fitted curve.
            if f.reading() == Reading::Fraction {
                let band: Vec<(f64, f64)> = curve(f.lo).chain(curve(f.hi).rev()).collect();
                c.draw_series(std::iter::once(Polygon::new(
                    band,
                    purple.mix(0.15).filled(),
                )))?;
            }
            c.draw_series(DashedLineSeries::new(
                curve(f.fraction),
                3,
                4,
                purple.stroke_width(2),
            ))?;
            legend.push(entry(fit_label(f), purple, Mark::Dotted));
        }
        for (i, (v, pts)) in lines.iter().enumerate() {
            let col = color([0, 1, 2, 3, 5][i % 5]);
            let marked: Vec<((f64, f64), bool)> = pts.iter().map(|p| ((p.0, p.1), p.4)).collect();
            for line in solid_runs(&marked) {
                c.draw_series(LineSeries::new(line, col.stroke_width(2)))?;
            }
            legend.push(entry(v.as_str(), col, Mark::Line));
            c.draw_series(pts.iter().map(|p| dot((p.0, p.1), 4, col, p.4)))?;
            c.draw_series(
                pts.iter()
                    .skip(1)
                    .map(|p| PathElement::new(vec![(p.0, p.2), (p.0, p.3)], col.stroke_width(1))),
            )?;
        }
        if let Some((w, x, by)) = &seed {
            let black = RGBColor(20, 20, 20);
            c.draw_series(std::iter::once(Cross::new(
                (*w, *x),
                8,
                black.stroke_width(3),
            )))?;
            legend.push(entry(
                format!("{by}: the whole program with one fork, {x:.2}x"),
                black,
                Mark::Cross,
            ));
        }
        if lines.iter().flat_map(|l| &l.1).any(|p| !p.4) {
            legend.push(entry(HOLLOW, BLACK, Mark::Hollow));
        }
        Ok(legend)
    })?;
    let caption = match serial.map(|f| f.reading()) {
        Some(Reading::DoesNotHold) => format!("{CAPTION} {DOES_NOT_HOLD}"),
        Some(Reading::Unbounded) => format!("{CAPTION} {UNBOUNDED}"),
        _ => CAPTION.to_string(),
    };
    Ok(Some(chart("Speedup vs workers", &caption, text)))
}

/// The legend's words for the fit: the fraction and its interval, when it
/// is a fraction; never a share above 100% or below 0%.
fn fit_label(f: &SerialFit) -> String {
    match f.reading() {
        Reading::DoesNotHold => {
            return format!(
                "Amdahl's law does not fit these {} points: the fitted serial share is {}",
                f.points,
                if f.fraction > 1.0 { "above 100%" } else { "below 0%" }
            )
        }
        Reading::Unbounded => {
            return format!(
                "Amdahl fitted to {} points: serial fraction {:.1}%, its interval reaching beyond 0–100% (unbounded)",
                f.points,
                f.fraction * 100.0
            )
        }
        Reading::Fraction => {}
    }
    format!(
        "Amdahl fitted to {} points: serial fraction {:.1}% {}",
        f.points,
        f.fraction * 100.0,
        crate::units::fmt_interval(
            &format!("{:.1}%", f.lo * 100.0),
            &format!("{:.1}%", f.hi * 100.0)
        )
    )
}

const CAPTION: &str = "The seed's array average split across forked processes, threads and a work-stealing pool; whiskers: 95% interval of the median. Dashed: the ideal, which stops at the CPU count. Dotted: Amdahl's law with the serial fraction fitted to every measured point of every variant (weighted least squares of 1/speedup against 1/workers, each point weighted by its interval, workers beyond the CPUs counted as the CPUs); the band: the same fit of the points' interval ends. Cross: the seed's own speedup, of its whole program with one fork on its machine. The axes fit the data and the seed's point; the ideal line leaves the chart where it outgrows them.";

const DOES_NOT_HOLD: &str = "Here the fitted serial fraction lies outside 0–100%: the speedups are not what any serial share could give (below 1 they are a slowdown, above the ideal superlinear), so Amdahl's law does not fit these points and no curve is drawn.";

const UNBOUNDED: &str = "Here the fraction's interval reaches beyond 0–100%, so no band is drawn: the points do not bound the fraction.";
