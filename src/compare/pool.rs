//! Both sides of a comparison as series: the files of one side pooled, each
//! file a run whose rounds stay its own (the runs are a level of the
//! interval), and every series summarised anew from its samples so both
//! sides' intervals come from the same rules.

use super::next::Setting;
use crate::experiments;
use crate::results::{
    summarize_series, summarize_series_runs, Better, Canary, ExperimentResult, Labels, Metric,
    RunResults, RunStatus, Status, Unit,
};
use crate::stats::twoside::RunFig;
use crate::stats::Summary;

/// One series of one side, pooled over that side's files.
#[derive(Clone, Debug)]
pub struct Series {
    pub experiment: String,
    pub metric: String,
    pub labels: Labels,
    pub unit: Unit,
    pub better: Better,
    pub summary: Summary,
    /// What a file flagged in it (a trend over its run, two modes), with
    /// the file's name: each run's own flag, joined.
    pub flagged: Option<String>,
    /// KiB of the series' memory the kernel backed with huge pages, per file
    /// (the `anon_huge_kib` readings of its point): a condition of the
    /// measurement that memory fragmentation, not the code, can change.
    pub huge_kib: Vec<f64>,
    /// The experiment's point the series was measured at, when the files
    /// record it: with the experiment, the series' family.
    pub point: Option<usize>,
    /// Each run's figure, for a series positive throughout (the change is
    /// built from these: `stats::twoside`); empty otherwise.
    pub runs: Vec<RunFig>,
    /// Each run's spread over its rounds (`stats::noise::spread2`).
    pub spread2: Vec<f64>,
    /// Each run's round medians in logs, in the order the rounds ran
    /// (empty for a run with a median not positive).
    pub rounds_ln: Vec<Vec<f64>>,
    /// Each run's memory canary at each of those rounds, in logs (the
    /// first touch of fresh memory per page, the geometric mean of the
    /// round's start and end: `memory_canary`); empty for a run whose
    /// rounds lack it.
    pub canary_ln: Vec<Vec<f64>>,
    /// The same of the system call's canary (`round_canary`): the
    /// machine's speed at each round.
    pub syscall_ln: Vec<Vec<f64>>,
    /// The series' calibration (its runs' variance, the part their rounds
    /// explain, its degrees of freedom), when a noise file has the series.
    pub band: Option<crate::stats::noise::Calibrated>,
}

impl Series {
    /// A series of one side from its runs (each a list of rounds, each
    /// round its samples), with nothing flagged, no point and no band: what
    /// tests build sides of.
    #[cfg(test)]
    pub fn of_runs(
        experiment: &str,
        metric: &str,
        labels: Labels,
        (unit, better): (Unit, Better),
        runs: &[Vec<Vec<f64>>],
    ) -> Option<Series> {
        let mut s = Series {
            experiment: experiment.into(),
            metric: metric.into(),
            labels,
            unit,
            better,
            summary: crate::stats::summarize(&[0.0]).ok()?,
            flagged: None,
            huge_kib: vec![],
            point: None,
            runs: vec![],
            spread2: vec![],
            rounds_ln: vec![],
            canary_ln: vec![],
            syscall_ln: vec![],
            band: None,
        };
        s.measured(runs)?;
        Some(s)
    }

