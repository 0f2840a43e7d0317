//! The five ways of running tasks advise compares. Each [`Model`] knows
//! what creating and switching one of its tasks costs, which measured
//! figures say so, and how much memory its tasks hold, and computes its own
//! [`Row`].

use super::costs::{Cost, Costs};
use super::figure::{Curve, Figure};
use super::workload::Workload;
use crate::experiments::memory::threads;
use crate::experiments::spawn::heap;
use crate::experiments::switch::{pingpong, userspace};
use crate::units::{fmt_short_size, fmt_size, group_digits};
use serde::{Serialize, Serializer};

/// A concurrency model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    /// A forked process per task.
    Process,
    /// A thread per task.
    Thread,
    /// One pool thread per CPU, tasks handed to them.
    Pool,
    /// posix_spawn of a program per task.
    Spawn,
    /// Tasks in user space on a runtime's few threads.
    Async,
}

impl Serialize for Model {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.key())
    }
}

/// What a figure is and where to measure it, for "not measured" messages.
struct Source {
    figure: Cost,
    what: &'static str,
    experiment: &'static str,
}

const THREAD_SWITCH: Source = Source {
    figure: Cost::SwitchThreads,
    what: "the switch between threads",
    experiment: pingpong::EXPERIMENT.name,
};
const PROCESS_SWITCH: Source = Source {
    figure: Cost::SwitchProcesses,
    what: "the switch between processes",
    experiment: pingpong::EXPERIMENT.name,
};
const USER_SWITCH: Source = Source {
    figure: Cost::SwitchAsync,
    what: "the user-space switch",
    experiment: userspace::EXPERIMENT.name,
};
const KERNEL_STACK: Source = Source {
    figure: Cost::KernelStack,
    what: "the kernel stack per task",
    experiment: threads::EXPERIMENT.name,
};
/// The memory.threads figures a thread's memory is made of.
const THREAD_MEM: &[Cost] = &[Cost::ThreadRss, Cost::KernelStack, Cost::ThreadPte];

impl Model {
    /// Every model, in the order the table lists them.
    pub const ALL: [Model; 5] = [
        Model::Process,
        Model::Thread,
        Model::Pool,
        Model::Spawn,
        Model::Async,
    ];

