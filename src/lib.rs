//! tasklab: what Linux processes and threads really cost on the machine it
//! runs on — to create, to switch between, to keep in memory — measured with
//! a discipline that can be trusted and put beside the published figures of
//! the seed articles.

pub mod advise;
pub mod calibrate;
pub mod cli;
pub mod compare;
pub mod demo;
pub mod env;
pub mod error;
pub mod experiments;
pub mod measure;
pub mod metric;
pub mod predict;
pub mod report;
pub mod results;
pub mod run;
pub mod show;
pub mod stats;
pub mod sys;
pub mod units;

use clap::Parser;
use cli::{Cli, Command, RunArgs};
use std::process::ExitCode;

/// The whole program: parse, dispatch, map errors to exit statuses.
pub fn main_entry() -> ExitCode {
    // Every command but a run ends quietly on SIGPIPE, like any Unix tool. A
    // run ignores it: when its stdout's reader goes away it stops cleanly
    // (scratch folder removed, results written) and exits 141 itself.
    sys::default_sigpipe();
    let cli = Cli::parse();
    if matches!(
        cli.command,
        None | Some(Command::Run(_)) | Some(Command::Calibrate(_))
    ) {
        sys::ignore_sigpipe();
    }
    let result = match cli.command {
        None => run::run(&RunArgs::default_suite()),
        Some(Command::Run(args)) => run::run(&args),
        Some(Command::List { json }) => show::list(json),
        Some(Command::Env { json }) => show::env(json),
        Some(Command::Compare {
            files,
            vs,
            threshold,
            all,
            json,
            relative,
            noise,
            no_noise,
        }) => compare::run(&compare::Args {
            files: &files,
            vs: &vs,
            threshold_pct: threshold,
            json,
            all,
            relative,
            noise: noise.as_deref(),
            no_noise,
        }),
        Some(Command::Calibrate(args)) => calibrate::run(&args),
        Some(Command::Report { file, out, output }) => {
            report::rerender(&file, out.as_deref(), &run::output_of(&output))
        }
        Some(Command::Advise(args)) => advise::run(&args),
        Some(Command::Predict(args)) => predict::run(&args),
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
