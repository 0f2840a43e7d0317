//! The report folder holds exactly one run. A manifest lists every file
//! tasklab wrote there with the SHA-256 of what it wrote; before a run
//! writes, the files an earlier run wrote are removed (a chart of an
//! experiment this run does not have cannot linger), and the earlier
//! `results.json` is kept as `previous.json`. A file is removed only when
//! the manifest lists it under a name tasklab writes and its content is
//! still what tasklab wrote: nothing else in the folder is ever touched
//! (the `partial/` and `baselines/` folders in it are folders, never listed).
//!
//! Which folder a run writes ([`Place`]): the default suite writes the
//! report folder itself; a run that names experiments writes
//! `partial/<selection>/` inside it, so the full run's report survives;
//! `--out DIR` is used as it is.

use crate::error::UsageError;
use crate::results::{MAX_READ_BYTES, RESULTS_FILE};
use crate::sys::safefile::{sha256_hex, OutDir, Trust};
use std::path::{Path, PathBuf};

/// The manifest's file name (hidden: it is the folder's bookkeeping).
pub const MANIFEST: &str = ".tasklab-manifest";

/// The results of the run before, kept for `tasklab compare`.
pub const PREVIOUS_FILE: &str = "previous.json";

/// What preparing the folder did.
#[derive(Debug, Default)]
pub struct Begun {
    /// previous.json, when the earlier results were kept as it.
    pub previous: Option<PathBuf>,
    /// The files of an earlier run removed.
    pub removed: Vec<String>,
    /// What the user should know (a file tasklab left alone).
    pub notes: Vec<String>,
}

/// A name tasklab writes in a report folder.
pub fn is_ours(name: &str) -> bool {
    let chart = name
        .strip_prefix("chart-")
        .and_then(|n| n.strip_suffix(".svg"))
        .is_some_and(|n| {
            !n.is_empty()
                && n.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        });
    // A repeated run's results (`run --repeat`): results-1.json, ...
    let repeat = name
        .strip_prefix("results-")
        .and_then(|n| n.strip_suffix(".json"))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    chart || repeat || [RESULTS_FILE, PREVIOUS_FILE, "report.md", "report.html"].contains(&name)
}

/// The manifest's entries, (file, hash); a line that is not `HASH  NAME`
/// with a 64-digit hex hash is ignored.
pub fn parse(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|l| {
            let (hash, name) = l.split_once("  ")?;
            let hex = hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit());
            (hex && !name.is_empty()).then(|| (name.to_string(), hash.to_ascii_lowercase()))
        })
        .collect()
}

/// Prepares `out` for this run's files and starts its manifest. With
/// `keep_results` the folder's results.json (an earlier run's) becomes
/// previous.json; without it (`tasklab report` of the folder's own
/// results.json) it stays. Then every file the manifest lists that tasklab
/// wrote and nobody changed since is removed, but previous.json.
pub fn begin(out: &OutDir, keep_results: bool) -> anyhow::Result<Begun> {
    let listed = match out.read(MANIFEST, 1 << 20) {
        Ok(Some(bytes)) => parse(&String::from_utf8_lossy(&bytes)),
        Ok(None) => Vec::new(),
        Err(e) => anyhow::bail!("{e}"),
    };
    // The hash of `name` as it is now, when it is a regular file.
    let hash_now = |name: &str| -> Option<String> {
        out.read(name, MAX_READ_BYTES)
            .ok()
            .flatten()
            .map(|b| sha256_hex(&b))
    };
    let unchanged = |name: &str| {
        is_ours(name)
            && !name.contains('/')
            && listed
                .iter()
                .any(|(f, h)| f == name && hash_now(name).as_ref() == Some(h))
    };
    let mut begun = Begun::default();
    let mut kept = Vec::new();
    if keep_results && out.has_file(RESULTS_FILE) {
        if out.has_file(PREVIOUS_FILE) && !unchanged(PREVIOUS_FILE) {
            begun.notes.push(format!(
                "{} is not the file tasklab wrote there, so it stays as it is; the earlier {RESULTS_FILE} is replaced",
                out.shown(PREVIOUS_FILE).display()
            ));
        } else {
            out.rename(RESULTS_FILE, PREVIOUS_FILE)?;
            begun.previous = Some(out.shown(PREVIOUS_FILE));
        }
    } else if out.has_file(PREVIOUS_FILE) && unchanged(PREVIOUS_FILE) {
        begun.previous = Some(out.shown(PREVIOUS_FILE));
    }
    if begun.previous.is_some() {
        if let Some(h) = hash_now(PREVIOUS_FILE) {
            kept.push((PREVIOUS_FILE.to_string(), h));
        }
    }
    for (name, _) in &listed {
        if name == PREVIOUS_FILE || name == RESULTS_FILE || !unchanged(name) {
            continue;
        }
        if out.remove(name).is_ok() {
            begun.removed.push(name.clone());
        }
    }
    if !keep_results {
        if let Some(h) = hash_now(RESULTS_FILE) {
            kept.push((RESULTS_FILE.to_string(), h));
        }
    }
    out.keep_manifest(MANIFEST, kept)?;
    Ok(begun)
}

