//! How busy the CPUs tasklab may use were around a run: other work's
//! runnable tasks before and between the jobs, the hypervisor's steal, the
//! cgroup's throttling, and the warnings they call for. Only tasklab's CPUs
//! count (its affinity, or `--pin`'s): work on the machine's other CPUs
//! does not preempt a figure.

use crate::sys::procfs::CpuTimes;

/// Samples of how much other work tasklab's CPUs have: where they are all
/// the machine's CPUs, `procs_running` read by the parent while no worker
/// runs, less the parent itself; where they are some of them, the time
/// those CPUs were neither idle nor stolen, less tasklab's own CPU time,
/// over the wall time (CPUs' worth of other work).
pub struct BusyProbe {
    before: Vec<f64>,
    during: Vec<f64>,
    /// The CPUs tasklab may use.
    cpus: Vec<usize>,
    /// Whether they are all the online CPUs (procs_running counts theirs).
    all: bool,
    /// Whose CPU time is tasklab's on them: the workers' alone when the
    /// parent runs elsewhere too (under `--pin`), else the parent's as well.
    ours: crate::sys::CpuOf,
    /// The last reading of the CPUs' times: when, the times, tasklab's own.
    last: Option<Reading>,
    first: Option<Reading>,
    throttled0: Option<crate::env::Throttling>,
    t0: u64,
}

/// The per-CPU times at a moment, and tasklab's own CPU time (itself and
/// its reaped workers) then.
#[derive(Clone)]
struct Reading {
    at_ns: u64,
    times: Vec<CpuTimes>,
    ours_ns: u64,
}

impl Reading {
    fn now(ours: crate::sys::CpuOf) -> Option<Reading> {
        Some(Reading {
            at_ns: crate::sys::monotonic_ns(),
            times: crate::sys::procfs::per_cpu_times()?,
            ours_ns: crate::sys::cpu_ns(ours).ok()?,
        })
    }
}

impl BusyProbe {
    /// Samples tasklab's CPUs before the run: `n` readings `gap` apart.
    /// `cpus` are `--pin`'s (`pinned`: the parent itself is not held to
    /// them) or tasklab's affinity.
    pub fn before(n: usize, gap: std::time::Duration, cpus: Vec<usize>, pinned: bool) -> BusyProbe {
        let ours = if pinned {
            crate::sys::CpuOf::Children
        } else {
            crate::sys::CpuOf::ProcessAndChildren
        };
        let first = Reading::now(ours);
        let online: Vec<usize> = first
            .as_ref()
            .map(|r| r.times.iter().map(|t| t.cpu).collect())
            .unwrap_or_default();
        let mut p = BusyProbe {
            all: covers(&cpus, &online),
            cpus,
            ours,
            last: first.clone(),
            first,
            throttled0: crate::env::throttling_now(),
            t0: crate::sys::monotonic_ns(),
            before: Vec::new(),
            during: Vec::new(),
        };
        for i in 0..n {
            if i > 0 {
                std::thread::sleep(gap);
            }
            if p.all {
                p.before.extend(other_runnable());
            }
        }
        if !p.all {
            let w = p.window();
            p.before.extend(w);
        }
        p
    }

    /// One sample between two jobs.
    pub fn sample(&mut self) {
        if self.all {
            self.during.extend(other_runnable());
        } else {
            let w = self.window();
            self.during.extend(w);
        }
    }

    /// Other work on tasklab's CPUs since the last reading, and a new one.
    fn window(&mut self) -> Option<f64> {
        let now = Reading::now(self.ours)?;
        let before = self.last.replace(now.clone())?;
        other_cpus(
            &before.times,
            &now.times,
            &self.cpus,
            now.at_ns.saturating_sub(before.at_ns) as f64,
            now.ours_ns.saturating_sub(before.ours_ns) as f64,
        )
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
        let cpus = self.cpus.len().max(1) as f64;
        let wall = (crate::sys::monotonic_ns() - self.t0) as f64;
        let steal_share = match (&self.first, crate::sys::procfs::per_cpu_times()) {
            (Some(a), Some(b)) => steal_share(&a.times, &b, &self.cpus, wall).unwrap_or(0.0),
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
            seen.push(if self.all {
                format!(
                    "{:.1} tasks of other work were runnable on average before the run ({} samples of procs_running)",
                    busy.before_other_runnable, busy.before_samples
                )
            } else {
                format!(
                    "other work kept {:.1} of them busy on average before the run (their time neither idle nor stolen, /proc/stat)",
                    busy.before_other_runnable
                )
            });
        }
        if busy.during_other_runnable >= BUSY_TASKS {
            seen.push(during_words(
                self.all,
                busy.during_other_runnable,
                busy.during_max_other_runnable,
                busy.during_samples,
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
                "the machine was busy on the {} tasklab may use ({}): {}; figures carry that work's preemptions, so rerun when the machine is idle",
                if cpus == 1.0 { "1 CPU".to_string() } else { format!("{cpus:.0} CPUs") },
                crate::env::cpu_list(&self.cpus),
                seen.join("; ")
            )
        });
        let throttled = busy.throttled.and_then(throttle_warning);
        (busy, warning.into_iter().chain(throttled).collect())
    }
}

