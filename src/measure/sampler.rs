//! Sizing work to a time budget. No fixed iteration counts: a warm-up finds
//! how long one operation takes here, then the batch or event count is chosen
//! so the measurement fits the budget, and the samples are independent
//! batches (for nanosecond operations) or single events (for creations).

use super::protocol::{Job, WorkerOutput};
use crate::metric::{Kind, MetricSpec};
use crate::results::{Better, Labels, Unit};
use crate::sys;
use std::io;

#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Seconds of measuring for one series.
    pub seconds: f64,
    pub min_samples: usize,
    pub max_samples: usize,
}

impl Budget {
    pub fn from_job(job: &Job) -> Budget {
        Budget {
            seconds: job.budget_s,
            min_samples: job.min_samples,
            max_samples: job.max_samples,
        }
    }

    /// One of `passes` equal shares of this budget: the seconds and the
    /// sample bounds divided (rounded up, at least one sample).
    pub fn split(self, passes: usize) -> Budget {
        let p = passes.max(1);
        Budget {
            seconds: self.seconds / p as f64,
            min_samples: self.min_samples.div_ceil(p).max(1),
            max_samples: self.max_samples.div_ceil(p).max(1),
        }
    }

    /// The same budget scaled (a series that deserves less or more time).
    pub fn scaled(self, factor: f64) -> Budget {
        Budget {
            seconds: self.seconds * factor,
            ..self
        }
    }
}

/// Passes over the items that share a worker: each item's budget is split
/// into this many shares, measured in a fresh shuffled order each pass.
pub const PASSES: usize = 3;

/// Calls `f(item)` for every item in each of `passes` passes, the items in
/// a fresh random order each pass (seeded by `seed`): the methods,
/// placements or sizes that share a worker are interleaved, not measured in
/// blocks, so a drift during the worker's life spreads over all of them.
/// Returns what each item's calls gave, in item order, then pass order.
pub fn interleave<T, R, E>(
    items: &[T],
    passes: usize,
    seed: u64,
    mut f: impl FnMut(&T) -> Result<R, E>,
) -> Result<Vec<Vec<R>>, E> {
    use rand::seq::SliceRandom;
    use rand::SeedableRng;
    let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut order: Vec<usize> = (0..items.len()).collect();
    let mut got: Vec<Vec<R>> = items.iter().map(|_| Vec::new()).collect();
    for _ in 0..passes.max(1) {
        order.shuffle(&mut rng);
        for &i in &order {
            got[i].push(f(&items[i])?);
        }
    }
    Ok(got)
}

/// One step of a warm-up: `n` calls took `dt_ns`; the next batch size to
/// try, or None once a batch reaches `target_ns` (or `n` reaches `cap`).
/// It grows towards the target, at least 2x and at most 10x a step.
pub fn next_batch(n: u64, dt_ns: f64, target_ns: f64, cap: u64) -> Option<u64> {
    if dt_ns >= target_ns || n >= cap {
        return None;
    }
    let grow = (target_ns / dt_ns.max(1.0)).clamp(2.0, 10.0);
    Some((n as f64 * grow).ceil() as u64)
}

/// The warm-up of a batch size, a batch at a time: [`Warmup::n`] calls are
/// run, what they took is given to [`Warmup::took`], until it says the size
/// is found. Sizes follow [`next_batch`] from 1, and a batch that reaches
/// the target is run once more before it is believed: one preemption makes
/// a batch of a few calls look as long as the target, and a batch sized by
/// it would leave every sample dominated by the clock reads around it (a
/// coroutine's 2 ns round trip read as 100 ns). The faster of the two runs
/// decides; a second preemption in a row is needed to stop it early.
#[derive(Clone, Copy, Debug)]
pub struct Warmup {
    n: u64,
    confirming: bool,
    target_ns: f64,
    cap: u64,
}

impl Warmup {
    pub fn new(target_ns: f64, cap: u64) -> Warmup {
        Warmup {
            n: 1,
            confirming: false,
            target_ns,
            cap,
        }
    }

    /// The calls of the next batch to run, or of the batch found.
    pub fn n(&self) -> u64 {
        self.n
    }

