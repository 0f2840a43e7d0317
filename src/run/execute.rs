//! Running a plan: every scheduled round in a fresh worker, in the shuffled
//! order of the schedule; an experiment is summarised and analysed as soon
//! as its last round is in.

use super::plan::{Plan, Planned, Slot};
use crate::experiments::Experiment;
use crate::measure::protocol::{Job, WorkerOutput};
use crate::measure::sizing::Sizing;
use crate::measure::sizing::MAX_ROUNDS;
use crate::measure::worker;
use crate::results::{
    Better, Calibration, ExperimentResult, Labels, Metric, Reading, Status, Unit,
};
use crate::stats;
use crate::units::fmt_value;
use std::path::Path;
use std::time::{Duration, Instant};

/// What every job of a run shares.
pub struct JobContext<'a> {
    pub profile: crate::measure::sizing::Profile,
    pub sizing: Sizing,
    pub calibration: &'a Calibration,
    pub pin: Option<Vec<usize>>,
    pub scratch: &'a Path,
    /// Set (to the signal's number) when the run must stop early.
    pub stop: &'a worker::StopFlag,
}

/// What the run is told while the schedule runs.
pub enum Event<'a> {
    /// A job starts: which experiment, point and round.
    Start(&'a Planned, Slot),
    /// A job ended (or was skipped because its experiment already failed).
    End,
    /// Adaptive rounds: this many more jobs were added to the run.
    More(usize),
    /// An experiment is complete: every round in, or failed, or skipped.
    Done(Box<ExperimentResult>),
}

/// One experiment while its rounds come in.
struct Pending {
    /// (point, round, what the worker sent), in the order they ran
    outputs: Vec<(usize, usize, WorkerOutput)>,
    /// Seconds each point's rounds took, for sizing adaptive rounds.
    took_s: Vec<Vec<f64>>,
    jobs_left: usize,
    jobs: usize,
    /// Why the whole experiment failed (interrupted; every point failed).
    failed: Option<String>,
    /// Points whose job failed, and why: their other rounds are not run,
    /// and what they measured is left out; the other points are kept.
    failed_points: Vec<(usize, String)>,
    /// An adaptive round failed: no more of them, and why (a note).
    extra_failed: bool,
    extra_notes: Vec<String>,
    /// Points that reached the precision target by the bootstrap's interval.
    reached: Vec<usize>,
    /// Interrupted with rounds complete: how many, in words (the result is
    /// then made of those rounds, and partial).
    interrupted: Option<String>,
    busy_s: f64,
    done: bool,
}

