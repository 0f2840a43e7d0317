//! `tasklab list` and `tasklab env`: what the registry holds and what the
//! machine is.

use crate::experiments::REGISTRY;
use crate::measure::params::{ParamKind, ParamSpec};
use crate::measure::sizing::Profile;
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

pub fn list(json: bool) -> anyhow::Result<ExitCode> {
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
                        "quick": p.default_for(Profile::Quick), "thorough": p.default_for(Profile::Thorough),
                        "choices": choices(p),
                    })).collect::<Vec<_>>(),
                    "seeds": e.seeds.iter().map(|s| serde_json::json!({
                        "metric": s.metric, "labels": s.labels.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>(),
                        "lo": s.lo, "hi": s.hi, "unit": s.unit, "source": s.source, "hardware": s.hardware, "method": s.method,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(ExitCode::SUCCESS);
    }
    for g in crate::experiments::groups() {
        println!("{g}");
        for e in REGISTRY.iter().filter(|e| e.group() == g && !e.hidden) {
            println!("  {:<20} {}", e.name, e.summary);
            println!("  {:<20} reproduces: {}", "", e.reproduces);
            for p in e.params {
                println!(
                    "  {:<20} -p {}={}  ({}; quick {}, thorough {})",
                    "",
                    p.name,
                    p.default_for(Profile::Quick),
                    p.help,
                    p.range(),
                    p.default_for(Profile::Thorough)
                );
            }
            for s in e.seeds {
                let labels: Vec<String> =
                    s.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
                let fig = if s.lo == s.hi {
                    crate::units::fmt_value(s.lo, s.unit)
                } else {
                    format!(
                        "{}–{}",
                        crate::units::fmt_value(s.lo, s.unit),
                        crate::units::fmt_value(s.hi, s.unit)
                    )
                };
                println!(
                    "  {:<20} seed: {} {} = {fig} ({})",
                    "",
                    s.metric,
                    labels.join(" "),
                    s.source
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn env(json: bool) -> anyhow::Result<ExitCode> {
    let mut e = crate::env::probe();
    e.measured_mhz = crate::measure::timer::measured_mhz(25);
    if json {
        println!("{}", serde_json::to_string_pretty(&e)?);
    } else {
        for (k, v) in e.describe() {
            println!("{k:>15}  {v}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
