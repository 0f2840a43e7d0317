//! The process tree of a run, read from /proc, and waits on it that poll
//! with a time limit: a test waits for what it needs to have happened (a
//! worker's child is up, so the run's signal handlers are in), never for a
//! fixed time, which a loaded machine overruns.

use std::collections::HashSet;
use std::process::Child;
use std::time::{Duration, Instant};

/// One process as /proc shows it.
#[derive(Clone, Copy, Debug)]
pub struct Proc {
    pub pid: i32,
    pub ppid: i32,
    /// Start time in clock ticks since boot: with the pid, names one process
    /// even if the pid is reused.
    pub start: u64,
    pub zombie: bool,
}

pub fn read_proc(pid: i32) -> Option<Proc> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which is in parentheses and may hold
    // anything: state is the first of them, ppid the second, start the 20th.
    let rest: Vec<&str> = stat[stat.rfind(')')? + 1..].split_whitespace().collect();
    Some(Proc {
        pid,
        ppid: rest.get(1)?.parse().ok()?,
        start: rest.get(19)?.parse().ok()?,
        zombie: matches!(*rest.first()?, "Z" | "X"),
    })
}

pub fn all_procs() -> Vec<Proc> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(read_proc)
        .collect()
}

/// Every descendant of `root` now, with its depth below it (1: a child).
pub fn descendants(root: i32) -> Vec<(Proc, usize)> {
    let procs = all_procs();
    let mut out = Vec::new();
    let mut todo = vec![(root, 0)];
    while let Some((pid, depth)) = todo.pop() {
        for c in procs.iter().filter(|p| p.ppid == pid) {
            out.push((*c, depth + 1));
            todo.push((c.pid, depth + 1));
        }
    }
    out
}

/// Polls every 10 ms until `done` says so, for at most `limit`; panics with
/// `what` when the limit passes or `child` ends first.
pub fn wait_for(child: &mut Child, limit: Duration, what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the run ended ({status}) before {what}");
        }
        assert!(Instant::now() < deadline, "no {what} within {limit:?}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Waits until a process two levels below `child` lives (a worker's
/// child): by then the run has planned, installed its signal handlers and
/// started measuring.
pub fn wait_for_grandchild(child: &mut Child, limit: Duration) {
    let root = child.id() as i32;
    wait_for(child, limit, "worker's child", || {
        descendants(root)
            .iter()
            .any(|(p, depth)| *depth >= 2 && !p.zombie)
    });
}

/// Waits until `n` workers of `child` (its children running `__worker`)
/// have been seen, or the run ends; true when they were seen. Workers run
/// one job each, one after another, so the n-th seen means n - 1 jobs are
/// done. A worker missed between two polls only delays the answer.
pub fn wait_for_workers(child: &mut Child, n: usize, limit: Duration) -> bool {
    let root = child.id() as i32;
    let deadline = Instant::now() + limit;
    let mut seen: HashSet<(i32, u64)> = HashSet::new();
    while seen.len() < n {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        assert!(
            Instant::now() < deadline,
            "{} of {n} workers within {limit:?}",
            seen.len()
        );
        for (p, depth) in descendants(root) {
            let cmd = std::fs::read(format!("/proc/{}/cmdline", p.pid)).unwrap_or_default();
            if depth == 1 && cmd.windows(8).any(|w| w == b"__worker") {
                seen.insert((p.pid, p.start));
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    true
}

/// Whether `pid` has ended (gone, or a zombie waiting for its reaper)
/// within `limit`: a killed process dies when it next runs, which a loaded
/// machine delays.
pub fn ends_within(pid: i32, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if read_proc(pid).is_none_or(|p| p.zombie) {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
