//! Presenting results: the report folder (report.md, a self-contained
//! report.html, one SVG per chart), the terminal and the exports. This file
//! is the surface the commands use: [`write_folder`], [`open_out`],
//! [`rerender`] and [`Output`]; each job is a file of its own (loading old
//! files in `load.rs`, the document in `document.rs`, the terminal in
//! `terminal.rs`, CSV in `csv.rs`).

pub mod charts;
pub mod csv;
pub mod doc;
pub mod document;
pub mod export;
pub mod flame;
pub mod folder;
pub mod grid;
pub mod headlines;
pub mod load;
pub mod openmetrics;
pub mod quantities;
pub mod seeds;
pub mod sentence;
pub mod table;
pub mod terminal;
pub mod terse;
pub mod why;

pub use document::{build, build_ab, failures, measured_sentence};
pub use load::upgrade;
pub use terminal::{terminal, timer_line, View};

use crate::error::UsageError;
use crate::results::{RunResults, RESULTS_FILE};
use crate::sys::safefile::{OutDir, Trust};
use std::path::{Path, PathBuf};

/// What a command asks of the report's output, whatever its flags were
/// called: the exports (each to a file, or to stdout with `-`) and what the
/// terminal shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Output {
    /// The results file's content (`--export-json`).
    pub export_json: Option<String>,
    /// Every series as a CSV row (`--export-csv`; `--csv` is `-`).
    pub export_csv: Option<String>,
    /// The report as Markdown (`--export-markdown`; `--markdown` is `-`).
    pub export_markdown: Option<String>,
    /// The figures as OpenMetrics text (`--export-openmetrics`).
    pub export_openmetrics: Option<String>,
    /// Every experiment's table on the terminal (`--tables`).
    pub tables: bool,
    /// The tables with the detail series too (`-v`).
    pub verbose: bool,
}

impl Output {
    /// How the terminal shows a run, fitted to `width` columns.
    pub fn view(&self, width: usize) -> View {
        View {
            tables: self.tables,
            verbose: self.verbose,
            width,
        }
    }
}

/// Draws an A/B run's paired verdicts from its results and the results
/// file as shown (None: no verdicts, the run was interrupted). They are
/// compare's rules, a floor above the report: the command that writes an
/// A/B run's report hands them down (`ab::verdict::words`).
pub type AbVerdicts = fn(&RunResults, &Path) -> Option<AbDrawn>;

/// An A/B run's verdicts as its report shows them.
#[derive(Clone, Debug, Default)]
pub struct AbDrawn {
    /// In words, as `ab` prints them.
    pub words: String,
    /// The series whose verdict is a change (improved, regressed or
    /// changed), each drawn as a differential flame graph where it is a
    /// Summary quantity both sides attributed.
    pub changed: Vec<why::Changed>,
}

/// Writes report.md, report.html and the charts into `dir`, each file
/// atomically (a failure leaves the previous file and no temporary one);
/// returns the files written. An A/B run's verdicts are those its file
/// printed, if it is an older one; [`write_ab_folder`] draws them.
pub fn write_folder(r: &RunResults, dir: &OutDir) -> anyhow::Result<Vec<PathBuf>> {
    write_drawn(r, dir, None)
}

/// [`write_folder`] for an A/B run, its verdicts drawn by `verdicts`.
pub fn write_ab_folder(
    r: &RunResults,
    dir: &OutDir,
    verdicts: AbVerdicts,
) -> anyhow::Result<Vec<PathBuf>> {
    write_drawn(r, dir, Some(verdicts))
}

fn write_drawn(
    r: &RunResults,
    dir: &OutDir,
    verdicts: Option<AbVerdicts>,
) -> anyhow::Result<Vec<PathBuf>> {
    let d = match &r.ab {
        Some(ab) => {
            let drawn = ab
                .printed
                .clone()
                .map(|words| AbDrawn {
                    words,
                    changed: Vec::new(),
                })
                .or_else(|| verdicts.and_then(|draw| draw(r, &dir.shown(RESULTS_FILE))));
            build_ab(r, ab, drawn)
        }
        None => build(r),
    };
    let mut written = Vec::new();
    let mut put = |name: &str, text: &str| -> anyhow::Result<()> {
        dir.write(name, text.as_bytes())?;
        written.push(dir.shown(name));
        Ok(())
    };
    for c in d.charts() {
        put(&c.file, &c.svg)?;
    }
    put("report.md", &d.markdown(""))?;
    put("report.html", &d.html())?;
    Ok(written)
}

/// Opens the output folder `dir` before anything is measured or rendered:
/// created if need be, checked as `trust` says (a default folder that is a
/// link, another user's or open to all is refused), locked against a second
/// run, cleared of the temporary files a killed run left, and a file written
/// in it as a test.
pub fn open_out(dir: &Path, trust: Trust) -> Result<OutDir, UsageError> {
    folder::take(OutDir::open(dir, trust).map_err(UsageError)?)
}

/// `tasklab report FILE [--out DIR]`: the report of a saved run, rendered
/// anew, and on the terminal what `run` prints. Without `--out` it goes
/// beside the file, a folder tasklab did not choose: refused when unsafe,
/// as a default folder is. Exports are checked before the folder is
/// touched.
pub fn rerender(
    file: &Path,
    out: Option<&Path>,
    output: &Output,
    ab_verdicts: AbVerdicts,
) -> anyhow::Result<std::process::ExitCode> {
    let saved = RunResults::read(file).map_err(|e| UsageError(format!("{e:#}")))?;
    let exports = export::plan(output)?;
    let mut r = saved.clone();
    upgrade(&mut r);
    let here = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let (path, trust) = match out {
        Some(o) => (o, Trust::Explicit),
        None => (here, Trust::Default),
    };
    let dir = open_out(path, trust)?;
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    let own = same(&dir.shown(RESULTS_FILE), file);
    let begun = folder::begin(&dir, !own)?;
    if !own {
        saved.write_in(&dir)?;
    }
    write_ab_folder(&r, &dir, ab_verdicts)?;
    let print = |t: &str| -> anyhow::Result<()> {
        crate::error::out(t)?;
        Ok(())
    };
    export::write(&r, &exports, path, print)?;
    for n in &begun.notes {
        eprintln!("note: {n}");
    }
    let paths = terse::Paths {
        report: dir.shown("report.html"),
        results: dir.shown(RESULTS_FILE),
        previous: begun.previous,
    };
    if export::takes_stdout(&exports) {
        eprintln!("report: {}", paths.report.display());
    } else {
        crate::error::out(&terminal(&r, output.view(terse::width()), &paths))?;
    }
    Ok(std::process::ExitCode::SUCCESS)
}
