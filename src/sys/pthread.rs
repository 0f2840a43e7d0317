//! POSIX threads with a chosen stack size (`pthread_attr_setstacksize`)
//! running a Rust closure, and the stack sizes glibc gives threads.

use std::io;

type Body = Box<dyn FnOnce() + Send + 'static>;

/// A thread made with `pthread_create`, to be joined.
#[must_use = "a thread must be joined"]
pub struct RawThread {
    id: libc::pthread_t,
}

extern "C" fn trampoline(arg: *mut libc::c_void) -> *mut libc::c_void {
    // SAFETY: arg is the Box<Body> leaked by spawn_pthread for this thread
    // alone; it is reclaimed exactly once, here.
    let body = unsafe { Box::from_raw(arg.cast::<Body>()) };
    // A panic must not unwind into C: it ends this thread quietly.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body));
    std::ptr::null_mut()
}

/// `pthread_create` running `body`, with the default attributes or with
/// `pthread_attr_setstacksize(stack_size)`.
pub fn spawn_pthread(stack_size: Option<usize>, body: Body) -> io::Result<RawThread> {
    let arg = Box::into_raw(Box::new(body));
    // SAFETY: zeroed pthread_attr_t is overwritten by pthread_attr_init.
    let mut attr: libc::pthread_attr_t = unsafe { std::mem::zeroed() };
    let mut id: libc::pthread_t = 0;
    // SAFETY: attr is initialised before use and destroyed once; `id` is
    // writable; on success the thread owns `arg`, on failure we reclaim it.
    let r = unsafe {
        let use_attr = stack_size.is_some();
        let mut r = 0;
        if let Some(size) = stack_size {
            libc::pthread_attr_init(&mut attr);
            r = libc::pthread_attr_setstacksize(&mut attr, size);
        }
        if r == 0 {
            r = libc::pthread_create(
                &mut id,
                if use_attr { &attr } else { std::ptr::null() },
                trampoline,
                arg.cast(),
            );
        }
        if use_attr {
            libc::pthread_attr_destroy(&mut attr);
        }
        r
    };
    if r != 0 {
        // SAFETY: the thread was not created, so `arg` is still ours.
        drop(unsafe { Box::from_raw(arg) });
        return Err(io::Error::from_raw_os_error(r));
    }
    Ok(RawThread { id })
}

impl RawThread {
    pub fn join(self) -> io::Result<()> {
        // SAFETY: id came from a successful pthread_create; joined once.
        let r = unsafe { libc::pthread_join(self.id, std::ptr::null_mut()) };
        if r != 0 {
            return Err(io::Error::from_raw_os_error(r));
        }
        Ok(())
    }
}

extern "C" {
    // glibc 2.18+: the attributes a thread created with NULL attributes gets.
    fn pthread_getattr_default_np(attr: *mut libc::pthread_attr_t) -> libc::c_int;
}

/// The stack size glibc gives a thread created with default attributes
/// (RLIMIT_STACK at program start, usually 8 MiB).
pub fn default_thread_stack() -> io::Result<usize> {
    // SAFETY: the attr is filled by pthread_getattr_default_np, read, then
    // destroyed once; `size` is writable.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        let r = pthread_getattr_default_np(&mut attr);
        if r != 0 {
            return Err(io::Error::from_raw_os_error(r));
        }
        let mut size: libc::size_t = 0;
        let r = libc::pthread_attr_getstacksize(&attr, &mut size);
        libc::pthread_attr_destroy(&mut attr);
        if r != 0 {
            return Err(io::Error::from_raw_os_error(r));
        }
        Ok(size)
    }
}

/// The smallest stack `pthread_attr_setstacksize` accepts.
pub fn min_thread_stack() -> usize {
    // SAFETY: sysconf has no memory effects.
    let v = unsafe { libc::sysconf(libc::_SC_THREAD_STACK_MIN) };
    if v > 0 {
        v as usize
    } else {
        16384
    }
}
