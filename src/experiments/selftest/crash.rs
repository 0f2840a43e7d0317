//! selftest.crash: a worker that aborts (or is killed, `-p how=kill`) at
//! one point. Reproduces no seed experiment: it checks that a crashed
//! worker fails its point only, and the run goes on.

use super::{behave, misbehaves, points, FAIL_AT_PARAM, POINTS_PARAM, READ_NS};
use crate::experiments::prelude::*;

pub static EXPERIMENT: Experiment = Experiment {
    name: "selftest.crash",
    summary: "a worker that dies of SIGSEGV-like abort, or of SIGKILL, at one point (for tests)",
    reproduces: "nothing: a fault-handling check",
    hidden: true,
    params: &[POINTS_PARAM.spec, FAIL_AT_PARAM.spec, HOW_PARAM.spec],
    metrics: &[&READ_NS],
    points,
    measure,
    ..Experiment::DEFAULT
};

pub const HOW_PARAM: Param<String> = Param::choice(ParamSpec {
    name: "how",
    help: "abort (SIGABRT, with a message), or kill (SIGKILL, as the OOM killer would)",
    kind: ParamKind::Choice(&["abort", "kill"]),
    quick: "abort",
    thorough: "abort",
});

fn measure(job: &Job) -> anyhow::Result<WorkerOutput> {
    if !misbehaves(job)? {
        return behave(job);
    }
    if job.params.get(&HOW_PARAM) == "kill" {
        // As the OOM killer would: no word, no unwinding.
        std::process::Command::new("kill")
            .args(["-KILL", &std::process::id().to_string()])
            .status()?;
        std::thread::sleep(std::time::Duration::from_secs(60));
    }
    eprintln!("selftest.crash: aborting on purpose");
    std::process::abort()
}
