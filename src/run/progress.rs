//! The progress line on stderr (only when stderr is a terminal): jobs done,
//! time elapsed, an estimate of the time left, and the job that runs, in
//! words. A ticker thread in the parent redraws it twice a second, so the
//! clock moves while a long job runs; the workers measure in processes of
//! their own, and the redraw is a few hundred bytes to the terminal. The
//! line is fitted to stderr's width (the job's words give way, then the
//! bar); a point's sizes read in units (`heap 1 GiB`). The time left never
//! goes up once shown: see [`Pace::left_text`] for what it says instead
//! when the run falls behind.

use super::plan::{Plan, Planned, Slot};
use indicatif::{ProgressBar, ProgressState, ProgressStyle};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How often the line is redrawn.
const TICK: Duration = Duration::from_millis(500);

/// Finished jobs' pace outweighs the plan's prior once this many are done.
const PRIOR_WEIGHT: f64 = 3.0;

/// The width of the line when stderr does not say its own.
const DEFAULT_WIDTH: usize = 80;

/// The estimate is this far over the time shown (a factor and seconds)
/// before the line stops quoting a time it knows is too short.
const BEHIND_FACTOR: f64 = 1.5;
const BEHIND_S: f64 = 10.0;

/// What the estimate is made of, and what the line showed.
struct Pace {
    started: Instant,
    done: usize,
    total: usize,
    /// Seconds a job is expected to take before any has finished.
    prior_s: f64,
    /// When the last job ended (or the run started).
    last_end: Instant,
    /// The time left the line showed last, and when: it never shows more.
    shown: Option<(f64, Instant)>,
    /// Adaptive rounds were added: a phase of its own, with its own estimate.
    adaptive: bool,
    /// The run's own estimate, when it gave one ([`Progress::left`]): the
    /// seconds left after the job that runs, that job's seconds, and when
    /// it started.
    told: Option<(f64, f64, Instant)>,
    /// The estimate rests on measured costs (every point has run a round;
    /// with a budget that is the schedule's first part, `plan::schedule`):
    /// from then on the time shown holds instead of going up.
    settled: bool,
    /// The job that runs, in words.
    msg: String,
}

impl Pace {
    fn new(total: usize, prior_s: f64) -> Pace {
        let now = Instant::now();
        Pace {
            started: now,
            done: 0,
            total,
            prior_s,
            last_end: now,
            shown: None,
            adaptive: false,
            told: None,
            settled: true,
            msg: String::new(),
        }
    }

    /// Seconds left: the run's own estimate when it gave one (each point's
    /// cost, the budget's end: `run::budget::left_s`), counting down through
    /// the job that runs but never below what comes after it; else the jobs
    /// not done at the pace so far, weighed with the plan's prior while few
    /// jobs are done, less the time the job that runs has had (up to one
    /// job's pace).
    fn left_s(&self) -> f64 {
        if let Some((after, job, at)) = self.told {
            return after + (job - at.elapsed().as_secs_f64()).max(0.0);
        }
        let elapsed = self.started.elapsed().as_secs_f64();
        let done = self.done as f64;
        let pace = (elapsed + PRIOR_WEIGHT * self.prior_s) / (done + PRIOR_WEIGHT);
        let left = self.total.saturating_sub(self.done);
        if left == 0 {
            return 0.0;
        }
        let into = self.last_end.elapsed().as_secs_f64().min(pace);
        (left as f64 * pace - into).max(0.0)
    }

