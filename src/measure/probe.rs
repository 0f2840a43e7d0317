//! Fresh-process probes: a measurement that must start from a process that
//! has done nothing yet (the first creation a process ever makes). The
//! caller, usually a worker, runs `tasklab __probe` with a request on stdin;
//! the probe's JSON answer comes back on stdout: what it measured, or why it
//! could not measure here ([`Answer`]), so a skip is never told from a
//! failure by the words of an error.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::process::Stdio;

/// The hidden subcommand a probe runs as.
pub const PROBE_ARG: &str = "__probe";

/// What a probe process is asked to do.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ProbeRequest {
    pub experiment: String,
    /// The experiment's own argument (a method name, a timer overhead, ...).
    pub arg: serde_json::Value,
}

/// What a probe answers when it did not fail.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer<T> {
    /// What the fresh process measured.
    Measured(T),
    /// This machine cannot run what was asked (a method it lacks): a note
    /// for the results, not a failure of the experiment.
    Skipped { reason: String },
}

impl<T: Serialize> Answer<T> {
    /// The answer as the probe sends it.
    pub fn encode(&self) -> anyhow::Result<Answer<serde_json::Value>> {
        Ok(match self {
            Answer::Measured(m) => Answer::Measured(serde_json::to_value(m)?),
            Answer::Skipped { reason } => Answer::Skipped {
                reason: reason.clone(),
            },
        })
    }
}

impl Answer<serde_json::Value> {
    /// The measurement read back as the probe's own type.
    pub fn decode<T: DeserializeOwned>(self) -> anyhow::Result<Answer<T>> {
        Ok(match self {
            Answer::Measured(v) => Answer::Measured(serde_json::from_value(v)?),
            Answer::Skipped { reason } => Answer::Skipped { reason },
        })
    }
}

/// A probe: the experiment's argument in, its answer out.
pub type ProbeFn = fn(&serde_json::Value) -> anyhow::Result<Answer<serde_json::Value>>;

/// Runs one probe of `experiment` in a fresh tasklab process and returns its
/// answer. An error carries what the probe said on stderr.
pub fn run<T: DeserializeOwned>(
    experiment: &str,
    arg: serde_json::Value,
) -> anyhow::Result<Answer<T>> {
    let request = serde_json::to_vec(&ProbeRequest {
        experiment: experiment.into(),
        arg,
    })?;
    // The probe dies with its caller: a worker killed with tasklab leaves
    // no probe behind.
    let mut child = crate::sys::kill_with_parent(
        super::self_command()?
            .arg(PROBE_ARG)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
    .spawn()?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    // A probe that dies before reading is reported by its exit status.
    let _ = stdin.write_all(&request);
    drop(stdin);
    let out = child.wait_with_output()?;
    if !out.status.success() {
        anyhow::bail!("{}", String::from_utf8_lossy(&out.stderr).trim());
    }
    let answer: Answer<serde_json::Value> = serde_json::from_slice(&out.stdout)?;
    answer.decode()
}

/// The probe side: read the request, run the experiment's probe, print the
/// answer. Returns the process exit code.
pub fn probe_main(lookup: fn(&str) -> Option<ProbeFn>) -> i32 {
    super::protocol::serve_stdin("probe", |req: ProbeRequest| {
        let Some(probe) = lookup(&req.experiment) else {
            return Err(format!(
                "tasklab probe: experiment {} has no probe",
                req.experiment
            ));
        };
        probe(&req.arg).map_err(|e| format!("{e:#}"))
    })
}

#[cfg(test)]
#[path = "probe_tests.rs"]
mod tests;
