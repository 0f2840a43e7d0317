//! What `clone` shares: the seed's clone-vm-sample and the sharing probe
//! behind the `CLONE_*` matrix.
//!
//! Children made with raw `clone` here run fixed code that makes only raw
//! system calls (no allocation, no locks, no Rust stdout): with `CLONE_VM`
//! they share the parent's memory and its thread pointer, so anything that
//! takes a lock or touches thread-local state could deadlock or corrupt the
//! parent.

use super::{check, mm::CloneStack, mm::SharedPage};
use std::ffi::{CStr, CString};
use std::io;
use std::sync::atomic::Ordering;

/// The seed's stack size for the clone-vm-sample child.
pub const DEMO_STACK: usize = 65536;
const DEMO_BUF: usize = 100;

/// Writes all of `bytes` to `fd` with the raw system call (async-signal-safe).
fn raw_write_all(fd: libc::c_int, mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: bytes is a live slice; write only reads it.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if n <= 0 {
            return;
        }
        bytes = &bytes[n as usize..];
    }
}

extern "C" fn demo_child(arg: *mut libc::c_void) -> libc::c_int {
    let buf = arg.cast::<u8>();
    // The message is built in a fixed array on the child's own stack: no
    // allocation, no stdout lock (the parent may hold it, and with CLONE_VM
    // the child would be writing the parent's Rust state).
    let mut msg = [0u8; 32 + DEMO_BUF];
    let mut n = 0;
    let mut put = |b: u8| {
        if n < msg.len() {
            msg[n] = b;
            n += 1;
        }
    };
    b"Child sees buf = \"".iter().for_each(|&b| put(b));
    for i in 0..DEMO_BUF {
        // SAFETY: buf points to the parent's DEMO_BUF-byte buffer (or the
        // child's copy of it), which outlives the child: the parent waits.
        let c = unsafe { std::ptr::read_volatile(buf.add(i)) };
        if c == 0 {
            break;
        }
        put(c);
    }
    b"\"\n".iter().for_each(|&b| put(b));
    raw_write_all(1, &msg[..n]);
    let text = b"hello from child\0";
    for (i, &c) in text.iter().enumerate() {
        // SAFETY: as above; the text fits the DEMO_BUF-byte buffer.
        unsafe { std::ptr::write_volatile(buf.add(i), c) };
    }
    0
}

/// The seed's clone-vm-sample: `clone(child_func, stack + 64 KiB, [CLONE_VM|]
/// SIGCHLD, buf)`; the child prints what it sees in `buf` (with a raw write
/// to fd 1) and writes "hello from child" into it. Returns the raw wait
/// status and what `buf` holds in the parent afterwards.
pub fn clone_vm_demo(vm: bool) -> io::Result<(i32, String)> {
    let stack = CloneStack::new(DEMO_STACK)?;
    let mut buf = [0u8; DEMO_BUF];
    buf[..17].copy_from_slice(b"hello from parent");
    let p = buf.as_mut_ptr();
    let flags = if vm { libc::CLONE_VM } else { 0 } | libc::SIGCHLD;
    // SAFETY: the child runs demo_child on its own 64 KiB stack, which lives
    // until the wait below returns; demo_child makes only raw write calls and
    // volatile accesses to `buf`, which also outlives the child. Nothing in
    // the parent reads `buf` until the child has been reaped.
    let pid = check(unsafe { libc::clone(demo_child, stack.top(), flags, p.cast()) })?;
    let status = super::proc::wait_raw(pid)?;
    let bytes: Vec<u8> = (0..DEMO_BUF)
        // SAFETY: p points into `buf`, alive here; the child has exited.
        .map(|i| unsafe { std::ptr::read_volatile(p.add(i)) })
        .take_while(|&c| c != 0)
        .collect();
    drop(stack);
    Ok((status, String::from_utf8_lossy(&bytes).into_owned()))
}

// ------------------------------------------------------------- sharing probe

/// The signal whose disposition the sharing probe changes (and restores).
const PROBE_SIGNAL: libc::c_int = libc::SIGUSR2;
const MEMORY_MARK: u64 = 0xC10E_5EED;

/// What the child of one sharing probe gets: raw pointers to the parent's
/// data, prepared before the clone so the child allocates nothing.
#[repr(C)]
struct ProbeArg {
    memory: *mut u64,
    close_fd: libc::c_int,
    open_path: *const libc::c_char,
    chdir_path: *const libc::c_char,
    page: *const SharedPage,
}

// i32 slots of the shared page the probe child reports in (slot 1 is the
// tid word the kernel clears when a CLONE_THREAD child exits).
const SLOT_TID_WORD: usize = 1;
const SLOT_NEW_FD: usize = 2;
const SLOT_PID: usize = 3;
const SLOT_DONE: usize = 4;

