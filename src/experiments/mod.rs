//! The experiment registry. An experiment is data plus functions: its name and
//! group, typed parameters with bounds, the seed figures it reproduces, a
//! `supported()` check, how its work splits into worker jobs (`points`), what a
//! worker measures (`measure`) and what the parent computes from the samples
//! (`analyze`). Adding one is one new module and one line in [`REGISTRY`].

pub mod memory;
pub mod parallel;
pub mod params;
pub mod selftest;
pub mod spawn;
pub mod switch;
pub mod yardstick;

use crate::env::Env;
use crate::results::{ExperimentResult, Labels, Reading, SeedRef, Unit};
pub use params::{ParamKind, ParamSpec, ParamValue, Params};
use serde::{Deserialize, Serialize};

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
}

impl SeedFigure {
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
        }
    }
}

/// The seeds' machines, as the seeds describe them.
pub const SYSEL_HW: &str = "Intel Core i7-1065G7, 1.3-3.9 GHz, Ubuntu 20.04, Linux 5.4";
pub const BENDERSKY_HW: &str = "Intel Core i7-4771 (Haswell), 2018";
pub const SEED_CLONE: &str = "000_e2b023eeee857798.txt";
pub const SEED_SYSEL: &str = "004_37eeb410f17232cd.txt";
pub const SEED_SWITCH: &str = "002_5f4198dc3381193f.txt";

/// What a run is sized for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// The whole suite in about a minute on 2 cores.
    Quick,
    /// Publication-grade: the seeds' 10,000 launches per point, more sizes.
    Thorough,
}

/// What the parent needs to plan an experiment's worker jobs.
pub struct PlanCtx<'a> {
    pub env: &'a Env,
    /// Parameters the user set on the command line (not defaults): a value
    /// the machine cannot honour is then an error, not a clamp.
    pub user_set: &'a [String],
    pub profile: Profile,
    pub params: &'a Params,
}

/// One worker job: a part of an experiment that runs in its own fresh process.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Job {
    pub experiment: String,
    pub profile: Profile,
    pub params: Params,
    /// Experiment-specific: which part of the sweep this worker measures.
    pub point: serde_json::Value,
    /// Seconds of measuring per series, found from a warm-up.
    pub budget_s: f64,
    pub min_samples: usize,
    pub max_samples: usize,
    pub timer_overhead_ns: f64,
    pub loop_overhead_ns: f64,
    /// CPUs the worker is pinned to (`--pin`); None leaves it unpinned.
    pub pin: Option<Vec<usize>>,
    /// The run's private directory with the helper programs.
    pub scratch: Option<std::path::PathBuf>,
}

/// Raw samples of one series, as a worker sends them.
#[derive(Clone, Debug, Serialize, Deserialize, Default)]
pub struct RawSeries {
    pub name: String,
    pub unit: Option<Unit>,
    pub labels: Labels,
    pub samples: Vec<f64>,
    #[serde(default)]
    pub detail: bool,
}

/// What a worker sends back on its stdout pipe.
#[derive(Clone, Debug, Serialize, Deserialize, Default)]
pub struct WorkerOutput {
    pub series: Vec<RawSeries>,
    pub readings: Vec<Reading>,
    pub notes: Vec<String>,
}

impl WorkerOutput {
    pub fn push(&mut self, name: &str, unit: Unit, labels: Labels, samples: Vec<f64>) {
        self.series.push(RawSeries {
            name: name.into(),
            unit: Some(unit),
            labels,
            samples,
            detail: false,
        });
    }

    pub fn push_detail(&mut self, name: &str, unit: Unit, labels: Labels, samples: Vec<f64>) {
        self.push(name, unit, labels, samples);
        self.series.last_mut().expect("just pushed").detail = true;
    }

    pub fn reading(&mut self, name: &str, unit: Unit, labels: Labels, value: f64) {
        self.readings.push(Reading {
            name: name.into(),
            unit,
            labels,
            value,
        });
    }
}

/// Builds labels from pairs: `labels(&[("method", "fork")])`.
pub fn labels(pairs: &[(&str, &str)]) -> Labels {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

pub struct Experiment {
    pub name: &'static str,
    pub group: &'static str,
    pub summary: &'static str,
    /// Which seed experiment this reproduces, in words.
    pub reproduces: &'static str,
    pub params: &'static [ParamSpec],
    pub seeds: &'static [SeedFigure],
    /// Hidden experiments (self-tests) are run only when named.
    pub hidden: bool,
    pub supported: fn(&Env) -> Result<(), String>,
    /// Splits the work into worker jobs (one point each). An error is the
    /// user's: a parameter that cannot be honoured on this machine.
    pub points: fn(&PlanCtx) -> Result<Points, String>,
    pub measure: fn(&Job) -> anyhow::Result<WorkerOutput>,
    pub analyze: fn(&mut ExperimentResult),
}

impl std::fmt::Debug for Experiment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Experiment")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// The worker jobs of an experiment, and notes on what was clamped or dropped.
#[derive(Default)]
pub struct Points {
    pub points: Vec<serde_json::Value>,
    pub notes: Vec<String>,
}

impl Points {
    pub fn single() -> Points {
        Points {
            points: vec![serde_json::Value::Null],
            notes: vec![],
        }
    }
}

pub fn always_supported(_: &Env) -> Result<(), String> {
    Ok(())
}

pub fn single_point(_: &PlanCtx) -> Result<Points, String> {
    Ok(Points::single())
}

pub fn no_analysis(_: &mut ExperimentResult) {}

/// Every experiment, in the order a full run takes them.
pub static REGISTRY: &[&Experiment] = &[
    &yardstick::TIMER,
    &yardstick::SYSCALL,
    &yardstick::MEMCPY,
    &spawn::METHODS_EXP,
    &spawn::COLD,
    &spawn::HEAP,
    &switch::PINGPONG,
    &switch::ECHO,
    &switch::INDIRECT,
    &switch::USERSPACE,
    &memory::MALLOC,
    &memory::THREADS,
    &memory::LIMITS,
    &memory::SHARING,
    &parallel::AVERAGE,
    &parallel::PROGRAM,
    &parallel::FORKTIME,
    &parallel::FANOUT,
    &selftest::CRASH,
    &selftest::HANG,
];

pub fn find(name: &str) -> Option<&'static Experiment> {
    REGISTRY.iter().copied().find(|e| e.name == name)
}

