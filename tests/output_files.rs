//! The files tasklab writes: never through a planted link, never into a
//! default folder another user controls, one run per folder at a time, and
//! on a full disk a message naming the file, the previous file kept and no
//! temporary file left. Tests that need root (to chown, to mount) say so
//! and pass without it.

mod common;

use common::tasklab;
use predicates::prelude::*;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use tasklab::api::sys::safefile::{OutDir, Trust};

/// The quickest experiment: a run of it takes well under a second.
const QUICK: &str = "yardstick.syscall";
/// The user nobody.
const NOBODY: u32 = 65534;

fn root() -> bool {
    tasklab::api::sys::is_root()
}

/// A 0600 file with a secret in it, and a folder of links to it under every
/// name tasklab writes (and the temporary names it once used).
struct Planted {
    dir: tempfile::TempDir,
    victim: PathBuf,
}

const SECRET: &[u8] = b"root's secret\n";

fn planted(folder: &str) -> Planted {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, SECRET).unwrap();
    std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o600)).unwrap();
    let out = dir.path().join(folder);
    std::fs::create_dir_all(&out).unwrap();
    for name in [
        "results.json",
        "report.html",
        "report.md",
        ".tasklab-write-test",
        ".results.json.tmp1",
        "chart-heap.svg",
    ] {
        symlink(&victim, out.join(name)).unwrap();
    }
    Planted { dir, victim }
}

impl Planted {
    fn out(&self, folder: &str) -> PathBuf {
        self.dir.path().join(folder)
    }

    fn assert_untouched(&self) {
        assert_eq!(std::fs::read(&self.victim).unwrap(), SECRET);
        let mode = std::fs::metadata(&self.victim)
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

fn is_file(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_file())
}

/// Names in `dir` that look like a temporary file.
fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp") || n.contains("write-test"))
        .collect()
}

/// Where a run of QUICK alone writes by default.
const QUICK_FOLDER: &str = "tasklab-report/partial/yardstick.syscall";

#[test]
fn a_planted_symlink_output_folder_leaves_the_victim_untouched() {
    let p = planted(QUICK_FOLDER);
    symlink(&p.victim, p.dir.path().join("planted.json")).unwrap();
    tasklab()
        .args(["run", QUICK, "-q", "--json", "planted.json"])
        .current_dir(p.dir.path())
        .assert()
        .success();
    p.assert_untouched();
    let out = p.out(QUICK_FOLDER);
    for name in ["results.json", "report.html", "report.md"] {
        assert!(is_file(&out.join(name)), "{name} is a file of its own now");
    }
    assert!(is_file(&p.dir.path().join("planted.json")));
    // The links tasklab does not write are left as they were, not followed.
    assert!(std::fs::symlink_metadata(out.join(".tasklab-write-test"))
        .unwrap()
        .file_type()
        .is_symlink());
    // The report of a saved run, into the same folder.
    tasklab()
        .args(["report", "results.json"])
        .current_dir(&out)
        .assert()
        .success();
    p.assert_untouched();
}

#[test]
fn a_foreign_folder_named_with_out_is_used_but_its_links_are_not_followed() {
    if !root() {
        eprintln!("skipped: needs root to give the folder to another user");
        return;
    }
    let p = planted("theirs");
    let out = p.out("theirs");
    std::os::unix::fs::chown(&out, Some(NOBODY), Some(NOBODY)).unwrap();
    tasklab()
        .args(["run", QUICK, "-q", "--out"])
        .arg(&out)
        .assert()
        .success();
    p.assert_untouched();
    assert!(is_file(&out.join("report.html")));
    // Only the planted links look temporary: tasklab left nothing of its own.
    let mut left = temporaries(&out);
    left.sort();
    assert_eq!(left, [".results.json.tmp1", ".tasklab-write-test"]);
}

#[test]
fn a_default_output_folder_open_to_others_or_a_link_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("tasklab-report");
    std::fs::create_dir(&out).unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o777)).unwrap();
    tasklab()
        .args(["run", QUICK])
        .current_dir(d.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "the output folder tasklab-report can be written by every user",
        ))
        .stderr(predicate::str::contains("--out tasklab-report"));
    assert!(!out.join("results.json").exists());
    // Named with --out, it is the user's choice.
    tasklab()
        .args(["run", QUICK, "-q", "--out", "tasklab-report"])
        .current_dir(d.path())
        .assert()
        .success();

    let e = tempfile::tempdir().unwrap();
    std::fs::create_dir(e.path().join("elsewhere")).unwrap();
    symlink(e.path().join("elsewhere"), e.path().join("tasklab-report")).unwrap();
    tasklab()
        .args(["run", QUICK])
        .current_dir(e.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is a symbolic link"));
    assert_eq!(
        std::fs::read_dir(e.path().join("elsewhere"))
            .unwrap()
            .count(),
        0
    );
}

#[test]
fn a_default_output_folder_of_another_user_is_refused() {
    if !root() {
        eprintln!("skipped: needs root to give the folder to another user");
        return;
    }
    let p = planted("tasklab-report");
    let out = p.out("tasklab-report");
    std::os::unix::fs::chown(&out, Some(NOBODY), Some(NOBODY)).unwrap();
    tasklab()
        .args(["run", QUICK])
        .current_dir(p.dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "the output folder tasklab-report belongs to user {NOBODY}"
        )));
    p.assert_untouched();
    // The report beside a saved run in their folder: refused the same way.
    std::fs::remove_file(out.join("results.json")).unwrap();
    std::fs::copy(data("advise-results.json"), out.join("results.json")).unwrap();
    tasklab()
        .args(["report", "tasklab-report/results.json"])
        .current_dir(p.dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "the output folder tasklab-report belongs to user {NOBODY}"
        )));
    p.assert_untouched();
    assert!(!is_file(&out.join("report.html")));
}

