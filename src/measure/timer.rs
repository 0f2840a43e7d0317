//! The clock, and what reading it costs. Calibrated once per run in the
//! parent, reported with the results, and handed to every worker, which
//! subtracts the loop overhead from per-operation figures (lmbench, divan).

use crate::results::Calibration;
use crate::sys;
use std::hint::black_box;

/// Per-call cost of `f`, in ns: `batches` batches of `n` calls each, median
/// of the per-call averages.
pub fn per_call(n: u64, batches: usize, mut f: impl FnMut()) -> f64 {
    let mut v: Vec<f64> = (0..batches)
        .map(|_| {
            let t0 = sys::monotonic_ns();
            for _ in 0..n {
                f();
            }
            (sys::monotonic_ns() - t0) as f64 / n as f64
        })
        .collect();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Cost of one iteration of an empty measurement loop.
pub fn loop_overhead_ns() -> f64 {
    per_call(100_000, 21, || black_box(()))
}

/// Cost of one `clock_gettime(CLOCK_MONOTONIC)`.
pub fn timer_overhead_ns(loop_ns: f64) -> f64 {
    (per_call(20_000, 21, || {
        black_box(sys::monotonic_ns());
    }) - loop_ns)
        .max(0.0)
}

/// The smallest non-zero step between two consecutive clock reads.
pub fn resolution_ns() -> f64 {
    let mut best = u64::MAX;
    for _ in 0..10_000 {
        let a = sys::monotonic_ns();
        let mut b = sys::monotonic_ns();
        while b == a {
            b = sys::monotonic_ns();
        }
        best = best.min(b - a);
    }
    best as f64
}

/// TSC ticks per nanosecond, over `ms` milliseconds of the monotonic clock.
pub fn tsc_ghz(ms: u64) -> Option<f64> {
    let c0 = sys::rdtsc()?;
    let t0 = sys::monotonic_ns();
    while sys::monotonic_ns() - t0 < ms * 1_000_000 {}
    let c1 = sys::rdtsc()?;
    let t1 = sys::monotonic_ns();
    Some((c1 - c0) as f64 / (t1 - t0) as f64)
}

/// The clock the core actually ran at, from chains of dependent additions:
/// the fastest of `runs` runs of about 1 ms each. Preemption and a
/// hypervisor's steal can only make a run look slower, never faster, so the
/// fastest run is the best estimate.
pub fn measured_mhz(runs: usize) -> Option<f64> {
    mhz_of(runs, 50_000) // 3.2 M additions a run: ~1 ms at 3 GHz
}

/// [`measured_mhz`] in short: the fastest of 3 runs of about 0.25 ms, after
/// 1 ms to let the core reach its clock. What each round records.
pub fn round_mhz() -> Option<f64> {
    mhz_of(3, 12_500)
}

/// The fastest of `runs` chains of `rounds` × 64 dependent additions, in MHz.
fn mhz_of(runs: usize, rounds: u64) -> Option<f64> {
    if !sys::ADDS_COUNT_CYCLES {
        return None;
    }
    sys::dependent_adds(rounds * 4); // let the core reach its clock
    (0..runs.max(1))
        .map(|_| {
            let t0 = sys::monotonic_ns();
            black_box(sys::dependent_adds(black_box(rounds)));
            let ns = (sys::monotonic_ns() - t0) as f64;
            (rounds * 64) as f64 / ns * 1000.0
        })
        .max_by(f64::total_cmp)
}

/// Everything above, once.
pub fn calibrate(tsc_invariant: bool) -> Calibration {
    let loop_ns = loop_overhead_ns();
    Calibration {
        clock: "CLOCK_MONOTONIC".into(),
        timer_overhead_ns: timer_overhead_ns(loop_ns),
        loop_overhead_ns: loop_ns,
        timer_resolution_ns: resolution_ns(),
        tsc_ghz: if tsc_invariant { tsc_ghz(50) } else { None },
        measured_mhz: measured_mhz(25),
    }
}

#[cfg(test)]
#[path = "timer_tests.rs"]
mod tests;
