//! The human output of `tasklab advise`: the table, the basis of every
//! figure, the notes and the recommendation.

use super::figure::{mark, Figure};
use super::models::Model;
use super::recommend::Advice;
use crate::compare::fit::{self, Column};
use crate::results::RunResults;
use crate::units::{fmt_cpu_load, fmt_ns, fmt_short_size};

/// The human output fitted to the terminal's width: table, basis per
/// model, notes, recommendation.
pub fn render(a: &Advice, header: &str) -> String {
    render_at(a, header, crate::report::terse::width())
}

/// The table's columns.
const COLUMNS: [(&str, &str); 6] = [
    ("model", ""),
    ("create / task", "create"),
    ("switch", "switch"),
    ("CPU overhead", "CPU"),
    ("memory", "memory"),
    ("per task", "per task"),
];

/// [`render`] at `width` columns: every line wrapped between words (a
/// basis line's figures each whole where they fit), the table in columns
/// when they fit, else each model on a line with its figures under it.
pub fn render_at(a: &Advice, header: &str, width: usize) -> String {
    let line = |t: &str, rest: &str| fit::line(t, width, "", rest);
    let mut s = String::new();
    for l in header.lines() {
        s.push_str(&line(l, "  "));
    }
    s.push_str(&line(&format!("workload: {}", a.workload.describe()), "  "));
    let na = "not measured";
    let mut rows: Vec<Vec<String>> = Vec::new();
    for r in &a.models {
        let m = mark(r.cpu_stand_in, r.cpu_lower_bound);
        let cpu = match (r.cpu_share, r.keeps_up) {
            (Some(sh), Some(false)) => format!("{m}{} (cannot keep up)", fmt_cpu_load(sh)),
            (Some(sh), _) => format!("{m}{}", fmt_cpu_load(sh)),
            _ => na.into(),
        };
        let mem = mark(r.memory_stand_in, r.memory_lower_bound);
        let fig = |f: &Option<Figure>| {
            f.as_ref()
                .map_or(na.into(), |f| format!("{}{}", f.mark(), fmt_ns(f.value)))
        };
        rows.push(vec![
            r.name.to_string(),
            fig(&r.create_from),
            fig(&r.switch_from),
            cpu,
            r.memory_bytes
                .map_or(na.into(), |b| format!("{mem}{}", fmt_short_size(b))),
            r.memory_per_task_bytes
                .map_or(na.into(), |b| format!("{mem}{}", fmt_short_size(b))),
        ]);
    }
    let columns: Vec<Column> = COLUMNS
        .iter()
        .enumerate()
        .map(|(i, (head, _))| Column { head, right: i > 0 })
        .collect();
    match fit::table(&columns, &rows, width, None, &|_, _, t| t.to_string()) {
        Some(t) => s.push_str(&t),
        None => {
            for r in &rows {
                s.push_str(&line(&r[0], "  "));
                let pieces: Vec<String> = r[1..]
                    .iter()
                    .zip(&COLUMNS[1..])
                    .map(|(v, (_, short))| format!("{short} {v}"))
                    .collect();
                s.push_str(&fit::pack(&pieces, width, "    ", "    ", " · "));
            }
        }
    }
    s.push('\n');
    s.push_str(&line(
        "CPU overhead = (tasks/s x create + switches/s x switch) / 1e9, as a share of one CPU (in CPUs from one CPU up)",
        "  ",
    ));
    let marked = a
        .models
        .iter()
        .any(|r| r.cpu_stand_in || r.cpu_lower_bound || r.memory_stand_in || r.memory_lower_bound);
    if marked {
        s.push_str(&line(
            "~ another figure stands in for an unmeasured one; ≥ a floor, part not measured (see the basis)",
            "  ",
        ));
    }
    s.push('\n');
    s.push_str(&line(&format!("basis (medians from {}):", a.results), "  "));
    // The per-thread memory figures, once: every kernel model uses them.
    let thread_figs: Vec<&Figure> = a
        .models
        .iter()
        .find(|r| r.model == Model::Thread)
        .map(|r| r.memory_from.iter().collect())
        .unwrap_or_default();
    if !thread_figs.is_empty() {
        s.push_str(&fit::line("per blocked thread:", width, "  ", "    "));
        for f in &thread_figs {
            s.push_str(&fit::line(&f.describe(), width, "    ", "      "));
        }
    }
    for r in &a.models {
        let mut parts = Vec::new();
        parts.push(match &r.create_from {
            Some(f) => format!("create ({}) = {}", r.create_what, f.describe()),
            None => format!("create ({}): not measured", r.create_what),
        });
        if let Some(f) = &r.switch_from {
            parts.push(format!("switch = {}", f.describe()));
        }
        if let Some(f) = &r.switch_cross_cpu {
            parts.push(format!(
                "a hand-off to another CPU = {} (response time; only part of it is CPU time)",
                f.describe()
            ));
        }
        if !r.memory_basis.is_empty() {
            let own: Vec<String> = r
                .memory_from
                .iter()
                .filter(|f| !thread_figs.contains(f))
                .map(Figure::describe)
                .collect();
            let mut m = format!("memory = {}", r.memory_basis);
            if !own.is_empty() {
                m.push_str(&format!(" [{}]", own.join("; ")));
            }
            parts.push(m);
        }
        parts.extend(r.missing.iter().cloned());
        parts.extend(r.notes.iter().map(|n| format!("note: {n}")));
        // The model's name, then each part of its basis on lines of its own.
        s.push_str(&fit::line(&format!("{}:", r.name), width, "  ", "    "));
        for p in parts {
            s.push_str(&fit::line(&p, width, "    ", "      "));
        }
    }
    for n in &a.notes {
        s.push_str(&line(&format!("note: {n}"), "  "));
    }
    s.push('\n');
    s.push_str(&line(&a.recommendation, "  "));
    s
}

/// The environment line, as every table heads it, with where the figures came from.
pub fn header(r: &RunResults, source: &str) -> String {
    format!(
        "{}\nfigures from {source} ({} profile)",
        crate::report::table::header(r),
        r.profile
    )
}
