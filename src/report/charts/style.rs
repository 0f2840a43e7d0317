//! What every chart shares: the canvas with its title and a legend on the
//! right, the plot area, fonts and grid, the palette, and the log axes
//! (times ticked 1-2-5, sizes ticked at powers of two). No seed of its own:
//! the charts that use it name theirs.

#[cfg(test)]
#[path = "style_tests.rs"]
mod tests;

use crate::report::doc::Chart;
use plotters::chart::MeshStyle;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

pub(super) const W: u32 = 960;
pub(super) const H: u32 = 400;
pub(super) const FONT: &str = "sans-serif";
/// Every label's size: plotters writes `TEXT / 1.24` px, 15.3 px on the
/// 960-wide canvas, which stays at least 11 px on a page 800 px wide (the
/// chart shrunk to about 0.76).
pub(super) const TEXT: u32 = 19;

/// Tableau 10: distinct on screen and in print.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

pub(super) fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// How a legend entry is drawn.
#[derive(Clone, Copy)]
pub(super) enum Mark {
    Line,
    Dashed,
    Dotted,
    Cross,
    Triangle,
    Square,
    Bar,
    /// A ring: a point drawn hollow (imprecise or flagged).
    Hollow,
}

pub(super) struct Entry {
    label: String,
    color: RGBColor,
    mark: Mark,
}

impl Entry {
    pub(super) fn label(&self) -> &str {
        &self.label
    }
}

pub(super) fn entry(label: impl Into<String>, color: RGBColor, mark: Mark) -> Entry {
    Entry {
        label: label.into(),
        color,
        mark,
    }
}

/// Room on the right for the legend, so it never covers a line.
const LEGEND_W: u32 = 280;
/// Characters of legend text per line (a size-19 font is 15.3 px).
const LEGEND_CHARS: usize = 27;

/// A titled SVG canvas of `W`×`h`: the plot on the left, drawn by `draw`,
/// which returns the legend entries drawn on the right.
pub(super) fn framed(
    title: &str,
    h: u32,
    draw: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> anyhow::Result<Vec<Entry>>,
) -> anyhow::Result<String> {
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (W, h)).into_drawing_area();
        root.fill(&WHITE)?;
        let root = root.titled(title, (FONT, 24))?;
        let (plot, side) = root.split_horizontally(W - LEGEND_W);
        let entries = draw(&plot)?;
        legend(&side, &entries)?;
        root.present()?;
    }
    Ok(text)
}

/// The plot area every single-panel chart starts from.
pub(super) fn plot<'a, 'b>(
    root: &'a DrawingArea<SVGBackend<'b>, Shift>,
) -> ChartBuilder<'a, 'b, SVGBackend<'b>> {
    let mut b = ChartBuilder::on(root);
    b.margin(14).x_label_area_size(48).y_label_area_size(100);
    b
}

/// The fonts and grid every chart shares.
pub(super) fn mesh_style<'m, 'a, 'b, X: Ranged, Y: Ranged, DB: DrawingBackend>(
    m: &'m mut MeshStyle<'a, 'b, X, Y, DB>,
) -> &'m mut MeshStyle<'a, 'b, X, Y, DB> {
    m.label_style((FONT, TEXT))
        .axis_desc_style((FONT, TEXT))
        .light_line_style(RGBColor(240, 240, 240))
}

/// Greedy word wrap for legend labels.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split_whitespace() {
        let last = lines.last_mut().expect("one line");
        if !last.is_empty() && last.chars().count() + 1 + word.chars().count() > width {
            lines.push(word.to_string());
        } else {
            if !last.is_empty() {
                last.push(' ');
            }
            last.push_str(word);
        }
    }
    lines
}

/// A legend line's height.
const LINE: i32 = 18;

