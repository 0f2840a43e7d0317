//! The terminal's width, for output fitted to it.

use std::io::IsTerminal;
use std::os::fd::AsRawFd;

/// The columns of the terminal on stdout, when stdout is one and it says.
pub fn stdout_columns() -> Option<usize> {
    let out = std::io::stdout();
    if !out.is_terminal() {
        return None;
    }
    columns(out.as_raw_fd())
}

/// The columns of the terminal on stderr (where the progress line is), when
/// stderr is one and it says.
pub fn stderr_columns() -> Option<usize> {
    let err = std::io::stderr();
    if !err.is_terminal() {
        return None;
    }
    columns(err.as_raw_fd())
}

/// The columns of the terminal open on `fd`.
fn columns(fd: std::os::fd::RawFd) -> Option<usize> {
    // SAFETY: `winsize` is plain data that zeroed is a valid value of;
    // TIOCGWINSZ on `fd` writes at most one `winsize` into it, and the
    // result is checked before the value is read.
    let ws = unsafe {
        let mut ws: libc::winsize = std::mem::zeroed();
        if libc::ioctl(fd, libc::TIOCGWINSZ, &mut ws) != 0 {
            return None;
        }
        ws
    };
    (ws.ws_col > 0).then_some(usize::from(ws.ws_col))
}
