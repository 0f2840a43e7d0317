//! A cgroup (v2) of its own for a `run --why` worker, so that a CPU-wide
//! event's samples tell the worker's tree by the cgroup they carry
//! (`PERF_SAMPLE_CGROUP`, Linux 5.7) instead of by the kernel's fork and
//! exit records, which cost every process started (docs/WHY.md, "Fork and
//! exit records").
//!
//! The worker makes `tasklab-why-PID` below the cgroup it was started in
//! and moves itself there (`cgroup.procs`); the tasks it starts from then
//! on are born in it. It is made only where its parent hands down no
//! controller (`cgroup.subtree_control` empty; else the records are
//! used), so its memory and CPU are still counted, and limited, where
//! they were (the nearest ancestor that enables them). A sample's cgroup is the task's cgroup of
//! the `perf_event` controller, which is the v2 one only when no v1
//! hierarchy carries that controller: checked from `/proc/self/cgroup`.
//! When the worker is done it moves back and removes the cgroup; one left
//! by a killed worker is removed by the next run's [`sweep`] (a cgroup
//! that still holds a task cannot be removed, so a live one is never).

use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The name of a worker's cgroup, before its pid.
pub const PREFIX: &str = "tasklab-why-";

/// Where this process's v2 cgroup is: the cgroup2 mount point and the
/// path below it, from `/proc/self/mountinfo` and `/proc/self/cgroup`'s
/// texts; an error in words where there is none or where `perf_event` is
/// a v1 controller (a sample's cgroup would then be the v1 one).
pub fn locate(mountinfo: &str, self_cgroup: &str) -> Result<PathBuf, String> {
    let mut v2 = None;
    for line in self_cgroup.lines() {
        let mut f = line.splitn(3, ':');
        let (Some(id), Some(ctrls), Some(path)) = (f.next(), f.next(), f.next()) else {
            continue;
        };
        if id == "0" && ctrls.is_empty() {
            v2 = Some(path.to_string());
        } else if ctrls.split(',').any(|c| c == "perf_event") {
            return Err(format!(
                "the perf_event controller is mounted as cgroup v1 (hierarchy {id}), so a \
                 sample carries its v1 cgroup"
            ));
        }
    }
    let v2 = v2.ok_or("no cgroup v2 line in /proc/self/cgroup")?;
    // A path like "/../x" says the process sits outside this namespace's root.
    if !v2.starts_with('/') || v2.split('/').any(|c| c == "..") {
        return Err(format!(
            "this process's cgroup ({v2}) is outside its namespace's root"
        ));
    }
    // mountinfo: id parent major:minor root mount-point options ... - fstype source super
    let mount = mountinfo
        .lines()
        .filter_map(|l| {
            let (left, right) = l.split_once(" - ")?;
            let fstype = right.split_whitespace().next()?;
            let mut f = left.split_whitespace();
            let root = f.nth(3)?;
            let point = f.next()?;
            (fstype == "cgroup2" && root == "/").then(|| unescape(point))
        })
        .next()
        .ok_or("no cgroup2 file system is mounted (with its root) in this namespace")?;
    Ok(Path::new(&mount).join(v2.trim_start_matches('/')))
}

