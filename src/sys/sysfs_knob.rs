//! Writable kernel settings under /sys, changed for one run and restored on
//! every way the run can end: when the [`Held`] guard drops (a normal end,
//! an error returned, a panic unwinding, or Ctrl-C/SIGTERM, which the run
//! turns into an early normal end), and after SIGKILL or a crash through a
//! restore record written *before* the first change and applied by the next
//! run's [`recover`]. `tasklab run --idle-poll` uses it for the idle path;
//! any other `sysfs:` setting can.
//!
//! A worker that changes a setting for some of its passes (switch.wakeup's
//! scheduler feature, [`SCHED_FEATURES`]) holds it under a record of its
//! own ([`WORKER_RECORD_FILE`]): the worker is killed, never signalled, on
//! Ctrl-C or a time-out, so the run applies that record after every job
//! ([`recover_in`]), and the next run at its start.
//!
//! Every path is below a root (`/` for real; a temporary folder in tests),
//! and only paths under `/sys/` or `/proc/sys/` are ever written. The record lives in
//! `<root>/run/tasklab/` (mode 0700, root's): `/run` is emptied by a reboot,
//! which also resets /sys, so a record never outlives the values it restores.

use serde::{Deserialize, Serialize};
use std::fs;
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The record's folder and file, below the root.
pub const RECORD_DIR: &str = "run/tasklab";
pub const RECORD_FILE: &str = "sysfs-restore.json";
/// The record of a worker's settings (held for some of its passes).
pub const WORKER_RECORD_FILE: &str = "sysfs-restore-worker.json";
/// Every record a run applies at its start.
pub const RECORD_FILES: [&str; 2] = [RECORD_FILE, WORKER_RECORD_FILE];

/// The scheduler's features (debugfs): a list of flags, each `NAME` or
/// `NO_NAME`, one of which a write of `NAME` or `NO_NAME` sets. A knob on
/// it names one flag (`NO_TTWU_QUEUE`), and it reads as that flag's state.
pub const SCHED_FEATURES: &str = "/sys/kernel/debug/sched/features";

/// The root settings are read and written below: `/`, or
/// `TASKLAB_SYSFS_ROOT` (a fake tree, for tests).
pub fn root() -> PathBuf {
    std::env::var_os("TASKLAB_SYSFS_ROOT")
        .filter(|v| !v.is_empty())
        .map_or_else(|| PathBuf::from("/"), PathBuf::from)
}

/// One setting: its path as on the real system (`/sys/...`) and a value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Knob {
    pub path: String,
    pub value: String,
}

/// The restore record: who changed the settings, and their old values.
#[derive(Debug, Serialize, Deserialize)]
struct Record {
    pid: i32,
    /// The owner's start time (/proc/PID/stat), so a reused pid is not
    /// taken for a live owner.
    start_ticks: Option<u64>,
    old: Vec<Knob>,
}

/// The settings changed and held until this drops (or [`Held::restore`]).
#[derive(Debug)]
pub struct Held {
    root: PathBuf,
    file: &'static str,
    old: Vec<Knob>,
    new: Vec<Knob>,
    done: bool,
}