extern "C" fn probe_child(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: arg is the ProbeArg of observe_sharing, which outlives the
    // child (the parent waits for it); every pointer in it is live too.
    let a = unsafe { &*(arg as *const ProbeArg) };
    // SAFETY: as above; the page outlives the child.
    let page = unsafe { &*a.page };
    // Only raw system calls from here on (async-signal-safe, no allocation).
    // SAFETY: a.memory points to the parent's u64 (or the child's copy).
    unsafe { std::ptr::write_volatile(a.memory, MEMORY_MARK) };
    // SAFETY: open_path is a NUL-terminated string alive for the call.
    let fd = unsafe { libc::open(a.open_path, libc::O_RDONLY | libc::O_CLOEXEC) };
    page.i32(SLOT_NEW_FD).store(fd, Ordering::Release);
    // SAFETY: close of the descriptor the parent opened for this purpose.
    unsafe { libc::close(a.close_fd) };
    // SAFETY: chdir_path is a NUL-terminated string alive for the call.
    unsafe { libc::chdir(a.chdir_path) };
    // SAFETY: sigaction with a zeroed struct and SIG_IGN installs no handler
    // code; it only changes the disposition.
    unsafe {
        let mut act: libc::sigaction = std::mem::zeroed();
        act.sa_sigaction = libc::SIG_IGN;
        libc::sigaction(PROBE_SIGNAL, &act, std::ptr::null_mut());
    }
    // SAFETY: getpid has no memory effects (the raw call: no cached pid).
    let pid = unsafe { libc::syscall(libc::SYS_getpid) } as i32;
    page.i32(SLOT_PID).store(pid, Ordering::Release);
    page.i32(SLOT_DONE).store(1, Ordering::Release);
    0
}

/// What the parent saw after a child started with some `CLONE_*` flags
/// changed things: true where the child's change reached the parent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Sharing {
    /// The child's write to a buffer of the parent's.
    pub memory: bool,
    /// A descriptor the child opened is open in the parent.
    pub fd_open: bool,
    /// A descriptor the child closed is closed in the parent.
    pub fd_close: bool,
    /// The child's chdir moved the parent.
    pub cwd: bool,
    /// The child's sigaction changed the parent's disposition.
    pub signal: bool,
    /// The child's getpid() (its thread-group id) equals the parent's.
    pub same_tgid: bool,
}

fn is_open(fd: libc::c_int) -> bool {
    // SAFETY: F_GETFD has no memory effects; EBADF for a closed descriptor.
    fd >= 0 && unsafe { libc::fcntl(fd, libc::F_GETFD) } != -1
}

fn rdev_of(fd: libc::c_int) -> Option<u64> {
    // SAFETY: zeroed stat is valid to overwrite; fstat writes into it.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: st is writable; fd may be closed (then fstat fails).
    (unsafe { libc::fstat(fd, &mut st) } == 0).then_some(st.st_rdev)
}

fn disposition_is_ignore(sig: libc::c_int) -> io::Result<bool> {
    // SAFETY: a NULL new action only queries the current one into `old`.
    let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
    check(unsafe { libc::sigaction(sig, std::ptr::null(), &mut old) })?;
    Ok(old.sa_sigaction == libc::SIG_IGN)
}

