//! `run --why`'s twin rounds: each round of an attributed experiment
//! (`Experiment::attributed`) runs twice, next to each other, once
//! unsampled and once sampled, in fresh workers. The figures come from the
//! unsampled rounds alone, so `--why` never moves a figure nor takes rounds
//! from it; the attribution comes from the sampled ones; and each pair of
//! twins measures what sampling costs (`measure::attribution::overheads`,
//! `stats::paired` as `tasklab ab` judges its pairs). The order inside a
//! pair alternates by round (unsampled first in even rounds, sampled first
//! in odd ones), so a drift over the run moves both sides alike.

use super::plan::Planned;
use crate::measure::protocol::{Job, WorkerOutput};
use crate::measure::why::WhyJob;
use crate::measure::worker::{self, Failure, StopFlag};

/// What a round of `planned` samples under the run's `--why` (`why`): the
/// round's own job, and its sampled twin's. In an A/B run every round of a
/// side samples as its side says (the sides are what is compared), with no
/// twin; in a plain run an attributed experiment's round is unsampled and
/// its twin sampled; an experiment that names no series samples nothing.
pub fn sampling(
    planned: &Planned,
    why: Option<&crate::measure::why::WhyPlan>,
) -> (Option<WhyJob>, Option<WhyJob>) {
    // A cgroup of the worker's own only where the windows start processes
    // (`ExperimentSpec::starts_processes`).
    let job = why.and_then(|w| w.job()).map(|j| WhyJob {
        cgroup: j.cgroup && planned.exp.starts_processes,
        ..j
    });
    match &planned.side {
        Some(side) if side.why == Some(false) => (None, None),
        Some(_) => (job, None),
        None if planned.exp.attributed => (None, job),
        None => (None, None),
    }
}

/// Which runs first in round `round`'s pair: the unsampled twin in even
/// rounds, the sampled one in odd rounds.
pub fn sampled_first(round: usize) -> bool {
    round % 2 == 1
}

/// The round's two jobs, run by `run` one after the other in
/// [`sampled_first`]'s order: the unsampled job's outcome, then the sampled
/// twin's (`job` with `why`; None when a stop asked for after the first
/// job left it unrun).
pub fn run_both(
    job: &Job,
    why: WhyJob,
    stop: &StopFlag,
    mut run: impl FnMut(&Job) -> Result<WorkerOutput, Failure>,
) -> (
    Result<WorkerOutput, Failure>,
    Option<Result<WorkerOutput, Failure>>,
) {
    let sampled_job = Job {
        why: Some(why),
        ..job.clone()
    };
    if sampled_first(job.round) {
        let sampled = run(&sampled_job);
        if let Some(sig) = worker::stopped_by(stop) {
            let plain = Err(Failure {
                reason: worker::stop_reason(sig),
                interrupted: true,
            });
            return (plain, Some(sampled));
        }
        (run(job), Some(sampled))
    } else {
        let plain = run(job);
        if worker::stopped_by(stop).is_some() {
            return (plain, None);
        }
        (plain, Some(run(&sampled_job)))
    }
}

/// Where a round's sampled twin is kept: the twins, the experiment's
/// notes (a failed twin's, once), and the round's (point, round).
pub type Keep<'a> = (
    &'a mut Vec<(usize, usize, WorkerOutput)>,
    &'a mut Vec<String>,
    (usize, usize),
);

/// Runs a round by `run`: with a `twin` to sample, both jobs
/// ([`run_both`]), the sampled one kept in `keep` (a failed one said in a
/// note: its round is not attributed, its figures stand); gives the
/// unsampled job's outcome, which the figures come from.
pub fn run_round(
    job: &Job,
    twin: Option<WhyJob>,
    stop: &StopFlag,
    (twins, notes, at): Keep,
    mut run: impl FnMut(&Job) -> Result<WorkerOutput, Failure>,
) -> Result<WorkerOutput, Failure> {
    let Some(why) = twin else {
        return run(job);
    };
    let (plain, sampled) = run_both(job, why, stop, run);
    match sampled {
        Some(Ok(out)) => twins.push((at.0, at.1, out)),
        Some(Err(f)) if worker::stopped_by(stop).is_none() => {
            let note = format!(
                "--why: a sampled round failed, so its round is not attributed: {}",
                f.reason
            );
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
        _ => {}
    }
    plain
}

#[cfg(test)]
#[path = "twin_tests.rs"]
mod tests;
