//! Running a plan: every scheduled round in a fresh worker, in the shuffled
//! order of the schedule, the Summary's quantities' further rounds spread
//! into it, then the rounds the run's budget shares out (`run::budget`); an
//! experiment is summarised and analysed as soon as its last round is in.

use super::budget;
use super::plan::{Plan, Planned, Slot};
use super::summarise::{absorb, unsettled};
use crate::measure::protocol::{Job, WorkerOutput};
use crate::measure::sizing::Sizing;
use crate::measure::sizing::MAX_ROUNDS;
use crate::measure::worker;
use crate::results::{Better, Calibration, ExperimentResult, Labels, Status};
use crate::stats;
use rand::rngs::Xoshiro256PlusPlus;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use std::collections::VecDeque;
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
    /// This many more jobs were added to the run: the Summary's quantities'
    /// rounds (`adaptive` false), or a pass of rounds the budget shares out.
    More { jobs: usize, adaptive: bool },
    /// Seconds of measuring left once the job about to start is done, the
    /// seconds that job should take, and whether every point's cost is
    /// measured yet: the progress line's estimate.
    Left {
        after_s: f64,
        job_s: f64,
        settled: bool,
    },
    /// An experiment is complete: every round in, or failed, or skipped.
    Done(Box<ExperimentResult>),
}

/// One experiment while its rounds come in.
struct Pending {
    /// (point, round, what the worker sent), in the order they ran
    outputs: Vec<(usize, usize, WorkerOutput)>,
    /// `run --why`: the sampled twins of those rounds (`run::twin`).
    twins: Vec<(usize, usize, WorkerOutput)>,
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
    /// The points that carry the Summary's quantities, once every point has
    /// a round in (None before: not decided yet).
    summary: Option<Vec<usize>>,
    /// Each point's next round's number (its rounds planned so far).
    next_round: Vec<usize>,
    /// Interrupted with rounds complete: how many, in words (the result is
    /// then made of those rounds, and partial).
    interrupted: Option<String>,
    busy_s: f64,
    done: bool,
}

/// How the run's time went, for the Summary's last line.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spent {
    /// Seconds from the first job to the end of the last.
    pub measured_s: f64,
    /// Seconds the rounds every point must have took: every point's
    /// minimum, and the Summary's quantities' profile rounds.
    pub floor_s: f64,
    /// When the budget's rounds were to end, from the first job
    /// (`budget::deadline_s`); None without adaptive rounds.
    pub deadline_s: Option<f64>,
    /// Seconds more the Summary's points' rounds up to the profile's would
    /// have taken at their costs (0: none short); None without a budget.
    pub summary_short_s: Option<f64>,
}

