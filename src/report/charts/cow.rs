//! spawn.cow's chart: ns per written page against the share of the heap
//! written, with the child alive (copy-on-write) and with no child, for
//! 4 KiB pages and, where the heap got them, transparent huge pages; each
//! median with its 95% interval as a whisker.

use super::style::{
    category_at, chart, color, dot, entry, framed, log_axis, log_ticks, mesh_style, plot, solid,
    solid_runs, Mark, H, HOLLOW,
};
use crate::experiments::spawn::cow::WRITE_NS;
use crate::measure::rss::ANON_HUGE_KIB;
use crate::metric::key::{CHILD, PAGES, WRITES};
use crate::report::doc::Chart;
use crate::results::ExperimentResult;
use crate::units::fmt_ns;
use plotters::prelude::*;

/// (share written in %, median, CI low, CI high, drawn solid)
type Point = (u64, f64, f64, f64, bool);

/// The series drawn, in legend order: pages, child, words.
const SERIES: &[(&str, &str, &str)] = &[
    ("4k", "alive", "4 KiB pages, child alive"),
    ("4k", "none", "4 KiB pages, no child"),
    ("thp", "alive", "THP, child alive"),
    ("thp", "none", "THP, no child"),
];

fn pct(m: &crate::results::Metric) -> Option<u64> {
    m.label(WRITES)?.trim_end_matches('%').parse().ok()
}

/// Every point of one series, by share, flagged ones included (drawn
/// hollow).
fn points(e: &ExperimentResult, pages: &str, child: &str) -> Vec<Point> {
    let mut v: Vec<Point> = e
        .metrics
        .iter()
        .filter(|m| m.name == WRITE_NS.name)
        .filter(|m| m.label(PAGES) == Some(pages) && m.label(CHILD) == Some(child))
        .filter_map(|m| {
            let s = &m.summary;
            Some((pct(m)?, s.median, s.ci95_lo, s.ci95_hi, solid(s)))
        })
        .collect();
    v.sort_by_key(|p| p.0);
    v
}

/// Whether the THP heap got huge pages (its figures are 4 KiB pages' if not).
fn huge_pages(e: &ExperimentResult) -> bool {
    e.readings.iter().any(|r| {
        r.name == ANON_HUGE_KIB.name
            && r.labels.get(PAGES).is_some_and(|p| p == "thp")
            && r.value > 0.0
    })
}

/// Lines over evenly spaced shares, log y.
pub(super) fn draw(e: &ExperimentResult) -> anyhow::Result<Option<Chart>> {
    let thp = huge_pages(e);
    let series: Vec<(usize, &str, Vec<Point>)> = SERIES
        .iter()
        .enumerate()
        .filter(|(_, (pages, _, _))| *pages == "4k" || thp)
        .map(|(i, (pages, child, words))| (i, *words, points(e, pages, child)))
        .filter(|s| !s.2.is_empty())
        .collect();
    if series.is_empty() {
        return Ok(None);
    }
    let mut shares: Vec<u64> = series
        .iter()
        .flat_map(|s| s.2.iter().map(|p| p.0))
        .collect();
    shares.sort_unstable();
    shares.dedup();
    let at = |pct: u64| shares.iter().position(|&s| s == pct).unwrap_or(0) as f64;
    let y = log_axis(
        series
            .iter()
            .flat_map(|s| s.2.iter().flat_map(|p| [p.1, p.2, p.3])),
        10.0,
    )
    .expect("points");
    let n = shares.len() as f64;
    let title = "Writes after fork: ns per page vs share written";
    let text = framed(title, H, |root| {
        let mut legend = Vec::new();
        let mut c = plot(root).build_cartesian_2d(
            -0.5..n - 0.5,
            y.clone().log_scale().with_key_points(log_ticks(&y, 10.0)),
        )?;
        let names: Vec<String> = shares.iter().map(|s| format!("{s}%")).collect();
        let name_at = |v: &f64| category_at(&names, *v);
        let mut mesh = c.configure_mesh();
        mesh.disable_x_mesh()
            .x_labels(shares.len() * 2 + 1)
            .x_label_formatter(&name_at)
            .y_label_formatter(&|v| fmt_ns(*v))
            .x_desc("share of the heap written")
            .y_desc("per written page, median");
        mesh_style(&mut mesh).draw()?;
        let k = series.len() as f64;
        for (j, (i, words, pts)) in series.iter().enumerate() {
            // 4 KiB blue, THP orange; no child dashed.
            let col = color(i / 2);
            let dashed = i % 2 == 1;
            // Side by side around each share, so whiskers never overlap.
            let dx = (j as f64 - (k - 1.0) / 2.0) * 0.04;
            let marked: Vec<((f64, f64), bool)> =
                pts.iter().map(|p| ((at(p.0) + dx, p.1), p.4)).collect();
            let style = col.stroke_width(3);
            for line in solid_runs(&marked) {
                if dashed {
                    c.draw_series(DashedLineSeries::new(line, 8, 5, style))?;
                } else {
                    c.draw_series(LineSeries::new(line, style))?;
                }
            }
            c.draw_series(marked.iter().map(|&(p, ok)| dot(p, 4, col, ok)))?;
            for p in pts {
                // A whisker whose end is at or below zero stops at the axis.
                let lo = p.2.max(y.start);
                let x = at(p.0) + dx;
                c.draw_series([PathElement::new(
                    vec![(x, lo), (x, p.3.max(lo))],
                    col.stroke_width(2),
                )])?;
            }
            let last = pts.last().expect("points");
            legend.push(entry(
                format!("{words}: {} at {}%", fmt_ns(last.1), last.0),
                col,
                if dashed { Mark::Dashed } else { Mark::Line },
            ));
        }
        legend.push(entry("95% interval of the median", BLACK, Mark::Line));
        if series.iter().flat_map(|s| &s.2).any(|p| !p.4) {
            legend.push(entry(HOLLOW, BLACK, Mark::Hollow));
        }
        Ok(legend)
    })?;
    let thp_note = if thp {
        ""
    } else {
        " The THP heap got no huge pages on this machine, so only 4 KiB pages are drawn."
    };
    Ok(Some(chart(
        title,
        &format!("The parent writes a share of its touched heap, each page written once, while a forked child stays alive (solid: every first write copies the page) and with no child (dashed: the same writes to pages already its own). Log time axis, shares evenly spaced; 0% writes nothing, so it has no per-page cost. Medians of independent rounds with their 95% intervals as whiskers (a whisker reaching zero stops at the axis); a point that is imprecise (~) or flagged (!) is drawn hollow and no line joins it.{thp_note}"),
        text,
    )))
}
