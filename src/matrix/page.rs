//! The matrix as a document (report/doc.rs's blocks): Markdown, and one
//! self-contained HTML page with a small chart per quantity across the
//! runs, each median drawn with its 95% interval.

use super::build::{Matrix, MatrixRow};
use super::render::{cell_lines, head, history_lines, preamble};
use crate::report::doc::{Block, Chart, Doc, Table};
use crate::units::fmt_value;
use plotters::prelude::*;

const W: u32 = 640;
const H: u32 = 260;
const FONT: &str = "sans-serif";
/// The report's first colour (Tableau 10's blue), and a flagged point's.
const INK: RGBColor = RGBColor(31, 119, 180);
const FLAGGED: RGBColor = RGBColor(214, 39, 40);

/// The document: what the runs are, the table, the history; with `charts`
/// one chart per quantity (the HTML page).
pub fn doc(m: &Matrix, charts: bool) -> anyhow::Result<Doc> {
    let mut d = Doc {
        title: "tasklab matrix".into(),
        ..Doc::default()
    };
    d.heading(1, "The runs", "runs");
    d.push(Block::Bullets(preamble(m)));
    d.push(Block::Table(Table {
        head: ["run", "class", "file"].map(String::from).to_vec(),
        rows: m
            .columns
            .iter()
            .map(|c| {
                vec![
                    c.label.clone(),
                    format!("{} ({})", c.class_mark, c.class),
                    c.source.clone(),
                ]
            })
            .collect(),
        right: vec![],
    }));
    d.heading(1, "The matrix", "matrix");
    let mut head_row = vec!["quantity".to_string()];
    head_row.extend((0..m.columns.len()).map(|n| head(m, n).join(" ")));
    d.push(Block::Table(Table {
        head: head_row,
        rows: m
            .rows
            .iter()
            .map(|r| {
                let mut v = vec![r.pick.name.clone()];
                v.extend((0..m.columns.len()).map(|n| cell_lines(r, n).join(" ")));
                v
            })
            .collect(),
        right: (1..=m.columns.len()).collect(),
    }));
    d.push(Block::Aside(
        "~ noisy, ! flagged (no verdict rests on it), — not measured in that run; ‡ a ratio across hardware classes".into(),
    ));
    let h = history_lines(m);
    if !h.is_empty() {
        d.heading(1, "History", "history");
        d.push(Block::Bullets(h));
    }
    if !m.notes.is_empty() {
        d.push(Block::Bullets(
            m.notes.iter().map(|n| format!("note: {n}")).collect(),
        ));
    }
    if charts {
        d.heading(1, "Each quantity across the runs", "charts");
        for (i, r) in m.rows.iter().enumerate() {
            if let Some(c) = chart(m, r, i)? {
                d.push(Block::Chart(c));
            }
        }
    }
    Ok(d)
}

/// One quantity: a point per run at its median, whiskers to its interval;
/// a flagged figure in red. None when no run has it.
fn chart(m: &Matrix, r: &MatrixRow, i: usize) -> anyhow::Result<Option<Chart>> {
    let pts: Vec<(usize, f64, f64, f64, bool)> = r
        .cells
        .iter()
        .enumerate()
        .filter_map(|(n, c)| c.as_ref().map(|c| (n, c.lo, c.median, c.hi, c.mark == "!")))
        .filter(|p| p.1.is_finite() && p.2.is_finite() && p.3.is_finite())
        .collect();
    if pts.is_empty() {
        return Ok(None);
    }
    let lo = pts
        .iter()
        .map(|p| p.1.min(p.2))
        .fold(f64::INFINITY, f64::min)
        .min(0.0);
    let hi = pts
        .iter()
        .map(|p| p.3.max(p.2))
        .fold(f64::NEG_INFINITY, f64::max);
    let hi = if hi > lo {
        hi + (hi - lo) * 0.08
    } else {
        lo + 1.0
    };
    let n = m.columns.len();
    let labels: Vec<String> = m.columns.iter().map(|c| c.label.clone()).collect();
    let unit = r.unit;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (W, H)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut c = ChartBuilder::on(&root)
            .caption(&r.pick.name, (FONT, 16))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(90)
            .build_cartesian_2d(-0.5..n as f64 - 0.5, lo..hi)?;
        c.configure_mesh()
            .disable_x_mesh()
            .x_labels(n)
            .x_label_formatter(&|x| {
                let k = x.round();
                if (x - k).abs() < 1e-6 && k >= 0.0 {
                    labels.get(k as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .y_label_formatter(&|v| fmt_value(*v, unit))
            .label_style((FONT, 12))
            .light_line_style(RGBColor(240, 240, 240))
            .draw()?;
        for &(k, l, med, h, flagged) in &pts {
            let ink = if flagged { FLAGGED } else { INK };
            let x = k as f64;
            let cap = 0.06;
            c.draw_series([
                PathElement::new(vec![(x, l), (x, h)], ink.stroke_width(2)),
                PathElement::new(vec![(x - cap, l), (x + cap, l)], ink.stroke_width(2)),
                PathElement::new(vec![(x - cap, h), (x + cap, h)], ink.stroke_width(2)),
            ])?;
            c.draw_series(std::iter::once(Circle::new(
                (k as f64, med),
                4,
                ink.filled(),
            )))?;
        }
        root.present()?;
    }
    Ok(Some(Chart {
        file: format!("chart-matrix-{}.svg", i + 1),
        title: r.pick.name.clone(),
        caption: format!(
            "each run's median with its 95% interval ({} {})",
            r.pick.experiment, r.pick.metric
        ),
        svg,
        own_page: None,
    }))
}
