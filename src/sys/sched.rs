//! The scheduler: yielding the CPU, and the `SCHED_IDLE` policy for the
//! spinners that keep a CPU awake.

use super::check;
use std::io;

/// Gives up the CPU to another runnable task of the same priority, if any.
#[inline]
pub fn sched_yield() {
    // SAFETY: sched_yield takes no arguments and always succeeds on Linux.
    unsafe { libc::sched_yield() };
}

/// Puts the calling thread in the `SCHED_IDLE` class: it runs only when
/// nothing else wants the CPU, and any normal task that wakes there
/// preempts it at once.
pub fn set_sched_idle() -> io::Result<()> {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: `param` is a valid sched_param; pid 0 is the calling thread.
    check(unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) })?;
    Ok(())
}
