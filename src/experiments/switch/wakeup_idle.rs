//! switch.wakeup's idle path: how a variant's CPUs idled, from the
//! cpuidle states they entered per operation, and the path a figure took
//! (idle states, RES and CAL). With no cpuidle driver there are no
//! idle-state counters: that is unknown, said as such, never a zero.

use super::wakeup_parts::*;
use crate::experiments::prelude::*;
use crate::measure::explain::per_op_phrase;
use crate::metric::key::VARIANT;

/// Whether any idle-state counter was read for variant `v` (none: no
/// cpuidle driver, or no `cpuN/cpuidle` folders).
fn counted(r: &ExperimentResult, v: Variant) -> bool {
    r.metrics_named(&IDLE_ENTRIES_PER_OP)
        .any(|m| m.label(VARIANT) == Some(v.name()))
}

/// How a variant's CPUs idled, from the idle states entered per operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Idled {
    /// A state other than POLL, at least every other operation.
    Halting,
    /// Only POLL, at least every other operation.
    Polling,
    /// No idle-state counters (no cpuidle driver: idle is HLT, which the
    /// kernel does not count): unknown, never "no idle state entered".
    Uncounted,
}

impl Idled {
    pub(super) fn word(self) -> &'static str {
        match self {
            Idled::Halting => "halting",
            Idled::Polling => "polling",
            Idled::Uncounted => "no cpuidle driver: HLT, not counted",
        }
    }
}

/// How the CPUs of variant `v` idled; None when they entered no idle
/// state in most operations, `Uncounted` when nothing counted them.
pub(super) fn idled(r: &ExperimentResult, v: Variant) -> Option<Idled> {
    if !counted(r, v) {
        return Some(Idled::Uncounted);
    }
    let (mut halts, mut polls) = (0.0, 0.0);
    for m in r
        .metrics_named(&IDLE_ENTRIES_PER_OP)
        .filter(|m| m.label(VARIANT) == Some(v.name()))
    {
        // the kernel's name of the polling idle state (cpuidle's state0)
        if m.label(STATE) == Some("POLL") {
            polls += m.summary.median;
        } else {
            halts += m.summary.median;
        }
    }
    if halts >= 0.5 {
        Some(Idled::Halting)
    } else if polls >= 0.5 {
        Some(Idled::Polling)
    } else {
        None
    }
}

/// "; idle states entered per hand-off: haltpoll idle 1.0, POLL 0.00; 1.0
/// RES and 0.00 CAL" for variant `v`.
pub(super) fn path_of(r: &ExperimentResult, v: Variant, per: &str) -> Option<String> {
    let states: Vec<String> = r
        .metrics_named(&IDLE_ENTRIES_PER_OP)
        .filter(|m| m.label(VARIANT) == Some(v.name()) && m.summary.median >= 0.01)
        .map(|m| {
            format!(
                "{} {}",
                m.label(STATE).unwrap_or("?"),
                per_op_phrase(m.summary.median, "entry", "entries", per)
            )
        })
        .collect();
    let med = |spec: &MetricSpec| r.median(spec, &[(VARIANT, v.name())]);
    let (res, cal) = (med(&RES_PER_OP)?, med(&CAL_PER_OP)?);
    let mut s = format!(
        "{} and {}",
        per_op_phrase(res, "RES", "RES", per),
        per_op_phrase(cal, "CAL", "CAL", per)
    );
    if !counted(r, v) {
        s.push_str(", no cpuidle driver: HLT, not counted");
    } else if states.is_empty() {
        s.push_str(", no idle state entered");
    } else {
        s.push_str(&format!(", idle states entered: {}", states.join(", ")));
    }
    Some(s)
}