/// What was seen between the jobs, in the words of what was seen before
/// the run: tasks runnable (procs_running, where tasklab's CPUs are all
/// the machine's) or CPUs' worth of other work (/proc/stat), never a bare
/// "0.5 on average".
fn during_words(all: bool, mean: f64, max: f64, samples: usize) -> String {
    if all {
        format!(
            "{mean:.1} tasks of other work were runnable on average between its jobs (at most {max:.0}, {samples} samples of procs_running)"
        )
    } else {
        format!(
            "other work kept {mean:.1} of them busy on average between its jobs (at most {max:.1}, {samples} samples; their time neither idle nor stolen, /proc/stat)"
        )
    }
}

/// The warning for a cgroup whose CPU quota held it back during the run:
/// every figure of a throttled round carries a stall of up to a period.
pub fn throttle_warning(t: crate::env::Throttling) -> Option<String> {
    (t.nr_throttled > 0).then(|| {
        format!(
            "the cgroup's CPU quota throttled it {} during this run: rounds that hit the quota stalled until the next period, so rerun with a larger quota or none",
            t.words()
        )
    })
}

/// Other work's runnable tasks, on average, that make a run busy.
const BUSY_TASKS: f64 = crate::results::Busy::TASKS;
/// A share of stolen CPU time that makes a run busy.
const BUSY_STEAL: f64 = crate::results::Busy::STEAL;

/// Whether `cpus` holds every CPU of `online`.
pub fn covers(cpus: &[usize], online: &[usize]) -> bool {
    !online.is_empty() && online.iter().all(|c| cpus.contains(c))
}

/// CPUs' worth of other work on `cpus` between two readings of /proc/stat
/// `wall_ns` apart: each CPU's time neither idle nor stolen, summed, less
/// `ours_ns` (tasklab's own CPU time then), over the wall time. None
/// without a reading of every CPU of `cpus` or without time passing.
pub fn other_cpus(
    a: &[CpuTimes],
    b: &[CpuTimes],
    cpus: &[usize],
    wall_ns: f64,
    ours_ns: f64,
) -> Option<f64> {
    if wall_ns <= 0.0 || cpus.is_empty() {
        return None;
    }
    let mut busy = 0.0;
    for &c in cpus {
        let (x, y) = (
            a.iter().find(|t| t.cpu == c)?,
            b.iter().find(|t| t.cpu == c)?,
        );
        let away = y.idle_ns.saturating_sub(x.idle_ns) + y.steal_ns.saturating_sub(x.steal_ns);
        busy += wall_ns - away as f64;
    }
    Some((busy - ours_ns) / wall_ns)
}

/// Steal on `cpus` between two readings `wall_ns` apart, as a share of
/// their time.
pub fn steal_share(a: &[CpuTimes], b: &[CpuTimes], cpus: &[usize], wall_ns: f64) -> Option<f64> {
    if wall_ns <= 0.0 || cpus.is_empty() {
        return None;
    }
    let mut stolen = 0u64;
    for &c in cpus {
        let (x, y) = (
            a.iter().find(|t| t.cpu == c)?,
            b.iter().find(|t| t.cpu == c)?,
        );
        stolen += y.steal_ns.saturating_sub(x.steal_ns);
    }
    Some(stolen as f64 / (wall_ns * cpus.len() as f64))
}

/// Runnable tasks other than the caller.
fn other_runnable() -> Option<f64> {
    crate::sys::procfs::procs_running().map(|n| n.saturating_sub(1) as f64)
}

#[cfg(test)]
#[path = "busy_tests.rs"]
mod tests;
