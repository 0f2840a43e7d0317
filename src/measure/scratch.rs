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

use crate::error::UsageError;
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
    /// another user could rename entries in is refused ([`temp_root`]).
    pub fn new() -> std::io::Result<Scratch> {
        Scratch::new_in(&temp_root().map_err(refused)?)
    }

    /// A scratch directory in `parent` with the helper programs in it.
    pub fn new_in(parent: &Path) -> std::io::Result<Scratch> {
        let s = Scratch::bare_in(parent)?;
        for (name, bytes) in [(STATIC_NAME, HELLO_STATIC), (DYNAMIC_NAME, HELLO_DYNAMIC)] {
            if bytes.is_empty() {
                continue; // the build could not make it; experiments say so
            }
            write_new(&s.path().join(name), bytes, 0o700)?;
        }
        Ok(s)
    }

    /// A private temporary folder with no helper programs, for a command's
    /// own files (the results `advise` and `predict` measure): in the
    /// checked temp directory ([`temp_root`], an unsafe one is a usage
    /// error), named and owned like a scratch directory, so a run killed
    /// before it could remove it leaves nothing the next start does not
    /// remove.
    pub fn temporary() -> anyhow::Result<Scratch> {
        let root = temp_root()?;
        Scratch::bare_in(&root).map_err(|e| {
            anyhow::anyhow!(
                "cannot make a private folder in the temporary folder {} (TMPDIR): {e}",
                root.display()
            )
        })
    }

    /// The directory and its owner file, nothing else.
    fn bare_in(parent: &Path) -> std::io::Result<Scratch> {
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
        Ok(Scratch { dir })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

fn refused(e: UsageError) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::PermissionDenied, e.0)
}

/// The temp directory (`TMPDIR`, else /tmp) resolved, once it is checked to
/// be safe for the helper programs a run executes ([`temp_dir_problem`]):
/// every folder on its resolved path is yours or root's and writable by no
/// one else unless sticky, and no link on the way is another user's. The
/// resolved path is the one used from then on, so a link cannot be pointed
/// elsewhere after the check. Otherwise a usage error naming TMPDIR and the
/// reason.
pub fn temp_root() -> Result<PathBuf, UsageError> {
    let tmp = std::env::temp_dir();
    sys::private::trusted_dir(&tmp).map_err(|why| UsageError(temp_dir_message(&tmp, &why)))
}

/// Why the temp directory `tmp` (TMPDIR) is not safe for a run's helper
/// programs, if it is not: the run executes them from a folder it makes
/// there, and a user who may rename entries in `tmp` (its owner, or anyone
/// when it is writable by others without the sticky bit) could put a folder
/// of their own in its place, so root would run their program.
pub fn temp_dir_problem(tmp: &Path) -> Option<String> {
    sys::private::trusted_dir(tmp)
        .err()
        .map(|why| temp_dir_message(tmp, &why))
}

fn temp_dir_message(tmp: &Path, why: &str) -> String {
    let shown = match std::env::var_os("TMPDIR") {
        None => format!("{} (TMPDIR is not set; that is the default)", tmp.display()),
        Some(v) if v.is_empty() => "'' (TMPDIR is set but empty)".to_string(),
        Some(_) => format!("{} (TMPDIR)", tmp.display()),
    };
    format!(
        "the temporary folder {shown} is not safe for the helper programs a run executes: {why}; unset TMPDIR or point it at an existing folder only you and root can change"
    )
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

/// Why a helper program may not be executed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HelperRefused {
    /// The build did not produce it.
    NotBuilt(String),
    /// It, or its folder, could be changed by another user: the reason.
    NotPrivate(String),
}

impl std::fmt::Display for HelperRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HelperRefused::NotBuilt(name) => write!(
                f,
                "{name} was not built (the C compiler could not link it when tasklab was compiled)"
            ),
            HelperRefused::NotPrivate(why) => f.write_str(why),
        }
    }
}

/// A helper program inside a scratch directory, if the build produced it
/// and it may be executed by path: the scratch directory is private (yours,
/// mode 0700, in a temp directory no other user can rename entries in) and
/// the program a regular file of yours that no one else can write. Checked
/// in the process that executes it, before it prepares the exec; `Err`
/// holds the reason.
pub fn helper(scratch: &Path, name: &str) -> Result<PathBuf, HelperRefused> {
    let p = scratch.join(name);
    if !p.exists() {
        return Err(HelperRefused::NotBuilt(name.to_string()));
    }
    let refuse = |why: String| HelperRefused::NotPrivate(format!("{name} is not run: {why}"));
    sys::private::check_private_dir(scratch).map_err(refuse)?;
    sys::private::open_private_file(&p).map_err(|e| refuse(e.to_string()))?;
    Ok(p)
}

#[cfg(test)]
#[path = "scratch_tests.rs"]
mod tests;
