//! The limits a run lives under, read before anything is measured:
//! RLIMIT_NOFILE, RLIMIT_NPROC (with this user's tasks now), RLIMIT_AS and
//! the cgroup's pids.max (with its pids.current). A run that cannot work
//! under them is refused with the limit named (exit 2), once, up front,
//! rather than every experiment failing. The experiments fit their own
//! points to the same limits (`memory.threads`, `spawn.heap`: a value the
//! user set that cannot fit is refused, a default lowered with a note).

use std::path::Path;

/// Open descriptors a run needs at least: the output folder and its lock,
/// the scratch folder, each worker's pipes, and an experiment's own (a
/// pipe pair, a partner's ends). Measured: the quick experiments need 13
/// to 14; spawn.heap's image point checks its extra 1,000 itself.
pub const MIN_NOFILE: u64 = 32;

/// Tasks a run needs free at least: tasklab, its progress ticker, a worker,
/// the worker's threads and children (a partner, a child per launch, the
/// parallel experiments' workers are fitted to what is left).
pub const MIN_TASKS: u64 = 16;

/// What the limits are now: each `None` when unlimited or unknown.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Room {
    /// RLIMIT_NOFILE's soft limit.
    pub nofile: Option<u64>,
    /// RLIMIT_NPROC's soft limit, and this user's tasks now (it counts
    /// them all); None for root, whom it does not bind.
    pub nproc: Option<(u64, u64)>,
    /// RLIMIT_AS's soft limit, bytes.
    pub address_space: Option<u64>,
    /// pids.max of this process's cgroup, and its pids.current.
    pub pids: Option<(u64, u64)>,
}

impl Room {
    /// The limits of this process, now.
    pub fn now() -> Room {
        let soft = |r| crate::sys::rlimit(r).ok().and_then(|l| l.0);
        let nproc = if crate::sys::is_root() {
            None
        } else {
            soft(crate::sys::Resource::Nproc).map(|n| (n, user_tasks()))
        };
        Room {
            nofile: soft(crate::sys::Resource::Nofile),
            nproc,
            address_space: soft(crate::sys::Resource::AddressSpace),
            pids: cgroup_pids(Path::new("/")),
        }
    }

    /// Why a run cannot work under these limits, naming the limit and what
    /// to do; None when it can.
    pub fn problem(&self) -> Option<String> {
        if let Some(n) = self.nofile.filter(|n| *n < MIN_NOFILE) {
            return Some(format!(
                "RLIMIT_NOFILE allows {n} open files, and a run needs at least {MIN_NOFILE} (the output folder, each worker's pipes, the experiments' own descriptors): raise it (`ulimit -n 1024`)"
            ));
        }
        if let Some((limit, used)) = self.nproc {
            let free = limit.saturating_sub(used);
            if free < MIN_TASKS {
                return Some(format!(
                    "RLIMIT_NPROC allows this user {limit} tasks and {used} are running, so {free} are free, and a run needs at least {MIN_TASKS} (tasklab, a worker and its threads and children): raise it (`ulimit -u`) or end some tasks"
                ));
            }
        }
        if let Some((max, current)) = self.pids {
            let free = max.saturating_sub(current);
            if free < MIN_TASKS {
                return Some(format!(
                    "the cgroup's pids.max allows {max} tasks and {current} are in it, so {free} are free, and a run needs at least {MIN_TASKS} (tasklab, a worker and its threads and children): raise pids.max or run in another cgroup"
                ));
            }
        }
        None
    }
}

/// Tasks (threads) of this process's real user, as RLIMIT_NPROC counts
/// them: the `Threads:` of every process whose real uid is ours.
fn user_tasks() -> u64 {
    let uid_of = |status: &str| -> Option<String> {
        let line = status.lines().find(|l| l.starts_with("Uid:"))?;
        line.split_whitespace().nth(1).map(str::to_string)
    };
    let Some(me) = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| uid_of(&s))
    else {
        return 0;
    };
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    dir.flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.parse::<u32>().is_ok())
        })
        .filter_map(|e| std::fs::read_to_string(e.path().join("status")).ok())
        .filter(|s| uid_of(s).as_deref() == Some(me.as_str()))
        .map(|s| crate::sys::procfs::kib_field(&s, "Threads").unwrap_or(1))
        .sum()
}

/// pids.max and pids.current of this process's cgroup, below `root`: the
/// v2 path (`0::/path`), else v1's pids hierarchy; None when it has no
/// limit ("max") or none can be read.
pub fn cgroup_pids(root: &Path) -> Option<(u64, u64)> {
    let under = |p: &str| root.join(p.trim_start_matches('/'));
    let cgroup = std::fs::read_to_string(under("/proc/self/cgroup")).ok()?;
    let dir = cgroup.lines().find_map(|l| {
        let mut f = l.splitn(3, ':');
        let (_, controllers, path) = (f.next()?, f.next()?, f.next()?);
        match controllers {
            "" => Some(under("/sys/fs/cgroup").join(path.trim_start_matches('/'))),
            c if c.split(',').any(|c| c == "pids") => {
                Some(under("/sys/fs/cgroup/pids").join(path.trim_start_matches('/')))
            }
            _ => None,
        }
    })?;
    let read = |f: &str| -> Option<u64> {
        std::fs::read_to_string(dir.join(f))
            .ok()?
            .trim()
            .parse()
            .ok()
    };
    Some((read("pids.max")?, read("pids.current")?))
}

#[cfg(test)]
#[path = "limits_tests.rs"]
mod tests;
