//! The matrix in words: on the terminal fitted to its width (wide matrices
//! split into groups of columns, each cell kept whole), and as CSV (one
//! line per quantity and run). Markdown and HTML are `page.rs`'s.

use super::build::{Cell, Matrix, MatrixRow, Versus};
use crate::stats::Verdict;
use crate::units::{fmt_interval, fmt_num, fmt_value, wrap, Unit};

/// What "nothing differs" says.
pub const NOTHING_DIFFERS: &str = "nothing tasklab records differs between the runs";

/// The quantity column at most this wide on the terminal (names wrap
/// between words).
const NAME_MAX: usize = 34;

fn verdict_word(v: Verdict) -> &'static str {
    match v {
        Verdict::Improved => "improved",
        Verdict::Regressed => "regressed",
        Verdict::Changed => "changed",
        Verdict::Unchanged => "unchanged",
        Verdict::Inconclusive => "inconclusive",
    }
}

/// "1.20 µs ~" and its interval "[1.10 µs, 1.31 µs]".
pub fn figure(c: &Cell, unit: Unit) -> (String, String) {
    let mark = if c.mark.is_empty() {
        String::new()
    } else {
        format!(" {}", c.mark)
    };
    (
        format!("{}{mark}", fmt_value(c.median, unit)),
        fmt_interval(&fmt_value(c.lo, unit), &fmt_value(c.hi, unit)),
    )
}

/// "×1.23 regressed" (with " ‡" across classes) and "[1.10, 1.38] mde 8%".
pub fn versus(v: &Versus) -> (String, String) {
    let x = |r: f64| {
        if r.is_finite() {
            fmt_num(r, 2)
        } else {
            "n/a".into()
        }
    };
    let reason = v.reason.map_or(String::new(), |r| format!(" ({r})"));
    let cross = if v.cross_class { " ‡" } else { "" };
    let mde = if v.mde_pct.is_finite() {
        format!(" mde {}%", fmt_num(v.mde_pct, 0))
    } else {
        String::new()
    };
    (
        format!("×{} {}{reason}{cross}", x(v.ratio), verdict_word(v.verdict)),
        format!("{}{mde}", fmt_interval(&x(v.lo), &x(v.hi))),
    )
}

