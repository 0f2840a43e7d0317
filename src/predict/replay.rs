//! The process's own frame layout replayed, and the cold fork of a heap
//! laid in it timed: where predict's model places the fork by the shares
//! of the process's layout (in runs, near, scattered), the replay forks
//! the layout itself. A C probe that did this forked within 4% of Redis's
//! own fork at 1.1 and 4.5 GiB where no model of the shares came as close
//! (docs/PREDICT.md, *Near pages in a mix*).
//!
//! The heap has one page per present anonymous page of the process, in
//! the order fork walks them; each block of 2 MiB of the process's frames
//! gets a fresh huge page of ours, split, and each heap page is moved to
//! its page's offset in that block ([`crate::sys::Heap::replay`]).

use super::model::{spread_of, Spread};
use super::range::Range;
use crate::sys::{self, procfs};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Frames in a block of 2 MiB.
const BLOCK_FRAMES: u64 = 512;

/// Rounds of forks timed on the replayed heap, and forks a round, each
/// after [`PAUSE_MS`]: 20 cold forks, enough for the single-fork spread
/// from order statistics alone ([`super::model::SPREAD_FROM`]).
pub const ROUNDS: usize = 5;
pub const FORKS_PER_ROUND: usize = 4;

/// The pause before each fork, ms: spawn.heap's default `pause_ms`, the
/// model's cold forks'.
pub const PAUSE_MS: u64 = 300;

/// Memory left over beyond the replay's heap and scratch, bytes: the
/// replay is not built when MemAvailable is short of both.
pub const MARGIN_BYTES: u64 = 512 << 20;

/// What the replay names itself, and what the model's cold figures are
/// named beside it.
pub const REPLAY_NAME: &str = "the process's layout replayed";
pub const MODEL_NAME: &str = "placed by its layout's shares";

/// Why there is no replay when `--replay` was not given, and what it
/// would take: a copy of the process's anonymous memory (`anon_bytes`, its
/// RssAnon) and some seconds. Not built by default: on a production host
/// that much memory again is taken from the page cache and from the very
/// process studied.
pub fn not_asked(anon_bytes: u64) -> String {
    format!(
        "not asked; `--replay` builds it, which held Redis's median fork at 4.5 GiB where the model missed it (docs/PREDICT.md), at the cost of a copy of its anonymous memory ({} and {} of scratch, checked against MemAvailable) and some seconds",
        crate::units::fmt_size(anon_bytes),
        crate::units::fmt_size(bytes_needed(0)),
    )
}

/// Which figures are the prediction of the cold fork: the replay's, where
/// it was built (it forks the process's own layout: against Redis it held
/// the median at three sizes where the model, by the layout's shares,
/// missed by 14 to 31%, docs/PREDICT.md), the model's where it was not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PredictedBy {
    Replay,
    Model,
}

/// The prediction's source for `replayed`, and why not the replay when it
/// is the model (the replay's own reason: not asked, frames hidden,
/// memory short, the moves refused).
pub fn predicted_by(replayed: &Result<Replay, String>) -> (PredictedBy, Option<&str>) {
    match replayed {
        Ok(_) => (PredictedBy::Replay, None),
        Err(why) => (PredictedBy::Model, Some(why.as_str())),
    }
}

/// What [`run`] returns when a signal (Ctrl-C, SIGTERM, SIGHUP) came
/// while it ran: no prediction then.
pub const INTERRUPTED: &str = "interrupted";

/// How the heap is laid: per block of the process's frames (ascending),
/// the heap pages whose frames lie in it and each one's offset in it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// Heap pages: one per present page of the process.
    pub pages: usize,
    pub blocks: Vec<Vec<(usize, u16)>>,
    /// Pages whose frame another page before already has (a page mapped
    /// twice, the shared zero page): faulted in wherever the free lists
    /// put them.
    pub repeated: Vec<usize>,
}

/// The plan for `frames` (present frames, in fork's order; a 0 is
/// skipped): heap page `i` is the process's `i`th present page.
pub fn plan(frames: &[u64]) -> Plan {
    let mut order: Vec<(u64, usize)> = frames
        .iter()
        .copied()
        .filter(|&f| f != 0)
        .enumerate()
        .map(|(i, f)| (f, i))
        .collect();
    let pages = order.len();
    order.sort_unstable();
    let mut p = Plan {
        pages,
        ..Plan::default()
    };
    let mut last: Option<u64> = None;
    for (f, i) in order {
        if last == Some(f) {
            p.repeated.push(i);
            continue;
        }
        let block = f / BLOCK_FRAMES;
        if last.is_none_or(|l| l / BLOCK_FRAMES != block) {
            p.blocks.push(Vec::new());
        }
        let off = (f % BLOCK_FRAMES) as u16;
        p.blocks.last_mut().expect("pushed above").push((i, off));
        last = Some(f);
    }
    p
}

/// Bytes the replay holds at most: its heap and a batch of scratch huge
/// pages.
pub fn bytes_needed(pages: usize) -> u64 {
    (pages * sys::PAGE + sys::REPLAY_BATCH_BLOCKS * sys::HUGE_PAGE) as u64
}

