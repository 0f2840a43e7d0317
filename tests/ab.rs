//! `tasklab ab` end to end, on `selftest.spin`, with a stand-in for /sys
//! (`TASKLAB_SYSFS_ROOT`): a change the test sets itself is found, both
//! sides land in one results file, `compare` reads either side, and every
//! kernel setting written is restored on every way the run can end.

mod common;

use common::tasklab;
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

#[test]
fn a_doubled_spin_is_a_regression_and_both_sides_are_in_one_file() {
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
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let c: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let row = &c["rows"][0];
    assert_eq!(row["verdict"], "regressed", "{row}");
    // the spin doubled; the clock reads that end it did not
    assert!(row["ci_lo"].as_f64().unwrap() > 50.0, "{row}");
    let file = out.path().join("results.json");
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(r["ab"]["a"][0], "param:ns=1000");
    assert_eq!(r["ab"]["blocks"], 8);
    let sides: Vec<&str> = r["experiments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["side"].as_str().unwrap())
        .collect();
    assert_eq!(sides, ["A", "B"]);
    // compare reads either side, and refuses the file without one
    let side = |s: &str| format!("{}:{s}", file.display());
    let o = tasklab()
        .args(["compare", &side("a"), &side("b")])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = tasklab()
        .arg("compare")
        .arg(&file)
        .arg(side("b"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("name one"));
    // the report holds both sides
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(md.contains("Side A: param:ns=1000") && md.contains("Side B: param:ns=2000"));
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
