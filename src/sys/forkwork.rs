//! Fork as a cheap way to parallelise (seed 003, "Linux Fu: An Odd Use For
//! Fork()"): a buffer of doubles that can sit on transparent huge pages, the
//! seed's summing loop, and forked children that sum a slice of inherited
//! memory or play one "report" to a slow sink; and a child held alive on a
//! pipe while the parent writes (spawn.cow's copy-on-write).
//!
//! As everywhere in `sys`, the child side of a fork is fixed here and takes no
//! caller closure: the worker may have threads (a rayon pool, scoped
//! threads), and after `fork` in a threaded process only async-signal-safe
//! work is sound. Every child here only computes on memory it inherited, reads
//! the clock, calls `write(2)` / `clock_nanosleep(2)`, then `_exit`s.
//!
//! A child that works for a while (a sum, a report to a slow sink) first asks
//! to be killed with its parent, so a worker killed mid-run leaves none
//! behind; one that exits at once ([`fork_exit`]) needs no such request, and
//! makes none, so the bare cost it measures stays bare.

use super::proc::{child_dies_with_parent, exit_now, ORPHANED};
use super::{check, clock::monotonic_ns, clone::Child, mm::map_anonymous, mm::Thp};
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};
use std::ptr::NonNull;

const HUGE: usize = 2 << 20;

/// `len` doubles in a private anonymous mapping that starts on a 2 MiB
/// boundary, so the kernel can back it with huge pages when asked. Pages are
/// not touched: the first write (the fill) faults them in, as the seed's
/// static array was faulted in by its fill loop. Unmapped on drop.
pub struct F64Buf {
    map: NonNull<u8>,
    map_len: usize,
    data: NonNull<f64>,
    len: usize,
}

// SAFETY: F64Buf owns its mapping exclusively, like a Vec<f64>; shared access
// is only through &[f64] and mutation only through &mut self.
unsafe impl Send for F64Buf {}
// SAFETY: see Send: &F64Buf hands out only &[f64].
unsafe impl Sync for F64Buf {}

impl F64Buf {
    pub fn new(len: usize, thp: Thp) -> io::Result<F64Buf> {
        let bytes = len
            .checked_mul(8)
            .and_then(|b| b.checked_add(HUGE))
            .ok_or_else(|| io::Error::from_raw_os_error(libc::ENOMEM))?;
        let map = map_anonymous(bytes, libc::MAP_PRIVATE | libc::MAP_NORESERVE)?;
        let start = (map.as_ptr() as usize + HUGE - 1) & !(HUGE - 1);
        let buf = F64Buf {
            map,
            map_len: bytes,
            data: NonNull::new(start as *mut f64).expect("aligned address is not null"),
            len,
        };
        let advice = match thp {
            Thp::On => Some(libc::MADV_HUGEPAGE),
            Thp::Off => Some(libc::MADV_NOHUGEPAGE),
            Thp::Default => None,
        };
        if let (Some(advice), true) = (advice, len > 0) {
            // SAFETY: [start, start + len*8) lies inside the mapping made above
            // (it has HUGE bytes of slack for the alignment); madvise changes
            // only how the kernel backs it. The advice is a hint: a kernel
            // built without THP refuses it (EINVAL) and the buffer simply
            // stays on 4 KiB pages, which the caller sees in AnonHugePages.
            unsafe { libc::madvise(start as *mut libc::c_void, len * 8, advice) };
        }
        Ok(buf)
    }

