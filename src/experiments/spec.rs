//! What an experiment is: data (name, parameters, seed figures) plus the
//! functions the run calls. `Experiment::DEFAULT` fills the optional fields,
//! so an experiment file names only what it has.

use super::headline::{no_headlines, Headline};
use crate::env::Env;
use crate::measure::params::{Param, ParamSpec, Params};
use crate::measure::probe::ProbeFn;
use crate::measure::protocol::{Job, WorkerOutput};
use crate::measure::sizing::Sizing;
use crate::metric::MetricSpec;
use crate::results::{
    Better, ExperimentResult, Labels, NamedFit, Reading, SeedRef, SeedStat, Unit,
};
use serde::Serialize;

/// A figure a seed article published, attached to the metric it matches.
pub struct SeedFigure {
    pub metric: &'static str,
    /// Labels the metric must have, e.g. `[("method", "fork")]`.
    pub labels: &'static [(&'static str, &'static str)],
    pub lo: f64,
    pub hi: f64,
    pub unit: Unit,
    pub source: &'static str,
    pub hardware: &'static str,
    pub method: &'static str,
    /// The statistic the seed reports (mean, median, min, single calls).
    pub statistic: SeedStat,
    /// The seed timed single cold calls: only `call=first` compares.
    pub cold: bool,
    /// What the seed's range sweeps, when it is a sweep (Sysel's CPU
    /// frequencies), not a spread of repetitions.
    pub sweep: Option<&'static str>,
    /// How the seed's protocol differs from ours, where that is the likely
    /// cause of a gap; empty when they match. No declared figure differs
    /// since Sysel's clock reads are measured by his protocol (issue 39);
    /// results files from before carry it (docs/results-schema.md).
    pub protocol: &'static str,
    /// The CPU clock (MHz) the seed took `lo` and `hi` at, where it says:
    /// the figure is compared scaled to the run's clock.
    pub clock_mhz: Option<(f64, f64)>,
    /// Why ours is not the same quantity as the seed's, where it is not:
    /// both are shown, neither compared. Empty when they compare.
    pub unlike: &'static str,
    /// What the seed table's row says besides the figures: what differs
    /// between ours and the seed's that the ratio does not show.
    pub caveat: &'static str,
    /// Another series of ours the row shows beside this one: the same
    /// name and labels with these replaced, or another name (empty for
    /// the same) with the same labels.
    pub beside: Option<Beside>,
    /// The seed's figure is a lower bound ("over 60 us"), not a value.
    pub lower_bound: bool,
}

/// Another series of ours a seed row shows beside the compared one.
#[derive(Clone, Copy, Debug)]
pub struct Beside {
    /// The series' name; empty for the compared series' own.
    pub metric: &'static str,
    /// Labels replaced in the compared series' labels.
    pub labels: &'static [(&'static str, &'static str)],
    /// What it is, in a few words ("malloc'd neighbours: dst+16").
    pub words: &'static str,
    /// Words said after it only when its interval lies wholly above the
    /// value ("more than two: ..." only of a count above 2 by its interval).
    pub above: Option<(f64, &'static str)>,
}

impl SeedFigure {
    /// A seed's figure for the series `spec` (its name and unit), with no
    /// labels, warm: add them with [`SeedFigure::labels`] and
    /// [`SeedFigure::cold`].
    pub const fn of(
        spec: &'static MetricSpec,
        (lo, hi): (f64, f64),
        statistic: SeedStat,
        source: &'static str,
        hardware: &'static str,
        method: &'static str,
    ) -> SeedFigure {
        SeedFigure {
            metric: spec.name,
            labels: &[],
            lo,
            hi,
            unit: spec.unit,
            source,
            hardware,
            method,
            statistic,
            cold: false,
            sweep: None,
            protocol: "",
            clock_mhz: None,
            unlike: "",
            caveat: "",
            beside: None,
            lower_bound: false,
        }
    }

    /// The same figure, `lo` taken at `lo_mhz` and `hi` at `hi_mhz` of the
    /// CPU's clock: compared scaled to the run's clock.
    pub const fn at_clock(self, lo_mhz: f64, hi_mhz: f64) -> SeedFigure {
        SeedFigure {
            clock_mhz: Some((lo_mhz, hi_mhz)),
            ..self
        }
    }

    /// The same figure, not the quantity ours is (`why`): shown beside
    /// ours, never compared.
    pub const fn unlike(self, why: &'static str) -> SeedFigure {
        SeedFigure {
            unlike: why,
            ..self
        }
    }

