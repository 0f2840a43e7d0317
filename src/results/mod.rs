//! The results file: what a run measured, the environment it ran in, and the
//! seed figures each metric is compared with. `docs/results-schema.md`
//! documents it; `SCHEMA_VERSION` changes whenever a field changes meaning.

use crate::env::Env;
use crate::metric::{key, MetricSpec, SeriesName};
use crate::stats::{Fit, Summary};
use crate::sys::safefile::{self, OutDir};
/// The unit of every figure in the file (defined with its formatters).
pub use crate::units::{Better, Unit};

pub mod ab;
mod identity;
mod interruption;
pub mod merged;
mod precision;
pub mod redact;
mod round;
mod seed;
pub mod why;
pub use ab::{AbJudged, AbRecord};
pub use identity::{new_run_id, Build, UNKNOWN};
pub use interruption::Interruption;
pub use precision::Precision;
pub use round::{Canary, RoundRecord, RoundTelemetry};
pub use seed::{set_clock as set_seed_clock, SeedCompare, SeedRef, SeedStat};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

pub const SCHEMA_NAME: &str = "tasklab-results";
/// Version 2 added the group titles, each experiment's `reproduces` text and
/// its Summary sentences (`headlines`), so the report reads the file alone.
/// Version 3 keeps data where 2 kept words: an A/B run's SPECs parsed and
/// the threshold its verdicts are judged at (drawn when shown, no longer
/// stored as printed), and an interruption as numbers (`interrupted`).
pub const SCHEMA_VERSION: u32 = 3;
/// Older versions this tasklab still reads.
pub const READS_VERSIONS: &[u32] = &[1, 2, 3];

/// The results file's name in an output folder.
pub const RESULTS_FILE: &str = "results.json";

/// The largest results file `compare`, `report` and `advise` read: the
/// largest run writes a few MiB.
pub const MAX_READ_BYTES: u64 = 256 << 20;

/// Labels distinguish the series of one metric: method, heap size, ...
pub type Labels = BTreeMap<String, String>;

/// Labels that exist for machines (exact byte counts), not for people.
pub const HIDDEN_LABELS: &[&str] = &[key::HEAP_BYTES, key::BYTES];

/// A compact "key=value ..." of a series' labels that people read (the
/// hidden ones left out): how every table and message names a case.
pub fn case(m: &Metric) -> String {
    case_of(&m.labels)
}

/// The same for labels alone.
pub fn case_of(labels: &Labels) -> String {
    labels
        .iter()
        .filter(|(k, _)| !HIDDEN_LABELS.contains(&k.as_str()))
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// One measured series: raw samples, their summary and any seed figure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Metric {
    pub name: String,
    pub unit: Unit,
    pub labels: Labels,
    pub summary: Summary,
    /// Every sample, round after round.
    pub samples: Vec<f64>,
    /// How many of `samples` each round gave, in order (schema 2; empty in
    /// older files: one round).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rounds: Vec<usize>,
    /// Shown only in detailed output; the terminal table skips it.
    #[serde(default)]
    pub detail: bool,
    /// Which way is better, as the experiment declares it (schema 2).
    #[serde(default)]
    pub better: Better,
    #[serde(default)]
    pub seed: Option<SeedRef>,
    /// The experiment's point (its index in the plan) the series was
    /// measured at: a comparison's family is an experiment at one point.
    /// Absent in files from before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point: Option<usize>,
}

/// Summarises the rounds of a series, the bootstrap seeded by the series'
/// name: the run and `compare` recompute the same summary from the same
/// samples.
pub fn summarize_series(
    experiment: &str,
    metric: &str,
    labels: &Labels,
    rounds: &[Vec<f64>],
) -> Result<Summary, crate::stats::StatsError> {
    summarize_series_runs(experiment, metric, labels, &[rounds])
}

/// [`summarize_series`] over several runs' rounds of one series: the runs
/// are a level of the interval (`stats::summarize_runs`).
pub fn summarize_series_runs(
    experiment: &str,
    metric: &str,
    labels: &Labels,
    runs: &[&[Vec<f64>]],
) -> Result<Summary, crate::stats::StatsError> {
    let key = format!("{experiment}/{metric}/{labels:?}");
    // A percentage's interval is kept as computed, never clamped to 100
    // (issue 39): a bound past it is the widening's arithmetic on an
    // estimated share, and the report says so (`units::percent_bounds_past`).
    crate::stats::rounds::summarize_runs(runs, crate::stats::seed_for(&key))
}

