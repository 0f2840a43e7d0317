//! The measured costs advise needs, picked out of a results file: each
//! figure checked for its unit and a plausible size, and what fails a check
//! kept aside with the reason ([`Rejected`]).

use super::figure::{Curve, Figure};
use crate::experiments::memory::threads as memory_threads;
use crate::experiments::memory::threads_findings::{
    self as threads, KERNEL_STACK_PER_THREAD_KIB, PAGE_TABLES_PER_THREAD_BYTES, RSS_PER_THREAD_KIB,
};
use crate::experiments::spawn::engine::LIFECYCLE_NS;
use crate::experiments::spawn::placement::Placement;
use crate::experiments::spawn::table as spawn;
use crate::experiments::spawn::{heap, methods};
use crate::experiments::switch::methods as switch;
use crate::experiments::switch::series::SWITCH_NS;
use crate::experiments::switch::{pingpong, userspace};
use crate::experiments::Experiment;
use crate::measure::rss::VM_PTE_KIB;
use crate::metric::key::{CALL, HEAP_BYTES, METHOD, PLACEMENT, THP, THREADS, VARIANT};
use crate::metric::MetricSpec;
use crate::results::case;
use crate::results::{ExperimentResult, Metric, RunResults, Unit};
use crate::stats::median;
use crate::units::fmt_size;
use serde::Serialize;

// The series advise reads, by the labels results files give them (each
// name taken from its experiment's table); the fresh run measures these
// same series.

/// spawn.heap methods: one per model that creates a kernel task per task,
/// and posix_spawn's like-for-like comparisons (the same tiny program).
pub const FORK: &str = spawn::FORK.choice.name;
pub const PTHREAD_CREATE: &str = spawn::PTHREAD_CREATE.choice.name;
pub const POSIX_SPAWN: &str = spawn::POSIX_SPAWN.choice.name;
pub const FORK_EXEC_STATIC: &str = spawn::FORK_EXEC_STATIC.choice.name;
pub const VFORK: &str = spawn::VFORK.choice.name;
/// Read when a file has it; the fresh run measures `vfork` instead.
const VFORK_EXEC_STATIC: &str = spawn::VFORK_EXEC_STATIC.choice.name;
/// spawn.methods' pinned placement, where spawn.heap has no figure.
const ONE_CPU: &str = Placement::OneCpu.choice().name;
/// switch.pingpong methods, the futex one preferred.
pub const THREAD_SWITCHES: [&str; 2] = [
    switch::FUTEX_THREADS.choice.name,
    switch::PIPE_THREADS.choice.name,
];
pub const PROCESS_SWITCHES: [&str; 2] = [
    switch::FUTEX_PROCESSES.choice.name,
    switch::PIPE_PROCESSES.choice.name,
];
/// switch.pingpong placements: both tasks on one CPU (the CPU cost of a
/// switch), else ones that wake another CPU (latency on top).
pub const SAME_CPU: &str = switch::SAME_CPU.choice.name;
pub const CROSS_CPU: [&str; 2] = [switch::UNPINNED.choice.name, switch::TWO_CPUS.choice.name];
/// switch.userspace variants, in order of preference.
pub const USER_SWITCHES: [&str; 2] = [switch::ASYNC.choice.name, switch::COROUTINE.choice.name];
/// memory.threads variants: the default stack first, since the `touch`
/// variant's resident figure includes the 400 KiB it touches on purpose.
pub const THREAD_VARIANTS: [&str; 2] = [threads::DEFAULT.name, threads::SMALL.name];

/// Which of the [`Costs`] a figure is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cost {
    Fork,
    Thread,
    Spawn,
    ForkExec,
    Vfork,
    ProcessPte,
    SwitchThreads,
    SwitchProcesses,
    SwitchAsync,
    ThreadRss,
    KernelStack,
    ThreadPte,
}

/// A figure advise read from the results file and could not use.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Rejected {
    /// Which of the [`Costs`] it was for.
    pub figure: Cost,
    /// The figure and what is wrong with it.
    pub reason: String,
}

