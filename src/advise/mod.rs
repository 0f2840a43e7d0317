//! `tasklab advise`: a workload described on the command line, plus the costs
//! measured in a results file (or in a fresh quick run), give per concurrency
//! model the share of one CPU spent on overhead and the memory, each estimate
//! naming the measured figure it came from.
//!
//! Two halves, so the arithmetic is testable without measuring:
//! [`costs_from`] picks the figures out of a [`RunResults`]; [`advise`] is a
//! pure function of a [`Workload`] and those [`Costs`]. The floors, bottom
//! up: [`workload`], [`figure`], [`costs`], [`models`], [`recommend`],
//! [`render`]; this file runs the command and, without `--results`, the
//! fresh run.

pub mod costs;
pub mod figure;
pub mod models;
pub mod recommend;
pub mod render;
pub mod workload;

pub use costs::costs_from;
pub use recommend::advise;
pub use render::{header, render};
pub use workload::Workload;

use crate::cli::AdviseArgs;
use crate::env::{Env, Limits};
use crate::error::UsageError;
use crate::experiments::memory::threads;
use crate::experiments::spawn::heap;
use crate::experiments::switch::{pingpong, userspace};
use crate::results::{RunResults, RunStatus};
use crate::run::plan::{Preset, Request};
use crate::units::fmt_size;
use std::process::ExitCode;
use std::time::Instant;

/// The experiments advise reads, for messages and the fresh run.
pub const NEEDED: &[&str] = &[
    heap::EXPERIMENT.name,
    pingpong::EXPERIMENT.name,
    userspace::EXPERIMENT.name,
    threads::EXPERIMENT.name,
];

pub fn run(args: &AdviseArgs) -> anyhow::Result<ExitCode> {
    let w = Workload::from_args(args).map_err(UsageError)?;
    let (results, source) = match &args.results {
        Some(p) => (
            RunResults::read(p).map_err(|e| UsageError(format!("{e:#}")))?,
            p.display().to_string(),
        ),
        None => {
            let r = fresh_run(&w)?;
            // A signal during its own run: no advice from part of it.
            if r.status == RunStatus::Partial {
                eprintln!("interrupted: no advice");
                return Ok(ExitCode::from(130));
            }
            // The run's busy machine, as `tasklab run` says it.
            for w in &r.warnings {
                eprintln!("warning: {w}");
            }
            (r, "a fresh quick run".to_string())
        }
    };
    let costs = costs_from(&results, &source);
    if costs.is_empty() && args.results.is_none() {
        // Not the user's doing: the run did not get the figures.
        anyhow::bail!(
            "the fresh run measured none of the figures advise needs (from {}); no advice (try again, on a quieter machine)",
            NEEDED.join(", ")
        );
    }
    if costs.is_empty() {
        return Err(UsageError(format!(
            "{source} has none of the figures advise needs (from {}); run `tasklab run {}` and pass its results.json with --results",
            NEEDED.join(", "),
            NEEDED.join(" ")
        ))
        .into());
    }
    let advice = advise(&w, &costs);
    if args.json {
        crate::error::out(&format!("{}\n", serde_json::to_string_pretty(&advice)?))?;
    } else {
        crate::error::out(&render(&advice, &header(&results, &source)))?;
    }
    Ok(ExitCode::SUCCESS)
}

// ------------------------------------------------------------ fresh run

/// The parent heaps spawn.heap is measured at, besides the workload's own.
const FRESH_HEAPS: [u64; 4] = [0, 2 << 20, 64 << 20, 512 << 20];
/// The workload's heap is measured too up to this size; past it the curve
/// is extrapolated (and says so), since a larger heap takes long to fill.
const FRESH_HEAP_MAX: u64 = 4 << 30;
/// Threads memory.threads starts, where the machine has room for them: its
/// per-thread figures are steadiest from a crowd.
const FRESH_THREADS: u64 = 1000;
/// Memory one blocked thread needs at the least (kernel stack, a few
/// resident stack pages, page tables): memory.threads' own estimate.
const THREAD_BYTES: u64 = 32 << 10;
/// Tasks always left to the rest of the system, besides a tenth of the room.
const TASKS_KEPT: u64 = 100;

/// What this machine leaves a run now: room for new tasks and for heaps.
#[derive(Clone, Debug, PartialEq)]
pub struct Room {
    /// threads-max, pid_max, RLIMIT_NPROC, cgroup pids.max and memory.max,
    /// as [`crate::env::probe`] reads them.
    pub limits: Limits,
    /// RLIMIT_NPROC does not bind root.
    pub root: bool,
    /// Tasks on the whole system now. Counted against every task limit: it
    /// is at least what counts against each (the user's, the cgroup's).
    pub tasks_now: u64,
    /// MemAvailable now, bytes.
    pub mem_available_bytes: u64,
    /// What spawn.heap keeps free beyond a heap.
    pub heap_margin_bytes: u64,
}

impl Room {
    pub fn now(env: &Env) -> Room {
        Room {
            limits: env.limits.clone(),
            root: crate::sys::is_root(),
            tasks_now: crate::sys::procfs::system_tasks().unwrap_or(0),
            mem_available_bytes: crate::env::mem_available_bytes()
                .unwrap_or(env.mem_available_bytes),
            heap_margin_bytes: crate::experiments::spawn::heap_margin(env),
        }
    }

