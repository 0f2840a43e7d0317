use super::*;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const POLL_NS: &str = "/sys/module/haltpoll/parameters/guest_halt_poll_ns";
const GOVERNOR: &str = "/sys/devices/system/cpu/cpuidle/current_governor";

/// A fake root with two settings, as sysfs shows them (a trailing newline).
fn fake_root() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for (p, v) in [(POLL_NS, "0\n"), (GOVERNOR, "menu\n")] {
        let f = d.path().join(p.trim_start_matches('/'));
        fs::create_dir_all(f.parent().unwrap()).unwrap();
        fs::write(f, v).unwrap();
    }
    d
}

fn knob(path: &str, value: &str) -> Knob {
    Knob {
        path: path.into(),
        value: value.into(),
    }
}

/// A record held by a live run: our parent's (cargo's test runner or a
/// shell), which outlives the test.
fn live_record(old: Vec<Knob>) -> Record {
    let ppid = std::os::unix::process::parent_id() as i32;
    Record {
        pid: ppid,
        start_ticks: crate::sys::procfs::start_ticks(ppid),
        old,
    }
}

fn set() -> Vec<Knob> {
    vec![knob(POLL_NS, "200000"), knob(GOVERNOR, "haltpoll")]
}

fn has_record(root: &Path) -> bool {
    record_path(root).exists()
}

#[test]
fn a_normal_end_restores_every_value_and_removes_the_record() {
    let d = fake_root();
    let root = d.path();
    {
        let held = hold(root, &set()).unwrap();
        assert_eq!(read(root, POLL_NS).unwrap(), "200000");
        assert_eq!(read(root, GOVERNOR).unwrap(), "haltpoll");
        assert!(has_record(root), "the record is written before the change");
        assert_eq!(held.new.len(), 2);
    }
    assert_eq!(read(root, POLL_NS).unwrap(), "0");
    assert_eq!(read(root, GOVERNOR).unwrap(), "menu");
    assert!(!has_record(root));
}

#[test]
fn a_value_already_set_is_left_alone_and_needs_no_record() {
    let d = fake_root();
    let held = hold(d.path(), &[knob(POLL_NS, "0")]).unwrap();
    assert!(held.new.is_empty());
    assert!(!has_record(d.path()));
}

#[test]
fn a_failure_part_way_puts_back_what_was_changed() {
    let d = fake_root();
    let root = d.path();
    let e = hold(
        root,
        &[knob(POLL_NS, "200000"), knob("/sys/no/such/file", "1")],
    )
    .unwrap_err();
    assert!(e.to_string().contains("/sys/no/such/file"), "{e}");
    assert_eq!(read(root, POLL_NS).unwrap(), "0");
    assert!(!has_record(root));
}

#[test]
fn only_paths_under_sys_are_written() {
    let d = fake_root();
    for p in ["/etc/passwd", "/sys/../etc/passwd", "sys/x"] {
        let e = hold(d.path(), &[knob(p, "x")]).unwrap_err();
        assert!(
            e.to_string().contains("only a path under /sys/"),
            "{p}: {e}"
        );
    }
}

#[test]
fn a_live_runs_record_is_not_applied() {
    let d = fake_root();
    let root = d.path();
    write_record(root, &live_record(vec![knob(POLL_NS, "7")])).unwrap();
    let e = hold(root, &set()).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::ResourceBusy, "{e}");
    assert_eq!(read(root, POLL_NS).unwrap(), "0", "nothing written");
    assert!(has_record(root));
}

/// The child side of the signal tests (run only as a re-executed child):
/// holds the settings, says so, and ends as `tasklab run` does on Ctrl-C —
/// the signal sets a flag, the loop sees it and returns, the guard drops.
#[test]
#[ignore = "run by the signal tests as a child"]
fn knob_child() {
    let Ok(root) = std::env::var("TASKLAB_KNOB_CHILD_ROOT") else {
        return;
    };
    let root = PathBuf::from(root);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, std::sync::Arc::clone(&stop)).unwrap();
    }
    let _held = hold(&root, &set()).unwrap();
    fs::write(root.join("ready"), "").unwrap();
    let t0 = Instant::now();
    while !stop.load(std::sync::atomic::Ordering::Relaxed) && t0.elapsed().as_secs() < 30 {
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Starts the child, waits until it holds the settings.
fn child(root: &Path) -> std::process::Child {
    let c = Command::new(std::env::current_exe().unwrap())
        .args([
            "sys::sysfs_knob::tests::knob_child",
            "--exact",
            "--ignored",
            "--test-threads=1",
        ])
        .env("TASKLAB_KNOB_CHILD_ROOT", root)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while !root.join("ready").exists() {
        assert!(t0.elapsed().as_secs() < 30, "the child never got ready");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(read(root, POLL_NS).unwrap(), "200000");
    c
}

#[test]
fn sigint_restores_the_values() {
    for sig in ["-INT", "-TERM"] {
        let d = fake_root();
        let root = d.path();
        let mut c = child(root);
        let st = Command::new("kill")
            .args([sig, &c.id().to_string()])
            .status()
            .unwrap();
        assert!(st.success());
        let status = c.wait().unwrap();
        assert!(status.success(), "{sig}: {status:?}");
        assert_eq!(read(root, POLL_NS).unwrap(), "0", "{sig}");
        assert_eq!(read(root, GOVERNOR).unwrap(), "menu", "{sig}");
        assert!(!has_record(root), "{sig}");
    }
}

#[test]
fn after_sigkill_the_next_start_restores_from_the_record() {
    let d = fake_root();
    let root = d.path();
    let mut c = child(root);
    c.kill().unwrap();
    c.wait().unwrap();
    assert_eq!(
        read(root, POLL_NS).unwrap(),
        "200000",
        "SIGKILL runs no code"
    );
    assert!(has_record(root));
    let back = recover(root).unwrap();
    assert_eq!(back.len(), 2);
    assert_eq!(read(root, POLL_NS).unwrap(), "0");
    assert_eq!(read(root, GOVERNOR).unwrap(), "menu");
    assert!(!has_record(root));
    assert!(recover(root).unwrap().is_empty(), "applied once");
}

#[test]
fn a_setting_of_choices_is_read_and_restored_as_the_choice_in_force() {
    let d = fake_root();
    let root = d.path();
    let thp = "/sys/kernel/mm/transparent_hugepage/enabled";
    let file = root.join(thp.trim_start_matches('/'));
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, "always [madvise] never\n").unwrap();
    assert_eq!(read(root, thp).unwrap(), "madvise");
    // already in force: nothing to change, no record
    let held = hold(root, &[knob(thp, "madvise")]).unwrap();
    assert!(held.new.is_empty());
    drop(held);
    let mut held = hold(root, &[knob(thp, "always")]).unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap().trim(), "always");
    held.restore().unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap().trim(), "madvise");
    assert_eq!(chosen(" [never]\n"), "never");
    assert_eq!(chosen("200000\n"), "200000");
}

