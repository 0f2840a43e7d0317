//! switch.wakeup's kernel paths: which path each hand-off took (from its
//! RES and CAL per hand-off), the like-for-like control the TTWU_QUEUE
//! scheduler feature gives, and each direction of the one-way wake-up apart.
//!
//! A wake to a CPU that runs nothing (within one last-level cache) is
//! queued on that CPU's wake list and announced by a function-call IPI
//! (CAL): `ttwu_queue_cond` in kernel/sched/core.c. A wake to a CPU that
//! runs a task, as the kept-awake control's does (its SCHED_IDLE spinner),
//! never goes through the wake list: the waker queues the task on that
//! CPU's run queue itself and sends a reschedule IPI (RES). The halted wake
//! and the control therefore take two paths, and their difference bounds
//! nothing about leaving idle. No feature sends the control through the
//! wake list; with TTWU_QUEUE off, the halted wake takes the control's path
//! (a remote enqueue, and RES to a CPU that does not poll): the
//! `cross_cpu_remote` variant, measured as root where debugfs's
//! sched/features can be read and written, the feature off for its passes
//! only and restored after each (`sysfs_knob`'s guard; when the worker is
//! killed on Ctrl-C or a time-out, its record, which the run applies after
//! every job).

use super::wakeup_parts::*;
use crate::experiments::prelude::*;
use crate::metric::key::VARIANT;
use crate::sys::sysfs_knob::{self, flag_state, Held, Knob, SCHED_FEATURES, WORKER_RECORD_FILE};
use std::path::Path;

/// The scheduler feature the like-for-like pass turns off.
pub const FEATURE: &str = "TTWU_QUEUE";
/// What is written to turn it off.
pub const FEATURE_OFF: &str = "NO_TTWU_QUEUE";

/// The worker's note when the feature was switched.
pub const SWITCHED_NOTE: &str = "TTWU_QUEUE was off (/sys/kernel/debug/sched/features) during cross_cpu_remote's passes only and restored after each: a system-wide scheduler setting, for those seconds";
/// The head of the worker's note when it was not.
pub const NOT_SWITCHED_NOTE: &str = "the halted wake-up on the kept-awake control's kernel path (cross_cpu_remote, TTWU_QUEUE off) is not measured:";

/// Whether the feature can be turned off here for a pass: Ok, or why not.
pub fn same_path_plan(root: &Path) -> Result<(), String> {
    if !crate::sys::is_root() {
        return Err("switching a scheduler feature needs root".into());
    }
    let file = root.join(SCHED_FEATURES.trim_start_matches('/'));
    let text = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!(
                "{SCHED_FEATURES} is absent (debugfs not mounted, or a kernel without CONFIG_SCHED_DEBUG)"
            ))
        }
        Err(e) => return Err(format!("{SCHED_FEATURES} cannot be read: {e}")),
    };
    match flag_state(&text, FEATURE) {
        None => Err(format!("this kernel's scheduler has no {FEATURE} feature")),
        Some(s) if s == FEATURE_OFF => Err(format!(
            "{FEATURE} is off already, so cross_cpu itself takes that path"
        )),
        Some(_) if !crate::sys::proc::may_write(&file) => {
            Err(format!("{SCHED_FEATURES} is not writable here"))
        }
        Some(_) => Ok(()),
    }
}

/// Turns the feature off until the guard drops (or is restored), under the
/// worker's restore record.
pub fn hold_same_path(root: &Path) -> std::io::Result<Held> {
    sysfs_knob::hold_in(
        root,
        WORKER_RECORD_FILE,
        &[Knob {
            path: SCHED_FEATURES.into(),
            value: FEATURE_OFF.into(),
        }],
    )
}

/// The kernel path a hand-off variant took, by its IPIs per hand-off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum KernelPath {
    /// Mostly CAL: the wakee queued on its CPU's wake list.
    WakeList,
    /// Mostly RES: the wakee queued remotely, its CPU told to reschedule.
    Remote,
    /// Neither in most hand-offs (a polling CPU, or a wakee still running).
    NoIpi,
}

impl KernelPath {
    pub(super) fn words(self) -> &'static str {
        match self {
            KernelPath::WakeList => "the wake list and a function-call IPI (CAL)",
            KernelPath::Remote => "a remote enqueue and a reschedule IPI (RES)",
            KernelPath::NoIpi => "no IPI in most hand-offs",
        }
    }
}