/// Runs the plan's schedule; `on` hears of every job and of every finished
/// experiment (in the order they finish). Stops early when `ctx.stop` is
/// set: the experiments not finished then are reported failed with what
/// they have, and the signal that stopped the run.
pub fn run(
    plan: &Plan,
    ctx: &JobContext,
    mut on: impl FnMut(Event) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut pending: Vec<Pending> = plan
        .experiments
        .iter()
        .map(|p| {
            let jobs = if p.unsupported.is_some() {
                0
            } else {
                p.points.len() * plan.sizing.rounds
            };
            Pending {
                outputs: Vec::new(),
                took_s: vec![Vec::new(); p.points.len()],
                jobs_left: jobs,
                jobs,
                failed: None,
                failed_points: Vec::new(),
                extra_failed: false,
                extra_notes: Vec::new(),
                reached: Vec::new(),
                interrupted: None,
                busy_s: 0.0,
                done: false,
            }
        })
        .collect();
    // What needs no worker is done at once: unsupported, or nothing to run.
    for (i, p) in plan.experiments.iter().enumerate() {
        if pending[i].jobs == 0 {
            pending[i].done = true;
            on(Event::Done(Box::new(finish(p, &mut pending[i]))))?;
        }
    }
    let limit = Duration::from_secs_f64(ctx.sizing.timeout_s);
    let started = Instant::now();
    for &slot in &plan.schedule {
        if worker::stopped_by(ctx.stop).is_some() {
            break;
        }
        run_slot(plan, ctx, (slot, false), limit, &mut pending, &mut on)?;
        let state = &mut pending[slot.experiment];
        state.jobs_left -= 1;
        // Without adaptive rounds an experiment is done with its last
        // round; with them, when the adaptive rounds are over.
        if state.jobs_left == 0 && !state.done && plan.adaptive.is_none() {
            state.done = true;
            on(Event::Done(Box::new(finish(
                &plan.experiments[slot.experiment],
                state,
            ))))?;
        }
    }
    if let Some(target) = plan.adaptive {
        if worker::stopped_by(ctx.stop).is_none() {
            adaptive_rounds(plan, ctx, &target, started, limit, &mut pending, &mut on)?;
        }
        // Every experiment whose profile rounds are all in is done, also
        // when a signal cut the adaptive rounds short: they are extra.
        for (i, p) in plan.experiments.iter().enumerate() {
            let state = &mut pending[i];
            if !state.done && state.jobs_left == 0 {
                state.done = true;
                on(Event::Done(Box::new(finish(p, state))))?;
            }
        }
    }
    // Interrupted: what did not finish is reported with what it measured.
    for (i, p) in plan.experiments.iter().enumerate() {
        let state = &mut pending[i];
        if !state.done {
            state.done = true;
            if state.failed.is_none() {
                let why = match worker::stopped_by(ctx.stop) {
                    Some(sig) => worker::stop_reason(sig),
                    None => "interrupted".into(),
                };
                interrupted(p, state, &why, plan.sizing.rounds);
            }
            on(Event::Done(Box::new(finish(p, state))))?;
        }
    }
    Ok(())
}

/// Complete rounds an interrupted experiment needs for figures of its own:
/// two give an interval; with fewer it reports failed.
pub const MIN_COMPLETE_ROUNDS: usize = 2;

/// The rounds every point of an experiment ran (its failed points aside):
/// what figures can rest on when the run was interrupted.
pub fn complete_rounds(points: usize, failed: &[usize], ran: &[(usize, usize)]) -> Vec<usize> {
    let mut rounds: Vec<usize> = ran.iter().map(|(_, r)| *r).collect();
    rounds.sort_unstable();
    rounds.dedup();
    rounds.retain(|r| {
        (0..points)
            .filter(|p| !failed.contains(p))
            .all(|p| ran.contains(&(p, *r)))
    });
    rounds
}

/// An experiment the run stopped before its rounds were all in: with
/// [`MIN_COMPLETE_ROUNDS`] or more complete rounds it keeps those and is
/// partial, said in words; else it failed, with how far it came.
fn interrupted(p: &Planned, state: &mut Pending, why: &str, rounds: usize) {
    let failed: Vec<usize> = state.failed_points.iter().map(|(f, _)| *f).collect();
    let ran: Vec<(usize, usize)> = state.outputs.iter().map(|(p, r, _)| (*p, *r)).collect();
    let complete = complete_rounds(p.points.len(), &failed, &ran);
    let jobs = format!(
        "{} of its {} jobs",
        state.jobs - state.jobs_left,
        state.jobs
    );
    let k = complete.len();
    if k >= MIN_COMPLETE_ROUNDS && failed.len() < p.points.len() {
        state.outputs.retain(|(_, r, _)| complete.contains(r));
        state.interrupted = Some(format!(
            "{why} with {k} of its {rounds} rounds complete ({jobs}), so its figures and findings are from those {k} rounds"
        ));
    } else {
        state.failed = Some(format!(
            "{why} after {jobs}, with {k} complete {} of its {rounds} ({MIN_COMPLETE_ROUNDS} are needed for figures)",
            if k == 1 { "round" } else { "rounds" }
        ));
    }
}

