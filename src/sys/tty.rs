//! The terminal's width, for output fitted to it.

use std::io::IsTerminal;

/// The columns of the terminal on stdout, when stdout is one and it says.
pub fn stdout_columns() -> Option<usize> {
    if !std::io::stdout().is_terminal() {
        return None;
    }
    // SAFETY: `winsize` is plain data that zeroed is a valid value of;
    // TIOCGWINSZ on fd 1 writes at most one `winsize` into it, and the
    // result is checked before the value is read.
    let ws = unsafe {
        let mut ws: libc::winsize = std::mem::zeroed();
        if libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut ws) != 0 {
            return None;
        }
        ws
    };
    (ws.ws_col > 0).then_some(usize::from(ws.ws_col))
}
