//! The report's charts, drawn as SVG with plotters from a results file: the
//! seed's launch time vs memory image, switch cost by mechanism and
//! placement, the indirect cost vs working set, thread memory vs thread
//! count, and speedup vs workers. A chart whose experiment is missing from
//! the run is simply not drawn.

use super::doc::Chart;
use super::seeds::short_hw;
use crate::results::{ExperimentResult, Metric, RunResults};
use crate::units::{fmt_ns, fmt_short_size};
use plotters::chart::MeshStyle;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::collections::BTreeMap;

const W: u32 = 960;
const H: u32 = 540;
const FONT: &str = "sans-serif";

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

fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// Every chart this run has the figures for, with the group it belongs to.
pub fn all(r: &RunResults) -> Vec<(&'static str, Chart)> {
    let mut out = Vec::new();
    let mut add = |group: &'static str, c: anyhow::Result<Option<Chart>>| match c {
        Ok(Some(c)) => out.push((group, c)),
        Ok(None) => {}
        // A drawing error is a bug, never a reason to lose the report.
        Err(e) => eprintln!("tasklab: a chart could not be drawn: {e:#}"),
    };
    if let Some(e) = r.measured("spawn.heap") {
        add("spawn", launch_vs_heap(e));
    }
    if let Some(e) = r.measured("switch.pingpong") {
        add("switch", switch_by_placement(e));
    }
    if let Some(e) = r.measured("switch.indirect") {
        add("switch", indirect_vs_working_set(e));
    }
    if let Some(e) = r.measured("memory.threads") {
        add("memory", thread_memory(e));
    }
    if let Some(e) = r.measured("parallel.average") {
        add("parallel", speedup(e));
    }
    out
}

/// How a legend entry is drawn.
#[derive(Clone, Copy)]
enum Mark {
    Line,
    Dashed,
    Dotted,
    Cross,
    Bar,
}

struct Entry {
    label: String,
    color: RGBColor,
    mark: Mark,
}

fn entry(label: impl Into<String>, color: RGBColor, mark: Mark) -> Entry {
    Entry {
        label: label.into(),
        color,
        mark,
    }
}

/// Room on the right for the legend, so it never covers a line.
const LEGEND_W: u32 = 260;
/// Characters of legend text per line (plotters draws a size-16 font at 13 px).
const LEGEND_CHARS: usize = 30;

/// A titled SVG canvas of `W`×`h`: the plot on the left, drawn by `draw`,
/// which returns the legend entries drawn on the right.
fn framed(
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
fn plot<'a, 'b>(
    root: &'a DrawingArea<SVGBackend<'b>, Shift>,
) -> ChartBuilder<'a, 'b, SVGBackend<'b>> {
    let mut b = ChartBuilder::on(root);
    b.margin(14).x_label_area_size(48).y_label_area_size(78);
    b
}

/// The fonts and grid every chart shares.
fn mesh_style<'m, 'a, 'b, X: Ranged, Y: Ranged, DB: DrawingBackend>(
    m: &'m mut MeshStyle<'a, 'b, X, Y, DB>,
    size: u32,
) -> &'m mut MeshStyle<'a, 'b, X, Y, DB> {
    m.label_style((FONT, size))
        .axis_desc_style((FONT, size + 1))
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

fn legend(area: &DrawingArea<SVGBackend, Shift>, entries: &[Entry]) -> anyhow::Result<()> {
    let style = TextStyle::from((FONT, 16).into_font())
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
            Mark::Bar => area.draw(&Rectangle::new(
                [(x0 + 4, y - 6), (x0 + 20, y + 6)],
                c.filled(),
            ))?,
        }
        for (i, line) in wrap(&e.label, LEGEND_CHARS).iter().enumerate() {
            area.draw(&Text::new(
                line.clone(),
                (x1 + 8, y + 16 * i as i32),
                style.clone(),
            ))?;
        }
        y += 16 * wrap(&e.label, LEGEND_CHARS).len() as i32 + 10;
    }
    Ok(())
}

