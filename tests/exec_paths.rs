//! Paths tasklab executes: a hostile temp folder name is never shell text,
//! and workers still start when tasklab's own file is deleted mid-run (as a
//! rebuild does).

use serde_json::Value;
use std::path::Path;

mod common;
use common::*;

fn files_named(dir: &Path, name: &str, found: &mut Vec<String>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.file_name() == name {
            found.push(e.path().display().to_string());
        }
        if e.file_type().unwrap().is_dir() {
            files_named(&e.path(), name, found);
        }
    }
}

#[test]
fn sh_c_runs_cleanly_from_a_temp_folder_with_a_space_and_a_semicolon() {
    let t = tempfile::tempdir().unwrap();
    // Parsed by a shell, this name would run `touch INJECTED` and comment
    // out the rest.
    let tmp = t.path().join("x y;touch INJECTED #");
    let cwd = t.path().join("cwd");
    for d in [&tmp, &cwd] {
        std::fs::create_dir(d).unwrap();
    }
    let out = tasklab()
        .args(["run", "spawn.methods", "-p", "methods=sh_c", "--out"])
        .arg(t.path().join("out"))
        .args(["--json", "-"])
        .env("TMPDIR", &tmp)
        .current_dir(&cwd)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    let e = experiment(&v, "spawn.methods");
    assert_eq!(e["status"], "ok", "{e}");
    assert!(
        median(e, "lifecycle_ns", &[("method", "sh_c")]) > 0.0,
        "sh_c measured"
    );
    let mut injected = Vec::new();
    files_named(t.path(), "INJECTED", &mut injected);
    assert!(
        injected.is_empty(),
        "the shell ran injected text: {injected:?}"
    );
}

#[test]
fn workers_start_after_tasklab_s_own_file_is_deleted() {
    let t = tempfile::tempdir().unwrap();
    let copy = t.path().join("tasklab");
    std::fs::copy(assert_cmd::cargo::cargo_bin("tasklab"), &copy).unwrap();
    // A freshly written executable can be briefly busy (another test's fork
    // holding the descriptor until its exec): retry.
    let mut tries = 0;
    let child = loop {
        match std::process::Command::new(&copy)
            .args([
                "run",
                "yardstick.syscall",
                "yardstick.timer",
                "--rounds",
                "3",
            ])
            .args(["--json", "-", "--out"])
            .arg(t.path().join("out"))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
        {
            Err(e) if e.raw_os_error() == Some(26) && tries < 50 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            r => break r.unwrap(),
        }
    };
    // spawn() returns once the exec has succeeded: the file can go now,
    // before the run has started a worker.
    std::fs::remove_file(&copy).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}", out.status);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    for name in ["yardstick.syscall", "yardstick.timer"] {
        let e = experiment(&v, name);
        assert_eq!(e["status"], "ok", "{e}");
    }
}
