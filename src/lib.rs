//! tasklab: what Linux processes and threads really cost on the machine it
//! runs on — to create, to switch between, to keep in memory — measured with
//! a discipline that can be trusted and put beside the published figures of
//! the seed articles.

mod ab;
mod advise;
mod baseline;
mod calibrate;
mod cli;
mod compare;
mod demo;
mod env;
mod error;
mod experiments;
mod manpage;
mod matrix;
mod measure;
mod metric;
mod paint;
mod predict;
mod report;
mod results;
mod run;
mod show;
mod stats;
mod sys;
mod units;

/// What is public, and why: tasklab is a program, and its library has two
/// callers outside the crate. `src/main.rs` calls [`main_entry`]; the
/// integration tests in `tests/` check what the binary cannot show them
/// cheaply: a results file read, upgraded and rendered (the report's
/// sections, tables, seed table, OpenMetrics names, the terse view), the
/// matrix and compare built from fixtures, advise's rendering, the
/// declarations they hold the source to (retired series, seed citations,
/// wakeup's series), the units' formats, and whether they run as root. Each
/// item they reach is re-exported here by name, in its module's place; every
/// module itself is crate-private, so rustc reports anything else nothing
/// uses (and `clippy -D warnings` fails on it). A test that needs more adds
/// its line here. CI checks the library once more without `api`
/// (`--cfg tasklab_no_api`): the public methods of the types handed out here
/// are then checked too, and an item only tests use is refused.
#[cfg(not(tasklab_no_api))]
pub mod api {
    pub mod advise {
        pub use crate::advise::{advise, costs_from, header, Workload};
        pub mod render {
            pub use crate::advise::render::render_at;
        }
    }
    pub mod cli {
        pub use crate::cli::{Cli, Command};
    }
    pub mod compare {
        pub use crate::compare::{compare, comparison, read_for_compare, Comparison};
        pub mod pool {
            pub use crate::compare::pool::side;
        }
        pub mod render {
            pub use crate::compare::render::render_at;
        }
    }
    pub mod env {
        pub use crate::env::{Env, Fingerprint};
    }
    pub mod experiments {
        pub use crate::experiments::find;
        pub mod seeds {
            pub use crate::experiments::seeds::CITATIONS;
        }
        pub mod spec {
            pub use crate::experiments::spec::RETIRED;
        }
        pub mod switch {
            pub mod series {
                pub use crate::experiments::switch::series::SWITCH_NS;
            }
            pub mod wakeup {
                pub use crate::experiments::switch::wakeup::{
                    Variant, BARRIER_NS, TIMER_LATE_NS, WAKE_NS,
                };
            }
        }
    }
    pub mod matrix {
        pub mod build {
            pub use crate::matrix::build::{build, Matrix, MatrixRow};
        }
        pub mod inputs {
            pub use crate::matrix::inputs::{check_distinct, labelled, read_all, Input};
        }
        pub mod page {
            pub use crate::matrix::page::doc;
        }
        pub mod render {
            pub use crate::matrix::render::{preamble, terminal, NOTHING_DIFFERS};
        }
        pub mod rows {
            pub use crate::matrix::rows::summary_picks;
        }
    }
    pub mod paint {
        pub use crate::paint::strip;
    }
    pub mod report {
        pub use crate::report::document::summary;
        pub use crate::report::upgrade;
        pub mod folder {
            pub use crate::report::folder::MANIFEST;
        }
        pub mod grid {
            pub use crate::report::grid::heading;
        }
        pub mod headlines {
            pub use crate::report::headlines::headlines;
        }
        pub mod openmetrics {
            pub use crate::report::openmetrics::{base_unit, family_name, label_name};
        }
        pub mod seeds {
            pub use crate::report::seeds::{groups, table};
        }
        pub mod table {
            pub use crate::report::table::{experiment, fit_text};
        }
        pub mod terse {
            pub use crate::report::terse::{terse, Paths, DEFAULT_WIDTH, MAX_LINES};
        }
    }
    pub mod results {
        pub use crate::results::{
            count_over_time, Better, ExperimentResult, Metric, NamedFit, RunResults, SeedStat,
            Status, SCHEMA_VERSION,
        };
        pub mod merged {
            pub use crate::results::merged::read_runs;
        }
    }
    pub mod stats {
        pub use crate::stats::{drift, median, Fit, Verdict};
    }
    pub mod sys {
        pub use crate::sys::{effective_uid, is_root};
        pub mod safefile {
            pub use crate::sys::safefile::{sha256_hex, OutDir, Trust};
        }
    }
    pub mod units {
        pub use crate::units::{fmt_ns, fmt_num, fmt_value, Unit};
    }
}

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
    if !matches!(
        cli.command,
        Some(Command::Worker | Command::Probe | Command::Replay { .. })
    ) {
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
        Some(Command::Replay { pid }) => return predict::replay::worker_main(pid),
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
    for file in sys::sysfs_knob::RECORD_FILES {
        restore_record(file);
    }
}

/// Applies the restore record `file` a killed run or worker left, if any.
fn restore_record(file: &'static str) {
    use std::os::unix::fs::MetadataExt;
    let root = ab::sysfs_root();
    let record = root.join(sys::sysfs_knob::RECORD_DIR).join(file);
    // Only a record of this user's is this user's to apply (root's, for
    // settings under /sys); none at all is the common case.
    match std::fs::symlink_metadata(&record) {
        Ok(m) if m.uid() == sys::effective_uid() => {}
        _ => return,
    }
    match sys::sysfs_knob::recover_in(&root, file) {
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