#[test]
fn a_second_run_into_a_folder_in_use_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let held = OutDir::open(d.path(), Trust::Explicit).unwrap();
    held.lock().unwrap();
    tasklab()
        .args(["run", QUICK, "--out"])
        .arg(d.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "another tasklab is writing into {}",
            d.path().display()
        )));
    assert!(!d.path().join("results.json").exists());
    drop(held);
    tasklab()
        .args(["run", QUICK, "-q", "--out"])
        .arg(d.path())
        .assert()
        .success();
}

/// A small tmpfs, unmounted when dropped.
struct Tmpfs {
    _dir: tempfile::TempDir,
    at: PathBuf,
}

impl Tmpfs {
    /// None (and a word on stderr) where mounting is not allowed.
    fn mount(size: &str) -> Option<Tmpfs> {
        if !root() {
            eprintln!("skipped: mounting a tmpfs needs root");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let at = dir.path().join("small");
        std::fs::create_dir(&at).unwrap();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tasklab-test"])
            .arg(&at)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("skipped: mount -t tmpfs is not allowed here");
            return None;
        }
        Some(Tmpfs { _dir: dir, at })
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.at)
            .status();
    }
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

#[test]
fn a_full_disk_names_the_file_keeps_the_previous_one_and_leaves_no_temporary_file() {
    let Some(fs) = Tmpfs::mount("64k") else {
        return;
    };
    // A previous results.json that fits; the new one (400 KiB) does not.
    let previous = std::fs::read(data("advise-results.json")).unwrap();
    std::fs::write(fs.at.join("results.json"), &previous).unwrap();
    let results = fs.at.join("results.json");
    tasklab()
        .arg("report")
        .arg(data("report-results.json"))
        .arg("--out")
        .arg(&fs.at)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(format!(
            "cannot write {}: No space left on device",
            results.display()
        )));
    // The earlier results were kept, as previous.json.
    let kept = fs.at.join("previous.json");
    assert_eq!(std::fs::read(&kept).unwrap(), previous);
    assert_eq!(temporaries(&fs.at), Vec::<String>::new());

    // A run whose results do not fit: measured, then the file named.
    std::fs::remove_file(&kept).unwrap();
    let full = fs.at.join("filler");
    std::fs::write(&full, vec![1u8; 60 << 10]).unwrap_or(());
    tasklab()
        .args(["run", QUICK, "-q", "--out"])
        .arg(&fs.at)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(format!(
            "cannot write {}",
            results.display()
        )));
    assert!(!results.exists());
    assert_eq!(temporaries(&fs.at), Vec::<String>::new());
}

/// Every file of a folder with its content, sorted by name.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            let bytes = std::fs::read(e.path()).unwrap_or_default();
            (name, bytes)
        })
        .collect();
    v.sort();
    v
}

/// Starts a run of selftest.hang (its one job ends only at the time limit,
/// so the run has no result for a minute) into `out`, waits until its
/// worker's grandchild is up, and sends `signal`.
fn hang_then(out: &Path, signal: &str) -> std::process::Output {
    let bin = assert_cmd::cargo::cargo_bin("tasklab");
    let mut child = std::process::Command::new(bin)
        .args([
            "run",
            "selftest.hang",
            "--timeout",
            "60",
            "--quiet",
            "--out",
        ])
        .arg(out)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    common::procs::wait_for_grandchild(&mut child, std::time::Duration::from_secs(50));
    std::process::Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn a_run_that_ends_before_its_first_result_leaves_the_report_folder_as_it_was() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("report");
    tasklab()
        .args(["run", QUICK, "--rounds", "3", "-q", "--out"])
        .arg(&out)
        .assert()
        .success();
    let before = snapshot(&out);
    let names: Vec<&str> = before.iter().map(|(n, _)| n.as_str()).collect();
    assert!(
        names.contains(&"results.json") && names.contains(&"report.html"),
        "{names:?}"
    );

    // A missing TMPDIR: refused before anything is measured.
    let gone = d.path().join("no-such-tmp");
    let o = tasklab()
        .args(["run", QUICK, "-q", "--out"])
        .arg(&out)
        .env("TMPDIR", &gone)
        .output()
        .unwrap();
    assert_ne!(o.status.code(), Some(0));
    assert_eq!(
        snapshot(&out),
        before,
        "a missing TMPDIR touched the folder"
    );

    // Ctrl-C before the first result: exit 130, the folder as it was.
    let o = hang_then(&out, "-INT");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("before anything was measured"), "{err}");
    assert_eq!(snapshot(&out), before, "Ctrl-C touched the folder");

    // SIGKILL before the first result: the folder as it was (the lock and
    // the temporaries a killed run leaves are swept by the next run).
    let o = hang_then(&out, "-KILL");
    assert_eq!(o.status.code(), None);
    let after: Vec<(String, Vec<u8>)> = snapshot(&out)
        .into_iter()
        .filter(|(n, _)| !n.starts_with(".tasklab-lock") && !n.ends_with(".tmp"))
        .collect();
    assert_eq!(after, before, "SIGKILL touched the folder");
}