fn legend(area: &DrawingArea<SVGBackend, Shift>, entries: &[Entry]) -> anyhow::Result<()> {
    let style = TextStyle::from((FONT, TEXT).into_font())
        .color(&RGBColor(40, 40, 40))
        .pos(Pos::new(HPos::Left, VPos::Center));
    let mut y = 40;
    for e in entries {
        let c = e.color;
        let (x0, x1) = (8, 34);
        match e.mark {
            Mark::Line => {
                area.draw(&PathElement::new(vec![(x0, y), (x1, y)], c.stroke_width(3)))?
            }
            Mark::Dashed => {
                for x in [x0, x0 + 10, x0 + 20] {
                    area.draw(&PathElement::new(
                        vec![(x, y), (x + 6, y)],
                        c.stroke_width(3),
                    ))?;
                }
            }
            Mark::Dotted => {
                for x in (x0..x1).step_by(5) {
                    area.draw(&PathElement::new(
                        vec![(x, y), (x + 2, y)],
                        c.stroke_width(3),
                    ))?;
                }
            }
            Mark::Cross => area.draw(&Cross::new((x0 + 13, y), 5, c.stroke_width(3)))?,
            Mark::Triangle => area.draw(&TriangleMarker::new((x0 + 13, y), 7, c.filled()))?,
            Mark::Square => area.draw(&Rectangle::new(
                [(x0 + 8, y - 5), (x0 + 18, y + 5)],
                c.stroke_width(2),
            ))?,
            Mark::Bar => area.draw(&Rectangle::new(
                [(x0 + 4, y - 6), (x0 + 20, y + 6)],
                c.filled(),
            ))?,
            Mark::Hollow => area.draw(&Circle::new((x0 + 13, y), 5, c.stroke_width(2)))?,
        }
        for (i, line) in wrap(&e.label, LEGEND_CHARS).iter().enumerate() {
            area.draw(&Text::new(
                line.clone(),
                (x1 + 8, y + LINE * i as i32),
                style.clone(),
            ))?;
        }
        y += LINE * wrap(&e.label, LEGEND_CHARS).len() as i32 + 9;
    }
    Ok(())
}

/// A label at the end of a line: where the line ends, in the plot's pixels.
pub(super) struct EndLabel {
    pub at: (i32, i32),
    pub text: String,
    pub color: RGBColor,
}

/// Draws each label just right of where its line ends, moved apart
/// vertically so no two overlap and kept within the plot's pixel rows
/// `rows` (`plotting_area().get_pixel_range().1`), with a thin leader where
/// one moved. `at` is in backend pixels (`ChartContext::backend_coord`).
pub(super) fn end_labels(
    area: &DrawingArea<SVGBackend, Shift>,
    mut labels: Vec<EndLabel>,
    rows: std::ops::Range<i32>,
) -> anyhow::Result<()> {
    let (bx, by) = area.get_base_pixel();
    labels.sort_by_key(|l| l.at.1);
    let mut ys: Vec<i32> = labels.iter().map(|l| l.at.1).collect();
    spread(&mut ys, LINE);
    within(&mut ys, LINE, rows.start + LINE / 2, rows.end - LINE / 2);
    for (l, y) in labels.iter().zip(ys) {
        let (x, y0) = (l.at.0 - bx + 6, l.at.1 - by);
        let y = y - by;
        if y != y0 {
            area.draw(&PathElement::new(
                vec![(x - 4, y0), (x + 4, y)],
                l.color.stroke_width(1),
            ))?;
        }
        let style = TextStyle::from((FONT, TEXT).into_font())
            .color(&l.color)
            .pos(Pos::new(HPos::Left, VPos::Center));
        area.draw(&Text::new(l.text.clone(), (x + 7, y), style))?;
    }
    Ok(())
}

