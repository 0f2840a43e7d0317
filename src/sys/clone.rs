//! Creating tasks every way Linux offers, each child doing the least it can:
//! stamp `CLOCK_MONOTONIC` and its CPU into a [`SharedPage`], then exit.
//!
//! The caller times the call itself; the stamps give the child's first
//! instruction. Slot 0 (u64) holds the child's start time in ns, slot 0 (i32)
//! its CPU; i32 slot 1 is the thread-id word `clone` clears when a thread made
//! with the pthread flags exits.

use super::{
    check,
    clock::monotonic_ns,
    mm::CloneStack,
    mm::SharedPage,
    proc::{current_cpu, current_cpu_syscall},
};
use std::ffi::{CString, NulError};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::Ordering;

extern "C" {
    fn tasklab_vfork_stamp(stamp_ns: *mut u64, cpu: *mut i32) -> libc::c_int;
    fn tasklab_vfork_exec(
        path: *const libc::c_char,
        argv: *const *const libc::c_char,
        envp: *const *const libc::c_char,
        stamp_fd: libc::c_int,
        devnull_fd: libc::c_int,
    ) -> libc::c_int;
}

/// The child side of every stamping creation: clock first, then CPU.
#[inline(always)]
pub(super) fn stamp(page: &SharedPage) {
    page.u64(0).store(monotonic_ns(), Ordering::Release);
    page.i32(0).store(current_cpu(), Ordering::Release);
}

/// The same for a child that shares its parent's memory but has no TLS block
/// of its own: its CPU comes from the `getcpu` system call, not from the
/// parent's rseq area (see [`current_cpu_syscall`]).
#[inline(always)]
pub(super) fn stamp_without_tls(page: &SharedPage) {
    page.u64(0).store(monotonic_ns(), Ordering::Release);
    page.i32(0).store(current_cpu_syscall(), Ordering::Release);
}

/// A child process to be reaped.
#[must_use = "a child must be reaped with wait()"]
#[derive(Debug)]
pub struct Child {
    pub pid: i32,
}

impl Child {
    /// Reaps the child; an exit status other than 0 is an error.
    pub fn wait(self) -> io::Result<()> {
        match super::proc::wait_pid(self.pid)? {
            super::proc::Exit::Code(0) => Ok(()),
            other => Err(io::Error::other(format!(
                "child {} ended with {other:?}",
                self.pid
            ))),
        }
    }
}

/// `fork()`: the child stamps and `_exit`s.
pub fn fork_stamp(page: &SharedPage) -> io::Result<Child> {
    // SAFETY: the child runs only stamp() (a vDSO clock read, getcpu and two
    // atomic stores to a MAP_SHARED page) and _exit: async-signal-safe work
    // that is sound even if other threads existed in the parent.
    let pid = check(unsafe { libc::fork() })?;
    if pid == 0 {
        stamp(page);
        super::proc::exit_now(0);
    }
    Ok(Child { pid })
}

/// `vfork()`: the parent is suspended until the child has stamped and exited,
/// so the parent's return includes the child's whole life.
pub fn vfork_stamp(page: &SharedPage) -> io::Result<Child> {
    // SAFETY: the C shim keeps the whole vfork child in C; it writes only the
    // two slots of the shared page, which outlives the call, then _exits.
    let pid = check(unsafe { tasklab_vfork_stamp(page.u64_ptr(0), page.i32_ptr(0)) })?;
    Ok(Child { pid })
}

/// Which flags a raw `clone` passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CloneKind {
    /// `SIGCHLD` only: a process, like fork.
    Process,
    /// `CLONE_VM | SIGCHLD`: a process that shares the parent's memory.
    SharedVm,
    /// `CLONE_VM | CLONE_VFORK | SIGCHLD`: what posix_spawn uses; the parent
    /// sleeps until the child exits or execs.
    VforkVm,
    /// The flags glibc's pthread_create passes, less `CLONE_SETTLS` (the child
    /// never touches thread-local storage, so it needs no TLS block of its own).
    ThreadFlags,
}

