//! The report folder holds exactly one run. A manifest lists every file
//! tasklab wrote there with the SHA-256 of what it wrote; before a run
//! writes, the files an earlier run wrote are removed (a chart of an
//! experiment this run does not have cannot linger), and the earlier
//! `results.json` is kept as `previous.json`. A file is removed only when
//! the manifest lists it under a name tasklab writes and its content is
//! still what tasklab wrote: nothing else in the folder is ever touched.

use crate::results::{MAX_READ_BYTES, RESULTS_FILE};
use crate::sys::safefile::{sha256_hex, OutDir};
use std::path::PathBuf;

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
