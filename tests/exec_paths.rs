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
    let v = json_of_success(
        tasklab()
            .args(["run", "spawn.methods", "-p", "methods=sh_c", "--out"])
            .arg(t.path().join("out"))
            .args(["--json", "-"])
            .env("TMPDIR", &tmp)
            .current_dir(&cwd),
    );
    let e = experiment(&v, "spawn.methods");
    assert_ok(e);
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
        assert_ok(e);
    }
}

/// Issue 29, item 1: root never runs another user's program through TMPDIR.
/// In a temp folder another user may rename entries in (theirs, or one
/// everyone can write without the sticky bit, or one reached through their
/// link), an "attacker" swaps every entry that appears for a folder of its
/// own whose helper programs would leave a mark. Each command that executes
/// helpers (a run of every exec method, advise's and predict's own runs) is
/// refused with exit 2 naming TMPDIR and the reason, nothing is made in the
/// folder, and the mark is never left.
#[test]
fn root_never_runs_a_program_planted_through_tmpdir() {
    use std::os::unix::fs::PermissionsExt;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    if !tasklab::api::sys::is_root() {
        eprintln!("skipped: the attack needs root (a folder given to another user)");
        return;
    }
    const NOBODY: u32 = 65534;
    let t = tempfile::tempdir().unwrap();
    let mark = t.path().join("FOREIGN-PROGRAM-RAN");
    let planted = format!("#!/bin/sh\ntouch {}\n", mark.display());
    let me = std::process::id().to_string();
    let out = t.path().join("out").display().to_string();
    let commands: Vec<Vec<&str>> = vec![
        vec![
            "run",
            "spawn.methods",
            "-p",
            "methods=fork_exec_static,vfork_exec_static,posix_spawn,sh_c,fork_exec_dynamic",
            "--rounds",
            "3",
            "--out",
            &out,
        ],
        vec!["advise", "--rate", "1000", "--heap", "0", "--switches", "0"],
        vec!["predict", "--pid", &me],
    ];
    // name, the folder's setup, the TMPDIR given, the reason expected
    let theirs = t.path().join("theirs");
    let open = t.path().join("open");
    let safe = t.path().join("safe");
    let link = t.path().join("link");
    for d in [&theirs, &open, &safe] {
        std::fs::create_dir(d).unwrap();
    }
    std::os::unix::fs::chown(&theirs, Some(NOBODY), Some(NOBODY)).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
    std::os::unix::fs::symlink(&safe, &link).unwrap();
    std::os::unix::fs::lchown(&link, Some(NOBODY), Some(NOBODY)).unwrap();
    let rows = [
        (&theirs, &theirs, format!("is owned by uid {NOBODY}")),
        (
            &open,
            &open,
            "can be written by its group or by others (mode 777)".into(),
        ),
        (&link, &safe, format!("symbolic link owned by uid {NOBODY}")),
    ];
    for (tmpdir, attacked, reason) in &rows {
        for args in &commands {
            let stop = Arc::new(AtomicBool::new(false));
            let attacker = {
                let stop = Arc::clone(&stop);
                let dir = attacked.to_path_buf();
                let planted = planted.clone();
                std::thread::spawn(move || attack(&dir, &planted, None, &stop))
            };
            let o = tasklab()
                .args(args)
                .env("TMPDIR", tmpdir)
                .timeout(std::time::Duration::from_secs(120))
                .output()
                .unwrap();
            stop.store(true, Ordering::Relaxed);
            let swapped = attacker.join().unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            let what = format!("TMPDIR={} tasklab {args:?}", tmpdir.display());
            assert!(!mark.exists(), "{what}: a foreign program ran as root");
            assert_eq!(o.status.code(), Some(2), "{what}: {err}");
            assert!(err.contains("(TMPDIR) is not safe"), "{what}: {err}");
            assert!(err.contains(reason.as_str()), "{what}: {err}");
            assert_eq!(swapped, 0, "{what}: something was made in TMPDIR");
            assert_eq!(
                std::fs::read_dir(attacked).unwrap().count(),
                0,
                "{what}: something was left in TMPDIR"
            );
        }
    }
}

/// Until `stop`: every entry that appears in `dir` is renamed away and a
/// folder of another user's, holding `planted` under the helpers' names,
/// put in its place (the one swapped away goes beside `dir`); with `ready`,
/// only once the entry holds a file of that name. Returns how many entries
/// it swapped.
fn attack(
    dir: &Path,
    planted: &str,
    ready: Option<&str>,
    stop: &std::sync::atomic::AtomicBool,
) -> usize {
    use std::os::unix::fs::PermissionsExt;
    let mut swapped = 0;
    let mut made = Vec::new();
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if made.contains(&p) || ready.is_some_and(|r| !p.join(r).exists()) {
                continue;
            }
            let away = dir.with_file_name(format!("swapped-{swapped}"));
            if std::fs::rename(&p, &away).is_err() {
                continue;
            }
            swapped += 1;
            if std::fs::create_dir(&p).is_ok() {
                for name in ["hello_static", "hello_dynamic"] {
                    let f = p.join(name);
                    std::fs::write(&f, planted).unwrap();
                    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o755)).unwrap();
                    std::os::unix::fs::chown(&f, Some(65534), Some(65534)).unwrap();
                }
                std::os::unix::fs::chown(&p, Some(65534), Some(65534)).unwrap();
                made.push(p);
            }
        }
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
    swapped
}

/// The second guard, behind the TMPDIR check: the process that executes a
/// helper checks its folder and file first. Here the temp folder passes the
/// check (root's, mode 0700), and the "attacker" (root too, so able to) swaps
/// the run's scratch folder for another user's: the planted programs are
/// never run; the exec methods are skipped with the reason instead.
#[test]
fn a_worker_never_runs_a_helper_from_a_swapped_scratch_folder() {
    use std::os::unix::fs::PermissionsExt;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    if !tasklab::api::sys::is_root() {
        eprintln!("skipped: the planted folder must be another user's (needs root)");
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let mark = t.path().join("FOREIGN-PROGRAM-RAN");
    let planted = format!("#!/bin/sh\ntouch {}\n", mark.display());
    let tmp = t.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o700)).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let attacker = {
        let stop = Arc::clone(&stop);
        let dir = tmp.clone();
        std::thread::spawn(move || attack(&dir, &planted, Some("hello_dynamic"), &stop))
    };
    let o = tasklab()
        .args([
            "run",
            "spawn.methods",
            "-p",
            "methods=fork,fork_exec_static,posix_spawn,sh_c",
            "--rounds",
            "3",
            "--json",
            "-",
            "--out",
        ])
        .arg(t.path().join("out"))
        .env("TMPDIR", &tmp)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    stop.store(true, Ordering::Relaxed);
    let swapped = attacker.join().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!mark.exists(), "a foreign program ran as root: {err}");
    assert!(swapped > 0, "the attacker never swapped the scratch folder");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_default();
    let e = experiment(&v, "spawn.methods");
    let notes = notes(e);
    assert!(
        notes.contains("fork_exec_static skipped: hello_static is not run"),
        "{notes}\n{err}"
    );
}
