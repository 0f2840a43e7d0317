//! membarrier(2): the one unprivileged system call that sends an
//! inter-processor interrupt on demand. `MEMBARRIER_CMD_PRIVATE_EXPEDITED`
//! interrupts every other CPU that is running a thread of this process and
//! waits until each has run the handler; a CPU running anything else (idle
//! included) is skipped. switch.wakeup times it with a peer thread running
//! on the other CPU (one IPI) and blocked (none): the difference is the IPI.

use std::io;

const CMD_PRIVATE_EXPEDITED: libc::c_int = 1 << 3;
const CMD_REGISTER_PRIVATE_EXPEDITED: libc::c_int = 1 << 4;

fn membarrier(cmd: libc::c_int) -> io::Result<()> {
    // SAFETY: membarrier takes two integers and a CPU id (unused here) and
    // touches no memory of ours.
    let r = unsafe {
        libc::syscall(
            libc::SYS_membarrier,
            cmd,
            0 as libc::c_uint,
            0 as libc::c_int,
        )
    };
    if r == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Registers this process for private expedited barriers (needed once,
/// before the first [`membarrier_private_expedited`]). An error means the
/// kernel lacks the command (EINVAL) or refuses it.
pub fn membarrier_register_private_expedited() -> io::Result<()> {
    membarrier(CMD_REGISTER_PRIVATE_EXPEDITED)
}

/// One private expedited barrier: an IPI to every other CPU now running a
/// thread of this process, returning once all have handled it.
#[inline]
pub fn membarrier_private_expedited() -> io::Result<()> {
    membarrier(CMD_PRIVATE_EXPEDITED)
}

#[cfg(test)]
#[path = "membarrier_tests.rs"]
mod tests;
