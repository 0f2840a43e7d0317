//! The raw calls of the context-switch group: futex wait/wake, `sched_yield`,
//! the `SCHED_IDLE` policy for the spinners that keep a CPU awake, and a fork
//! whose child runs a closure (allowed only while the process is
//! single-threaded, which is checked).

use super::check;
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

/// How many threads this process has now (`Threads:` in /proc/self/status).
pub fn thread_count() -> io::Result<usize> {
    let s = std::fs::read_to_string("/proc/self/status")?;
    s.lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .and_then(|v| v.trim().parse().ok())
        .ok_or_else(|| io::Error::other("no Threads: line in /proc/self/status"))
}

/// Forks; the child runs `f` and exits with its return value (101 if it
/// panics), never returning into the caller's code. Refused unless this
/// process has a single thread: after a fork only the forking thread exists,
/// and a lock another thread held would stay locked in the child forever.
pub fn fork_run(f: impl FnOnce() -> i32) -> io::Result<super::Child> {
    // A thread just joined may still be counted for a moment: its exit
    // finishes in the kernel after pthread_join has returned.
    let mut n = thread_count()?;
    for _ in 0..100 {
        if n == 1 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
        n = thread_count()?;
    }
    if n != 1 {
        return Err(io::Error::other(format!(
            "fork_run needs a single-threaded process, this one has {n} threads"
        )));
    }
    // SAFETY: the process is single-threaded (checked above), so the child is
    // an exact copy in which every lock is free and the allocator is
    // consistent; the child never returns from this function (exit_now).
    let pid = check(unsafe { libc::fork() })?;
    if pid == 0 {
        let code = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or(101);
        super::proc::exit_now(code);
    }
    Ok(super::Child { pid })
}

/// Sends SIGKILL to process `pid` (a child we started). A process that is
/// already gone is not an error.
pub fn kill_pid(pid: i32) -> io::Result<()> {
    if pid <= 1 {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    // SAFETY: kill has no memory effects; pid > 1 names one process.
    match check(unsafe { libc::kill(pid, libc::SIGKILL) }) {
        Err(e) if e.raw_os_error() == Some(libc::ESRCH) => Ok(()),
        r => r.map(drop),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn futex_wait_returns_when_the_value_differs() {
        let w = AtomicI32::new(5);
        futex_wait(&w, 4, false).unwrap(); // EAGAIN, not a hang
        assert_eq!(futex_wake(&w, 1, false).unwrap(), 0);
        w.store(1, Ordering::SeqCst);
        futex_wait(&w, 0, true).unwrap();
    }

    #[test]
    fn fork_run_refuses_a_multithreaded_process() {
        // the test harness runs this test on a thread of its own
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let t = std::thread::spawn(move || rx.recv());
        let err = fork_run(|| 0).unwrap_err();
        assert!(err.to_string().contains("single-threaded"), "{err}");
        drop(tx);
        let _ = t.join();
    }

    #[test]
    fn thread_count_sees_this_thread() {
        assert!(thread_count().unwrap() >= 1);
    }
}