/// Runs the plan's schedule, and with adaptive rounds, the rounds the
/// budget shares out after it (`run::budget`); `on` hears of every job and
/// of every finished experiment (in the order they finish). Stops early
/// when `ctx.stop` is set: the experiments not finished then are reported
/// failed with what they have, and the signal that stopped the run.
pub fn run(
    plan: &Plan,
    ctx: &JobContext,
    mut on: impl FnMut(Event) -> anyhow::Result<()>,
) -> anyhow::Result<Spent> {
    let mut pending = pending_of(plan);
    // What needs no worker is done at once: unsupported, or nothing to run.
    for (i, p) in plan.experiments.iter().enumerate() {
        if pending[i].jobs == 0 {
            pending[i].done = true;
            on(Event::Done(Box::new(finish(p, &mut pending[i]))))?;
        }
    }
    let limit = Duration::from_secs_f64(ctx.sizing.timeout_s);
    let started = Instant::now();
    let mut rng =
        Xoshiro256PlusPlus::seed_from_u64(stats::seed_for(&format!("{}/budget", plan.seed)));
    let mut queue: VecDeque<Slot> = plan.schedule.iter().copied().collect();
    while let Some(slot) = queue.pop_front() {
        if worker::stopped_by(ctx.stop).is_some() {
            break;
        }
        let costs = costs(plan, &pending);
        let job_s = costs[slot.experiment][slot.point];
        let queued_s: f64 = queue.iter().map(|s| costs[s.experiment][s.point]).sum();
        let deadline = plan
            .adaptive
            .map(|a| budget::deadline_s(a.budget_s, a.asked, rounds_s(plan, &pending, &costs)));
        let after_s = budget::left_s(queued_s, started.elapsed().as_secs_f64() + job_s, deadline);
        // Every point that still runs has a round's cost measured.
        let settled = pending
            .iter()
            .all(|s| s.jobs == 0 || s.failed.is_some() || s.took_s.iter().all(|t| !t.is_empty()));
        on(Event::Left {
            after_s,
            job_s,
            settled,
        })?;
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
        if plan.adaptive.is_some() {
            let jobs = summary_rounds(plan, slot.experiment, state, &mut queue, &mut rng);
            if jobs > 0 {
                on(Event::More {
                    jobs,
                    adaptive: false,
                })?;
            }
        }
    }
    let floor_s = started.elapsed().as_secs_f64();
    let mut deadline_s = None;
    if let Some(target) = plan.adaptive {
        let d = budget::deadline_s(
            target.budget_s,
            target.asked,
            rounds_s(plan, &pending, &costs(plan, &pending)),
        );
        deadline_s = Some(d);
        if worker::stopped_by(ctx.stop).is_none() {
            let at = (started, d, limit);
            adaptive_rounds(plan, ctx, &target, at, &mut pending, &mut rng, &mut on)?;
        }
    }
    let short = |_| summary_layer(plan, &pending, &costs(plan, &pending), 0.0).1;
    let spent = Spent {
        measured_s: started.elapsed().as_secs_f64(),
        floor_s,
        deadline_s,
        summary_short_s: plan.adaptive.map(short),
    };
    finish_left(plan, ctx, &mut pending, &mut on)?;
    Ok(spent)
}

/// Every planned experiment's state before its first job: its jobs
/// counted, each point's next round numbered.
fn pending_of(plan: &Plan) -> Vec<Pending> {
    plan.experiments
        .iter()
        .enumerate()
        .map(|(e, p)| {
            let mut next_round = vec![0; p.points.len()];
            let mut jobs = 0;
            for s in plan.schedule.iter().filter(|s| s.experiment == e) {
                next_round[s.point] = next_round[s.point].max(s.round + 1);
                jobs += 1;
            }
            Pending {
                outputs: Vec::new(),
                twins: Vec::new(),
                took_s: vec![Vec::new(); p.points.len()],
                jobs_left: jobs,
                jobs,
                failed: None,
                failed_points: Vec::new(),
                extra_failed: false,
                extra_notes: Vec::new(),
                reached: Vec::new(),
                summary: None,
                next_round,
                interrupted: None,
                busy_s: 0.0,
                done: false,
            }
        })
        .collect()
}

/// The schedule is over: every experiment not done yet is reported. With
/// adaptive rounds, one whose planned rounds are all in is done, also when
/// a signal cut the adaptive rounds short (they are extra); an interrupted
/// one with what it measured.
fn finish_left(
    plan: &Plan,
    ctx: &JobContext,
    pending: &mut [Pending],
    on: &mut impl FnMut(Event) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    if plan.adaptive.is_some() {
        // Every experiment whose planned rounds are all in is done, also
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
                let rounds = state.next_round.iter().copied().max().unwrap_or(0);
                interrupted(p, state, &why, rounds);
            }
            on(Event::Done(Box::new(finish(p, state))))?;
        }
    }
    Ok(())
}

