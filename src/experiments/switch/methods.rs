//! The switch group's tables (seed 002's mechanisms and beyond): the
//! ping-pong methods, the placements and the user-space variants. Each row is
//! a [`Choice`] (name, about, needs) plus what the engine dispatches on;
//! `-p`, `tasklab list` and the dispatch all read these tables, and the
//! `Choice` columns that `ParamKind::Names` takes are derived from them at
//! compile time, so every name is written once. Rows are found by name with
//! [`find`].

use super::handoff::{condvar::Condvar, futex::Futex, pipe::Pipe, yield_::Yield, Handoff};
use crate::experiments::prelude::*;
use crate::measure::params::choice_column;

// ------------------------------------------------------- ping-pong methods

/// One ping-pong method.
#[derive(Clone, Copy, Debug)]
pub struct Method {
    pub choice: Choice,
    /// How the two tasks hand the token over: a file in `handoff/`.
    pub handoff: &'static dyn Handoff,
    /// Two processes (the partner forked, a MAP_SHARED page) rather than two
    /// threads of one process.
    pub processes: bool,
    /// What the IPC costs per switch without a switch, in words.
    pub baseline: &'static str,
}

impl Row for Method {
    fn choice(&self) -> Choice {
        self.choice
    }
}

impl Method {
    /// The row's name, in const contexts (seed labels).
    pub const fn name(&self) -> &'static str {
        self.choice.name
    }
}

impl Method {
    /// Yielding hands the CPU over only to a task on the same CPU: on two
    /// CPUs the tasks would spin, not switch (its [`Handoff`] does not block).
    pub fn same_cpu_only(&self) -> bool {
        !self.handoff.blocks()
    }
}

/// perf bench sched pipe -T: 4 bytes out on one pipe and back on another.
/// The kernel reference of the other experiments, and the seed's method.
pub const PIPE_THREADS: Method = Method {
    choice: Choice::new("pipe_threads", "two threads over a pair of pipes"),
    handoff: &Pipe,
    processes: false,
    baseline: "one write + one read of 4 bytes on a pipe by one task",
};

/// perf bench sched pipe: the same between two forked processes.
pub const PIPE_PROCESSES: Method = Method {
    choice: Choice::new("pipe_processes", "two processes over a pair of pipes"),
    handoff: &Pipe,
    processes: true,
    baseline: "one write + one read of 4 bytes on a pipe by one task",
};

pub const FUTEX_THREADS: Method = Method {
    choice: Choice::new("futex_threads", "two threads on a private futex word"),
    handoff: &Futex,
    processes: false,
    baseline: "an uncontended FUTEX_WAKE (no waiter) + a FUTEX_WAIT that returns at once",
};

/// The futex word lives in a MAP_SHARED page.
pub const FUTEX_PROCESSES: Method = Method {
    choice: Choice::new("futex_processes", "two processes on a shared futex word"),
    handoff: &Futex,
    processes: true,
    baseline: "an uncontended shared FUTEX_WAKE + a FUTEX_WAIT that returns at once",
};

/// A std Mutex + Condvar, as the seed's condition-variable sample.
pub const CONDVAR: Method = Method {
    choice: Choice::new("condvar", "two threads on a Mutex + Condvar"),
    handoff: &Condvar,
    processes: false,
    baseline: "lock + notify_one with no waiter (a FUTEX_WAKE) + unlock + a FUTEX_WAIT that returns at once + relock and unlock",
};

/// Spinning on a turn word, yielding while it is not their turn.
pub const SCHED_YIELD: Method = Method {
    choice: Choice::new("sched_yield", "two threads on one CPU yielding in turn"),
    handoff: &Yield,
    processes: false,
    baseline: "sched_yield with nothing else runnable on the CPU",
};

pub const METHODS: &[Method] = &[
    PIPE_THREADS,
    PIPE_PROCESSES,
    FUTEX_THREADS,
    FUTEX_PROCESSES,
    CONDVAR,
    SCHED_YIELD,
];

/// The ping-pong methods as `-p methods=` takes them.
pub const METHOD_CHOICES: &[Choice] = choice_column!(METHODS);

// -------------------------------------------------------------- placements

/// Where a placement puts the two tasks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spread {
    /// Both pinned to the first CPU.
    OneCpu,
    /// Pinned apart, to the first and the second CPU; `awake` keeps both
    /// busy with SCHED_IDLE spinners.
    TwoCpus { awake: bool },
    /// Wherever the scheduler puts them.
    Unpinned,
}

#[derive(Clone, Copy, Debug)]
pub struct Placement {
    pub choice: Choice,
    pub spread: Spread,
}

