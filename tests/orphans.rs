//! Nothing left behind: for every experiment that makes processes, SIGKILL
//! the tasklab parent while a worker's children live, and check that no
//! process of its tree is left after 10 s and that the next start of tasklab
//! removes the scratch folder the killed run could not. Also: a run whose
//! stdout's reader has gone ends cleanly with 141, and a stop names its
//! signal.
//!
//! Every wait polls with a time limit; every check is a relation (a process
//! seen before the kill is gone after it), never a duration.

use serde_json::Value;
use std::collections::HashSet;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::procs::{all_procs, descendants, read_proc};
use common::*;

/// How long a run may take to reach the point of the test.
const START_LIMIT: Duration = Duration::from_secs(120);
/// How long the tree may take to die once tasklab is killed: a killed
/// process dies when it next runs, and each generation is killed when its
/// parent has died, which a loaded machine delays (the wait ends as soon as
/// the tree is gone).
const DIE_LIMIT: Duration = Duration::from_secs(10);

/// Still running: the same process (pid and start time), not a zombie. A
/// zombie has ended; only its exit status waits for a reaper.
fn running(pid: i32, start: u64) -> bool {
    read_proc(pid).is_some_and(|p| p.start == start && !p.zombie)
}

/// Live processes whose environment holds `marker`: everything the run
/// started that kept tasklab's environment, wherever it was reparented.
fn marked(marker: &str) -> Vec<i32> {
    all_procs()
        .into_iter()
        .filter(|p| !p.zombie)
        .filter(|p| {
            std::fs::read(format!("/proc/{}/environ", p.pid))
                .is_ok_and(|env| env.split(|&b| b == 0).any(|kv| kv == marker.as_bytes()))
        })
        .map(|p| p.pid)
        .collect()
}

/// The scratch folders in `tmp`.
fn scratch_dirs(tmp: &Path) -> Vec<String> {
    std::fs::read_dir(tmp)
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(String::from))
        .filter(|n| n.starts_with("tasklab-"))
        .collect()
}

/// A run of tasklab with its own temp directory (TMPDIR) and a marker in
/// its environment.
struct Run {
    child: Child,
    tmp: tempfile::TempDir,
    marker: String,
}

fn start(args: &[&str], stdout: Stdio) -> Run {
    start_in(&["run"], args, true, stdout)
}

/// tasklab `command args`, with `--out TMP/out` after them when `out`.
fn start_in(command: &[&str], args: &[&str], out: bool, stdout: Stdio) -> Run {
    let tmp = tempfile::tempdir().unwrap();
    let marker = format!(
        "TASKLAB_ORPHAN_TEST={}-{}-{}",
        std::process::id(),
        args.join("_"),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    );
    let (k, v) = marker.split_once('=').unwrap();
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("tasklab"));
    cmd.args(command).args(args);
    if out {
        cmd.arg("--out").arg(tmp.path().join("out"));
    }
    let child = cmd
        .env("TMPDIR", tmp.path())
        .env(k, v)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    Run { child, tmp, marker }
}