    /// The same figure, with what its row says besides the figures.
    pub const fn caveat(self, caveat: &'static str) -> SeedFigure {
        SeedFigure { caveat, ..self }
    }

    /// The same figure, its row showing another series of ours beside.
    pub const fn beside(self, beside: Beside) -> SeedFigure {
        SeedFigure {
            beside: Some(beside),
            ..self
        }
    }

    /// The same figure for the series with these labels only.
    pub const fn labels(self, labels: &'static [(&'static str, &'static str)]) -> SeedFigure {
        SeedFigure { labels, ..self }
    }

    /// The same figure as a lower bound ("takes over 60 us"): ours is
    /// below it only by our whole interval, and never "above" it.
    pub const fn at_least(self) -> SeedFigure {
        SeedFigure {
            lower_bound: true,
            ..self
        }
    }
    /// The same figure, timed as single cold calls.
    pub const fn cold(self) -> SeedFigure {
        SeedFigure { cold: true, ..self }
    }

    /// The same figure, its range a sweep of `what` (not a spread of
    /// repetitions): "within" it means within the range swept.
    pub const fn swept(self, what: &'static str) -> SeedFigure {
        SeedFigure {
            sweep: Some(what),
            ..self
        }
    }

    pub fn matches(&self, name: &str, labels: &Labels) -> bool {
        self.metric == name
            && self
                .labels
                .iter()
                .all(|(k, v)| labels.get(*k).map(String::as_str) == Some(*v))
    }

    pub fn to_ref(&self) -> SeedRef {
        SeedRef {
            lo: self.lo,
            hi: self.hi,
            unit: self.unit,
            source: self.source.to_string(),
            hardware: self.hardware.to_string(),
            method: self.method.to_string(),
            statistic: self.statistic,
            cold: self.cold,
            sweep: self.sweep.map(String::from),
            protocol: self.protocol.to_string(),
            clock_mhz: self.clock_mhz,
            ours_mhz: None,
            unlike: self.unlike.to_string(),
            lower_bound: self.lower_bound,
        }
    }
}

/// What the parent knows when it plans an experiment's worker jobs: values
/// flow down from the run, nothing is re-derived.
pub struct PlanCtx<'a> {
    pub env: &'a Env,
    /// Parameters the user set on the command line (not defaults): a value
    /// the machine cannot honour is then an error, not a clamp.
    pub user_set: &'a [String],
    pub params: &'a Params,
    /// The run's real sizing, the user's `--timeout` included.
    pub sizing: Sizing,
}

impl PlanCtx<'_> {
    /// Whether the user set `param` on the command line (not its default).
    pub fn set_by_user<T>(&self, param: &Param<T>) -> bool {
        self.user_set.iter().any(|n| n == param.name())
    }
}

/// The worker jobs of an experiment, and notes on what was clamped or dropped.
#[derive(Default)]
pub struct Points {
    pub points: Vec<serde_json::Value>,
    pub notes: Vec<String>,
    /// Why fewer are planned than asked ([`Points::fewer`]).
    pub fewer_than_asked: Vec<String>,
}

impl Points {
    pub fn single() -> Points {
        Points {
            points: vec![serde_json::Value::Null],
            ..Points::default()
        }
    }

    /// One job per point, each of the type the experiment's `measure` reads
    /// back with `Job::point`, so planner and worker share one shape.
    pub fn of<P: Serialize>(points: impl IntoIterator<Item = P>) -> Points {
        let mut pts = Points::default();
        for p in points {
            pts.push(&p);
        }
        pts
    }

    /// Plans fewer than asked: `why` in a clause (the result's
    /// `fewer_than_asked`, what a finding quotes), then `rest` in the note
    /// that says it at length ("{why}; {rest}").
    pub fn fewer(&mut self, why: String, rest: &str) {
        self.notes.push(format!("{why}; {rest}"));
        self.fewer_than_asked.push(why);
    }

    /// Plans one more job, at `point`.
    pub fn push<P: Serialize>(&mut self, point: &P) {
        // A point is a plain record of numbers, strings and lists.
        let v = serde_json::to_value(point).expect("a point serialises to JSON");
        self.points.push(v);
    }
}

/// What the parent computes from an experiment's summarised series: a pure
/// function of the result, so it can be tested on fixtures.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Analysis {
    pub findings: Vec<String>,
    pub readings: Vec<Reading>,
    pub fits: Vec<NamedFit>,
    /// Sentences for the report's Summary.
    pub headlines: Vec<String>,
    /// Notes under the table (the RSS bound, ...).
    pub notes: Vec<String>,
}