/// Runs one round of one point in a fresh worker, unless its experiment
/// already failed, and keeps what it sent.
fn run_slot(
    plan: &Plan,
    ctx: &JobContext,
    (slot, extra): (Slot, bool),
    limit: Duration,
    pending: &mut [Pending],
    on: &mut impl FnMut(Event) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let planned = &plan.experiments[slot.experiment];
    let state = &mut pending[slot.experiment];
    let point_failed = state.failed_points.iter().any(|(p, _)| *p == slot.point);
    if state.failed.is_none() && !point_failed && !(extra && state.extra_failed) {
        on(Event::Start(planned, slot))?;
        let point = &planned.points[slot.point];
        let job = Job {
            experiment: planned.exp.name.into(),
            profile: ctx.profile,
            params: planned.params.clone(),
            point: point.clone(),
            round: slot.round,
            rounds: plan.sizing.rounds,
            seed: job_seed(plan.seed, slot),
            budget_s: ctx.sizing.budget_s,
            min_samples: ctx.sizing.min_samples,
            max_samples: ctx.sizing.max_samples,
            timer_overhead_ns: ctx.calibration.timer_overhead_ns,
            loop_overhead_ns: ctx.calibration.loop_overhead_ns,
            pin: planned
                .side
                .as_ref()
                .and_then(|s| s.pin.clone())
                .or_else(|| ctx.pin.clone()),
            scratch: Some(ctx.scratch.to_path_buf()),
            env: planned
                .side
                .as_ref()
                .map_or_else(Vec::new, |s| s.env.clone()),
        };
        let started = Instant::now();
        let outcome = worker::run_job(&job, limit, ctx.stop);
        let took = started.elapsed().as_secs_f64();
        state.busy_s += took;
        state.took_s[slot.point].push(took);
        let at = |why: String| {
            if point.is_null() {
                why
            } else {
                format!("at {}: {why}", super::progress::point_words(point))
            }
        };
        match outcome {
            Ok(out) => state.outputs.push((slot.point, slot.round, out)),
            // Stopped by a signal: the run reports the interruption, not
            // this point.
            Err(_) if worker::stopped_by(ctx.stop).is_some() => {}
            // An adaptive round is extra: its failure costs the experiment
            // its further adaptive rounds, never the rounds it has.
            Err(f) if extra => {
                state.extra_failed = true;
                state.extra_notes.push(format!(
                    "an adaptive round failed, so this experiment got no more of them: {}",
                    at(f.reason)
                ));
            }
            // A failed job fails only its point: the others go on.
            Err(f) => state.failed_points.push((slot.point, at(f.reason))),
        }
    }
    on(Event::End)
}

