//! Running a planned experiment: each job in a fresh worker, the raw series
//! summarised in the parent, the experiment's analysis applied.

use super::plan::Planned;
use crate::experiments::spec::Merge;
use crate::experiments::Experiment;
use crate::measure::protocol::{Job, WorkerOutput};
use crate::measure::sizing::Sizing;
use crate::measure::worker;
use crate::results::{Calibration, ExperimentResult, Metric, Status, Unit};
use crate::stats;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// What every job of a run shares.
pub struct JobContext<'a> {
    pub profile: crate::measure::sizing::Profile,
    pub sizing: Sizing,
    pub calibration: &'a Calibration,
    pub pin: Option<Vec<usize>>,
    pub scratch: &'a Path,
    pub interrupted: &'a AtomicBool,
}

/// Measures one planned experiment; `on_job` is told when a job starts
/// (with its point) and when it ends.
pub fn experiment(
    plan: &Planned,
    ctx: &JobContext,
    mut on_job: impl FnMut(JobEvent),
) -> ExperimentResult {
    let started = Instant::now();
    let mut result = ExperimentResult {
        name: plan.exp.name.into(),
        group: plan.exp.group().into(),
        summary: plan.exp.summary.into(),
        reproduces: plan.exp.reproduces.into(),
        status: Status::Ok,
        reason: None,
        duration_s: 0.0,
        params: plan.params.to_json(),
        metrics: vec![],
        readings: vec![],
        fits: vec![],
        findings: vec![],
        headlines: vec![],
        notes: plan.notes.clone(),
    };
    if let Some(why) = &plan.unsupported {
        result.status = Status::Skipped;
        result.reason = Some(why.clone());
        result.duration_s = started.elapsed().as_secs_f64();
        return result;
    }
    let limit = Duration::from_secs_f64(ctx.sizing.timeout_s);
    let mut merged = WorkerOutput::default();
    for point in &plan.points {
        on_job(JobEvent::Start(point));
        let job = Job {
            experiment: plan.exp.name.into(),
            profile: ctx.profile,
            params: plan.params.clone(),
            point: point.clone(),
            budget_s: ctx.sizing.budget_s,
            min_samples: ctx.sizing.min_samples,
            max_samples: ctx.sizing.max_samples,
            timer_overhead_ns: ctx.calibration.timer_overhead_ns,
            loop_overhead_ns: ctx.calibration.loop_overhead_ns,
            pin: ctx.pin.clone(),
            scratch: Some(ctx.scratch.to_path_buf()),
        };
        let outcome = worker::run_job(&job, limit, ctx.interrupted);
        on_job(JobEvent::End);
        match outcome {
            Ok(out) => merged.extend(out),
            Err(f) => {
                result.status = Status::Failed;
                result.reason = Some(if point.is_null() {
                    f.reason
                } else {
                    format!("at {point}: {}", f.reason)
                });
                break;
            }
        }
    }
    if plan.exp.merge == Merge::Pool {
        merged.pool_equal_series();
    }
    absorb(&mut result, plan.exp, merged);
    if result.status == Status::Ok {
        (plan.exp.analyze)(&result).apply(&mut result);
    }
    result.duration_s = started.elapsed().as_secs_f64();
    result
}

/// A job starting (at its point) or ending.
pub enum JobEvent<'a> {
    Start(&'a serde_json::Value),
    End,
}

/// Turns a worker's raw series into summarised metrics with their seeds.
pub fn absorb(result: &mut ExperimentResult, exp: &Experiment, out: WorkerOutput) {
    for s in out.series {
        let summary = match stats::summarize(&s.samples) {
            Ok(sm) => sm,
            Err(e) => {
                result
                    .notes
                    .push(format!("{} {:?}: no summary ({e})", s.name, s.labels));
                continue;
            }
        };
        let seed = exp.seed_for(&s.name, &s.labels);
        result.metrics.push(Metric {
            name: s.name,
            unit: s.unit.unwrap_or(Unit::Count),
            labels: s.labels,
            summary,
            samples: s.samples,
            detail: s.detail && seed.is_none(),
            seed,
        });
    }
    result.readings.extend(out.readings);
    result.notes.extend(out.notes);
}

/// A warning when other work keeps the CPUs busy: every figure would carry
/// its preemptions (and, in a VM, fewer idle wake-ups).
pub fn busy_warning() -> Vec<String> {
    let load = crate::sys::procfs::loadavg_1min();
    let cpus = crate::sys::allowed_cpus()
        .map(|c| c.len())
        .unwrap_or(1)
        .max(1) as f64;
    match load {
        Some(l) if l > 0.5 * cpus => vec![format!(
            "the machine is busy (load average {l:.1} on {cpus:.0} CPUs): figures will carry other work's preemptions; rerun when it is idle"
        )],
        _ => vec![],
    }
}
