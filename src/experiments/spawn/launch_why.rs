//! spawn.methods and spawn.launch under `run --why`: where a launch's
//! sampled CPU time went, told as the parts of its path
//! ([`crate::experiments::why_parts`]): fork's copy of the address space,
//! exec's load of the new program, the address space torn down again (exec
//! dropping the copy fork made), the page faults, the switches between
//! parent and child, the rest of creating the task, and its exit and reap.
//!
//! What sampling does not see here: any time a task is asleep (the
//! launch's pause in spawn.launch, a parent waiting for its child on
//! another CPU), and, sampled per task (where CPU-wide sampling is
//! refused), the child's own teardown at exit (its inherited events are
//! removed before its memory is unmapped, docs/WHY.md).

use super::table;
use crate::experiments::why_parts::{self, Part, Split, FAULT_PART};
use crate::metric::key::METHOD;
use crate::results::why::Attribution;
use crate::results::ExperimentResult;
use crate::units::fmt_share;

/// The address space torn down: first, so the unmapping exec does of the
/// copy fork made (exec_mmap's mmput) is told as such.
pub const TEARDOWN: &str = "tearing an address space down";
/// fork's copy of the parent's mappings and page tables.
pub const COPY: &str = "fork's copy of the address space";
/// exec's work: the program opened, its address space built, its ELF loaded.
pub const LOAD: &str = "exec's load of the new program";
pub const SWITCH: &str = "the switches between parent and child";
pub const CREATE: &str = "the rest of creating the task";
pub const EXIT: &str = "the child's exit and its reap";

/// A launch's path, in the order a stack is tried against it.
pub const PARTS: &[Part] = &[
    Part {
        name: TEARDOWN,
        on_chain: &[
            "exit_mmap",
            "mmput",
            "unmap_vmas",
            "unmap_page_range",
            "free_pgtables",
        ],
    },
    Part {
        name: COPY,
        on_chain: &["dup_mmap", "dup_mm", "copy_page_range"],
    },
    Part {
        name: LOAD,
        on_chain: &[
            "do_execveat_common",
            "bprm_execve",
            "load_elf_binary",
            "begin_new_exec",
            "__x64_sys_execve*",
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
            "__switch_to_asm",
        ],
    },
    Part {
        name: CREATE,
        on_chain: &[
            "kernel_clone",
            "copy_process",
            "__do_sys_clone*",
            "__x64_sys_clone*",
            "__x64_sys_vfork",
            "__x64_sys_fork",
            "ret_from_fork*",
        ],
    },
    Part {
        name: EXIT,
        on_chain: &[
            "do_exit",
            "do_group_exit",
            "release_task",
            "do_wait",
            "kernel_wait4",
            "kernel_waitid",
            "wait_task_zombie",
        ],
    },
];

/// The attribution of `method`'s launches (at `placement`, when the
/// experiment files them by one).
fn of<'a>(
    r: &'a ExperimentResult,
    method: &str,
    placement: Option<&str>,
) -> Option<&'a Attribution> {
    let mut l = vec![(METHOD, method)];
    if let Some(p) = placement {
        l.push((crate::metric::key::PLACEMENT, p));
    }
    let l = crate::measure::protocol::labels(&l);
    r.why.iter().find(|a| a.covers(&l))
}

/// Every attributed launch's path, one note each, in the table's order:
/// "fork, where its sampled CPU time went (--why: ...): fork's copy of
/// the address space 41.0% (copy_page_range ...), ...".
pub fn paths(r: &ExperimentResult, placement: Option<&str>) -> Vec<String> {
    table::METHODS
        .iter()
        .filter_map(|m| {
            let a = of(r, m.name(), placement)?;
            Some(format!(
                "{}, where its sampled CPU time went ({}): {}",
                m.name(),
                why_parts::resting_on(a),
                why_parts::words(a, PARTS)?
            ))
        })
        .collect()
}

/// Starting a program three ways, from what was measured: of each
/// method's sampled CPU time, the share fork's copy of the address space
/// and its teardown took, and exec's load. None unless fork+exec and one
/// of the others were attributed.
pub fn program_start(r: &ExperimentResult, placement: Option<&str>) -> Option<String> {
    let split = |m: &table::Method| {
        let a = of(r, m.name(), placement)?;
        Some((a, why_parts::split(a, PARTS)?))
    };
    let (fa, fork) = split(&table::FORK_EXEC_STATIC)?;
    let others: Vec<(&str, &Attribution, Split)> = [&table::VFORK_EXEC_STATIC, &table::POSIX_SPAWN]
        .into_iter()
        .filter_map(|m| split(m).map(|(a, s)| (m.name(), a, s)))
        .collect();
    if others.is_empty() {
        return None;
    }
    let copy_and_back = |s: &Split| s.share(COPY) + s.share(TEARDOWN);
    let told = |name: &str, a: &Attribution, s: &Split| {
        format!(
            "{name} {} copying the address space and tearing it down, {} in exec's load ({} samples in {} rounds)",
            fmt_share(copy_and_back(s)),
            fmt_share(s.share(LOAD)),
            a.samples,
            a.rounds
        )
    };
    let mut parts = vec![told(table::FORK_EXEC_STATIC.name(), fa, &fork)];
    parts.extend(others.iter().map(|(n, a, s)| told(n, a, s)));
    let mut text = format!(
        "starting a program, where each launch's sampled CPU time went (--why, pooled over the rounds): {}",
        parts.join("; ")
    );
    // The functions that carry fork+exec's extra work, with their
    // intervals across rounds.
    let named: Vec<String> = [COPY, TEARDOWN]
        .into_iter()
        .map(|p| why_parts::functions_in(fa, p, PARTS, 1))
        .filter(|s| !s.is_empty())
        .collect();
    if !named.is_empty() {
        text.push_str(&format!(
            " (fork+exec: {} of its sampled CPU time)",
            named.join(", ")
        ));
    }
    // The kernel's reason is said only where the samples show it: no
    // sample of the others in either part.
    let none = others.iter().all(|(_, _, s)| copy_and_back(s) == 0.0);
    if none && copy_and_back(&fork) > 0.0 {
        text.push_str(": none of the others' samples copy or tear down an address space, as they share the parent's until the exec; that work is fork+exec's own");
    }
    Some(text)
}

/// fork's copy of the worker, measured: its share of fork+reap's sampled
/// CPU time, with the top function's interval. None without fork's
/// attribution.
pub fn fork_copy(r: &ExperimentResult, placement: Option<&str>) -> Option<String> {
    let a = of(r, table::FORK.name(), placement)?;
    let s = why_parts::split(a, PARTS)?;
    let named = why_parts::functions_in(a, COPY, PARTS, 1);
    Some(format!(
        "measured (--why: {} samples in {} rounds): {} of fork+reap's sampled CPU time is fork's copy of the address space{}",
        a.samples,
        a.rounds,
        fmt_share(s.share(COPY)),
        if named.is_empty() {
            String::new()
        } else {
            format!(" ({named})")
        }
    ))
}

#[cfg(test)]
#[path = "launch_why_tests.rs"]
mod tests;
