//! End-to-end runs of the binary when something goes wrong: a worker that
//! crashes, is killed, times out or hangs fails only its point, its
//! children are ended with it, and Ctrl-C ends every child and keeps what
//! was measured. No test asserts a timing.

use predicates::prelude::*;
use serde_json::Value;

mod common;
use common::*;

#[test]
fn a_crashing_worker_fails_its_experiment_and_the_run_goes_on() {
    let d = tmp();
    let (code, r) = run_json(&["selftest.crash", "yardstick.syscall"], d.path());
    assert_eq!(code, 1, "the exit status says an experiment failed");
    let crash = experiment(&r, "selftest.crash");
    assert_eq!(crash["status"], "failed");
    let reason = crash["reason"].as_str().unwrap();
    assert!(
        reason.contains("SIGABRT") && reason.contains("aborting on purpose"),
        "{reason}"
    );
    assert_eq!(experiment(&r, "yardstick.syscall")["status"], "ok");
    assert_eq!(r["status"], "complete");
}

/// A selftest of three points whose middle one misbehaves `how`: only
/// that point fails, named with why; the other two are kept, and the
/// experiment is partial (exit 1, the report says so).
fn one_point_fails(args: &[&str], why: &str) {
    let d = tmp();
    let mut all = vec!["-p", "points=3", "-p", "fail_at=1", "--rounds", "3"];
    all.extend_from_slice(args);
    let (code, r) = run_json(&all, d.path());
    assert_eq!(code, 1, "{args:?}: a failed point is a failure of the run");
    let e = &r["experiments"][0];
    assert_eq!(e["status"], "ok", "{args:?}: {}", brief(e));
    let failed = e["failed_points"].as_array().expect("failed_points");
    assert_eq!(failed.len(), 1, "{args:?}: {failed:?}");
    assert_eq!(failed[0]["point"], serde_json::json!({"point": 1}));
    let reason = failed[0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("at point=1") && reason.contains(why),
        "{args:?}: {reason}"
    );
    // The other points' rounds are all kept: 2 points x 3 rounds.
    let rounds: u64 = e["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["rounds"].as_array().unwrap())
        .count() as u64;
    assert_eq!(rounds, 6, "{args:?}: {}", brief(e));
    let report = std::fs::read_to_string(d.path().join("report.md")).unwrap();
    assert!(
        report.contains("partial: 1 point failed") && report.contains(why),
        "{args:?}: the report names the failed point"
    );
}

#[test]
fn a_crash_a_kill_or_a_time_out_fails_only_its_point() {
    one_point_fails(&["selftest.crash"], "SIGABRT");
    one_point_fails(&["selftest.crash", "-p", "how=kill"], "SIGKILL");
    one_point_fails(&["selftest.hang", "--timeout", "2"], "timed out");
}

#[test]
fn a_point_the_selftest_does_not_have_is_refused() {
    tasklab()
        .args(["run", "selftest.crash", "-p", "points=2", "-p", "fail_at=2"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "fail_at=2 is not one of the 2 points",
        ));
}

fn grandchild_pid(reason: &str) -> i32 {
    let tail = reason
        .split("grandchild pid ")
        .nth(1)
        .expect("the worker reports its grandchild");
    tail.split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn a_hanging_worker_is_killed_with_its_children_at_the_time_limit() {
    let d = tmp();
    let (code, r) = run_json(&["selftest.hang", "--timeout", "2"], d.path());
    assert_eq!(code, 1);
    let hang = experiment(&r, "selftest.hang");
    assert_eq!(hang["status"], "failed");
    let reason = hang["reason"].as_str().unwrap();
    assert!(reason.contains("timed out"), "{reason}");
    let pid = grandchild_pid(reason);
    assert!(
        procs::ends_within(pid, std::time::Duration::from_secs(5)),
        "grandchild {pid} was left behind"
    );
}

#[test]
fn ctrl_c_ends_every_child_and_writes_partial_results() {
    let d = tmp();
    let bin = assert_cmd::cargo::cargo_bin("tasklab");
    let mut child = std::process::Command::new(bin)
        .args([
            "run",
            "selftest.hang",
            "yardstick.syscall",
            // a schedule that runs the three syscall rounds before the hang
            // (run::plan's tests keep this seed so)
            "--seed",
            "9",
            "--rounds",
            "3",
            "--timeout",
            "60",
            "--quiet",
            "--out",
        ])
        .arg(d.path())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the hanging worker's grandchild to exist (the syscall rounds
    // are in by then), then interrupt.
    procs::wait_for_grandchild(&mut child, std::time::Duration::from_secs(120));
    std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let r: Value =
        serde_json::from_slice(&std::fs::read(d.path().join("results.json")).unwrap()).unwrap();
    assert_eq!(r["status"], "partial");
    let hang = experiment(&r, "selftest.hang");
    assert!(hang["reason"].as_str().unwrap().contains("interrupted"));
    // what was measured before the interrupt is kept
    assert_eq!(experiment(&r, "yardstick.syscall")["status"], "ok");
    if let Some(pid) = hang["reason"]
        .as_str()
        .unwrap()
        .split("grandchild pid ")
        .nth(1)
    {
        let pid: i32 = pid
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(
            procs::ends_within(pid, std::time::Duration::from_secs(5)),
            "grandchild {pid} was left behind"
        );
    }
}
