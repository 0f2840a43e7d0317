//! switch.pingpong under `run --why`: the switch path of a hand-off named
//! from its measured attribution. Each kernel function sampled is put in
//! one part of the path by its name ([`part_of`]): the switch itself
//! (`__schedule`, `__switch_to`, `finish_task_switch`, the run queue's
//! bookkeeping), the wake-up, the pipe's or the futex's own functions, and
//! the system call's entry and exit. A part's share is its functions' self
//! samples over all the series' samples, pooled over the rounds, so the
//! parts, user space and the rest of the kernel add up to 100% (a sample
//! has one sampled function); each function is quoted with its own share
//! and 95% interval across rounds.

use crate::results::why::Attribution;
use crate::results::ExperimentResult;
use crate::units::fmt_share;

/// The parts of a hand-off's path, in the order they are told.
pub const PARTS: [&str; 4] = [
    "the switch",
    "the wake-up",
    "the IPC's own functions",
    "the system call's entry and exit",
];

/// The part of a hand-off's path the kernel function `function` is on, by
/// its name (a compiler's suffix, `.isra.0`, `.constprop.0`, dropped);
/// None for the rest (locks, memory, interrupts).
pub fn part_of(function: &str) -> Option<&'static str> {
    let f = function.split('.').next().unwrap_or(function);
    let any = |names: &[&str]| names.contains(&f);
    let starts = |prefixes: &[&str]| prefixes.iter().any(|p| f.starts_with(p));
    if any(&[
        "__schedule",
        "schedule",
        "schedule_idle",
        "__switch_to",
        "__switch_to_asm",
        "finish_task_switch",
        "prepare_task_switch",
        "context_switch",
        "update_curr",
        "update_load_avg",
        "update_rq_clock",
    ]) || starts(&[
        "pick_next_",
        "put_prev_",
        "set_next_",
        "dequeue_",
        "enqueue_",
        "switch_mm",
        "switch_fpu",
        "__update_load_avg",
        "update_curr_",
        "pick_task",
        "psi_task_",
        "psi_group_",
        "check_preempt",
        "wakeup_preempt",
        "resched_",
    ]) {
        return Some(PARTS[0]);
    }
    if any(&[
        "try_to_wake_up",
        "wake_up_q",
        "autoremove_wake_function",
        "default_wake_function",
        "wake_up_process",
    ]) || starts(&["ttwu_", "__wake_up", "select_task_rq", "wake_q_"])
    {
        return Some(PARTS[1]);
    }
    if starts(&["pipe_", "anon_pipe_", "futex_", "__futex", "do_futex"]) {
        return Some(PARTS[2]);
    }
    if any(&[
        "do_syscall_64",
        "ksys_read",
        "ksys_write",
        "vfs_read",
        "vfs_write",
    ]) || starts(&[
        "entry_SYSCALL",
        "syscall_exit",
        "syscall_return",
        "__x64_sys_",
        "__do_sys_",
    ]) {
        return Some(PARTS[3]);
    }
    None
}

/// The hand-off of `method` at `placement` where its sampled CPU time
/// went, from the attribution that covers its series: each part of the
/// path with its pooled share and its functions (each with its share and
/// interval), then user space and the rest of the kernel. None without an
/// attribution, or with no folded stacks to pool.
pub fn measured_path(r: &ExperimentResult, method: &str, placement: &str) -> Option<String> {
    let labels = crate::measure::protocol::labels(&[
        (crate::metric::key::METHOD, method),
        (crate::metric::key::PLACEMENT, placement),
    ]);
    let a = r.why.iter().find(|a| a.covers(&labels))?;
    let pooled: u64 = a.folded.iter().map(|(_, n)| n).sum();
    if pooled == 0 {
        return None;
    }
    let share = |n: u64| fmt_share(n as f64 / pooled as f64);
    let mut told: Vec<String> = Vec::new();
    let mut in_parts = 0;
    for part in PARTS {
        let n = leaf_samples(a, |f| part_of(f) == Some(part));
        if n == 0 {
            continue;
        }
        in_parts += n;
        let named = functions_in(a, part);
        told.push(if named.is_empty() {
            format!("{part} {}", share(n))
        } else {
            format!("{part} {} ({named})", share(n))
        });
    }
    if told.is_empty() {
        return None;
    }
    let user = leaf_samples(a, |f| f == crate::measure::attribution::USER_FRAME);
    let rest = pooled.saturating_sub(in_parts + user);
    Some(format!(
        "{placement}, {method}, where its sampled CPU time went (--why: {} samples in {} rounds, pooled): {}; user space {}, the rest of the kernel {}{}",
        a.samples,
        a.rounds,
        told.join(", "),
        share(user),
        share(rest),
        if placement == super::methods::SAME_CPU.name() {
            ""
        } else {
            "; the wait for the woken CPU is halted time, which no sample sees"
        }
    ))
}

/// [`measured_path`] of every other hand-off attributed (each method and
/// placement but the seed's method on one CPU, which is a finding), one
/// note each.
pub fn other_paths(r: &ExperimentResult) -> Vec<String> {
    let (seed, one) = (
        super::methods::PIPE_THREADS.name(),
        super::methods::SAME_CPU.name(),
    );
    r.why
        .iter()
        .filter_map(|a| {
            let m = a.labels.get(crate::metric::key::METHOD)?;
            let p = a.labels.get(crate::metric::key::PLACEMENT)?;
            ((m.as_str(), p.as_str()) != (seed, one))
                .then(|| measured_path(r, m, p))
                .flatten()
        })
        .collect()
}

/// Samples of the pooled folded stacks whose sampled function (the leaf)
/// `pick` takes.
fn leaf_samples(a: &Attribution, pick: impl Fn(&str) -> bool) -> u64 {
    a.folded
        .iter()
        .filter(|(stack, _)| pick(stack.rsplit(';').next().unwrap_or(stack)))
        .map(|(_, n)| n)
        .sum()
}

/// The functions of `part` with a self share, largest first, each with its
/// share and interval across rounds.
fn functions_in(a: &Attribution, part: &str) -> String {
    let mut f: Vec<_> = a
        .functions
        .iter()
        .filter(|f| part_of(&f.function) == Some(part) && f.self_share.share > 0.0)
        .collect();
    f.sort_by(|x, y| y.self_share.share.total_cmp(&x.self_share.share));
    f.iter()
        .map(|f| {
            let s = &f.self_share;
            format!(
                "{} {}",
                f.function,
                crate::units::fmt_share_interval(s.share, s.lo, s.hi)
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
#[path = "pingpong_why_tests.rs"]
mod tests;