impl CloneKind {
    pub fn flags(self) -> libc::c_int {
        match self {
            CloneKind::Process => libc::SIGCHLD,
            CloneKind::SharedVm => libc::CLONE_VM | libc::SIGCHLD,
            CloneKind::VforkVm => libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            CloneKind::ThreadFlags => {
                libc::CLONE_VM
                    | libc::CLONE_FS
                    | libc::CLONE_FILES
                    | libc::CLONE_SYSVSEM
                    | libc::CLONE_SIGHAND
                    | libc::CLONE_THREAD
                    | libc::CLONE_PARENT_SETTID
                    | libc::CLONE_CHILD_CLEARTID
            }
        }
    }
}

/// A task started by raw `clone`, to be waited for.
#[must_use = "a cloned task must be waited for"]
pub enum Cloned<'a> {
    Process(Child),
    /// A thread of this process: done when the kernel clears its tid word.
    Thread(&'a SharedPage),
}

impl Cloned<'_> {
    pub fn wait(self) -> io::Result<()> {
        match self {
            Cloned::Process(c) => c.wait(),
            Cloned::Thread(page) => {
                let word = page.i32(1);
                loop {
                    let v = word.load(Ordering::Acquire);
                    if v == 0 {
                        return Ok(());
                    }
                    futex_wait(word.as_ptr(), v);
                }
            }
        }
    }
}

fn futex_wait(addr: *mut i32, expected: i32) {
    // SAFETY: addr points into a live mapping (the shared page); FUTEX_WAIT
    // only reads it and returns at once if it no longer holds `expected`.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            addr,
            libc::FUTEX_WAIT,
            expected,
            std::ptr::null::<libc::timespec>(),
        )
    };
}

extern "C" fn clone_child(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: arg is the &SharedPage passed by clone_stamp, which outlives the
    // child: the parent waits for it before the page can be dropped.
    let page = unsafe { &*(arg as *const SharedPage) };
    stamp(page);
    0 // glibc's clone wrapper passes this to the exit system call
}

/// The child of a raw clone that shares the parent's memory (`CLONE_VM`).
extern "C" fn clone_child_shared_vm(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: as for clone_child.
    let page = unsafe { &*(arg as *const SharedPage) };
    stamp_without_tls(page);
    0
}

/// Raw `clone(fn, stack, flags, arg)` through glibc's wrapper; the child runs
/// on `stack`, stamps and returns.
pub fn clone_stamp<'a>(
    kind: CloneKind,
    stack: &CloneStack,
    page: &'a SharedPage,
) -> io::Result<Cloned<'a>> {
    let tid_word = page.i32_ptr(1);
    // SAFETY: the child runs clone_child on its own stack, which the caller
    // keeps alive and does not reuse until wait() returns; clone_child touches
    // only the shared page (no TLS, no allocation). With ThreadFlags the kernel
    // writes the tid to tid_word and clears it at exit; tid_word lives in the
    // page, which outlives the thread because wait() borrows it.
    let child = if kind == CloneKind::Process {
        clone_child
    } else {
        clone_child_shared_vm
    };
    let ret = unsafe {
        libc::clone(
            child,
            stack.top(),
            kind.flags(),
            page as *const SharedPage as *mut libc::c_void,
            tid_word,
            std::ptr::null_mut::<libc::c_void>(),
            tid_word,
        )
    };
    let pid = check(ret)?;
    Ok(if kind == CloneKind::ThreadFlags {
        Cloned::Thread(page)
    } else {
        Cloned::Process(Child { pid })
    })
}

/// A thread made with `pthread_create` and default attributes.
#[must_use = "a pthread must be joined"]
pub struct Pthread {
    id: libc::pthread_t,
}

