//! Hidden experiments that misbehave on purpose, so the tests can check that
//! a worker's crash or hang marks that experiment failed, kills everything it
//! started, and lets the run go on. Run only when named.

use super::prelude::*;

pub static CRASH: Experiment = Experiment {
    name: "selftest.crash",
    summary: "a worker that dies of SIGSEGV-like abort (for tests)",
    reproduces: "nothing: a fault-handling check",
    params: &[],
    seeds: &[],
    hidden: true,
    supported: always_supported,
    points: single_point,
    measure: |_| {
        eprintln!("selftest.crash: aborting on purpose");
        std::process::abort()
    },
    analyze: no_analysis,
    ..Experiment::DEFAULT
};

pub static HANG: Experiment = Experiment {
    name: "selftest.hang",
    summary: "a worker that starts a child and then both hang (for tests)",
    reproduces: "nothing: a fault-handling check",
    params: &[],
    seeds: &[],
    hidden: true,
    supported: always_supported,
    points: single_point,
    measure: |_| {
        // A grandchild in the worker's process group: the parent must kill it
        // too. Its pid goes to stderr so a test can check it is gone.
        let child = std::process::Command::new("sleep").arg("1000").spawn()?;
        eprintln!("selftest.hang: grandchild pid {}", child.id());
        loop {
            std::thread::sleep(std::time::Duration::from_secs(1000));
        }
    },
    analyze: no_analysis,
    ..Experiment::DEFAULT
};