/// The lines above the table: the baseline and the rule, the classes, what
/// differs and what does not.
pub fn preamble(m: &Matrix) -> Vec<String> {
    let mut v = vec![format!(
        "{} runs; baseline {}; each other cell's ratio to it (NEW/baseline, 95% interval) with compare's verdict at ±{}% and mde, the smallest change it could have called",
        m.columns.len(),
        m.baseline,
        fmt_num(m.threshold_pct, 0)
    )];
    let mut classes: Vec<(char, &str, Vec<&str>)> = Vec::new();
    for c in &m.columns {
        match classes.iter_mut().find(|x| x.0 == c.class_mark) {
            Some(x) => x.2.push(&c.label),
            None => classes.push((c.class_mark, &c.class, vec![&c.label])),
        }
    }
    let cross = if classes.len() > 1 {
        "; a ratio across classes (‡) compares different hardware"
    } else {
        ""
    };
    v.push(format!(
        "hardware classes: {}{cross}",
        classes
            .iter()
            .map(|(k, c, l)| format!("{k} = {c} ({})", l.join(", ")))
            .collect::<Vec<_>>()
            .join("; ")
    ));
    if m.differs.is_empty() {
        v.push(format!("what differs: {NOTHING_DIFFERS}"));
    } else {
        v.push(format!(
            "what differs: {}",
            m.differs
                .iter()
                .map(|d| format!(
                    "{} {}",
                    d.fact,
                    d.values
                        .iter()
                        .map(|(val, cols)| format!("{val} ({})", cols.join(", ")))
                        .collect::<Vec<_>>()
                        .join(" vs ")
                ))
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    if !m.same.is_empty() {
        v.push(format!(
            "the same in every run: {}",
            m.same
                .iter()
                .map(|(k, val)| format!("{k} {val}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    v
}

/// Each row's cells as lines: the figure and its interval, then, beside the
/// baseline, the ratio and its interval; "—" where a run lacks it.
pub fn cell_lines(r: &MatrixRow, n: usize) -> Vec<String> {
    match &r.cells[n] {
        None => vec!["—".into()],
        Some(c) => {
            let (f, i) = figure(c, r.unit);
            let mut v = vec![f, i];
            if let Some(vs) = &c.vs {
                let (a, b) = versus(vs);
                v.extend([a, b]);
            } else if n > 0 && r.pick.slope_from.is_some() {
                v.push("(derived: no verdict)".into());
            }
            v
        }
    }
}

fn cols(s: &str) -> usize {
    s.chars().count()
}

fn pad(s: &str, w: usize) -> String {
    format!("{s}{}", " ".repeat(w.saturating_sub(cols(s))))
}

/// The header of column `n`: its label, then its class and whether it is
/// the baseline.
pub fn head(m: &Matrix, n: usize) -> Vec<String> {
    let c = &m.columns[n];
    vec![
        c.label.clone(),
        format!(
            "[{}]{}",
            c.class_mark,
            if n == 0 { " baseline" } else { "" }
        ),
    ]
}

/// The matrix on the terminal, `width` columns wide.
pub fn terminal(m: &Matrix, width: usize) -> String {
    let mut out = String::new();
    for line in preamble(m) {
        out.push_str(&wrap(&line, width, "", "  "));
        out.push('\n');
    }
    let cells: Vec<Vec<Vec<String>>> = m
        .rows
        .iter()
        .map(|r| (0..m.columns.len()).map(|n| cell_lines(r, n)).collect())
        .collect();
    let col_w: Vec<usize> = (0..m.columns.len())
        .map(|n| {
            head(m, n)
                .iter()
                .chain(cells.iter().flat_map(|r| r[n].iter()))
                .map(|s| cols(s))
                .max()
                .unwrap_or(1)
        })
        .collect();
    let name_w = m
        .rows
        .iter()
        .map(|r| cols(&r.pick.name))
        .max()
        .unwrap_or(8)
        .clamp(8, NAME_MAX.min(width / 3).max(8));
    // Groups of columns that fit beside the quantity's column.
    let room = width.saturating_sub(name_w + 2);
    let mut groups: Vec<Vec<usize>> = vec![Vec::new()];
    let mut used = 0;
    for (n, w) in col_w.iter().enumerate() {
        let g = groups.last_mut().expect("one");
        if !g.is_empty() && used + w + 2 > room {
            groups.push(vec![n]);
            used = w + 2;
        } else {
            g.push(n);
            used += w + 2;
        }
    }
    for g in &groups {
        out.push('\n');
        let names = |lines: Vec<Vec<String>>, first: Vec<String>| {
            let tall = lines
                .iter()
                .map(Vec::len)
                .chain([first.len()])
                .max()
                .unwrap_or(1);
            let mut s = String::new();
            for k in 0..tall {
                let mut line = pad(first.get(k).map_or("", |x| x.as_str()), name_w);
                for (j, &n) in g.iter().enumerate() {
                    line.push_str("  ");
                    line.push_str(&pad(lines[j].get(k).map_or("", |x| x.as_str()), col_w[n]));
                }
                s.push_str(line.trim_end());
                s.push('\n');
            }
            s
        };
        out.push_str(&names(
            g.iter().map(|&n| head(m, n)).collect(),
            vec!["quantity".into()],
        ));
        let rule: usize = name_w + g.iter().map(|&n| col_w[n] + 2).sum::<usize>();
        out.push_str(&"─".repeat(rule.min(width)));
        out.push('\n');
        for (r, row) in m.rows.iter().zip(&cells) {
            let name: Vec<String> = wrap(&r.pick.name, name_w, "", " ")
                .lines()
                .map(String::from)
                .collect();
            out.push_str(&names(g.iter().map(|&n| row[n].clone()).collect(), name));
        }
    }
    for line in history_lines(m) {
        out.push('\n');
        out.push_str(&wrap(&line, width, "", "  "));
    }
    if !m.history.is_empty() {
        out.push('\n');
    }
    for n in &m.notes {
        out.push_str(&wrap(&format!("note: {n}"), width, "", "  "));
        out.push('\n');
    }
    out
}

/// The history in sentences: per step, each row's change and verdict.
pub fn history_lines(m: &Matrix) -> Vec<String> {
    let mut v = Vec::new();
    for steps in &m.history {
        for s in steps {
            let parts: Vec<String> = m
                .rows
                .iter()
                .zip(&s.changes)
                .filter_map(|(r, c)| {
                    let c = c.as_ref()?;
                    let (a, b) = versus(c);
                    Some(format!("{} {a} {b}", r.pick.name))
                })
                .collect();
            v.push(format!(
                "history, one fingerprint in time: {} → {}: {}",
                s.from,
                s.to,
                if parts.is_empty() {
                    "no quantity in common".into()
                } else {
                    parts.join("; ")
                }
            ));
        }
    }
    v
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// One line per quantity and run.
pub fn csv(m: &Matrix) -> String {
    let mut out = String::from(
        "quantity,experiment,metric,case,run,class,baseline,unit,median,ci_lo,ci_hi,mark,ratio,ratio_lo,ratio_hi,verdict,mde_pct,cross_class\n",
    );
    let num = |x: f64| {
        if x.is_finite() {
            format!("{x}")
        } else {
            String::new()
        }
    };
    for r in &m.rows {
        for (n, c) in m.columns.iter().enumerate() {
            let Some(cell) = &r.cells[n] else { continue };
            let vs = cell.vs.as_ref();
            let f = [
                csv_field(&r.pick.name),
                csv_field(&r.pick.experiment),
                csv_field(&r.pick.metric),
                csv_field(&crate::results::case_of(&r.pick.labels)),
                csv_field(&c.label),
                csv_field(&c.class),
                (n == 0).to_string(),
                csv_field(&format!("{:?}", r.unit).to_lowercase()),
                num(cell.median),
                num(cell.lo),
                num(cell.hi),
                cell.mark.to_string(),
                vs.map_or(String::new(), |v| num(v.ratio)),
                vs.map_or(String::new(), |v| num(v.lo)),
                vs.map_or(String::new(), |v| num(v.hi)),
                vs.map_or(String::new(), |v| verdict_word(v.verdict).to_string()),
                vs.map_or(String::new(), |v| num(v.mde_pct)),
                vs.map_or(String::new(), |v| v.cross_class.to_string()),
            ];
            out.push_str(&f.join(","));
            out.push('\n');
        }
    }
    out
}
