//! switch.wakeup under `run --why`: where the sampled CPU time of each
//! variant with no spinner went, told as the parts of a wake-up's path
//! ([`crate::experiments::why_parts`]): the wake-up itself
//! (`try_to_wake_up`, the IPI or the remote enqueue it sends), the switch,
//! the interrupts taken, the futex's own functions, the timer's sleep, the
//! membarrier, and the other system-call work (the entry and exit, and
//! whatever a call does that no part above names).
//!
//! What it cannot see is most of a cross-CPU wake-up: the time until the
//! halted CPU leaves idle and the woken thread runs is halted time (on a VM
//! an exit to the host), which makes no cpu-clock sample, and so is a
//! timer's lateness on a halted CPU. The shares are of the CPU time the
//! two threads spent around the wake-ups, not of the wake-up's latency.

use super::wakeup_parts::Variant;
use crate::experiments::why_parts::{self, Part};
use crate::metric::key::VARIANT;
use crate::results::ExperimentResult;

/// Whether a variant's passes are sampled: not those with a spinner on
/// their CPUs (kept awake, or the IPI's running peer), whose spinning
/// would be most of the samples, nor the sweep (its series carry no
/// variant).
pub fn sampled(v: Variant) -> bool {
    matches!(
        v,
        Variant::CrossCpu
            | Variant::CrossCpuRemote
            | Variant::SameCpu
            | Variant::TimerIdle
            | Variant::IpiBlocked
    )
}

/// A wake-up's path, in the order a stack is tried against it.
pub const PARTS: &[Part] = &[
    Part {
        name: "the wake-up (try_to_wake_up and the IPI or remote enqueue it sends)",
        on_chain: &["try_to_wake_up", "ttwu_*", "wake_up_q", "wake_up_process"],
    },
    Part {
        name: "the switch",
        on_chain: &[
            "__schedule",
            "schedule_idle",
            "finish_task_switch",
            "__switch_to",
            "__switch_to_asm",
        ],
    },
    Part {
        name: "the interrupts taken",
        on_chain: &[
            "asm_sysvec_*",
            "sysvec_*",
            "__sysvec_*",
            "asm_common_interrupt",
        ],
    },
    Part {
        name: "the futex's own functions",
        on_chain: &["futex_*", "__futex_*", "do_futex"],
    },
    Part {
        name: "the timer's sleep",
        on_chain: &[
            "hrtimer_nanosleep",
            "do_nanosleep",
            "__x64_sys_clock_nanosleep",
        ],
    },
    Part {
        name: "the membarrier",
        on_chain: &[
            "__x64_sys_membarrier",
            "membarrier_*",
            "smp_call_function_many_cond",
        ],
    },
    Part {
        name: "other system-call work (the entry and exit, and calls no part above names)",
        on_chain: &["entry_SYSCALL*", "do_syscall_64", "syscall_exit*"],
    },
];

/// The words that say what the samples leave out, per variant.
fn unseen(variant: &str) -> &'static str {
    match variant {
        "same_cpu" => "on one CPU nothing idles: the hand-off's time is all CPU time, sampled",
        "idle" => "the timer's lateness is the halted CPU's, which no sample sees: these are the sleeper's few microseconds of CPU around each wake-up",
        "ipi_peer_blocked" => "the peer is asleep and its CPU idle: the samples are the caller's membarrier",
        _ => "the wait for the halted CPU to leave idle and run the woken thread is halted time, which no sample sees: these shares are of the CPU time around each wake-up, not of its latency",
    }
}

/// Each sampled variant's path, one note each.
pub fn paths(r: &ExperimentResult) -> Vec<String> {
    r.why
        .iter()
        .filter_map(|a| {
            let v = a.labels.get(VARIANT)?;
            Some(format!(
                "{v}, where its sampled CPU time went ({}): {}; {}",
                why_parts::resting_on(a),
                why_parts::words(a, PARTS)?,
                unseen(v)
            ))
        })
        .collect()
}

#[cfg(test)]
#[path = "wakeup_why_tests.rs"]
mod tests;