/// The path variant `v` took; None when its IPIs were not counted.
pub(super) fn taken(r: &ExperimentResult, v: Variant) -> Option<KernelPath> {
    let per = |spec: &MetricSpec| r.median(spec, &[(VARIANT, v.name())]);
    let (res, cal) = (per(&RES_PER_OP)?, per(&CAL_PER_OP)?);
    Some(if cal >= 0.5 && cal >= res {
        KernelPath::WakeList
    } else if res >= 0.5 {
        KernelPath::Remote
    } else {
        KernelPath::NoIpi
    })
}

/// What the kept-awake figure says beside the halted one: compared only
/// when both took one kernel path; otherwise, plainly, that it is another
/// path and the difference bounds nothing about leaving idle.
pub(super) fn kept_awake_words(r: &ExperimentResult, cross: &Summary, awake: &Summary) -> String {
    match (taken(r, Variant::CrossCpu), taken(r, Variant::CrossCpuAwake)) {
        (Some(a), Some(b)) if a == b => {
            // One path: the peer's CPU was not halted either (a busy
            // machine), so the words name the spinners, not a halt.
            let words = (
                "without the spinners it takes longer, by",
                "without the spinners it is quicker, by",
            );
            format!(
                ", both by {}{}",
                a.words(),
                against(cross, awake, words, Wrap::PerHandoff, true)
            )
        }
        (Some(a), Some(b)) => format!(
            " (another kernel path: the halted peer is woken through {}, the running one through {}; the difference between the two bounds nothing about leaving idle)",
            a.words(),
            b.words()
        ),
        _ => " (another kernel path: a CPU that runs a task is woken by a remote enqueue and a reschedule IPI, never through the wake list a halted one is woken through; the difference between the two bounds nothing about leaving idle)".into(),
    }
}

/// The halted wake-up with TTWU_QUEUE off against the kept-awake control:
/// like for like when their counts show one path.
pub(super) fn same_path_finding(r: &ExperimentResult) -> Option<String> {
    let remote = get(r, &WAKE_NS, Variant::CrossCpuRemote)?;
    let mut s = format!(
        "with TTWU_QUEUE off for its passes (restored after each), a one-way wake-up to the halted peer takes {}",
        fig(remote)
    );
    let awake = get(r, &WAKE_NS, Variant::CrossCpuAwake);
    match (
        taken(r, Variant::CrossCpuRemote),
        taken(r, Variant::CrossCpuAwake),
        awake,
    ) {
        (Some(a), Some(b), Some(awake)) if a == b => {
            let words = (
                "on one path, waking the halted peer costs more, by",
                "on one path, waking the halted peer costs less, by",
            );
            s.push_str(&format!(
                ", by {} as the kept-awake control, which takes {}{}",
                a.words(),
                fig(awake),
                against(remote, awake, words, Wrap::Colon, true)
            ));
        }
        (Some(a), Some(b), Some(_)) => s.push_str(&format!(
            ", but its counts show {} where the kept-awake control's show {}: not compared",
            a.words(),
            b.words()
        )),
        _ => s.push_str("; its path or the kept-awake control's was not counted: not compared"),
    }
    Some(s)
}

/// Each direction of the one-way wake-up apart, for every cross-CPU
/// variant that has both: a TSC offset between the two CPUs adds to one
/// direction what it takes from the other, so half their difference bounds
/// it (were the two directions to cost the same).
pub(super) fn direction_findings(r: &ExperimentResult) -> Option<String> {
    let parts: Vec<String> = [
        Variant::CrossCpu,
        Variant::CrossCpuAwake,
        Variant::CrossCpuRemote,
    ]
    .into_iter()
    .filter_map(|v| {
        let dir = |d: &str| {
            r.find(&WAKE_DIR_NS, &[(VARIANT, v.name()), (DIRECTION, d)])
                .map(|m| &m.summary)
        };
        let (ab, ba) = (dir(A_TO_B)?, dir(B_TO_A)?);
        let mut s = format!("{} A→B {}, B→A {}", v.name(), fig(ab), fig(ba));
        if let Some(d) = diff(ab, ba, Unit::Ns) {
            let skew = format!(
                "were the two directions to cost the same, B's TSC would be ahead of A's by {} to {}",
                fmt_delta(d.lo / 2.0, Unit::Ns),
                fmt_delta(d.hi / 2.0, Unit::Ns)
            );
            match bound(&d, "A→B takes longer, by", "A→B is quicker, by") {
                Some(b) => s.push_str(&format!(" ({b}; {skew})")),
                None => s.push_str(&format!(
                    " (not told apart, A→B − B→A {}; {skew})",
                    d.text()
                )),
            }
        }
        Some(s)
    })
    .collect();
    (!parts.is_empty()).then(|| {
        format!(
            "each direction of the one-way wake-up apart (A the pair's first CPU, B its second): {}",
            parts.join("; ")
        )
    })
}
