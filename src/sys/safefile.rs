//! Files written and read without trusting what is already on disk.
//!
//! Writing: an output folder is opened once and held ([`OutDir`]); every file
//! goes in through a fresh random name created with `O_CREAT|O_EXCL` (which
//! never follows a link), is written, synced, and renamed over the name it
//! replaces. A symbolic link planted under that name is replaced, never
//! followed; a failed write leaves the old file as it was and no temporary
//! file behind. The folder is reached through `/proc/self/fd`, so renaming or
//! swapping its path in the meantime cannot redirect a write. A default
//! folder (not named by the user) is refused when it is a symbolic link,
//! another user's, or writable by others without the sticky bit; `flock` on
//! the folder keeps a second run out of it.
//!
//! Reading: [`read_bounded`] reads a regular file only, up to a size.

use std::fs::{File, OpenOptions, Permissions};
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// How far the user vouched for an output folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trust {
    /// A folder tasklab chose (`tasklab-report`, the results file's folder):
    /// refused when it is a symbolic link, another user's, or writable by
    /// others without the sticky bit.
    Default,
    /// A folder the user named (`--out DIR`): used as it is, though links
    /// inside it are still never followed.
    Explicit,
}

/// An output folder, held open (and, once [`OutDir::lock`]ed, locked).
#[derive(Debug)]
pub struct OutDir {
    /// The folder as the user knows it, for messages.
    path: PathBuf,
    /// The open folder: it stays the folder checked whatever its path does.
    dir: File,
    /// Where writes go: `/proc/self/fd/N`, or `path` without /proc.
    base: PathBuf,
    /// The list of files written here, once [`OutDir::keep_manifest`] asked
    /// for one.
    manifest: Mutex<Option<Manifest>>,
}

/// A manifest: the files a writer put in a folder, each with the SHA-256 of
/// what it wrote, kept as a file of `HASH  NAME` lines.
#[derive(Debug)]
struct Manifest {
    name: String,
    entries: Vec<(String, String)>,
}

impl Manifest {
    fn text(&self) -> String {
        self.entries
            .iter()
            .map(|(file, hash)| format!("{hash}  {file}\n"))
            .collect()
    }
}

/// The SHA-256 of `bytes`, in lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn egid() -> u32 {
    // SAFETY: getegid has no preconditions and cannot fail.
    unsafe { libc::getegid() }
}

