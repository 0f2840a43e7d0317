//! Helpers every end-to-end test file shares: the binary, finding an
//! experiment or a metric's median in a results JSON, and short messages
//! for a failing assertion (what failed and the few numbers involved,
//! never a results document).
#![allow(dead_code)] // each test crate uses its own subset

pub mod fixture;
pub mod procs;
pub mod report;
pub mod source;

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
    assert_ok(&e);
    e
}

/// Runs `cmd` (a `tasklab run ... --json -`), which must succeed, and
/// returns the JSON on its stdout. A failure says the exit status, stderr
/// and each experiment in brief, never the document.
pub fn json_of_success(cmd: &mut Command) -> Value {
    let out = cmd.output().unwrap();
    let v: Option<Value> = serde_json::from_slice(&out.stdout).ok();
    assert!(
        out.status.success(),
        "tasklab failed ({}): {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr),
        v.as_ref()
            .and_then(|v| v["experiments"].as_array())
            .map(|a| a.iter().map(brief).collect::<Vec<_>>().join("\n"))
            .unwrap_or_default()
    );
    v.expect("JSON on stdout")
}

/// An experiment in a few lines, for a failing assertion: its name, status
/// and reason, its series' names and its first notes; never its samples.
pub fn brief(e: &Value) -> String {
    let list = |key: &str, field: &str| -> Vec<String> {
        e[key]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|x| match x[field].as_str() {
                        Some(s) => s.to_string(),
                        None => x.as_str().unwrap_or("?").to_string(),
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut names = list("metrics", "name");
    names.sort();
    names.dedup();
    let notes: Vec<String> = list("notes", "")
        .into_iter()
        .take(3)
        .map(|n| n.chars().take(160).collect())
        .collect();
    format!(
        "{}: status {}{}; {} series ({}); notes: {}",
        e["name"].as_str().unwrap_or("?"),
        e["status"],
        e["reason"]
            .as_str()
            .map(|r| format!(", reason: {r}"))
            .unwrap_or_default(),
        e["metrics"].as_array().map_or(0, Vec::len),
        names.join(", "),
        if notes.is_empty() {
            "none".to_string()
        } else {
            notes.join(" | ")
        }
    )
}

/// The experiment's status is ok; else a short message saying why not.
pub fn assert_ok(e: &Value) {
    assert_eq!(e["status"], "ok", "{}", brief(e));
}

/// The series `name` whose labels include all of `with`.
pub fn series<'a>(e: &'a Value, name: &str, with: &[(&str, &str)]) -> &'a Value {
    series_without(e, name, with, &[])
}

/// The series `name` whose labels include all of `with` and none of the
/// keys `absent` (a warm line without its `call=first` twin).
pub fn series_without<'a>(
    e: &'a Value,
    name: &str,
    with: &[(&str, &str)],
    absent: &[&str],
) -> &'a Value {
    e["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| {
            m["name"] == name
                && with.iter().all(|(k, v)| m["labels"][*k] == *v)
                && absent.iter().all(|k| m["labels"].get(*k).is_none())
        })
        .unwrap_or_else(|| panic!("no series {name} {with:?} without {absent:?}; {}", brief(e)))
}

/// A series' median.
pub fn median_of(m: &Value) -> f64 {
    m["summary"]["median"].as_f64().unwrap()
}

/// A series' samples.
pub fn samples(m: &Value) -> Vec<f64> {
    m["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// Samples in a few numbers: "270 samples: min 0.969, median 1, max 1.02".
pub fn spread(v: &[f64]) -> String {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    match (s.first(), s.last()) {
        (Some(lo), Some(hi)) => format!(
            "{} samples: min {lo:.4}, median {:.4}, max {hi:.4}",
            s.len(),
            s[s.len() / 2]
        ),
        _ => "no samples".to_string(),
    }
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
    median_of(series(e, name, with))
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
        .unwrap_or_else(|| panic!("no reading {name} {with:?}; {}", brief(e)))
}

/// The value of [`reading`].
pub fn reading_value(e: &Value, name: &str, with: &[(&str, &str)]) -> f64 {
    reading(e, name, with)["value"].as_f64().unwrap()
}

/// A row of `compare --json` (or `ab --json`) in one line, for a failing
/// assertion: the series, its verdict, the change with its interval, and
/// why it is inconclusive; never the whole comparison.
pub fn row_brief(row: &Value) -> String {
    let pct = |k: &str| {
        row[k]
            .as_f64()
            .map_or("n/a".to_string(), |x| format!("{x:+.1}%"))
    };
    format!(
        "{} {} {}: {}, change {} [{}, {}]{}",
        row["experiment"].as_str().unwrap_or("?"),
        row["metric"].as_str().unwrap_or("?"),
        row["case"].as_str().unwrap_or("?"),
        row["verdict"].as_str().unwrap_or("?"),
        pct("change"),
        pct("ci_lo"),
        pct("ci_hi"),
        row["why"]
            .as_str()
            .map(|w| format!("; why: {w}"))
            .unwrap_or_default()
    )
}

/// Runs `tasklab run ARGS --out DIR --json -` and returns (exit code, JSON).
pub fn run_json(args: &[&str], out: &std::path::Path) -> (i32, Value) {
    let o = tasklab()
        .arg("run")
        .args(args)
        .arg("--out")
        .arg(out)
        .args(["--json", "-"])
        .output()
        .unwrap();
    let code = o.status.code().unwrap_or(-1);
    let json: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON on stdout ({e}); stderr: {}",
            String::from_utf8_lossy(&o.stderr)
        )
    });
    (code, json)
}

pub fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}