/// Seconds a round of each point is expected to take: the median of its
/// rounds so far; for a point with none yet, the median of its experiment's
/// rounds, else of the run's, else the progress line's prior.
fn costs(plan: &Plan, pending: &[Pending]) -> Vec<Vec<f64>> {
    let all: Vec<f64> = pending
        .iter()
        .flat_map(|s| s.took_s.iter().flatten().copied())
        .collect();
    let run = stats::median(&all).unwrap_or_else(|| super::progress::prior_s(plan));
    pending
        .iter()
        .map(|s| {
            let own: Vec<f64> = s.took_s.iter().flatten().copied().collect();
            let exp = stats::median(&own).unwrap_or(run);
            s.took_s
                .iter()
                .map(|t| stats::median(t).unwrap_or(exp))
                .collect()
        })
        .collect()
}

/// Seconds the profile's rounds at every point would take, at `costs`:
/// what a run of named experiments measures for at most when the user gave
/// no budget (`budget::deadline_s`).
fn rounds_s(plan: &Plan, pending: &[Pending], costs: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for (e, p) in plan.experiments.iter().enumerate() {
        let state = &pending[e];
        if p.unsupported.is_some() || state.failed.is_some() {
            continue;
        }
        for (point, cost) in costs[e].iter().enumerate() {
            if !state.failed_points.iter().any(|(f, _)| *f == point) {
                s += cost * plan.sizing.rounds as f64;
            }
        }
    }
    s
}

/// Once every point of experiment `e` has a round in (or failed), the
/// points that carry the Summary's quantities get the rest of the profile's
/// Summary minimum (`Sizing::summary_min_rounds`), spread over what is left
/// of the queue (`budget::spread`); the rest of its rounds come from the
/// budget (`summary_layer`). Returns the jobs added.
fn summary_rounds(
    plan: &Plan,
    e: usize,
    state: &mut Pending,
    queue: &mut VecDeque<Slot>,
    rng: &mut Xoshiro256PlusPlus,
) -> usize {
    let p = &plan.experiments[e];
    let failed = |state: &Pending, pt: usize| state.failed_points.iter().any(|(f, _)| *f == pt);
    let ready = (0..p.points.len())
        .all(|pt| failed(state, pt) || state.outputs.iter().any(|(o, _, _)| *o == pt));
    if state.summary.is_some() || state.failed.is_some() || !ready {
        return 0;
    }
    let points = budget::summary_points(p.exp, &state.outputs);
    let live: Vec<usize> = points
        .iter()
        .copied()
        .filter(|&pt| !failed(state, pt))
        .collect();
    let mut added = 0;
    for pt in live {
        let have = state.next_round[pt];
        let need = plan.sizing.summary_min_rounds.saturating_sub(have);
        let at = budget::spread(queue.len(), need, |m| rng.random_range(0..m));
        for (k, i) in at.into_iter().enumerate() {
            let slot = Slot {
                experiment: e,
                point: pt,
                round: have + k,
            };
            queue.insert(i, slot);
        }
        state.next_round[pt] = have + need;
        added += need;
    }
    state.summary = Some(points);
    state.jobs += added;
    state.jobs_left += added;
    added
}

/// The Summary's rounds up to the profile's, planned in `left_s` seconds
/// at `costs` (`budget::summary_plan`): its first layer, a round of each
/// Summary point below them, the cheapest first while they fit (empty when
/// none is below or none fits), and the seconds the rest would take more.
fn summary_layer(
    plan: &Plan,
    pending: &[Pending],
    costs: &[Vec<f64>],
    left_s: f64,
) -> (Vec<(usize, usize)>, f64) {
    let (mut keys, mut cost, mut have) = (Vec::new(), Vec::new(), Vec::new());
    for (e, state) in pending.iter().enumerate() {
        if state.failed.is_some() || state.extra_failed {
            continue;
        }
        for &pt in state.summary.iter().flatten() {
            if !state.failed_points.iter().any(|(f, _)| *f == pt) {
                keys.push((e, pt));
                cost.push(costs[e][pt]);
                have.push(state.next_round[pt]);
            }
        }
    }
    let p = budget::summary_plan(&cost, &have, plan.sizing.rounds, left_s);
    (p.next.into_iter().map(|i| keys[i]).collect(), p.short_s)
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
        let (own, twin) = super::twin::sampling(planned, plan.why.as_ref());
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
            why: own,
        };
        let started = Instant::now();
        let keep = (
            &mut state.twins,
            &mut state.extra_notes,
            (slot.point, slot.round),
        );
        let outcome = super::twin::run_round(&job, twin, ctx.stop, keep, |j| {
            let got = worker::run_job(j, limit, ctx.stop);
            restore_workers_settings();
            got
        });
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