    /// Sets what the series' runs give: each run's figure (its log median
    /// and the standard error its rounds give) and spread, and the summary
    /// the table shows (the runs pooled). None when a run cannot be
    /// summarised.
    fn measured(&mut self, runs: &[Vec<Vec<f64>>]) -> Option<()> {
        let (e, m, l) = (&self.experiment, &self.metric, &self.labels);
        let each: Vec<Summary> = runs
            .iter()
            .map(|r| summarize_series(e, m, l, r).ok())
            .collect::<Option<_>>()?;
        self.summary = if let [only] = &each[..] {
            only.clone()
        } else {
            let all: Vec<&[Vec<f64>]> = runs.iter().map(Vec::as_slice).collect();
            summarize_series_runs(e, m, l, &all).ok()?
        };
        self.runs = each
            .iter()
            .map(|x| {
                let se = x.se_ln?;
                (x.median > 0.0).then(|| RunFig {
                    ln_median: x.median.ln(),
                    se2: se * se,
                    rounds: x.rounds,
                })
            })
            .collect::<Option<Vec<_>>>()
            .unwrap_or_default();
        self.spread2 = each
            .iter()
            .filter_map(|x| crate::stats::noise::spread2(&x.round_medians))
            .collect();
        self.rounds_ln = each
            .iter()
            .map(|x| {
                let m = &x.round_medians;
                if m.iter().all(|v| v.is_finite() && *v > 0.0) {
                    m.iter().map(|v| v.ln()).collect()
                } else {
                    Vec::new()
                }
            })
            .collect();
        Some(())
    }

    /// The series' family: its experiment at one point (its labels, in
    /// files that do not record the point).
    pub fn family(&self) -> String {
        match self.point {
            Some(p) => format!("{} #{p}", self.experiment),
            None => format!(
                "{} {}",
                self.experiment,
                crate::results::case_of(&self.labels)
            ),
        }
    }
}

/// What a side is: its files' series, and what is odd about its files.
#[derive(Clone, Debug, Default)]
pub struct Side {
    pub series: Vec<Series>,
    /// Partial runs, failed experiments, busy machines, per file.
    pub status: Vec<String>,
    /// The THP setting of each file's machine.
    pub thp: Vec<String>,
    /// How far the machine's speed moved while this side was measured
    /// (`stats::drift` of every round's canary, over all its files).
    pub drift: Option<f64>,
    /// The median of every round's canary (a bare system call), ns: the
    /// machine's own speed while this side was measured.
    pub canary_ns: Option<f64>,
    /// The memory canary of the side, in logs: the mean over its runs of
    /// each run's median over every round (start and end) of the first
    /// touch of fresh memory per 4 KiB page; None when a run lacks it.
    pub memory_canary_ln: Option<f64>,
    /// The same of the system call's canary.
    pub syscall_canary_ln: Option<f64>,
    /// How many files (runs) the side pools.
    pub runs: usize,
    /// A file ran the quick profile.
    pub quick: bool,
    /// What a file recorded of other work on its machine (the first such).
    pub busy: Option<String>,
    /// Experiments a file holds only part of, or none of, with what
    /// happened: ("spawn.heap", "2 points failed"), ("memory.threads",
    /// "failed").
    pub partial: Vec<(String, String)>,
}

/// What a comparison of `base` against `new` allows as next steps (`ab`
/// sets its own flag): what their files recorded.
pub fn setting(base: &Side, new: &Side) -> Setting {
    let busy = [("base", base), ("new", new)]
        .iter()
        .filter_map(|(name, side)| side.busy.as_ref().map(|w| format!("{name}: {w}")))
        .collect();
    Setting {
        ab: false,
        runs: base.runs.min(new.runs).max(1),
        quick: base.quick || new.quick,
        busy,
    }
}

/// A series' calibration, if the noise file has one: (experiment, metric,
/// labels) to its runs' variance in logs, the part their rounds explain and
/// its degrees of freedom (`stats::noise::Calibrated`).
pub type Bands<'a> = &'a dyn Fn(&str, &str, &Labels) -> Option<crate::stats::noise::Calibrated>;

/// Pools `files` (named `names`) into one side.
pub fn side(files: &[RunResults], names: &[String]) -> Side {
    side_with(files, names, &|_, _, _| None)
}

