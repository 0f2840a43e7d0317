//! Private paths: whether anyone but the invoking user (and root) could have
//! changed a folder or a file before tasklab runs it. People run tasklab as
//! root, often with another user's `HOME` (`sudo -E`); a program found in a
//! folder that user controls must never run as root.
//!
//! The rules are the ones ssh's StrictModes applies. Every folder above the
//! private one is owned by the invoking user or root and can be written by no
//! one else (a sticky folder such as /tmp passes: others cannot rename what is
//! ours in it). The private folders and files themselves are owned by the
//! invoking user, writable by no group or other, and never a symbolic link:
//! they are checked with lstat and opened with O_NOFOLLOW.

use std::fs::{File, Metadata};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};

const GROUP_OTHER_WRITE: u32 = 0o022;
const STICKY: u32 = 0o1000;

/// Why a folder above the private one is not trusted, if it is not.
fn ancestor_problem(path: &Path, m: &Metadata, me: u32) -> Option<String> {
    if m.file_type().is_symlink() {
        return Some(format!("{} is a symbolic link", path.display()));
    }
    if !m.is_dir() {
        return Some(format!("{} is not a folder", path.display()));
    }
    if m.uid() != me && m.uid() != 0 {
        return Some(format!(
            "{} is owned by uid {}, neither you (uid {me}) nor root",
            path.display(),
            m.uid()
        ));
    }
    if m.mode() & GROUP_OTHER_WRITE != 0 && m.mode() & STICKY == 0 {
        return Some(format!(
            "{} can be written by its group or by others (mode {:o})",
            path.display(),
            m.mode() & 0o7777
        ));
    }
    None
}

/// Why a private folder or file is not private, if it is not.
fn private_problem(path: &Path, m: &Metadata, me: u32) -> Option<String> {
    if m.file_type().is_symlink() {
        return Some(format!("{} is a symbolic link", path.display()));
    }
    if m.uid() != me {
        return Some(format!(
            "{} is owned by uid {}, not by you (uid {me})",
            path.display(),
            m.uid()
        ));
    }
    if m.mode() & GROUP_OTHER_WRITE != 0 {
        return Some(format!(
            "{} can be written by its group or by others (mode {:o})",
            path.display(),
            m.mode() & 0o7777
        ));
    }
    None
}

/// `mkdir path` with mode 0700; a folder that is already there is fine (it
/// is checked next, like any other).
fn make_dir(path: &Path) -> Result<(), String> {
    match std::fs::DirBuilder::new().mode(0o700).create(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(format!("cannot create {}: {e}", path.display())),
    }
}

fn lstat(path: &Path) -> Result<Metadata, String> {
    std::fs::symlink_metadata(path).map_err(|e| format!("cannot inspect {}: {e}", path.display()))
}

/// Checks that no one but you and root could change what is in the folder
/// `path`: resolved (links followed), every folder on the resolved path from
/// `/` down is owned by you or root and writable by no one else unless
/// sticky. The temporary folder a run executes its helpers from must pass:
/// in a folder another user may rename entries in, that user could swap the
/// run's private folder for one of their own between its creation and an
/// exec. Returns the resolved path.
pub fn trusted_dir(path: &Path) -> Result<PathBuf, String> {
    let me = super::effective_uid();
    if let Some(why) = foreign_link(path, me) {
        return Err(why);
    }
    let resolved = std::fs::canonicalize(path)
        .map_err(|e| format!("cannot resolve {}: {e}", path.display()))?;
    let mut p = PathBuf::new();
    for c in resolved.components() {
        p.push(c);
        if let Some(why) = ancestor_problem(&p, &lstat(&p)?, me) {
            return Err(why);
        }
    }
    Ok(resolved)
}

/// A symbolic link on the way to `path` (as given, before resolving) that
/// is owned by neither you (`me`) nor root, if there is one: its owner could
/// point it elsewhere at any time. What is used after a check is the
/// resolved path ([`trusted_dir`]'s answer), never the given one; a foreign
/// link is refused all the same, so that the answer does not depend on when
/// it was resolved.
fn foreign_link(path: &Path, me: u32) -> Option<String> {
    let mut p = PathBuf::new();
    for c in path.components() {
        p.push(c);
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() && m.uid() != me && m.uid() != 0 => {
                return Some(format!(
                    "{} is a symbolic link owned by uid {}, neither you (uid {me}) nor root",
                    p.display(),
                    m.uid()
                ));
            }
            _ => {}
        }
    }
    None
}

/// Whether `path` is a folder only you (and root) can change: a real folder
/// (not a link), yours, that no group or other can write, in a folder that
/// passes [`trusted_dir`]. What a run executes its helper programs from must
/// pass this in the process that executes them. `Err` holds the reason.
pub fn check_private_dir(path: &Path) -> Result<(), String> {
    let me = super::effective_uid();
    let parent = path
        .parent()
        .ok_or_else(|| format!("{} has no parent folder", path.display()))?;
    let resolved = trusted_dir(parent)?;
    let m = lstat(path)?;
    if let Some(why) = private_problem(path, &m, me) {
        return Err(why);
    }
    if !m.is_dir() {
        return Err(format!("{} is not a folder", path.display()));
    }
    // The folder checked is the one under the trusted parent.
    let again = lstat(&resolved.join(path.file_name().unwrap_or_default()))?;
    if again.ino() != m.ino() || again.dev() != m.dev() {
        return Err(format!(
            "{} is not the folder its resolved path names",
            path.display()
        ));
    }
    Ok(())
}