impl OutDir {
    /// Opens the output folder `path`, creating it (and its parents) when it
    /// does not exist; a default folder is checked as [`Trust::Default`] says.
    /// The error is a sentence naming the folder.
    pub fn open(path: &Path, trust: Trust) -> Result<OutDir, String> {
        let shown = path.display();
        if std::fs::symlink_metadata(path).is_err() {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o777)
                .create(path)
                .map_err(|e| format!("cannot create the output folder {shown}: {e}"))?;
        }
        let link = std::fs::symlink_metadata(path)
            .map_err(|e| format!("cannot open the output folder {shown}: {e}"))?;
        let pass = format!("pass --out {shown} to use it anyway");
        if trust == Trust::Default && link.file_type().is_symlink() {
            return Err(format!(
                "the output folder {shown} is a symbolic link; tasklab does not follow a link to a folder it did not choose ({pass})"
            ));
        }
        let mut flags = libc::O_DIRECTORY;
        if trust == Trust::Default {
            flags |= libc::O_NOFOLLOW;
        }
        let dir = OpenOptions::new()
            .read(true)
            .custom_flags(flags)
            .open(path)
            .map_err(|e| match e.raw_os_error() {
                Some(libc::ENOTDIR) => format!("the output folder {shown} is not a folder"),
                Some(libc::ELOOP) if trust == Trust::Default => {
                    format!("the output folder {shown} became a symbolic link ({pass})")
                }
                _ => format!("cannot open the output folder {shown}: {e}"),
            })?;
        let md = dir
            .metadata()
            .map_err(|e| format!("cannot read the output folder {shown}: {e}"))?;
        if trust == Trust::Default {
            if let Some(why) = unsafe_folder(&md) {
                return Err(format!("the output folder {shown} {why} ({pass})"));
            }
        }
        let proc = PathBuf::from(format!("/proc/self/fd/{}", dir.as_raw_fd()));
        let pinned =
            std::fs::metadata(&proc).is_ok_and(|m| m.dev() == md.dev() && m.ino() == md.ino());
        Ok(OutDir {
            path: path.to_path_buf(),
            base: if pinned { proc } else { path.to_path_buf() },
            dir,
            manifest: Mutex::new(None),
        })
    }

    /// The folder `name` inside this one, created when missing, reached
    /// through this folder's open descriptor (so a path swapped meanwhile
    /// cannot redirect it) and checked as a [`Trust::Default`] folder is:
    /// refused when it is a symbolic link, another user's, or writable by
    /// others without the sticky bit. `name` is one plain file name.
    pub fn subdir(&self, name: &str) -> Result<OutDir, String> {
        let path = self.path.join(name);
        let shown = path.display();
        if name.is_empty() || name.contains('/') || name == "." || name == ".." {
            return Err(format!("{shown} is not a folder name"));
        }
        let at = self.base.join(name);
        if std::fs::symlink_metadata(&at).is_err() {
            match std::fs::DirBuilder::new().mode(0o777).create(&at) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(format!("cannot create the output folder {shown}: {e}")),
            }
        }
        let link = format!(
            "the output folder {shown} is a symbolic link; tasklab does not follow a link to a folder it did not choose"
        );
        if std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(link);
        }
        let dir = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW)
            .open(&at)
            .map_err(|e| match e.raw_os_error() {
                // A link put there since: O_NOFOLLOW with O_DIRECTORY refuses it.
                Some(libc::ELOOP | libc::ENOTDIR)
                    if std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) =>
                {
                    link.clone()
                }
                Some(libc::ENOTDIR) => format!("the output folder {shown} is not a folder"),
                _ => format!("cannot open the output folder {shown}: {e}"),
            })?;
        let md = dir
            .metadata()
            .map_err(|e| format!("cannot read the output folder {shown}: {e}"))?;
        if let Some(why) = unsafe_folder(&md) {
            return Err(format!("the output folder {shown} {why}"));
        }
        let proc = PathBuf::from(format!("/proc/self/fd/{}", dir.as_raw_fd()));
        let pinned =
            std::fs::metadata(&proc).is_ok_and(|m| m.dev() == md.dev() && m.ino() == md.ino());
        Ok(OutDir {
            base: if pinned { proc } else { path.clone() },
            path,
            dir,
            manifest: Mutex::new(None),
        })
    }

    /// Takes the folder for this process (flock, exclusive, not waiting):
    /// held until the `OutDir` is dropped. A file system without flock
    /// gives no lock and no error.
    pub fn lock(&self) -> Result<(), String> {
        // SAFETY: flock on a descriptor this File owns; no memory is passed.
        let ret = unsafe { libc::flock(self.dir.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        match super::check(ret) {
            Ok(_) => Ok(()),
            Err(e) if e.raw_os_error() == Some(libc::EWOULDBLOCK) => Err(format!(
                "another tasklab is writing into {}: wait for it to end, or choose another folder with --out",
                self.path.display()
            )),
            Err(_) => Ok(()),
        }
    }

    /// Removes the temporary files a killed tasklab left here (this user's
    /// `.NAME.XXXXXX.tmp`): call it holding the [`OutDir::lock`], so that
    /// none of them is being written. Returns how many it removed.
    pub fn sweep(&self) -> usize {
        let Ok(entries) = std::fs::read_dir(&self.base) else {
            return 0;
        };
        let me = super::effective_uid();
        let mut removed = 0;
        for entry in entries.flatten() {
            let name = entry.file_name();
            let ours = name.to_str().is_some_and(is_temporary_name)
                && entry
                    .metadata()
                    .is_ok_and(|m| m.file_type().is_file() && m.uid() == me);
            if ours && std::fs::remove_file(self.base.join(&name)).is_ok() {
                removed += 1;
            }
        }
        removed
    }

    /// Checks that a file can be created here (and removes it again).
    pub fn probe(&self) -> Result<(), String> {
        self.temp(".tasklab-write-test").map(drop).map_err(|e| {
            format!(
                "cannot write in the output folder {}: {e}",
                self.path.display()
            )
        })
    }

    /// The file `name` in this folder, as the user knows it.
    pub fn shown(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    fn temp(&self, name: &str) -> io::Result<tempfile::NamedTempFile> {
        tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".tmp")
            .permissions(Permissions::from_mode(0o666))
            .tempfile_in(&self.base)
            .map_err(bare)
    }

    /// Writes `bytes` as the file `name` in this folder, atomically: a reader
    /// sees the old file or the new one, and a failure (a full disk) leaves
    /// the old one and no temporary file. The error names the file.
    /// Once a manifest is kept, the file is listed in it (written after the
    /// file, so a listed hash is always of content that was written).
    pub fn write(&self, name: &str, bytes: &[u8]) -> io::Result<()> {
        self.put(name, bytes)?;
        let mut guard = self.manifest.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = guard.as_mut() {
            if name != m.name {
                let hash = sha256_hex(bytes);
                match m.entries.iter_mut().find(|(f, _)| f == name) {
                    Some(e) => e.1 = hash,
                    None => m.entries.push((name.to_string(), hash)),
                }
                self.put(&m.name, m.text().as_bytes())?;
            }
        }
        Ok(())
    }

    /// From now on every file written here is listed in the manifest file
    /// `name` with the SHA-256 of what was written, beside `kept` (files
    /// from before, as (file, hash)); the manifest is written at once.
    pub fn keep_manifest(&self, name: &str, kept: Vec<(String, String)>) -> io::Result<()> {
        let m = Manifest {
            name: name.to_string(),
            entries: kept,
        };
        self.put(name, m.text().as_bytes())?;
        *self.manifest.lock().unwrap_or_else(|e| e.into_inner()) = Some(m);
        Ok(())
    }

    /// The bytes of the regular file `name` here (a link is not followed),
    /// None when there is none; at most `max` bytes.
    pub fn read(&self, name: &str, max: u64) -> Result<Option<Vec<u8>>, String> {
        match std::fs::symlink_metadata(self.base.join(name)) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("cannot read {}: {e}", self.shown(name).display())),
            Ok(m) if !m.file_type().is_file() => {
                return Err(format!(
                    "{} is {}, not a regular file",
                    self.shown(name).display(),
                    kind(&m.file_type())
                ))
            }
            Ok(_) => {}
        }
        let f = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(self.base.join(name))
            .map_err(|e| format!("cannot read {}: {e}", self.shown(name).display()))?;
        let mut bytes = Vec::new();
        f.take(max + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read {}: {e}", self.shown(name).display()))?;
        if bytes.len() as u64 > max {
            return Err(format!(
                "{} is over {} MiB",
                self.shown(name).display(),
                max >> 20
            ));
        }
        Ok(Some(bytes))
    }

    /// Whether `name` here is a regular file (a link is not).
    pub fn has_file(&self, name: &str) -> bool {
        std::fs::symlink_metadata(self.base.join(name)).is_ok_and(|m| m.file_type().is_file())
    }

    /// Removes the file `name` here (a link itself, never what it points at).
    pub fn remove(&self, name: &str) -> io::Result<()> {
        std::fs::remove_file(self.base.join(name))
    }

    /// Renames `from` to `to` within this folder, replacing `to`.
    pub fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        std::fs::rename(self.base.join(from), self.base.join(to))?;
        let _ = self.dir.sync_all();
        Ok(())
    }

    fn put(&self, name: &str, bytes: &[u8]) -> io::Result<()> {
        let fail = |e: io::Error| {
            let e = bare(e);
            io::Error::new(
                e.kind(),
                format!("cannot write {}: {e}", self.shown(name).display()),
            )
        };
        if name.contains('/') || name.is_empty() || name == "." || name == ".." {
            return Err(fail(io::Error::from_raw_os_error(libc::EINVAL)));
        }
        let mut tmp = self.temp(name).map_err(fail)?;
        tmp.as_file_mut().write_all(bytes).map_err(fail)?;
        tmp.as_file().sync_all().map_err(fail)?;
        tmp.persist(self.base.join(name))
            .map_err(|e| fail(e.error))?;
        // The rename itself reaches the disk with the folder.
        let _ = self.dir.sync_all();
        Ok(())
    }
}

