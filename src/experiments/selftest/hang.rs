//! selftest.hang: a worker that starts a child and then both hang.
//! Reproduces no seed experiment: it checks that a hung worker is killed
//! with everything it started.

use crate::experiments::prelude::*;

pub static EXPERIMENT: Experiment = Experiment {
    name: "selftest.hang",
    summary: "a worker that starts a child and then both hang (for tests)",
    reproduces: "nothing: a fault-handling check",
    hidden: true,
    measure,
    ..Experiment::DEFAULT
};

fn measure(_: &Job) -> anyhow::Result<WorkerOutput> {
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
