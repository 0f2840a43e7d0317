//! Exports beside the report folder, as hyperfine has them:
//! `--export-json`, `--export-csv` and `--export-markdown` (and
//! `--export-openmetrics`, for Prometheus), each to a file
//! or to stdout (`-`, one of them at most), combinable, and every
//! destination checked before anything is measured.

use super::Output;
use crate::error::UsageError;
use crate::results::RunResults;
use crate::sys::safefile;
use std::path::{Path, PathBuf};

/// What an export holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Json,
    Csv,
    Markdown,
    OpenMetrics,
}

impl Kind {
    fn flag(self) -> &'static str {
        match self {
            Kind::Json => "--export-json",
            Kind::Csv => "--export-csv",
            Kind::Markdown => "--export-markdown",
            Kind::OpenMetrics => "--export-openmetrics",
        }
    }
}

/// Where an export goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dest {
    Stdout,
    File(PathBuf),
}

/// One export asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Export {
    pub kind: Kind,
    pub dest: Dest,
}

/// The exports `args` ask for, checked: at most one on stdout, no file
/// twice, and every file one tasklab can create or replace. The error is a
/// usage error naming the flag.
pub fn plan(args: &Output) -> Result<Vec<Export>, UsageError> {
    let mut asked: Vec<(Kind, &str)> = Vec::new();
    if let Some(d) = &args.export_json {
        asked.push((Kind::Json, d));
    }
    if let Some(d) = &args.export_csv {
        asked.push((Kind::Csv, d));
    }
    if let Some(d) = &args.export_markdown {
        asked.push((Kind::Markdown, d));
    }
    if let Some(d) = &args.export_openmetrics {
        asked.push((Kind::OpenMetrics, d));
    }
    let on_stdout: Vec<&str> = asked
        .iter()
        .filter(|(_, d)| *d == "-")
        .map(|(k, _)| k.flag())
        .collect();
    if on_stdout.len() > 1 {
        return Err(UsageError(format!(
            "{} would {} print on stdout (`-`; --csv and --markdown mean `-` too): give all but one of them a file name",
            on_stdout.join(" and "),
            if on_stdout.len() == 2 { "both" } else { "all" }
        )));
    }
    let mut out = Vec::new();
    for (kind, d) in asked {
        let dest = if d == "-" {
            Dest::Stdout
        } else {
            let path = PathBuf::from(d);
            safefile::check_file_dest(&path)
                .map_err(|m| UsageError(format!("{} {m}", kind.flag())))?;
            if let Some(other) = out
                .iter()
                .find(|e: &&Export| same_file(&e.dest, &path))
                .map(|e| e.kind.flag())
            {
                return Err(UsageError(format!(
                    "{} and {other} both name {d}: give each its own file",
                    kind.flag()
                )));
            }
            Dest::File(path)
        };
        out.push(Export { kind, dest });
    }
    Ok(out)
}

/// Whether `dest` is the file `path` (by name, or as the same file).
fn same_file(dest: &Dest, path: &Path) -> bool {
    let Dest::File(p) = dest else {
        return false;
    };
    if p == path {
        return true;
    }
    let abs = |p: &Path| {
        let dir = p.parent().filter(|d| !d.as_os_str().is_empty());
        let dir = dir.unwrap_or(Path::new(".")).canonicalize().ok()?;
        Some(dir.join(p.file_name()?))
    };
    matches!((abs(p), abs(path)), (Some(a), Some(b)) if a == b)
}

/// Whether one of `exports` takes stdout.
pub fn takes_stdout(exports: &[Export]) -> bool {
    exports.iter().any(|e| e.dest == Dest::Stdout)
}

/// The text of an export of `r`; a Markdown report links its charts in the
/// folder `out`.
fn text(r: &RunResults, kind: Kind, out: &Path, dest: &Dest) -> anyhow::Result<String> {
    Ok(match kind {
        Kind::Json => {
            let mut t = serde_json::to_string_pretty(r)?;
            t.push('\n');
            t
        }
        Kind::Csv => super::csv::render(r)?,
        Kind::Markdown => {
            // From a file elsewhere the folder is named in full.
            let folder = match dest {
                Dest::File(_) => out.canonicalize().unwrap_or_else(|_| out.to_path_buf()),
                Dest::Stdout => out.to_path_buf(),
            };
            super::build(r).markdown(&format!("{}/", folder.display()))
        }
        Kind::OpenMetrics => super::openmetrics::render(r),
    })
}

/// Writes every export of `r` (files atomically, through
/// [`safefile::write_file`]); `print` writes the one for stdout.
pub fn write(
    r: &RunResults,
    exports: &[Export],
    out: &Path,
    print: impl Fn(&str) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    for e in exports {
        let t = text(r, e.kind, out, &e.dest)?;
        match &e.dest {
            Dest::Stdout => print(&t)?,
            Dest::File(p) => safefile::write_file(p, t.as_bytes())?,
        }
    }
    Ok(())
}
