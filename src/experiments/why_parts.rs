//! `run --why`'s attribution told as the parts of a kernel path, for the
//! experiments whose cost is a whole path (a launch, a thread's creation, a
//! wake-up): each sampled stack is put in the first part, in the order the
//! experiment lists them, that has one of its functions anywhere on the
//! stack's call chain ([`Part::on_chain`]), so a page fault taken inside
//! fork's copy is fork's copy when the copy comes first. A part's share is
//! its stacks' samples over all the series' samples, pooled over the
//! rounds (the folded stacks hold no rounds), so the parts, user space and
//! the rest of the kernel add up to 100%; the functions quoted in a part
//! are those whose own samples lie mostly in it, each with its share and
//! 95% interval across rounds (`Attribution::functions`).

use crate::measure::attribution::USER_FRAME;
use crate::results::why::Attribution;
use crate::units::fmt_share;

/// One part of a path: its name in a sentence, and the functions that put
/// a stack in it when one is on the stack's chain (a name ending in `*` is
/// a prefix; a compiler's suffix, `.isra.0`, is dropped from the frames).
pub struct Part {
    pub name: &'static str,
    pub on_chain: &'static [&'static str],
}

/// The page-fault part's name, the same in every path that has one.
pub const FAULTS: &str = "page faults";

/// The page-fault part: a stack with one of the fault path's entry points
/// on its chain is in a fault (a launch's, a thread's stack's).
pub const FAULT_PART: Part = Part {
    name: FAULTS,
    on_chain: FAULT_PATH,
};

/// The page-fault path's entry points.
pub const FAULT_PATH: &[&str] = &[
    "asm_exc_page_fault",
    "exc_page_fault",
    "do_user_addr_fault",
    "handle_mm_fault",
];

/// A series' pooled samples split into parts.
#[derive(Debug, PartialEq)]
pub struct Split {
    /// Each part's samples, in the parts' order (a part with none kept).
    pub parts: Vec<(&'static str, u64)>,
    pub user: u64,
    /// Kernel samples in no part.
    pub rest: u64,
    /// All the folded stacks' samples.
    pub pooled: u64,
}

impl Split {
    /// A part's samples over all the pooled ones (0 for a part not listed).
    pub fn share(&self, part: &str) -> f64 {
        let n = self
            .parts
            .iter()
            .find(|(p, _)| *p == part)
            .map_or(0, |x| x.1);
        n as f64 / self.pooled.max(1) as f64
    }
}

/// A frame's name without a compiler's suffix.
fn bare(frame: &str) -> &str {
    frame.split('.').next().unwrap_or(frame)
}

fn names(frame: &str, on_chain: &[&str]) -> bool {
    let f = bare(frame);
    on_chain.iter().any(|n| match n.strip_suffix('*') {
        Some(prefix) => f.starts_with(prefix),
        None => f == *n,
    })
}

/// The part of `parts` a folded stack (root first, `;` between frames) is
/// in: the first whose functions one of its frames is; None for user time
/// and the rest of the kernel.
pub fn part_of(stack: &str, parts: &[Part]) -> Option<&'static str> {
    if stack == USER_FRAME {
        return None;
    }
    parts
        .iter()
        .find(|p| stack.split(';').any(|f| names(f, p.on_chain)))
        .map(|p| p.name)
}