/// Adaptive rounds: while the run's time budget lasts, the points whose
/// widest series is furthest from the precision target get one more round
/// each, widest first, a pass at a time; a point stops when its series all
/// reached the target or it reached the most rounds. Only series that are
/// better one way, shown in tables and not flagged count (a count of what
/// happened has no precision to reach; more rounds do not fix a flag).
fn adaptive_rounds(
    plan: &Plan,
    ctx: &JobContext,
    target: &super::plan::Adaptive,
    started: Instant,
    limit: Duration,
    pending: &mut [Pending],
    on: &mut impl FnMut(Event) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let base_s = started.elapsed().as_secs_f64();
    let deadline = if target.asked {
        target.budget_s
    } else {
        target.budget_s.min(2.0 * base_s)
    };
    let mut next_round: Vec<Vec<usize>> = plan
        .experiments
        .iter()
        .map(|p| vec![plan.sizing.rounds; p.points.len()])
        .collect();
    loop {
        if worker::stopped_by(ctx.stop).is_some() {
            return Ok(());
        }
        // (widest half-width over target, experiment, point, seconds a round)
        let mut wide: Vec<(f64, usize, usize, f64)> = Vec::new();
        for (e, p) in plan.experiments.iter().enumerate() {
            let state = &pending[e];
            if state.failed.is_some() || state.extra_failed || p.unsupported.is_some() {
                continue;
            }
            let mut reached = Vec::new();
            for (point, quick) in point_widths(p, state) {
                if state.reached.contains(&point)
                    || state.failed_points.iter().any(|(f, _)| *f == point)
                {
                    continue;
                }
                // Done by the quick estimate: checked against the interval
                // the results will carry before the point stops, once.
                let width = if quick <= target.precision {
                    point_width_exact(p, state, point)
                } else {
                    quick
                };
                if width <= target.precision {
                    reached.push(point);
                }
                if width > target.precision && next_round[e][point] < MAX_ROUNDS {
                    let took = stats::median(&state.took_s[point]).unwrap_or(1.0);
                    wide.push((width / target.precision, e, point, took));
                }
            }
            pending[e].reached.extend(reached);
        }
        if wide.is_empty() {
            return Ok(());
        }
        wide.sort_by(|a, b| b.0.total_cmp(&a.0));
        let left = deadline - started.elapsed().as_secs_f64();
        // This pass: widest first, as many as the time left holds.
        let mut spend = 0.0;
        let pass: Vec<(usize, usize)> = wide
            .iter()
            .filter(|(_, _, _, took)| {
                let fits = spend + took <= left;
                if fits {
                    spend += took;
                }
                fits
            })
            .map(|&(_, e, point, _)| (e, point))
            .collect();
        if pass.is_empty() {
            return Ok(());
        }
        on(Event::More(pass.len()))?;
        for (e, point) in pass {
            if worker::stopped_by(ctx.stop).is_some() {
                return Ok(());
            }
            let round = next_round[e][point];
            next_round[e][point] += 1;
            let slot = Slot {
                experiment: e,
                point,
                round,
            };
            run_slot(plan, ctx, (slot, true), limit, pending, on)?;
        }
    }
}

/// Each point's widest interval, as a half-width over its median, among
/// its series that are better one way and shown in tables and not flagged
/// (more rounds do not fix a flag), from the rounds in so far. The width is
/// Student's t over the round medians' logs with the run's noise
/// (`stats::rounds::quick_half_width`): the bootstrap the results get would
/// cost a pass over every sample of every round at every pass.
fn point_widths(p: &Planned, state: &Pending) -> Vec<(usize, f64)> {
    // (point, name, labels) -> each round's samples
    type Key<'a> = (usize, &'a str, &'a Labels);
    let mut rounds: std::collections::HashMap<Key, Vec<Vec<f64>>> = Default::default();
    let mut wanted: std::collections::HashMap<Key, bool> = Default::default();
    for (point, _, out) in &state.outputs {
        for s in &out.series {
            let key = (*point, s.name.as_str(), &s.labels);
            let shown = !s.detail
                && matches!(
                    p.exp.better_for(&s.name, &s.labels),
                    Better::Lower | Better::Higher
                );
            wanted.insert(key, shown);
            rounds.entry(key).or_default().push(s.samples.clone());
        }
    }
    let mut widest: std::collections::BTreeMap<usize, f64> = Default::default();
    for (key, by_round) in rounds {
        if !wanted[&key] {
            continue;
        }
        let medians: Vec<f64> = by_round.iter().filter_map(|r| stats::median(r)).collect();
        if stats::rounds::unsettled(&medians).is_some() {
            continue;
        }
        let w = stats::rounds::quick_half_width(&medians);
        if w.is_finite() {
            let e = widest.entry(key.0).or_insert(0.0);
            *e = e.max(w);
        }
    }
    widest.into_iter().collect()
}

