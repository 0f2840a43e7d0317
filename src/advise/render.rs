//! The human output of `tasklab advise`: the table, the basis of every
//! figure, the notes and the recommendation.

use super::figure::{mark, Figure};
use super::models::Model;
use super::recommend::Advice;
use crate::results::RunResults;
use crate::units::{fmt_cpu_load, fmt_ns, fmt_short_size};
use comfy_table::{presets::UTF8_BORDERS_ONLY, Cell, CellAlignment, ContentArrangement, Table};

/// The human output: table, basis per model, notes, recommendation.
pub fn render(a: &Advice, header: &str) -> String {
    let mut s = format!("{header}\nworkload: {}\n", a.workload.describe());
    let mut t = Table::new();
    t.load_preset(UTF8_BORDERS_ONLY)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(vec![
            "model",
            "create / task",
            "switch",
            "CPU overhead",
            "memory",
            "per task",
        ]);
    let na = "not measured";
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
        t.add_row(vec![
            Cell::new(r.name),
            Cell::new(fig(&r.create_from)).set_alignment(CellAlignment::Right),
            Cell::new(fig(&r.switch_from)).set_alignment(CellAlignment::Right),
            Cell::new(cpu).set_alignment(CellAlignment::Right),
            Cell::new(
                r.memory_bytes
                    .map_or(na.into(), |b| format!("{mem}{}", fmt_short_size(b))),
            )
            .set_alignment(CellAlignment::Right),
            Cell::new(
                r.memory_per_task_bytes
                    .map_or(na.into(), |b| format!("{mem}{}", fmt_short_size(b))),
            )
            .set_alignment(CellAlignment::Right),
        ]);
    }
    s.push_str(&t.to_string());
    s.push_str(
        "\nCPU overhead = (tasks/s x create + switches/s x switch) / 1e9, as a share of one CPU (in CPUs from one CPU up)\n",
    );
    let marked = a
        .models
        .iter()
        .any(|r| r.cpu_stand_in || r.cpu_lower_bound || r.memory_stand_in || r.memory_lower_bound);
    if marked {
        s.push_str(
            "~ another figure stands in for an unmeasured one; ≥ a floor, part not measured (see the basis)\n",
        );
    }
    s.push_str(&format!("\nbasis (medians from {}):\n", a.results));
    // The per-thread memory figures, once: every kernel model uses them.
    let thread_figs: Vec<&Figure> = a
        .models
        .iter()
        .find(|r| r.model == Model::Thread)
        .map(|r| r.memory_from.iter().collect())
        .unwrap_or_default();
    if !thread_figs.is_empty() {
        s.push_str(&format!(
            "  per blocked thread: {}\n",
            thread_figs
                .iter()
                .map(|f| f.describe())
                .collect::<Vec<_>>()
                .join("; ")
        ));
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
                "a hand-off to another CPU = {} (latency, not CPU)",
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
        s.push_str(&format!("  {}: {}\n", r.name, parts.join("; ")));
    }
    for n in &a.notes {
        s.push_str(&format!("note: {n}\n"));
    }
    s.push_str(&format!("\n{}\n", a.recommendation));
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
