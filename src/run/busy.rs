//! How busy the machine was around a run: other work's runnable tasks
//! before and between the jobs, the hypervisor's steal, the cgroup's
//! throttling, and the warnings they call for.

/// Samples of how much other work the machine has: `procs_running` read
/// by the parent while no worker runs, less the parent itself.
#[derive(Default)]
pub struct BusyProbe {
    before: Vec<f64>,
    during: Vec<f64>,
    steal0: Option<u64>,
    throttled0: Option<crate::env::Throttling>,
    t0: u64,
}

impl BusyProbe {
    /// Samples the machine before the run: `n` readings `gap` apart.
    pub fn before(n: usize, gap: std::time::Duration) -> BusyProbe {
        let mut p = BusyProbe {
            steal0: crate::sys::procfs::steal_ns(),
            throttled0: crate::env::throttling_now(),
            t0: crate::sys::monotonic_ns(),
            ..BusyProbe::default()
        };
        for i in 0..n {
            if i > 0 {
                std::thread::sleep(gap);
            }
            p.before.extend(other_runnable());
        }
        p
    }

    /// One sample between two jobs.
    pub fn sample(&mut self) {
        self.during.extend(other_runnable());
    }

    /// What was seen, and the warnings it calls for.
    pub fn finish(&self) -> (crate::results::Busy, Vec<String>) {
        let mean = |v: &[f64]| {
            if v.is_empty() {
                0.0
            } else {
                v.iter().sum::<f64>() / v.len() as f64
            }
        };
        let cpus = crate::sys::allowed_cpus()
            .map(|c| c.len())
            .unwrap_or(1)
            .max(1) as f64;
        let wall = (crate::sys::monotonic_ns() - self.t0) as f64;
        let steal_share = match (self.steal0, crate::sys::procfs::steal_ns()) {
            (Some(a), Some(b)) if wall > 0.0 => b.saturating_sub(a) as f64 / (wall * cpus),
            _ => 0.0,
        };
        let busy = crate::results::Busy {
            before_other_runnable: mean(&self.before),
            before_samples: self.before.len(),
            during_other_runnable: mean(&self.during),
            during_max_other_runnable: self.during.iter().copied().fold(0.0, f64::max),
            during_samples: self.during.len(),
            steal_share,
            throttled: match (crate::env::throttling_now(), self.throttled0) {
                (Some(now), Some(then)) => Some(now.since(then)),
                _ => None,
            },
        };
        let mut seen = Vec::new();
        if busy.before_other_runnable >= BUSY_TASKS {
            seen.push(format!(
                "{:.1} tasks of other work were runnable on average before the run ({} samples of procs_running)",
                busy.before_other_runnable, busy.before_samples
            ));
        }
        if busy.during_other_runnable >= BUSY_TASKS {
            seen.push(format!(
                "{:.1} on average between its jobs (at most {:.0}, {} samples)",
                busy.during_other_runnable, busy.during_max_other_runnable, busy.during_samples
            ));
        }
        if steal_share >= BUSY_STEAL {
            seen.push(format!(
                "the hypervisor stole {:.1}% of the CPUs' time during the run",
                100.0 * steal_share
            ));
        }
        let warning = (!seen.is_empty()).then(|| {
            format!(
                "the machine was busy on {cpus:.0} CPUs: {}; figures carry that work's preemptions, so rerun when the machine is idle",
                seen.join("; ")
            )
        });
        let throttled = busy.throttled.and_then(throttle_warning);
        (busy, warning.into_iter().chain(throttled).collect())
    }
}

/// The warning for a cgroup whose CPU quota held it back during the run:
/// every figure of a throttled round carries a stall of up to a period.
pub fn throttle_warning(t: crate::env::Throttling) -> Option<String> {
    (t.nr_throttled > 0).then(|| {
        format!(
            "the cgroup was throttled {} during this run ({} held back by its CPU quota): rounds that hit the quota stalled until the next period, so rerun with a larger quota or none",
            if t.nr_throttled == 1 {
                "once".to_string()
            } else {
                format!("{} times", crate::units::group_digits(t.nr_throttled as i64))
            },
            crate::units::fmt_ns(t.throttled_usec as f64 * 1000.0)
        )
    })
}

/// Other work's runnable tasks, on average, that make a run busy.
const BUSY_TASKS: f64 = 0.5;
/// A share of stolen CPU time that makes a run busy.
const BUSY_STEAL: f64 = 0.02;

/// Runnable tasks other than the caller.
fn other_runnable() -> Option<f64> {
    crate::sys::procfs::procs_running().map(|n| n.saturating_sub(1) as f64)
}