/// The measured costs advise needs; `None` where the results lack one.
/// What vfork's figure measured: vfork + execve of the tiny static program
/// (`vfork_exec_static`, in files that have it), or vfork alone (`vfork`,
/// what a fresh run measures).
#[derive(Clone, Debug, PartialEq)]
pub enum Vfork {
    Exec(Curve),
    Alone(Curve),
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Costs {
    /// Where they come from, for "not measured in ..." messages.
    pub source: String,
    pub cpus: usize,
    /// Lifecycle (create, exit, reap or join) vs the parent's heap.
    pub fork: Option<Curve>,
    pub thread: Option<Curve>,
    pub spawn: Option<Curve>,
    /// fork + execve of the tiny static program posix_spawn starts: the
    /// like-for-like comparison for posix_spawn.
    pub fork_exec: Option<Curve>,
    /// vfork + execve where measured, else vfork alone.
    pub vfork: Option<Vfork>,
    /// The parent's page tables (VmPTE, KiB) vs its heap: what a forked
    /// child copies.
    pub process_pte: Option<Curve>,
    /// One blocking hand-off's CPU cost (switch.pingpong): the same_cpu
    /// placement, else a cross-CPU one (an upper bound).
    pub switch_threads: Option<Figure>,
    pub switch_processes: Option<Figure>,
    /// The cross-CPU figures (unpinned, else two_cpus): a hand-off that
    /// wakes another CPU, shown as latency beside the CPU cost.
    pub switch_threads_cross_cpu: Option<Figure>,
    pub switch_processes_cross_cpu: Option<Figure>,
    /// One user-space switch (switch.userspace).
    pub switch_async: Option<Figure>,
    /// Per blocked thread (memory.threads, at the largest thread count):
    /// resident KiB, kernel stack KiB, page-table bytes.
    pub thread_rss: Option<Figure>,
    pub kernel_stack: Option<Figure>,
    pub thread_pte: Option<Figure>,
    /// Figures in the file that were not usable, and why.
    pub rejected: Vec<Rejected>,
}

impl Costs {
    /// True when not one figure advise uses is there.
    pub fn is_empty(&self) -> bool {
        self.fork.is_none()
            && self.thread.is_none()
            && self.spawn.is_none()
            && self.fork_exec.is_none()
            && self.vfork.is_none()
            && self.process_pte.is_none()
            && self.switch_threads.is_none()
            && self.switch_processes.is_none()
            && self.switch_async.is_none()
            && self.thread_rss.is_none()
            && self.kernel_stack.is_none()
            && self.thread_pte.is_none()
    }

    /// Whether the figure a [`Rejected::figure`] names is there after all
    /// (another reading of it was usable).
    pub fn has(&self, figure: Cost) -> bool {
        match figure {
            Cost::Fork => self.fork.is_some(),
            Cost::Thread => self.thread.is_some(),
            Cost::Spawn => self.spawn.is_some(),
            Cost::ForkExec => self.fork_exec.is_some(),
            Cost::Vfork => self.vfork.is_some(),
            Cost::ProcessPte => self.process_pte.is_some(),
            Cost::SwitchThreads => self.switch_threads.is_some(),
            Cost::SwitchProcesses => self.switch_processes.is_some(),
            Cost::SwitchAsync => self.switch_async.is_some(),
            Cost::ThreadRss => self.thread_rss.is_some(),
            Cost::KernelStack => self.kernel_stack.is_some(),
            Cost::ThreadPte => self.thread_pte.is_some(),
        }
    }