/// mountinfo's octal escapes (`\040` for a space) undone.
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let oct = b
            .get(i + 1..i + 4)
            .filter(|d| d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match (b[i], oct) {
            (b'\\', Some(d)) => {
                out.push((d[0] - b'0') * 64 + (d[1] - b'0') * 8 + (d[2] - b'0'));
                i += 4;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// This process's v2 cgroup folder, read from /proc.
pub fn here() -> Result<PathBuf, String> {
    let mountinfo = fs::read_to_string("/proc/self/mountinfo")
        .map_err(|e| format!("/proc/self/mountinfo cannot be read: {e}"))?;
    let own = fs::read_to_string("/proc/self/cgroup")
        .map_err(|e| format!("/proc/self/cgroup cannot be read: {e}"))?;
    locate(&mountinfo, &own)
}

/// A cgroup's id, as a sample's `PERF_SAMPLE_CGROUP` carries it: its
/// folder's inode number on cgroup2 (the kernfs node id, on 64 bits).
pub fn id_of(dir: &Path) -> io::Result<u64> {
    Ok(fs::metadata(dir)?.ino())
}

/// Moves the calling process (every thread of it) into the cgroup `dir`.
fn move_here(dir: &Path) -> io::Result<()> {
    // "0" is the writer's own process; the file exists, nothing is created.
    fs::OpenOptions::new()
        .write(true)
        .open(dir.join("cgroup.procs"))
        .and_then(|mut f| io::Write::write_all(&mut f, b"0"))
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", dir.display())))
}

/// The cgroup a worker moved itself into, until it drops: then the worker
/// moves back where it was and the cgroup is removed (left to [`sweep`]
/// while a task of it lives on).
#[derive(Debug)]
pub struct Own {
    dir: PathBuf,
    home: PathBuf,
    id: u64,
}

impl Own {
    /// Makes `PREFIX` + this pid below this process's cgroup and moves
    /// the process into it.
    pub fn enter() -> io::Result<Own> {
        let home = here().map_err(io::Error::other)?;
        let dir = home.join(format!("{PREFIX}{}", std::process::id()));
        // One a killed process of the same pid left, empty (else busy).
        let _ = fs::remove_dir(&dir);
        fs::create_dir(&dir)?;
        // Owned from here, so that any failure below removes it.
        let mut own = Own { id: 0, dir, home };
        own.id = id_of(&own.dir)?;
        move_here(&own.dir)?;
        Ok(own)
    }

    /// The id its tasks' samples carry.
    pub fn id(&self) -> u64 {
        self.id
    }
}

impl Drop for Own {
    fn drop(&mut self) {
        let _ = move_here(&self.home);
        let _ = fs::remove_dir(&self.dir);
    }
}

/// Whether a worker can make its cgroup here: the v2 cgroup found, and a
/// cgroup made and removed below it (a name of this process's); else why
/// not, in words.
pub fn usable() -> Result<(), String> {
    let home = here()?;
    // A child gets the controllers its parent hands down: with any, the
    // worker's memory and CPU would be charged and weighed apart from its
    // unsampled twin's.
    let handed = fs::read_to_string(home.join("cgroup.subtree_control")).unwrap_or_default();
    hands_none(&home, &handed)?;
    let probe = home.join(format!("{PREFIX}{}-probe", std::process::id()));
    let _ = fs::remove_dir(&probe);
    fs::create_dir(&probe)
        .map_err(|e| format!("a cgroup cannot be made in {}: {e}", home.display()))?;
    let _ = fs::remove_dir(&probe);
    Ok(())
}

/// Err, in words, when `home`'s `cgroup.subtree_control` (`handed`) names
/// a controller a cgroup made below it would get.
pub fn hands_none(home: &Path, handed: &str) -> Result<(), String> {
    if handed.trim().is_empty() {
        return Ok(());
    }
    Err(format!(
        "{} hands controllers ({}) down to a cgroup made below it, which would count the sampled worker apart",
        home.display(),
        handed.trim()
    ))
}

/// Whether the entry `name` below this process's cgroup is a worker's
/// cgroup to sweep: of this prefix, and of a pid `alive` says is gone.
pub fn stale(name: &str, alive: impl Fn(&str) -> bool) -> bool {
    let Some(rest) = name.strip_prefix(PREFIX) else {
        return false;
    };
    let pid = rest.split('-').next().unwrap_or("");
    !(pid.is_empty() || alive(pid))
}

/// Removes the workers' cgroups below this process's that no task holds
/// (left by a worker that was killed); a busy one stays. Best effort.
pub fn sweep() {
    let Ok(home) = here() else { return };
    let Ok(entries) = fs::read_dir(&home) else {
        return;
    };
    for e in entries.flatten() {
        // A live process's (being made, or its probe) is left alone.
        let alive = |pid: &str| Path::new("/proc").join(pid).exists();
        if stale(&e.file_name().to_string_lossy(), alive) {
            let _ = fs::remove_dir(e.path());
        }
    }
}

#[cfg(test)]
#[path = "cgroup_tests.rs"]
mod tests;