/// [`side`] with each series' calibrated noise where `bands` has one (the
/// comparison's run-to-run noise then rests on it). Each series keeps each
/// run's figure (its log median and the standard error its rounds give)
/// and spread; its summary, the side's runs pooled, is what the table
/// shows.
pub fn side_with(files: &[RunResults], names: &[String], bands: Bands) -> Side {
    let mut pool = Pool::default();
    let mut status = Vec::new();
    let mut thp = Vec::new();
    let mut canaries = Vec::new();
    let mut memory = Vec::new();
    let mut syscall = Vec::new();
    let (mut quick, mut busy, mut partial) = (false, None, Vec::new());
    for (r, name) in files.iter().zip(names) {
        quick |= r.profile == "quick";
        busy = busy.or_else(|| super::next::busy_words(r));
        thp.push(r.env.thp_enabled.clone().unwrap_or_default());
        status_of(r, name, &mut status, &mut partial);
        canaries.extend(r.canaries().iter().map(|c| c.syscall_ns));
        memory.push(run_canary(r, Canary::fresh_page));
        syscall.push(run_canary(r, Canary::syscall));
        for e in r.experiments.iter().filter(|e| e.status == Status::Ok) {
            for m in &e.metrics {
                pool.add(e, m, name);
            }
        }
    }
    let series = pool
        .pooled
        .into_iter()
        .filter_map(|(mut s, runs)| {
            s.measured(&runs)?;
            s.band = bands(&s.experiment, &s.metric, &s.labels);
            Some(s)
        })
        .collect();
    thp.sort();
    thp.dedup();
    Side {
        series,
        status,
        thp,
        drift: crate::stats::drift(&canaries),
        canary_ns: crate::stats::median(&canaries),
        memory_canary_ln: mean_of_runs(&memory),
        syscall_canary_ln: mean_of_runs(&syscall),
        runs: files.len(),
        quick,
        busy,
        partial,
    }
}

/// The mean of the runs' figures, when every run has one.
fn mean_of_runs(v: &[Option<f64>]) -> Option<f64> {
    v.iter()
        .copied()
        .collect::<Option<Vec<f64>>>()
        .filter(|v| !v.is_empty())
        .map(|v| v.iter().sum::<f64>() / v.len() as f64)
}

/// A run's canary in logs: the median over every round's canary (start
/// and end) of the reading `read` (the first touch of fresh memory per
/// page, a system call); None in files without it.
fn run_canary(r: &RunResults, read: fn(&Canary) -> Option<f64>) -> Option<f64> {
    let v: Vec<f64> = r.canaries().iter().filter_map(read).collect();
    crate::stats::median(&v).map(f64::ln)
}

/// The memory canary at each round of series `m` of experiment `e`, in
/// logs ([`round_canary`] of the first touch of fresh memory).
pub fn memory_canary(e: &ExperimentResult, m: &Metric) -> Vec<f64> {
    round_canary(e, m, Canary::fresh_page)
}

/// The canary reading `read` at each round of series `m` of experiment
/// `e`, in logs, in the order its rounds ran: the round records of its
/// point, in the order they were written (each job's record and its
/// samples come together), the geometric mean of the round's start and
/// end. Empty when the records do not line up with its rounds or a round
/// lacks the canary.
pub fn round_canary(
    e: &ExperimentResult,
    m: &Metric,
    read: fn(&Canary) -> Option<f64>,
) -> Vec<f64> {
    let Some(point) = m.point else {
        return Vec::new();
    };
    let per_round: Option<Vec<f64>> = e
        .round_log
        .iter()
        .filter(|l| l.point == point)
        .map(|l| {
            Canary::of_round(&l.telemetry.canary_start, &l.telemetry.canary_end, read).map(f64::ln)
        })
        .collect();
    match per_round {
        Some(v)
            if v.len() == m.rounds.len() && m.rounds.iter().sum::<usize>() == m.samples.len() =>
        {
            v
        }
        _ => Vec::new(),
    }
}

