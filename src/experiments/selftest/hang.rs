//! selftest.hang: a worker that starts a child and then both hang (at one
//! point: `-p fail_at=`).
//! Reproduces no seed experiment: it checks that a hung worker is killed
//! with everything it started.

use super::{behave, misbehaves, points, FAIL_AT_PARAM, POINTS_PARAM, READ_NS};
use crate::experiments::prelude::*;

pub static EXPERIMENT: Experiment = Experiment {
    name: "selftest.hang",
    summary: "a worker that starts a child and then both hang (for tests)",
    reproduces: "nothing: a fault-handling check",
    hidden: true,
    params: &[POINTS_PARAM.spec, FAIL_AT_PARAM.spec],
    metrics: &[&READ_NS],
    points,
    measure,
    ..Experiment::DEFAULT
};

fn measure(job: &Job) -> anyhow::Result<WorkerOutput> {
    if !misbehaves(job)? {
        return behave(job);
    }
    // A grandchild in the worker's process group: the parent must kill it
    // too, and it dies with the worker if tasklab itself is killed. Its pid
    // goes to stderr so a test can check it is gone.
    let child =
        crate::sys::kill_with_parent(std::process::Command::new("sleep").arg("1000")).spawn()?;
    eprintln!("selftest.hang: grandchild pid {}", child.id());
    loop {
        std::thread::sleep(std::time::Duration::from_secs(1000));
    }
}