/// The scheduler's features file as the kernel shows it (a list of flags);
/// a regular file in tests, so a write leaves just the flag written.
fn features_root(text: &str) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join(SCHED_FEATURES.trim_start_matches('/'));
    fs::create_dir_all(f.parent().unwrap()).unwrap();
    fs::write(f, text).unwrap();
    d
}

fn features(root: &Path) -> String {
    fs::read_to_string(root.join(SCHED_FEATURES.trim_start_matches('/'))).unwrap()
}

#[test]
fn a_scheduler_feature_is_read_as_its_flag_and_restored_as_it_was() {
    assert_eq!(
        flag_state("PLACE_LAG TTWU_QUEUE NO_SIS_UTIL\n", "NO_TTWU_QUEUE").as_deref(),
        Some("TTWU_QUEUE")
    );
    assert_eq!(
        flag_state("NO_TTWU_QUEUE", "TTWU_QUEUE").as_deref(),
        Some("NO_TTWU_QUEUE")
    );
    // a longer name that starts alike is another feature
    assert_eq!(flag_state("TTWU_QUEUE_DEFAULT", "TTWU_QUEUE"), None);
    let d = features_root("PLACE_LAG TTWU_QUEUE NO_SIS_UTIL\n");
    let root = d.path();
    let off = knob(SCHED_FEATURES, "NO_TTWU_QUEUE");
    {
        let _held = hold_in(root, WORKER_RECORD_FILE, std::slice::from_ref(&off)).unwrap();
        assert_eq!(features(root).trim(), "NO_TTWU_QUEUE");
        assert!(record_path_in(root, WORKER_RECORD_FILE).exists());
        assert!(!has_record(root), "the run's own record is another file");
        let r = read_record(root, WORKER_RECORD_FILE).unwrap().unwrap();
        assert_eq!(
            r.old,
            [knob(SCHED_FEATURES, "TTWU_QUEUE")],
            "the old flag recorded"
        );
    }
    assert_eq!(features(root).trim(), "TTWU_QUEUE", "restored on drop");
    assert!(!record_path_in(root, WORKER_RECORD_FILE).exists());
    // a kernel without the feature: refused, nothing written
    let d = features_root("PLACE_LAG NO_SIS_UTIL\n");
    let e = hold_in(d.path(), WORKER_RECORD_FILE, &[off]).unwrap_err();
    assert!(
        e.to_string().contains("no scheduler feature TTWU_QUEUE"),
        "{e}"
    );
    assert_eq!(features(d.path()), "PLACE_LAG NO_SIS_UTIL\n");
}

/// A worker is killed, never signalled (Ctrl-C, a time-out): its record,
/// apart from the run's own (which a live `--idle-poll` run holds), gives
/// the feature back when the run applies it after the job.
#[test]
fn a_killed_workers_feature_is_restored_from_its_own_record() {
    let d = features_root("TTWU_QUEUE\n");
    let root = d.path();
    // The run's live record (our parent's) does not block the worker's.
    write_record(root, &live_record(vec![])).unwrap();
    // A worker that is gone: its pid no longer names a live process.
    let mut gone = Command::new("true").spawn().unwrap();
    let pid = gone.id() as i32;
    gone.wait().unwrap();
    write_record_in(
        root,
        WORKER_RECORD_FILE,
        &Record {
            pid,
            start_ticks: Some(1),
            old: vec![knob(SCHED_FEATURES, "TTWU_QUEUE")],
        },
    )
    .unwrap();
    fs::write(
        root.join(SCHED_FEATURES.trim_start_matches('/')),
        "NO_TTWU_QUEUE\n",
    )
    .unwrap();
    let back = recover_in(root, WORKER_RECORD_FILE).unwrap();
    assert_eq!(back.len(), 1);
    assert_eq!(features(root).trim(), "TTWU_QUEUE");
    assert!(!record_path_in(root, WORKER_RECORD_FILE).exists());
    assert!(has_record(root), "the run's record is left alone");
}
