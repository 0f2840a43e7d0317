//! userfaultfd's `UFFDIO_MOVE` (Linux 6.8): an anonymous page moved to
//! another address of the same process without copying it, its physical
//! frame kept. Used to lay a heap's frames out on purpose: a heap on
//! frames in a row, its pages then moved within small windows, has each
//! page's frame near the page before's without being next to it.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

// The kernel's ABI (include/uapi/linux/userfaultfd.h; the libc crate and
// older system headers have none of it).
const UFFD_API: u64 = 0xAA;
const UFFD_FEATURE_MOVE: u64 = 1 << 16;
const UFFDIO_REGISTER_MODE_MISSING: u64 = 1;
const UFFDIO_API: libc::c_ulong = 0xC018_AA3F;
const UFFDIO_REGISTER: libc::c_ulong = 0xC020_AA00;
const UFFDIO_UNREGISTER: libc::c_ulong = 0x8010_AA01;
const UFFDIO_MOVE: libc::c_ulong = 0xC028_AA05;

#[repr(C)]
struct Api {
    api: u64,
    features: u64,
    ioctls: u64,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Span {
    start: u64,
    len: u64,
}

#[repr(C)]
struct Register {
    range: Span,
    mode: u64,
    ioctls: u64,
}

#[repr(C)]
struct Move {
    dst: u64,
    src: u64,
    len: u64,
    mode: u64,
    moved: i64,
}

/// A userfaultfd with `UFFD_FEATURE_MOVE`, and the ranges registered with
/// it (unregistered on drop, before the descriptor closes): a range is
/// registered only while pages are moved into it, never while the process
/// forks.
pub(super) struct Fd {
    fd: OwnedFd,
    registered: Vec<Span>,
}

impl Fd {
    pub(super) fn open() -> io::Result<Fd> {
        // SAFETY: userfaultfd takes only flags and returns a new descriptor
        // or -1; nothing of ours is touched.
        let r = unsafe { libc::syscall(libc::SYS_userfaultfd, libc::O_CLOEXEC | libc::O_NONBLOCK) };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: r is a descriptor just returned to us, owned by nothing else.
        let fd = unsafe { OwnedFd::from_raw_fd(r as libc::c_int) };
        let mut api = Api {
            api: UFFD_API,
            features: UFFD_FEATURE_MOVE,
            ioctls: 0,
        };
        // SAFETY: UFFDIO_API reads and writes the struct it is given, which
        // lives for the call and has the kernel's layout.
        let r = unsafe { libc::ioctl(fd.as_raw_fd(), UFFDIO_API, &mut api as *mut Api) };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Fd {
            fd,
            registered: Vec::new(),
        })
    }

    pub(super) fn register(&mut self, start: usize, len: usize) -> io::Result<()> {
        let mut reg = Register {
            range: Span {
                start: start as u64,
                len: len as u64,
            },
            mode: UFFDIO_REGISTER_MODE_MISSING,
            ioctls: 0,
        };
        // SAFETY: the struct lives for the call and has the kernel's
        // layout; registering a range only changes how its missing pages
        // are faulted (reported to this descriptor, which no one reads:
        // nothing touches the range until it is unregistered).
        let r = unsafe {
            libc::ioctl(
                self.fd.as_raw_fd(),
                UFFDIO_REGISTER,
                &mut reg as *mut Register,
            )
        };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        self.registered.push(reg.range);
        Ok(())
    }

    /// Moves `len` bytes of pages from `src` to `dst` (both registered
    /// here, `dst` empty).
    pub(super) fn move_pages(&self, dst: usize, src: usize, len: usize) -> io::Result<()> {
        let mut m = Move {
            dst: dst as u64,
            src: src as u64,
            len: len as u64,
            mode: 0,
            moved: 0,
        };
        // SAFETY: the struct lives for the call and has the kernel's
        // layout. The kernel checks that both ranges lie in anonymous
        // private mappings of this process registered with this descriptor
        // and that dst has no page yet; no Rust reference points into
        // either (the heap is written only through raw pointers), so a page
        // changing address is sound.
        let r = unsafe { libc::ioctl(self.fd.as_raw_fd(), UFFDIO_MOVE, &mut m as *mut Move) };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        if m.moved != len as i64 {
            return Err(io::Error::other(format!(
                "UFFDIO_MOVE moved {} of {len} bytes",
                m.moved
            )));
        }
        Ok(())
    }
}

impl Fd {
    /// Unregisters the range registered as `start`, `len` (it must be one
    /// [`Fd::register`] was given).
    pub(super) fn unregister(&mut self, start: usize, len: usize) -> io::Result<()> {
        let at = self
            .registered
            .iter()
            .position(|s| s.start == start as u64 && s.len == len as u64)
            .ok_or_else(|| io::Error::from_raw_os_error(libc::EINVAL))?;
        let mut span = self.registered.remove(at);
        // SAFETY: the range was registered with this descriptor; the
        // struct lives for the call and has the kernel's layout.
        let r = unsafe {
            libc::ioctl(
                self.fd.as_raw_fd(),
                UFFDIO_UNREGISTER,
                &mut span as *mut Span,
            )
        };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

impl Drop for Fd {
    fn drop(&mut self) {
        for span in self.registered.drain(..) {
            let mut s = span;
            // SAFETY: the range was registered with this descriptor; the
            // struct lives for the call.
            unsafe { libc::ioctl(self.fd.as_raw_fd(), UFFDIO_UNREGISTER, &mut s as *mut Span) };
        }
    }
}

/// Moves the `pages` pages of `page` bytes from `start` (page-aligned, all present, private
/// anonymous, aliased by no Rust reference) within aligned windows of
/// `window` pages: each window's pages moved whole to `scratch` (an empty
/// private anonymous mapping of `window` pages at least, as writable),
/// then each back to a place in the window by a shuffle (`seed`). The
/// pages keep their frames, so each page's frame lies within `window`
/// frames of the page before's where the heap's frames were in a row, next
/// to it only by chance. Needs root or `vm.unprivileged_userfaultfd` and
/// Linux 6.8 or later (`UFFD_FEATURE_MOVE`).
pub(super) fn permute_within(
    start: usize,
    pages: usize,
    page: usize,
    scratch: usize,
    window: usize,
    seed: u64,
) -> io::Result<()> {
    if pages == 0 || window < 2 {
        return Ok(());
    }
    let window = window.min(pages);
    let mut fd = Fd::open()?;
    fd.register(start, pages * page)?;
    fd.register(scratch, window * page)?;
    let mut x = seed | 1;
    let mut order: Vec<usize> = Vec::with_capacity(window);
    for first in (0..pages).step_by(window) {
        let n = window.min(pages - first);
        fd.move_pages(scratch, start + first * page, n * page)?;
        order.clear();
        order.extend(0..n);
        for i in (1..n).rev() {
            // xorshift64, as the shuffled refault's.
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            order.swap(i, (x % (i as u64 + 1)) as usize);
        }
        for (i, &from) in order.iter().enumerate() {
            fd.move_pages(start + (first + i) * page, scratch + from * page, page)?;
        }
    }
    drop(fd);
    Ok(())
}