impl Analysis {
    /// Findings only.
    pub fn findings(findings: Vec<String>) -> Analysis {
        Analysis {
            findings,
            ..Analysis::default()
        }
    }

    /// Adds this analysis to the result it was computed from.
    pub fn apply(self, r: &mut ExperimentResult) {
        r.findings.extend(self.findings);
        r.readings.extend(self.readings);
        r.fits.extend(self.fits);
        r.headlines.extend(self.headlines);
        for n in self.notes {
            if !r.notes.contains(&n) {
                r.notes.push(n);
            }
        }
    }
}

pub struct Experiment {
    /// `group.name`: the group is the part before the dot.
    pub name: &'static str,
    pub summary: &'static str,
    /// Which seed experiment this reproduces, in words.
    pub reproduces: &'static str,
    pub params: &'static [ParamSpec],
    /// Every series and reading it reports, declared beside the code that
    /// pushes it: `compare` takes each one's direction from here, never
    /// from the unit, and `tasklab list --json` shows them.
    pub metrics: &'static [&'static MetricSpec],
    pub seeds: &'static [SeedFigure],
    /// Hidden experiments (self-tests) are run only when named.
    pub hidden: bool,
    /// Ok, or why this machine cannot run it.
    pub supported: fn(&Env) -> Result<(), String>,
    /// Splits the work into worker jobs (one point each). An error is the
    /// user's: a parameter that cannot be honoured on this machine.
    pub points: fn(&PlanCtx) -> Result<Points, String>,
    /// What a worker measures for one point.
    pub measure: fn(&Job) -> anyhow::Result<WorkerOutput>,
    /// What the parent computes from the summarised series.
    pub analyze: fn(&ExperimentResult) -> Analysis,
    /// The Summary's quantities in a result, picked by labels alone: the
    /// one declaration its Summary sentence, the matrix's rows, the
    /// OpenMetrics summary families and the run's budget all read
    /// ([`crate::experiments::headline`]).
    pub headlines: fn(&ExperimentResult) -> Vec<Headline>,
    /// A measurement that needs a fresh process of its own (`tasklab __probe`).
    pub probe: Option<ProbeFn>,
    /// A helper its first job may have to build.
    pub helper: Option<Helper>,
    /// Whether `run --why` attributes its series: its `measure` names the
    /// series of its timed windows (`measure::why::Scope`). Only such an
    /// experiment's rounds are sampled, each beside an unsampled twin
    /// (`run::execute`); the others run under `--why` as without it.
    pub attributed: bool,
    /// Whether its timed windows start processes (a fork, a spawn), whose
    /// samples `run --why` can tell only by their tasks' cgroup or the
    /// kernel's fork and exit records. Only such an experiment's sampled
    /// workers get a cgroup of their own (`sys::cgroup`); the others' tasks
    /// are told by pid and the records, which windows that start no process
    /// do not pay, where a cgroup of their own would: it adds a level to the
    /// kernel's accounting at every switch and wake-up (a same-CPU pipe
    /// switch paid about 1.5% for it, docs/WHY.md, session 23).
    pub starts_processes: bool,
    /// Whether its timed work touches fresh memory or forks a process with
    /// a heap (spawn, memory, parallel): only then may a flagged series'
    /// words name the host's or the guest's memory as what set its two
    /// modes apart (`measure::explain::mode_covariate`); elsewhere (a
    /// ping-pong, a clock read) they give the rounds' fact and no cause.
    pub memory_work: bool,
}

/// Something an experiment's first job builds before it measures, when it
/// is not built yet (switch.userspace's Go helper): the progress line says
/// so, since that job takes longer.
pub struct Helper {
    /// What the progress line calls it: "the Go helper".
    pub name: &'static str,
    /// Whether a job with these parameters uses it.
    pub used: fn(&Params) -> bool,
    /// Whether it is built already (cached), asked once until a job builds it.
    pub ready: fn() -> bool,
}

/// Metrics no experiment writes any more, declared with the direction they
/// had, so that older results files still read and compare.
pub const RETIRED: &[&MetricSpec] = &[
    &SYS_NS,
    &PARKS_PER_OP,
    &PEER_IDLE_PCT,
    &TLB_PER_OP,
    &PART_NS,
    &PART_LO_NS,
    &PART_HI_NS,
];