/// A worker killed while it held a kernel setting (Ctrl-C, a time-out, a
/// crash: `sysfs_knob::WORKER_RECORD_FILE`) left its restore record: the
/// setting gets its old value back before the next job.
fn restore_workers_settings() {
    use crate::sys::sysfs_knob;
    let root = sysfs_knob::root();
    let file = sysfs_knob::WORKER_RECORD_FILE;
    if !root.join(sysfs_knob::RECORD_DIR).join(file).exists() {
        return;
    }
    match sysfs_knob::recover_in(&root, file) {
        Ok(restored) => {
            for k in restored {
                eprintln!(
                    "tasklab: restored {} to {} (the worker that changed it was stopped)",
                    k.path, k.value
                );
            }
        }
        // Another run's live worker holds it: its own until it ends.
        Err(e) if e.kind() == std::io::ErrorKind::ResourceBusy => {}
        Err(e) => eprintln!("warning: cannot restore a setting a worker left changed: {e}"),
    }
}

/// Adaptive rounds: until `deadline` (`budget::deadline_s`), passes
/// of one more round each for the points where a round buys the most
/// precision per second (`budget::pass`), in a shuffled order; a point
/// stops when its series all reached the target or it reached the most
/// rounds. Only series that are better one way, shown in tables and not
/// flagged count (a count of what happened has no precision to reach; more
/// rounds do not fix a flag).
fn adaptive_rounds(
    plan: &Plan,
    ctx: &JobContext,
    target: &super::plan::Adaptive,
    (started, deadline, limit): (Instant, f64, Duration),
    pending: &mut [Pending],
    rng: &mut Xoshiro256PlusPlus,
    on: &mut impl FnMut(Event) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut last: Option<(usize, usize)> = None;
    loop {
        if worker::stopped_by(ctx.stop).is_some() {
            return Ok(());
        }
        let costs = costs(plan, pending);
        // The points that may get a round, as the budget sees them.
        let mut keys: Vec<(usize, usize)> = Vec::new();
        let mut points: Vec<budget::Point> = Vec::new();
        for (e, p) in plan.experiments.iter().enumerate() {
            let state = &pending[e];
            if state.failed.is_some() || state.extra_failed || p.unsupported.is_some() {
                continue;
            }
            let mut reached = Vec::new();
            for (point, widths) in series_widths(p, state) {
                if state.reached.contains(&point)
                    || state.failed_points.iter().any(|(f, _)| *f == point)
                {
                    continue;
                }
                // Done by the quick estimate: checked against the interval
                // the results will carry before the point stops, once.
                let quick = widths.iter().copied().fold(0.0, f64::max);
                let width = if quick <= target.precision {
                    point_width_exact(p, state, point)
                } else {
                    quick
                };
                if width <= target.precision {
                    reached.push(point);
                } else if state.next_round[point] < MAX_ROUNDS {
                    keys.push((e, point));
                    points.push(budget::Point {
                        cost_s: costs[e][point],
                        rounds: state.outputs.iter().filter(|o| o.0 == point).count(),
                        widths,
                    });
                }
            }
            pending[e].reached.extend(reached);
        }
        let left = deadline - started.elapsed().as_secs_f64();
        // The Summary's rounds come first; then the passes for precision.
        let mut chosen = summary_layer(plan, pending, &costs, left).0;
        let adaptive = chosen.is_empty();
        if adaptive {
            chosen = budget::pass(&points, target.precision, left, MAX_ROUNDS)
                .into_iter()
                .map(|i| keys[i])
                .collect();
        }
        if chosen.is_empty() {
            return Ok(());
        }
        chosen.shuffle(rng);
        budget::not_first(&mut chosen, last.as_ref());
        on(Event::More {
            jobs: chosen.len(),
            adaptive,
        })?;
        let mut queued_s: f64 = chosen.iter().map(|&(e, pt)| costs[e][pt]).sum();
        for (e, point) in chosen {
            if worker::stopped_by(ctx.stop).is_some() {
                return Ok(());
            }
            let job_s = costs[e][point];
            queued_s -= job_s;
            let elapsed = started.elapsed().as_secs_f64() + job_s;
            on(Event::Left {
                after_s: budget::left_s(queued_s, elapsed, Some(deadline)),
                job_s,
                settled: true,
            })?;
            let round = pending[e].next_round[point];
            pending[e].next_round[point] += 1;
            let slot = Slot {
                experiment: e,
                point,
                round,
            };
            run_slot(plan, ctx, (slot, true), limit, pending, on)?;
            last = Some((e, point));
        }
    }
}