/// The widest interval of a point's shown series that are better one way
/// and not flagged, from the bootstrap the results will carry: what a point
/// the quick estimate calls done is checked against before it stops.
fn point_width_exact(p: &Planned, state: &Pending, point: usize) -> f64 {
    let outputs: Vec<(usize, usize, WorkerOutput)> = state
        .outputs
        .iter()
        .filter(|(pt, _, _)| *pt == point)
        .cloned()
        .collect();
    let mut r = ExperimentResult::default_named(p.exp.name);
    absorb(&mut r, p.exp, outputs);
    r.metrics
        .iter()
        .filter(|m| m.has_precision_target() && !m.summary.unstable)
        .map(|m| m.summary.half_width())
        .filter(|w| w.is_finite())
        .fold(0.0, f64::max)
}

/// Writes `s` to stdout now. SIGPIPE is ignored during a run, so a reader
/// that went away gives an error of kind BrokenPipe instead of a kill.
pub fn print_out(s: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(s.as_bytes())?;
    out.flush()
}

/// Ok(true) when `r` failed because stdout's reader went away; other errors
/// stay errors.
pub fn broken_pipe(r: anyhow::Result<()>) -> anyhow::Result<bool> {
    match r {
        Ok(()) => Ok(false),
        Err(e)
            if e.downcast_ref::<std::io::Error>().map(|e| e.kind())
                == Some(std::io::ErrorKind::BrokenPipe) =>
        {
            Ok(true)
        }
        Err(e) => Err(e),
    }
}

/// Each job's own seed: the run's, mixed with where the job stands.
fn job_seed(seed: u64, slot: Slot) -> u64 {
    stats::seed_for(&format!(
        "{seed}/{}/{}/{}",
        slot.experiment, slot.point, slot.round
    ))
}

/// The result of an experiment whose rounds are all in (or that failed).
fn finish(plan: &Planned, state: &mut Pending) -> ExperimentResult {
    let mut result = ExperimentResult {
        name: plan.exp.name.into(),
        group: plan.exp.group().into(),
        summary: plan.exp.summary.into(),
        reproduces: plan.exp.reproduces.into(),
        status: Status::Ok,
        reason: None,
        duration_s: state.busy_s,
        params: plan.params.to_json(),
        metrics: vec![],
        readings: vec![],
        fits: vec![],
        findings: vec![],
        headlines: vec![],
        notes: plan
            .notes
            .iter()
            .chain(&state.extra_notes)
            .cloned()
            .collect(),
        round_log: vec![],
        side: plan.side.as_ref().map(|s| s.side),
        failed_points: vec![],
        interrupted: state.interrupted.take(),
    };
    if let Some(why) = &plan.unsupported {
        result.status = Status::Skipped;
        result.reason = Some(why.clone());
        return result;
    }
    let failed_points = std::mem::take(&mut state.failed_points);
    if let Some(why) = state.failed.take() {
        result.status = Status::Failed;
        result.reason = Some(why);
    } else if !failed_points.is_empty() && failed_points.len() == plan.points.len() {
        // Every point failed: the experiment did, for their reasons.
        result.status = Status::Failed;
        let reasons: Vec<&str> = failed_points.iter().map(|(_, r)| r.as_str()).collect();
        result.reason = Some(reasons.join("; "));
    }
    result.failed_points = failed_points
        .iter()
        .map(|(p, reason)| crate::results::FailedPoint {
            point: plan.points[*p].clone(),
            reason: reason.clone(),
        })
        .collect();
    // Point order, then the order the rounds ran (a stable sort of what came
    // in): the metrics come out in the order the experiment lists its sweep,
    // and each series' rounds in time order, so a trend over the run shows.
    // A failed point's rounds are left out: its figures would rest on the
    // rounds before the failure alone.
    let mut outputs = std::mem::take(&mut state.outputs);
    outputs.retain(|(p, _, _)| !failed_points.iter().any(|(f, _)| f == p));
    outputs.sort_by_key(|(point, _, _)| *point);
    absorb(&mut result, plan.exp, outputs);
    if result.status == Status::Ok {
        (plan.exp.analyze)(&result).apply(&mut result);
        if let Some((finding, list)) = unsettled(&result) {
            result.findings.push(finding);
            result.notes.push(list);
        }
    }
    result
}

