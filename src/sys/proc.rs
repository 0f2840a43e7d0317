//! Processes as a whole: affinity, where a task runs, resource usage, limits,
//! signals and reaping.

use super::check;
use std::io;
use std::os::fd::{FromRawFd, OwnedFd};

/// The CPUs this process may run on (its affinity mask).
pub fn allowed_cpus() -> io::Result<Vec<usize>> {
    // SAFETY: cpu_set_t is plain data; zeroed is its empty state.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a valid, writable cpu_set_t of the size passed.
    check(unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) })?;
    Ok((0..libc::CPU_SETSIZE as usize)
        // SAFETY: i < CPU_SETSIZE, the bound CPU_ISSET requires.
        .filter(|&i| unsafe { libc::CPU_ISSET(i, &set) })
        .collect())
}

/// Pins the calling thread (and what it creates afterwards) to `cpus`.
pub fn pin_current_thread(cpus: &[usize]) -> io::Result<()> {
    // SAFETY: cpu_set_t is plain data; zeroed is its empty state.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in cpus {
        if c >= libc::CPU_SETSIZE as usize {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        // SAFETY: c < CPU_SETSIZE, checked above.
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    // SAFETY: `set` is a valid cpu_set_t of the size passed; pid 0 is this thread.
    check(unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) })?;
    Ok(())
}

/// The CPU the calling thread is running on now.
#[inline(always)]
pub fn current_cpu() -> i32 {
    // SAFETY: sched_getcpu takes no arguments; it returns -1 where unsupported.
    unsafe { libc::sched_getcpu() }
}

/// The CPU the calling task is running on, asked of the kernel through the
/// `getcpu` system call. Right in a child that shares its parent's memory
/// without a TLS block of its own (`CLONE_VM` without `CLONE_SETTLS`, vfork):
/// glibc's `sched_getcpu` reads the rseq area through the thread pointer, and
/// such a child would read its parent's CPU there.
#[inline(always)]
pub fn current_cpu_syscall() -> i32 {
    let mut cpu: libc::c_uint = 0;
    // SAFETY: getcpu writes one unsigned int to `cpu`, which is live and
    // writable; the node and cache arguments may be NULL.
    let r = unsafe {
        libc::syscall(
            libc::SYS_getcpu,
            &mut cpu as *mut libc::c_uint,
            std::ptr::null_mut::<libc::c_uint>(),
            std::ptr::null_mut::<libc::c_void>(),
        )
    };
    if r == 0 {
        cpu as i32
    } else {
        -1
    }
}

/// Voluntary and involuntary context switches so far, of this thread or of the
/// whole process.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Switches {
    pub voluntary: u64,
    pub involuntary: u64,
}

fn rusage(who: libc::c_int) -> io::Result<libc::rusage> {
    // SAFETY: rusage is plain data; zeroed is a valid value to overwrite.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid, writable rusage.
    check(unsafe { libc::getrusage(who, &mut ru) })?;
    Ok(ru)
}

pub fn switches(whole_process: bool) -> io::Result<Switches> {
    let ru = rusage(if whole_process {
        libc::RUSAGE_SELF
    } else {
        libc::RUSAGE_THREAD
    })?;
    Ok(Switches {
        voluntary: ru.ru_nvcsw as u64,
        involuntary: ru.ru_nivcsw as u64,
    })
}

/// Peak resident set size of this process in KiB (`ru_maxrss`).
pub fn max_rss_kib() -> io::Result<u64> {
    Ok(rusage(libc::RUSAGE_SELF)?.ru_maxrss as u64)
}

/// A resource limit: (soft, hard), `None` meaning unlimited.
pub fn rlimit(resource: Resource) -> io::Result<(Option<u64>, Option<u64>)> {
    let res = match resource {
        Resource::Nproc => libc::RLIMIT_NPROC,
        Resource::Stack => libc::RLIMIT_STACK,
        Resource::AddressSpace => libc::RLIMIT_AS,
        Resource::Nofile => libc::RLIMIT_NOFILE,
    };
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `lim` is a valid, writable rlimit.
    check(unsafe { libc::getrlimit(res, &mut lim) })?;
    #[allow(clippy::unnecessary_cast)] // rlim_t is not u64 on every target
    let conv = |v: libc::rlim_t| (v != libc::RLIM_INFINITY).then_some(v as u64);
    Ok((conv(lim.rlim_cur), conv(lim.rlim_max)))
}

#[derive(Clone, Copy, Debug)]
pub enum Resource {
    Nproc,
    Stack,
    AddressSpace,
    Nofile,
}