/// The system part of CPU time, dropped in session 8
/// (`measure::sampler::push_cpu` keeps the whole CPU time).
pub const SYS_NS: MetricSpec = MetricSpec::new(
    "sys_ns",
    Unit::Ns,
    Better::Neither,
    crate::metric::Kind::Other,
    "retired: the system part of a worker's CPU time per operation",
);

/// switch.wakeup's stacked decomposition, retired in issue 28 (its parts
/// were differences under a model the data contradicts).
pub const PARKS_PER_OP: MetricSpec = MetricSpec::new(
    "parks_per_op",
    Unit::Count,
    Better::Neither,
    crate::metric::Kind::Other,
    "retired: futex waits that parked (slept) per round trip, both sides",
);
pub const PEER_IDLE_PCT: MetricSpec = MetricSpec::new(
    "peer_idle_pct",
    Unit::Percent,
    Better::Neither,
    crate::metric::Kind::Other,
    "retired: share of the pass the peer's CPU spent idle",
);
pub const TLB_PER_OP: MetricSpec = MetricSpec::new(
    "tlb_per_op",
    Unit::Count,
    Better::Neither,
    crate::metric::Kind::Other,
    "retired: TLB shootdowns per operation on the two CPUs",
);
pub const PART_NS: MetricSpec = MetricSpec::new(
    "part_ns",
    Unit::Ns,
    Better::Neither,
    crate::metric::Kind::HandOff,
    "retired: one part of the cross-CPU hand-off per round trip, by subtraction",
);
pub const PART_LO_NS: MetricSpec = MetricSpec::new(
    "part_lo_ns",
    Unit::Ns,
    Better::Neither,
    crate::metric::Kind::HandOff,
    "retired: the low end of a part's interval, per round trip",
);
pub const PART_HI_NS: MetricSpec = MetricSpec::new(
    "part_hi_ns",
    Unit::Ns,
    Better::Neither,
    crate::metric::Kind::HandOff,
    "retired: the high end of a part's interval, per round trip",
);

impl Experiment {
    /// The optional fields: supported everywhere, one job (per round), no analysis.
    pub const DEFAULT: Experiment = Experiment {
        name: "",
        summary: "",
        reproduces: "",
        params: &[],
        metrics: &[],
        seeds: &[],
        hidden: false,
        supported: always_supported,
        points: single_point,
        measure: nothing_to_measure,
        analyze: no_analysis,
        headlines: no_headlines,
        probe: None,
        helper: None,
        attributed: false,
        starts_processes: false,
        memory_work: false,
    };

    /// The group: `spawn` for `spawn.heap`.
    pub fn group(&self) -> &'static str {
        self.name.split_once('.').map_or(self.name, |(g, _)| g)
    }

    /// The declaration of the series `name`, retired ones included.
    pub fn metric(&self, name: &str) -> Option<&'static MetricSpec> {
        self.metrics
            .iter()
            .chain(RETIRED)
            .find(|m| m.name == name)
            .copied()
    }

    /// Which way the metric `name` with `labels` is better, as declared
    /// (retired metrics included); `Unknown` for a series it does not declare.
    pub fn better_for(&self, name: &str, labels: &Labels) -> Better {
        self.metric(name).map_or(Better::Unknown, |spec| {
            spec.better_with(|k| labels.get(k).map(String::as_str))
        })
    }

    /// This version's declared direction where it declares one, else
    /// `recorded` (what a results file says, which may be older).
    pub fn better_or(&self, name: &str, labels: &Labels, recorded: Better) -> Better {
        match self.better_for(name, labels) {
            Better::Unknown => recorded,
            b => b,
        }
    }

    /// The declared seed figure that matches a series, if any.
    pub fn seed_figure(&self, name: &str, labels: &Labels) -> Option<&'static SeedFigure> {
        self.seeds.iter().find(|f| f.matches(name, labels))
    }

    /// The seed figure that matches a series, if any.
    pub fn seed_for(&self, name: &str, labels: &Labels) -> Option<SeedRef> {
        self.seeds
            .iter()
            .find(|f| f.matches(name, labels))
            .map(SeedFigure::to_ref)
    }
}

impl std::fmt::Debug for Experiment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Experiment")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

pub fn always_supported(_: &Env) -> Result<(), String> {
    Ok(())
}

pub fn single_point(_: &PlanCtx) -> Result<Points, String> {
    Ok(Points::single())
}

pub fn no_analysis(_: &ExperimentResult) -> Analysis {
    Analysis::default()
}

fn nothing_to_measure(job: &Job) -> anyhow::Result<WorkerOutput> {
    anyhow::bail!("{} measures nothing", job.experiment)
}