    pub fn as_slice(&self) -> &[f64] {
        // SAFETY: data is 8-aligned (2 MiB aligned), points at len*8 readable
        // bytes of our mapping, zero-filled or written as f64 (every bit
        // pattern is a valid f64), and lives as long as &self.
        unsafe { std::slice::from_raw_parts(self.data.as_ptr(), self.len) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [f64] {
        // SAFETY: as for as_slice, and &mut self guarantees exclusive access.
        unsafe { std::slice::from_raw_parts_mut(self.data.as_ptr(), self.len) }
    }
}

impl Drop for F64Buf {
    fn drop(&mut self) {
        // SAFETY: map/map_len are exactly what mmap returned, unmapped once; no
        // slice borrowed from self can outlive it.
        unsafe { libc::munmap(self.map.as_ptr().cast(), self.map_len) };
    }
}

/// The seed's loop: one accumulator, front to back (`total += a[i]`). Every
/// variant (serial, forked, threads, pool) runs exactly this on its slice, so
/// they differ only in how the work is split.
#[inline(never)]
pub fn seed_sum(xs: &[f64]) -> f64 {
    let mut total = 0.0;
    for &x in xs {
        total += x;
    }
    total
}

/// What a summing child sends back through its pipe.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SumReport {
    /// The sum of its slice (its first pass).
    pub sum: f64,
    /// CLOCK_MONOTONIC at the child's first instruction.
    pub start_ns: u64,
    /// The first pass over the inherited slice (timed from after the
    /// child's request to die with its parent).
    pub first_pass_ns: u64,
    /// A second pass over the same slice (0 when not asked for).
    pub second_pass_ns: u64,
}

const REPORT_BYTES: usize = 32;

impl SumReport {
    fn to_bytes(self) -> [u8; REPORT_BYTES] {
        let mut b = [0u8; REPORT_BYTES];
        b[0..8].copy_from_slice(&self.sum.to_ne_bytes());
        b[8..16].copy_from_slice(&self.start_ns.to_ne_bytes());
        b[16..24].copy_from_slice(&self.first_pass_ns.to_ne_bytes());
        b[24..32].copy_from_slice(&self.second_pass_ns.to_ne_bytes());
        b
    }

    fn from_bytes(b: &[u8; REPORT_BYTES]) -> SumReport {
        let w = |i: usize| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&b[i..i + 8]);
            a
        };
        SumReport {
            sum: f64::from_ne_bytes(w(0)),
            start_ns: u64::from_ne_bytes(w(8)),
            first_pass_ns: u64::from_ne_bytes(w(16)),
            second_pass_ns: u64::from_ne_bytes(w(24)),
        }
    }
}

/// A forked child summing a slice; collect() reads its report and reaps it.
#[must_use = "a forked child must be collected (read and reaped)"]
pub struct ForkedSum {
    child: Child,
    read: OwnedFd,
}

/// Writes all of `buf` to `fd` with write(2), retrying on EINTR and short
/// writes. Async-signal-safe: usable in a forked child.
fn write_all_raw(fd: libc::c_int, mut buf: &[u8]) -> bool {
    while !buf.is_empty() {
        // SAFETY: buf is a live, readable slice of buf.len() bytes.
        let n = unsafe { libc::write(fd, buf.as_ptr().cast(), buf.len()) };
        if n < 0 {
            // SAFETY: __errno_location returns this thread's errno slot.
            if unsafe { *libc::__errno_location() } == libc::EINTR {
                continue;
            }
            return false;
        }
        buf = &buf[n as usize..];
    }
    true
}

