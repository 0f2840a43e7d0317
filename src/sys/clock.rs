//! Clocks, the cycle counter, and the two instruction-level yardsticks.

/// Reads one POSIX clock in nanoseconds.
#[inline(always)]
fn clock_ns(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock ids passed here are
    // constants the kernel always supports, so the call cannot fail.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// `CLOCK_MONOTONIC` in nanoseconds: system-wide, so a stamp taken in a child
/// task compares with one taken in its parent.
#[inline(always)]
pub fn monotonic_ns() -> u64 {
    clock_ns(libc::CLOCK_MONOTONIC)
}

/// `CLOCK_THREAD_CPUTIME_ID` in nanoseconds: the calling thread's CPU time,
/// user and system, to the nanosecond and up to date at the call (the
/// scheduler adds the running slice so far; `getrusage` can lag by a tick).
#[inline(always)]
pub fn thread_cpu_ns() -> u64 {
    clock_ns(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// `CLOCK_REALTIME` in nanoseconds (the clock the Sysel paper used).
#[inline(always)]
pub fn realtime_ns() -> u64 {
    clock_ns(libc::CLOCK_REALTIME)
}

/// The time-stamp counter, where the CPU has one.
#[inline(always)]
pub fn rdtsc() -> Option<u64> {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: RDTSC exists on every x86_64 CPU and has no memory effects.
        Some(unsafe { core::arch::x86_64::_rdtsc() })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        None
    }
}

/// One bare system call that does no work (`getppid`, which glibc does not
/// cache), returning its result so the call cannot be optimised away.
#[inline(always)]
pub fn bare_syscall() -> i64 {
    // SAFETY: getppid takes no arguments and cannot fail.
    unsafe { libc::syscall(libc::SYS_getppid) }
}

/// Runs `rounds * 64` dependent integer additions. Each addition waits for the
/// previous one, so on any out-of-order x86 core they retire at one per cycle:
/// additions per nanosecond is the core's clock in GHz, as the kernel actually
/// ran it (turbo, power capping and a hypervisor's share included).
///
/// The addend is a register, never an immediate: Intel's cores from Golden
/// Cove on fold chains of `add reg, imm` at rename, several per cycle (an
/// Intel Xeon guest here read 20-24 GHz that way); a register addend has
/// its one cycle of latency on every x86 core (the same clock as a chain of
/// `imul`s over their 3 cycles, 4.1 GHz on that guest).
pub fn dependent_adds(rounds: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        let mut x: u64 = 0;
        let mut n = rounds.max(1);
        let one: u64 = std::hint::black_box(1);
        // SAFETY: the block touches only the three registers it declares, no
        // memory and no stack, and the loop ends when `n` reaches zero.
        unsafe {
            std::arch::asm!(
                "2:",
                ".rept 64",
                "add {x}, {one}",
                ".endr",
                "sub {n}, 1",
                "jnz 2b",
                x = inout(reg) x,
                n = inout(reg) n,
                one = in(reg) one,
                options(nomem, nostack),
            );
        }
        let _ = n;
        x
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut x = 0u64;
        for i in 0..rounds * 64 {
            x = std::hint::black_box(x.wrapping_add(i));
        }
        x
    }
}

/// Whether [`dependent_adds`] counts cycles on this architecture.
pub const ADDS_COUNT_CYCLES: bool = cfg!(target_arch = "x86_64");