    /// "WHAT not measured in FILE (run `tasklab run EXP`)", or why the
    /// file's figures for `figures` were not usable.
    pub fn missing(&self, figures: &[Cost], what: &str, exp: &str) -> String {
        let mut why: Vec<String> = self
            .rejected
            .iter()
            .filter(|r| figures.contains(&r.figure))
            .map(|r| r.reason.clone())
            .collect();
        if why.len() > 2 {
            let more = why.len() - 2;
            why.truncate(2);
            why.push(format!("and {more} more alike"));
        }
        if why.is_empty() {
            format!(
                "{what} not measured in {} (run `tasklab run {exp}`)",
                self.source
            )
        } else {
            format!(
                "{what} not usable in {}, so treated as not measured: {} (run `tasklab run {exp}`)",
                self.source,
                why.join("; ")
            )
        }
    }
}

/// What advise accepts for a figure: its unit and a plausible bound.
#[derive(Clone, Copy, Debug)]
struct Expect {
    unit: Unit,
    max: f64,
    max_text: &'static str,
}

const NS: Expect = Expect {
    unit: Unit::Ns,
    max: 3.6e12,
    max_text: "an hour",
};
const KIB: Expect = Expect {
    unit: Unit::Kib,
    max: (1u64 << 30) as f64,
    max_text: "1 TiB",
};
const BYTES: Expect = Expect {
    unit: Unit::Bytes,
    max: (1u64 << 40) as f64,
    max_text: "1 TiB",
};

/// Why a value read from a results file cannot be used, or None when it can:
/// another unit than expected, not finite, negative, a time of zero, or past
/// a plausible bound.
fn unusable(value: f64, unit: Unit, want: Expect) -> Option<String> {
    let raw = |v: f64| {
        if v.abs() < 1e15 {
            format!("{v}")
        } else {
            format!("{v:e}")
        }
    };
    if unit != want.unit {
        Some(format!(
            "its unit is '{}' where '{}' is expected",
            unit.name(),
            want.unit.name()
        ))
    } else if !value.is_finite() {
        Some(format!("its median, {value}, is not a finite number"))
    } else if value < 0.0 {
        Some(format!(
            "its median, {} {}, is negative",
            raw(value),
            unit.name()
        ))
    } else if value == 0.0 && unit == Unit::Ns {
        Some("its median is 0 ns, not a measured time".into())
    } else if value > want.max {
        Some(format!(
            "its median, {} {}, is above {}: not a plausible figure",
            raw(value),
            unit.name(),
            want.max_text
        ))
    } else {
        None
    }
}

/// Picks the figures out of a results file, checking each; what fails a
/// check is left out, with the reason in [`Costs::rejected`].
struct Picker<'a> {
    r: &'a RunResults,
    source: &'a str,
    rejected: Vec<Rejected>,
}