    /// Its key in `--json` output.
    pub fn key(self) -> &'static str {
        match self {
            Model::Process => "process",
            Model::Thread => "thread",
            Model::Pool => "pool",
            Model::Spawn => "spawn",
            Model::Async => "async",
        }
    }

    /// Its name in the table and the recommendation.
    pub fn name(self) -> &'static str {
        match self {
            Model::Process => "process per task (fork)",
            Model::Thread => "thread per task",
            Model::Pool => "thread pool",
            Model::Spawn => "posix_spawn per program",
            Model::Async => "async tasks",
        }
    }

    /// What "creating" a task means in this model.
    pub fn create_what(self) -> &'static str {
        match self {
            Model::Process => "fork + exit + reap",
            Model::Thread => "pthread_create + exit + join",
            Model::Pool => "a hand-off to a pool thread",
            Model::Spawn => "posix_spawn of a tiny program + reap",
            Model::Async => "spawning a task",
        }
    }

    /// posix_spawn starts other programs: a different job, so it is
    /// compared apart from the others.
    pub fn starts_programs(self) -> bool {
        self == Model::Spawn
    }

    /// Whether a task may block in the kernel without stalling the others:
    /// each runs on a kernel task of its own (or a pool thread's).
    pub fn may_block(self) -> bool {
        self != Model::Async
    }

    /// The creation figure measured against the parent's heap.
    fn creation_curve(self, c: &Costs) -> Option<&Curve> {
        match self {
            Model::Process => c.fork.as_ref(),
            Model::Thread => c.thread.as_ref(),
            Model::Spawn => c.spawn.as_ref(),
            Model::Pool | Model::Async => None,
        }
    }

    /// Creating one task, at the workload's heap.
    fn create(self, w: &Workload, c: &Costs) -> Option<Figure> {
        match self {
            Model::Process | Model::Thread | Model::Spawn => {
                self.creation_curve(c).map(|k| k.at(w.heap_bytes))
            }
            Model::Pool => c.switch_threads.clone().map(|f| {
                let how = format!(
                    "one wake of an idle pool thread per task: the CPU work of one hand-off (a wake on another CPU takes longer: response time, only part of it CPU time){}",
                    f.how.as_deref().map(|h| format!("; {h}")).unwrap_or_default()
                );
                f.with_how(how)
            }),
            Model::Async => c.switch_async.clone().map(|mut f| {
                f.stand_in = true;
                f.with_how("spawning a task is not measured: one user-space switch stands in")
            }),
        }
    }

    /// Where the creation figure comes from.
    fn create_source(self) -> Source {
        let heap = |figure, what| Source {
            figure,
            what,
            experiment: heap::EXPERIMENT.name,
        };
        match self {
            Model::Process => heap(Cost::Fork, "fork creation"),
            Model::Thread => heap(Cost::Thread, "pthread_create creation"),
            Model::Spawn => heap(Cost::Spawn, "posix_spawn creation"),
            Model::Pool => Source {
                what: "the hand-off (futex_threads switch)",
                ..THREAD_SWITCH
            },
            Model::Async => USER_SWITCH,
        }
    }

    /// Where the switch figure comes from.
    fn switch_source(self) -> Source {
        match self {
            Model::Process | Model::Spawn => PROCESS_SWITCH,
            Model::Thread | Model::Pool => THREAD_SWITCH,
            Model::Async => USER_SWITCH,
        }
    }

    /// One switch between two of its tasks (its CPU cost), and a hand-off
    /// that wakes another CPU (latency, shown, not costed).
    fn switch(self, c: &Costs) -> (Option<Figure>, Option<Figure>) {
        match self {
            Model::Process | Model::Spawn => (
                c.switch_processes.clone(),
                c.switch_processes_cross_cpu.clone(),
            ),
            Model::Thread | Model::Pool => {
                (c.switch_threads.clone(), c.switch_threads_cross_cpu.clone())
            }
            Model::Async => (c.switch_async.clone(), None),
        }
    }

    /// The memory its tasks hold; what is not measured goes to `miss`.
    fn memory(
        self,
        w: &Workload,
        c: &Costs,
        miss: &mut Vec<String>,
        notes: &mut Vec<String>,
    ) -> Memory {
        let n = w.concurrent as f64;
        let tasks = group_digits(w.concurrent as i64);
        let not_measured = |miss: &mut Vec<String>, s: &Source| {
            miss.push(c.missing(&[s.figure], s.what, s.experiment))
        };
        match self {
            Model::Thread => match ThreadMemory::of(w, c) {
                Some(t) => Memory::measured(
                    Some(n * t.bytes),
                    format!("{tasks} tasks x ({})", t.basis),
                    t.from,
                ),
                None => {
                    miss.push(c.missing(THREAD_MEM, "thread memory", threads::EXPERIMENT.name));
                    Memory::none()
                }
            },
            Model::Process => {
                // A forked child has no thread stack of its own to map: it
                // runs on its copy of the parent's, its own kernel stack, and
                // its own copy of the parent's page tables.
                let pte = c.process_pte.as_ref().map(|k| k.at(w.heap_bytes));
                if let Some(note) = c
                    .process_pte
                    .as_ref()
                    .and_then(|k| k.far_note("the page tables", w.heap_bytes))
                {
                    notes.push(note);
                }
                match (&c.kernel_stack, pte) {
                    (Some(ks), Some(pte)) => {
                        let stack = w.stack_bytes as f64;
                        let kernel = ks.value * 1024.0;
                        let own = pte.value * 1024.0;
                        Memory {
                            lower_bound: true,
                            ..Memory::measured(
                                Some(n * (stack + kernel + own)),
                                format!(
                                    "{tasks} tasks x (your stack {}, copied as the child writes it + kernel stack {} + its own copy of the parent's page tables {}); a floor: the other pages parent or child write after the fork are copied too (copy-on-write), not counted",
                                    fmt_short_size(stack),
                                    fmt_short_size(kernel),
                                    fmt_short_size(own)
                                ),
                                vec![ks.clone(), pte],
                            )
                        }
                    }
                    (k, p) => {
                        if k.is_none() {
                            not_measured(miss, &KERNEL_STACK);
                        }
                        if p.is_none() {
                            not_measured(
                                miss,
                                &Source {
                                    figure: Cost::ProcessPte,
                                    what: "page tables at your heap (vm_pte_kib)",
                                    experiment: heap::EXPERIMENT.name,
                                },
                            );
                        }
                        Memory::none()
                    }
                }
            }
            Model::Pool => match ThreadMemory::of(w, c) {
                Some(t) => {
                    let state = n * w.stack_bytes as f64;
                    Memory::measured(
                        Some(c.cpus as f64 * t.bytes + state),
                        format!(
                            "{} pool threads x ({}) + {tasks} tasks x {} of state",
                            c.cpus,
                            t.basis,
                            fmt_size(w.stack_bytes)
                        ),
                        t.from,
                    )
                }
                None => {
                    miss.push(c.missing(THREAD_MEM, "thread memory", threads::EXPERIMENT.name));
                    Memory::none()
                }
            },
            Model::Spawn => match &c.kernel_stack {
                Some(ks) => Memory {
                    lower_bound: true,
                    ..Memory::measured(
                        Some(n * ks.value * 1024.0),
                        format!(
                            "{tasks} tasks x kernel stack {} + the program's own image (code, data, stack, page tables): not measured, so this is a floor",
                            fmt_short_size(ks.value * 1024.0)
                        ),
                        vec![ks.clone()],
                    )
                },
                None => {
                    not_measured(miss, &KERNEL_STACK);
                    Memory::none()
                }
            },
            Model::Async => Memory {
                stand_in: true,
                ..Memory::measured(
                    Some(n * w.stack_bytes as f64),
                    format!(
                        "{tasks} tasks x {} of state: your --stack, by construction, not a measured figure; the runtime's own threads and allocator not counted",
                        fmt_size(w.stack_bytes)
                    ),
                    Vec::new(),
                )
            },
        }
    }

    /// This model's estimate for `w` from `c`.
    pub fn row(self, w: &Workload, c: &Costs) -> Row {
        let mut miss = Vec::new();
        let mut notes = Vec::new();
        let create = self.create(w, c);
        if let Some(note) = self
            .creation_curve(c)
            .and_then(|k| k.far_note(self.create_what(), w.heap_bytes))
        {
            notes.push(note);
        }
        if create.is_none() {
            let s = self.create_source();
            miss.push(c.missing(&[s.figure], s.what, s.experiment));
        }
        let (switch, switch_cross_cpu) = self.switch(c);
        if switch.is_none() && w.switches_per_s > 0.0 {
            let s = self.switch_source();
            // Said once when the creation figure is the same one.
            if !miss.iter().any(|x| x.contains(s.what)) {
                miss.push(c.missing(&[s.figure], s.what, s.experiment));
            }
        }
        let cpu_share = match (&create, &switch) {
            (Some(cr), Some(sw)) => {
                Some((w.rate_per_s * cr.value + w.switches_per_s * sw.value) / 1e9)
            }
            (Some(cr), None) if w.switches_per_s == 0.0 => Some(w.rate_per_s * cr.value / 1e9),
            _ => None,
        };
        let switched =
            |f: fn(&Figure) -> bool| w.switches_per_s > 0.0 && switch.as_ref().is_some_and(f);
        let cpu_stand_in = create.as_ref().is_some_and(|f| f.stand_in) || switched(|f| f.stand_in);
        let cpu_lower_bound = create.as_ref().is_some_and(|f| f.floor) || switched(|f| f.floor);
        let keeps_up = cpu_share.map(|s| s <= c.cpus as f64);
        if keeps_up == Some(false) {
            notes.push(format!(
                "cannot keep up: the overhead alone needs {:.1} CPUs and this machine has {}",
                cpu_share.unwrap_or(0.0),
                c.cpus
            ));
        }
        let memory = self.memory(w, c, &mut miss, &mut notes);
        if self == Model::Pool && w.concurrent > c.cpus as u64 {
            notes.push(format!(
                "{} pool threads run {} tasks at a time; the other {} wait as state, so a task must not block its pool thread for its whole lifetime",
                c.cpus,
                c.cpus,
                group_digits(w.concurrent as i64 - c.cpus as i64)
            ));
        }
        Row {
            model: self,
            name: self.name(),
            create_what: self.create_what(),
            create_ns: create.as_ref().map(|f| f.value),
            create_from: create,
            switch_ns: switch.as_ref().map(|f| f.value),
            switch_from: switch,
            switch_cross_cpu,
            cpu_share,
            cpu_percent: cpu_share.map(|x| x * 100.0),
            cpu_stand_in,
            cpu_lower_bound,
            keeps_up,
            memory_per_task_bytes: memory.bytes.map(|b| b / w.concurrent as f64),
            memory_bytes: memory.bytes,
            memory_basis: memory.basis,
            memory_from: memory.from,
            memory_lower_bound: memory.lower_bound,
            memory_stand_in: memory.stand_in,
            missing: miss,
            notes,
        }
    }
}