/// The folder, inside the report folder, of the runs that name experiments.
pub const PARTIAL_DIR: &str = "partial";

/// The longest selection folder name; a longer one is cut and ends in a
/// short hash of the whole selection.
pub const MAX_SELECTION: usize = 64;

/// Where a run's report goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// `--out DIR`: the user's folder, used as it is.
    Named(PathBuf),
    /// The default suite: the report folder itself.
    Full(PathBuf),
    /// A run that names experiments: `ROOT/partial/<selection>`.
    Partial { root: PathBuf, selection: String },
}

impl Place {
    /// The folder of a run of `names` (none: the default suite), into
    /// `out` when the user named one, else under the report folder `root`.
    /// Names that select exactly the default suite (all its groups) are a
    /// full run.
    pub fn of(out: Option<&Path>, root: &Path, names: &[String]) -> Place {
        if let Some(o) = out {
            return Place::Named(o.to_path_buf());
        }
        if is_full(names) {
            Place::Full(root.to_path_buf())
        } else {
            Place::Partial {
                root: root.to_path_buf(),
                selection: selection(names),
            }
        }
    }

    /// The folder, as the user knows it.
    pub fn path(&self) -> PathBuf {
        match self {
            Place::Named(p) | Place::Full(p) => p.clone(),
            Place::Partial { root, selection } => root.join(PARTIAL_DIR).join(selection),
        }
    }

    /// Opens the folder as [`super::open_out`] does (created, checked,
    /// locked, swept, a file written as a test). A partial run's folder and
    /// the two above it are each checked as a default folder is, reached
    /// through the one above, so none of them can be a link.
    pub fn open(&self) -> Result<OutDir, UsageError> {
        match self {
            Place::Named(p) => take(OutDir::open(p, Trust::Explicit).map_err(UsageError)?),
            Place::Full(p) => take(OutDir::open(p, Trust::Default).map_err(UsageError)?),
            Place::Partial { root, selection } => {
                open_nested(root, &[PARTIAL_DIR, selection], &self.path())
            }
        }
    }
}

/// The folder `root/parts...`, each level checked as a default folder,
/// created when missing: not locked (the caller takes what it needs).
/// `shown` is the folder named in the hint of an error.
pub fn nested(root: &Path, parts: &[&str], shown: &Path) -> Result<OutDir, UsageError> {
    let hint = |e: String| {
        let root_hint = format!("pass --out {} to use it anyway", root.display());
        let hint = format!("pass --out {} to use it anyway", shown.display());
        if e.contains(&root_hint) {
            UsageError(e.replace(&root_hint, &hint))
        } else {
            UsageError(format!("{e} ({hint})"))
        }
    };
    let mut dir = OutDir::open(root, Trust::Default).map_err(hint)?;
    for p in parts {
        dir = dir.subdir(p).map_err(hint)?;
    }
    Ok(dir)
}

fn open_nested(root: &Path, parts: &[&str], shown: &Path) -> Result<OutDir, UsageError> {
    take(nested(root, parts, shown)?)
}

/// An open output folder made ready for a run: locked against a second
/// one, cleared of the temporary files a killed run left, and a file
/// written in it as a test.
pub fn take(out: OutDir) -> Result<OutDir, UsageError> {
    out.lock().map_err(UsageError)?;
    out.sweep();
    out.probe().map_err(UsageError)?;
    Ok(out)
}

/// Whether `names` select the default suite: none, or exactly its
/// experiments.
pub fn is_full(names: &[String]) -> bool {
    if names.is_empty() {
        return true;
    }
    let all = crate::experiments::select(&[]).unwrap_or_default();
    crate::experiments::select(names).is_ok_and(|chosen| {
        chosen.len() == all.len() && chosen.iter().zip(&all).all(|(a, b)| a.name == b.name)
    })
}

/// The folder name of a run of `names`: each name with every character
/// but letters, digits, `.`, `_` and `-` made `_` (and a leading `.` made
/// `_`), sorted, without repeats, joined with `+`; over [`MAX_SELECTION`]
/// characters, cut and ended with `-` and 10 hex digits of the SHA-256 of
/// the whole.
pub fn selection(names: &[String]) -> String {
    let mut parts: Vec<String> = names.iter().map(|n| sanitise(n)).collect();
    parts.sort();
    parts.dedup();
    let whole = parts.join("+");
    if whole.is_empty() {
        return "_".into();
    }
    if whole.len() <= MAX_SELECTION {
        return whole;
    }
    let mut raw: Vec<&str> = names.iter().map(String::as_str).collect();
    raw.sort_unstable();
    raw.dedup();
    let hash = sha256_hex(raw.join("\n").as_bytes());
    // Every character is ASCII: any byte is a boundary.
    let head = whole[..MAX_SELECTION - 11].trim_end_matches(['+', '.']);
    format!("{head}-{}", &hash[..10])
}

/// A name as a file name's part (see [`selection`]).
fn sanitise(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with('.') {
        s.replace_range(..s.len().min(1), "_");
    }
    s
}

#[cfg(test)]
#[path = "folder_tests.rs"]
mod tests;