/// Sends `sig` to every process in group `pgid`. A group that is already gone
/// is not an error.
pub fn kill_group(pgid: i32, sig: i32) -> io::Result<()> {
    if pgid <= 1 {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    // SAFETY: kill has no memory effects; a negative pid names a process group,
    // and pgid > 1 keeps us from signalling "every process" (-1).
    match check(unsafe { libc::kill(-pgid, sig) }) {
        Err(e) if e.raw_os_error() == Some(libc::ESRCH) => Ok(()),
        r => r.map(drop),
    }
}

pub const SIGKILL: i32 = libc::SIGKILL;

/// Asks the kernel to SIGKILL this process when its parent dies, so a worker
/// never outlives a tasklab that was itself killed. Returns an error when the
/// parent is already gone (the worker should then exit).
pub fn die_with_parent(expected_parent: i32) -> io::Result<()> {
    // SAFETY: PR_SET_PDEATHSIG takes a signal number and has no memory effects.
    check(unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) })?;
    // SAFETY: getppid cannot fail.
    if unsafe { libc::getppid() } != expected_parent {
        return Err(io::Error::other("parent exited before the worker started"));
    }
    Ok(())
}

/// The child side of a fork, right after it: asks for SIGKILL when the
/// parent dies, and says whether `parent` (the forking process's pid, read
/// before the fork) is still its parent, that is, did not die before the
/// request took hold. Two system calls and nothing else: async-signal-safe,
/// so a child forked from a threaded process may call it. A child told
/// `false` must `_exit` at once.
///
/// The signal comes when the *thread* that forked exits, not only its
/// process: fork from a thread that outlives the child.
#[inline(always)]
pub(crate) fn child_dies_with_parent(parent: i32) -> bool {
    // SAFETY: prctl(PR_SET_PDEATHSIG) takes a signal number and getppid takes
    // nothing; both are plain system calls with no memory effects.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) == 0
            && libc::getppid() == parent
    }
}

/// Makes the process `cmd` starts die with this one: between its fork and
/// its exec the child asks for SIGKILL at its parent's death (the request
/// survives `execve` of a program that is not set-user-ID), and refuses to
/// start, with ESRCH, if this process died first. Spawn from a thread that
/// outlives the child: the kernel sends the signal when the spawning thread
/// exits.
pub fn kill_with_parent(cmd: &mut std::process::Command) -> &mut std::process::Command {
    use std::os::unix::process::CommandExt;
    let parent = std::process::id() as i32;
    // SAFETY: the closure runs in the forked child before exec; it makes two
    // async-signal-safe system calls and builds an io::Error from a raw
    // errno, which does not allocate. It touches no lock and no heap.
    unsafe {
        cmd.pre_exec(move || {
            if child_dies_with_parent(parent) {
                Ok(())
            } else {
                Err(io::Error::from_raw_os_error(libc::ESRCH))
            }
        })
    }
}

/// The parent's pid.
pub fn parent_pid() -> i32 {
    // SAFETY: getppid cannot fail.
    unsafe { libc::getppid() }
}

/// How a reaped child ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    Code(i32),
    Signal(i32),
}

/// `waitpid(pid, &status, __WALL)` restarting on EINTR; the raw status.
pub(crate) fn wait_raw(pid: i32) -> io::Result<i32> {
    let mut status = 0;
    loop {
        // SAFETY: `status` is a valid, writable int.
        let r = unsafe { libc::waitpid(pid, &mut status, libc::__WALL) };
        if r == -1 {
            let e = io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::EINTR) {
                continue;
            }
            return Err(e);
        }
        return Ok(status);
    }
}

/// Waits for child `pid` (restarting on EINTR) and says how it ended.
pub fn wait_pid(pid: i32) -> io::Result<Exit> {
    let status = wait_raw(pid)?;
    Ok(if libc::WIFSIGNALED(status) {
        Exit::Signal(libc::WTERMSIG(status))
    } else {
        Exit::Code(libc::WEXITSTATUS(status))
    })
}

/// A pipe whose ends are close-on-exec; `nonblocking_read` makes the read end
/// non-blocking so a missing message is an error, not a hang.
pub fn pipe(nonblocking_read: bool) -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    check(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) })?;
    // SAFETY: pipe2 just returned these two descriptors; we own them from here.
    let (r, w) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    if nonblocking_read {
        use std::os::fd::AsRawFd;
        // SAFETY: fcntl on a descriptor we own; F_SETFL has no memory effects.
        check(unsafe { libc::fcntl(r.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK) })?;
    }
    Ok((r, w))
}

/// Exits the calling process at once, without running destructors or atexit
/// handlers: what a forked child must do.
pub fn exit_now(code: i32) -> ! {
    // SAFETY: _exit never returns and is async-signal-safe.
    unsafe { libc::_exit(code) }
}

/// Kernel release string (`uname -r`) and machine.
pub fn uname() -> (String, String) {
    // SAFETY: utsname is plain data; zeroed is valid to overwrite.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: `u` is a valid, writable utsname.
    if unsafe { libc::uname(&mut u) } != 0 {
        return ("unknown".into(), "unknown".into());
    }
    let s = |f: &[libc::c_char]| {
        let bytes: Vec<u8> = f
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    (s(&u.release), s(&u.machine))
}

/// Restores the default SIGPIPE action, so `tasklab list | head` ends quietly
/// like any Unix tool instead of reporting a broken pipe.
pub fn default_sigpipe() {
    // SAFETY: setting a standard signal to SIG_DFL installs no handler code.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
}

/// Ignores SIGPIPE: a write to a pipe whose reader has gone then fails with
/// EPIPE instead of killing the process, so a run can stop cleanly (remove
/// its scratch folder, keep its results).
pub fn ignore_sigpipe() {
    // SAFETY: setting a standard signal to SIG_IGN installs no handler code.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
}

pub const SIGPIPE: i32 = libc::SIGPIPE;

/// The name of signal `sig` ("SIGTERM"), or "signal" for one without a
/// name here.
pub fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        libc::SIGHUP => "SIGHUP",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGKILL => "SIGKILL",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        _ => "signal",
    }
}

