//! `clone3()`, the newer system call behind fork and pthread_create: once as
//! fork (no flags), once as a thread made the way glibc's `pthread_create`
//! makes one (its flags, a stack of its own and a TLS block), without the
//! library's other work (stack cache, guard page, attributes, robust list,
//! rseq registration).

use super::clone::{stamp, stamp_without_tls, Child, Cloned};
use super::mm::{CloneStack, SharedPage};
use std::io;
use std::sync::atomic::Ordering;

#[repr(C)]
#[derive(Default)]
struct CloneArgs {
    flags: u64,
    pidfd: u64,
    child_tid: u64,
    parent_tid: u64,
    exit_signal: u64,
    stack: u64,
    stack_size: u64,
    tls: u64,
}

/// `clone3()` with no flags and `exit_signal = SIGCHLD`: fork through the
/// newer system call.
pub fn clone3_stamp(page: &SharedPage) -> io::Result<Child> {
    let args = CloneArgs {
        exit_signal: libc::SIGCHLD as u64,
        ..Default::default()
    };
    // SAFETY: with no CLONE_VM and no stack, clone3 behaves as fork: the child
    // gets a copy of the address space and returns 0 here, then does only
    // async-signal-safe work (stamp, _exit). `args` is valid for its size.
    let ret = unsafe {
        libc::syscall(
            libc::SYS_clone3,
            &args as *const CloneArgs,
            std::mem::size_of::<CloneArgs>(),
        )
    };
    if ret == -1 {
        return Err(io::Error::last_os_error());
    }
    if ret == 0 {
        stamp(page);
        super::proc::exit_now(0);
    }
    Ok(Child { pid: ret as i32 })
}

/// Whether this kernel has `clone3` (Linux 5.3 and later).
pub fn has_clone3() -> bool {
    // SAFETY: a NULL argument with size 0 is rejected by the kernel (EINVAL)
    // before anything is created; ENOSYS means the call does not exist.
    let r = unsafe { libc::syscall(libc::SYS_clone3, std::ptr::null::<u8>(), 0usize) };
    !(r == -1 && io::Error::last_os_error().raw_os_error() == Some(libc::ENOSYS))
}

/// Whether [`clone3_thread_stamp`] can run here: a kernel with `clone3` on
/// x86-64 (the child's entry is written in x86-64 assembly).
pub fn has_clone3_thread() -> bool {
    cfg!(target_arch = "x86_64") && has_clone3()
}

/// The flags glibc's `pthread_create` passes to `clone3` (sysdeps/unix/sysv/
/// linux/createthread.c), `CLONE_SETTLS` included.
const THREAD_FLAGS: u64 = (libc::CLONE_VM
    | libc::CLONE_FS
    | libc::CLONE_FILES
    | libc::CLONE_SYSVSEM
    | libc::CLONE_SIGHAND
    | libc::CLONE_THREAD
    | libc::CLONE_SETTLS
    | libc::CLONE_PARENT_SETTID
    | libc::CLONE_CHILD_CLEARTID) as u64;

/// A page that stands in for a new thread's TLS block. On x86-64 the thread
/// pointer must point at a word that holds its own address (the TCB's self
/// pointer); the child reads nothing else of it, and the rest stays zero.
pub struct ThreadArea {
    page: SharedPage,
}

impl ThreadArea {
    pub fn new() -> io::Result<ThreadArea> {
        let page = SharedPage::new()?;
        let addr = page.u64_ptr(0) as u64;
        page.u64(0).store(addr, Ordering::Relaxed);
        Ok(ThreadArea { page })
    }

    fn pointer(&self) -> u64 {
        self.page.u64_ptr(0) as u64
    }
}

/// The new thread's entry: stamp the shared page, then return to the
/// assembly that ends the thread.
extern "C" fn thread_child(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: arg is the &SharedPage passed by clone3_thread_stamp, which the
    // caller keeps alive until the thread has exited (Cloned::wait).
    let page = unsafe { &*(arg as *const SharedPage) };
    stamp_without_tls(page);
    0
}

