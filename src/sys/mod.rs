//! Every raw system call tasklab makes, behind safe functions.
//!
//! The experiments read like the seeds' C samples, but in safe Rust: the
//! `unsafe` blocks are all here, each with a `// SAFETY:` line saying why it is
//! sound. Functions that create a task take no user closure for the child side
//! where the child shares or borrows the parent's memory: the child's code is
//! fixed here (stamp the clock and the CPU, then exit) so nothing the caller
//! writes can run on a borrowed stack.

pub mod cgroup;
pub mod clock;
pub mod clone;
pub mod clone3;
pub mod forkwork;
pub mod futex;
pub mod membarrier;
pub mod mm;
pub mod perf;
pub mod private;
pub mod proc;
pub mod procfs;
pub mod pthread;
pub mod safefile;
pub mod sched;
pub mod share;
pub mod sysfs_knob;
pub mod tsc;
pub mod tty;
pub mod uffd;

pub use clock::*;
pub use clone::*;
pub use clone3::*;
pub use futex::*;
pub use membarrier::*;
pub use mm::*;
pub use proc::*;
pub use sched::*;

use std::io;

/// Turn a libc return value of -1 into the thread's `errno`.
pub(crate) fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}