/// A name [`OutDir::write`] gives a temporary file: `.NAME.XXXXXX.tmp`.
fn is_temporary_name(name: &str) -> bool {
    name.strip_prefix('.')
        .and_then(|n| n.strip_suffix(".tmp"))
        .and_then(|n| n.rsplit_once('.'))
        .is_some_and(|(stem, rand)| {
            !stem.is_empty() && rand.len() == 6 && rand.chars().all(|c| c.is_ascii_alphanumeric())
        })
}

/// The system's error without the temporary path tempfile adds to it (a
/// `/proc/self/fd` path means nothing to the user; the caller names the file).
fn bare(e: io::Error) -> io::Error {
    if e.raw_os_error().is_some() {
        return e;
    }
    let Some(text) = e.get_ref().map(ToString::to_string) else {
        return e;
    };
    let text = text.split(" at path \"").next().unwrap_or_default();
    io::Error::new(e.kind(), text.to_string())
}

/// Why a folder is unsafe to write into for this user, if it is.
fn unsafe_folder(md: &std::fs::Metadata) -> Option<String> {
    let sticky = md.mode() & 0o1000 != 0;
    let me = super::effective_uid();
    if md.uid() != me {
        return Some(format!(
            "belongs to user {}, not to you (user {me})",
            md.uid()
        ));
    }
    if sticky {
        return None;
    }
    if md.mode() & 0o002 != 0 {
        return Some(format!(
            "can be written by every user (mode {:o}, no sticky bit)",
            md.mode() & 0o7777
        ));
    }
    if md.mode() & 0o020 != 0 && md.gid() != egid() {
        return Some(format!(
            "can be written by group {} (mode {:o}, no sticky bit)",
            md.gid(),
            md.mode() & 0o7777
        ));
    }
    None
}

