//! `tasklab ab` end to end, on `selftest.spin`, with a stand-in for /sys
//! (`TASKLAB_SYSFS_ROOT`): both sides land in one results file, `compare`
//! reads either side, and every kernel setting written is restored on every
//! way the run can end. A measured run's verdict is checked only for what
//! holds at any precision (its change within its interval, its exit status
//! agreeing with its rows); the verdict on a known change is checked on a
//! constructed A/B file here, and on constructed paired rounds in
//! `src/ab/verdict_tests.rs`.

mod common;

use common::fixture::{self, steady};
use common::{brief, row_brief, tasklab};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const KNOB: &str = "sys/kernel/tasklab_test_knob";

/// A folder standing in for `/`, with one setting file holding "1".
fn fake_root() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let knob = root.path().join(KNOB);
    std::fs::create_dir_all(knob.parent().unwrap()).unwrap();
    std::fs::write(&knob, "1\n").unwrap();
    root
}

fn knob(root: &Path) -> String {
    std::fs::read_to_string(root.join(KNOB))
        .unwrap()
        .trim()
        .to_string()
}

fn record(root: &Path) -> PathBuf {
    root.join("run/tasklab/sysfs-restore.json")
}

/// `tasklab ab` of `names` with side A writing 2 and side B 3 to the knob.
fn ab_cmd(root: &Path, out: &Path, names: &[&str], rounds: &str) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tasklab"));
    c.arg("ab")
        .args(names)
        .args(["--a", "sysfs:/sys/kernel/tasklab_test_knob=2"])
        .args(["--b", "sysfs:/sys/kernel/tasklab_test_knob=3"])
        .args(["--rounds", rounds, "--out"])
        .arg(out)
        .env("TASKLAB_SYSFS_ROOT", root)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// Waits until the knob holds a side's value (the run is inside a block).
