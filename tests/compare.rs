//! `tasklab compare` on a real results file and a copy with an injected
//! regression: the verdicts and the exit status CI jobs rely on.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn results_file(dir: &std::path::Path) -> std::path::PathBuf {
    Command::cargo_bin("tasklab")
        .unwrap()
        .args([
            "run",
            "yardstick.syscall",
            "yardstick.timer",
            "--quiet",
            "--out",
        ])
        .arg(dir)
        .assert()
        .success();
    dir.join("results.json")
}

/// Makes the `clock=monotonic` series steady (a busy machine can leave a real
/// one unsettled, and an unsettled series is rightly never judged): the same
/// narrow spread of values in every round, keeping the round sizes. The
/// rounds' canary records go too: a canary that moved on a busy machine makes
/// every row of its experiment rightly inconclusive.
fn steady_monotonic(path: &std::path::Path) {
    let mut r: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    for e in r["experiments"].as_array_mut().unwrap() {
        e["round_log"] = Value::Array(vec![]);
        for m in e["metrics"].as_array_mut().unwrap() {
            if m["labels"]["clock"] != "monotonic" {
                continue;
            }
            for (i, v) in m["samples"].as_array_mut().unwrap().iter_mut().enumerate() {
                *v = Value::from(28.0 * (1.0 + 0.002 * (i % 5) as f64));
            }
        }
    }
    std::fs::write(path, serde_json::to_vec(&r).unwrap()).unwrap();
}

/// Scales every sample and summary figure of metric `clock=monotonic` by `k`.
fn inject(path: &std::path::Path, out: &std::path::Path, k: f64) {
    let mut r: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    for e in r["experiments"].as_array_mut().unwrap() {
        for m in e["metrics"].as_array_mut().unwrap() {
            if m["labels"]["clock"] != "monotonic" {
                continue;
            }
            for v in m["samples"].as_array_mut().unwrap() {
                *v = Value::from(v.as_f64().unwrap() * k);
            }
            for f in [
                "min", "max", "median", "mean", "p10", "p25", "p75", "p90", "p99", "ci95_lo",
                "ci95_hi",
            ] {
                let x = m["summary"][f].as_f64().unwrap();
                m["summary"][f] = Value::from(x * k);
            }
        }
    }
    std::fs::write(out, serde_json::to_vec(&r).unwrap()).unwrap();
}

#[test]
fn a_run_compared_with_itself_is_unchanged() {
    let d = tempfile::tempdir().unwrap();
    let f = results_file(d.path());
    Command::cargo_bin("tasklab")
        .unwrap()
        .arg("compare")
        .args([&f, &f])
        .assert()
        .success()
        .stdout(predicate::str::contains("0 regressed, 0 improved"));
}

#[test]
fn an_injected_regression_is_flagged_and_fails_the_exit_status() {
    let d = tempfile::tempdir().unwrap();
    let f = results_file(d.path());
    steady_monotonic(&f);
    let slow = d.path().join("slow.json");
    inject(&f, &slow, 3.0);
    let out = Command::cargo_bin("tasklab")
        .unwrap()
        .args(["compare", "--json"])
        .args([&f, &slow])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "a regression fails CI");
    let c: Value = serde_json::from_slice(&out.stdout).unwrap();
    for row in c["rows"].as_array().unwrap() {
        // a flagged series (a busy machine: a trend, two modes) or one too
        // imprecise to tell is inconclusive, with the reason
        let expected = if row.get("why").is_some() {
            "inconclusive"
        } else if row["case"] == "clock=monotonic" {
            "regressed"
        } else {
            "unchanged"
        };
        assert_eq!(row["verdict"], expected, "{row}");
    }
    // and the other way round it is an improvement, which passes
    let fast = d.path().join("fast.json");
    inject(&f, &fast, 1.0 / 3.0);
    Command::cargo_bin("tasklab")
        .unwrap()
        .arg("compare")
        .args([&f, &fast])
        .assert()
        .success()
        .stdout(predicate::str::contains("1 improved"));
}

#[test]
fn files_that_are_not_results_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let f = results_file(d.path());
    let junk = d.path().join("junk.json");
    std::fs::write(&junk, b"{\"schema\": \"something-else\"}").unwrap();
    Command::cargo_bin("tasklab")
        .unwrap()
        .arg("compare")
        .args([&f, &junk])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not a tasklab results file"));
    let truncated = d.path().join("trunc.json");
    let text = std::fs::read(&f).unwrap();
    std::fs::write(&truncated, &text[..text.len() / 2]).unwrap();
    Command::cargo_bin("tasklab")
        .unwrap()
        .arg("compare")
        .args([&f, &truncated])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("truncated"));
}

#[test]
fn several_files_per_side_are_pooled_and_json_has_the_documented_fields() {
    let d = tempfile::tempdir().unwrap();
    let a = tempfile::tempdir().unwrap();
    let f1 = results_file(d.path());
    let f2 = results_file(a.path());
    let out = Command::cargo_bin("tasklab")
        .unwrap()
        .args(["compare", "--json"])
        .args([&f1, &f2])
        .arg("--vs")
        .args([&f2, &f1])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "the same files both ways");
    let c: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = c["rows"].as_array().unwrap();
    assert!(!rows.is_empty());
    for row in rows {
        for field in [
            "experiment",
            "metric",
            "labels",
            "base",
            "new",
            "change",
            "ci_lo",
            "ci_hi",
            "verdict",
        ] {
            assert!(row.get(field).is_some(), "{field} missing in {row}");
        }
        // both sides hold the same rounds: no change, unless the interval is
        // too wide to say so or the series was flagged (a busy machine)
        let settled = row.get("why").is_none();
        let expected = if settled { "unchanged" } else { "inconclusive" };
        assert_eq!(row["verdict"], expected, "{row}");
        assert_eq!(row["base"], row["new"], "{row}");
    }
    assert_eq!(c["base_files"].as_array().unwrap().len(), 2);
}

#[test]
fn one_file_with_no_vs_is_a_usage_error() {
    let d = tempfile::tempdir().unwrap();
    let f = results_file(d.path());
    Command::cargo_bin("tasklab")
        .unwrap()
        .arg("compare")
        .arg(&f)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--vs"));
}