impl<'a> Picker<'a> {
    fn exp(&self, exp: &Experiment) -> Option<&'a ExperimentResult> {
        self.r.experiments.iter().find(|e| e.name == exp.name)
    }

    /// The metric's median, or None (and the reason kept) when unusable.
    fn check(
        &mut self,
        e: &ExperimentResult,
        m: &Metric,
        want: Expect,
        figure: Cost,
    ) -> Option<Figure> {
        match unusable(m.summary.median, m.unit, want) {
            None => Some(Figure::from_metric(&e.name, m)),
            Some(why) => {
                self.rejected.push(Rejected {
                    figure,
                    reason: format!("{} {} {}: {why}", e.name, m.name, case(m)),
                });
                None
            }
        }
    }

    /// `metric` for `method` at every heap of spawn.heap (4 KiB pages).
    fn heap_curve(&mut self, e: &ExperimentResult, method: &str, figure: Cost) -> Option<Curve> {
        let mut pts = Vec::new();
        for m in e.metrics_named(&LIFECYCLE_NS).filter(|m| {
            m.label(METHOD) == Some(method) && thp_off(m.labels.get(THP)) && m.label(CALL).is_none()
        }) {
            let Some(heap) = m.label(HEAP_BYTES).and_then(|h| h.parse().ok()) else {
                continue;
            };
            if let Some(f) = self.check(e, m, NS, figure) {
                pts.push((heap, f.value));
            }
        }
        Curve::new(
            &e.name,
            LIFECYCLE_NS.name,
            &format!(
                "method={method} thp={}",
                crate::experiments::spawn::heap::base_thp(e)
            ),
            Unit::Ns,
            pts,
        )
    }

    /// A lifecycle curve from spawn.heap, else spawn.methods' single figure
    /// standing in (held flat, and saying so).
    fn creation(&mut self, method: &str, figure: Cost) -> Option<Curve> {
        let heap = self.exp(&heap::EXPERIMENT);
        if let Some(e) = heap {
            if let Some(c) = self.heap_curve(e, method, figure) {
                return Some(c);
            }
        }
        let absent = match heap {
            Some(_) => format!(
                "spawn.heap has no usable {method} figure in {}",
                self.source
            ),
            None => format!("spawn.heap is not in {}", self.source),
        };
        let e = self.exp(&methods::EXPERIMENT)?;
        let m = e
            .find(&LIFECYCLE_NS, &[(METHOD, method), (PLACEMENT, ONE_CPU)])
            .or_else(|| e.find(&LIFECYCLE_NS, &[(METHOD, method)]))?;
        let f = self.check(e, m, NS, figure)?;
        let mut c = Curve::new(&e.name, &m.name, &f.labels, m.unit, vec![(0, f.value)])?;
        c.stand_in = Some(format!(
            "{absent}: measured with the worker's own small memory image, not at your heap (run `tasklab run spawn.heap`)"
        ));
        Some(c)
    }

    /// VmPTE against the heap: the median of the readings at each heap.
    fn process_pte(&mut self) -> Option<Curve> {
        let e = self.exp(&heap::EXPERIMENT)?;
        let mut by_heap: std::collections::BTreeMap<u64, Vec<f64>> = Default::default();
        for r in e
            .readings
            .iter()
            .filter(|r| r.name == VM_PTE_KIB.name && thp_off(r.labels.get(THP)))
        {
            let Some(heap) = r.labels.get(HEAP_BYTES).and_then(|h| h.parse().ok()) else {
                continue;
            };
            match unusable(r.value, r.unit, KIB) {
                None => by_heap.entry(heap).or_default().push(r.value),
                Some(why) => self.rejected.push(Rejected {
                    figure: Cost::ProcessPte,
                    reason: format!(
                        "{} {} reading at heap {}: {why}",
                        e.name,
                        r.name,
                        fmt_size(heap)
                    ),
                }),
            }
        }
        let pts = by_heap
            .into_iter()
            .filter_map(|(h, v)| Some((h, median(&v)?)))
            .collect();
        Curve::new(
            &e.name,
            VM_PTE_KIB.name,
            &format!("thp={}", crate::experiments::spawn::heap::base_thp(e)),
            Unit::Kib,
            pts,
        )
    }

    /// A blocking hand-off's CPU cost: the same_cpu placement, where both
    /// tasks share one CPU and the time is the kernel's switch path, else a
    /// cross-CPU placement (an upper bound: it includes wake-up latency);
    /// with the cross-CPU figure beside it, as latency.
    fn switch(&mut self, methods: &[&str], figure: Cost) -> (Option<Figure>, Option<Figure>) {
        let Some(e) = self.exp(&pingpong::EXPERIMENT) else {
            return (None, None);
        };
        for place in std::iter::once(SAME_CPU).chain(CROSS_CPU) {
            for method in methods {
                let Some(m) = e.find(&SWITCH_NS, &[(METHOD, method), (PLACEMENT, place)]) else {
                    continue;
                };
                let Some(f) = self.check(e, m, NS, figure) else {
                    continue;
                };
                let f = f.with_how(if place == SAME_CPU {
                    "same_cpu: both tasks on one CPU, so the time is CPU work, the kernel's switch path".to_string()
                } else {
                    format!(
                        "no usable same_cpu figure in {}: {place}, which includes waking the other CPU, so an upper bound",
                        self.source
                    )
                });
                let cross = CROSS_CPU
                    .into_iter()
                    .filter(|p| *p != place)
                    .find_map(|p| {
                        let m = e.find(&SWITCH_NS, &[(METHOD, method), (PLACEMENT, p)])?;
                        self.check(e, m, NS, figure)
                    })
                    .filter(|_| place == SAME_CPU);
                return (Some(f), cross);
            }
        }
        (None, None)
    }

    /// A per-thread figure of memory.threads for the default stack (else the
    /// small one), at the largest thread count measured: the steadiest.
    fn per_thread(&mut self, metric: &MetricSpec, want: Expect, figure: Cost) -> Option<Figure> {
        let e = self.exp(&memory_threads::EXPERIMENT)?;
        for v in THREAD_VARIANTS {
            let mut ms: Vec<&Metric> = e
                .metrics_named(metric)
                .filter(|m| m.label(VARIANT) == Some(v))
                .collect();
            ms.sort_by_key(|m| std::cmp::Reverse(m.label_num(THREADS)));
            for m in ms {
                if let Some(f) = self.check(e, m, want, figure) {
                    return Some(f);
                }
            }
        }
        None
    }
}

