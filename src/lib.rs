//! tasklab: what Linux processes and threads really cost on the machine it
//! runs on — to create, to switch between, to keep in memory — measured with
//! a discipline that can be trusted and put beside the published figures of
//! the seed articles.

pub mod ab;
pub mod advise;
pub mod baseline;
pub mod calibrate;
pub mod cli;
pub mod compare;
pub mod demo;
pub mod env;
pub mod error;
pub mod experiments;
pub mod manpage;
pub mod matrix;
pub mod measure;
pub mod metric;
pub mod paint;
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
    paint::init(match cli.color {
        cli::ColorArg::Auto => paint::Choice::Auto,
        cli::ColorArg::Always => paint::Choice::Always,
        cli::ColorArg::Never => paint::Choice::Never,
    });
    if matches!(
        cli.command,
        None | Some(Command::Run(_)) | Some(Command::Calibrate(_))
    ) {
        sys::ignore_sigpipe();
    }
    if !matches!(cli.command, Some(Command::Worker | Command::Probe)) {
        restore_settings();
    }
    let result = match cli.command {
        None => run::run(&RunArgs::default_suite()),
        Some(Command::Run(args)) => run::run(&args),
        Some(Command::Ab(args)) => ab::run(&args),
        Some(Command::List { json, baselines }) => show::list(json, baselines),
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
            baseline,
            gate,
        }) => compare::run(&compare::Args {
            files: &files,
            vs: &vs,
            threshold,
            json,
            all,
            relative,
            noise: noise.as_deref(),
            no_noise,
            baseline: baseline.as_deref(),
            gate,
        }),
        Some(Command::Calibrate(args)) => calibrate::run(&args),
        Some(Command::Report {
            files,
            out,
            baseline,
            all,
            output,
        }) => matrix::report(&matrix::Args {
            files: &files,
            baseline: baseline.as_deref(),
            all,
            out: out.as_deref(),
            output: &run::output_of(&output),
        }),
        Some(Command::Merge { files, out }) => matrix::merge::merge(&files, &out),
        Some(Command::Advise(args)) => advise::run(&args),
        Some(Command::Predict(args)) => predict::run(&args),
        Some(Command::Demo(demo)) => demo::run(&demo),
        Some(Command::Completions { shell }) => manpage::completions(shell),
        Some(Command::Man { out }) => manpage::man(out.as_deref()),
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

/// Kernel settings a killed `ab` (or `run --idle-poll`) left changed get
/// their old values back before anything else runs, and the user is told.
fn restore_settings() {
    use std::os::unix::fs::MetadataExt;
    let root = ab::sysfs_root();
    let record = root
        .join(sys::sysfs_knob::RECORD_DIR)
        .join(sys::sysfs_knob::RECORD_FILE);
    // Only a record of this user's is this user's to apply (root's, for
    // settings under /sys); none at all is the common case.
    match std::fs::symlink_metadata(&record) {
        Ok(m) if m.uid() == sys::effective_uid() => {}
        _ => return,
    }
    match sys::sysfs_knob::recover(&root) {
        Ok(restored) => {
            for k in restored {
                eprintln!(
                    "tasklab: restored {} to {} (a tasklab run that changed it was killed)",
                    k.path,
                    sys::sysfs_knob::chosen(&k.value)
                );
            }
        }
        // Another run holds them: they are its own until it ends.
        Err(e) if e.kind() == std::io::ErrorKind::ResourceBusy => {}
        Err(e) => eprintln!("warning: cannot restore kernel settings a killed run left: {e}"),
    }
}
