//! Runs that keep each other: a run that names experiments writes its own
//! folder (tasklab-report/partial/NAMES) and leaves the full report as it
//! was; named baselines are saved, listed and compared against. The full
//! report is a fixture (`tasklab report FILE --out tasklab-report`, the
//! files a full run writes); the runs are one or two tiny real ones.

mod common;

use common::tasklab;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Every regular file directly in `dir`, with its bytes, by name.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

/// A full run's report folder in `cwd`/tasklab-report, from the fixture.
fn full_report(cwd: &Path) {
    tasklab()
        .arg("report")
        .arg(data("report-results.json"))
        .args(["--out", "tasklab-report"])
        .current_dir(cwd)
        .assert()
        .success();
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn following_the_readme_in_order_keeps_the_full_report() {
    let d = tempfile::tempdir().unwrap();
    full_report(d.path());
    let root = d.path().join("tasklab-report");
    let before = files(&root);
    assert!(before.iter().any(|(n, _)| n == "report.html"), "{before:?}");

    // The README's second command (its methods narrowed, to keep this short).
    for _ in 0..2 {
        let o = tasklab()
            .args([
                "run",
                "spawn.methods",
                "-p",
                "methods=fork",
                "--rounds",
                "3",
            ])
            .current_dir(d.path())
            .output()
            .unwrap();
        let (out, err) = (text(&o.stdout), text(&o.stderr));
        assert!(o.status.success(), "{err}");
        // The last lines name the folder written, and the one kept.
        assert!(
            out.contains("report:  tasklab-report/partial/spawn.methods/report.html"),
            "{out}"
        );
        assert!(
            err.contains("tasklab-report/ keeps the full run's report"),
            "{err}"
        );
    }
    assert_eq!(files(&root), before, "the full report changed");
    let sub = root.join("partial/spawn.methods");
    let r: Value =
        serde_json::from_slice(&std::fs::read(sub.join("results.json")).unwrap()).unwrap();
    let names: Vec<&str> = r["experiments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["spawn.methods"]);
    // The partial folder keeps its own run before.
    assert!(sub.join("previous.json").is_file());
    assert!(!root.join("previous.json").exists());

    // The next full run (its folder's preparation: the same as `report`'s)
    // leaves the partial folder whole.
    let sub_before = files(&sub);
    full_report(d.path());
    assert_eq!(files(&sub), sub_before, "a full run touched partial/");
    assert!(root.join("previous.json").is_file());
}

#[test]
fn a_baseline_is_saved_listed_replaced_and_compared_against() {
    let d = tempfile::tempdir().unwrap();
    let run = |extra: &[&str]| {
        let o = tasklab()
            .args(["run", "yardstick.syscall", "--rounds", "3"])
            .args(extra)
            .current_dir(d.path())
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o.stderr));
        text(&o.stderr)
    };
    let err = run(&["--save-baseline", "before-fix"]);
    let saved = d.path().join("tasklab-report/baselines/before-fix.json");
    assert!(
        err.contains("baseline before-fix saved: tasklab-report/baselines/before-fix.json"),
        "{err}"
    );
    let first = std::fs::read(&saved).unwrap();
    let results = d
        .path()
        .join("tasklab-report/partial/yardstick.syscall/results.json");
    assert_eq!(first, std::fs::read(&results).unwrap());

    // Listed: name, when, profile, experiments.
    let o = tasklab()
        .args(["list", "--baselines"])
        .current_dir(d.path())
        .output()
        .unwrap();
    let out = text(&o.stdout);
    assert!(o.status.success());
    assert!(
        out.contains("1 baseline in tasklab-report/baselines/"),
        "{out}"
    );
    assert!(
        out.contains("before-fix") && out.contains("UTC, quick profile"),
        "{out}"
    );
    assert!(out.contains("yardstick.syscall"), "{out}");
    let o = tasklab()
        .args(["list", "--baselines", "--json"])
        .current_dir(d.path())
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v[0]["name"], "before-fix");
    assert_eq!(v[0]["profile"], "quick");
    assert_eq!(v[0]["experiments"][0], "yardstick.syscall");

    // The latest run against it: the same run, so nothing regressed (at any
    // precision; no cached noise file takes part).
    let o = tasklab()
        .args([
            "compare",
            "--no-noise",
            "--baseline",
            "before-fix",
            "--json",
        ])
        .current_dir(d.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let c: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(!c["rows"].as_array().unwrap().is_empty(), "{c}");

    // Saved again under the name: replaced whole, no temporary file left.
    run(&["--save-baseline", "before-fix", "-q"]);
    let second = std::fs::read(&saved).unwrap();
    assert_ne!(first, second);
    let store = d.path().join("tasklab-report/baselines");
    let left: Vec<String> = std::fs::read_dir(&store)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["before-fix.json"]);

    // A missing name: exit 2, naming the baselines there are.
    let o = tasklab()
        .args(["compare", "--baseline", "nosuch"])
        .current_dir(d.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("no baseline 'nosuch'") && err.contains("the baselines there: before-fix"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn a_store_named_by_the_environment_is_used_as_it_is() {
    let d = tempfile::tempdir().unwrap();
    let store = d.path().join("my baselines");
    // An empty store says how to fill it.
    let o = tasklab()
        .args(["list", "--baselines"])
        .env("TASKLAB_BASELINES", &store)
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(text(&o.stdout).contains("--save-baseline NAME"));
    // A fixture saved there by hand is one, with a file given to compare.
    std::fs::create_dir(&store).unwrap();
    std::fs::copy(data("report-results.json"), store.join("v1.json")).unwrap();
    let o = tasklab()
        .args(["list", "--baselines"])
        .env("TASKLAB_BASELINES", &store)
        .current_dir(d.path())
        .output()
        .unwrap();
    let out = text(&o.stdout);
    assert!(
        out.contains("v1") && out.contains("the default suite"),
        "{out}"
    );
    let o = tasklab()
        .args(["compare", "--no-noise", "--baseline", "v1"])
        .arg(data("report-results.json"))
        .env("TASKLAB_BASELINES", &store)
        .current_dir(d.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    // No FILE and no run in the folder: exit 2, saying what to give.
    let o = tasklab()
        .args(["compare", "--baseline", "v1"])
        .env("TASKLAB_BASELINES", &store)
        .current_dir(d.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("no run to compare"));
    assert!(!d.path().join("tasklab-report").exists());
}
