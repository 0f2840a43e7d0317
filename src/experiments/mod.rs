//! The experiment registry: one line per experiment. An experiment is data
//! plus functions (see [`spec::Experiment`]); adding one is one new file in
//! its group's folder and one line in [`REGISTRY`]. The CLI, `tasklab list`,
//! the worker, the report and the docs all find it here.

pub mod headline;
pub mod memory;
pub mod parallel;
pub mod prelude;
pub mod quantities;
pub mod seeds;
pub mod selftest;
pub mod spawn;
pub mod spec;
pub mod switch;
pub mod why_parts;
pub mod yardstick;

#[cfg(test)]
mod points_tests;
#[cfg(test)]
mod rss_tests;
#[cfg(test)]
mod summary_tests;
#[cfg(test)]
pub(crate) mod testing;
#[cfg(test)]
mod tests;

use crate::measure::probe::ProbeFn;
use crate::measure::worker::MeasureFn;
use crate::results::{Group, RunResults};
use headline::Quantity;
pub use spec::Experiment;

/// Every experiment, in the order a full run takes them.
pub static REGISTRY: &[&Experiment] = &[
    &yardstick::timer::EXPERIMENT,
    &yardstick::syscall::EXPERIMENT,
    &yardstick::memcpy::EXPERIMENT,
    &spawn::methods::EXPERIMENT,
    &spawn::launch::EXPERIMENT,
    &spawn::cold::EXPERIMENT,
    &spawn::heap::EXPERIMENT,
    &spawn::cow::EXPERIMENT,
    &switch::pingpong::EXPERIMENT,
    &switch::echo::EXPERIMENT,
    &switch::indirect::EXPERIMENT,
    &switch::userspace::EXPERIMENT,
    &switch::wakeup::EXPERIMENT,
    &memory::malloc::EXPERIMENT,
    &memory::threads::EXPERIMENT,
    &memory::limits::EXPERIMENT,
    &memory::sharing::EXPERIMENT,
    &parallel::average::EXPERIMENT,
    &parallel::program::EXPERIMENT,
    &parallel::forktime::EXPERIMENT,
    &parallel::fanout::EXPERIMENT,
    &selftest::crash::EXPERIMENT,
    &selftest::hang::EXPERIMENT,
    &selftest::spin::EXPERIMENT,
];

/// The groups: name, the report's title, what the group is about.
pub const GROUPS: &[(&str, &str, &str)] = &[
    (
        "yardstick",
        "Yardsticks",
        "The scale every other figure is read against: a clock read, a bare system call, a memcpy.",
    ),
    (
        "spawn",
        "Creating tasks",
        "fork, vfork, posix_spawn, raw clone and pthread_create: warm and cold, to the parent's return and to the child's first instruction, and against the size of the parent's memory image.",
    ),
    (
        "switch",
        "Switching between tasks",
        "Two tasks handing a token back and forth through the kernel (pipes, futexes, condition variables, sched_yield), placed on one CPU or two; the indirect cost of refilled caches; switches that never enter the kernel.",
    ),
    (
        "memory",
        "What tasks keep in memory",
        "malloc then touch; what threads reserve and what they keep resident; how many this machine allows; what each clone flag shares.",
    ),
    (
        "parallel",
        "What forking buys for parallel work",
        "The seed's array average split across forked processes, threads and a pool; the whole program with its fill; what fork itself costs there; fanning out I/O-bound work.",
    ),
];

/// The groups as the results file records them.
pub fn group_records() -> Vec<Group> {
    GROUPS
        .iter()
        .map(|(name, title, about)| Group {
            name: name.to_string(),
            title: title.to_string(),
            about: about.to_string(),
        })
        .collect()
}

pub fn find(name: &str) -> Option<&'static Experiment> {
    REGISTRY.iter().copied().find(|e| e.name == name)
}

/// The Summary's quantities measured in `r`, in the Summary's order (the
/// registry's), each as its experiment's `headlines` picks it.
pub fn summary_quantities(r: &RunResults) -> Vec<Quantity> {
    REGISTRY
        .iter()
        .filter_map(|x| Some((x.name, x.headlines, r.measured(x.name)?)))
        .flat_map(|(experiment, headlines, e)| {
            headlines(e).into_iter().map(move |headline| Quantity {
                experiment,
                headline,
            })
        })
        .collect()
}

/// What a worker measures for `name`: the lookup handed to the worker.
pub fn measure_fn(name: &str) -> Option<MeasureFn> {
    find(name).map(|e| e.measure)
}

/// The fresh-process probe of `name`: the lookup handed to `__probe`.
pub fn probe_fn(name: &str) -> Option<ProbeFn> {
    find(name).and_then(|e| e.probe)
}

/// The visible groups, in registry order.
pub fn groups() -> Vec<&'static str> {
    let mut g: Vec<&str> = Vec::new();
    for e in REGISTRY.iter().filter(|e| !e.hidden) {
        if !g.contains(&e.group()) {
            g.push(e.group());
        }
    }
    g
}

/// Resolves names given on the command line (experiments or groups; none
/// means every visible experiment) to experiments, in registry order.
pub fn select(names: &[String]) -> Result<Vec<&'static Experiment>, String> {
    if names.is_empty() {
        return Ok(REGISTRY.iter().copied().filter(|e| !e.hidden).collect());
    }
    let mut chosen: Vec<&'static Experiment> = Vec::new();
    for n in names {
        let matched: Vec<&'static Experiment> = if let Some(e) = find(n) {
            vec![e]
        } else {
            REGISTRY
                .iter()
                .copied()
                .filter(|e| !e.hidden && e.group() == n)
                .collect()
        };
        if matched.is_empty() {
            let visible: Vec<&str> = REGISTRY
                .iter()
                .filter(|e| !e.hidden)
                .map(|e| e.name)
                .collect();
            return Err(format!(
                "unknown experiment or group '{n}'\n  groups: {}\n  experiments: {}",
                groups().join(", "),
                visible.join(", ")
            ));
        }
        for e in matched {
            if !chosen.iter().any(|c| c.name == e.name) {
                chosen.push(e);
            }
        }
    }
    chosen.sort_by_key(|e| REGISTRY.iter().position(|r| r.name == e.name));
    Ok(chosen)
}