extern "C" fn pthread_child(arg: *mut libc::c_void) -> *mut libc::c_void {
    // SAFETY: arg is the &SharedPage passed by pthread_stamp; the caller joins
    // the thread before the page can be dropped (join borrows nothing, but the
    // page is borrowed by pthread_stamp's caller for the thread's life).
    let page = unsafe { &*(arg as *const SharedPage) };
    stamp(page);
    std::ptr::null_mut()
}

pub fn pthread_stamp(page: &SharedPage) -> io::Result<Pthread> {
    let mut id: libc::pthread_t = 0;
    // SAFETY: `id` is writable; default attributes; the start routine only
    // touches the shared page, which the caller keeps alive until join().
    let r = unsafe {
        libc::pthread_create(
            &mut id,
            std::ptr::null(),
            pthread_child,
            page as *const SharedPage as *mut libc::c_void,
        )
    };
    if r != 0 {
        return Err(io::Error::from_raw_os_error(r));
    }
    Ok(Pthread { id })
}

impl Pthread {
    pub fn join(self) -> io::Result<()> {
        // SAFETY: the id came from a successful pthread_create and is joined
        // exactly once (join consumes self).
        let r = unsafe { libc::pthread_join(self.id, std::ptr::null_mut()) };
        if r != 0 {
            return Err(io::Error::from_raw_os_error(r));
        }
        Ok(())
    }
}

/// Everything an exec'd child needs, prepared before any fork so the child
/// side allocates nothing: path, argv and envp as C strings, `/dev/null` for
/// its stdout, and a pipe whose write end becomes the child's fd 3, where the
/// tiny program writes its start time.
pub struct ExecPlan {
    _strings: Vec<CString>,
    path: *const libc::c_char,
    argv: Vec<*const libc::c_char>,
    envp: Vec<*const libc::c_char>,
    devnull: OwnedFd,
    stamp_r: OwnedFd,
    stamp_w: OwnedFd,
    actions: Box<libc::posix_spawn_file_actions_t>,
}

impl ExecPlan {
    /// `args` is the whole argv, argv[0] included.
    pub fn new(path: &str, args: &[&str]) -> io::Result<Self> {
        let cs = |s: &str| CString::new(s).map_err(|e: NulError| io::Error::other(e.to_string()));
        let mut strings = vec![cs(path)?];
        for a in args {
            strings.push(cs(a)?);
        }
        strings.push(cs("PATH=/usr/bin:/bin")?);
        let n = strings.len();
        let path_ptr = strings[0].as_ptr();
        let mut argv: Vec<*const libc::c_char> =
            strings[1..n - 1].iter().map(|s| s.as_ptr()).collect();
        argv.push(std::ptr::null());
        let envp = vec![strings[n - 1].as_ptr(), std::ptr::null()];
        // The child moves these to fds 1 and 3; keeping the originals at 10
        // and above means no dup2 in the child can land on one of them.
        let devnull: OwnedFd = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/null")?
            .into();
        let devnull = high_fd(devnull)?;
        let (stamp_r, stamp_w) = super::proc::pipe(true)?;
        let stamp_w = high_fd(stamp_w)?;
        // SAFETY: posix_spawn_file_actions_t is plain data, initialised by
        // posix_spawn_file_actions_init before use and destroyed in Drop.
        let mut actions: Box<libc::posix_spawn_file_actions_t> =
            Box::new(unsafe { std::mem::zeroed() });
        // SAFETY: `actions` is a valid, writable file-actions object.
        let r = unsafe { libc::posix_spawn_file_actions_init(&mut *actions) };
        if r != 0 {
            return Err(io::Error::from_raw_os_error(r));
        }
        for (fd, target) in [(stamp_w.as_raw_fd(), 3), (devnull.as_raw_fd(), 1)] {
            // SAFETY: `actions` was initialised above; fd is open and owned by self.
            let r = unsafe { libc::posix_spawn_file_actions_adddup2(&mut *actions, fd, target) };
            if r != 0 {
                return Err(io::Error::from_raw_os_error(r));
            }
        }
        Ok(ExecPlan {
            _strings: strings,
            path: path_ptr,
            argv,
            envp,
            devnull,
            stamp_r,
            stamp_w,
            actions,
        })
    }

