//! `tasklab report FILE|DIR...` with two runs or more: the matrix (the
//! Summary's quantities, one column per run, grouped by hardware class,
//! each cell against a baseline with compare's verdict; what differs
//! between the runs; the history of runs of one fingerprint), on the
//! terminal, as matrix.md and matrix.html in its folder, and exported as
//! CSV and JSON. `tasklab merge` (merge.rs) writes several runs into one
//! file. With one run, `report` renders its report folder as it always did.

pub mod build;
pub mod inputs;
pub mod merge;
pub mod page;
pub mod render;
pub mod rows;

use crate::error::UsageError;
use crate::report::export::{self, Dest, Kind};
use crate::report::{self, Output};
use crate::sys::safefile::{self, Trust};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Where the matrix goes without `--out`.
pub const DEFAULT_OUT: &str = "tasklab-matrix";

/// What `tasklab report` was asked.
pub struct Args<'a> {
    pub files: &'a [PathBuf],
    pub baseline: Option<&'a str>,
    pub all: bool,
    pub out: Option<&'a Path>,
    pub output: &'a Output,
}

/// `tasklab report`: one run's report folder, or the matrix of several.
/// Everything is read and checked before anything is written.
pub fn report(a: &Args) -> anyhow::Result<ExitCode> {
    let runs = inputs::read_all(a.files)?;
    if runs.len() == 1 {
        if a.baseline.is_some() || a.all {
            return Err(UsageError(
                "--baseline and --all are for a matrix: give two runs or more".into(),
            )
            .into());
        }
        let file = inputs::files_of(&a.files[0])?.remove(0);
        return report::rerender(&file, a.out, a.output, crate::ab::verdict::words);
    }
    inputs::refuse_ab(&runs)?;
    inputs::check_distinct(&runs)?;
    let (inputs, notes) = inputs::labelled(runs);
    let baseline = match a.baseline {
        None => 0,
        Some(l) => inputs.iter().position(|i| i.label == l).ok_or_else(|| {
            UsageError(format!(
                "--baseline {l}: no run is labelled {l} (the runs: {})",
                inputs
                    .iter()
                    .map(|i| i.label.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?,
    };
    let exports = export::plan(a.output)?;
    let (path, trust) = match a.out {
        Some(o) => (o, Trust::Explicit),
        None => (Path::new(DEFAULT_OUT), Trust::Default),
    };
    let dir = report::open_out(path, trust)?;
    let mut m = build::build(&inputs, baseline, a.all);
    m.notes = notes;
    let md = page::doc(&m, false)?.markdown("");
    dir.write("matrix.md", md.as_bytes())?;
    dir.write("matrix.html", page::doc(&m, true)?.html().as_bytes())?;
    let mut on_stdout = false;
    for e in &exports {
        let text = match e.kind {
            Kind::Json => serde_json::to_string_pretty(&m)? + "\n",
            Kind::Csv => render::csv(&m),
            Kind::Markdown => md.clone(),
            Kind::OpenMetrics => crate::report::openmetrics::render_runs(
                &inputs
                    .iter()
                    .map(|i| (i.label.clone(), &i.run))
                    .collect::<Vec<_>>(),
            ),
        };
        match &e.dest {
            Dest::Stdout => {
                on_stdout = true;
                crate::error::out(&text)?;
            }
            Dest::File(p) => safefile::write_file(p, text.as_bytes())?,
        }
    }
    let shown = dir.shown("matrix.html");
    if on_stdout {
        for n in &m.notes {
            eprintln!("note: {n}");
        }
        eprintln!("matrix: {}", shown.display());
    } else {
        let mut text = render::terminal(&m, report::terse::width());
        text.push_str(&format!("\nmatrix: {}\n", shown.display()));
        crate::error::out(&text)?;
    }
    Ok(ExitCode::SUCCESS)
}