    /// The last batch of [`Warmup::n`] calls took `dt_ns`: true while
    /// another batch is to be run, false once [`Warmup::n`] is the size.
    pub fn took(&mut self, dt_ns: f64) -> bool {
        match next_batch(self.n, dt_ns, self.target_ns, self.cap) {
            Some(next) => {
                self.n = next;
                self.confirming = false;
                true
            }
            None if self.n >= self.cap || self.confirming => false,
            None => {
                self.confirming = true;
                true
            }
        }
    }
}

/// How many calls make one batch of about `target_ns`: `run(n)` makes `n`
/// calls and returns the ns they took; the sizes follow [`Warmup`].
pub fn size_batch<E>(
    target_ns: f64,
    cap: u64,
    mut run: impl FnMut(u64) -> Result<f64, E>,
) -> Result<u64, E> {
    let mut w = Warmup::new(target_ns, cap);
    while w.took(run(w.n())?) {}
    Ok(w.n())
}

/// Per-operation cost of `f` in ns, one sample per batch: the batch size is
/// doubled during warm-up until one batch takes its share of the budget, and
/// the loop's own overhead is subtracted.
pub fn per_op(budget: &Budget, loop_overhead_ns: f64, f: impl FnMut()) -> Vec<f64> {
    per_op_cpu(budget, loop_overhead_ns, f).0
}

/// [`per_op`], and the calling thread's CPU time per operation over the
/// recorded batches (an operation that stays on this thread: both sides);
/// None if the thread's CPU time could not be read.
pub fn per_op_cpu(
    budget: &Budget,
    loop_overhead_ns: f64,
    mut f: impl FnMut(),
) -> (Vec<f64>, Option<CpuPerOp>) {
    // Batches of at most 200 µs: well inside a scheduler time slice, so on a
    // busy machine most batches run unpreempted and the median is the clean
    // cost; the budget then buys more batches, not longer ones.
    let batch_target_ns = (budget.seconds * 1e9 / 30.0).clamp(20_000.0, 200_000.0);
    let samples = ((budget.seconds * 1e9 / batch_target_ns) as usize)
        .clamp(budget.min_samples.max(30), budget.max_samples.max(30));
    let n = size_batch(batch_target_ns, 1 << 40, |n| {
        let t0 = sys::monotonic_ns();
        for _ in 0..n {
            f();
        }
        Ok::<f64, std::convert::Infallible>((sys::monotonic_ns() - t0) as f64)
    })
    .unwrap_or_else(|never| match never {});
    let ops = (samples as u64 * n) as f64;
    // The window brackets the CPU time read, so the reading of the rings as
    // it opens and closes (under --why) is not in it.
    let _window = super::why::Window::open();
    let (walls, cpu) = cpu_over(sys::CpuOf::Thread, ops, || {
        (0..samples)
            .map(|_| {
                let t0 = sys::monotonic_ns();
                for _ in 0..n {
                    f();
                }
                let dt = (sys::monotonic_ns() - t0) as f64;
                // Never clamped: below zero would say the loop's overhead
                // estimate is off, and the figure should show it.
                dt / n as f64 - loop_overhead_ns
            })
            .collect()
    });
    // The loop's own overhead comes off the CPU time too, as off the wall
    // time: else a 2 ns coroutine round trip reads more CPU than wall.
    let cpu = cpu.map(|c| CpuPerOp {
        ns: c.ns - loop_overhead_ns,
    });
    (walls, cpu)
}

/// Runs `f`, `ops` operations, and gives what it returned with the CPU time
/// `of` spent per operation over it; None for that if a reading failed.
pub fn cpu_over<R>(of: sys::CpuOf, ops: f64, f: impl FnOnce() -> R) -> (R, Option<CpuPerOp>) {
    let before = sys::cpu_ns(of);
    let got = f();
    (got, CpuPerOp::between_reads(before, sys::cpu_ns(of), ops))
}

/// An event slower than this needs no second warm-up call.
const SLOW_EVENT_NS: f64 = 50e6;

/// CPU time per operation over a series' recorded calls, user and system
/// together (their split is no figure: [`push_cpu`]), both sides of the
/// work (every thread of the worker and its reaped children, or both ends
/// of a hand-off).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CpuPerOp {
    pub ns: f64,
}

