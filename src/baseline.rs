//! Named baselines, as criterion keeps them. `run --save-baseline NAME`
//! copies the run's results into the store, `tasklab-report/baselines/
//! NAME.json` (or the folder `$TASKLAB_BASELINES` names), written through a
//! temporary file renamed over an older one of that name; `compare
//! --baseline NAME` compares the latest run (or a file) against it; `list
//! --baselines` shows them. The default store is checked as a default
//! folder is, and so is the report folder above it.

use crate::cli::DEFAULT_OUT;
use crate::error::UsageError;
use crate::report::folder;
use crate::results::{RunResults, RunStatus, MAX_READ_BYTES, RESULTS_FILE, SCHEMA_NAME};
use crate::sys::safefile::{self, OutDir, Trust};
use std::path::{Path, PathBuf};

/// The store's folder inside the report folder.
pub const DIR: &str = "baselines";

/// The environment variable naming another store (used as it is).
pub const ENV: &str = "TASKLAB_BASELINES";

/// The longest name.
pub const MAX_NAME: usize = 64;

/// Checks a baseline's name: 1 to 64 letters, digits, `.`, `_` or `-`, not
/// starting with `.`. The error is one line.
pub fn check_name(name: &str) -> Result<(), UsageError> {
    if crate::env::label::is_safe_name(name, MAX_NAME) {
        Ok(())
    } else {
        Err(UsageError(format!(
            "bad baseline name '{}': use 1 to {MAX_NAME} letters, digits, '.', '_' or '-', not starting with '.'",
            name.escape_debug()
        )))
    }
}

/// The store's folder, and whether the user named it (`$TASKLAB_BASELINES`).
pub fn store_path() -> (PathBuf, bool) {
    match std::env::var_os(ENV).filter(|v| !v.is_empty()) {
        Some(p) => (PathBuf::from(p), true),
        None => (Path::new(DEFAULT_OUT).join(DIR), false),
    }
}

/// The file of the baseline `name` in its store.
fn file_name(name: &str) -> String {
    format!("{name}.json")
}

/// A baseline to save at the end of a run: its name checked and its store
/// opened (created, checked, a file written as a test) before measuring.
#[derive(Debug)]
pub struct Save {
    name: String,
    store: OutDir,
}

impl Save {
    /// `run --save-baseline NAME`, checked before anything is measured.
    pub fn prepare(name: Option<&str>) -> Result<Option<Save>, UsageError> {
        let Some(name) = name else {
            return Ok(None);
        };
        check_name(name)?;
        let (path, named) = store_path();
        let store = if named {
            OutDir::open(&path, Trust::Explicit).map_err(UsageError)?
        } else {
            folder::nested(Path::new(DEFAULT_OUT), &[DIR], &path)?
        };
        store.probe().map_err(UsageError)?;
        Ok(Some(Save {
            name: name.to_string(),
            store,
        }))
    }