/// Picks the figures advise needs out of a results file, checking each.
pub fn costs_from(r: &RunResults, source: &str) -> Costs {
    let cpus = if r.env.cpus_allowed.is_empty() {
        r.env.cpus_online
    } else {
        r.env.cpus_allowed.len()
    }
    .max(1);
    let mut p = Picker {
        r,
        source,
        rejected: Vec::new(),
    };
    let fork = p.creation(FORK, Cost::Fork);
    let thread = p.creation(PTHREAD_CREATE, Cost::Thread);
    let spawn = p.creation(POSIX_SPAWN, Cost::Spawn);
    let heap = p.exp(&heap::EXPERIMENT);
    let fork_exec = heap.and_then(|e| p.heap_curve(e, FORK_EXEC_STATIC, Cost::ForkExec));
    let vfork = heap.and_then(|e| {
        p.heap_curve(e, VFORK_EXEC_STATIC, Cost::Vfork)
            .map(Vfork::Exec)
            .or_else(|| p.heap_curve(e, VFORK, Cost::Vfork).map(Vfork::Alone))
    });
    let process_pte = p.process_pte();
    let (switch_threads, switch_threads_cross_cpu) =
        p.switch(&THREAD_SWITCHES, Cost::SwitchThreads);
    let (switch_processes, switch_processes_cross_cpu) =
        p.switch(&PROCESS_SWITCHES, Cost::SwitchProcesses);
    let switch_async = p.exp(&userspace::EXPERIMENT).and_then(|e| {
        USER_SWITCHES.iter().find_map(|v| {
            let m = e.find(&SWITCH_NS, &[(VARIANT, v)])?;
            p.check(e, m, NS, Cost::SwitchAsync)
        })
    });
    let thread_rss = p.per_thread(&RSS_PER_THREAD_KIB, KIB, Cost::ThreadRss);
    let kernel_stack = p.per_thread(&KERNEL_STACK_PER_THREAD_KIB, KIB, Cost::KernelStack);
    let thread_pte = p.per_thread(&PAGE_TABLES_PER_THREAD_BYTES, BYTES, Cost::ThreadPte);
    Costs {
        source: source.into(),
        cpus,
        fork,
        thread,
        spawn,
        fork_exec,
        vfork,
        process_pte,
        switch_threads,
        switch_processes,
        switch_threads_cross_cpu,
        switch_processes_cross_cpu,
        switch_async,
        thread_rss,
        kernel_stack,
        thread_pte,
        rejected: p.rejected,
    }
}

/// The heap as the system backs it: the `thp=system` series (`thp=off` in
/// files from before, which kept those heaps off huge pages), or a file
/// from before THP points.
fn thp_off(label: Option<&String>) -> bool {
    label.is_none_or(|t| t == "off" || t == "system")
}

#[cfg(test)]
#[path = "costs_tests.rs"]
mod tests;
