//! The parallel group's tables (seed 003, "Linux Fu: An Odd Use For
//! Fork()"): the ways of averaging the seed's array, and the huge-page
//! settings of its whole program. Each name is written once, here; the
//! parameters, `tasklab list`, the loops and the dispatch all read it.

use super::array::Variant;
use crate::experiments::prelude::*;
use crate::sys::Thp;

impl Variant {
    /// Every variant, serial first, then [`VARIANTS`]' order.
    pub const ALL: [Variant; 4] = [
        Variant::Serial,
        Variant::Fork,
        Variant::Threads,
        Variant::Pool,
    ];

    /// Its row: the name in labels and in `-p variants=`, and what it is.
    pub const fn choice(self) -> Choice {
        match self {
            Variant::Serial => Choice::new("serial", "one loop over the whole array"),
            Variant::Fork => Choice::new(
                "fork",
                "the parent and W-1 forked children, partial sums through a pipe",
            ),
            Variant::Threads => Choice::new("threads", "the calling thread and W-1 scoped threads"),
            Variant::Pool => Choice::new("pool", "a rayon pool of W threads stealing chunks"),
        }
    }

    /// The variant a label or a `-p variants=` name stands for.
    pub fn named(name: &str) -> Option<Variant> {
        find(&Variant::ALL, name).copied()
    }
}

impl Row for Variant {
    fn choice(&self) -> Choice {
        Variant::choice(*self)
    }
}

impl Row for Thp {
    fn choice(&self) -> Choice {
        thp_choice(*self)
    }
}

/// The variants measured beside serial: what `-p variants=` accepts, what
/// `tasklab list` prints, and the order the findings name them in.
pub const VARIANTS: &[Choice] = &[
    Variant::Fork.choice(),
    Variant::Threads.choice(),
    Variant::Pool.choice(),
];

/// Every huge-page setting, in [`THP_SETTINGS`]' order.
const THP_ALL: [Thp; 3] = [Thp::Default, Thp::On, Thp::Off];

/// A huge-page setting's row: its name in labels and parameters.
pub const fn thp_choice(thp: Thp) -> Choice {
    match thp {
        Thp::Default => Choice::new("default", "huge pages as the system sets them"),
        Thp::On => Choice::new("on", "huge pages asked for (madvise)"),
        Thp::Off => Choice::new("off", "huge pages refused"),
    }
}

/// The huge-page settings parallel.program runs the seed's program with.
pub const THP_SETTINGS: &[Choice] = &[
    thp_choice(Thp::Default),
    thp_choice(Thp::On),
    thp_choice(Thp::Off),
];

/// The setting a label or parameter names; anything else leaves it to the
/// system.
pub fn thp_of(name: &str) -> Thp {
    find(&THP_ALL, name).copied().unwrap_or(Thp::Default)
}

#[cfg(test)]
#[path = "variants_tests.rs"]
mod tests;
