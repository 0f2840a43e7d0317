//! The worker protocol. Each job runs in a fresh copy of tasklab
//! (`tasklab __worker`), in a process group of its own: the job goes in as
//! JSON on stdin, the raw samples come back as JSON on stdout. The parent
//! enforces the time limit, and on a time-out, a crash or Ctrl-C it kills the
//! whole group, so nothing the worker started is left behind. The worker
//! and what it starts also die with their parent (a death signal), so a
//! tasklab that is itself killed leaves none of them running.

use super::protocol::{Job, WorkerOutput};
use crate::sys;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Why a job produced no result.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub reason: String,
    pub interrupted: bool,
}

/// The hidden subcommand a worker runs as.
pub const WORKER_ARG: &str = "__worker";

/// Why a run stops early: 0 while it goes on, else the number of the signal
/// that asked it to stop (SIGINT, SIGTERM, SIGHUP; SIGPIPE when the reader
/// of its stdout went away). Signal handlers store into it.
pub type StopFlag = AtomicUsize;

/// The signal that stopped the run, if one did.
pub fn stopped_by(stop: &StopFlag) -> Option<i32> {
    match stop.load(Ordering::SeqCst) {
        0 => None,
        sig => Some(sig as i32),
    }
}

/// Asks the run to stop because of `sig`, unless something already did.
pub fn request_stop(stop: &StopFlag, sig: i32) {
    let _ = stop.compare_exchange(0, sig as usize, Ordering::SeqCst, Ordering::SeqCst);
}

/// What a stop by `sig` is called in results: "interrupted (SIGTERM)".
pub fn stop_reason(sig: i32) -> String {
    if sig == sys::SIGPIPE {
        "interrupted (SIGPIPE: the reader of stdout went away)".into()
    } else {
        format!("interrupted ({})", sys::signal_name(sig))
    }
}

/// Runs `job` in a fresh worker and waits for it, at most `limit`, giving up
/// early when `stop` is set.
pub fn run_job(job: &Job, limit: Duration, stop: &StopFlag) -> Result<WorkerOutput, Failure> {
    let fail = |reason: String| Failure {
        reason,
        interrupted: false,
    };
    let mut cmd = super::self_command()
        .map_err(|e| fail(format!("cannot find tasklab's own binary: {e}")))?;
    let mut child = sys::kill_with_parent(
        cmd.arg(WORKER_ARG)
            .envs(job.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0),
    )
    .spawn()
    .map_err(|e| fail(format!("cannot start a worker: {e}")))?;
    let pgid = child.id() as i32;
    let job_json = serde_json::to_vec(job).expect("a job serialises");
    let mut stdin = child.stdin.take().expect("piped stdin");
    // A worker that dies before reading its job makes this write fail; the
    // exit status below says why, so the write error itself is not reported.
    let _ = stdin.write_all(&job_json);
    drop(stdin);

    let out_reader = read_all(child.stdout.take().expect("piped stdout"));
    let err_reader = read_all(child.stderr.take().expect("piped stderr"));
    let (tx, rx) = mpsc::channel::<std::io::Result<ExitStatus>>();
    let waiter = std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });

    let deadline = Instant::now() + limit;
    let mut ended_by: Option<Failure> = None;
    let status = loop {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(status) => break status,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                break Err(std::io::Error::other("waiter thread died"))
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let why = if let Some(sig) = stopped_by(stop) {
                    Some(Failure {
                        reason: stop_reason(sig),
                        interrupted: true,
                    })
                } else if Instant::now() >= deadline {
                    Some(fail(format!(
                        "timed out after {:.0} s; worker and its children killed",
                        limit.as_secs_f64()
                    )))
                } else {
                    None
                };
                if let Some(f) = why {
                    if ended_by.is_none() {
                        let _ = sys::kill_group(pgid, sys::SIGKILL);
                        ended_by = Some(f);
                    }
                }
            }
        }
    };
    // The worker is gone; anything it started that is still alive goes too.
    let _ = sys::kill_group(pgid, sys::SIGKILL);
    let _ = waiter.join();
    let stdout = out_reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    let stderr_tail = tail(&String::from_utf8_lossy(&stderr), 6);
    if let Some(mut f) = ended_by {
        if !stderr_tail.is_empty() {
            f.reason = format!("{}; worker said: {stderr_tail}", f.reason);
        }
        return Err(f);
    }
    let status = status.map_err(|e| fail(format!("cannot wait for the worker: {e}")))?;
    if !status.success() {
        let how = how_it_ended(status);
        return Err(fail(if stderr_tail.is_empty() {
            how
        } else {
            format!("{how}: {stderr_tail}")
        }));
    }
    serde_json::from_slice(&stdout).map_err(|e| {
        fail(format!(
            "worker sent no valid result ({e}); stderr: {stderr_tail}"
        ))
    })
}

/// Reads `r` to its end on a thread of its own (a worker's pipe, read
/// while the worker runs so that it never blocks on a full one).
fn read_all(mut r: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = r.read_to_end(&mut buf);
        buf
    })
}

/// How a worker that failed ended, in words.
fn how_it_ended(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (_, Some(sig)) => {
            format!("worker killed by signal {sig} ({})", sys::signal_name(sig))
        }
        (Some(code), _) => format!("worker exited with status {code}"),
        _ => "worker ended abnormally".into(),
    }
}

fn tail(text: &str, lines: usize) -> String {
    let v: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    v[v.len().saturating_sub(lines)..].join(" | ")
}

/// What a worker runs for an experiment.
pub type MeasureFn = fn(&Job) -> anyhow::Result<WorkerOutput>;

/// The worker side: read the job, find its experiment's measurement through
/// `lookup` (the registry, handed down), measure, write the output. Returns
/// the process exit code.
pub fn worker_main(lookup: fn(&str) -> Option<MeasureFn>) -> i32 {
    // Already asked for at spawn (kill_with_parent); asked again here for a
    // worker started some other way.
    let parent = sys::parent_pid();
    if let Err(e) = sys::die_with_parent(parent) {
        eprintln!("tasklab worker: {e}");
        return 1;
    }
    super::protocol::serve_stdin("worker", |job: Job| {
        let Some(measure) = lookup(&job.experiment) else {
            return Err(format!("tasklab worker: no experiment {}", job.experiment));
        };
        if let Some(cpus) = &job.pin {
            sys::pin_current_thread(cpus)
                .map_err(|e| format!("tasklab worker: cannot pin to CPUs {cpus:?}: {e}"))?;
        }
        // The parent checked that sampling works here; a worker that
        // still cannot start it (out of descriptors) says so in a note.
        let sampling = job.why.map(|w| super::why::start(&w));
        let round = super::telemetry::Recorder::start();
        let measured = measure(&job).map_err(|e| format!("{e:#}"));
        // Sampling ends (and its cgroup is left and removed) also when
        // the measurement failed.
        let why = super::why::finish();
        let mut out = measured?;
        out.telemetry = Some(round.finish());
        out.why = why;
        if let Some(Err(e)) = sampling {
            out.why_failed = Some(format!("--why: this worker could not sample: {e}"));
        }
        Ok(out)
    })
}

#[cfg(test)]
#[path = "worker_tests.rs"]
mod tests;