/// Tick marks for a log axis: 1, 2, 5 x 10^k for times, powers of two
/// (every second or fourth when they crowd) for sizes.
fn log_ticks(r: &std::ops::Range<f64>, base: f64) -> Vec<f64> {
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
fn bytes_axis(
    r: &std::ops::Range<f64>,
) -> plotters::coord::combinators::WithKeyPoints<plotters::coord::combinators::LogCoord<f64>> {
    r.clone()
        .log_scale()
        .base(2.0)
        .with_key_points(log_ticks(r, 2.0))
}

/// A log range from a power of `base` at or below the smallest value (so
/// the axis has a label at its foot) to a little above the largest.
fn log_axis(values: impl Iterator<Item = f64>, base: f64) -> Option<std::ops::Range<f64>> {
    let r = log_range(values)?;
    let foot = base.powf((r.start * 1.2).log(base).floor());
    Some(foot..r.end)
}

/// A log range that holds every value with some air around it.
fn log_range(values: impl Iterator<Item = f64>) -> Option<std::ops::Range<f64>> {
    let (lo, hi) = values
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    (hi > 0.0).then(|| lo / 1.6..hi * 1.6)
}

/// The seed's figure: launch time against the parent's heap, log x, one
/// line per creation method, the seeds' own points overlaid.
fn launch_vs_heap(e: &ExperimentResult) -> anyhow::Result<Option<Chart>> {
    let mut lines: BTreeMap<(String, String), Vec<(f64, f64)>> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for m in e.metrics_named("lifecycle_ns") {
        let (Some(method), Some(bytes)) = (m.label("method"), m.label_num("heap_bytes")) else {
            continue;
        };
        if bytes == 0 {
            continue;
        }
        if !order.iter().any(|o| o == method) {
            order.push(method.to_string());
        }
        let thp = m.label("thp").unwrap_or("off").to_string();
        lines
            .entry((method.to_string(), thp))
            .or_default()
            .push((bytes as f64, m.summary.median));
    }
    let seeds: Vec<(&Metric, f64)> = e
        .metrics
        .iter()
        .filter_map(|m| Some((m, m.label_num("heap_bytes")? as f64)))
        .filter(|(m, b)| m.seed.is_some() && *b > 0.0)
        .collect();
    if lines.is_empty() {
        return Ok(None);
    }
    for pts in lines.values_mut() {
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    let all_x = lines.values().flatten().map(|p| p.0);
    let x = log_range(all_x.chain(seeds.iter().map(|s| s.1))).expect("points");
    let all_y = lines.values().flatten().map(|p| p.1);
    let y = log_axis(
        all_y.chain(seeds.iter().map(|s| s.0.seed.as_ref().expect("seed").mid())),
        10.0,
    )
    .expect("points");
    let text = framed("Launch time vs the parent's memory image", H, |root| {
        let mut legend = Vec::new();
        let mut c = plot(root).build_cartesian_2d(
            bytes_axis(&x),
            y.clone().log_scale().with_key_points(log_ticks(&y, 10.0)),
        )?;
        let mut mesh = c.configure_mesh();
        mesh.x_desc("parent's heap, touched (log scale)")
            .y_desc("create + reap, median (log scale)")
            .x_label_formatter(&|v| fmt_short_size(*v))
            .y_label_formatter(&|v| fmt_ns(*v));
        mesh_style(&mut mesh, 16).draw()?;
        for ((method, thp), pts) in &lines {
            let i = order.iter().position(|o| o == method).unwrap_or(0);
            let col = color(i);
            let name = if thp == "on" {
                format!("{method}, huge pages")
            } else {
                method.clone()
            };
            let style = col.stroke_width(2);
            if thp == "on" {
                c.draw_series(DashedLineSeries::new(pts.iter().copied(), 8, 5, style))?;
                legend.push(entry(name, col, Mark::Dashed));
            } else {
                c.draw_series(LineSeries::new(pts.iter().copied(), style))?;
                legend.push(entry(name, col, Mark::Line));
            }
            c.draw_series(pts.iter().map(|&p| Circle::new(p, 3, col.filled())))?;
        }
        for (m, bytes) in &seeds {
            let s = m.seed.as_ref().expect("seed");
            let method = m.label("method").unwrap_or("?");
            let i = order.iter().position(|o| o == method).unwrap_or(0);
            let col = color(i);
            let what = match m.name.as_str() {
                "lifecycle_ns" => "",
                "parent_return_ns" => " (to the parent's return)",
                "child_start_ns" => " (to the child's start)",
                other => other,
            };
            let label = format!(
                "seed {} ({}): {method}{what}",
                &s.source[..3.min(s.source.len())],
                short_hw(&s.hardware)
            );
            c.draw_series(std::iter::once(Cross::new(
                (*bytes, s.mid()),
                7,
                col.stroke_width(3),
            )))?;
            legend.push(entry(label, col, Mark::Cross));
        }
        Ok(legend)
    })?;
    Ok(Some(Chart {
        file: "chart-launch-vs-heap.svg".into(),
        title: "Launch time vs the parent's memory image".into(),
        caption: "One line per creation method: create a task and reap it, median of warm launches, against the touched heap of the parent (the 0 B heap is in the table, not on a log axis). Dashed: fork with the heap on transparent huge pages. Crosses: the seeds' published figures, on their machines.".into(),
        svg: text,
    }))
}

/// Grouped bars, log y: one group per mechanism, one bar per placement.
fn switch_by_placement(e: &ExperimentResult) -> anyhow::Result<Option<Chart>> {
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
            mesh_style(&mut mesh, 16).draw()?;
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
    Ok(Some(Chart {
        file: "chart-switch-placement.svg".into(),
        title: "Context switch cost by mechanism and placement".into(),
        caption: "Median cost of one switch (half a round trip); whiskers: 95% confidence interval of the median. same cpu: both tasks pinned to one CPU, so every hand-off is a switch; two cpus: pinned apart, so every hand-off wakes the other CPU; two cpus awake: apart, with the other CPU kept busy-awake; unpinned: where the scheduler put them.".into(),
        svg: text,
    }))
}

/// The indirect cost of a switch (caches refilled) against the working set.
fn indirect_vs_working_set(e: &ExperimentResult) -> anyhow::Result<Option<Chart>> {
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
        mesh_style(&mut mesh, 16).draw()?;
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
    Ok(Some(Chart {
        file: "chart-switch-indirect.svg".into(),
        title: "Indirect cost of a switch vs working set".into(),
        caption: "Two tasks on one CPU each walk a working set between hand-offs. The indirect cost is what the switch adds beyond itself: the caches and TLB the other task evicted, refilled.".into(),
        svg: text,
    }))
}

/// Three panels (virtual, resident, kernel) of memory against thread count,
/// one line per stack variant.
fn thread_memory(e: &ExperimentResult) -> anyhow::Result<Option<Chart>> {
    // variant -> threads -> (virtual, resident, kernel) in bytes
    let mut data: BTreeMap<String, BTreeMap<u64, [f64; 3]>> = BTreeMap::new();
    let mut variants: Vec<String> = Vec::new();
    for m in &e.metrics {
        let (Some(v), Some(n)) = (m.label("variant"), m.label_num("threads")) else {
            continue;
        };
        let slot = match m.name.as_str() {
            "vm_size_growth_kib" => 0,
            "rss_exact_growth_kib" => 1,
            "kernel_stack_per_thread_kib" => 2,
            "page_tables_per_thread_bytes" => 3,
            _ => continue,
        };
        if !variants.iter().any(|x| x == v) {
            variants.push(v.into());
        }
        let cell = data.entry(v.into()).or_default().entry(n).or_default();
        let med = m.summary.median;
        match slot {
            0 | 1 => cell[slot] = med * 1024.0,
            2 => cell[2] += med * 1024.0 * n as f64,
            _ => cell[2] += med * n as f64,
        }
    }
    if data.is_empty() {
        return Ok(None);
    }
    let nmax = data
        .values()
        .flat_map(|d| d.keys())
        .copied()
        .max()
        .unwrap_or(1) as f64;
    let stack_of = |v: &str| {
        e.metrics
            .iter()
            .find(|m| m.label("variant") == Some(v))
            .and_then(|m| m.label("stack"))
            .map(|s| format!("{v} ({s} stack)"))
            .unwrap_or_else(|| v.to_string())
    };
    let panels = [
        "address space (VmSize)",
        "resident (exact RSS)",
        "kernel (stacks + page tables)",
    ];
    let text = framed(
        "Thread memory vs thread count, by stack variant",
        460,
        |root| {
            let areas = root.split_evenly((1, 3));
            for (p, area) in areas.iter().enumerate() {
                let top = data
                    .values()
                    .flat_map(|d| d.values())
                    .map(|c| c[p])
                    .fold(0.0f64, f64::max)
                    .max(1.0);
                // Each panel in the binary unit that suits its largest value.
                let (unit, div) = [("GiB", 30), ("MiB", 20), ("KiB", 10)]
                    .into_iter()
                    .map(|(u, shift)| (u, (1u64 << shift) as f64))
                    .find(|(_, d)| top >= 2.0 * d)
                    .unwrap_or(("bytes", 1.0));
                let mut c = ChartBuilder::on(area)
                    .caption(panels[p], (FONT, 18))
                    .margin(10)
                    .x_label_area_size(40)
                    .y_label_area_size(56)
                    .build_cartesian_2d(0.0..nmax * 1.08, 0.0..top / div * 1.12)?;
                let mut mesh = c.configure_mesh();
                mesh.x_desc("threads")
                    .y_desc(unit)
                    .x_labels(4)
                    .y_labels(6)
                    .x_label_formatter(&|v| crate::units::group_digits(v.round() as i64))
                    .label_style((FONT, 15))
                    .axis_desc_style((FONT, 16))
                    .light_line_style(RGBColor(240, 240, 240))
                    .draw()?;
                for (i, v) in variants.iter().enumerate() {
                    let col = color(i);
                    let mut pts: Vec<(f64, f64)> = vec![(0.0, 0.0)];
                    pts.extend(data[v].iter().map(|(n, cell)| (*n as f64, cell[p] / div)));
                    c.draw_series(LineSeries::new(pts.clone(), col.stroke_width(2)))?;
                    c.draw_series(pts.iter().skip(1).map(|&q| Circle::new(q, 3, col.filled())))?;
                }
            }
            Ok(variants
                .iter()
                .enumerate()
                .map(|(i, v)| entry(stack_of(v), color(i), Mark::Line))
                .collect())
        },
    )?;
    Ok(Some(Chart {
        file: "chart-thread-memory.svg".into(),
        title: "Thread memory vs thread count".into(),
        caption: "What N blocked threads add to the process: address space reserved (mostly stacks, virtual until used), memory resident (the exact count from smaps_rollup), and the kernel's own share outside both (a 16 KiB kernel stack and page tables per thread). Medians of independent rounds.".into(),
        svg: text,
    }))
}

/// Speedup of the parallel average against workers, with the ideal line and
/// the Amdahl curve of the serial fraction the run itself shows.
fn speedup(e: &ExperimentResult) -> anyhow::Result<Option<Chart>> {
    let cpus = e
        .readings
        .iter()
        .find(|r| r.name == "cpus")
        .map(|r| r.value)
        .unwrap_or(1.0)
        .max(1.0);
    // The largest array gives the cleanest figure; one line per variant.
    let n_max = e
        .metrics_named("speedup")
        .filter_map(|m| m.label_num("n"))
        .max();
    // (workers, median, CI low, CI high) per variant
    type Points = Vec<(f64, f64, f64, f64)>;
    let mut lines: Vec<(String, Points)> = Vec::new();
    for m in e.metrics_named("speedup") {
        if m.label_num("n") != n_max {
            continue;
        }
        let (Some(v), Some(w)) = (m.label("variant"), m.label_num("workers")) else {
            continue;
        };
        let s = &m.summary;
        let point = (w as f64, s.median, s.ci95_lo, s.ci95_hi);
        match lines.iter_mut().find(|l| l.0 == v) {
            Some(l) => l.1.push(point),
            None => lines.push((v.to_string(), vec![(1.0, 1.0, 1.0, 1.0), point])),
        }
    }
    if lines.is_empty() {
        return Ok(None);
    }
    for l in &mut lines {
        l.1.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    // Serial fraction: Karp-Flatt of the best speedup with workers <= CPUs.
    let best = lines
        .iter()
        .flat_map(|l| l.1.iter())
        .filter(|p| p.0 > 1.0 && p.0 <= cpus)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .copied();
    let serial = best.and_then(|b| crate::stats::karp_flatt(b.1, b.0));
    let wmax = lines
        .iter()
        .flat_map(|l| l.1.iter().map(|p| p.0))
        .fold(cpus, f64::max);
    let ymax = lines
        .iter()
        .flat_map(|l| l.1.iter().map(|p| p.3))
        .fold(wmax, f64::max)
        * 1.1;
    let text = framed("Speedup of the array average vs workers", H, |root| {
        let mut legend = Vec::new();
        let mut c = plot(root).build_cartesian_2d(0.8..wmax + 0.2, 0.0..ymax)?;
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
            .y_label_formatter(&|v| format!("{v:.1}x"));
        mesh_style(&mut mesh, 16).draw()?;
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
        if let Some(f) = serial {
            let purple = RGBColor(148, 103, 189);
            c.draw_series(DashedLineSeries::new(
                steps
                    .iter()
                    .map(|&w| (w, crate::stats::amdahl_speedup(f, w.min(cpus)))),
                3,
                4,
                purple.stroke_width(2),
            ))?;
            legend.push(entry(
                format!("Amdahl, serial fraction {:.1}% (Karp-Flatt)", f * 100.0),
                purple,
                Mark::Dotted,
            ));
        }
        for (i, (v, pts)) in lines.iter().enumerate() {
            let col = color([0, 1, 2, 3, 5][i % 5]);
            c.draw_series(LineSeries::new(
                pts.iter().map(|p| (p.0, p.1)),
                col.stroke_width(2),
            ))?;
            legend.push(entry(v.as_str(), col, Mark::Line));
            c.draw_series(pts.iter().map(|p| Circle::new((p.0, p.1), 4, col.filled())))?;
            c.draw_series(
                pts.iter()
                    .skip(1)
                    .map(|p| PathElement::new(vec![(p.0, p.2), (p.0, p.3)], col.stroke_width(1))),
            )?;
        }
        Ok(legend)
    })?;
    Ok(Some(Chart {
        file: "chart-speedup.svg".into(),
        title: "Speedup vs workers".into(),
        caption: "The seed's array average split across forked processes, threads and a work-stealing pool; whiskers: 95% interval of the median. Dashed: the ideal, which stops at the CPU count. Dotted: Amdahl's law with the serial fraction this run shows (Karp-Flatt of the best speedup on at most as many workers as CPUs).".into(),
        svg: text,
    }))
}