impl Metric {
    /// Whether the precision target applies to it: shown in tables and
    /// better one way (a count of what happened has no precision to reach).
    pub fn has_precision_target(&self) -> bool {
        !self.detail && matches!(self.better, Better::Lower | Better::Higher)
    }

    /// The samples round by round, as `rounds` records them (one round
    /// when the file predates rounds).
    pub fn round_samples(&self) -> Vec<Vec<f64>> {
        if self.rounds.is_empty() || self.rounds.iter().sum::<usize>() != self.samples.len() {
            return vec![self.samples.clone()];
        }
        let mut out = Vec::new();
        let mut at = 0;
        for &n in &self.rounds {
            out.push(self.samples[at..at + n].to_vec());
            at += n;
        }
        out
    }

    pub fn label(&self, key: &str) -> Option<&str> {
        self.labels.get(key).map(String::as_str)
    }

    /// A numeric label (`threads`, `heap_bytes`, `workers`, ...).
    pub fn label_num(&self, key: &str) -> Option<u64> {
        self.label(key)?.parse().ok()
    }
}

/// All samples' count over all their time, where each sample is a rate
/// of the same count: the harmonic mean of the rates. None for no sample
/// or a rate that is not positive.
pub fn count_over_time(rates: &[f64]) -> Option<f64> {
    if rates.is_empty() || rates.iter().any(|r| !(r.is_finite() && *r > 0.0)) {
        return None;
    }
    Some(rates.len() as f64 / rates.iter().map(|r| 1.0 / r).sum::<f64>())
}

/// A single reading, not a distribution (a page-table size, a limit).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reading {
    pub name: String,
    pub unit: Unit,
    pub labels: Labels,
    pub value: f64,
}

