//! A task's own working set, walked between switches (switch.indirect):
//! one write per 64-byte cache line, either in address order (the
//! prefetcher can run ahead) or as a random pointer-chase (each line names
//! the next, a single cycle through every line in a shuffled order, so each
//! load waits for the one before and no prefetcher guesses it).

use serde::{Deserialize, Serialize};
use std::hint::black_box;

/// How a task walks its working set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Walk {
    /// Line after line, in address order.
    #[default]
    Sequential,
    /// A pointer-chase through every line in a random order.
    Random,
}

impl Walk {
    pub const ALL: [Walk; 2] = [Walk::Sequential, Walk::Random];

    /// The name a label and `-p walks=` use.
    pub const fn name(self) -> &'static str {
        match self {
            Walk::Sequential => "sequential",
            Walk::Random => "random",
        }
    }
}

/// What each task walks between switches: how many bytes, and how.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Walking {
    pub bytes: usize,
    pub walk: Walk,
}

/// One cache line of a working set: the index of the line a chase goes to
/// next, and a counter each visit writes.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
struct Line {
    next: usize,
    visits: u64,
}

/// The bytes of one line.
pub const LINE: usize = std::mem::size_of::<Line>();

/// A working set, allocated (and every line written) by the task that will
/// walk it.
pub struct WorkingSet {
    lines: Vec<Line>,
    walk: Walk,
}

impl WorkingSet {
    /// `w.bytes` rounded down to whole lines; the chase's order is fixed by
    /// `seed`, so the two tasks of a pair walk different orders.
    pub fn new(w: Walking, seed: u64) -> WorkingSet {
        let n = w.bytes / LINE;
        let mut lines = vec![Line::default(); n];
        match w.walk {
            Walk::Sequential => {
                for (i, l) in lines.iter_mut().enumerate() {
                    l.next = (i + 1) % n.max(1);
                }
            }
            Walk::Random => {
                for (i, next) in single_cycle(n, seed).into_iter().enumerate() {
                    lines[i].next = next;
                }
            }
        }
        WorkingSet {
            lines,
            walk: w.walk,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// One walk: every line visited once and written.
    #[inline]
    pub fn walk(&mut self) {
        match self.walk {
            Walk::Sequential => {
                for l in &mut self.lines {
                    l.visits = l.visits.wrapping_add(1);
                }
            }
            Walk::Random => {
                let mut i = 0;
                for _ in 0..self.lines.len() {
                    let l = &mut self.lines[i];
                    l.visits = l.visits.wrapping_add(1);
                    i = l.next;
                }
                black_box(i);
            }
        }
        black_box(&mut self.lines);
    }
}

/// `next[i]` for a single cycle through all of `0..n` in a random order:
/// the lines shuffled (Fisher–Yates, from a xorshift seeded with `seed`),
/// each linked to the one after it in that order and the last to the
/// first, so following it from any line visits every line once before
/// coming back.
pub fn single_cycle(n: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut x = seed | 1;
    let mut rand = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for i in (1..n).rev() {
        let j = (rand() % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    let mut next = vec![0; n];
    for k in 0..n {
        next[order[k]] = order[(k + 1) % n];
    }
    next
}

#[cfg(test)]
#[path = "working_set_tests.rs"]
mod tests;