    /// New tasks (threads) the machine's limits allow now: the tightest of
    /// the task limits less the tasks running, and of the memory (half of
    /// it kept free) for a blocked thread each.
    pub fn tasks(&self) -> u64 {
        let l = &self.limits;
        let nproc = l.rlimit_nproc.filter(|_| !self.root);
        let by_count = [l.threads_max, l.pid_max, nproc, l.cgroup_pids_max]
            .into_iter()
            .flatten()
            .map(|limit| limit.saturating_sub(self.tasks_now));
        let memory = l.cgroup_memory_max.map_or(self.mem_available_bytes, |c| {
            c.min(self.mem_available_bytes)
        });
        by_count
            .chain([memory / 2 / THREAD_BYTES])
            .min()
            .expect("the memory bound is always there")
    }

    /// The largest heap that leaves spawn.heap's margin free.
    pub fn heap_bytes(&self) -> u64 {
        self.mem_available_bytes
            .saturating_sub(self.heap_margin_bytes)
    }
}

/// What the fresh run measures, fitted to the machine: advise's own choices
/// are never refused as if the user had asked for more than there is.
#[derive(Clone, Debug, PartialEq)]
pub struct FreshPlan {
    /// spawn.heap's parent heaps, ascending, each within [`Room::heap_bytes`].
    pub heaps_bytes: Vec<u64>,
    /// memory.threads' thread count, within [`Room::tasks`] less a margin.
    pub threads: u64,
}

impl FreshPlan {
    pub fn new(w: &Workload, room: &Room) -> FreshPlan {
        let mut heaps_bytes = FRESH_HEAPS.to_vec();
        if w.heap_bytes <= FRESH_HEAP_MAX {
            heaps_bytes.push(w.heap_bytes);
        }
        heaps_bytes.retain(|&h| h <= room.heap_bytes());
        heaps_bytes.sort_unstable();
        heaps_bytes.dedup();
        // A tenth of the room and a hundred tasks stay for the rest of the
        // system; at least one thread, so memory.threads still runs.
        let tasks = room.tasks();
        let spare = (tasks - tasks / 10).saturating_sub(TASKS_KEPT);
        FreshPlan {
            heaps_bytes,
            threads: FRESH_THREADS.min(spare).max(1),
        }
    }

    /// The parameter values of the run, typed.
    pub fn presets(&self) -> Vec<Preset> {
        use costs::*;
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        vec![
            Preset::of(
                &heap::EXPERIMENT,
                &heap::HEAP_SIZES_PARAM,
                self.heaps_bytes.clone(),
            ),
            Preset::of(
                &heap::EXPERIMENT,
                &heap::METHODS_PARAM,
                names(&[FORK, POSIX_SPAWN, PTHREAD_CREATE, FORK_EXEC_STATIC, VFORK]),
            ),
            Preset::of(&heap::EXPERIMENT, &heap::THP_PARAM, false),
            Preset::of(
                &pingpong::EXPERIMENT,
                &pingpong::METHODS_PARAM,
                names(&[THREAD_SWITCHES[0], PROCESS_SWITCHES[0]]),
            ),
            Preset::of(
                &pingpong::EXPERIMENT,
                &pingpong::PLACEMENTS_PARAM,
                names(&[SAME_CPU, CROSS_CPU[0]]),
            ),
            Preset::of(
                &userspace::EXPERIMENT,
                &userspace::VARIANTS_PARAM,
                names(&USER_SWITCHES),
            ),
            Preset::of(
                &threads::EXPERIMENT,
                &threads::VARIANTS_PARAM,
                names(&THREAD_VARIANTS[..1]),
            ),
            Preset::of(
                &threads::EXPERIMENT,
                &threads::THREADS_PARAM,
                vec![self.threads],
            ),
        ]
    }
}

/// Measures only what advise needs, quietly, into a temporary folder.
fn fresh_run(w: &Workload) -> anyhow::Result<RunResults> {
    // Private, in the checked TMPDIR (a bad one is exit 2, naming it), and
    // named with its owner: a run killed here leaves a folder the next start
    // removes.
    let dir = crate::measure::scratch::Scratch::temporary()?;
    let plan = FreshPlan::new(w, &Room::now(&crate::env::probe()));
    eprintln!(
        "advise: measuring what it needs here ({}; the quick profile's rounds within its budget, as `tasklab run`; heaps {}): this takes 10 to 60 seconds",
        NEEDED.join(", "),
        plan.heaps_bytes
            .iter()
            .map(|&h| fmt_size(h))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let started = Instant::now();
    let names: Vec<String> = NEEDED.iter().map(|s| s.to_string()).collect();
    let presets = plan.presets();
    // A failed experiment still writes what it measured; advise then says
    // which figures are missing.
    let results = crate::run::run_request(
        &Request::quick(&names, &presets),
        &dir.path().join("results"),
    )?;
    eprintln!(
        "advise: measured in {:.0} s (tasklab run {} keeps a full report)",
        started.elapsed().as_secs_f64(),
        NEEDED.join(" ")
    );
    Ok(results)
}

#[cfg(test)]
mod tests;