/// Each point's intervals, as half-widths over their medians, of its
/// series that are better one way and shown in tables and not flagged
/// (more rounds do not fix a flag), from the rounds in so far; a point
/// with none is left out. The width is Student's t over the round
/// medians' logs (`stats::rounds::quick_half_width`): the bootstrap the
/// results get would cost a pass over every sample of every round at every
/// pass.
fn series_widths(p: &Planned, state: &Pending) -> std::collections::BTreeMap<usize, Vec<f64>> {
    // (point, name, labels) -> each round's median
    type Key<'a> = (usize, &'a str, &'a Labels);
    let mut rounds: std::collections::HashMap<Key, Vec<f64>> = Default::default();
    for (point, _, out) in &state.outputs {
        for s in &out.series {
            let shown = !s.detail
                && matches!(
                    p.exp.better_for(&s.name, &s.labels),
                    Better::Lower | Better::Higher
                );
            if let (true, Some(m)) = (shown, stats::median(&s.samples)) {
                let key = (*point, s.name.as_str(), &s.labels);
                rounds.entry(key).or_default().push(m);
            }
        }
    }
    let mut widths: std::collections::BTreeMap<usize, Vec<f64>> = Default::default();
    for (key, medians) in rounds {
        if stats::rounds::unsettled(&medians).is_some() {
            continue;
        }
        let w = stats::rounds::quick_half_width(&medians);
        if w.is_finite() {
            widths.entry(key.0).or_default().push(w);
        }
    }
    widths
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
    absorb(&mut r, p.exp, outputs, Vec::new());
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

/// Ok(true) when `r` failed as stdout's reader went away; other errors stay.
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
        fewer_than_asked: plan.fewer_than_asked.clone(),
        round_log: vec![],
        side: plan.side.as_ref().map(|s| s.side),
        failed_points: vec![],
        interrupted: state.interrupted.take(),
        why: vec![],
        why_unsampled: vec![],
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
    let mut twins = std::mem::take(&mut state.twins);
    twins.retain(|(p, _, _)| !failed_points.iter().any(|(f, _)| f == p));
    absorb(&mut result, plan.exp, outputs, twins);
    if result.status == Status::Ok {
        (plan.exp.analyze)(&result).apply(&mut result);
        if let Some((finding, list)) = unsettled(&result) {
            result.findings.push(finding);
            result.notes.push(list);
        }
    }
    result
}

#[cfg(test)]
#[path = "execute_tests.rs"]
mod tests;
