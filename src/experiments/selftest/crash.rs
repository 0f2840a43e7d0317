//! selftest.crash: a worker that aborts. Reproduces no seed experiment: it
//! checks that a crashed worker fails its experiment and the run goes on.

use crate::experiments::prelude::*;

pub static EXPERIMENT: Experiment = Experiment {
    name: "selftest.crash",
    summary: "a worker that dies of SIGSEGV-like abort (for tests)",
    reproduces: "nothing: a fault-handling check",
    hidden: true,
    measure,
    ..Experiment::DEFAULT
};

fn measure(_: &Job) -> anyhow::Result<WorkerOutput> {
    eprintln!("selftest.crash: aborting on purpose");
    std::process::abort()
}