/// One series while its rounds come in.
struct Series {
    name: String,
    unit: Unit,
    labels: Labels,
    detail: bool,
    point: usize,
    /// (round, samples)
    rounds: Vec<(usize, Vec<f64>)>,
}

/// Turns the workers' raw series into metrics: each job's samples of a
/// series are one round of it; the summary's interval comes from the rounds.
/// Readings repeated by every round become their median; notes are kept
/// once each.
pub fn absorb(
    result: &mut ExperimentResult,
    exp: &Experiment,
    outputs: Vec<(usize, usize, WorkerOutput)>,
) {
    let mut series: Vec<Series> = Vec::new();
    let mut readings: Vec<(Reading, Vec<f64>)> = Vec::new();
    for (point, round, out) in outputs {
        if let Some(telemetry) = out.telemetry {
            result.round_log.push(crate::results::RoundRecord {
                point,
                round,
                telemetry,
            });
        }
        for s in out.series {
            let at = match series
                .iter()
                .position(|x| x.name == s.name && x.labels == s.labels)
            {
                Some(i) => i,
                None => {
                    series.push(Series {
                        name: s.name.clone(),
                        unit: s.unit.unwrap_or(Unit::Count),
                        labels: s.labels.clone(),
                        detail: s.detail,
                        point,
                        rounds: Vec::new(),
                    });
                    series.len() - 1
                }
            };
            let rounds = &mut series[at].rounds;
            match rounds.iter_mut().find(|(r, _)| *r == round) {
                Some((_, v)) => v.extend(s.samples),
                None => rounds.push((round, s.samples)),
            }
        }
        for r in out.readings {
            match readings
                .iter_mut()
                .find(|(x, _)| x.name == r.name && x.labels == r.labels)
            {
                Some((_, values)) => values.push(r.value),
                None => {
                    let v = r.value;
                    readings.push((r, vec![v]));
                }
            }
        }
        for n in out.notes {
            if !result.notes.contains(&n) {
                result.notes.push(n);
            }
        }
    }
    for s in series {
        let ids: Vec<usize> = s.rounds.iter().map(|(r, _)| *r).collect();
        let rounds: Vec<Vec<f64>> = s.rounds.into_iter().map(|(_, v)| v).collect();
        let summary =
            match crate::results::summarize_series(exp.name, &s.name, &s.labels, s.unit, &rounds) {
                Ok(sm) => sm,
                Err(e) => {
                    result
                        .notes
                        .push(format!("{} {:?}: no summary ({e})", s.name, s.labels));
                    continue;
                }
            };
        let mut summary = summary;
        explain_modes(&mut summary, &result.round_log, s.point, &ids);
        let seed = exp.seed_for(&s.name, &s.labels);
        let better = exp.better_for(&s.name, &s.labels);
        result.metrics.push(Metric {
            name: s.name,
            unit: s.unit,
            labels: s.labels,
            summary,
            rounds: rounds.iter().map(Vec::len).collect(),
            samples: rounds.into_iter().flatten().collect(),
            detail: s.detail && seed.is_none(),
            better,
            seed,
            point: Some(s.point),
        });
    }
    with_run_noise(&mut result.metrics);
    for (mut r, values) in readings {
        r.value = stats::median(&values).unwrap_or(r.value);
        result.readings.push(r);
    }
}

