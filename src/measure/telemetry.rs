//! What the machine did around one round: a canary yardstick at its start
//! and end (a bare system call, a pipe write and read), the steal time the
//! hypervisor took, how long the worker waited for a CPU, its involuntary
//! switches, how many tasks were runnable, and its CPU time beside the wall
//! time. A figure is only as good as the round it came from: these say
//! whether the round was quiet.

use super::timer::per_call;
pub use crate::results::{Canary, RoundTelemetry};
use crate::sys::{self, procfs};
use std::io::{Read, Write};

/// Batches per canary figure; the figure is their median.
const BATCHES: usize = 5;

/// Measures the canary now (about 2 ms).
pub fn canary() -> Canary {
    let syscall_ns = per_call(500, BATCHES, || {
        std::hint::black_box(sys::bare_syscall());
    });
    let pipe_ns = match sys::pipe(false) {
        Ok((r, w)) => {
            let (mut r, mut w) = (std::fs::File::from(r), std::fs::File::from(w));
            let mut byte = [0u8; 1];
            per_call(200, BATCHES, || {
                let _ = w.write_all(b"x");
                let _ = r.read_exact(&mut byte);
            })
        }
        Err(_) => f64::NAN,
    };
    Canary {
        syscall_ns,
        pipe_ns,
    }
}

/// The counters at the start of a round.
pub struct Recorder {
    t0: u64,
    cpu0: u64,
    steal0: u64,
    delay0: u64,
    invol0: u64,
    running0: u64,
    canary_start: Canary,
}

fn or0<E>(v: Result<u64, E>) -> u64 {
    v.unwrap_or(0)
}

impl Recorder {
    /// Takes the start counters and the start canary.
    pub fn start() -> Recorder {
        let canary_start = canary();
        Recorder {
            running0: procfs::procs_running().unwrap_or(0),
            steal0: procfs::steal_ns().unwrap_or(0),
            delay0: procfs::run_delay_ns().unwrap_or(0),
            invol0: or0(sys::switches(true).map(|s| s.involuntary)),
            cpu0: or0(sys::cpu_time_ns()),
            canary_start,
            t0: sys::monotonic_ns(),
        }
    }

    /// The round's record, with the end canary.
    pub fn finish(self) -> RoundTelemetry {
        let wall = sys::monotonic_ns() - self.t0;
        let d = |now: u64, then: u64| now.saturating_sub(then) as f64;
        let t = RoundTelemetry {
            wall_ns: wall as f64,
            cpu_ns: d(or0(sys::cpu_time_ns()), self.cpu0),
            canary_start: self.canary_start,
            canary_end: Canary::default(),
            steal_ns: d(procfs::steal_ns().unwrap_or(0), self.steal0),
            run_delay_ns: d(procfs::run_delay_ns().unwrap_or(0), self.delay0),
            involuntary_switches: d(or0(sys::switches(true).map(|s| s.involuntary)), self.invol0),
            procs_running_start: self.running0 as f64,
            procs_running_end: procfs::procs_running().unwrap_or(0) as f64,
        };
        RoundTelemetry {
            canary_end: canary(),
            ..t
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_records_its_canary_and_counters() {
        let rec = Recorder::start();
        std::hint::black_box((0..100_000u64).sum::<u64>());
        let t = rec.finish();
        assert!(t.wall_ns > 0.0);
        for c in [t.canary_start, t.canary_end] {
            assert!(
                c.syscall_ns > 0.0 && c.pipe_ns > c.syscall_ns / 10.0,
                "{c:?}"
            );
        }
        assert!(t.procs_running_start >= 1.0);
    }
}