impl Reading {
    /// A reading of the declared `spec`, in its unit.
    pub fn of(spec: &MetricSpec, labels: Labels, value: f64) -> Reading {
        Reading {
            name: spec.name.into(),
            unit: spec.unit,
            labels,
            value,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NamedFit {
    /// What was fitted, in words: "fork lifecycle_ns vs VmPTE KiB".
    pub name: String,
    pub labels: Labels,
    pub x_unit: String,
    pub y_unit: String,
    pub fit: Fit,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Failed,
    Skipped,
}

/// A group of experiments, as the report titles its section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Group {
    pub name: String,
    pub title: String,
    /// What the group is about, in a sentence or two.
    pub about: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExperimentResult {
    pub name: String,
    pub group: String,
    pub summary: String,
    /// Which seed experiment this reproduces, in words (schema 2).
    #[serde(default)]
    pub reproduces: String,
    pub status: Status,
    pub reason: Option<String>,
    pub duration_s: f64,
    pub params: BTreeMap<String, serde_json::Value>,
    pub metrics: Vec<Metric>,
    pub readings: Vec<Reading>,
    pub fits: Vec<NamedFit>,
    /// Plain-language sentences computed from this run's numbers.
    pub findings: Vec<String>,
    /// The sentences this experiment adds to the report's Summary (schema 2).
    #[serde(default)]
    pub headlines: Vec<String>,
    /// Clamps, skipped variants and anything odd the run noticed.
    pub notes: Vec<String>,
    /// Why the run measured less than its parameters asked, each in a
    /// clause (a count the plan clamped to this machine's limits, a task a
    /// worker was refused); a note says each at length. Empty when all that
    /// was asked was measured (and in files from before it was recorded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fewer_than_asked: Vec<String>,
    /// Every round's contamination record, in point order, then the order the rounds ran
    /// (schema 2).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub round_log: Vec<RoundRecord>,
    /// The side of an A/B run (`tasklab ab`) this result measured; absent
    /// in a plain run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<crate::stats::paired::Side>,
    /// The points whose job failed (a crash, a timeout, a kill, a full disk
    /// or a memory limit), each with why; the experiment's figures are from
    /// its other points, and it is partial. Empty when every point ran (and
    /// in files from before it was recorded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_points: Vec<FailedPoint>,
    /// The run was interrupted before every round of this experiment was
    /// in: how many rounds were complete, in words; its figures and
    /// findings are from those rounds alone, and it is partial. Absent
    /// when its rounds all ran (and in files from before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<String>,
    /// `run --why`: where the timed windows of each attributed series
    /// spent their time. Empty without `--why` (and in older files).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub why: Vec<why::Attribution>,
    /// `run --why`: what sampling cost the series that no attribution
    /// covers, their windows sampled in every twin round yet no sample
    /// taken (too little CPU time in them). Empty without
    /// `--why` (and in files from before it was recorded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub why_unsampled: Vec<why::Overhead>,
}

/// A point of an experiment whose job failed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FailedPoint {
    /// The point as the plan gave it to the worker (null for an
    /// experiment of one point).
    pub point: serde_json::Value,
    pub reason: String,
}

impl ExperimentResult {
    /// Some points failed and the rest were kept.
    pub fn partial(&self) -> bool {
        self.status == Status::Ok && (!self.failed_points.is_empty() || self.interrupted.is_some())
    }

    /// What the report says of a partial experiment: how many points
    /// failed, each named with why, and that the figures are the others'.
    pub fn partial_words(&self) -> Option<String> {
        self.partial_detail().map(|d| format!("partial: {d}"))
    }

    /// [`ExperimentResult::partial_words`] without its first word.
    pub fn partial_detail(&self) -> Option<String> {
        if !self.partial() {
            return None;
        }
        let mut parts = Vec::new();
        if let Some(why) = &self.interrupted {
            parts.push(why.clone());
        }
        if !self.failed_points.is_empty() {
            let named: Vec<&str> = self
                .failed_points
                .iter()
                .map(|f| f.reason.as_str())
                .collect();
            let n = named.len();
            parts.push(format!(
                "{n} {} failed, so its figures and findings are from its other points only: {}",
                if n == 1 { "point" } else { "points" },
                named.join("; ")
            ));
        }
        Some(parts.join("; "))
    }

    /// A result with nothing in it yet, for `name`.
    pub fn default_named(name: &str) -> ExperimentResult {
        ExperimentResult {
            name: name.into(),
            group: name.split_once('.').map_or(name, |(g, _)| g).into(),
            summary: String::new(),
            reproduces: String::new(),
            status: Status::Ok,
            reason: None,
            duration_s: 0.0,
            params: BTreeMap::new(),
            metrics: vec![],
            readings: vec![],
            fits: vec![],
            findings: vec![],
            headlines: vec![],
            notes: vec![],
            fewer_than_asked: vec![],
            round_log: vec![],
            side: None,
            failed_points: vec![],
            interrupted: None,
            why: vec![],
            why_unsampled: vec![],
        }
    }

    /// The settled series of metric `name`: a series whose rounds did not
    /// agree is left out, so no finding, fit, headline or chart rests on it
    /// (the tables still show it, marked).
    pub fn metrics_named<'a>(
        &'a self,
        spec: &'a (impl SeriesName + ?Sized),
    ) -> impl Iterator<Item = &'a Metric> + 'a {
        let name = spec.series_name();
        self.metrics
            .iter()
            .filter(move |m| m.name == name && !m.summary.unstable)
    }

    /// The metric `spec` whose labels include every (key, value) of `with`.
    pub fn find(
        &self,
        spec: &(impl SeriesName + ?Sized),
        with: &[(&str, &str)],
    ) -> Option<&Metric> {
        self.find_named(spec.series_name(), with)
    }

    /// [`ExperimentResult::find`] by a name read from a file.
    pub fn find_named(&self, name: &str, with: &[(&str, &str)]) -> Option<&Metric> {
        self.metrics
            .iter()
            .find(|m| m.name == name && with.iter().all(|(k, v)| m.label(k) == Some(*v)))
    }

    /// The median of the metric `name` whose labels include `with`; None
    /// also when its rounds did not settle (no finding may rest on it).
    pub fn median(&self, spec: &(impl SeriesName + ?Sized), with: &[(&str, &str)]) -> Option<f64> {
        self.find(spec, with)
            .filter(|m| !m.summary.unstable)
            .map(|m| m.summary.median)
    }

    /// The summary of the settled metric `name` whose labels include
    /// `with`: None when it is missing or its rounds did not settle.
    pub fn settled(
        &self,
        spec: &(impl SeriesName + ?Sized),
        with: &[(&str, &str)],
    ) -> Option<&Summary> {
        self.find(spec, with)
            .filter(|m| !m.summary.unstable)
            .map(|m| &m.summary)
    }

    pub fn reading(&self, spec: &(impl SeriesName + ?Sized), with: &[(&str, &str)]) -> Option<f64> {
        let name = spec.series_name();
        self.readings
            .iter()
            .find(|r| {
                r.name == name
                    && with
                        .iter()
                        .all(|(k, v)| r.labels.get(*k).map(String::as_str) == Some(*v))
            })
            .map(|r| r.value)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    pub clock: String,
    /// Cost of one `clock_gettime(CLOCK_MONOTONIC)` read, median of batches.
    pub timer_overhead_ns: f64,
    /// Cost of one iteration of an empty measurement loop.
    pub loop_overhead_ns: f64,
    /// Smallest non-zero step the clock showed.
    pub timer_resolution_ns: f64,
    /// TSC ticks per ns, where the TSC is invariant.
    pub tsc_ghz: Option<f64>,
    /// Clock the CPU ran at, counted with a chain of dependent additions.
    pub measured_mhz: Option<f64>,
}

/// How busy the machine was with other work, before and during the run:
/// `procs_running` sampled by the parent while no worker ran (so every
/// runnable task counted is someone else's), and the steal time.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Busy {
    /// Mean runnable tasks of other work, and the samples, before the run.
    pub before_other_runnable: f64,
    pub before_samples: usize,
    /// The same between the run's jobs, and the most seen.
    pub during_other_runnable: f64,
    pub during_max_other_runnable: f64,
    pub during_samples: usize,
    /// Steal time over the run, as a share of all CPUs' time.
    pub steal_share: f64,
    /// How much the cgroup's CPU quota throttled it from before the first
    /// job to after the last (cpu.stat); None without a CPU controller.
    #[serde(default)]
    pub throttled: Option<crate::env::Throttling>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    Complete,
    /// Interrupted: what is here was measured, the rest was not run.
    Partial,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunResults {
    pub schema: String,
    pub schema_version: u32,
    pub tool_version: String,
    pub started_unix_s: f64,
    pub finished_unix_s: Option<f64>,
    pub profile: String,
    pub status: RunStatus,
    /// A random 128-bit id of the run, in hex, and the tasklab build that
    /// made it (absent from older files: unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<Build>,
    /// The placement asked for on the command line (`--pin`).
    pub pin: Option<Vec<usize>>,
    /// Independent rounds per series, and the seed of their shuffled order
    /// (`--rounds`, `--seed`; schema 2).
    #[serde(default)]
    pub rounds: usize,
    #[serde(default)]
    pub seed: Option<u64>,
    pub env: Env,
    pub calibration: Calibration,
    /// Conditions that inflate every figure (a busy machine, ...), and how
    /// far an interrupted run came, in words.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// Where the run was interrupted (schema 3; an older file's is read
    /// back from its warning).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<Interruption>,
    /// What other work the machine had (schema 2).
    #[serde(default)]
    pub busy: Option<Busy>,
    /// The groups, in report order (schema 2).
    #[serde(default)]
    pub groups: Vec<Group>,
    pub experiments: Vec<ExperimentResult>,
    /// How precise the run's figures came out against its target (files
    /// before adaptive rounds: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision: Option<Precision>,
    /// An A/B run (`tasklab ab`): what each side set. Its experiments then
    /// hold both sides, each result marked with its side, each series'
    /// rounds in the order they ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ab: Option<AbRecord>,
    /// `run --why`: the sampling, or why it could not be done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<why::WhyRecord>,
}

impl RunResults {
    /// One side of an A/B run as a plain run's results (what `compare` and
    /// the side's report read); a plain run is returned as it is.
    pub fn side(&self, side: crate::stats::paired::Side) -> RunResults {
        let mut r = self.clone();
        if r.ab.take().is_some() {
            r.experiments.retain(|e| e.side == Some(side));
            for e in &mut r.experiments {
                e.side = None;
            }
        }
        r
    }
}

impl RunResults {
    /// Every round's canary, at its start and at its end, over the
    /// experiments that ran to the end: the machine's own speed through the
    /// run. Readings that failed (not finite, or 0) are left out.
    pub fn canaries(&self) -> Vec<Canary> {
        self.experiments
            .iter()
            .filter(|e| e.status == Status::Ok)
            .flat_map(|e| &e.round_log)
            .flat_map(|l| {
                [
                    l.telemetry.canary_start.clone(),
                    l.telemetry.canary_end.clone(),
                ]
            })
            .filter(|c| c.syscall_ns.is_finite() && c.syscall_ns > 0.0)
            .collect()
    }

    /// The CPU's clock at the start of every round of the experiments that
    /// ran to the end, in MHz (empty in older files).
    pub fn round_mhz(&self) -> Vec<f64> {
        self.experiments
            .iter()
            .filter(|e| e.status == Status::Ok)
            .flat_map(|e| &e.round_log)
            .filter_map(|l| l.telemetry.cpu_mhz)
            .filter(|m| m.is_finite() && *m > 0.0)
            .collect()
    }

    /// The THP and compaction counters' growth summed over every round of
    /// the experiments that ran to the end (system-wide; empty in older
    /// files).
    pub fn round_vmstat(&self) -> BTreeMap<String, f64> {
        let mut sum = BTreeMap::new();
        for l in self
            .experiments
            .iter()
            .filter(|e| e.status == Status::Ok)
            .flat_map(|e| &e.round_log)
        {
            for (k, v) in &l.telemetry.vmstat {
                *sum.entry(k.clone()).or_insert(0.0) += v;
            }
        }
        sum
    }

    /// The experiment `name`, when it ran to the end.
    pub fn measured(&self, name: &str) -> Option<&ExperimentResult> {
        self.experiments
            .iter()
            .find(|e| e.name == name && e.status == Status::Ok)
    }

    /// The file as it is written (a redacted run's redacted again, so no
    /// later note brings a home path back: [`RunResults::redacted`]).
    pub fn to_json(&self) -> anyhow::Result<Vec<u8>> {
        if self.env.redacted {
            return Ok(serde_json::to_vec_pretty(&self.redacted())?);
        }
        Ok(serde_json::to_vec_pretty(self)?)
    }

    /// Writes `results.json` into the output folder `dir` atomically
    /// ([`OutDir::write`]: a fresh temporary file, synced, then renamed over
    /// the old one, so a reader never sees half a file).
    pub fn write_in(&self, dir: &OutDir) -> anyhow::Result<()> {
        Ok(dir.write(RESULTS_FILE, &self.to_json()?)?)
    }

    /// Reads a results file, with a clear error for a file that is not ours,
    /// of another schema version, or truncated, and for anything that is not
    /// a regular file of at most [`MAX_READ_BYTES`] (a folder, /dev/zero, a
    /// FIFO): it is never read without bound.
    pub fn read(path: &Path) -> anyhow::Result<RunResults> {
        let bytes = safefile::read_bounded(path, MAX_READ_BYTES).map_err(anyhow::Error::msg)?;
        let v: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| {
            anyhow::anyhow!("{} is not valid JSON (truncated?): {e}", path.display())
        })?;
        RunResults::from_value(v, &path.display().to_string())
    }

    /// A results file's JSON, already parsed, checked as [`RunResults::read`]
    /// checks a file: `name` is how the error names it (a file, or a run
    /// of a merged file).
    pub fn from_value(v: serde_json::Value, name: &str) -> anyhow::Result<RunResults> {
        let path = std::path::Path::new(name);
        if v.get("schema").and_then(|s| s.as_str()) != Some(SCHEMA_NAME) {
            anyhow::bail!(
                "{} is not a tasklab results file (no \"schema\": \"{SCHEMA_NAME}\")",
                path.display()
            );
        }
        let ver = v.get("schema_version").and_then(|s| s.as_u64());
        if !ver.is_some_and(|v| READS_VERSIONS.iter().any(|r| *r as u64 == v)) {
            anyhow::bail!(
                "{} has schema version {}, this tasklab reads versions {}",
                path.display(),
                ver.map_or("none".to_string(), |v| v.to_string()),
                READS_VERSIONS
                    .iter()
                    .map(|v| v.to_string())
                    .collect::<Vec<_>>()
                    .join(" and ")
            );
        }
        let mut v = v;
        let printed = if ver.is_some_and(|v| v <= 2) {
            ab::read_version_2(&mut v).map_err(|e| {
                anyhow::anyhow!("{} does not match the schema: {}", path.display(), e.0)
            })?
        } else {
            None
        };
        let mut r: RunResults = serde_json::from_value(v)
            .map_err(|e| anyhow::anyhow!("{} does not match the schema: {e}", path.display()))?;
        if let Some(ab) = &mut r.ab {
            ab.printed = printed;
        }
        if r.schema_version <= 2 && r.interrupted.is_none() {
            r.interrupted = Interruption::from_old_warnings(&r.warnings);
        }
        // An older file holds the whole kernel command line: only what
        // shapes figures is kept (it may hold secrets).
        r.env.facts.cmdline = r
            .env
            .facts
            .cmdline
            .map(|l| crate::env::cmdline::allowlisted(&l));
        Ok(r)
    }
}

#[cfg(test)]
#[path = "results_tests.rs"]
mod tests;
