//! The report's fixed results file (a real quick run, samples thinned) and
//! its rendering, for the report's test files.

use super::report_stdout;
use std::path::{Path, PathBuf};
use tasklab::api::results::{ExperimentResult, RunResults};

pub fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-results.json")
}

/// The fixture, read and upgraded as `tasklab report` does.
pub fn results() -> RunResults {
    let mut r = RunResults::read(&fixture()).expect("the fixture reads");
    tasklab::api::report::upgrade(&mut r);
    r
}

/// The fixture's experiment `name`.
pub fn experiment<'a>(r: &'a RunResults, name: &str) -> &'a ExperimentResult {
    r.experiments
        .iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("{name} in the fixture"))
}

/// Renders the fixture into a fresh folder; returns it and stdout.
pub fn render(extra: &[&str]) -> (tempfile::TempDir, String) {
    let d = tempfile::tempdir().unwrap();
    let stdout = report_stdout(&fixture(), d.path(), extra);
    (d, stdout)
}

/// The file `name` of the report folder `d`.
pub fn read(d: &Path, name: &str) -> String {
    std::fs::read_to_string(d.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}