/// `a`'s folded stacks split into `parts`; None with no stacks kept.
pub fn split(a: &Attribution, parts: &[Part]) -> Option<Split> {
    let pooled: u64 = a.folded.iter().map(|(_, n)| n).sum();
    if pooled == 0 {
        return None;
    }
    let mut counts: Vec<(&'static str, u64)> = parts.iter().map(|p| (p.name, 0)).collect();
    let (mut user, mut rest) = (0, 0);
    for (stack, n) in &a.folded {
        match part_of(stack, parts) {
            Some(p) => {
                if let Some(c) = counts.iter_mut().find(|(x, _)| *x == p) {
                    c.1 += n;
                }
            }
            None if stack == USER_FRAME => user += n,
            None => rest += n,
        }
    }
    Some(Split {
        parts: counts,
        user,
        rest,
        pooled,
    })
}

/// The part whose stacks hold most of `function`'s own samples (it the
/// sampled function, the stack's leaf).
fn home(a: &Attribution, function: &str, parts: &[Part]) -> Option<&'static str> {
    let mut by: Vec<(Option<&'static str>, u64)> = Vec::new();
    for (stack, n) in &a.folded {
        if stack.rsplit(';').next() != Some(function) {
            continue;
        }
        let p = part_of(stack, parts);
        match by.iter_mut().find(|(x, _)| *x == p) {
            Some(c) => c.1 += n,
            None => by.push((p, *n)),
        }
    }
    by.into_iter().max_by_key(|(_, n)| *n).and_then(|(p, _)| p)
}

/// The functions of `part` (by [`home`]) with a self share, largest first,
/// at most `n`, each with its share and interval across rounds.
pub fn functions_in(a: &Attribution, part: &str, parts: &[Part], n: usize) -> String {
    let mut f: Vec<_> = a
        .functions
        .iter()
        .filter(|f| f.self_share.share > 0.0 && home(a, &f.function, parts) == Some(part))
        .collect();
    f.sort_by(|x, y| y.self_share.share.total_cmp(&x.self_share.share));
    f.iter()
        .take(n)
        .map(|f| format!("{} {}", f.function, interval(&f.self_share)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A share with its interval: "38.2% [35.1%, 40.0%]"; a bound computed
/// past 100% or below 0% said so, never clamped (`units::fmt_share_interval`).
pub fn interval(s: &crate::results::why::Share) -> String {
    crate::units::fmt_share_interval(s.share, s.lo, s.hi)
}

/// The top `n` kernel functions by self share, largest first, each with
/// its interval: ", most in finish_task_switch 30.0% [25.0%, 33.0%]", or
/// nothing when no function has a self share.
pub fn most_in(a: &Attribution, n: usize) -> String {
    let mut f: Vec<_> = a
        .functions
        .iter()
        .filter(|f| f.self_share.share > 0.0)
        .collect();
    f.sort_by(|x, y| y.self_share.share.total_cmp(&x.self_share.share));
    let named: Vec<String> = f
        .iter()
        .take(n)
        .map(|f| format!("{} {}", f.function, interval(&f.self_share)))
        .collect();
    if named.is_empty() {
        String::new()
    } else {
        format!(", most in {}", named.join(", "))
    }
}

/// Every part with samples, its pooled share and its top functions, then
/// user space and the rest of the kernel: "fork's copy of the address
/// space 41.0% (copy_page_range 38.2% [35.1%, 40.0%]), ...; user space
/// 2.00%, the rest of the kernel 9.00%". None with no stacks kept.
pub fn words(a: &Attribution, parts: &[Part]) -> Option<String> {
    let s = split(a, parts)?;
    let share = |n: u64| fmt_share(n as f64 / s.pooled as f64);
    let told: Vec<String> = s
        .parts
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(p, n)| {
            let named = functions_in(a, p, parts, 2);
            if named.is_empty() {
                format!("{p} {}", share(*n))
            } else {
                format!("{p} {} ({named})", share(*n))
            }
        })
        .collect();
    let head = if told.is_empty() {
        "no sample in any part of the path".to_string()
    } else {
        told.join(", ")
    };
    Some(format!(
        "{head}; user space {}, the rest of the kernel {}",
        share(s.user),
        share(s.rest)
    ))
}

/// "(--why: 390 samples in 8 rounds, pooled)": what a sentence rests on.
pub fn resting_on(a: &Attribution) -> String {
    format!(
        "--why: {} samples in {} rounds, pooled",
        a.samples, a.rounds
    )
}

#[cfg(test)]
#[path = "why_parts_tests.rs"]
mod tests;