fn wait_changed(root: &Path, child: &mut Child) {
    let start = Instant::now();
    while knob(root) == "1" {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it changed the setting"
        );
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the setting never changed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether a row's change lies within its interval (a row with no ratio has
/// no figures to order).
fn change_within_interval(row: &serde_json::Value) -> bool {
    match (
        row["ci_lo"].as_f64(),
        row["change"].as_f64(),
        row["ci_hi"].as_f64(),
    ) {
        (Some(lo), Some(x), Some(hi)) => lo <= x && x <= hi,
        _ => row["verdict"] == "inconclusive",
    }
}

/// A row that a doubled spin can give on a machine of any precision:
/// regressed, or too imprecise (or flagged) to say, with the reason.
fn regressed_or_said_why(row: &serde_json::Value) -> bool {
    row["verdict"] == "regressed" || (row["verdict"] == "inconclusive" && row["why"].is_string())
}

#[test]
fn a_doubled_spin_runs_both_sides_into_one_file_that_compare_reads() {
    // A real run, for the mechanics; what its verdict says depends on this
    // machine's precision, so only what holds at any precision is checked
    // (the verdict on known data is the next test's, and src/ab's).
    let out = tempfile::tempdir().unwrap();
    let o = tasklab()
        .args([
            "ab",
            "selftest.spin",
            "--a",
            "param:ns=1000",
            "--b",
            "param:ns=2000",
        ])
        .args(["--rounds", "4", "--json", "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{err}");
    let c: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = c["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "one series, spin_ns");
    for row in rows {
        assert!(change_within_interval(row), "{}", row_brief(row));
        assert!(regressed_or_said_why(row), "{}", row_brief(row));
    }
    // exit 1 exactly when a row regressed (nothing failed: both sides ok)
    let regressed = rows.iter().any(|r| r["verdict"] == "regressed");
    assert_eq!(o.status.code() == Some(1), regressed, "{err}");
    let file = out.path().join("results.json");
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    // the SPECs parsed, the verdicts' threshold kept (the report draws them)
    let spec = |name: &str, value: &str| serde_json::json!({"kind": "param", "name": name, "value": value});
    assert_eq!(r["ab"]["a"][0], spec("ns", "1000"));
    assert_eq!(r["ab"]["b"][0], spec("ns", "2000"));
    assert_eq!(r["ab"]["blocks"], 8);
    assert_eq!(r["ab"]["judged"]["threshold_pct"], 5.0);
    assert!(r["ab"].get("verdicts").is_none());
    let exps = r["experiments"].as_array().unwrap();
    for e in exps {
        common::assert_ok(e);
        // four rounds a side, one per block of its side
        let m = &e["metrics"][0];
        assert_eq!(m["rounds"].as_array().unwrap().len(), 4, "{}", brief(e));
    }
    let sides: Vec<&str> = exps.iter().map(|e| e["side"].as_str().unwrap()).collect();
    assert_eq!(sides, ["A", "B"]);
    // compare reads either side: exit 1 exactly when its row regressed
    let side = |s: &str| format!("{}:{s}", file.display());
    let o = tasklab()
        .args(["compare", "--no-noise", "--json", &side("a"), &side("b")])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{err}");
    let c: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = c["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "one series, spin_ns");
    for row in rows {
        assert!(change_within_interval(row), "{}", row_brief(row));
        assert!(regressed_or_said_why(row), "{}", row_brief(row));
    }
    let regressed = rows.iter().any(|r| r["verdict"] == "regressed");
    assert_eq!(o.status.code() == Some(1), regressed, "{err}");
    // and refuses the file without a side
    let o = tasklab()
        .args(["compare", "--no-noise"])
        .arg(&file)
        .arg(side("b"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("name one"));
    // the report holds both sides
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(md.contains("Side A: param:ns=1000") && md.contains("Side B: param:ns=2000"));
    // with the verdicts, drawn as ab printed them
    assert!(md.contains("A/B inside one run:"), "{md}");
}

/// An A/B results file made from the fixture: yardstick.syscall steady at
/// 150 ns ±1% on side A, and on side B the same samples times `k`.
fn constructed_ab(dir: &Path, k: f64) -> PathBuf {
    let syscall = steady(
        "yardstick.syscall",
        "call_ns",
        &[("call", "getppid")],
        150.0,
    );
    let mut r = fixture::steady_results(&[syscall]);
    let mut b = fixture::steady_results(&[syscall]);
    fixture::scale(&mut b, &syscall, k);
    let mut a_exp = r["experiments"][0].clone();
    let mut b_exp = b["experiments"][0].clone();
    a_exp["side"] = "A".into();
    b_exp["side"] = "B".into();
    r["experiments"] = serde_json::json!([a_exp, b_exp]);
    r["ab"] = serde_json::json!({
        "a": ["param:calls=1"],
        "b": ["param:calls=2"],
        "blocks": 16,
        "verdicts": "",
    });
    fixture::write(dir, &format!("ab-{k}.json"), &r)
}

#[test]
fn compare_judges_the_sides_of_a_constructed_ab_file() {
    let d = tempfile::tempdir().unwrap();
    let side = |f: &Path, s: &str| format!("{}:{s}", f.display());
    let compare = |f: &Path, x: &str, y: &str| {
        tasklab()
            .args(["compare", "--no-noise", "--json", &side(f, x), &side(f, y)])
            .output()
            .unwrap()
    };
    let verdict = |o: &std::process::Output| -> serde_json::Value {
        let c: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
            panic!(
                "no JSON from compare ({e}): {}",
                String::from_utf8_lossy(&o.stderr)
            )
        });
        assert_eq!(c["rows"].as_array().unwrap().len(), 1, "one series");
        c["rows"][0].clone()
    };
    // B twice A on a steady series: regressed, exit 1; and the other way
    // round improved, exit 0
    let doubled = constructed_ab(d.path(), 2.0);
    let o = compare(&doubled, "a", "b");
    let row = verdict(&o);
    assert_eq!(row["verdict"], "regressed", "{}", row_brief(&row));
    assert_eq!(o.status.code(), Some(1), "{}", row_brief(&row));
    let o = compare(&doubled, "b", "a");
    let row = verdict(&o);
    assert_eq!(row["verdict"], "improved", "{}", row_brief(&row));
    assert_eq!(o.status.code(), Some(0), "{}", row_brief(&row));
    // a side against itself: nothing changed
    let o = compare(&doubled, "a", "a");
    let row = verdict(&o);
    assert_ne!(row["verdict"], "regressed", "{}", row_brief(&row));
    assert_ne!(row["verdict"], "improved", "{}", row_brief(&row));
    assert_eq!(o.status.code(), Some(0), "{}", row_brief(&row));
}

#[test]
fn the_setting_is_restored_after_a_normal_end_and_a_crashed_worker() {
    let root = fake_root();
    let out = tempfile::tempdir().unwrap();
    let o = ab_cmd(root.path(), out.path(), &["selftest.spin"], "3")
        .output()
        .unwrap();
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(knob(root.path()), "1");
    assert!(!record(root.path()).exists());
    let o = ab_cmd(
        root.path(),
        out.path(),
        &["selftest.crash", "selftest.spin"],
        "3",
    )
    .output()
    .unwrap();
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(knob(root.path()), "1");
    assert!(!record(root.path()).exists());
}

#[test]
fn the_setting_is_restored_after_sigint_sigterm_and_sighup() {
    for sig in ["-INT", "-TERM", "-HUP"] {
        let root = fake_root();
        let out = tempfile::tempdir().unwrap();
        let mut child = ab_cmd(root.path(), out.path(), &["selftest.spin"], "100")
            .spawn()
            .unwrap();
        wait_changed(root.path(), &mut child);
        let killed = Command::new("kill")
            .arg(sig)
            .arg(child.id().to_string())
            .status()
            .unwrap();
        assert!(killed.success());
        let o = child.wait_with_output().unwrap();
        assert_eq!(
            o.status.code(),
            Some(130),
            "{sig}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(knob(root.path()), "1", "{sig}");
        assert!(!record(root.path()).exists(), "{sig}");
    }
}

#[test]
fn after_sigkill_the_next_command_restores_the_setting_and_says_so() {
    let root = fake_root();
    let out = tempfile::tempdir().unwrap();
    let mut child = ab_cmd(root.path(), out.path(), &["selftest.spin"], "100")
        .spawn()
        .unwrap();
    wait_changed(root.path(), &mut child);
    child.kill().unwrap();
    child.wait().unwrap();
    assert_ne!(
        knob(root.path()),
        "1",
        "nothing restores it before the next command"
    );
    assert!(record(root.path()).exists());
    let o = tasklab()
        .arg("list")
        .env("TASKLAB_SYSFS_ROOT", root.path())
        .output()
        .unwrap();
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("restored /sys/kernel/tasklab_test_knob to 1"),
        "{err}"
    );
    assert_eq!(knob(root.path()), "1");
    assert!(!record(root.path()).exists());
}
