//! tasklab: what Linux processes and threads really cost on the machine it
//! runs on — to create, to switch between, to keep in memory — measured with
//! a discipline that can be trusted and put beside the published figures of
//! the seed articles.

pub mod advise;
pub mod cli;
pub mod compare;
pub mod demo;
pub mod env;
pub mod error;
pub mod experiments;
pub mod measure;
pub mod report;
pub mod results;
pub mod run;
pub mod stats;
pub mod sys;
pub mod units;

use clap::Parser;
use cli::{Cli, Command, RunArgs};
use std::process::ExitCode;

/// The whole program: parse, dispatch, map errors to exit statuses.
pub fn main_entry() -> ExitCode {
    sys::default_sigpipe();
    let cli = Cli::parse();
    let result = match cli.command {
        None => run::run(&RunArgs::default_suite()),
        Some(Command::Run(args)) => run::run(&args),
        Some(Command::List { json }) => list(json),
        Some(Command::Env { json }) => show_env(json),
        Some(Command::Compare {
            base,
            new,
            threshold,
            json,
        }) => compare::run(&base, &new, threshold, json),
        Some(Command::Report {
            file,
            out,
            format,
            verbose,
        }) => report::rerender(&file, out.as_deref(), run::format_of(format), verbose),
        Some(Command::Advise(args)) => advise::run(&args),
        Some(Command::Demo(demo)) => demo::run(&demo),
        Some(Command::Worker) => {
            return ExitCode::from(measure::worker::worker_main(experiments::measure_fn) as u8)
        }
        Some(Command::Probe) => {
            return ExitCode::from(measure::probe::probe_main(experiments::probe_fn) as u8)
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("tasklab: {e:#}");
            if error::is_usage(&e) {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

impl RunArgs {
    /// What `tasklab` with no command runs.
    pub fn default_suite() -> RunArgs {
        RunArgs {
            out: "tasklab-report".into(),
            ..RunArgs::default()
        }
    }
}

fn list(json: bool) -> anyhow::Result<ExitCode> {
    use experiments::REGISTRY;
    use measure::sizing::Profile;
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
    for g in experiments::groups() {
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
                    units::fmt_value(s.lo, s.unit)
                } else {
                    format!(
                        "{}–{}",
                        units::fmt_value(s.lo, s.unit),
                        units::fmt_value(s.hi, s.unit)
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

fn show_env(json: bool) -> anyhow::Result<ExitCode> {
    let mut e = env::probe();
    e.measured_mhz = measure::timer::measured_mhz(25);
    if json {
        println!("{}", serde_json::to_string_pretty(&e)?);
    } else {
        for (k, v) in e.describe() {
            println!("{k:>15}  {v}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
