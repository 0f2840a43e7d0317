//! The private directory a run keeps its helper programs in. It is made with
//! a random name and mode 0700 (people run tasklab as root: no predictable
//! path in a shared /tmp that another user could pre-create or link), the
//! helpers are written with `create_new` so no existing file is followed, and
//! the directory is removed when the run ends.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// The tiny programs built by build.rs from helpers/hello.c.
const HELLO_STATIC: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/hello_static"));
const HELLO_DYNAMIC: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/hello_dynamic"));

pub const STATIC_NAME: &str = "hello_static";
pub const DYNAMIC_NAME: &str = "hello_dynamic";

pub struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    pub fn new() -> std::io::Result<Scratch> {
        use std::os::unix::fs::PermissionsExt;
        // Created with mode 0700 in one step (mkdir's mode), not chmod'ed later.
        let dir = tempfile::Builder::new()
            .prefix("tasklab-")
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir()?;
        for (name, bytes) in [(STATIC_NAME, HELLO_STATIC), (DYNAMIC_NAME, HELLO_DYNAMIC)] {
            if bytes.is_empty() {
                continue; // the build could not make it; experiments say so
            }
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o700)
                .open(dir.path().join(name))?;
            f.write_all(bytes)?;
        }
        Ok(Scratch { dir })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }
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
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn scratch_is_private_and_holds_the_helpers() {
        let s = Scratch::new().unwrap();
        let mode = std::fs::metadata(s.path()).unwrap().permissions().mode();
        assert_eq!(
            mode & 0o077,
            0,
            "scratch dir must not be readable by others"
        );
        let p = helper(s.path(), STATIC_NAME).unwrap();
        let out = std::process::Command::new(&p).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "hello, world\n");
        let path = s.path().to_path_buf();
        drop(s);
        assert!(!path.exists(), "scratch dir is removed at the end");
    }
}