    /// Keeps `r` as the baseline, replacing an older one of the name at
    /// once (a reader sees one or the other). A run that did not complete
    /// is not kept: Ok(None).
    pub fn keep(&self, r: &RunResults) -> anyhow::Result<Option<PathBuf>> {
        if r.status != RunStatus::Complete {
            return Ok(None);
        }
        let file = file_name(&self.name);
        self.store.write(&file, &r.to_json()?)?;
        Ok(Some(self.store.shown(&file)))
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// A baseline in the store, read.
#[derive(Debug)]
pub struct Entry {
    pub name: String,
    pub path: PathBuf,
    /// The run it holds, or why it cannot be read.
    pub run: Result<Box<RunResults>, String>,
}

/// The baselines in the store, by name, and the store's folder (nothing
/// is created: a missing store has none). Only regular files named
/// `NAME.json` with a good NAME count.
pub fn entries() -> (PathBuf, Vec<Entry>) {
    let (store, _) = store_path();
    let mut out: Vec<Entry> = names_in(&store)
        .into_iter()
        .map(|name| {
            let path = store.join(file_name(&name));
            let run = RunResults::read(&path)
                .map(Box::new)
                .map_err(|e| format!("{e:#}"));
            Entry { name, path, run }
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    (store, out)
}

/// The names of the baselines in `store`, sorted.
fn names_in(store: &Path) -> Vec<String> {
    let Ok(list) = std::fs::read_dir(store) else {
        return Vec::new();
    };
    let mut names: Vec<String> = list
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| {
            let f = e.file_name().into_string().ok()?;
            let stem = f.strip_suffix(".json")?.to_string();
            check_name(&stem).is_ok().then_some(stem)
        })
        .collect();
    names.sort();
    names
}

/// `compare --baseline NAME [FILE]`: the two files to compare, the
/// baseline first; the new run is FILE, or the latest run in the report
/// folder ([`latest`]). Bad input (a bad or missing name, more than one
/// FILE, no run) is a one-line error naming what there is.
pub fn compare_files(name: &str, files: &[PathBuf]) -> Result<Vec<PathBuf>, UsageError> {
    pick(&store_path().0, Path::new(DEFAULT_OUT), name, files)
}

/// [`compare_files`] with the store and the report folder given.
pub fn pick(
    store: &Path,
    root: &Path,
    name: &str,
    files: &[PathBuf],
) -> Result<Vec<PathBuf>, UsageError> {
    check_name(name)?;
    if files.len() > 1 {
        return Err(UsageError(format!(
            "compare --baseline {name} takes at most one FILE, the run to compare (default: the latest), not {}",
            files.len()
        )));
    }
    let base = store.join(file_name(name));
    let there = std::fs::symlink_metadata(&base).is_ok_and(|m| m.file_type().is_file());
    if !there {
        let have = names_in(store);
        let what = if have.is_empty() {
            "there are none yet: save one with `tasklab run --save-baseline NAME`".to_string()
        } else {
            format!("the baselines there: {}", have.join(", "))
        };
        return Err(UsageError(format!(
            "no baseline '{name}' in {}; {what}",
            store.display()
        )));
    }
    let new = match files.first() {
        Some(f) => f.clone(),
        None => latest(root)?,
    };
    Ok(vec![base, new])
}

/// The newest run in the report folder `root`: of `root/results.json` and
/// `root/partial/*/results.json`, the one whose recorded start is latest
/// (a file that is not a results file is passed over).
pub fn latest(root: &Path) -> Result<PathBuf, UsageError> {
    let mut candidates = vec![root.join(RESULTS_FILE)];
    if let Ok(list) = std::fs::read_dir(root.join(folder::PARTIAL_DIR)) {
        let mut subs: Vec<PathBuf> = list
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path().join(RESULTS_FILE))
            .collect();
        subs.sort();
        candidates.extend(subs);
    }
    candidates
        .into_iter()
        .filter_map(|p| started(&p).map(|s| (s, p)))
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, p)| p)
        .ok_or_else(|| {
            UsageError(format!(
                "no run to compare: neither {} nor {} holds a results file; name one: tasklab compare --baseline NAME FILE",
                root.join(RESULTS_FILE).display(),
                root.join(folder::PARTIAL_DIR).join("*").join(RESULTS_FILE).display()
            ))
        })
}

/// When the run of the results file `path` started, None when it is not a
/// results file.
fn started(path: &Path) -> Option<f64> {
    #[derive(serde::Deserialize)]
    struct Head {
        schema: String,
        started_unix_s: f64,
    }
    let bytes = safefile::read_bounded(path, MAX_READ_BYTES).ok()?;
    let h: Head = serde_json::from_slice(&bytes).ok()?;
    (h.schema == SCHEMA_NAME && h.started_unix_s.is_finite()).then_some(h.started_unix_s)
}

/// A moment as `2026-01-02 10:11:12 UTC`.
pub fn utc(unix_s: f64) -> String {
    // A file's figure, not a clock: a time past the year 5000 is no date.
    if !(0.0..1e11).contains(&unix_s) {
        return "an unknown time".into();
    }
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(unix_s.max(0.0));
    humantime::format_rfc3339_seconds(t)
        .to_string()
        .replace('T', " ")
        .replace('Z', " UTC")
}

/// The experiments of a run, in words: "the default suite (N experiments)"
/// when it holds exactly the default suite, else their names.
pub fn experiments_of(r: &RunResults) -> String {
    let names: Vec<String> = r.experiments.iter().map(|e| e.name.clone()).collect();
    if !names.is_empty() && folder::is_full(&names) {
        format!("the default suite ({} experiments)", names.len())
    } else if names.is_empty() {
        "no experiments".into()
    } else {
        names.join(", ")
    }
}

#[cfg(test)]
#[path = "baseline_tests.rs"]
mod tests;