impl Row for Placement {
    fn choice(&self) -> Choice {
        self.choice
    }
}

impl Placement {
    /// The row's name, in const contexts (seed labels).
    pub const fn name(&self) -> &'static str {
        self.choice.name
    }
}

impl Placement {
    pub fn two_cpus(&self) -> bool {
        matches!(self.spread, Spread::TwoCpus { .. })
    }

    /// The placement a series' `placement` label names, if it is one of
    /// [`PLACEMENTS`].
    pub fn named(name: &str) -> Option<&'static Placement> {
        PLACEMENTS.iter().find(|p| p.name() == name)
    }

    /// Both tasks on one CPU: a hand-off wakes no other CPU.
    pub fn one_cpu(&self) -> bool {
        matches!(self.spread, Spread::OneCpu)
    }
}

pub const SAME_CPU: Placement = Placement {
    choice: Choice::new("same_cpu", "both tasks pinned to one CPU: the switch path"),
    spread: Spread::OneCpu,
};

pub const UNPINNED: Placement = Placement {
    choice: Choice::new("unpinned", "wherever the scheduler puts them"),
    spread: Spread::Unpinned,
};

pub const TWO_CPUS: Placement = Placement {
    choice: Choice::new("two_cpus", "pinned to two CPUs: a wake-up on the other CPU"),
    spread: Spread::TwoCpus { awake: false },
};

pub const TWO_CPUS_AWAKE: Placement = Placement {
    choice: Choice::new(
        "two_cpus_awake",
        "two CPUs kept awake by SCHED_IDLE spinners",
    ),
    spread: Spread::TwoCpus { awake: true },
};

pub const PLACEMENTS: &[Placement] = &[SAME_CPU, TWO_CPUS, TWO_CPUS_AWAKE, UNPINNED];

/// The placements as `-p placements=` takes them.
pub const PLACEMENT_CHOICES: &[Choice] = choice_column!(PLACEMENTS);

// ------------------------------------------------------ user-space variants

/// How the Go helper is run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoMode {
    /// GOMAXPROCS as Go chooses it, on every allowed CPU.
    Default,
    /// GOMAXPROCS=1, pinned to one CPU.
    MaxProcs1,
    /// Each goroutine locked to an OS thread (runtime.LockOSThread).
    Locked,
}

/// What a user-space variant switches between.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UserSwitch {
    Coroutine,
    Async,
    /// The kernel reference: pipe threads on one CPU.
    KernelPipe,
    Go(GoMode),
}

#[derive(Clone, Copy, Debug)]
pub struct Variant {
    pub choice: Choice,
    pub switch: UserSwitch,
}

impl Row for Variant {
    fn choice(&self) -> Choice {
        self.choice
    }
}

impl Variant {
    /// The row's name, in const contexts (seed labels).
    pub const fn name(&self) -> &'static str {
        self.choice.name
    }
}

pub const COROUTINE: Variant = Variant {
    choice: Choice::new(
        "coroutine",
        "a stackful coroutine (corosensei) resumed and yielding",
    ),
    switch: UserSwitch::Coroutine,
};

pub const ASYNC: Variant = Variant {
    choice: Choice::new(
        "async",
        "two async tasks on a single-threaded tokio runtime",
    ),
    switch: UserSwitch::Async,
};

pub const KERNEL_PIPE: Variant = Variant {
    choice: Choice::new("kernel_pipe", "two threads over pipes, for comparison"),
    switch: UserSwitch::KernelPipe,
};

pub const GO_DEFAULT: Variant = Variant {
    choice: Choice::new("go_default", "goroutines over an unbuffered channel")
        .needing("a Go toolchain"),
    switch: UserSwitch::Go(GoMode::Default),
};

pub const GO_MAXPROCS1: Variant = Variant {
    choice: Choice::new("go_maxprocs1", "the same with GOMAXPROCS=1").needing("a Go toolchain"),
    switch: UserSwitch::Go(GoMode::MaxProcs1),
};

pub const GO_LOCKED: Variant = Variant {
    choice: Choice::new(
        "go_locked",
        "the same with each goroutine locked to an OS thread, both on one CPU",
    )
    .needing("a Go toolchain"),
    switch: UserSwitch::Go(GoMode::Locked),
};

pub const VARIANTS: &[Variant] = &[
    COROUTINE,
    ASYNC,
    KERNEL_PIPE,
    GO_DEFAULT,
    GO_MAXPROCS1,
    GO_LOCKED,
];

/// The user-space variants as `-p variants=` takes them.
pub const VARIANT_CHOICES: &[Choice] = choice_column!(VARIANTS);

#[cfg(test)]
#[path = "methods_tests.rs"]
mod tests;