fn invalid(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

/// `path` below `root`, refused unless it is an absolute path under /sys/
/// with no `..`.
fn under(root: &Path, path: &str) -> io::Result<PathBuf> {
    let p = Path::new(path);
    let ok = (path.starts_with("/sys/") || path.starts_with("/proc/sys/"))
        && p.components()
            .all(|c| !matches!(c, std::path::Component::ParentDir));
    if !ok {
        return Err(invalid(format!(
            "{path}: only a path under /sys/ or /proc/sys/ is changed"
        )));
    }
    Ok(root.join(path.trim_start_matches('/')))
}

/// `path` (as on the real system) checked for writing: under /sys/ or
/// /proc/sys/, and still under one of them once its links are followed
/// below `root`; a regular file this process may write. Returns the
/// resolved path as on the real system, which is what is then written.
pub fn resolve(root: &Path, path: &str) -> Result<String, String> {
    let p = under(root, path).map_err(|e| e.to_string())?;
    let real = fs::canonicalize(&p).map_err(|e| format!("cannot resolve {path}: {e}"))?;
    let root =
        fs::canonicalize(root).map_err(|e| format!("cannot resolve {}: {e}", root.display()))?;
    let rel = real
        .strip_prefix(&root)
        .map_err(|_| format!("{path} leads outside /sys and /proc/sys"))?;
    let shown = format!("/{}", rel.display());
    if !(shown.starts_with("/sys/") || shown.starts_with("/proc/sys/")) {
        return Err(format!(
            "{path} leads to {shown}, outside /sys and /proc/sys: a link is not followed out"
        ));
    }
    let md = fs::metadata(&real).map_err(|e| format!("cannot inspect {path}: {e}"))?;
    if !md.is_file() {
        return Err(format!("{path} is not a setting file"));
    }
    if !super::proc::may_write(&real) {
        return Err(format!(
            "{path} is not writable here (writing a kernel setting needs root)"
        ));
    }
    Ok(shown)
}

/// The value of a setting now, trimmed.
/// A setting that offers choices reads as all of them with the one in force
/// in brackets (`always [madvise] never`): that one is its value, the form
/// it is written in.
pub fn read(root: &Path, path: &str) -> io::Result<String> {
    let p = under(root, path)?;
    fs::read_to_string(&p)
        .map(|s| chosen(&s))
        .map_err(|e| io::Error::new(e.kind(), format!("cannot read {path}: {e}")))
}

/// The value in force of what a setting file reads: the bracketed choice
/// of a list of choices, else the text trimmed.
pub fn chosen(text: &str) -> String {
    let t = text.trim();
    match (t.find('['), t.find(']')) {
        (Some(a), Some(b)) if a < b => t[a + 1..b].trim().to_string(),
        _ => t.to_string(),
    }
}

/// The state of `flag`'s feature (`NAME` or `NO_NAME`, either spelling
/// names it) in a list of flags as [`SCHED_FEATURES`] reads; None when the
/// list has no such feature.
pub fn flag_state(text: &str, flag: &str) -> Option<String> {
    let name = flag.strip_prefix("NO_").unwrap_or(flag);
    let off = format!("NO_{name}");
    text.split_whitespace()
        .find(|t| *t == name || *t == off)
        .map(str::to_string)
}

/// A knob's value now: the flag's state for [`SCHED_FEATURES`], else
/// [`read`].
fn current(root: &Path, k: &Knob) -> io::Result<String> {
    if k.path != SCHED_FEATURES {
        return read(root, &k.path);
    }
    let p = under(root, &k.path)?;
    let text = fs::read_to_string(&p)
        .map_err(|e| io::Error::new(e.kind(), format!("cannot read {}: {e}", k.path)))?;
    flag_state(&text, &k.value).ok_or_else(|| {
        invalid(format!(
            "{}: this kernel has no scheduler feature {}",
            k.path,
            k.value.trim_start_matches("NO_")
        ))
    })
}

fn write(root: &Path, k: &Knob) -> io::Result<()> {
    let p = under(root, &k.path)?;
    // sysfs files exist already; never create one, never truncate a
    // regular file into something else's name.
    let mut f = fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&p)
        .map_err(|e| io::Error::new(e.kind(), format!("cannot write {}: {e}", k.path)))?;
    // A value recorded as a list of choices (by an older tasklab) is
    // written as the choice in force.
    io::Write::write_all(&mut f, format!("{}\n", chosen(&k.value)).as_bytes())
        .map_err(|e| io::Error::new(e.kind(), format!("cannot write {}: {e}", k.path)))
}

#[cfg(test)]
fn record_path(root: &Path) -> PathBuf {
    record_path_in(root, RECORD_FILE)
}

fn record_path_in(root: &Path, file: &str) -> PathBuf {
    root.join(RECORD_DIR).join(file)
}

#[cfg(test)]
fn write_record(root: &Path, r: &Record) -> io::Result<()> {
    write_record_in(root, RECORD_FILE, r)
}

fn write_record_in(root: &Path, file: &str, r: &Record) -> io::Result<()> {
    let dir = root.join(RECORD_DIR);
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)?;
    let md = fs::symlink_metadata(&dir)?;
    if !md.is_dir() || md.uid() != super::effective_uid() || md.mode() & 0o077 != 0 {
        return Err(invalid(format!(
            "{} is not a private folder of this user: no restore record written there",
            dir.display()
        )));
    }
    let tmp = dir.join(format!(".{file}.{}", std::process::id()));
    let bytes = serde_json::to_vec_pretty(r).map_err(io::Error::other)?;
    {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)?;
        io::Write::write_all(&mut f, &bytes)?;
        f.sync_all()?;
    }
    fs::rename(&tmp, record_path_in(root, file))?;
    fs::File::open(&dir)?.sync_all()
}