/// Whether this process may write the file `path` (access(2) with W_OK,
/// by the real ids; tasklab is never set-user-ID, so they are the
/// effective ones too). False for a path that is not valid C.
pub fn may_write(path: &std::path::Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c` is a valid NUL-terminated string that outlives the call.
    unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
}

/// The effective user id.
pub fn effective_uid() -> u32 {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() }
}

/// The hypervisor's vendor string from CPUID leaf 0x40000000 ("KVMKVMKVM",
/// "Microsoft Hv", ...), when the CPU says it runs under one.
pub fn hypervisor_vendor() -> Option<String> {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::__cpuid;
        // CPUID exists on every x86_64 CPU (a safe intrinsic); leaf 1 is always valid.
        let leaf1 = __cpuid(1);
        if leaf1.ecx & (1 << 31) == 0 {
            return None; // the "hypervisor present" bit is clear
        }
        // With the hypervisor bit set, leaf 0x40000000 is defined.
        let l = __cpuid(0x4000_0000);
        let bytes: Vec<u8> = [l.ebx, l.ecx, l.edx]
            .iter()
            .flat_map(|r| r.to_le_bytes())
            .collect();
        let s = String::from_utf8_lossy(&bytes)
            .trim_matches(char::from(0))
            .trim()
            .to_string();
        (!s.is_empty()).then_some(s)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        None
    }
}

/// How many threads this process has now (`Threads:` in /proc/self/status).
pub fn thread_count() -> io::Result<usize> {
    super::procfs::status_count("Threads")
        .map(|n| n as usize)
        .ok_or_else(|| io::Error::other("no Threads: line in /proc/self/status"))
}

/// The exit status of a forked child whose parent died before it started.
pub const ORPHANED: i32 = 125;

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
    let parent = std::process::id() as i32;
    // SAFETY: the process is single-threaded (checked above), so the child is
    // an exact copy in which every lock is free and the allocator is
    // consistent; the child never returns from this function (exit_now).
    let pid = check(unsafe { libc::fork() })?;
    if pid == 0 {
        // A partner blocked on a pipe or a futex would wait forever for a
        // parent that was killed: it dies with it instead.
        if !child_dies_with_parent(parent) {
            super::proc::exit_now(ORPHANED);
        }
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

/// The effective user id is 0: RLIMIT_NPROC is not enforced for root.
pub fn is_root() -> bool {
    effective_uid() == 0
}

/// Whose CPU time [`cpu_ns`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpuOf {
    /// Every thread of this process, exited ones too, plus its reaped
    /// children: a creation series' whole bill, both sides. Over a timed
    /// window, its growth divided by the wall time is how many CPUs' worth
    /// of time the scheduler actually granted.
    ProcessAndChildren,
    /// This process's reaped children alone (its workers).
    Children,
    /// The calling thread alone: one side of a hand-off.
    Thread,
}

/// CPU time so far, user and system together, ns (getrusage for a process
/// and its children: the sum is exact to the µs; the split follows tick
/// samples, which count a task that took no tick as all user time, so it is
/// not read; the calling thread's own CPU clock for [`CpuOf::Thread`]).
pub fn cpu_ns(of: CpuOf) -> io::Result<u64> {
    let whos: &[libc::c_int] = match of {
        CpuOf::ProcessAndChildren => &[libc::RUSAGE_SELF, libc::RUSAGE_CHILDREN],
        CpuOf::Children => &[libc::RUSAGE_CHILDREN],
        // The thread's own clock: up to date at the call, where
        // RUSAGE_THREAD of a thread that never sleeps lags by up to a
        // tick (a short window under load could read no time at all).
        CpuOf::Thread => return Ok(super::clock::thread_cpu_ns()),
    };
    let mut total = 0u64;
    for &who in whos {
        let ru = rusage(who)?;
        for tv in [ru.ru_utime, ru.ru_stime] {
            total += tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1_000;
        }
    }
    Ok(total)
}

/// Minor page faults so far of this process's threads plus its reaped
/// children (`ru_minflt`).
pub fn minor_faults() -> io::Result<u64> {
    Ok(rusage(libc::RUSAGE_SELF)?.ru_minflt as u64
        + rusage(libc::RUSAGE_CHILDREN)?.ru_minflt as u64)
}

/// Minor page faults this process itself has taken so far (reaped
/// children not counted) (`ru_minflt`): faults
/// served without I/O, a copy-on-write copy among them.
pub fn own_minor_faults() -> io::Result<u64> {
    Ok(rusage(libc::RUSAGE_SELF)?.ru_minflt as u64)
}

#[cfg(test)]
#[path = "proc_tests.rs"]
mod tests;
