//! The private directory a run keeps its helper programs in. It is made with
//! a random name and mode 0700 (people run tasklab as root: no predictable
//! path in a shared /tmp that another user could pre-create or link), the
//! helpers are written with `create_new` so no existing file is followed, and
//! the directory is removed when the run ends.
//!
//! A run that is killed (SIGKILL, a crash) cannot remove its directory. So
//! each one records its owner in a `pid` file (pid, start time, pid
//! namespace), and every new scratch directory first removes the user's
//! `tasklab-XXXXXX` directories whose owner no longer lives.

use crate::sys;
use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The tiny programs built by build.rs from helpers/hello.c.
const HELLO_STATIC: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/hello_static"));
const HELLO_DYNAMIC: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/hello_dynamic"));

pub const STATIC_NAME: &str = "hello_static";
pub const DYNAMIC_NAME: &str = "hello_dynamic";

/// The name of every scratch directory: this, then six random characters.
const PREFIX: &str = "tasklab-";
const RANDOM_CHARS: usize = 6;
/// The file in a scratch directory that names the run owning it.
const OWNER_FILE: &str = "pid";

pub struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    /// A new scratch directory in the temp directory (`TMPDIR`), after the
    /// stale ones of dead runs there are removed. A temp directory that
    /// another user could rename entries in is refused
    /// ([`temp_dir_problem`]).
    pub fn new() -> std::io::Result<Scratch> {
        let tmp = std::env::temp_dir();
        if let Some(why) = temp_dir_problem(&tmp) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                why,
            ));
        }
        Scratch::new_in(&tmp)
    }

    pub fn new_in(parent: &Path) -> std::io::Result<Scratch> {
        use std::os::unix::fs::PermissionsExt;
        remove_stale(parent);
        // Created with mode 0700 in one step (mkdir's mode), not chmod'ed later.
        let dir = tempfile::Builder::new()
            .prefix(PREFIX)
            .rand_bytes(RANDOM_CHARS)
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir_in(parent)?;
        // The owner first: a directory without one is never taken for stale.
        write_new(
            &dir.path().join(OWNER_FILE),
            Owner::me().to_line().as_bytes(),
            0o600,
        )?;
        for (name, bytes) in [(STATIC_NAME, HELLO_STATIC), (DYNAMIC_NAME, HELLO_DYNAMIC)] {
            if bytes.is_empty() {
                continue; // the build could not make it; experiments say so
            }
            write_new(&dir.path().join(name), bytes, 0o700)?;
        }
        Ok(Scratch { dir })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// Why the temp directory `tmp` (TMPDIR) is not safe for a run's helper
/// programs, if it is not: the run executes them from a folder it makes
/// there, and a user who may rename entries in `tmp` (its owner, or anyone
/// when it is writable by others without the sticky bit) could put a folder
/// of their own in its place, so root would run their program.
pub fn temp_dir_problem(tmp: &Path) -> Option<String> {
    sys::private::trusted_dir(tmp).err().map(|why| {
        format!(
            "the temporary folder {} (TMPDIR) is not safe for the helper programs a run executes: {why}; unset TMPDIR or point it at a folder only you and root can change",
            tmp.display()
        )
    })
}

/// Writes a new file (never an existing one, never through a link).
fn write_new(path: &Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)?;
    f.write_all(bytes)
}

/// The run that owns a scratch directory: a pid names one process only
/// with its start time (pids are reused) and inside its pid namespace.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Owner {
    pid: i32,
    start_ticks: u64,
    pid_ns: String,
}

impl Owner {
    fn me() -> Owner {
        let pid = std::process::id() as i32;
        Owner {
            pid,
            start_ticks: sys::procfs::start_ticks(pid).unwrap_or(0),
            pid_ns: sys::procfs::pid_namespace().unwrap_or_default(),
        }
    }

    fn to_line(&self) -> String {
        format!("{} {} {}\n", self.pid, self.start_ticks, self.pid_ns)
    }

    fn parse(text: &str) -> Option<Owner> {
        let mut w = text.split_whitespace();
        let owner = Owner {
            pid: w.next()?.parse().ok().filter(|&p| p > 0)?,
            start_ticks: w.next()?.parse().ok()?,
            pid_ns: w.next()?.to_string(),
        };
        w.next().is_none().then_some(owner)
    }

    /// Surely dead: judged in its own pid namespace only, and a process
    /// whose pid is visible with the recorded start time (or an unknown
    /// one) counts as alive.
    fn is_dead(&self, my_ns: &str) -> bool {
        if self.pid_ns.is_empty() || self.pid_ns != my_ns {
            return false;
        }
        match sys::procfs::start_ticks(self.pid) {
            None => true,
            Some(t) => self.start_ticks != 0 && t != self.start_ticks,
        }
    }
}

/// Whether `name` is one a scratch directory gets: `tasklab-` and six
/// letters or digits.
fn is_scratch_name(name: &str) -> bool {
    name.strip_prefix(PREFIX)
        .is_some_and(|r| r.len() == RANDOM_CHARS && r.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// Removes, in `parent`, the scratch directories of dead runs: real
/// directories (not links) owned by this user, whose `pid` file names a
/// process that no longer lives. Anything else is left alone: another
/// user's, a live run's, one without a readable owner. Best effort: a
/// directory that cannot be removed stays, and the run goes on.
pub fn remove_stale(parent: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(parent) else {
        return removed;
    };
    let me = sys::effective_uid();
    let my_ns = sys::procfs::pid_namespace().unwrap_or_default();
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_str().is_some_and(is_scratch_name) {
            continue;
        }
        let dir = entry.path();
        // lstat: a symlink is not a directory here, and is never followed.
        let Ok(meta) = std::fs::symlink_metadata(&dir) else {
            continue;
        };
        if !meta.is_dir() || meta.uid() != me {
            continue;
        }
        let Some(owner) = read_owner(&dir.join(OWNER_FILE)) else {
            continue;
        };
        // remove_dir_all does not follow symlinks inside the directory.
        if owner.is_dead(&my_ns) && std::fs::remove_dir_all(&dir).is_ok() {
            removed.push(dir);
        }
    }
    removed
}

/// The owner recorded in a scratch directory: a small regular file of
/// this user's, read without following a link.
fn read_owner(path: &Path) -> Option<Owner> {
    use std::io::Read;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    let meta = f.metadata().ok()?;
    if !meta.is_file() || meta.uid() != sys::effective_uid() {
        return None;
    }
    let mut text = String::new();
    f.take(256).read_to_string(&mut text).ok()?;
    Owner::parse(&text)
}

/// A helper program inside a scratch directory, if the build produced it.
pub fn helper(scratch: &Path, name: &str) -> Result<PathBuf, String> {
    let p = scratch.join(name);
    if p.is_file() {
        Ok(p)
    } else {
        Err(format!(
            "{name} was not built (the C compiler could not link it when tasklab was compiled)"
        ))
    }
}

#[cfg(test)]
#[path = "scratch_tests.rs"]
mod tests;