/// What a model's tasks hold in memory.
struct Memory {
    bytes: Option<f64>,
    /// The formula with its numbers.
    basis: String,
    from: Vec<Figure>,
    lower_bound: bool,
    stand_in: bool,
}

impl Memory {
    fn measured(bytes: Option<f64>, basis: String, from: Vec<Figure>) -> Memory {
        Memory {
            bytes,
            basis,
            from,
            lower_bound: false,
            stand_in: false,
        }
    }

    fn none() -> Memory {
        Memory::measured(None, String::new(), Vec::new())
    }
}

/// One blocked thread's memory, from memory.threads.
struct ThreadMemory {
    bytes: f64,
    basis: String,
    from: Vec<Figure>,
}

impl ThreadMemory {
    fn of(w: &Workload, c: &Costs) -> Option<ThreadMemory> {
        let (rss, ks, pt) = (
            c.thread_rss.as_ref()?,
            c.kernel_stack.as_ref()?,
            c.thread_pte.as_ref()?,
        );
        let stack = w.stack_bytes as f64;
        let resident = rss.value * 1024.0;
        let kernel = ks.value * 1024.0;
        Some(ThreadMemory {
            bytes: stack.max(resident) + kernel + pt.value,
            basis: format!(
                "max(your stack {}, a blocked thread's resident {}) + kernel stack {} + page tables {}",
                fmt_short_size(stack),
                fmt_short_size(resident),
                fmt_short_size(kernel),
                fmt_short_size(pt.value)
            ),
            from: vec![rss.clone(), ks.clone(), pt.clone()],
        })
    }
}