/// A thread made by `clone3` with pthread_create's flags, on `stack` with
/// `tls` as its thread pointer. All signals stay blocked in the new thread,
/// as glibc blocks them around the call, so no handler runs on the stand-in
/// TLS; the caller's mask is restored before returning.
pub fn clone3_thread_stamp<'a>(
    stack: &CloneStack,
    tls: &ThreadArea,
    page: &'a SharedPage,
) -> io::Result<Cloned<'a>> {
    #[cfg(target_arch = "x86_64")]
    {
        let tid_word = page.i32_ptr(1) as u64;
        let (base, size) = stack.span();
        let args = CloneArgs {
            flags: THREAD_FLAGS,
            child_tid: tid_word,
            parent_tid: tid_word,
            stack: base,
            stack_size: size,
            tls: tls.pointer(),
            ..Default::default()
        };
        let old = block_all_signals()?;
        // SAFETY: args is valid for its size; the child starts on `stack`
        // (kept alive and unused by anyone else until wait() returns) with
        // `tls` as its thread pointer, runs thread_child, which touches only
        // the shared page, and leaves with the exit system call inside the
        // assembly, never returning into Rust code on this frame. The kernel
        // writes the tid to tid_word and clears it (with a futex wake) when the
        // thread exits; the page outlives the thread because wait() borrows it.
        let ret = unsafe { spawn_thread(&args, thread_child, page as *const SharedPage as *mut _) };
        restore_signals(&old);
        if ret < 0 {
            return Err(io::Error::from_raw_os_error(-ret as i32));
        }
        Ok(Cloned::Thread(page))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (stack, tls, page);
        Err(io::Error::from_raw_os_error(libc::ENOSYS))
    }
}

/// Issues `clone3(args)`. In the parent it returns the new tid, or a negative
/// errno. The child starts on its new stack, calls `f(arg)` and exits the
/// thread with `f`'s result, never returning.
///
/// # Safety
/// `args` must describe a stack the child may use alone and flags the caller
/// has made safe for `f`; `f` must not unwind.
#[cfg(target_arch = "x86_64")]
unsafe fn spawn_thread(
    args: &CloneArgs,
    f: extern "C" fn(*mut libc::c_void) -> libc::c_int,
    arg: *mut libc::c_void,
) -> i64 {
    let ret: i64;
    // SAFETY: the caller upholds the contract above. r12 and r13 survive the
    // system call in both tasks; the child has a fresh 16-byte-aligned stack
    // (the top of a page-aligned mapping), clears the frame pointer, calls f
    // and leaves with SYS_exit, so it never reaches the code after the block.
    // The parent falls through with rax holding the result; the syscall
    // instruction clobbers rcx and r11.
    unsafe {
        std::arch::asm!(
            "syscall",
            "test rax, rax",
            "jnz 2f",
            "xor ebp, ebp",
            "mov rdi, r13",
            "call r12",
            "mov edi, eax",
            "mov eax, 60",
            "syscall",
            "ud2",
            "2:",
            inlateout("rax") libc::SYS_clone3 => ret,
            in("rdi") args as *const CloneArgs,
            in("rsi") std::mem::size_of::<CloneArgs>(),
            in("r12") f,
            in("r13") arg,
            lateout("rcx") _,
            lateout("r11") _,
            options(nostack),
        );
    }
    ret
}

fn block_all_signals() -> io::Result<libc::sigset_t> {
    // SAFETY: sigset_t is plain data; sigfillset initialises `all`, and
    // pthread_sigmask writes the old mask to `old`, both live and writable.
    unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        let r = libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
        if r != 0 {
            return Err(io::Error::from_raw_os_error(r));
        }
        Ok(old)
    }
}

fn restore_signals(old: &libc::sigset_t) {
    // SAFETY: `old` is the mask pthread_sigmask returned earlier.
    unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, old, std::ptr::null_mut()) };
}
