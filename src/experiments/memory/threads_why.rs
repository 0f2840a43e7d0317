//! memory.threads under `run --why`: where creating the crowd of threads
//! and readying them (each touching its stack, then blocking at the gate)
//! spent its sampled CPU time, one window per round, told as the parts of
//! the path ([`crate::experiments::why_parts`]): each stack mapped (mmap,
//! and mprotect for its guard page), the page faults of the stacks
//! touched, the switches and wake-ups (a new thread's first run among
//! them), the rest of creating each thread (clone3), and the gate's
//! futexes.
//!
//! What sampling does not see: a thread asleep at the gate, the creating
//! thread waiting for the others, a CPU idle: the window's wall time
//! beyond its CPU time is no part here. The memory figures (the Summary's
//! quantities) are not times: no share is of them.

use crate::experiments::why_parts::{self, Part, FAULTS, FAULT_PART};
use crate::metric::key::{THREADS, VARIANT};
use crate::results::ExperimentResult;

pub const MAP: &str = "mapping each stack (mmap, mprotect)";
pub const CREATE: &str = "the rest of creating each thread";
pub const SWITCH: &str = "the switches and wake-ups";
pub const GATE: &str = "the gate's futexes";

/// A crowd's path, in the order a stack is tried against it.
pub const PARTS: &[Part] = &[
    Part {
        name: MAP,
        on_chain: &[
            "ksys_mmap_pgoff",
            "vm_mmap_pgoff",
            "do_mmap",
            "__x64_sys_mprotect",
            "do_mprotect_pkey",
            "mprotect_fixup",
        ],
    },
    FAULT_PART,
    Part {
        name: SWITCH,
        on_chain: &[
            "__schedule",
            "schedule_tail",
            "finish_task_switch",
            "__switch_to",
            "try_to_wake_up",
            "wake_up_new_task",
        ],
    },
    Part {
        name: CREATE,
        on_chain: &[
            "kernel_clone",
            "copy_process",
            "__do_sys_clone*",
            "__x64_sys_clone*",
            "ret_from_fork*",
        ],
    },
    Part {
        name: GATE,
        on_chain: &["futex_*", "__futex_*", "do_futex", "__x64_sys_futex"],
    },
];

/// Each attributed point's path, one note each, in the order of
/// `variants` (their names), then by threads.
pub fn paths(r: &ExperimentResult, variants: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for &v in variants {
        let mut of: Vec<_> = r
            .why
            .iter()
            .filter(|a| a.labels.get(VARIANT).map(String::as_str) == Some(v))
            .collect();
        of.sort_by_key(|a| {
            a.labels
                .get(THREADS)
                .and_then(|t| t.parse::<u64>().ok())
                .unwrap_or(0)
        });
        for a in of {
            let Some(w) = why_parts::words(a, PARTS) else {
                continue;
            };
            out.push(format!(
                "{}, {} threads: where creating and readying them spent its sampled CPU time ({}): {w}; a thread asleep at the gate makes no sample",
                v,
                a.labels.get(THREADS).map_or("?", String::as_str),
                why_parts::resting_on(a)
            ));
        }
    }
    out
}

/// The touched stacks' faults, measured: their share of creating and
/// readying `threads` threads of `variant`, with the top function's
/// interval. None without its attribution.
pub fn faults(r: &ExperimentResult, variant: &str, threads: &str) -> Option<String> {
    let is = |a: &&crate::results::why::Attribution, k: &str, v: &str| {
        a.labels.get(k).map(String::as_str) == Some(v)
    };
    let a = r
        .why
        .iter()
        .find(|a| is(a, VARIANT, variant) && is(a, THREADS, threads))?;
    let s = why_parts::split(a, PARTS)?;
    let named = why_parts::functions_in(a, FAULTS, PARTS, 1);
    Some(format!(
        "measured: {} of the sampled CPU time of creating and readying them in page faults{} (--why: {} samples in {} rounds)",
        crate::units::fmt_share(s.share(FAULTS)),
        if named.is_empty() {
            String::new()
        } else {
            format!(", {named}")
        },
        a.samples,
        a.rounds
    ))
}

#[cfg(test)]
#[path = "threads_why_tests.rs"]
mod tests;