/// Why the replay is not built, or None to build it: the frames hidden
/// (`frames` None or empty), or MemAvailable (`available`, bytes) short of
/// [`bytes_needed`] and [`MARGIN_BYTES`].
pub fn why_not(frames: Option<&[u64]>, available: Option<u64>) -> Option<String> {
    let pages = match frames {
        Some(f) if f.iter().any(|&x| x != 0) => f.iter().filter(|&&x| x != 0).count(),
        Some(_) | None => {
            return Some("its pages' physical frames are hidden from this user (no CAP_SYS_ADMIN) or none is present".into())
        }
    };
    let need = bytes_needed(pages) + MARGIN_BYTES;
    match available {
        None => Some(
            "MemAvailable could not be read (/proc/meminfo), so the room for it is unknown".into(),
        ),
        Some(a) if a < need => Some(format!(
            "it needs {} with a margin of {} and {} is available (MemAvailable)",
            crate::units::fmt_size(need),
            crate::units::fmt_size(MARGIN_BYTES),
            crate::units::fmt_size(a)
        )),
        Some(_) => None,
    }
}

/// A layout's shares, percent of its present pages: in runs of
/// [`procfs::RUN_MIN_PAGES`] or more frames in a row, near
/// ([`procfs::Adjacency::near_pct`]) and the rest, scattered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Shares {
    pub runs_pct: f64,
    pub near_pct: f64,
    pub scattered_pct: f64,
}

impl Shares {
    /// The shares of `frames`; None when no frame is seen.
    pub fn of(frames: &[u64]) -> Option<Shares> {
        let (runs, near) = procfs::frame_shares(frames);
        let (runs, near) = (runs?, near.unwrap_or(0.0));
        Some(Shares {
            runs_pct: runs,
            near_pct: near,
            scattered_pct: (100.0 - runs - near).max(0.0),
        })
    }
}

/// The replay's cold fork, and what it was timed on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Replay {
    /// The median cold fork and the 95% interval of that median across
    /// the rounds, ns.
    pub parent_return_ns: Range,
    /// A single cold fork: its 10th to 90th percentile, ns.
    pub single_fork_ns: Spread,
    /// Every fork timed, ns, round after round.
    pub forks_ns: Vec<f64>,
    pub rounds: usize,
    pub forks_per_round: usize,
    pub pause_ms: u64,
    /// The process's layout and the replay's as read back.
    pub process: Shares,
    pub replayed: Shares,
    pub pages: usize,
    pub blocks: usize,
    /// Blocks whose huge page of ours came whole (512 frames in a row).
    pub blocks_whole: usize,
    /// Pages faulted in where they fell: a frame repeated, a move's source
    /// gone.
    pub pages_not_placed: usize,
    /// Time to lay the heap, ms.
    pub build_ms: f64,
    /// The run-to-run noise its figures hold (standard deviations in
    /// logs): its own run's, from its rounds' spread as every series'
    /// (`stats::noise::one_run_tau`), and the process's fork as a run of
    /// its own, the model's cold τ at the process ([`Replay::held_for`]).
    #[serde(default)]
    pub run_noise: f64,
    #[serde(default)]
    pub process_run_noise: f64,
}

impl Replay {
    /// Its median's interval and one fork's spread widened by `tau` for the
    /// process's fork being a run of its own, as the model's cold figures
    /// are (`Spread::with_run_noise`).
    pub fn held_for(&mut self, tau: f64) {
        let (m, one) =
            Spread::with_run_noise((self.parent_return_ns, Some(self.single_fork_ns)), tau);
        self.parent_return_ns = m;
        self.single_fork_ns = one.unwrap_or(self.single_fork_ns);
        self.process_run_noise = tau;
    }
}

/// [`run`] in a process of its own (`tasklab __replay PID`, killed with
/// this one): a fresh address space, whatever predict's own run left in
/// this one, and a worker that holds only the heap when it forks.
pub fn in_worker(pid: u32) -> Result<Replay, String> {
    use std::os::unix::process::ExitStatusExt;
    let mut cmd =
        crate::measure::self_command().map_err(|e| format!("tasklab's own binary: {e}"))?;
    cmd.arg("__replay").arg(pid.to_string());
    cmd.stdin(std::process::Stdio::null());
    let out = sys::kill_with_parent(&mut cmd)
        .output()
        .map_err(|e| format!("its worker could not start ({e})"))?;
    let stop = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];
    if out.status.signal().is_some_and(|s| stop.contains(&s)) {
        return Err(INTERRUPTED.into());
    }
    match serde_json::from_slice::<Result<Replay, String>>(&out.stdout) {
        Ok(r) => r,
        Err(_) => Err(format!(
            "its worker ended without a result ({})",
            out.status
        )),
    }
}