    /// Reads the start time the exec'd program wrote, after it was reaped.
    pub fn read_stamp(&self) -> io::Result<u64> {
        let mut buf = [0u8; 8];
        // SAFETY: buf is 8 writable bytes; the read end is non-blocking, so a
        // child that wrote nothing gives EAGAIN instead of a hang.
        let n = unsafe { libc::read(self.stamp_r.as_raw_fd(), buf.as_mut_ptr().cast(), 8) };
        if n != 8 {
            return Err(if n < 0 {
                io::Error::last_os_error()
            } else {
                io::Error::other("short stamp")
            });
        }
        Ok(u64::from_ne_bytes(buf))
    }

    /// `fork()` then, in the child, redirect and `execve`.
    pub fn fork_exec(&self) -> io::Result<Child> {
        // SAFETY: the child only calls dup2, execve and _exit (async-signal-
        // safe) on data prepared before the fork and owned by self.
        let pid = check(unsafe { libc::fork() })?;
        if pid == 0 {
            // SAFETY: see above; every pointer is live and NUL-terminated.
            unsafe {
                libc::dup2(self.stamp_w.as_raw_fd(), 3);
                libc::dup2(self.devnull.as_raw_fd(), 1);
                libc::execve(self.path, self.argv.as_ptr(), self.envp.as_ptr());
            }
            super::proc::exit_now(127);
        }
        Ok(Child { pid })
    }

    /// `vfork()` then `execve`, the child side kept in C.
    pub fn vfork_exec(&self) -> io::Result<Child> {
        // SAFETY: every pointer passed is live for the call and NUL-terminated;
        // the shim's child only dup2s, execs or _exits.
        let pid = check(unsafe {
            tasklab_vfork_exec(
                self.path,
                self.argv.as_ptr(),
                self.envp.as_ptr(),
                self.stamp_w.as_raw_fd(),
                self.devnull.as_raw_fd(),
            )
        })?;
        Ok(Child { pid })
    }

    /// `posix_spawn()` with the same redirections.
    pub fn posix_spawn(&self) -> io::Result<Child> {
        let mut pid: libc::pid_t = 0;
        // SAFETY: `pid` is writable, the file actions were initialised in new(),
        // argv/envp are NULL-terminated arrays of live C strings.
        let r = unsafe {
            libc::posix_spawn(
                &mut pid,
                self.path,
                &*self.actions,
                std::ptr::null(),
                self.argv.as_ptr() as *const *mut libc::c_char,
                self.envp.as_ptr() as *const *mut libc::c_char,
            )
        };
        if r != 0 {
            return Err(io::Error::from_raw_os_error(r));
        }
        Ok(Child { pid })
    }
}

/// A close-on-exec duplicate of `fd` numbered 10 or higher.
fn high_fd(fd: OwnedFd) -> io::Result<OwnedFd> {
    use std::os::fd::FromRawFd;
    // SAFETY: F_DUPFD_CLOEXEC on a descriptor we own returns a new descriptor
    // that nothing else owns; we take ownership of it at once.
    let n = check(unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 10) })?;
    // SAFETY: n was just returned by fcntl and is owned by no one else.
    Ok(unsafe { OwnedFd::from_raw_fd(n) })
}

impl Drop for ExecPlan {
    fn drop(&mut self) {
        // SAFETY: initialised in new() and destroyed exactly once here.
        unsafe { libc::posix_spawn_file_actions_destroy(&mut *self.actions) };
    }
}

#[cfg(test)]
#[path = "clone_tests.rs"]
mod tests;
