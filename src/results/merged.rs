//! A merged file: several runs in one (`tasklab merge`), each a whole
//! results file as `tasklab run` wrote it. `report` and `compare` read it
//! as the runs it holds: [`read_runs`] expands any file they are given,
//! a plain results file into its one run, a merged file into its runs.

use super::{RunResults, MAX_READ_BYTES};
use crate::sys::safefile;
use serde::Serialize;
use std::path::Path;

/// The `"schema"` of a merged file.
pub const MERGED_SCHEMA: &str = "tasklab-merged";

/// The merged file's version: version 1 is `{"schema", "schema_version",
/// "runs": [results file, ...]}`.
pub const MERGED_VERSION: u32 = 1;

/// A merged file as it is written.
#[derive(Serialize)]
struct Merged<'a> {
    schema: &'static str,
    schema_version: u32,
    runs: &'a [RunResults],
}

/// The merged file's content for `runs`, in their order.
pub fn to_json(runs: &[RunResults]) -> anyhow::Result<Vec<u8>> {
    Ok(serde_json::to_vec_pretty(&Merged {
        schema: MERGED_SCHEMA,
        schema_version: MERGED_VERSION,
        runs,
    })?)
}

/// The runs a file holds: a results file's one run, or every run of a
/// merged file, each checked as a results file is (its schema and
/// version). Errors name the file, and the run's place in a merged one.
pub fn read_runs(path: &Path) -> anyhow::Result<Vec<RunResults>> {
    read_file(path).map(|(runs, _)| runs)
}

/// [`read_runs`], and whether the file was a merged one.
pub fn read_file(path: &Path) -> anyhow::Result<(Vec<RunResults>, bool)> {
    let bytes = safefile::read_bounded(path, MAX_READ_BYTES).map_err(anyhow::Error::msg)?;
    let v: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|e| anyhow::anyhow!("{} is not valid JSON (truncated?): {e}", path.display()))?;
    let name = path.display().to_string();
    if v.get("schema").and_then(|s| s.as_str()) != Some(MERGED_SCHEMA) {
        return Ok((vec![RunResults::from_value(v, &name)?], false));
    }
    let ver = v.get("schema_version").and_then(|s| s.as_u64());
    if ver != Some(MERGED_VERSION as u64) {
        anyhow::bail!(
            "{name} is a merged file of version {}, this tasklab reads version {MERGED_VERSION}",
            ver.map_or("none".to_string(), |v| v.to_string())
        );
    }
    let Some(serde_json::Value::Array(runs)) = v.get("runs").cloned() else {
        anyhow::bail!("{name} is a merged file without its \"runs\"");
    };
    if runs.is_empty() {
        anyhow::bail!("{name} is a merged file that holds no runs");
    }
    let runs = runs
        .into_iter()
        .enumerate()
        .map(|(i, r)| RunResults::from_value(r, &format!("{name} (run {})", i + 1)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok((runs, true))
}
