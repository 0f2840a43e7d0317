use super::*;

#[test]
fn fork_run_refuses_a_multithreaded_process() {
    // the test harness runs this test on a thread of its own
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let t = std::thread::spawn(move || rx.recv());
    let err = fork_run(|| 0).unwrap_err();
    assert!(err.to_string().contains("single-threaded"), "{err}");
    drop(tx);
    let _ = t.join();
}

#[test]
fn a_process_is_known_by_its_start_time() {
    let me = std::process::id() as i32;
    let t = crate::sys::procfs::start_ticks(me).expect("this process is visible");
    assert_eq!(crate::sys::procfs::start_ticks(me), Some(t));
    // a child starts no earlier than its parent
    let mut c = std::process::Command::new("sleep")
        .arg("10")
        .spawn()
        .unwrap();
    assert!(crate::sys::procfs::start_ticks(c.id() as i32).unwrap() >= t);
    c.kill().unwrap();
    c.wait().unwrap();
    assert_eq!(crate::sys::procfs::start_ticks(c.id() as i32), None);
    assert!(crate::sys::procfs::pid_namespace()
        .unwrap()
        .starts_with("pid:"));
}

#[test]
fn a_spawned_child_asks_to_die_with_its_parent() {
    // /proc/PID/status does not show the death signal (tests/orphans.rs
    // checks that it is sent); here: the pre-exec step lets the child
    // start while its parent lives.
    let out = kill_with_parent(
        std::process::Command::new("sh")
            .args(["-c", "echo $PPID"])
            .stdout(std::process::Stdio::piped()),
    )
    .output()
    .unwrap();
    assert!(out.status.success());
    let ppid: u32 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    assert_eq!(ppid, std::process::id());
}

#[test]
fn thread_count_sees_this_thread() {
    assert!(thread_count().unwrap() >= 1);
}