impl Run {
    /// Polls until a process two levels below tasklab exists (a child of a
    /// worker); returns every descendant seen on the way.
    fn wait_for_grandchild(&mut self) -> HashSet<(i32, u64)> {
        let root = self.child.id() as i32;
        let deadline = Instant::now() + START_LIMIT;
        let mut seen = HashSet::new();
        loop {
            let tree = descendants(root);
            seen.extend(tree.iter().map(|(p, _)| (p.pid, p.start)));
            if tree.iter().any(|(p, depth)| *depth >= 2 && !p.zombie) {
                return seen;
            }
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("the run ended ({status}) before a worker's child was seen");
            }
            assert!(
                Instant::now() < deadline,
                "no worker's child within {START_LIMIT:?}"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// Tasklab killed while its worker's children live leaves no process after
/// [`DIE_LIMIT`], and the next start removes the scratch folder it left.
fn sigkill_leaves_nothing(args: &[&str]) {
    let mut args = args.to_vec();
    // Enough rounds that the run is still going when the children appear;
    // it is killed long before it would end.
    args.extend(["--rounds", "100", "--timeout", "600", "--quiet"]);
    let run = start(&args, Stdio::null());
    sigkill_then_check(run, &args);
}

/// SIGKILLs `run` once a worker's child lives; checks that no process of
/// its tree is left after [`DIE_LIMIT`], and that the next start removes every
/// folder the killed run left in its TMPDIR.
fn sigkill_then_check(mut run: Run, args: &[&str]) {
    let mut seen = run.wait_for_grandchild();
    // The tree as it is at the kill, too.
    let root = run.child.id() as i32;
    seen.extend(descendants(root).iter().map(|(p, _)| (p.pid, p.start)));
    run.child.kill().unwrap(); // SIGKILL
    run.child.wait().unwrap();

    let deadline = Instant::now() + DIE_LIMIT;
    let left = loop {
        let mut left: Vec<i32> = seen
            .iter()
            .filter(|(pid, start)| running(*pid, *start))
            .map(|(pid, _)| *pid)
            .collect();
        left.extend(marked(&run.marker));
        left.sort_unstable();
        left.dedup();
        if left.is_empty() || Instant::now() >= deadline {
            break left;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let what: Vec<String> = left
        .iter()
        .map(|pid| {
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            format!("{pid} {}", String::from_utf8_lossy(&cmd).replace('\0', " "))
        })
        .collect();
    assert!(
        left.is_empty(),
        "{args:?}: processes left {DIE_LIMIT:?} after SIGKILL of tasklab: {what:?}"
    );

    // The killed run could not remove its scratch folder; the next one does.
    let tmp = run.tmp.path();
    assert!(
        !scratch_dirs(tmp).is_empty(),
        "the killed run left no scratch folder to clean"
    );
    let next = Command::new(assert_cmd::cargo::cargo_bin("tasklab"))
        .args(["run", "selftest.crash", "--quiet", "--out"])
        .arg(tmp.join("next"))
        .env("TMPDIR", tmp)
        .output()
        .unwrap();
    assert_eq!(next.status.code(), Some(1), "selftest.crash fails its run");
    assert_eq!(
        scratch_dirs(tmp),
        Vec::<String>::new(),
        "the next start did not remove the dead run's scratch folder"
    );
    // Nothing else of the killed run is left in TMPDIR either (advise and
    // predict once left a `.tmpXXXXXX` folder there).
    let left: Vec<String> = std::fs::read_dir(tmp)
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(String::from))
        .filter(|n| n != "out" && n != "next")
        .collect();
    assert_eq!(left, Vec::<String>::new(), "{args:?}: left in TMPDIR");
}

/// Issue 29, item 11: advise's own measurement, killed: its private folder
/// (named and owned as a scratch folder) is removed by the next start.
#[test]
fn sigkill_during_advise_s_own_run_leaves_nothing() {
    let args = ["--rate", "1000", "--heap", "64M", "--switches", "0"];
    let run = start_in(&["advise"], &args, false, Stdio::null());
    sigkill_then_check(run, &args);
}

/// Issue 29, item 11: the same for predict's own measurement.
#[test]
fn sigkill_during_predict_s_own_run_leaves_nothing() {
    let me = std::process::id().to_string();
    let args = ["--pid", me.as_str()];
    let run = start_in(&["predict"], &args, false, Stdio::null());
    sigkill_then_check(run, &args);
}

#[test]
fn sigkill_during_spawn_methods_leaves_nothing() {
    sigkill_leaves_nothing(&[
        "spawn.methods",
        "-p",
        "methods=fork,vfork,clone3_fork,clone3_thread,clone_process,clone_vm,clone_vfork,fork_exec_static,vfork_exec_static,posix_spawn,sh_c",
    ]);
}

#[test]
fn sigkill_during_spawn_cold_leaves_nothing() {
    sigkill_leaves_nothing(&["spawn.cold", "-p", "methods=fork,posix_spawn"]);
}

#[test]
fn sigkill_during_pingpong_processes_leaves_nothing() {
    sigkill_leaves_nothing(&[
        "switch.pingpong",
        "-p",
        "methods=pipe_processes,futex_processes",
        "-p",
        "placements=same_cpu,unpinned",
    ]);
}

#[test]
fn sigkill_during_parallel_average_leaves_nothing() {
    sigkill_leaves_nothing(&[
        "parallel.average",
        "-p",
        "n=100000",
        "-p",
        "workers=2,3",
        "-p",
        "variants=fork",
    ]);
}

#[test]
fn sigkill_during_parallel_program_and_forktime_leaves_nothing() {
    sigkill_leaves_nothing(&["parallel.program", "-p", "n=100000"]);
    sigkill_leaves_nothing(&["parallel.forktime", "-p", "n=100000"]);
}

#[test]
fn sigkill_during_the_fan_out_leaves_nothing() {
    // One report of 3 s to its sink, run serially first, then forked: a
    // forked report that outlived its parent would still be writing at the
    // check.
    sigkill_leaves_nothing(&[
        "parallel.fanout",
        "-p",
        "jobs=1",
        "-p",
        "cpu_ms=1",
        "-p",
        "output=48K",
        "-p",
        "sink_rate=16K",
    ]);
}

#[test]
fn sigkill_during_a_hang_leaves_nothing() {
    sigkill_leaves_nothing(&["selftest.hang"]);
}

fn results(run: &Run) -> Value {
    let path = run.tmp.path().join("out/results.json");
    serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap()
}

#[test]
fn a_closed_stdout_ends_the_run_cleanly_with_141() {
    // The reader of tasklab's stdout is gone before it prints its first line
    // (with --tables the header comes before the first job; the terse
    // default prints only at the end, after measuring everything).
    let mut run = start(
        &["yardstick.syscall", "--rounds", "3", "--tables"],
        Stdio::piped(),
    );
    drop(run.child.stdout.take());
    let deadline = Instant::now() + START_LIMIT;
    let status = loop {
        if let Some(s) = run.child.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < deadline, "the run did not end");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(141), "{status}");
    // Nothing was measured before stdout went: the report folder is left
    // as it was (here: empty), never replaced by an empty run.
    assert!(!run.tmp.path().join("out/results.json").exists());
    assert!(!run.tmp.path().join("out/report.html").exists());
    // and its scratch folder removed
    assert_eq!(scratch_dirs(run.tmp.path()), Vec::<String>::new());
}

#[test]
fn a_stop_names_the_real_signal() {
    // The syscall rounds run first (seed 9: run::plan's tests keep it so),
    // so the run has results to record the stop in.
    let mut run = start(
        &[
            "selftest.hang",
            "yardstick.syscall",
            "--seed",
            "9",
            "--rounds",
            "3",
            "--timeout",
            "600",
            "--quiet",
        ],
        Stdio::null(),
    );
    run.wait_for_grandchild();
    let pid = run.child.id().to_string();
    let kill = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(kill.success());
    let status = run.child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{status}");
    let r = results(&run);
    let reason = experiment(&r, "selftest.hang")["reason"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(reason.contains("interrupted (SIGTERM)"), "{reason}");
    assert!(!reason.contains("Ctrl-C"), "{reason}");
    assert_eq!(scratch_dirs(run.tmp.path()), Vec::<String>::new());
}
