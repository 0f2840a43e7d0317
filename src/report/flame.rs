//! `run --why` drawn: a flame graph of an attributed series' folded stacks
//! (`a;b;c COUNT`, root first, as `results.json` keeps them), and a
//! differential one of a series attributed on both sides of an A/B run,
//! both drawn by `inferno` (Brendan Gregg's FlameGraph, in Rust).
//!
//! inferno's SVG carries its own script (click to zoom, Ctrl+F to search)
//! that reads the page's ids (`frames`, `details`, ...) and its first
//! `<svg>`: so the HTML shows each graph in a frame of its own
//! ([`super::doc::Chart::own_page`]), where its ids and script meet no
//! other chart's; the file beside report.md is the same SVG, interactive
//! when opened alone.

use super::doc::Chart;
use inferno::flamegraph::{self, color::BackgroundColor, Options};
use std::str::FromStr;

/// The label of a sample's count in the graph's tooltips.
const COUNT_NAME: &str = "samples";

/// inferno's options as every graph here draws: white behind (so the dark
/// scheme inverts it as it does every chart), colours from the functions'
/// names (the same function the same colour in every graph and every run),
/// and a width that follows the page.
fn options(title: &str, subtitle: &str) -> Options<'static> {
    let mut o = Options::default();
    o.title = title.to_string();
    o.subtitle = Some(subtitle.to_string());
    o.count_name = COUNT_NAME.to_string();
    o.hash = true;
    o.bgcolors = BackgroundColor::from_str("#ffffff").ok();
    o.font_type = "sans-serif".to_string();
    o.font_size = 13;
    o
}

/// Folded lines, sorted as inferno reads them: a stack's frames may hold
/// no space (the count follows the last one), so one is written `_`.
fn lines(folded: &[(String, u64)]) -> Vec<String> {
    let mut out: Vec<String> = folded
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(stack, n)| format!("{} {n}", stack.replace(' ', "_")))
        .collect();
    out.sort();
    out
}

fn svg_of(opt: &mut Options, lines: &[String]) -> anyhow::Result<String> {
    let mut out = Vec::new();
    flamegraph::from_lines(opt, lines.iter().map(String::as_str), &mut out)?;
    Ok(String::from_utf8(out)?)
}

/// The flame graph of `folded`; None when it holds no sample.
pub fn graph(
    title: &str,
    subtitle: &str,
    folded: &[(String, u64)],
) -> anyhow::Result<Option<String>> {
    let lines = lines(folded);
    if lines.is_empty() {
        return Ok(None);
    }
    svg_of(&mut options(title, subtitle), &lines).map(Some)
}

/// The differential flame graph from `before` to `after`: the frames as
/// `after` has them, red where a stack's share of the samples grew, blue
/// where it fell (`before` scaled to `after`'s samples, so the colours
/// compare shares, not counts). None when either side has no sample.
pub fn differential(
    title: &str,
    subtitle: &str,
    before: &[(String, u64)],
    after: &[(String, u64)],
) -> anyhow::Result<Option<String>> {
    let (b, a) = (lines(before), lines(after));
    if b.is_empty() || a.is_empty() {
        return Ok(None);
    }
    let mut both = Vec::new();
    inferno::differential::from_readers(
        inferno::differential::Options {
            normalize: true,
            strip_hex: false,
        },
        b.join("\n").as_bytes(),
        a.join("\n").as_bytes(),
        &mut both,
    )?;
    let mut both: Vec<String> = String::from_utf8(both)?.lines().map(String::from).collect();
    both.sort();
    svg_of(&mut options(title, subtitle), &both).map(Some)
}

/// A flame graph as the report shows it: in a frame of its own in the
/// HTML, as tall as the graph, a file beside report.md.
pub fn chart(file: String, title: &str, caption: String, svg: String) -> Chart {
    let height = height(&svg).unwrap_or(400);
    Chart {
        file,
        title: title.into(),
        caption,
        svg,
        own_page: Some(height),
    }
}

/// The height inferno gave its SVG's root element, in px.
fn height(svg: &str) -> Option<u32> {
    let root = &svg[svg.find("<svg")?..];
    let root = &root[..root.find('>')?];
    let at = root.find(" height=\"")? + " height=\"".len();
    root[at..].split('"').next()?.parse().ok()
}

#[cfg(test)]
#[path = "flame_tests.rs"]
mod tests;