/// Makes sure `root/rel` is a private folder and returns its path.
///
/// `root` (for example `~/.cache`) may be reached through symbolic links: it
/// is resolved, and every folder on the resolved path, from `/` down, must be
/// owned by you or root and writable by no one else (sticky folders pass).
/// Missing folders are created with mode 0700, but only below a trusted
/// folder. Every component of `rel` (plain names only) is then looked at with
/// lstat, created with mode 0700 if missing, and must be a folder (not a
/// link) that you own and no group or other can write.
pub fn private_dir(root: &Path, rel: &Path) -> Result<PathBuf, String> {
    let me = super::effective_uid();
    if !root.is_absolute() {
        return Err(format!("{} is not an absolute path", root.display()));
    }
    // The nearest folder that exists; below it, what is to be created.
    let mut existing = root.to_path_buf();
    let mut missing = Vec::new();
    while let Err(e) = std::fs::symlink_metadata(&existing) {
        if e.kind() != io::ErrorKind::NotFound {
            return Err(format!("cannot inspect {}: {e}", existing.display()));
        }
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                missing.push(name.to_owned());
                existing = parent.to_path_buf();
            }
            _ => return Err(format!("{} does not exist", root.display())),
        }
    }
    let mut path = trusted_dir(&existing)?;
    for name in missing.iter().rev() {
        path.push(name);
        make_dir(&path)?;
        if let Some(why) = ancestor_problem(&path, &lstat(&path)?, me) {
            return Err(why);
        }
    }
    for c in rel.components() {
        let Component::Normal(name) = c else {
            return Err(format!("{} is not a plain relative path", rel.display()));
        };
        path.push(name);
        make_dir(&path)?;
        let m = lstat(&path)?;
        if let Some(why) = private_problem(&path, &m, me) {
            return Err(why);
        }
        if !m.is_dir() {
            return Err(format!("{} is not a folder", path.display()));
        }
    }
    Ok(path)
}

/// Where the private cache lives: `$XDG_CACHE_HOME` (when set to an
/// absolute path), else `$HOME/.cache`; None when neither is set. The
/// folder `tasklab` below it is made with [`private_dir`].
pub fn cache_root(
    xdg: Option<std::ffi::OsString>,
    home: Option<std::ffi::OsString>,
) -> Option<PathBuf> {
    xdg.map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            home.filter(|h| !h.is_empty())
                .map(|h| Path::new(&h).join(".cache"))
        })
}

/// [`cache_root`] of this process's environment.
pub fn cache_root_now() -> Option<PathBuf> {
    cache_root(std::env::var_os("XDG_CACHE_HOME"), std::env::var_os("HOME"))
}

/// Opens `path` for reading without following a link, and checks what was
/// opened: a regular file that you own and no group or other can write. A
/// missing file is `NotFound`; a file that fails the checks is
/// `PermissionDenied`, with the reason.
pub fn open_private_file(path: &Path) -> io::Result<File> {
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    format!("{} is a symbolic link", path.display()),
                )
            } else {
                e
            }
        })?;
    let m = f.metadata()?;
    let why = private_problem(path, &m, super::effective_uid())
        .or_else(|| (!m.is_file()).then(|| format!("{} is not a regular file", path.display())));
    match why {
        Some(why) => Err(io::Error::new(io::ErrorKind::PermissionDenied, why)),
        None => Ok(f),
    }
}

/// Checks that no one but you and root could have written the file `path`
/// (a library `LD_PRELOAD` names, for example): it is a regular file owned
/// by you or root that no group or other can write, in a folder that passes
/// [`trusted_dir`]. Links are followed, and the file they reach is checked.
/// Returns the resolved path.
pub fn trusted_file(path: &Path) -> Result<PathBuf, String> {
    let resolved = std::fs::canonicalize(path)
        .map_err(|e| format!("cannot resolve {}: {e}", path.display()))?;
    let parent = resolved
        .parent()
        .ok_or_else(|| format!("{} is not a file", path.display()))?;
    trusted_dir(parent)?;
    let m = lstat(&resolved)?;
    let me = super::effective_uid();
    if !m.is_file() {
        return Err(format!("{} is not a regular file", resolved.display()));
    }
    if m.uid() != me && m.uid() != 0 {
        return Err(format!(
            "{} is owned by uid {}, neither you (uid {me}) nor root",
            resolved.display(),
            m.uid()
        ));
    }
    if m.mode() & GROUP_OTHER_WRITE != 0 {
        return Err(format!(
            "{} can be written by its group or by others (mode {:o})",
            resolved.display(),
            m.mode() & 0o7777
        ));
    }
    Ok(resolved)
}

#[cfg(test)]
#[path = "private_tests.rs"]
mod tests;