/// Moves sorted positions apart until neighbours are at least `gap` apart,
/// keeping the group centred where it was.
pub(super) fn spread(ys: &mut [i32], gap: i32) {
    for _ in 0..ys.len() {
        let mut moved = false;
        for i in 1..ys.len() {
            let short = gap - (ys[i] - ys[i - 1]);
            if short > 0 {
                ys[i - 1] -= short / 2;
                ys[i] += short - short / 2;
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
}

/// Width of one character of a label, in the chart's pixels: a generous
/// 0.6 em of the `TEXT / 1.24` px font, so estimates err towards room.
const CHAR_W: f64 = TEXT as f64 / 1.24 * 0.6;

/// Which ticks, at pixel positions `xs` (ascending) with these labels, get
/// their label shown: the last always, then leftwards each one that clears
/// the label kept to its right. The ticks themselves all stay.
pub(super) fn labelled_ticks(xs: &[i32], labels: &[String]) -> Vec<bool> {
    let width = |l: &String| l.chars().count() as f64 * CHAR_W;
    let mut keep = vec![false; xs.len()];
    let mut right: Option<usize> = None;
    for i in (0..xs.len().min(labels.len())).rev() {
        let clear = right.is_none_or(|r| {
            f64::from(xs[r] - xs[i]) >= (width(&labels[r]) + width(&labels[i])) / 2.0 + 10.0
        });
        if clear {
            keep[i] = true;
            right = Some(i);
        }
    }
    keep
}

/// Pushes sorted positions, `gap` apart, up from below `hi` and then down
/// from above `lo`, each only as far as it must (the top wins when the
/// rows cannot hold them all).
pub(super) fn within(ys: &mut [i32], gap: i32, lo: i32, hi: i32) {
    let mut limit = hi;
    for y in ys.iter_mut().rev() {
        *y = (*y).min(limit);
        limit = *y - gap;
    }
    let mut floor = lo;
    for y in ys.iter_mut() {
        *y = (*y).max(floor);
        floor = *y + gap;
    }
}

/// The label at `v` on a category axis: the categories sit at 0, 1, 2, …
/// and the ticks between them stay blank.
pub(super) fn category_at(names: &[String], v: f64) -> String {
    let r = v.round();
    if (v - r).abs() < 1e-6 && r >= 0.0 {
        names.get(r as usize).cloned().unwrap_or_default()
    } else {
        String::new()
    }
}

/// Tick marks for a log axis: 1, 2, 5 x 10^k for times, powers of two
/// (every second or fourth when they crowd) for sizes.
pub(super) fn log_ticks(r: &std::ops::Range<f64>, base: f64) -> Vec<f64> {
    let (lo, hi) = (r.start * 0.999, r.end * 1.001);
    let k0 = lo.log(base).floor() as i32;
    let k1 = hi.log(base).ceil() as i32;
    let mut out = Vec::new();
    if base == 10.0 {
        for k in k0..=k1 {
            for m in [1.0, 2.0, 5.0] {
                out.push(m * 10f64.powi(k));
            }
        }
        out.retain(|v| *v >= lo && *v <= hi);
        if out.len() > 10 {
            // Many decades: the powers of ten alone.
            out.retain(|v| (v.log10() - v.log10().round()).abs() < 1e-9);
        }
        return out;
    }
    out = (k0..=k1)
        .map(|k| base.powi(k))
        .filter(|v| *v >= lo && *v <= hi)
        .collect();
    let mut step = 1;
    while out.len() / step > 8 {
        step *= 2;
    }
    out.into_iter().step_by(step).collect()
}

/// A log axis of bytes, ticked at powers of two.
pub(super) fn bytes_axis(
    r: &std::ops::Range<f64>,
) -> plotters::coord::combinators::WithKeyPoints<plotters::coord::combinators::LogCoord<f64>> {
    r.clone()
        .log_scale()
        .base(2.0)
        .with_key_points(log_ticks(r, 2.0))
}

/// A log range from a power of `base` at or below the smallest value (so
/// the axis has a label at its foot) to a little above the largest.
pub(super) fn log_axis(
    values: impl Iterator<Item = f64>,
    base: f64,
) -> Option<std::ops::Range<f64>> {
    let r = log_range(values)?;
    let foot = base.powf((r.start * 1.2).log(base).floor());
    Some(foot..r.end)
}

/// A log range that holds every value with some air around it.
pub(super) fn log_range(values: impl Iterator<Item = f64>) -> Option<std::ops::Range<f64>> {
    let (lo, hi) = values
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    (hi > 0.0).then(|| lo / 1.6..hi * 1.6)
}

/// A drawn chart. Its file name is left to the chart table, which `all`
/// stamps on it, so each name is written once.
pub(super) fn chart(title: &str, caption: &str, svg: String) -> Chart {
    Chart {
        file: String::new(),
        title: title.into(),
        caption: caption.into(),
        svg,
        own_page: None,
    }
}

/// Whether a point is drawn solid: settled and precise (no `!` or `~`
/// mark in the tables). Otherwise it is drawn hollow, never left out (so
/// the same charts appear in every run), and no line joins it.
pub(super) fn solid(s: &crate::stats::Summary) -> bool {
    !s.unstable && !crate::stats::compare_text::imprecise(s)
}

/// The runs of consecutive solid points, in order, that a line may join:
/// a line never crosses a hollow point, so a gap in a line is where a
/// point was imprecise or flagged. Runs of a single point draw no line.
pub(super) fn solid_runs<T: Copy>(pts: &[(T, bool)]) -> Vec<Vec<T>> {
    let mut runs: Vec<Vec<T>> = Vec::new();
    let mut cur: Vec<T> = Vec::new();
    for &(p, ok) in pts {
        if ok {
            cur.push(p);
        } else if !cur.is_empty() {
            runs.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        runs.push(cur);
    }
    runs.retain(|r| r.len() >= 2);
    runs
}

/// A point's marker: a filled disc when solid, a ring when not.
pub(super) fn dot<C>(at: C, r: i32, col: RGBColor, solid: bool) -> Circle<C, i32> {
    if solid {
        Circle::new(at, r, col.filled())
    } else {
        Circle::new(at, r + 1, col.stroke_width(2))
    }
}

/// The legend entry and caption words for hollow points.
pub(super) const HOLLOW: &str = "hollow: imprecise (~) or flagged (!), not joined by a line";