/// Writes `bytes` as the file `path`, atomically and without following a
/// link at `path` (one planted there is replaced). The folder is the user's
/// choice (`--json FILE`). The error names the file.
pub fn write_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let (dir, name) = split(path).map_err(|m| io::Error::new(io::ErrorKind::InvalidInput, m))?;
    let out = OutDir::open(dir, Trust::Explicit).map_err(io::Error::other)?;
    out.write(name, bytes)
}

/// Checks, before anything is measured, that [`write_file`] can write
/// `path`: a file name in an existing folder where a file can be created,
/// and nothing there but a regular file (or a link) to replace. The error
/// names the path.
pub fn check_file_dest(path: &Path) -> Result<(), String> {
    let (dir, name) = split(path)?;
    let shown = path.display();
    if let Ok(md) = std::fs::symlink_metadata(path) {
        let t = md.file_type();
        if t.is_dir() {
            return Err(format!("{shown} is a folder; give a file name"));
        }
        if !(t.is_file() || t.is_symlink()) {
            return Err(format!(
                "{shown} is not a regular file ({}); tasklab replaces the file it writes, and will not replace that",
                kind(&t)
            ));
        }
    }
    match std::fs::metadata(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(format!(
                "{shown}: the folder {} does not exist",
                dir.display()
            ))
        }
        Ok(m) if !m.is_dir() => {
            return Err(format!("{shown}: {} is not a folder", dir.display()));
        }
        _ => {}
    }
    let out = OutDir::open(dir, Trust::Explicit).map_err(|e| format!("{shown}: {e}"))?;
    out.temp(name)
        .map(drop)
        .map_err(|e| format!("{shown}: cannot create a file in {}: {e}", dir.display()))
}

/// The folder and the file name of `path`.
fn split(path: &Path) -> Result<(&Path, &str), String> {
    let shown = path.display();
    if path.as_os_str().is_empty() {
        return Err("an empty file name".into());
    }
    if path.as_os_str().as_encoded_bytes().ends_with(b"/") {
        return Err(format!("{shown} is a folder; give a file name"));
    }
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .filter(|n| *n != "." && *n != "..")
        .ok_or_else(|| format!("{shown} is not a file name"))?;
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    Ok((dir, name))
}

fn kind(t: &std::fs::FileType) -> &'static str {
    if t.is_dir() {
        "a folder"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// The bytes of the regular file `path`, refusing a folder, a device, a FIFO
/// or a socket (without blocking on it) and a file over `max` bytes. The
/// error is a sentence naming the path.
pub fn read_bounded(path: &Path, max: u64) -> Result<Vec<u8>, String> {
    let shown = path.display();
    // O_NONBLOCK: opening a FIFO for reading must not wait for a writer.
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| format!("cannot read {shown}: {e}"))?;
    let md = f
        .metadata()
        .map_err(|e| format!("cannot read {shown}: {e}"))?;
    if !md.is_file() {
        return Err(format!(
            "{shown} is {}, not a regular file",
            kind(&md.file_type())
        ));
    }
    let too_big = || {
        format!(
            "{shown} is over {} MiB, more than a file tasklab reads can be",
            max >> 20
        )
    };
    if md.len() > max {
        return Err(too_big());
    }
    let mut bytes = Vec::with_capacity(md.len() as usize);
    f.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {shown}: {e}"))?;
    if bytes.len() as u64 > max {
        return Err(too_big());
    }
    Ok(bytes)
}

#[cfg(test)]
#[path = "safefile_tests.rs"]
mod tests;