/// The visible groups, in registry order.
pub fn groups() -> Vec<&'static str> {
    let mut g: Vec<&str> = Vec::new();
    for e in REGISTRY.iter().filter(|e| !e.hidden) {
        if !g.contains(&e.group) {
            g.push(e.group);
        }
    }
    g
}

/// Resolves names given on the command line (experiments or groups; none
/// means every visible experiment) to experiments, in registry order.
pub fn select(names: &[String]) -> Result<Vec<&'static Experiment>, String> {
    if names.is_empty() {
        return Ok(REGISTRY.iter().copied().filter(|e| !e.hidden).collect());
    }
    let mut chosen: Vec<&'static Experiment> = Vec::new();
    for n in names {
        let matched: Vec<&'static Experiment> = if let Some(e) = find(n) {
            vec![e]
        } else {
            REGISTRY
                .iter()
                .copied()
                .filter(|e| !e.hidden && e.group == n)
                .collect()
        };
        if matched.is_empty() {
            let visible: Vec<&str> = REGISTRY
                .iter()
                .filter(|e| !e.hidden)
                .map(|e| e.name)
                .collect();
            return Err(format!(
                "unknown experiment or group '{n}'\n  groups: {}\n  experiments: {}",
                groups().join(", "),
                visible.join(", ")
            ));
        }
        for e in matched {
            if !chosen.iter().any(|c| c.name == e.name) {
                chosen.push(e);
            }
        }
    }
    chosen.sort_by_key(|e| REGISTRY.iter().position(|r| r.name == e.name));
    Ok(chosen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_grouped() {
        for (i, a) in REGISTRY.iter().enumerate() {
            assert!(
                a.name.starts_with(&format!("{}.", a.group)),
                "{} not in its group",
                a.name
            );
            for b in &REGISTRY[i + 1..] {
                assert_ne!(a.name, b.name);
            }
        }
    }

    #[test]
    fn every_default_parameter_parses_within_its_bounds() {
        for e in REGISTRY {
            for p in e.params {
                for profile in [Profile::Quick, Profile::Thorough] {
                    p.parse(p.default_for(profile))
                        .unwrap_or_else(|err| panic!("{}.{}: {err}", e.name, p.name));
                }
            }
        }
    }

    #[test]
    fn seed_figures_name_a_seed_file_and_an_ordered_range() {
        for e in REGISTRY {
            for s in e.seeds {
                assert!(s.source.ends_with(".txt"), "{}: {}", e.name, s.source);
                assert!(s.lo <= s.hi && s.lo > 0.0, "{}: {}", e.name, s.metric);
            }
        }
    }

    #[test]
    fn select_resolves_groups_and_rejects_unknown_names() {
        let spawn = select(&["spawn".into()]).unwrap();
        assert!(spawn.iter().all(|e| e.group == "spawn") && spawn.len() >= 3);
        let Err(err) = select(&["nope".into()]) else {
            panic!("an unknown name was accepted")
        };
        assert!(err.contains("groups: yardstick, spawn"), "{err}");
        assert!(select(&[]).unwrap().iter().all(|e| !e.hidden));
        // hidden experiments run only when named
        assert_eq!(select(&["selftest.crash".into()]).unwrap().len(), 1);
    }
}

/// Hand-made results for testing analyses without measuring.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    pub fn metric(name: &str, pairs: &[(&str, &str)], v: &[f64]) -> crate::results::Metric {
        crate::results::Metric {
            name: name.into(),
            unit: Unit::Ns,
            labels: labels(pairs),
            summary: crate::stats::summarize(v).unwrap(),
            samples: v.to_vec(),
            detail: false,
            seed: None,
        }
    }

    pub fn result(metrics: Vec<crate::results::Metric>) -> ExperimentResult {
        ExperimentResult {
            name: "test.x".into(),
            group: "test".into(),
            summary: String::new(),
            status: crate::results::Status::Ok,
            reason: None,
            duration_s: 0.0,
            params: Default::default(),
            metrics,
            readings: vec![],
            fits: vec![],
            findings: vec![],
            notes: vec![],
        }
    }
}