impl CpuPerOp {
    /// From `then` to `now`, over `ops` operations.
    pub fn between(then_ns: u64, now_ns: u64, ops: f64) -> CpuPerOp {
        CpuPerOp {
            ns: now_ns.saturating_sub(then_ns) as f64 / ops.max(1.0),
        }
    }

    /// [`CpuPerOp::between`] two readings, either of which may have
    /// failed: None then.
    pub fn between_reads(
        then: io::Result<u64>,
        now: io::Result<u64>,
        ops: f64,
    ) -> Option<CpuPerOp> {
        Some(CpuPerOp::between(then.ok()?, now.ok()?, ops))
    }
}

/// Pushes a series' CPU time per operation beside its wall figure, one
/// sample per pass or batch: `cpu_ns`, user and system together, a detail
/// series under the wall series' labels.
///
/// The split between user and system is not recorded. On a kernel that
/// accounts CPU time by ticks (`CONFIG_TICK_CPU_ACCOUNTING`, the common
/// case) the sum is exact, but the split follows which mode each tick
/// caught, over the task's whole life, and a task that took no tick counts
/// all of its time as user: a child that lives 100 µs does. 2,000 forked
/// children looping on a system call read 7% system time through
/// `RUSAGE_CHILDREN`, where one long-lived child doing the same read 58%;
/// over a batch shorter than a tick the split is all one or all the other.
/// No window tasklab times is long enough to make it a figure.
pub fn push_cpu(out: &mut WorkerOutput, labels: &Labels, per_op: &[CpuPerOp]) {
    if per_op.is_empty() {
        return;
    }
    let total = per_op.iter().map(|c| c.ns).collect();
    out.push_detail(&CPU_NS, labels.clone(), total);
}

/// The CPU-time series [`push_cpu`] pushes: what the work cost in CPU,
/// beside its wall time; neither better nor worse on its own.
pub const CPU_NS: MetricSpec = MetricSpec::new(
    "cpu_ns",
    Unit::Ns,
    Better::Neither,
    Kind::Other,
    "CPU time (user and system) per operation of this process's threads and reaped children",
);

/// Runs `f` (one event: a creation, a round trip) `warmup` times unrecorded,
/// then as many times as fit the budget, at least `min_samples` and at most
/// `max_samples`; returns what each recorded call returned.
pub fn events<T>(
    budget: &Budget,
    warmup: usize,
    f: impl FnMut() -> io::Result<T>,
) -> io::Result<Vec<T>> {
    Ok(events_cpu(budget, warmup, f)?.0)
}

/// [`events`], and the CPU time per recorded call of this process's
/// threads and reaped children (a creation's both sides, once each child
/// is reaped or joined within the call).
pub fn events_cpu<T>(
    budget: &Budget,
    warmup: usize,
    mut f: impl FnMut() -> io::Result<T>,
) -> io::Result<(Vec<T>, CpuPerOp)> {
    let t0 = sys::monotonic_ns();
    let mut warmed = 0;
    while warmed < warmup.max(1) {
        f()?;
        warmed += 1;
        // An event this slow (a fork of gigabytes) is warm after one call:
        // more warm-up would cost more than a whole round's samples.
        if (sys::monotonic_ns() - t0) as f64 / warmed as f64 > SLOW_EVENT_NS {
            break;
        }
    }
    let per_event = (sys::monotonic_ns() - t0) as f64 / warmed as f64;
    let n = ((budget.seconds * 1e9 / per_event.max(1.0)) as usize)
        .clamp(budget.min_samples.max(1), budget.max_samples.max(1));
    // The window brackets the CPU time read, so the reading of the rings as
    // it opens and closes (under --why) is not in it.
    let window = super::why::Window::open();
    let cpu0 = sys::cpu_ns(sys::CpuOf::ProcessAndChildren)?;
    let got = (0..n).map(|_| f()).collect::<io::Result<Vec<T>>>()?;
    let cpu1 = sys::cpu_ns(sys::CpuOf::ProcessAndChildren)?;
    drop(window);
    Ok((got, CpuPerOp::between(cpu0, cpu1, n as f64)))
}

#[cfg(test)]
#[path = "sampler_tests.rs"]
mod tests;
