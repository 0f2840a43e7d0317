//! `run --repeat`, `tasklab calibrate` and `compare --noise` end to end: the
//! files a repeated run leaves, a noise file learned from results files and
//! found again in the cache by the machine's fingerprint, and `compare`
//! saying so in its header; calibrate measuring with `run`'s flags. Two
//! short measured series; the rest on copies of a fixed results file.

mod common;

use common::tasklab;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-results.json")
}

/// A copy of the fixture with every syscall sample scaled by `k`: a run of
/// the same machine whose one series moved.
fn moved(dir: &Path, name: &str, k: f64) -> PathBuf {
    let mut r: Value = serde_json::from_slice(&std::fs::read(fixture()).unwrap()).unwrap();
    for e in r["experiments"].as_array_mut().unwrap() {
        if e["name"] != "yardstick.syscall" {
            continue;
        }
        for m in e["metrics"].as_array_mut().unwrap() {
            // Three rounds of three (the fixture's round sizes predate it).
            m["rounds"] = serde_json::json!([3, 3, 3]);
            for v in m["samples"].as_array_mut().unwrap() {
                *v = Value::from(v.as_f64().unwrap() * k);
            }
        }
    }
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_vec(&r).unwrap()).unwrap();
    p
}

#[test]
fn a_repeated_run_leaves_one_results_file_per_run_and_the_last_as_results_json() {
    let d = tempfile::tempdir().unwrap();
    tasklab()
        .args(["run", "yardstick.syscall", "--rounds", "3", "--repeat", "2"])
        .args(["--seed", "7", "--quiet", "--out"])
        .arg(d.path())
        .assert()
        .success();
    let read = |n: &str| -> Value {
        serde_json::from_slice(&std::fs::read(d.path().join(n)).unwrap()).unwrap()
    };
    let (one, two, last) = (
        read("results-1.json"),
        read("results-2.json"),
        read("results.json"),
    );
    assert_eq!(one["seed"], 7);
    assert_eq!(two["seed"], 8);
    assert_eq!(last, two);
    // Every results file records the machine's fingerprint.
    assert_eq!(
        one["env"]["fingerprint"]["hash"].as_str().unwrap().len(),
        12
    );
    // The two runs are the runs of one side for compare.
    tasklab()
        .arg("compare")
        .arg(d.path().join("results-1.json"))
        .arg("--vs")
        .arg(d.path().join("results-2.json"))
        .arg("--no-noise")
        .assert()
        .code(predicates::ord::lt(2));
}

#[test]
fn calibrate_measures_with_run_s_flags_pin_and_timeout_included() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("runs");
    tasklab()
        .args([
            "calibrate",
            "yardstick.syscall",
            "--runs",
            "2",
            "--rounds",
            "3",
        ])
        .args(["--seed", "7", "--pin", "0", "--timeout", "60", "--quiet"])
        .arg("--dir")
        .arg(&dir)
        .arg("--out")
        .arg(d.path().join("noise.json"))
        .assert()
        .success();
    assert!(d.path().join("noise.json").is_file());
    for (k, seed) in [(1, 7), (2, 8)] {
        let r: Value =
            serde_json::from_slice(&std::fs::read(dir.join(format!("results-{k}.json"))).unwrap())
                .unwrap();
        assert_eq!(r["pin"], serde_json::json!([0]), "run {k}");
        assert_eq!(r["seed"], seed, "run {k}");
    }
}

#[test]
fn calibrate_from_files_writes_the_cache_and_compare_finds_it() {
    let d = tempfile::tempdir().unwrap();
    let cache = d.path().join("cache");
    std::fs::create_dir(&cache).unwrap();
    let runs: Vec<PathBuf> = [1.0, 1.15, 0.9, 1.05]
        .iter()
        .enumerate()
        .map(|(i, k)| moved(d.path(), &format!("r{i}.json"), *k))
        .collect();
    let out = tasklab()
        .arg("calibrate")
        .arg("--from")
        .args(&runs)
        .env("XDG_CACHE_HOME", &cache)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("learned from 4 runs"), "{text}");
    assert!(
        text.contains("A/A false alarms at ±5% over 6 pairs of runs"),
        "{text}"
    );
    let files: Vec<_> = std::fs::read_dir(cache.join("tasklab/noise"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(files[0].starts_with("noise-") && files[0].ends_with(".json"));
    // A 10% slowdown of the series that moves 15% between runs.
    let slower = moved(d.path(), "slower.json", 1.10);
    let compare = |extra: &[&str]| {
        let o = tasklab()
            .arg("compare")
            .arg(&runs[0])
            .arg(&slower)
            .args(["--json"])
            .args(extra)
            .env("XDG_CACHE_HOME", &cache)
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        let row = v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["experiment"] == "yardstick.syscall")
            .unwrap()
            .clone();
        (v["noise"].clone(), row)
    };
    let (noise, row) = compare(&[]);
    assert_eq!(noise["from_cache"], true, "{noise}");
    assert!(noise["rows"].as_u64().unwrap() >= 1, "{noise}");
    let (none, plain) = compare(&["--no-noise"]);
    assert!(none.is_null());
    // The calibration rests the row, and never widens it beyond what its
    // own spread gives (docs/REPEATABILITY.md "Session 22").
    assert_eq!(row["noise_basis"], "calibrated", "{row}");
    assert_eq!(plain["noise_basis"], "spread", "{plain}");
    let width = |r: &Value| r["ci_hi"].as_f64().unwrap() - r["ci_lo"].as_f64().unwrap();
    assert!(width(&row) <= width(&plain), "{row} vs {plain}");
    // The header says so.
    let o = tasklab()
        .arg("compare")
        .arg(&runs[0])
        .arg(&slower)
        .env("XDG_CACHE_HOME", &cache)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("found in the cache for the base files' machine"),
        "{text}"
    );
    // A cached file that is damaged is refused with exit 2, naming it.
    let cached = cache.join("tasklab/noise").join(&files[0]);
    std::fs::write(&cached, "{\"schema\": \"tasklab-noise\"").unwrap();
    let o = tasklab()
        .arg("compare")
        .arg(&runs[0])
        .arg(&slower)
        .env("XDG_CACHE_HOME", &cache)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("the cached noise file") && err.contains("--no-noise"),
        "{err}"
    );
}