/// Starts one child with `share` (some of `CLONE_VM`, `CLONE_FILES`,
/// `CLONE_FS`, `CLONE_SIGHAND`, `CLONE_THREAD`; `SIGCHLD` is added for a
/// process) that writes a buffer, opens a descriptor, closes another, changes
/// directory to `elsewhere` and ignores SIGUSR2; then checks which of these
/// the parent sees. The parent's cwd, descriptors and disposition are
/// restored afterwards.
pub fn observe_sharing(share: libc::c_int, elsewhere: &CStr) -> io::Result<Sharing> {
    let thread = share & libc::CLONE_THREAD != 0;
    let page = SharedPage::new()?;
    for slot in [SLOT_TID_WORD, SLOT_NEW_FD, SLOT_PID, SLOT_DONE] {
        page.i32(slot).store(-1, Ordering::Relaxed);
    }
    let open_path = CString::new("/dev/null").expect("no NUL");
    let dot = CString::new(".").expect("no NUL");
    // SAFETY: open of a NUL-terminated path; the result is checked.
    let cwd_fd = check(unsafe {
        libc::open(
            dot.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    })?;
    let cwd_before = std::env::current_dir()?;
    // SAFETY: as above.
    let close_fd =
        match check(unsafe { libc::open(open_path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) }) {
            Ok(fd) => fd,
            Err(e) => {
                // SAFETY: cwd_fd is ours, closed once.
                unsafe { libc::close(cwd_fd) };
                return Err(e);
            }
        };
    // The probe signal starts at its default disposition; the old one is
    // restored at the end.
    // SAFETY: zeroed sigaction = SIG_DFL, empty mask; `old` receives the
    // current action.
    let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
    let dfl: libc::sigaction = unsafe { std::mem::zeroed() };
    // SAFETY: both structs are valid; no handler code is installed.
    unsafe { libc::sigaction(PROBE_SIGNAL, &dfl, &mut old) };

    let mut memory: u64 = 0;
    let memory_ptr: *mut u64 = &mut memory;
    let arg = ProbeArg {
        memory: memory_ptr,
        close_fd,
        open_path: open_path.as_ptr(),
        chdir_path: elsewhere.as_ptr(),
        page: &page,
    };
    let result = (|| {
        let stack = CloneStack::new(64 << 10)?;
        let tid_word = page.i32(SLOT_TID_WORD).as_ptr();
        let flags = if thread {
            share | libc::CLONE_PARENT_SETTID | libc::CLONE_CHILD_CLEARTID
        } else {
            share | libc::SIGCHLD
        };
        // SAFETY: probe_child runs on its own stack, alive until the child is
        // waited for below; it makes raw system calls and writes only
        // `memory` (through a raw pointer, not read until the child is gone)
        // and atomics in the shared page. For a CLONE_THREAD child the kernel
        // writes its tid into tid_word and clears it at exit, after which the
        // stack is no longer used.
        let ret = unsafe {
            libc::clone(
                probe_child,
                stack.top(),
                flags,
                &arg as *const ProbeArg as *mut libc::c_void,
                tid_word,
                std::ptr::null_mut::<libc::c_void>(),
                tid_word,
            )
        };
        let pid = check(ret)?;
        if thread {
            wait_tid_word(&page);
        } else {
            super::proc::wait_raw(pid)?;
        }
        drop(stack);
        if page.i32(SLOT_DONE).load(Ordering::Acquire) != 1 {
            return Err(io::Error::other("the probe child did not finish"));
        }
        let new_fd = page.i32(SLOT_NEW_FD).load(Ordering::Acquire);
        let null_rdev = rdev_of(close_fd).or_else(|| {
            std::fs::metadata("/dev/null")
                .ok()
                .map(|m| std::os::unix::fs::MetadataExt::rdev(&m))
        });
        let fd_open = is_open(new_fd) && rdev_of(new_fd) == null_rdev;
        // SAFETY: getpid has no memory effects.
        let my_pid = unsafe { libc::getpid() };
        let seen = Sharing {
            // SAFETY: memory_ptr points to `memory`, alive; the child is gone.
            memory: unsafe { std::ptr::read_volatile(memory_ptr) } == MEMORY_MARK,
            fd_open,
            fd_close: !is_open(close_fd),
            cwd: std::env::current_dir()? != cwd_before,
            signal: disposition_is_ignore(PROBE_SIGNAL)?,
            same_tgid: page.i32(SLOT_PID).load(Ordering::Acquire) == my_pid,
        };
        if seen.fd_open {
            // SAFETY: the child's descriptor landed in our table; we own it now.
            unsafe { libc::close(new_fd) };
        }
        Ok(seen)
    })();
    // Put everything back whatever happened. close_fd is closed only while
    // it is still ours: once the child closed it in a shared table, its
    // number may already belong to someone else.
    let still_ours = match &result {
        Ok(seen) => !seen.fd_close,
        Err(_) => {
            share & libc::CLONE_FILES == 0 || page.i32(SLOT_DONE).load(Ordering::Acquire) != 1
        }
    };
    // SAFETY: fchdir/close on descriptors we own; sigaction restores the
    // action saved above.
    unsafe {
        libc::fchdir(cwd_fd);
        libc::close(cwd_fd);
        if still_ours {
            libc::close(close_fd);
        }
        libc::sigaction(PROBE_SIGNAL, &old, std::ptr::null_mut());
    }
    result
}

/// Waits until the kernel clears the tid word of a `CLONE_THREAD` child.
fn wait_tid_word(page: &SharedPage) {
    let word = page.i32(SLOT_TID_WORD);
    loop {
        let v = word.load(Ordering::Acquire);
        if v == 0 {
            return;
        }
        // SAFETY: the word lives in the shared page, alive for the call;
        // FUTEX_WAIT only reads it and returns at once if it changed.
        unsafe {
            libc::syscall(
                libc::SYS_futex,
                word.as_ptr(),
                libc::FUTEX_WAIT,
                v,
                std::ptr::null::<libc::timespec>(),
            )
        };
    }
}