    /// The time left as the line says it. Once the estimate is settled
    /// (every point ran a round) the number shown never goes up: it is the
    /// lowest estimate so far, so it counts down as jobs finish and holds
    /// while a job runs long. When
    /// the estimate runs well past it ([`BEHIND_FACTOR`], [`BEHIND_S`]), the
    /// line says the run is slower than estimated instead of quoting a time
    /// it knows is too short, until the estimate comes back under the time
    /// shown. The budget's rounds are named as such.
    fn left_text(&mut self) -> String {
        let est = self.left_s();
        let now = Instant::now();
        let shown = match self.shown {
            // Until every point has run a round, its costs are guesses:
            // the estimate is shown as it is, up or down.
            Some((s, _)) if self.settled => s.min(est),
            _ => est,
        };
        self.shown = Some((shown, now));
        let phase = if self.adaptive {
            "adaptive rounds, "
        } else {
            ""
        };
        if est > shown * BEHIND_FACTOR && est > shown + BEHIND_S {
            format!("{phase}slower than estimated")
        } else {
            format!("{phase}about {} left", fmt_clock(shown))
        }
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

/// Columns of the bar.
const BAR: usize = 20;

/// Columns of the job's words below which the bar gives way to them.
const MIN_MSG: usize = 30;

/// The progress line fitted to `width` columns (one less: a line that
/// fills the last column wraps on some terminals): the bar, jobs done, time
/// elapsed, the time left and the job in words; the job's words give way
/// first (cut at a " · " or a space, ended with "…"), then the bar.
pub fn line(width: usize, pos: usize, len: usize, clock: &str, left: &str, msg: &str) -> String {
    let room = width.saturating_sub(1);
    let filled = (pos * BAR).checked_div(len).map_or(0, |f| f.min(BAR));
    let bar = format!("{}{}", "█".repeat(filled), "░".repeat(BAR - filled));
    let head = format!("{pos}/{len} jobs · {clock} · {left}");
    let cols = |s: &str| s.chars().count();
    for with_bar in [true, false] {
        let fixed = if with_bar {
            format!("{bar} {head}")
        } else {
            head.clone()
        };
        if cols(&fixed) > room {
            continue;
        }
        if msg.is_empty() {
            return fixed;
        }
        let whole = format!("{fixed} · {msg}");
        if cols(&whole) <= room {
            return whole;
        }
        // The job's words, cut where they fit; the bar gives way first
        // when too few of them would.
        let avail = room.saturating_sub(cols(&fixed) + 3 + 1);
        if with_bar && avail < MIN_MSG {
            continue;
        }
        let mut cut = String::new();
        for part in msg.split(' ') {
            let next = if cut.is_empty() {
                part.to_string()
            } else {
                format!("{cut} {part}")
            };
            if cols(&next) > avail {
                break;
            }
            cut = next;
        }
        let cut = cut.trim_end_matches([' ', '·']);
        return if cut.is_empty() {
            fixed
        } else {
            format!("{fixed} · {cut}…")
        };
    }
    // Narrower than the jobs and the times: what fits of them.
    head.chars().take(room).collect()
}

impl Progress {
    /// The line for `plan`, drawn only when `visible` (and stderr is a
    /// terminal: indicatif draws nothing elsewhere).
    pub fn new(plan: &Plan, visible: bool) -> Progress {
        let mut first = Pace::new(plan.jobs(), prior_s(plan));
        first.told = Some((planned_s(plan), 0.0, Instant::now()));
        first.settled = false;
        let pace = Arc::new(Mutex::new(first));
        if !visible {
            return Progress {
                bar: ProgressBar::hidden(),
                pace,
            };
        }
        let p = Arc::clone(&pace);
        let style = ProgressStyle::with_template("{line}")
            .expect("valid template")
            .with_key(
                "line",
                move |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let mut pace = p.lock().unwrap_or_else(|e| e.into_inner());
                    let width = crate::sys::tty::stderr_columns().unwrap_or(DEFAULT_WIDTH);
                    let left = pace.left_text();
                    let text = line(
                        width,
                        s.pos() as usize,
                        s.len().unwrap_or(0) as usize,
                        &fmt_clock(s.elapsed().as_secs_f64()),
                        &left,
                        &pace.msg,
                    );
                    let _ = write!(w, "{text}");
                },
            );
        let bar = ProgressBar::new(plan.jobs() as u64).with_style(style);
        bar.enable_steady_tick(TICK);
        Progress { bar, pace }
    }

    /// A job starts: its name in words.
    pub fn start(&self, name: String) {
        self.pace.lock().unwrap_or_else(|e| e.into_inner()).msg = name;
        self.bar.tick();
    }

    /// `n` jobs were added to the run: the Summary's quantities' rounds, or
    /// (`adaptive`) a pass of the rounds the budget shares out, which the
    /// line names as a phase of its own.
    pub fn more(&self, n: usize, adaptive: bool) {
        let mut pace = self.pace.lock().unwrap_or_else(|e| e.into_inner());
        pace.total += n;
        if adaptive && !pace.adaptive {
            pace.adaptive = true;
        }
        drop(pace);
        self.bar.inc_length(n as u64);
    }

    /// The run's estimate as a job starts: `after_s` seconds of measuring
    /// once it is done, `job_s` for the job itself, and whether it is
    /// `settled` (every point's cost measured).
    pub fn left(&self, after_s: f64, job_s: f64, settled: bool) {
        let mut pace = self.pace.lock().unwrap_or_else(|e| e.into_inner());
        pace.told = Some((after_s, job_s, Instant::now()));
        pace.settled = settled;
    }

    /// A job ended (or was skipped).
    pub fn end(&self) {
        let mut pace = self.pace.lock().unwrap_or_else(|e| e.into_inner());
        pace.done += 1;
        pace.last_end = Instant::now();
        drop(pace);
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

    /// Jobs ended so far, and jobs in the run.
    pub fn jobs(&self) -> (usize, usize) {
        let pace = self.pace.lock().unwrap_or_else(|e| e.into_inner());
        (pace.done, pace.total)
    }
}

/// Seconds of measuring the plan holds before any job has run: its jobs
/// at the prior's seconds each, and with a budget, up to its end (the
/// profile's rounds at every point at the prior's seconds, for named
/// experiments without `--budget`: `budget::deadline_s`).
fn planned_s(plan: &Plan) -> f64 {
    let prior = prior_s(plan);
    let points: usize = plan
        .experiments
        .iter()
        .filter(|p| p.unsupported.is_none())
        .map(|p| p.points.len())
        .sum();
    let rounds_s = (points * plan.sizing.rounds) as f64 * prior;
    let deadline = plan
        .adaptive
        .map(|a| super::budget::deadline_s(a.budget_s, a.asked, rounds_s));
    super::budget::left_s(plan.jobs() as f64 * prior, 0.0, deadline)
}

/// Seconds one job is expected to take before any has: its measuring
/// budget, a few series of it, and a worker's start.
pub fn prior_s(plan: &Plan) -> f64 {
    4.0 * plan.sizing.budget_s + 0.1
}

/// A job in words: the experiment, what its point varies (`cpus 0,1`,
/// `heap=64 MiB`), and the round: of the minimum rounds (`round 2/3`), of
/// the Summary's quantities' (`round 5/8`), or one the budget gave.
pub fn job_name(planned: &Planned, slot: Slot, plan: &Plan) -> String {
    let point = &planned.points[slot.point];
    let mut parts = vec![planned.exp.name.to_string()];
    if let Some(o) = point.as_object() {
        parts.extend(
            o.iter()
                .map(|(k, v)| format!("{k} {}", words_as(v, is_size_key(k)))),
        );
    } else if !point.is_null() {
        parts.push(words(point));
    }
    let (n, min, most) = (slot.round + 1, plan.sizing.min_rounds, plan.sizing.rounds);
    parts.push(match () {
        _ if n <= min => format!("round {n}/{min}"),
        _ if n <= most => format!("round {n}/{most}"),
        _ => format!("round {n}, for precision"),
    });
    parts.join(" · ")
}

/// A point in words, as the progress line and failure lines name it:
/// `heap=1 GiB pages=4k`, `cpus=0,1`; nothing for the single point.
pub fn point_words(point: &serde_json::Value) -> String {
    if point.is_null() {
        return String::new();
    }
    words(point)
}

/// Keys whose numbers are sizes in bytes: the points' fields that hold one.
fn is_size_key(k: &str) -> bool {
    matches!(
        k,
        "heap" | "size" | "stack" | "bytes" | "working_sets" | "working_set"
    )
}

/// A JSON value in words: `0,1` for a list, `a=1 b=2` for an object, a
/// size under a size's key in units (`heap=1 GiB`), a large count with its
/// digits grouped.
fn words(v: &serde_json::Value) -> String {
    words_as(v, false)
}

fn words_as(v: &serde_json::Value, size: bool) -> String {
    use serde_json::Value;
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => a
            .iter()
            .map(|x| words_as(x, size))
            .collect::<Vec<_>>()
            .join(","),
        Value::Object(o) => o
            .iter()
            .map(|(k, v)| format!("{k}={}", words_as(v, is_size_key(k))))
            .collect::<Vec<_>>()
            .join(" "),
        Value::Null => "none".into(),
        Value::Number(n) => match n.as_u64() {
            Some(b) if size => crate::units::fmt_size(b),
            Some(c) if c >= 10_000 => crate::units::group_digits(c as i64),
            _ => n.to_string(),
        },
        other => other.to_string(),
    }
}

#[cfg(test)]
#[path = "progress_tests.rs"]
mod tests;
