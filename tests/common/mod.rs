//! Helpers every end-to-end test file shares: the binary, and finding an
//! experiment or a metric's median in a results JSON.
#![allow(dead_code)] // each test crate uses its own subset

use assert_cmd::Command;
use serde_json::Value;

pub fn tasklab() -> Command {
    Command::cargo_bin("tasklab").expect("the binary is built")
}

/// `tasklab report FILE --out DIR ARGS`, which must succeed: its stdout.
pub fn report_stdout(file: &std::path::Path, dir: &std::path::Path, extra: &[&str]) -> String {
    let out = tasklab()
        .arg("report")
        .arg(file)
        .arg("--out")
        .arg(dir)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs `tasklab run <exp> -p ... --json -`, which must succeed, and
/// returns the experiment, whose status must be ok.
pub fn run_one(exp: &str, params: &[&str]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = tasklab();
    cmd.args(["run", exp, "--out"]).arg(dir.path());
    for p in params {
        cmd.args(["-p", p]);
    }
    let out = cmd.args(["--json", "-"]).output().unwrap();
    assert!(
        out.status.success(),
        "{exp} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let e = v["experiments"][0].clone();
    assert_eq!(e["status"], "ok", "{e}");
    e
}

/// The experiment `name` in a results document.
pub fn experiment<'a>(r: &'a Value, name: &str) -> &'a Value {
    r["experiments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no experiment {name} in the results"))
}

/// The median of the metric `name` whose labels include all of `with`.
pub fn median(e: &Value, name: &str, with: &[(&str, &str)]) -> f64 {
    e["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == name && with.iter().all(|(k, v)| m["labels"][*k] == *v))
        .unwrap_or_else(|| panic!("no {name} {with:?} in {e}"))["summary"]["median"]
        .as_f64()
        .unwrap()
}

/// An experiment's notes, one a line.
pub fn notes(e: &Value) -> String {
    e["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first reading `name` whose labels include all of `with` (its value
/// and labels).
pub fn reading<'a>(e: &'a Value, name: &str, with: &[(&str, &str)]) -> &'a Value {
    e["readings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name && with.iter().all(|(k, v)| r["labels"][*k] == *v))
        .unwrap_or_else(|| panic!("no reading {name} {with:?} in {e}"))
}

/// The value of [`reading`].
pub fn reading_value(e: &Value, name: &str, with: &[(&str, &str)]) -> f64 {
    reading(e, name, with)["value"].as_f64().unwrap()
}