/// The record there is, when it is a regular file of this user's.
fn read_record(root: &Path, file: &str) -> io::Result<Option<Record>> {
    let path = record_path_in(root, file);
    let md = match fs::symlink_metadata(&path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        r => r?,
    };
    if !md.is_file() || md.uid() != super::effective_uid() {
        return Err(invalid(format!(
            "{} is not a regular file of this user's: not trusted as a restore record",
            path.display()
        )));
    }
    let bytes = super::safefile::read_bounded(&path, 1 << 20).map_err(invalid)?;
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| invalid(format!("{}: {e}", path.display())))
}

fn alive(r: &Record) -> bool {
    r.pid > 0
        && r.pid as u32 != std::process::id()
        && super::procfs::start_ticks(r.pid).is_some_and(|t| Some(t) == r.start_ticks)
}

/// Applies the restore record a killed run left, if any: its settings get
/// their old values back and the record goes. Returns what was restored
/// (nothing without a record); `ResourceBusy` when the record's run is
/// still alive (its settings are its own until it ends).
pub fn recover(root: &Path) -> io::Result<Vec<Knob>> {
    recover_in(root, RECORD_FILE)
}

/// [`recover`] of the record `file` ([`RECORD_FILES`]).
pub fn recover_in(root: &Path, file: &'static str) -> io::Result<Vec<Knob>> {
    let Some(r) = read_record(root, file)? else {
        return Ok(Vec::new());
    };
    if alive(&r) {
        return Err(io::Error::new(
            io::ErrorKind::ResourceBusy,
            format!(
                "another tasklab run (pid {}) holds changed /sys settings until it ends",
                r.pid
            ),
        ));
    }
    for k in &r.old {
        write(root, k)?;
    }
    fs::remove_file(record_path_in(root, file))?;
    Ok(r.old)
}

/// Sets every knob of `set` (below `root`) and holds them: their old values
/// are recorded first, so that even SIGKILL leaves a way back. A setting
/// that already has its value is left alone. A failure part way restores
/// what was changed and removes the record.
pub fn hold(root: &Path, set: &[Knob]) -> io::Result<Held> {
    hold_in(root, RECORD_FILE, set)
}

/// [`hold`] under the record `file` (a worker's: [`WORKER_RECORD_FILE`]).
pub fn hold_in(root: &Path, file: &'static str, set: &[Knob]) -> io::Result<Held> {
    recover_in(root, file)?;
    let mut old = Vec::new();
    let mut new = Vec::new();
    for k in set {
        let now = current(root, k)?;
        if now != k.value {
            old.push(Knob {
                path: k.path.clone(),
                value: now,
            });
            new.push(k.clone());
        }
    }
    let mut held = Held {
        root: root.to_path_buf(),
        file,
        old: Vec::new(),
        new: Vec::new(),
        done: false,
    };
    if new.is_empty() {
        return Ok(held);
    }
    let pid = std::process::id() as i32;
    write_record_in(
        root,
        file,
        &Record {
            pid,
            start_ticks: super::procfs::start_ticks(pid),
            old: old.clone(),
        },
    )?;
    for (k, was) in new.iter().zip(&old) {
        if let Err(e) = write(root, k) {
            held.restore()?;
            // The record goes even when nothing had been written yet.
            let _ = fs::remove_file(record_path_in(root, file));
            return Err(e);
        }
        held.old.push(was.clone());
        held.new.push(k.clone());
    }
    Ok(held)
}

impl Held {
    /// Puts every old value back (last changed first) and removes the
    /// record; the first error is returned after every value was tried, and
    /// then the record stays for the next run.
    pub fn restore(&mut self) -> io::Result<()> {
        if self.done {
            return Ok(());
        }
        self.done = true;
        let mut first = None;
        for k in self.old.iter().rev() {
            if let Err(e) = write(&self.root, k) {
                first.get_or_insert(e);
            }
        }
        match first {
            Some(e) => Err(e),
            None if self.old.is_empty() => Ok(()),
            None => match fs::remove_file(record_path_in(&self.root, self.file)) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
                _ => Ok(()),
            },
        }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        if let Err(e) = self.restore() {
            eprintln!(
                "warning: {e}; the next tasklab run restores it from {}",
                record_path_in(&self.root, self.file).display()
            );
        }
    }
}

#[cfg(test)]
#[path = "sysfs_knob_tests.rs"]
mod tests;
