//! Futexes: the word two tasks take turns on in the futex ping-pong.

use std::io;
use std::sync::atomic::AtomicI32;

fn futex_op(op: libc::c_int, shared: bool) -> libc::c_int {
    if shared {
        op
    } else {
        op | libc::FUTEX_PRIVATE_FLAG
    }
}

/// Sleeps while `*word == expected`. Returns at once (Ok) when the value
/// differs (EAGAIN), on a wake-up, or on a signal (EINTR): callers re-check
/// the word in a loop. `shared` must be true when the word lives in a
/// MAP_SHARED page used by several processes (a private futex is keyed on the
/// address space and would never be woken from another process).
#[inline]
pub fn futex_wait(word: &AtomicI32, expected: i32, shared: bool) -> io::Result<()> {
    // SAFETY: `word` is a valid, aligned 32-bit atomic that outlives the call;
    // a null timeout means no timespec is read. FUTEX_WAIT only reads the word.
    let r = unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            futex_op(libc::FUTEX_WAIT, shared),
            expected,
            std::ptr::null::<libc::timespec>(),
        )
    };
    if r == -1 {
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EAGAIN) | Some(libc::EINTR) => Ok(()),
            _ => Err(e),
        }
    } else {
        Ok(())
    }
}

/// Wakes at most `n` waiters on `word`; returns how many were woken.
#[inline]
pub fn futex_wake(word: &AtomicI32, n: i32, shared: bool) -> io::Result<i32> {
    // SAFETY: `word` is a valid, aligned 32-bit atomic; FUTEX_WAKE does not
    // access memory beyond looking the address up.
    let r = unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            futex_op(libc::FUTEX_WAKE, shared),
            n,
        )
    };
    if r == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r as i32)
    }
}

#[cfg(test)]
#[path = "futex_tests.rs"]
mod tests;
