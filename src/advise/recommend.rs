//! The advice: every model's row for a workload, a few notes, and a
//! recommendation computed from the rows.

use super::costs::{Costs, Vfork};
use super::figure::{mark, Figure};
use super::models::{Model, Row};
use super::workload::Workload;
use crate::units::{fmt_count, fmt_cpu_load, fmt_ns, fmt_short_size, fmt_size, group_digits};
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct Advice {
    pub results: String,
    pub cpus: usize,
    pub workload: Workload,
    pub notes: Vec<String>,
    pub models: Vec<Row>,
    pub recommendation: String,
}

/// The arithmetic: every model's CPU share and memory for `w` from `c`.
pub fn advise(w: &Workload, c: &Costs) -> Advice {
    let rows: Vec<Row> = Model::ALL.iter().map(|m| m.row(w, c)).collect();
    let tasks = group_digits(w.concurrent as i64);
    let mut notes = Vec::new();
    let little = w.little();
    if w.concurrent_given && (w.concurrent as f64) < little * (1.0 - 1e-9) {
        notes.push(format!(
            "--concurrent {tasks} is below rate x lifetime = {} (Little's law): that many tasks are alive on average at this rate, so tasks would have to queue or live shorter; the memory uses {tasks}",
            fmt_count(little),
        ));
    }
    for r in c.rejected.iter().filter(|r| c.has(r.figure)) {
        notes.push(format!("ignored in {}: {}", c.source, r.reason));
    }
    notes.push(
        "CPU overhead counts creating and switching tasks only, not their own work; a kernel switch is costed at its same-CPU figure, the CPU time of the kernel's switch path; a hand-off that wakes a task on another CPU takes longer (the cross-CPU figure in the basis): that extra adds to response time, and only part of it is CPU time (the IPI, the idle exit; `switch.wakeup` bounds the parts), so it is shown, not added to the CPU load".into(),
    );
    let recommendation = recommend(w, c, &rows);
    Advice {
        results: c.source.clone(),
        cpus: c.cpus,
        workload: w.clone(),
        notes,
        models: rows,
        recommendation,
    }
}

/// A few sentences computed from the rows.
fn recommend(w: &Workload, c: &Costs, rows: &[Row]) -> String {
    let mut s = Vec::new();
    let row = |m: Model| rows.iter().find(|r| r.model == m);
    // posix_spawn starts programs: a different job, compared apart.
    let general = |r: &&Row| !r.model.starts_programs();
    let by = |a: f64, b: f64| a.total_cmp(&b);
    let cpu = |r: &Row, share: f64| {
        let of = if share.abs() < 1.0 { " of one CPU" } else { "" };
        format!(
            "{}{}{of}",
            mark(r.cpu_stand_in, r.cpu_lower_bound),
            fmt_cpu_load(share)
        )
    };
    // Why a CPU figure is marked, in words.
    let cpu_why = |r: &Row| -> String {
        let used = |f: &Option<Figure>| f.as_ref().filter(|f| f.stand_in || f.floor).cloned();
        match used(&r.create_from).or_else(|| used(&r.switch_from)) {
            Some(f) if f.stand_in => format!(
                " (~: {})",
                f.how.unwrap_or_else(|| "a stand-in figure".into())
            ),
            Some(_) => " (≥: part of it not measured, a floor)".into(),
            None => String::new(),
        }
    };
    let cheapest_cpu = rows
        .iter()
        .filter(general)
        .filter_map(|r| Some((r, r.cpu_share?)))
        .min_by(|a, b| by(a.1, b.1));
    if let Some((r, share)) = cheapest_cpu {
        let mut t = format!("Least CPU: {}, at {}{}", r.name, cpu(r, share), cpu_why(r));
        if !r.model.may_block() {
            if let Some((k, ks)) = rows
                .iter()
                .filter(general)
                .filter(|r| r.model.may_block())
                .filter_map(|r| Some((r, r.cpu_share?)))
                .min_by(|a, b| by(a.1, b.1))
            {
                t.push_str(&format!(
                    "; if tasks must block in the kernel, {}, at {}",
                    k.name,
                    cpu(k, ks)
                ));
            }
        }
        s.push(t);
    }
    let mem = |r: &Row, b: f64| {
        format!(
            "{}{}",
            mark(r.memory_stand_in, r.memory_lower_bound),
            fmt_short_size(b)
        )
    };
    let cheapest_mem = rows
        .iter()
        .filter(general)
        .filter_map(|r| Some((r, r.memory_bytes?)))
        .min_by(|a, b| by(a.1, b.1));
    if let Some((r, b)) = cheapest_mem {
        let mut t = format!("least memory: {}, {}", r.name, mem(r, b));
        if r.memory_stand_in || r.memory_lower_bound {
            t.push_str(if r.memory_stand_in {
                " (~: tasks x your --stack, not measured)"
            } else {
                " (≥: a floor, part not measured)"
            });
            if let Some((k, kb)) = rows
                .iter()
                .filter(general)
                .filter(|r| !r.memory_stand_in && !r.memory_lower_bound)
                .filter_map(|r| Some((r, r.memory_bytes?)))
                .min_by(|a, b| by(a.1, b.1))
            {
                t.push_str(&format!(
                    ", of fully measured figures {}, {}",
                    k.name,
                    fmt_short_size(kb)
                ));
            }
        }
        s.push(t);
    }
    if let (Some(p), Some(t)) = (row(Model::Process), row(Model::Thread)) {
        if let (Some(pc), Some(tc)) = (p.create_ns, t.create_ns) {
            if tc > 0.0 {
                let r = pc / tc;
                s.push(format!(
                    "at a {} heap a fork costs {}x a thread's creation ({} vs {})",
                    fmt_size(w.heap_bytes),
                    if r >= 100.0 {
                        format!("{r:.0}")
                    } else {
                        format!("{r:.1}")
                    },
                    fmt_ns(pc),
                    fmt_ns(tc)
                ));
            }
        }
    }
    let stuck: Vec<&str> = rows
        .iter()
        .filter(|r| r.keeps_up == Some(false))
        .map(|r| r.name)
        .collect();
    if !stuck.is_empty() {
        s.push(format!(
            "cannot keep up on {} CPUs: {}",
            c.cpus,
            stuck.join(", ")
        ));
    }
    if let Some(sc) = row(Model::Spawn).and_then(|r| r.create_ns) {
        // Like for like: fork + exec of the same tiny static program.
        let mut t = format!(
            "to start other programs, posix_spawn costs {} per start",
            fmt_ns(sc)
        );
        match c.fork_exec.as_ref().map(|k| k.at(w.heap_bytes)) {
            Some(fe) => t.push_str(&format!(
                " against {} for fork+exec of the same program (spawn.heap fork_exec_static)",
                fmt_ns(fe.value)
            )),
            None => t.push_str(&format!(
                " (fork+exec of the same program not measured in {})",
                c.source
            )),
        }
        match &c.vfork {
            Some(Vfork::Exec(k)) => {
                let v = k.at(w.heap_bytes);
                t.push_str(&format!(" and {} for vfork+exec", fmt_ns(v.value)));
            }
            Some(Vfork::Alone(k)) => {
                let v = k.at(w.heap_bytes);
                t.push_str(&format!(
                    "; vfork, which posix_spawn builds on, costs {} without the exec",
                    fmt_ns(v.value)
                ));
            }
            None => {}
        }
        t.push_str(&format!(" at a {} heap", fmt_size(w.heap_bytes)));
        s.push(t);
    }
    if s.is_empty() {
        return "Not enough measured figures to compare the models.".into();
    }
    let mut out = s.join("; ");
    out.push('.');
    out
}
