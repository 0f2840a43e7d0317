//! selftest.spin: a loop that spins for a known time. Reproduces no seed
//! experiment: it gives tests and bench scripts a series whose true change
//! they set themselves (`-p ns=1050` against `-p ns=1000` is 5% on the spin,
//! a little less on the op, whose call and clock reads stay the same), so
//! `ab` and `compare` can be checked for false alarms and power end to end,
//! under the machine's real noise.

use crate::experiments::prelude::*;
use crate::measure::sampler::{per_op, Budget};
use crate::sys;

/// One spin of `ns` nanoseconds, timed in batches like every series.
pub const SPIN_NS: MetricSpec = MetricSpec {
    name: "spin_ns",
    unit: Unit::Ns,
    better: Direction::Always(Better::Lower),
    kind: Kind::Other,
    about: "one spin of the asked length on the monotonic clock, plus the clock reads that end it",
    signed: false,
};

pub static EXPERIMENT: Experiment = Experiment {
    name: "selftest.spin",
    metrics: &[&SPIN_NS],
    summary: "a loop that spins for a known time (for tests of power and false alarms)",
    reproduces: "nothing: a known change to detect",
    hidden: true,
    params: &[NS_PARAM.spec],
    measure,
    ..Experiment::DEFAULT
};

pub const NS_PARAM: Param<u64> = Param::number(ParamSpec {
    name: "ns",
    help: "how long one spin lasts, in ns",
    kind: ParamKind::Count {
        min: 100,
        max: 10_000_000,
    },
    quick: "1000",
    thorough: "1000",
});

fn measure(job: &Job) -> anyhow::Result<WorkerOutput> {
    let ns = job.params.get(&NS_PARAM);
    let mut out = WorkerOutput::default();
    let b = Budget::from_job(job).scaled(0.5);
    // The spin is the calibrated part: the monotonic clock is the
    // calibration, so the spin lasts `ns` whatever the CPU's speed, and a
    // preemption or a stolen tick lengthens it as it would real work.
    out.push(
        &SPIN_NS,
        labels(&[]),
        per_op(&b, job.loop_overhead_ns, || {
            let until = sys::monotonic_ns() + ns;
            while sys::monotonic_ns() < until {
                std::hint::spin_loop();
            }
        }),
    );
    Ok(out)
}
