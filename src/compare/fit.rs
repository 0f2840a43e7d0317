//! Text fitted to the terminal's width, for `compare`, `ab` and `advise`:
//! lines wrapped between words, figures packed whole onto lines, and a
//! table laid out in the columns that fit (a wide column of words wraps
//! inside itself, a figure never breaks). Paint after fitting: a table
//! paints its cells after their padding is measured.

use crate::units::wrap;

/// `text` wrapped to `width` between words, the first line starting with
/// `first`, the others with `rest`, ending in a newline. A figure keeps its
/// unit on its line ("8 KiB" never breaks after the 8).
pub fn line(text: &str, width: usize, first: &str, rest: &str) -> String {
    format!(
        "{}\n",
        wrap(&glued(text), width, first, rest).replace(GLUE, " ")
    )
}

/// Stands for a space that joins a number to its unit while wrapping.
const GLUE: char = '\u{1}';

/// The units a figure is written with, after a space.
const UNITS: &[&str] = &[
    "ns", "µs", "ms", "s", "B", "KiB", "MiB", "GiB", "TiB", "PiB", "CPUs", "MHz",
];

/// `text` with the space between a number and its unit glued.
fn glued(text: &str) -> String {
    let words: Vec<&str> = text.split(' ').collect();
    let mut out = String::with_capacity(text.len());
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            let number = words[i - 1]
                .chars()
                .last()
                .is_some_and(|c| c.is_ascii_digit());
            let unit = UNITS.iter().any(|u| {
                w.strip_prefix(u)
                    .is_some_and(|r| r.chars().all(|c| !c.is_alphanumeric()))
            });
            out.push(if number && unit { GLUE } else { ' ' });
        }
        out.push_str(w);
    }
    out
}

/// `pieces` on lines of at most `width` columns, each piece whole (a piece
/// wider than a line stands alone), `gap` between pieces; the first line
/// starts with `first`, the others with `rest`; ends in a newline.
pub fn pack(pieces: &[String], width: usize, first: &str, rest: &str, gap: &str) -> String {
    let cols = |s: &str| s.chars().count();
    let mut out = String::from(first);
    let mut at = cols(first);
    let mut fresh = true;
    for p in pieces.iter().filter(|p| !p.is_empty()) {
        if !fresh && at + cols(gap) + cols(p) > width {
            out.push('\n');
            out.push_str(rest);
            at = cols(rest);
        } else if !fresh {
            out.push_str(gap);
            at += cols(gap);
        }
        out.push_str(p);
        at += cols(p);
        fresh = false;
    }
    out.push('\n');
    out
}

/// A table's columns: a head, and whether its cells are right-aligned.
pub struct Column<'a> {
    pub head: &'a str,
    pub right: bool,
}

/// The gap between columns.
const GAP: &str = "  ";

/// `rows` under `columns` in at most `width` columns, each cell painted by
/// `paint(row, column, text)` after its padding is measured; column `flex` (if
/// any) wraps its words inside itself to what the others leave. None when
/// it cannot fit (the flexible column would have to break a word).
pub fn table(
    columns: &[Column],
    rows: &[Vec<String>],
    width: usize,
    flex: Option<usize>,
    paint: &dyn Fn(usize, usize, &str) -> String,
) -> Option<String> {
    let cols = |s: &str| s.chars().count();
    let mut w: Vec<usize> = columns.iter().map(|c| cols(c.head)).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(cols(c));
        }
    }
    let total = |w: &[usize]| w.iter().sum::<usize>() + GAP.len() * (w.len() - 1);
    if total(&w) > width {
        let f = flex?;
        let others = total(&w) - w[f];
        let room = width.checked_sub(others)?;
        let longest_word = rows
            .iter()
            .flat_map(|r| r[f].split_whitespace())
            .chain(columns[f].head.split_whitespace())
            .map(cols)
            .max()
            .unwrap_or(0);
        if room < longest_word {
            return None;
        }
        w[f] = room;
    }
    let mut out = String::new();
    let mut emit = |cells: &[String], row: Option<usize>| {
        // Each cell as lines: the flexible one wrapped, the others whole.
        let lines: Vec<Vec<String>> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if Some(i) == flex && cols(c) > w[i] {
                    wrap(c, w[i], "", "").lines().map(str::to_string).collect()
                } else {
                    vec![c.clone()]
                }
            })
            .collect();
        let height = lines.iter().map(Vec::len).max().unwrap_or(1);
        for k in 0..height {
            let mut l = String::new();
            for (i, cell) in lines.iter().enumerate() {
                let text = cell.get(k).map_or("", String::as_str);
                let pad = " ".repeat(w[i].saturating_sub(cols(text)));
                let painted = match row {
                    None => text.to_string(),
                    Some(row) => paint(row, i, text),
                };
                if i > 0 {
                    l.push_str(GAP);
                }
                if columns[i].right {
                    l.push_str(&pad);
                    l.push_str(&painted);
                } else {
                    l.push_str(&painted);
                    l.push_str(&pad);
                }
            }
            out.push_str(l.trim_end());
            out.push('\n');
        }
    };
    let head: Vec<String> = columns.iter().map(|c| c.head.to_string()).collect();
    emit(&head, None);
    for (k, r) in rows.iter().enumerate() {
        emit(r, Some(k));
    }
    // A rule under the header, as wide as the table.
    let rule = "─".repeat(total(&w));
    let first_nl = out.find('\n').map_or(out.len(), |i| i + 1);
    out.insert_str(first_nl, &format!("{rule}\n"));
    Some(out)
}