/// One concurrency model's estimate.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub model: Model,
    pub name: &'static str,
    /// What "creating" a task means in this model.
    pub create_what: &'static str,
    pub create_ns: Option<f64>,
    pub create_from: Option<Figure>,
    pub switch_ns: Option<f64>,
    pub switch_from: Option<Figure>,
    /// A hand-off that wakes another CPU: latency, shown, not costed.
    pub switch_cross_cpu: Option<Figure>,
    /// (rate x create + switches x switch) / 1e9: 0.1 is 10% of one CPU.
    pub cpu_share: Option<f64>,
    /// The same as a percentage of one CPU: 10.0 is 10%.
    pub cpu_percent: Option<f64>,
    /// True when the CPU figure rests on a stand-in for an unmeasured one.
    pub cpu_stand_in: bool,
    /// True when the CPU figure rests on a floor (the real one is higher).
    pub cpu_lower_bound: bool,
    /// False when the overhead alone needs more CPUs than the machine has.
    pub keeps_up: Option<bool>,
    pub memory_bytes: Option<f64>,
    pub memory_per_task_bytes: Option<f64>,
    /// The formula with its numbers.
    pub memory_basis: String,
    pub memory_from: Vec<Figure>,
    /// True when part of the memory is not measured (the figure is a floor).
    pub memory_lower_bound: bool,
    /// True when the memory is no measured figure at all, only the workload's
    /// own (tasks x --stack).
    pub memory_stand_in: bool,
    /// "X not measured in FILE (run `tasklab run E`)".
    pub missing: Vec<String>,
    pub notes: Vec<String>,
}
