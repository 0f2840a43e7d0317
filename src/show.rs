//! `tasklab list` and `tasklab env`: what the registry holds and what the
//! machine is.

use crate::experiments::REGISTRY;
use crate::measure::params::{names, ParamKind, ParamSpec};
use crate::measure::sizing::Profile;
use crate::units::wrap;
use std::process::ExitCode;

/// The rows of a method or variant table, for `list --json`.
fn choices(p: &ParamSpec) -> serde_json::Value {
    match p.kind {
        ParamKind::Names(table) => table
            .iter()
            .map(|c| serde_json::json!({"name": c.name, "about": c.about, "needs": c.needs}))
            .collect(),
        _ => serde_json::Value::Null,
    }
}

pub fn list(json: bool, baselines: bool) -> anyhow::Result<ExitCode> {
    if baselines {
        let (store, entries) = crate::baseline::entries();
        let text = if json {
            format!(
                "{}\n",
                serde_json::to_string_pretty(&baselines_json(&entries))?
            )
        } else {
            baselines_text(&store, &entries, LIST_WIDTH)
        };
        crate::error::out(&text)?;
        return Ok(ExitCode::SUCCESS);
    }
    if json {
        let v: Vec<serde_json::Value> = REGISTRY
            .iter()
            .filter(|e| !e.hidden)
            .map(|e| {
                serde_json::json!({
                    "name": e.name,
                    "group": e.group(),
                    "summary": e.summary,
                    "reproduces": e.reproduces,
                    "params": e.params.iter().map(|p| serde_json::json!({
                        "name": p.name, "help": p.help, "range": p.range(),
                        "min": p.bounds().map(|b| b.0), "max": p.bounds().map(|b| b.1),
                        "quick": p.default_for(Profile::Quick), "thorough": p.default_for(Profile::Thorough),
                        "choices": choices(p),
                    })).collect::<Vec<_>>(),
                    "metrics": e.metrics.iter().map(|m| serde_json::json!({
                        "name": m.name, "unit": m.unit, "better": m.direction_words(),
                        "kind": m.kind, "about": m.about,
                    })).collect::<Vec<_>>(),
                    "seeds": e.seeds.iter().map(|s| serde_json::json!({
                        "metric": s.metric, "labels": s.labels.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>(),
                        "lo": s.lo, "hi": s.hi, "unit": s.unit, "source": s.source, "cited": crate::experiments::seeds::cite_short(s.source), "url": crate::experiments::seeds::citation(s.source).and_then(|c| c.url), "hardware": s.hardware, "method": s.method,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        crate::error::out(&format!("{}\n", serde_json::to_string_pretty(&v)?))?;
        return Ok(ExitCode::SUCCESS);
    }
    crate::error::out(&list_text(LIST_WIDTH))?;
    Ok(ExitCode::SUCCESS)
}

/// `tasklab list` fits a 100-column terminal.
const LIST_WIDTH: usize = 100;

/// `text` wrapped to `width`, the first line after `first`, the others after
/// `rest`, ending in a newline.
fn push_wrapped(out: &mut String, first: &str, rest: &str, text: &str, width: usize) {
    out.push_str(&wrap(text, width, first, rest));
    out.push('\n');
}

/// What a parameter takes and its defaults, in words. A method or variant
/// table is spelled out where it first appears (`seen` holds where that was)
/// and referred to after.
fn param_text(e: &str, p: &ParamSpec, seen: &mut Vec<(Vec<&str>, String)>) -> String {
    let quick = p.default_for(Profile::Quick);
    let thorough = p.default_for(Profile::Thorough);
    let mut takes = p.range();
    let mut needs: Vec<(&str, Vec<&str>)> = Vec::new();
    if let ParamKind::Names(table) = p.kind {
        let all = names(table);
        match seen.iter().find(|(t, _)| *t == all) {
            Some((_, first)) => takes = format!("all, or a list of the names under {first}"),
            None => {
                seen.push((all, format!("{e} -p {}", p.name)));
                // one clause per requirement, naming the rows that have it
                for c in table.iter().filter(|c| !c.needs.is_empty()) {
                    match needs.iter_mut().find(|(n, _)| *n == c.needs) {
                        Some((_, rows)) => rows.push(c.name),
                        None => needs.push((c.needs, vec![c.name])),
                    }
                }
            }
        }
    }
    let mut t = format!("{}. Takes {takes}", p.help);
    if thorough != quick {
        t.push_str(&format!(
            "; with --profile thorough the default is {thorough}"
        ));
    }
    t.push('.');
    for (need, rows) in needs {
        let verb = if rows.len() == 1 { "needs" } else { "need" };
        t.push_str(&format!(" {} {verb} {need}.", rows.join(", ")));
    }
    t
}

/// `tasklab list` in words, every line within `width` columns.
pub fn list_text(width: usize) -> String {
    let mut out = String::new();
    let shown: Vec<_> = REGISTRY.iter().filter(|e| !e.hidden).collect();
    push_wrapped(
        &mut out,
        "",
        "",
        &format!(
            "{} experiments in {} groups. Run one or a group with `tasklab run NAME`; set a \
             parameter with `-p NAME=VALUE`; `tasklab list --json` gives the same for scripts.",
            shown.len(),
            crate::experiments::groups().len()
        ),
        width,
    );
    let mut seen = Vec::new();
    for g in crate::experiments::groups() {
        out.push('\n');
        let title = crate::experiments::GROUPS
            .iter()
            .find(|(name, ..)| *name == g)
            .map_or(g.to_string(), |(name, title, _)| {
                format!("{title} ({name})")
            });
        push_wrapped(&mut out, "", "", &title, width);
        for e in shown.iter().filter(|e| e.group() == g) {
            out.push_str(&format!("  {}\n", e.name));
            push_wrapped(&mut out, "    ", "    ", e.summary, width);
            push_wrapped(&mut out, "    reproduces: ", "      ", e.reproduces, width);
            for p in e.params {
                let call = format!("{}={}", p.name, p.default_for(Profile::Quick));
                push_wrapped(&mut out, "    -p ", "       ", &call, width);
                let text = param_text(e.name, p, &mut seen);
                push_wrapped(&mut out, "        ", "        ", &text, width);
            }
            if !e.seeds.is_empty() {
                out.push_str("    seed figures:\n");
            }
            for s in e.seeds {
                let labels: Vec<String> =
                    s.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
                let fig = if s.lo == s.hi {
                    crate::units::fmt_value(s.lo, s.unit)
                } else {
                    format!(
                        "{} to {}",
                        crate::units::fmt_value(s.lo, s.unit),
                        crate::units::fmt_value(s.hi, s.unit)
                    )
                };
                let line = format!(
                    "{} {}: {fig} ({})",
                    s.metric,
                    labels.join(" "),
                    crate::experiments::seeds::cite_short(s.source)
                );
                push_wrapped(&mut out, "      ", "        ", &line, width);
            }
        }
    }
    // Each seed cited in full once, with the file names results.json records.
    out.push_str(
        "\nSeeds: the articles cited above, with their files as results.json names them\n",
    );
    let mut done: Vec<&str> = Vec::new();
    for c in crate::experiments::seeds::CITATIONS {
        if done.contains(&c.short) {
            continue;
        }
        done.push(c.short);
        let files: Vec<&str> = crate::experiments::seeds::CITATIONS
            .iter()
            .filter(|o| o.short == c.short)
            .map(|o| o.file)
            .collect();
        let line = format!("{}: {} ({})", c.short, c.full(), files.join(", "));
        push_wrapped(&mut out, "  ", "    ", &line, width);
        // The address whole, to be copied, on a line of its own where it fits.
        if let Some(url) = c.url.filter(|u| 4 + u.chars().count() <= width) {
            out.push_str(&format!("    {url}\n"));
        }
    }
    out
}

/// `list --baselines --json`: one object per baseline.
fn baselines_json(entries: &[crate::baseline::Entry]) -> serde_json::Value {
    entries
        .iter()
        .map(|e| match &e.run {
            Ok(r) => serde_json::json!({
                "name": e.name, "path": e.path,
                "started_unix_s": r.started_unix_s, "profile": r.profile,
                "status": r.status, "label": r.label(),
                "experiments": r.experiments.iter().map(|x| x.name.as_str()).collect::<Vec<_>>(),
            }),
            Err(why) => serde_json::json!({"name": e.name, "path": e.path, "error": why}),
        })
        .collect()
}

/// `list --baselines`: each baseline, when its run started, its profile
/// and label, then its experiments; every line within `width` columns but
/// the paths.
pub fn baselines_text(
    store: &std::path::Path,
    entries: &[crate::baseline::Entry],
    width: usize,
) -> String {
    let shown = store.display();
    if entries.is_empty() {
        return wrap(
            &format!("No baselines in {shown}/ yet: `tasklab run --save-baseline NAME` saves one."),
            width,
            "",
            "  ",
        ) + "\n";
    }
    let mut out = String::new();
    let n = entries.len();
    push_wrapped(
        &mut out,
        "",
        "  ",
        &format!(
            "{n} baseline{} in {shown}/; `tasklab compare --baseline NAME` compares the latest run against one.",
            if n == 1 { "" } else { "s" }
        ),
        width,
    );
    let name_w = entries.iter().map(|e| e.name.len()).max().unwrap_or(0);
    for e in entries {
        let line = match &e.run {
            Ok(r) => format!(
                "{}, {} profile, {}",
                crate::baseline::utc(r.started_unix_s),
                r.profile,
                r.label()
            ),
            Err(why) => format!("cannot be read: {why}"),
        };
        out.push_str(&format!("  {:<name_w$}  {line}\n", e.name));
        if let Ok(r) = &e.run {
            let pad = " ".repeat(name_w + 4);
            push_wrapped(
                &mut out,
                &pad,
                &pad,
                &crate::baseline::experiments_of(r),
                width,
            );
        }
    }
    out
}

pub fn env(json: bool) -> anyhow::Result<ExitCode> {
    let mut e = crate::env::probe();
    e.measured_mhz = crate::measure::timer::measured_mhz(25);
    if json {
        crate::error::out(&format!("{}\n", serde_json::to_string_pretty(&e)?))?;
    } else {
        let mut lines = e.describe();
        // The short hash noise files and fleets are keyed by.
        lines.push((
            "fingerprint".into(),
            format!(
                "{} (CPU, CPUs online, kernel, hypervisor, THP, mitigations)",
                e.machine_fingerprint().hash
            ),
        ));
        let text: String = lines
            .into_iter()
            .map(|(k, v)| format!("{k:>15}  {v}\n"))
            .collect();
        crate::error::out(&text)?;
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
#[path = "show_tests.rs"]
mod tests;
