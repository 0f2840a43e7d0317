//! Where a new task runs. On this kind of machine a child that starts on the
//! other CPU pays for an inter-processor interrupt and that CPU leaving idle,
//! one on the same CPU waits for its parent to block: two different figures
//! that a free-running loop mixes in whatever proportion the scheduler
//! picks. So creation is timed pinned to one CPU, and when left free, each
//! launch is filed by where its child started.

use super::engine::{push_launches, push_placement_share, Launch};
use crate::experiments::prelude::*;
use crate::metric::key::PLACEMENT;
use crate::sys;

/// `-p placements=`: how the launcher is placed.
pub const PLACEMENTS: [Choice; 2] = [Placement::OneCpu.choice(), Placement::Free.choice()];

/// A placement of the launcher.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    OneCpu,
    Free,
}

impl Row for Placement {
    fn choice(&self) -> Choice {
        Placement::choice(*self)
    }
}

impl Placement {
    /// Every placement, in [`PLACEMENTS`]' order.
    const ALL: [Placement; 2] = [Placement::OneCpu, Placement::Free];

    /// Its row; the name is also the label value of a series over every
    /// launch of this placement.
    pub const fn choice(self) -> Choice {
        match self {
            Placement::OneCpu => Choice::new(
                "one_cpu",
                "the launcher pinned to one CPU; its children inherit the pin and start there",
            ),
            Placement::Free => Choice::new(
                "free",
                "unpinned, as a plain program runs; each launch filed by where the child started (free_same_cpu, free_other_cpu)",
            ),
        }
    }

    pub fn parse(name: &str) -> Option<Placement> {
        find(&Placement::ALL, name).copied()
    }

    /// Moves the calling thread to this placement: onto the first CPU it may
    /// use, or back onto all of them.
    pub fn enter(self, allowed: &[usize]) -> std::io::Result<()> {
        match self {
            Placement::OneCpu => sys::pin_current_thread(&allowed[..1.min(allowed.len())]),
            Placement::Free => sys::pin_current_thread(allowed),
        }
    }
}

/// The placements asked for that can differ here: with one CPU allowed,
/// `free` is `one_cpu` again and is dropped with a note.
pub fn chosen(names: &[String], allowed: &[usize], notes: &mut Vec<String>) -> Vec<Placement> {
    let mut out: Vec<Placement> = names.iter().filter_map(|n| Placement::parse(n)).collect();
    if allowed.len() < 2 && out.contains(&Placement::Free) {
        out.retain(|p| *p != Placement::Free);
        if !out.contains(&Placement::OneCpu) {
            out.push(Placement::OneCpu);
        }
        notes.push("only one CPU may be used here: placement free is the same as one_cpu, so only one_cpu is measured".into());
    }
    out
}

/// Files `launches` under their placement label and pushes them: all under
/// `one_cpu`, or split by where each child started (`free_same_cpu`,
/// `free_other_cpu`; `free` for children whose CPU is unknown, the exec'd
/// programs).
pub fn push_placed(
    out: &mut WorkerOutput,
    base: &[(&str, &str)],
    placement: Placement,
    launches: &[Launch],
    detail_timings: bool,
) {
    let with = |tag: &str| {
        let mut l: Vec<(&str, &str)> = base.to_vec();
        l.push((PLACEMENT, tag));
        labels(&l)
    };
    match placement {
        Placement::OneCpu => {
            let l = with(Placement::OneCpu.name());
            push_launches(out, &l, launches, detail_timings);
            push_placement_share(out, &l, launches);
        }
        Placement::Free => {
            let known = |l: &&Launch| l.child_cpu >= 0 && l.parent_cpu >= 0;
            let same: Vec<Launch> = launches
                .iter()
                .filter(|l| known(l) && l.child_cpu == l.parent_cpu)
                .copied()
                .collect();
            let other: Vec<Launch> = launches
                .iter()
                .filter(|l| known(l) && l.child_cpu != l.parent_cpu)
                .copied()
                .collect();
            let unknown: Vec<Launch> = launches.iter().filter(|l| !known(l)).copied().collect();
            for (tag, set) in [
                ("free_same_cpu", same),
                ("free_other_cpu", other),
                ("free", unknown),
            ] {
                if !set.is_empty() {
                    push_launches(out, &with(tag), &set, detail_timings);
                }
            }
            let mut all = base.to_vec();
            all.push((PLACEMENT, Placement::Free.name()));
            push_placement_share(out, &labels(&all), launches);
        }
    }
}

#[cfg(test)]
#[path = "placement_tests.rs"]
mod tests;
