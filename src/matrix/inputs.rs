//! What `report` and `merge` are given, as runs: each FILE a results file
//! or a merged file, each DIR the results files directly in it (not in its
//! subfolders): `results.json`, every `results-*.json` and every
//! `merged*.json`. Checked before anything is written: no run twice, and
//! labels made unique.

use crate::error::UsageError;
use crate::results::merged::read_runs;
use crate::results::RunResults;
use std::path::{Path, PathBuf};

/// One run and where it came from.
#[derive(Clone, Debug)]
pub struct Input {
    /// The run's label, unique among the inputs.
    pub label: String,
    /// The file it was read from ("merged.json (run 2)" for a merged one).
    pub source: String,
    pub run: RunResults,
}

/// Whether a file in a folder is one the folder is read for.
pub fn is_results_name(name: &str) -> bool {
    name == crate::results::RESULTS_FILE
        || (name.ends_with(".json") && (name.starts_with("results-") || name.starts_with("merged")))
}

/// The files `path` stands for: itself, or a folder's results files in
/// name order; a folder with none is refused.
pub fn files_of(path: &Path) -> Result<Vec<PathBuf>, UsageError> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let entries = std::fs::read_dir(path)
        .map_err(|e| UsageError(format!("cannot read the folder {}: {e}", path.display())))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter(|e| e.file_name().to_str().is_some_and(is_results_name))
        .map(|e| e.path())
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(UsageError(format!(
            "{} is a folder with no results files (results.json, results-*.json or merged*.json)",
            path.display()
        )));
    }
    Ok(files)
}

/// Every run of every path, in order.
pub fn read_all(paths: &[PathBuf]) -> Result<Vec<(String, RunResults)>, UsageError> {
    let mut out = Vec::new();
    for p in paths {
        for f in files_of(p)? {
            let runs = read_runs(&f).map_err(|e| UsageError(format!("{e:#}")))?;
            let many = runs.len() > 1;
            for (i, r) in runs.into_iter().enumerate() {
                let source = if many {
                    format!("{} (run {})", f.display(), i + 1)
                } else {
                    f.display().to_string()
                };
                out.push((source, r));
            }
        }
    }
    Ok(out)
}

/// An A/B run holds two sides in one: it is reported alone or compared by
/// its sides, never a column or a merged run.
pub fn refuse_ab(runs: &[(String, RunResults)]) -> Result<(), UsageError> {
    match runs.iter().find(|(_, r)| r.ab.is_some()) {
        Some((source, _)) => Err(UsageError(format!(
            "{source} holds both sides of an A/B run: report it alone, or compare its sides (FILE:a FILE:b)"
        ))),
        None => Ok(()),
    }
}

/// What tells one run from another: its run id, or, in files from before
/// run ids, its start time and host.
pub fn identity_key(r: &RunResults) -> String {
    r.run_id()
        .unwrap_or_else(|| format!("{} on {}", r.started_unix_s, r.env.hostname))
}

/// The same run given twice is refused, naming both places.
pub fn check_distinct(runs: &[(String, RunResults)]) -> Result<(), UsageError> {
    for (i, (a, ra)) in runs.iter().enumerate() {
        let k = identity_key(ra);
        if let Some((b, _)) = runs[..i].iter().find(|(_, rb)| identity_key(rb) == k) {
            return Err(UsageError(format!(
                "{a} and {b} are the same run ({}): give each run once",
                match ra.run_id() {
                    Some(id) => format!("run id {id}"),
                    None => "the same start time and host".to_string(),
                }
            )));
        }
    }
    Ok(())
}

/// The runs labelled: a label a run before it took gets `-2`, `-3`, ...,
/// and each such renaming is returned as a note.
pub fn labelled(runs: Vec<(String, RunResults)>) -> (Vec<Input>, Vec<String>) {
    let mut out: Vec<Input> = Vec::new();
    let mut notes = Vec::new();
    for (source, run) in runs {
        let base = run.label();
        let mut label = base.clone();
        let mut k = 2;
        while out.iter().any(|i| i.label == label) {
            label = format!("{base}-{k}");
            k += 1;
        }
        if label != base {
            notes.push(format!(
                "{source} is labelled {base} like a run before it: shown as {label}"
            ));
        }
        out.push(Input { label, source, run });
    }
    (out, notes)
}
