//! What travels between the parent and a worker: the job going in, the raw
//! samples coming back. Both are JSON on a pipe.

use super::params::Params;
use super::sizing::Profile;
use crate::metric::MetricSpec;
use crate::results::{Labels, Reading, Unit};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// One worker job: a part of an experiment that runs in its own fresh process.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Job {
    pub experiment: String,
    pub profile: Profile,
    pub params: Params,
    /// Experiment-specific: which part of the sweep this worker measures.
    pub point: serde_json::Value,
    /// Which round this is (0-based) of how many: each round of a point is
    /// a fresh worker, placed at its own moment of the run.
    pub round: usize,
    pub rounds: usize,
    /// Seeds the order in which the worker interleaves what it measures.
    pub seed: u64,
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
    /// Variables set in the worker's environment before it starts (`ab`'s
    /// `env:` SPECs): what the loader and libc read at a process's start.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<(String, String)>,
    /// `run --why`: sample the timed windows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<super::why::WhyJob>,
}

impl Job {
    /// The point the plan put in this job, as the experiment's own type
    /// (the one its `points` planned with): a point that does not fit is an
    /// error naming it, never a silent default.
    pub fn point<P: DeserializeOwned>(&self) -> anyhow::Result<P> {
        P::deserialize(&self.point).map_err(|e| {
            let full = std::any::type_name::<P>();
            let ty = full.rsplit("::").next().unwrap_or(full);
            anyhow::anyhow!(
                "{}: the planned point {} is not a {ty}: {e}",
                self.experiment,
                self.point
            )
        })
    }

    /// A job of `experiment` at `point`, the rest zero: for tests of what a
    /// measure reads from its job.
    #[cfg(test)]
    pub fn at(experiment: &str, point: serde_json::Value) -> Job {
        Job {
            experiment: experiment.into(),
            profile: Profile::Quick,
            params: Params::default(),
            point,
            round: 0,
            rounds: 1,
            seed: 0,
            budget_s: 0.0,
            min_samples: 0,
            max_samples: 0,
            timer_overhead_ns: 0.0,
            loop_overhead_ns: 0.0,
            pin: None,
            scratch: None,
            env: Vec::new(),
            why: None,
        }
    }
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
    /// Why this round measured fewer than its point asked, each in a clause
    /// (the result's `fewer_than_asked`); its note says it at length.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fewer_than_asked: Vec<String>,
    /// What the machine did around this round.
    #[serde(default)]
    pub telemetry: Option<super::telemetry::RoundTelemetry>,
    /// `run --why`: each sampled series' call chains in this round.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub why: Vec<super::why::RawStacks>,
    /// `run --why`: why this worker, asked to sample, could not (a note).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why_failed: Option<String>,
}

impl WorkerOutput {
    /// Adds the samples of the series `spec` (its name and unit) with `labels`.
    pub fn push(&mut self, spec: &MetricSpec, labels: Labels, samples: Vec<f64>) {
        self.series.push(RawSeries {
            name: spec.name.into(),
            unit: Some(spec.unit),
            labels,
            samples,
            detail: false,
        });
    }

    /// As [`WorkerOutput::push`], for a series shown only in detailed output.
    pub fn push_detail(&mut self, spec: &MetricSpec, labels: Labels, samples: Vec<f64>) {
        self.push(spec, labels, samples);
        self.series.last_mut().expect("just pushed").detail = true;
    }

    /// Adds one reading (a value measured once per round) of `spec`.
    pub fn reading(&mut self, spec: &MetricSpec, labels: Labels, value: f64) {
        self.readings.push(Reading::of(spec, labels, value));
    }
}

/// The child side of a pipe protocol (a worker, a probe): reads one JSON
/// request from stdin, lets `serve` answer it, writes the answer as JSON to
/// stdout. Returns the process exit code; what went wrong goes to stderr,
/// where the parent reads it.
pub fn serve_stdin<Req, Ans>(who: &str, serve: impl FnOnce(Req) -> Result<Ans, String>) -> i32
where
    Req: serde::de::DeserializeOwned,
    Ans: Serialize,
{
    use std::io::{Read, Write};
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut input) {
        eprintln!("tasklab {who}: cannot read the request: {e}");
        return 1;
    }
    let req: Req = match serde_json::from_slice(&input) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("tasklab {who}: malformed request: {e}");
            return 1;
        }
    };
    match serve(req) {
        Ok(answer) => {
            let json = serde_json::to_vec(&answer).expect("an answer serialises");
            let mut stdout = std::io::stdout().lock();
            if stdout
                .write_all(&json)
                .and_then(|_| stdout.flush())
                .is_err()
            {
                return 1;
            }
            0
        }
        Err(why) => {
            eprintln!("{why}");
            1
        }
    }
}

/// Builds labels from pairs: `labels(&[("method", "fork")])`.
pub fn labels(pairs: &[(&str, &str)]) -> Labels {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[cfg(test)]
#[path = "protocol_tests.rs"]
mod tests;
