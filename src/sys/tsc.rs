//! The invariant time-stamp counter, read with `rdtscp`: one clock all CPUs
//! share, to stamp an event on one CPU and its effect on another (switch.wakeup's
//! one-way wake-up latency), and the timer slack and absolute sleep its timer
//! probe needs.

use super::check;
use std::io;

/// `rdtscp`: the time-stamp counter and the CPU it was read on (the
/// kernel keeps the CPU number in `TSC_AUX`). It waits for every earlier
/// instruction to finish, so a stamp is not taken before the work it follows.
/// None where the CPU has no such instruction.
#[inline(always)]
pub fn rdtscp() -> Option<(u64, u32)> {
    #[cfg(target_arch = "x86_64")]
    {
        let mut aux = 0u32;
        // SAFETY: RDTSCP has no memory effects beyond writing `aux`, a valid
        // local; every x86_64 CPU Linux runs tasklab on since 2008 has it, and
        // `has_rdtscp` is checked by callers before they rely on its value.
        let t = unsafe { core::arch::x86_64::__rdtscp(&mut aux) };
        Some((t, aux & 0xfff))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        None
    }
}

/// The `flags` of the first processor in a /proc/cpuinfo text.
pub fn cpu_flags(cpuinfo: &str) -> Vec<&str> {
    cpuinfo
        .lines()
        .find(|l| l.starts_with("flags"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, f)| f.split_whitespace().collect())
        .unwrap_or_default()
}

/// Why the TSC cannot stamp across CPUs here, or Ok: the CPU must have
/// `rdtscp`, `constant_tsc` (it ticks at one rate whatever the clock) and
/// `nonstop_tsc` (it ticks in deep idle states too).
pub fn invariant_tsc(cpuinfo: &str) -> Result<(), String> {
    if !cfg!(target_arch = "x86_64") {
        return Err("no time-stamp counter on this architecture".into());
    }
    let flags = cpu_flags(cpuinfo);
    let missing: Vec<&str> = ["rdtscp", "constant_tsc", "nonstop_tsc"]
        .into_iter()
        .filter(|f| !flags.contains(f))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "the CPU flags lack {} (/proc/cpuinfo): the TSC is not an invariant clock shared by the CPUs",
            missing.join(" and ")
        ))
    }
}

/// The TSC's rate: cycles per ns, from two (CLOCK_MONOTONIC, TSC) pairs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TscRate {
    pub cycles_per_ns: f64,
}

impl TscRate {
    /// From two readings; None when the clock did not move forward.
    pub fn between((ns0, c0): (u64, u64), (ns1, c1): (u64, u64)) -> Option<TscRate> {
        let (dns, dc) = (ns1.checked_sub(ns0)?, c1.checked_sub(c0)?);
        (dns > 0 && dc > 0).then(|| TscRate {
            cycles_per_ns: dc as f64 / dns as f64,
        })
    }

    /// `cycles` in ns.
    pub fn ns(self, cycles: u64) -> f64 {
        cycles as f64 / self.cycles_per_ns
    }

    /// The rate here, measured against CLOCK_MONOTONIC over `ms`
    /// milliseconds of spinning; each end a pair taken back to back, the
    /// tighter of three.
    pub fn measure(ms: u64) -> Option<TscRate> {
        let pair = || {
            (0..3)
                .filter_map(|_| {
                    let (a, _) = rdtscp()?;
                    let ns = super::monotonic_ns();
                    let (b, _) = rdtscp()?;
                    Some((b - a, (ns, a + (b - a) / 2)))
                })
                .min_by_key(|(gap, _)| *gap)
                .map(|(_, p)| p)
        };
        let start = pair()?;
        while super::monotonic_ns() - start.0 < ms * 1_000_000 {
            std::hint::spin_loop();
        }
        TscRate::between(start, pair()?)
    }
}

/// Sets the calling thread's timer slack to 1 ns (the default is 50 µs: a
/// sleep may end that much late on purpose, to batch wake-ups).
pub fn set_timer_slack_min() -> io::Result<()> {
    // SAFETY: PR_SET_TIMERSLACK takes a number and has no memory effects.
    check(unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) })?;
    Ok(())
}

/// Sleeps until CLOCK_MONOTONIC reads `deadline_ns` (an absolute sleep: a
/// late return is the timer's and the wake-up's lateness, not a drift).
pub fn sleep_until_ns(deadline_ns: u64) -> io::Result<()> {
    let ts = libc::timespec {
        tv_sec: (deadline_ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (deadline_ns % 1_000_000_000) as libc::c_long,
    };
    loop {
        // SAFETY: `ts` is a valid timespec; the remaining-time pointer may be
        // null with TIMER_ABSTIME.
        let r = unsafe {
            libc::clock_nanosleep(
                libc::CLOCK_MONOTONIC,
                libc::TIMER_ABSTIME,
                &ts,
                std::ptr::null_mut(),
            )
        };
        match r {
            0 => return Ok(()),
            libc::EINTR => continue,
            e => return Err(io::Error::from_raw_os_error(e)),
        }
    }
}

#[cfg(test)]
#[path = "tsc_tests.rs"]
mod tests;
