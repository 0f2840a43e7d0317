//! The progress line on stderr (only when stderr is a terminal): jobs done,
//! time elapsed, an estimate of the time left, and the job that runs, in
//! words. A ticker thread in the parent redraws it twice a second, so the
//! clock moves while a long job runs; the workers measure in processes of
//! their own, and the redraw is a few hundred bytes to the terminal.

use super::plan::{Plan, Planned, Slot};
use indicatif::{ProgressBar, ProgressState, ProgressStyle};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How often the line is redrawn.
const TICK: Duration = Duration::from_millis(500);

/// Finished jobs' pace outweighs the plan's prior once this many are done.
const PRIOR_WEIGHT: f64 = 3.0;

/// What the estimate is made of.
struct Pace {
    started: Instant,
    done: usize,
    total: usize,
    /// Seconds a job is expected to take before any has finished.
    prior_s: f64,
}

impl Pace {
    /// Seconds left: the jobs not done at the pace so far, weighed with the
    /// plan's prior while few jobs are done.
    fn left_s(&self) -> f64 {
        let elapsed = self.started.elapsed().as_secs_f64();
        let done = self.done as f64;
        let pace = (elapsed + PRIOR_WEIGHT * self.prior_s) / (done + PRIOR_WEIGHT);
        (self.total.saturating_sub(self.done) as f64 * pace).max(0.0)
    }
}

/// The progress line of a run.
pub struct Progress {
    bar: ProgressBar,
    pace: Arc<Mutex<Pace>>,
}

/// `s` seconds as the line shows them: `42s`, `3m 05s`.
pub fn fmt_clock(s: f64) -> String {
    let s = s.max(0.0).round() as u64;
    if s < 60 {
        format!("{s}s")
    } else {
        format!("{}m {:02}s", s / 60, s % 60)
    }
}

impl Progress {
    /// The line for `plan`, drawn only when `visible` (and stderr is a
    /// terminal: indicatif draws nothing elsewhere).
    pub fn new(plan: &Plan, visible: bool) -> Progress {
        let pace = Arc::new(Mutex::new(Pace {
            started: Instant::now(),
            done: 0,
            total: plan.jobs(),
            prior_s: prior_s(plan),
        }));
        if !visible {
            return Progress {
                bar: ProgressBar::hidden(),
                pace,
            };
        }
        let p = Arc::clone(&pace);
        let style = ProgressStyle::with_template(
            "{bar:20} {pos}/{len} jobs · {clock} · {left} · {wide_msg}",
        )
        .expect("valid template")
        .with_key("clock", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = write!(w, "{}", fmt_clock(s.elapsed().as_secs_f64()));
        })
        .with_key(
            "left",
            move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
                let pace = p.lock().unwrap_or_else(|e| e.into_inner());
                let _ = write!(w, "about {} left", fmt_clock(pace.left_s()));
            },
        );
        let bar = ProgressBar::new(plan.jobs() as u64).with_style(style);
        bar.enable_steady_tick(TICK);
        Progress { bar, pace }
    }

    /// A job starts: its name in words.
    pub fn start(&self, name: String) {
        self.bar.set_message(name);
    }

    /// Adaptive rounds added `n` jobs to the run.
    pub fn more(&self, n: usize) {
        self.pace.lock().unwrap_or_else(|e| e.into_inner()).total += n;
        self.bar.inc_length(n as u64);
    }

    /// A job ended (or was skipped).
    pub fn end(&self) {
        self.pace.lock().unwrap_or_else(|e| e.into_inner()).done += 1;
        self.bar.inc(1);
    }

    /// Runs `f` with the line cleared, for something printed meanwhile.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.bar.suspend(f)
    }

    /// Clears the line for good.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Seconds one job is expected to take before any has: its measuring
/// budget, a few series of it, and a worker's start.
fn prior_s(plan: &Plan) -> f64 {
    4.0 * plan.sizing.budget_s + 0.1
}

/// A job in words: the experiment, what its point varies (`cpus 0,1`,
/// `heap=64 MiB`), and the round.
pub fn job_name(planned: &Planned, slot: Slot, plan: &Plan) -> String {
    let point = &planned.points[slot.point];
    let mut parts = vec![planned.exp.name.to_string()];
    if let Some(o) = point.as_object() {
        parts.extend(o.iter().map(|(k, v)| format!("{k} {}", words(v))));
    } else if !point.is_null() {
        parts.push(words(point));
    }
    parts.push(format!("round {}/{}", slot.round + 1, plan.sizing.rounds));
    parts.join(" · ")
}

/// A JSON value in words: `0,1` for a list, `a=1 b=2` for an object.
fn words(v: &serde_json::Value) -> String {
    use serde_json::Value;
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => a.iter().map(words).collect::<Vec<_>>().join(","),
        Value::Object(o) => o
            .iter()
            .map(|(k, v)| format!("{k}={}", words(v)))
            .collect::<Vec<_>>()
            .join(" "),
        Value::Null => "none".into(),
        other => other.to_string(),
    }
}

#[cfg(test)]
#[path = "progress_tests.rs"]
mod tests;