/// Forks a child that sums `slice` (memory it inherits copy-on-write, so
/// nothing is copied), once or twice (`second_pass`), and writes a
/// [`SumReport`] to a pipe.
pub fn fork_sum(slice: &[f64], second_pass: bool) -> io::Result<ForkedSum> {
    let (read, write) = super::proc::pipe(false)?;
    let wfd = write.as_raw_fd();
    let parent = std::process::id() as i32;
    // SAFETY: the child only reads `slice` (its own copy-on-write view of the
    // parent's memory), reads the vDSO clock, calls prctl(2), getppid(2) and
    // write(2) on a descriptor it inherited and _exit: async-signal-safe work,
    // sound even when the parent has other threads. It never returns into the
    // caller.
    let pid = check(unsafe { libc::fork() })?;
    if pid == 0 {
        let start_ns = monotonic_ns();
        if !child_dies_with_parent(parent) {
            exit_now(ORPHANED);
        }
        let t0 = monotonic_ns();
        let sum = seed_sum(slice);
        let t1 = monotonic_ns();
        let mut second = 0;
        if second_pass {
            std::hint::black_box(seed_sum(std::hint::black_box(slice)));
            second = monotonic_ns() - t1;
        }
        let r = SumReport {
            sum,
            start_ns,
            first_pass_ns: t1 - t0,
            second_pass_ns: second,
        };
        let ok = write_all_raw(wfd, &r.to_bytes());
        exit_now(if ok { 0 } else { 1 });
    }
    // The parent keeps only the read end, so a child that dies before writing
    // gives EOF, not a hang.
    drop(write);
    Ok(ForkedSum {
        child: Child { pid },
        read,
    })
}

impl ForkedSum {
    /// Reads the child's report (blocking) without reaping it.
    pub fn read_report(&self) -> io::Result<SumReport> {
        let mut b = [0u8; REPORT_BYTES];
        let mut got = 0;
        while got < REPORT_BYTES {
            // SAFETY: b[got..] is writable and REPORT_BYTES - got bytes long.
            let n = unsafe {
                libc::read(
                    self.read.as_raw_fd(),
                    b[got..].as_mut_ptr().cast(),
                    REPORT_BYTES - got,
                )
            };
            if n < 0 {
                let e = io::Error::last_os_error();
                if e.raw_os_error() == Some(libc::EINTR) {
                    continue;
                }
                return Err(e);
            }
            if n == 0 {
                return Err(io::Error::other(format!(
                    "summing child {} exited without sending its partial sum",
                    self.child.pid
                )));
            }
            got += n as usize;
        }
        Ok(SumReport::from_bytes(&b))
    }

    /// Reaps the child; an exit status other than 0 is an error.
    pub fn reap(self) -> io::Result<()> {
        self.child.wait()
    }

    /// Reads the report, then reaps.
    pub fn collect(self) -> io::Result<SumReport> {
        let r = self.read_report();
        let w = self.reap();
        let r = r?;
        w?;
        Ok(r)
    }
}

/// Forks a child that exits at once: the bare fork + reap cost with the
/// parent's current memory image.
pub fn fork_exit() -> io::Result<Child> {
    // SAFETY: the child calls only _exit.
    let pid = check(unsafe { libc::fork() })?;
    if pid == 0 {
        exit_now(0);
    }
    Ok(Child { pid })
}

/// A forked child that stays alive, blocked reading a pipe, until
/// [`HeldChild::release`]: while it lives every private page of the parent
/// is shared copy-on-write, so the parent's writes copy pages.
#[must_use = "a held child must be released (and so reaped)"]
pub struct HeldChild {
    child: Child,
    hold: OwnedFd,
}

impl HeldChild {
    /// Forks a child that asks to die with its parent, then blocks on a pipe
    /// until the parent closes it, and exits 0.
    pub fn fork() -> io::Result<HeldChild> {
        let (read, write) = super::proc::pipe(false)?;
        let (rfd, wfd) = (read.as_raw_fd(), write.as_raw_fd());
        let parent = std::process::id() as i32;
        // SAFETY: the child calls prctl(2), getppid(2), close(2), read(2) into
        // a local byte and _exit: async-signal-safe work, sound even when the
        // parent has other threads. It never returns into the caller.
        let pid = check(unsafe { libc::fork() })?;
        if pid == 0 {
            if !child_dies_with_parent(parent) {
                exit_now(ORPHANED);
            }
            // SAFETY: wfd is the child's own copy of the write end; closing it
            // lets the read below see EOF once the parent closes its copy.
            unsafe { libc::close(wfd) };
            let mut b = 0u8;
            loop {
                // SAFETY: b is one writable byte on this stack.
                let n = unsafe { libc::read(rfd, (&mut b as *mut u8).cast(), 1) };
                // SAFETY: __errno_location returns this thread's errno slot.
                if n < 0 && unsafe { *libc::__errno_location() } == libc::EINTR {
                    continue;
                }
                break;
            }
            exit_now(0);
        }
        drop(read);
        Ok(HeldChild {
            child: Child { pid },
            hold: write,
        })
    }