/// Widens each series' interval by its family's run-to-run noise (an
/// experiment at one point, each unit on its own: the host's state moves
/// times together, not sizes): the family's drift over this run, its early
/// rounds against its late ones (`stats::noise::drift_excess`), never less
/// than the floor. The interval then speaks of the next run's median, and
/// `compare` builds its own from `se_ln` and the noise it measures.
fn with_run_noise(metrics: &mut [Metric]) {
    type Key = (Option<usize>, Unit);
    let mut excess: std::collections::BTreeMap<Key, Vec<f64>> = Default::default();
    for m in metrics.iter().filter(|m| !m.summary.unstable) {
        if let Some(x) = stats::noise::drift_excess(&m.summary.round_medians) {
            excess.entry((m.point, m.unit)).or_default().push(x);
        }
    }
    for m in metrics.iter_mut() {
        let drift = excess
            .get(&(m.point, m.unit))
            .and_then(|x| stats::noise::tau2_from_drift(x));
        let (tau, _) = stats::noise::family_tau(&[], &[], drift);
        stats::rounds::widen_by_run_noise(&mut m.summary, tau);
        if m.unit == Unit::Percent {
            // A percentage cannot exceed 100: neither can its interval.
            m.summary.ci95_hi = m.summary.ci95_hi.min(100.0);
        }
    }
}

/// Adds to a series flagged for two modes what its rounds' own records say
/// sets the modes apart, when they do (`explain::mode_covariate`).
fn explain_modes(
    s: &mut crate::stats::Summary,
    log: &[crate::results::RoundRecord],
    point: usize,
    ids: &[usize],
) {
    let Some(stats::rounds::Unsettled::TwoModes {
        low,
        high,
        explained,
        ..
    }) = &mut s.unsettled
    else {
        return;
    };
    let cut = (*low * *high).sqrt();
    let low_mode: Vec<bool> = s.round_medians.iter().map(|m| *m < cut).collect();
    let records: Option<Vec<&crate::results::RoundTelemetry>> = ids
        .iter()
        .map(|id| {
            log.iter()
                .find(|r| r.point == point && r.round == *id)
                .map(|r| &r.telemetry)
        })
        .collect();
    if let Some(records) = records {
        *explained = crate::measure::explain::mode_covariate(&low_mode, &records, |x| {
            fmt_value(x, Unit::Ns)
        });
    }
}

/// Series named in the note on what was flagged, at most.
const UNSETTLED_LISTED: usize = 12;

/// The series flagged for what more rounds cannot fix (a trend over the
/// run, two modes): a short finding (how many, the first of them, and that
/// no other finding rests on them) and a note that names each flag.
fn unsettled(r: &ExperimentResult) -> Option<(String, String)> {
    let bad: Vec<(String, String)> = r
        .metrics
        .iter()
        .filter(|m| m.summary.unstable)
        .map(|m| {
            let name = format!("{} {}", m.name, crate::results::case(m));
            let why = m
                .summary
                .unsettled
                .as_ref()
                .map_or_else(|| "its rounds disagree".to_string(), |u| u.words(m.unit));
            let said = format!("{name}: {why}");
            (name, said)
        })
        .collect();
    let (first, first_said) = bad.first()?;
    let n = bad.len();
    let mut finding = if n == 1 {
        format!("flagged here: {first_said}; its median and interval are in the table, and no finding rests on it")
    } else {
        format!("flagged here: {n} series, {first} the first (a trend over the run or two modes: the notes name each); their medians and intervals are in the table, and no finding rests on them")
    };
    // What held the experiment's workers back that can unsettle a figure:
    // steal, throttling (run delay is often the worker's own tasks). Over
    // all its rounds: a series does not know which of them were its own.
    let seen = crate::measure::explain::held_back(&r.round_log, None);
    if !seen.is_empty() {
        finding.push_str(&format!(
            "; over this experiment's rounds, {}",
            seen.join("; ")
        ));
    }
    let shown: Vec<&str> = bad
        .iter()
        .take(UNSETTLED_LISTED)
        .map(|b| b.1.as_str())
        .collect();
    let more = n.saturating_sub(shown.len());
    let list = format!(
        "flagged: {}{}",
        shown.join("; "),
        if more > 0 {
            format!("; and {more} more series (results.json has them, flagged unstable)")
        } else {
            String::new()
        }
    );
    Some((finding, list))
}

#[cfg(test)]
#[path = "execute_tests.rs"]
mod tests;
