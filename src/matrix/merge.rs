//! `tasklab merge FILE|DIR... --out FILE`: several runs in one file (a
//! merged file, `results::merged`), which `report` and `compare` read as
//! the runs it holds. A merged input is flattened into its runs. Checked
//! before anything is written: the output is none of the inputs (by name
//! or as the same file), no run is given twice, and there are two runs or
//! more.

use super::inputs;
use crate::error::UsageError;
use crate::results::merged;
use crate::sys::safefile;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Whether `a` and `b` name one file: the same path once resolved, or the
/// same inode on the same device.
fn same_file(a: &Path, b: &Path) -> bool {
    if let (Ok(x), Ok(y)) = (a.canonicalize(), b.canonicalize()) {
        if x == y {
            return true;
        }
    }
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

pub fn merge(files: &[PathBuf], out: &Path) -> anyhow::Result<ExitCode> {
    for f in files {
        for g in inputs::files_of(f)? {
            if same_file(&g, out) || g == out {
                return Err(UsageError(format!(
                    "--out {} is one of the inputs ({}): merge into a new file",
                    out.display(),
                    g.display()
                ))
                .into());
            }
        }
    }
    let runs = inputs::read_all(files)?;
    if runs.len() < 2 {
        return Err(UsageError(format!(
            "merge needs two runs or more; {} holds one",
            files[0].display()
        ))
        .into());
    }
    inputs::refuse_ab(&runs)?;
    inputs::check_distinct(&runs)?;
    safefile::check_file_dest(out).map_err(|m| UsageError(format!("--out {m}")))?;
    let n = runs.len();
    let runs: Vec<_> = runs.into_iter().map(|r| r.1).collect();
    let bytes = merged::to_json(&runs)?;
    // A file report and compare cannot read back is not written.
    if bytes.len() as u64 > crate::results::MAX_READ_BYTES {
        return Err(UsageError(format!(
            "{} runs make a merged file of {} MiB, over the {} MiB tasklab reads: merge fewer, or give report the files themselves",
            runs.len(),
            bytes.len() >> 20,
            crate::results::MAX_READ_BYTES >> 20
        ))
        .into());
    }
    safefile::write_file(out, &bytes)?;
    crate::error::out(&format!("merged {n} runs into {}\n", out.display()))?;
    Ok(ExitCode::SUCCESS)
}
