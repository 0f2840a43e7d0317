//! Context switching: what it costs to hand the CPU from one task to another.
//!
//! Reproduces Bendersky's "How expensive are context switches?" (seed 002):
//! two tasks ping-pong a 4-byte message through a pipe or a condition variable,
//! pinned to one core (1.2–1.5 µs per switch) and unpinned (~2.2 µs); a pipe
//! echo (~400,000 iterations/s pinned, about half unpinned); goroutines over a
//! channel (~2.8 M iterations/s, ~170 ns per switch). Every figure here is
//! **per switch = round trip / 2**; `round_trip_ns` is what `perf bench sched
//! pipe` reports per op. Beyond the seed: futexes and `sched_yield`, processes
//! as well as threads, cross-CPU placements (a wake-up latency, not a switch
//! path), CPUs kept awake by `SCHED_IDLE` spinners, the IPC's own cost without
//! a switch, the indirect (cache) cost, and user-space switches.
//!
//! One file per experiment ([`pingpong`], [`echo`], [`indirect`],
//! [`userspace`], [`wakeup`], whose arithmetic is in `wakeup_parts`); the
//! ping-pong [`engine`], its mechanisms (one file each in [`handoff`]), the
//! [`methods`] tables and the [`series`] several experiments report are
//! shared; [`go`] builds and runs the Go helper. This file holds what the
//! group's experiments plan with: the `cpus` parameter and its checks.

pub mod echo;
pub mod engine;
mod go;
pub mod handoff;
pub mod indirect;
pub mod methods;
pub mod pingpong;
mod pingpong_why;
pub mod series;
pub mod userspace;
pub mod wakeup;
mod wakeup_findings;
mod wakeup_idle;
mod wakeup_parts;
mod wakeup_path;
mod wakeup_sweep;
mod wakeup_why;
pub mod working_set;

use crate::experiments::prelude::*;
use crate::sys;
use serde::{Deserialize, Serialize};
use std::io;

/// Which CPUs the two tasks use: the first for same-CPU runs, the second
/// for two-CPU runs.
pub const CPUS_PARAM: Param<Vec<u64>> = Param::numbers(ParamSpec {
    name: "cpus",
    help: "the CPU for same-CPU runs, then the second CPU for two-CPU runs",
    kind: ParamKind::CountList { min: 0, max: 4095 },
    quick: "0,1",
    thorough: "0,1",
});

/// Said once per run of an experiment that reports `switch_ns`, so no reader
/// takes a round trip for a switch.
pub const PER_SWITCH_NOTE: &str =
    "switch_ns is per switch = round trip / 2 (a round trip is two switches); round_trip_ns is what `perf bench sched pipe` reports per op";

/// Checks the `cpus` parameter against the affinity mask: a CPU the user
/// named that cannot be used is an error; a default that does not fit is
/// replaced by allowed CPUs with a note.
pub fn plan_cpus(ctx: &PlanCtx, notes: &mut Vec<String>) -> Result<Vec<usize>, String> {
    let allowed = &ctx.env.cpus_allowed;
    let asked: Vec<usize> = ctx
        .params
        .get(&CPUS_PARAM)
        .iter()
        .map(|&c| c as usize)
        .collect();
    let user_set = ctx.set_by_user(&CPUS_PARAM);
    if let Some(bad) = asked.iter().find(|c| !allowed.contains(c)) {
        let msg = format!(
            "CPU {bad} does not exist or is not in this process's affinity mask (allowed: {})",
            crate::env::cpu_list(allowed)
        );
        if user_set {
            return Err(msg);
        }
        let mut v: Vec<usize> = allowed.iter().copied().take(2).collect();
        if v.is_empty() {
            v.push(0);
        }
        notes.push(format!(
            "{msg}; using CPU {} instead",
            crate::env::cpu_list(&v)
        ));
        return Ok(v);
    }
    if user_set && asked.len() >= 2 && asked[0] == asked[1] {
        return Err(format!(
            "cpus: the two CPUs must differ (got {},{}); give one CPU to skip the two-CPU placements",
            asked[0], asked[1]
        ));
    }
    Ok(asked)
}

/// The point of a job that needs only the CPUs [`plan_cpus`] chose
/// (switch.echo, switch.userspace).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CpusPoint {
    pub cpus: Vec<usize>,
}

/// The CPUs this worker may use, and those of the planned CPUs `want` that
/// are among them (a `--pin` can narrow the mask).
pub fn worker_cpus(
    want: &[usize],
    notes: &mut Vec<String>,
) -> io::Result<(Vec<usize>, Vec<usize>)> {
    let all = sys::allowed_cpus()?;
    let mut use_: Vec<usize> = want.iter().copied().filter(|c| all.contains(c)).collect();
    if use_.len() < want.len() {
        notes.push(format!(
            "CPUs {} are not all in this worker's affinity mask {} (--pin?); using {}",
            crate::env::cpu_list(want),
            crate::env::cpu_list(&all),
            crate::env::cpu_list(&all[..all.len().min(2)])
        ));
        use_ = all.iter().copied().take(want.len().max(1)).collect();
    }
    Ok((all, use_))
}