/// `tasklab __replay PID`: [`run`], its result as JSON on stdout.
pub fn worker_main(pid: u32) -> std::process::ExitCode {
    let r = run(pid);
    match serde_json::to_string(&r) {
        Ok(text) if crate::error::out(&format!("{text}\n")).is_ok() => {
            std::process::ExitCode::SUCCESS
        }
        _ => std::process::ExitCode::FAILURE,
    }
}

/// The replay of process `pid`'s layout and its cold forks, or why there
/// is none (said, never an error: the model's figures stand then).
pub fn run(pid: u32) -> Result<Replay, String> {
    // A signal stops it between forks, the heap freed and every child
    // reaped on the way out.
    let stop = crate::run::stop_on_signals().map_err(|e| format!("{e:#}"))?;
    let stopped = move || stop.load(std::sync::atomic::Ordering::Relaxed) != 0;
    let frames = procfs::anon_frames(pid)
        .map_err(|e| format!("its pages' physical frames could not be read ({e})"))?;
    let available = crate::env::mem_available_bytes();
    if let Some(why) = why_not(Some(&frames), available) {
        return Err(why);
    }
    let process = Shares::of(&frames).ok_or("no frame of its pages could be read")?;
    let plan = plan(&frames);
    drop(frames);
    let t0 = sys::monotonic_ns();
    let heap = sys::Heap::untouched(plan.pages * sys::PAGE, sys::Thp::Off)
        .map_err(|e| format!("its heap could not be mapped ({e})"))?;
    let laid = heap.replay(&plan.blocks).map_err(|e| {
        format!("its pages could not be moved into place ({e}; userfaultfd's UFFDIO_MOVE needs Linux 6.8 and root or vm.unprivileged_userfaultfd=1)")
    })?;
    for &i in &plan.repeated {
        heap.write_page(i);
    }
    let build_ms = (sys::monotonic_ns() - t0) as f64 / 1e6;
    if stopped() {
        return Err(INTERRUPTED.into());
    }
    let replayed = heap
        .frames()
        .as_deref()
        .and_then(Shares::of)
        .ok_or("the replayed heap's frames could not be read back")?;
    // The worker holds only the heap when it forks: the plan's per-block
    // lists go before the first fork copies their page tables.
    let (pages, repeated) = (plan.pages, plan.repeated.len());
    drop(plan);
    let pause = Duration::from_millis(PAUSE_MS);
    let rounds = time_forks(ROUNDS, FORKS_PER_ROUND, pause, &stopped)
        .map_err(|e| format!("its fork could not be timed ({e})"))?
        .ok_or(INTERRUPTED)?;
    drop(heap);
    let (parent_return_ns, single_fork_ns, run_noise) =
        figures(&rounds).ok_or("too few forks were timed for a figure")?;
    Ok(Replay {
        parent_return_ns,
        single_fork_ns,
        run_noise,
        process_run_noise: 0.0,
        forks_ns: rounds.concat(),
        rounds: ROUNDS,
        forks_per_round: FORKS_PER_ROUND,
        pause_ms: PAUSE_MS,
        process,
        replayed,
        pages,
        blocks: laid.blocks,
        blocks_whole: laid.whole,
        pages_not_placed: repeated + laid.missing,
        build_ms,
    })
}

/// `forks` forks a round, each after `pause`, timed around `fork()` in
/// this process (the parent's return, as Redis's `latest_fork_usec`), the
/// child exiting at once and reaped before the next; None when `stopped`
/// says so after a pause.
fn time_forks(
    rounds: usize,
    forks: usize,
    pause: Duration,
    stopped: &dyn Fn() -> bool,
) -> std::io::Result<Option<Vec<Vec<f64>>>> {
    let mut all = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let mut round = Vec::with_capacity(forks);
        for _ in 0..forks {
            std::thread::sleep(pause);
            if stopped() {
                return Ok(None);
            }
            let t0 = sys::monotonic_ns();
            let child = sys::forkwork::fork_exit()?;
            let ns = (sys::monotonic_ns() - t0) as f64;
            child.wait()?;
            round.push(ns);
        }
        all.push(round);
    }
    Ok(Some(all))
}

/// The median fork with the 95% interval of that median across `rounds`
/// (the rounds resampled, as a series' summary, widened by its run's
/// run-to-run noise as every series of a run is), a single fork's spread
/// ([`spread_of`] over all of them), and that noise.
pub fn figures(rounds: &[Vec<f64>]) -> Option<(Range, Spread, f64)> {
    let mut s =
        crate::stats::rounds::summarize_runs(&[rounds], crate::stats::seed_for("predict.replay"))
            .ok()?;
    let tau = crate::stats::noise::one_run_tau(&s.round_medians);
    crate::stats::rounds::widen_by_run_noise(&mut s, tau);
    let (p10, p90) = spread_of(&rounds.concat())?;
    Some((
        Range {
            median: s.median,
            lo: s.ci95_lo,
            hi: s.ci95_hi,
        },
        Spread { p10, p90 },
        tau,
    ))
}

#[cfg(test)]
#[path = "replay_tests.rs"]
mod tests;
