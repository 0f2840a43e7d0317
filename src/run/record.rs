//! The results builder: a run's `RunResults` opened before the first job
//! (schema, build, plan, machine, timer calibration), its experiments added
//! as they finish, in registry order, and closed at the end (the busy
//! probe's findings, the interruption in words, the precision the run's
//! time bought, the status).

use super::execute::Spent;
use super::plan::Plan;
use crate::results::{
    Busy, Calibration, ExperimentResult, Precision, RunResults, RunStatus, SCHEMA_NAME,
    SCHEMA_VERSION,
};
use std::time::SystemTime;

fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// The results of a run about to measure `plan` on `env`, partial until
/// [`finish`]; `idle_how` is what `--idle-poll` changed, if it did.
pub fn open(
    plan: &Plan,
    env: crate::env::Env,
    calibration: Calibration,
    idle_how: Option<&str>,
) -> RunResults {
    let mut results = RunResults {
        schema: SCHEMA_NAME.into(),
        schema_version: SCHEMA_VERSION,
        tool_version: env!("CARGO_PKG_VERSION").into(),
        started_unix_s: unix_now(),
        finished_unix_s: None,
        profile: plan.profile.name().into(),
        status: RunStatus::Partial,
        run_id: Some(crate::results::new_run_id()),
        build: Some(crate::results::Build::this()),
        pin: plan.pin.clone(),
        rounds: plan.sizing.min_rounds,
        seed: Some(plan.seed),
        env,
        calibration,
        warnings: Vec::new(),
        busy: None,
        groups: crate::experiments::group_records(),
        experiments: Vec::new(),
        precision: None,
        ab: None,
        why: plan.why.as_ref().map(|w| w.record()),
        interrupted: None,
    };
    if let Some(no) = plan.why.as_ref().and_then(|w| w.refused.as_ref()) {
        results
            .warnings
            .push(format!("--why: nothing attributed: {no}"));
    }
    if let Some(how) = idle_how {
        results.warnings.push(format!(
            "--idle-poll: {how}; the old values are restored when the run ends"
        ));
    }
    results
}

/// Adds a finished experiment: the file lists the experiments in registry
/// order, whatever order their last rounds came in.
pub fn add(results: &mut RunResults, result: ExperimentResult) {
    results.experiments.push(result);
    results.experiments.sort_by_key(|e| {
        crate::experiments::REGISTRY
            .iter()
            .position(|r| r.name == e.name)
    });
}

/// How a run ended, for [`finish`].
pub struct Ending {
    /// How busy the CPUs were, and the warnings that says.
    pub busy: Busy,
    pub busy_warnings: Vec<String>,
    /// Jobs done of all planned, when a signal stopped the run.
    pub interrupted_at: Option<(usize, usize)>,
    /// Jobs the budget added.
    pub adaptive_jobs: usize,
    pub spent: Spent,
}

/// Closes `results`: complete unless a signal stopped the run.
pub fn finish(results: &mut RunResults, plan: &Plan, end: Ending) {
    results.busy = Some(end.busy);
    results.warnings.extend(end.busy_warnings);
    if let Some((job, jobs)) = end.interrupted_at {
        let at = crate::results::Interruption { job, jobs };
        results.warnings.push(at.words(results));
        results.interrupted = Some(at);
    }
    let mut precision = Precision::of(
        &results.experiments,
        plan.precision * 100.0,
        end.adaptive_jobs,
    );
    precision.budget_s = plan.adaptive.map(|a| a.budget_s);
    precision.measured_s = Some(end.spent.measured_s);
    precision.floor_s = Some(end.spent.floor_s);
    precision.deadline_s = end.spent.deadline_s;
    precision.summary_rounds = summary_rounds(results);
    // Said only where the Summary's quantities got fewer than the
    // profile's rounds, and never of a run a signal stopped: its rounds
    // were cut by the stop, not by the budget.
    let full = plan.sizing.rounds;
    precision.summary_short = end
        .spent
        .summary_short_s
        .filter(|_| end.interrupted_at.is_none())
        .filter(|s| *s > 0.0)
        .filter(|_| precision.summary_rounds.is_some_and(|(lo, _)| lo < full))
        .map(|s| (full, s));
    results.precision = Some(precision);
    results.finished_unix_s = Some(unix_now());
    results.status = if end.interrupted_at.is_some() {
        RunStatus::Partial
    } else {
        RunStatus::Complete
    };
}

/// The fewest and the most rounds among the series the Summary's
/// quantities are read from (`experiments::summary_quantities`); None when
/// the run measured none of them.
pub fn summary_rounds(r: &RunResults) -> Option<(usize, usize)> {
    let rounds: Vec<usize> = crate::experiments::summary_quantities(r)
        .iter()
        .filter_map(|q| Some((&q.headline, r.measured(q.experiment)?)))
        .flat_map(|(h, e)| [h.find(e), h.find_from(e)])
        .flatten()
        .map(|m| m.summary.rounds)
        .collect();
    Some((*rounds.iter().min()?, *rounds.iter().max()?))
}

#[cfg(test)]
#[path = "record_tests.rs"]
mod tests;