    pub fn pid(&self) -> i32 {
        self.child.pid
    }

    /// Closes the pipe, so the child exits, and reaps it.
    pub fn release(self) -> io::Result<()> {
        drop(self.hold);
        self.child.wait()
    }
}

pub use super::proc::{cpu_ns, CpuOf};

/// The "hairy math" of one report: a deterministic integer hash chain that
/// keeps one CPU busy for a time proportional to `iters` and touches no
/// memory. Returns a checksum so the work cannot be optimised away.
#[inline(never)]
pub fn report_math(seed: u64, iters: u64) -> u64 {
    let mut x = seed | 1;
    for _ in 0..iters {
        // xorshift64*: a dependent chain, the same cost on every machine-size.
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        x = x.wrapping_mul(0x2545_F491_4F6C_DD1D);
    }
    x
}

/// A sink that accepts `rate` bytes per second (a line printer): each write of
/// at most `chunk` bytes is followed by a sleep until the printer would have
/// printed everything written so far.
#[derive(Clone, Copy, Debug)]
pub struct SlowSink<'a> {
    pub fd: BorrowedFd<'a>,
    pub rate_bytes_per_s: u64,
    pub chunk: usize,
}

/// An absolute sleep (`tsc::sleep_until_ns`: clock_nanosleep only, and an
/// error that allocates nothing, so a forked child may call it).
fn sleep_until(deadline_ns: u64) {
    let _ = super::tsc::sleep_until_ns(deadline_ns);
}

impl SlowSink<'_> {
    /// Writes `buf` at the sink's rate. Async-signal-safe (write(2) and
    /// clock_nanosleep(2) only), so a forked child may call it.
    pub fn write_all(&self, buf: &[u8]) -> bool {
        let rate = self.rate_bytes_per_s.max(1) as u128;
        let chunk = self.chunk.max(1);
        let t0 = monotonic_ns();
        let mut written: u64 = 0;
        for part in buf.chunks(chunk) {
            if !write_all_raw(self.fd.as_raw_fd(), part) {
                return false;
            }
            written += part.len() as u64;
            let printed_at = t0 as u128 + written as u128 * 1_000_000_000 / rate;
            sleep_until(printed_at.min(u64::MAX as u128) as u64);
        }
        true
    }
}

/// One report: `iters` of [`report_math`], then `output` to the slow sink.
/// Returns false if the sink refused a write.
pub fn run_report(seed: u64, iters: u64, output: &[u8], sink: &SlowSink) -> bool {
    let x = report_math(seed, iters);
    std::hint::black_box(x);
    sink.write_all(output)
}

/// Forks a child that runs one report (the seed's line-printer fan-out) and
/// exits 0, or 1 if the sink refused a write.
pub fn fork_report(seed: u64, iters: u64, output: &[u8], sink: &SlowSink) -> io::Result<Child> {
    let parent = std::process::id() as i32;
    // SAFETY: the child calls prctl(2) and getppid(2), computes on registers,
    // writes inherited memory (`output`) to an inherited descriptor, sleeps,
    // and _exits: all async-signal-safe, sound even if the parent has threads.
    let pid = check(unsafe { libc::fork() })?;
    if pid == 0 {
        if !child_dies_with_parent(parent) {
            exit_now(ORPHANED);
        }
        let ok = run_report(seed, iters, output, sink);
        exit_now(if ok { 0 } else { 1 });
    }
    Ok(Child { pid })
}

#[cfg(test)]
#[path = "forkwork_tests.rs"]
mod tests;