/// What file `name` says of itself: an interrupted run, its failed
/// experiments and their reasons, its warnings (into `status`); its failed
/// or partial experiments (into `partial`).
fn status_of(
    r: &RunResults,
    name: &str,
    status: &mut Vec<String>,
    partial: &mut Vec<(String, String)>,
) {
    if r.status == RunStatus::Partial {
        status.push(format!("{name}: an interrupted run (partial results)"));
    }
    for e in &r.experiments {
        let n = e.failed_points.len();
        if e.status == Status::Failed {
            partial.push((e.name.clone(), "failed".into()));
        } else if e.partial() {
            let points = if n == 1 { "point" } else { "points" };
            partial.push((e.name.clone(), format!("{n} {points} failed")));
        }
        if e.status == Status::Failed {
            status.push(format!(
                "{name}: {} failed ({})",
                e.name,
                e.reason.as_deref().unwrap_or("no reason given")
            ));
        }
    }
    for w in &r.warnings {
        status.push(format!("{name}: {w}"));
    }
}

/// Each series of a side with its rounds, one list per file that has it.
#[derive(Default)]
struct Pool {
    pooled: Vec<(Series, Vec<Vec<Vec<f64>>>)>,
    /// Where each series sits in `pooled`: one lookup per series, so a
    /// side is read in time linear in its series.
    index: std::collections::HashMap<(String, String, Labels), usize>,
}

impl Pool {
    /// Adds series `m` of experiment `e` from file `name`.
    fn add(&mut self, e: &ExperimentResult, m: &Metric, name: &str) {
        let flagged = m.summary.unstable.then(|| {
            format!(
                "{name}: {}",
                m.summary
                    .unsettled
                    .as_ref()
                    .map_or("its rounds disagree (an older file)".to_string(), |u| {
                        u.words(m.unit)
                    })
            )
        });
        let rounds = m.round_samples();
        let canary = memory_canary(e, m);
        let syscall = round_canary(e, m, Canary::syscall);
        let huge: Vec<f64> = e
            .readings
            .iter()
            .filter(|r| {
                r.name == crate::measure::rss::ANON_HUGE_KIB.name
                    && r.labels.iter().all(|(k, v)| m.labels.get(k) == Some(v))
            })
            .map(|r| r.value)
            .take(1)
            .collect();
        let key = (e.name.clone(), m.name.clone(), m.labels.clone());
        match self.index.get(&key).map(|&i| &mut self.pooled[i]) {
            Some((s, r)) => {
                r.push(rounds);
                s.flagged = match (s.flagged.take(), flagged) {
                    (Some(a), Some(b)) => Some(format!("{a}; {b}")),
                    (a, b) => a.or(b),
                };
                s.huge_kib.extend(huge);
                s.canary_ln.push(canary);
                s.syscall_ln.push(syscall);
            }
            None => {
                let mut s = new_series(e, m, flagged, huge);
                s.canary_ln.push(canary);
                s.syscall_ln.push(syscall);
                self.pooled.push((s, vec![rounds]));
                self.index.insert(key, self.pooled.len() - 1);
            }
        }
    }
}

/// A series as its first file has it.
fn new_series(e: &ExperimentResult, m: &Metric, flagged: Option<String>, huge: Vec<f64>) -> Series {
    // This version's declaration where it has one (a file may be older
    // than it), else the file's.
    let better =
        experiments::find(&e.name).map_or(m.better, |x| x.better_or(&m.name, &m.labels, m.better));
    Series {
        experiment: e.name.clone(),
        metric: m.name.clone(),
        labels: m.labels.clone(),
        // Files from before the percentage unit recorded a share as a count.
        unit: match (m.unit, declared_unit(&e.name, &m.name)) {
            (Unit::Count, Some(Unit::Percent)) => Unit::Percent,
            (u, _) => u,
        },
        better,
        summary: m.summary.clone(),
        flagged,
        huge_kib: huge,
        point: m.point,
        runs: Vec::new(),
        spread2: Vec::new(),
        rounds_ln: Vec::new(),
        canary_ln: Vec::new(),
        syscall_ln: Vec::new(),
        band: None,
    }
}

/// The unit this tasklab declares for a series (its `MetricSpec`), when
/// it declares it.
fn declared_unit(experiment: &str, metric: &str) -> Option<Unit> {
    experiments::find(experiment)?
        .metric(metric)
        .map(|spec| spec.unit)
}
