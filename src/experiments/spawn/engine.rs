//! The launcher: creates one task by any method of the table and times it
//! three ways, as Sysel's code does (seed 004): to the creator's return, to
//! the child's first instruction (the child stamps CLOCK_MONOTONIC into a
//! shared page), and to the reap or join. Bendersky's launch benchmark
//! (seed 000) is the same loop, averaged.

use super::table::{Kind, Method, Program, Start};
use crate::experiments::prelude::*;
use crate::measure::scratch;
use crate::metric;
use crate::sys::{self, CloneStack, ExecPlan, SharedPage, ThreadArea};
use std::io;
use std::path::Path;
use std::sync::atomic::Ordering;

/// One launch, timed three ways (ns), and where parent and child ran.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct Launch {
    pub parent_return_ns: f64,
    pub child_start_ns: f64,
    pub lifecycle_ns: f64,
    pub parent_cpu: i32,
    pub child_cpu: i32,
}

enum Handle<'a> {
    Child(sys::Child),
    Cloned(sys::Cloned<'a>),
    Pthread(sys::Pthread),
    /// A std thread cannot be handed the shared page: it returns its stamp
    /// and CPU, so that no state outlives its launch or is shared with
    /// another launcher of the same process (a global stamp, reset by a
    /// launch in another thread, read as "no start stamp").
    Std(std::thread::JoinHandle<(u64, i32)>),
}

impl Handle<'_> {
    /// Reaps or joins; a std thread's stamp and CPU where it is one.
    fn wait(self) -> io::Result<Option<(u64, i32)>> {
        match self {
            Handle::Child(c) => c.wait().map(|_| None),
            Handle::Cloned(c) => c.wait().map(|_| None),
            Handle::Pthread(p) => p.join().map(|_| None),
            Handle::Std(h) => h
                .join()
                .map(Some)
                .map_err(|_| io::Error::other("thread panicked")),
        }
    }
}

/// What launching needs, prepared once per process so the timed window holds
/// only the creation.
pub struct Launcher {
    page: SharedPage,
    stack: CloneStack,
    tls: ThreadArea,
    exec_static: Result<ExecPlan, String>,
    exec_dynamic: Result<ExecPlan, String>,
    exec_sh: Result<ExecPlan, String>,
    timer_overhead_ns: f64,
}

impl Launcher {
    /// Prepares the exec methods' programs from `scratch`, the run's private
    /// folder. They are executed by path, as the seeds' programs do
    /// (fork + execve of a path is what they time), so the folder and each
    /// program are checked here, in the process that executes them, to be
    /// ones no other user can change or swap ([`scratch::helper`]); a
    /// program that fails the check is never run, and its methods are
    /// skipped with the reason.
    pub fn new(scratch: Option<&Path>, timer_overhead_ns: f64) -> io::Result<Launcher> {
        let plan = |name: &str, sh: bool| -> Result<ExecPlan, String> {
            let missing = || {
                match (name, sh) {
                    (_, true) => "no /bin/sh or no tiny program",
                    (scratch::STATIC_NAME, _) => "the tiny static program was not built (no static libc when tasklab was compiled?)",
                    _ => "the tiny dynamic program was not built",
                }
                .to_string()
            };
            let Some(scratch) = scratch else {
                return Err(missing());
            };
            let p = match scratch::helper(scratch, name) {
                Ok(p) => p,
                Err(scratch::HelperRefused::NotBuilt(_)) => return Err(missing()),
                Err(why) => return Err(why.to_string()),
            };
            let p = p.to_str().ok_or_else(missing)?.to_string();
            let made = if sh {
                if !Path::new("/bin/sh").exists() {
                    return Err(missing());
                }
                // The path is the shell's $0, never parsed as shell text (a
                // space or a `;` in TMPDIR stays part of the name). The shell
                // still runs one simple command, as it does for system().
                ExecPlan::new("/bin/sh", &["/bin/sh", "-c", "\"$0\"", &p])
            } else {
                ExecPlan::new(&p, &[&p])
            };
            made.map_err(|e| format!("cannot prepare {name}: {e}"))
        };
        Ok(Launcher {
            page: SharedPage::new()?,
            stack: CloneStack::new(64 << 10)?,
            tls: ThreadArea::new()?,
            exec_static: plan(scratch::STATIC_NAME, false),
            exec_dynamic: plan(scratch::DYNAMIC_NAME, false),
            exec_sh: plan(scratch::STATIC_NAME, true),
            timer_overhead_ns,
        })
    }

    /// Why `method` cannot run here, if it cannot.
    pub fn unsupported(&self, method: &Method) -> Option<String> {
        let why = match method.kind {
            Kind::Exec(_, program) => match self.plan(program) {
                Err(why) => why.clone(),
                Ok(_) => return None,
            },
            Kind::Clone3Fork if !sys::has_clone3() => {
                "this kernel has no clone3 (before Linux 5.3)".into()
            }
            Kind::Clone3Thread if !sys::has_clone3_thread() => {
                "needs clone3 (Linux 5.3+) on x86-64".into()
            }
            _ => return None,
        };
        Some(format!("{} skipped: {why}", method.name()))
    }

    fn plan(&self, program: Program) -> &Result<ExecPlan, String> {
        match program {
            Program::Static => &self.exec_static,
            Program::Dynamic => &self.exec_dynamic,
            Program::ThroughSh => &self.exec_sh,
        }
    }

    fn ready_plan(&self, program: Program) -> &ExecPlan {
        self.plan(program)
            .as_ref()
            .expect("unsupported() was checked")
    }

    /// Creates one task with `method`, waits for it, and times it.
    pub fn launch(&self, method: &Method) -> io::Result<Launch> {
        self.launch_paused(method, None).map(|(l, _)| l)
    }

    /// As [`Launcher::launch`], but sleeps `pause` between the creating
    /// call's return and the reap or join, as Bendersky's launch benchmark
    /// does (seed 000); also returns how long the reap or join itself took.
    /// With a pause, `lifecycle_ns` includes it.
    pub fn launch_paused(
        &self,
        method: &Method,
        pause: Option<std::time::Duration>,
    ) -> io::Result<(Launch, f64)> {
        let page = &self.page;
        page.u64(0).store(0, Ordering::Relaxed);
        page.i32(0).store(-1, Ordering::Relaxed);
        let t0_ns = sys::monotonic_ns();
        let handle = match method.kind {
            Kind::Fork => Handle::Child(sys::fork_stamp(page)?),
            Kind::Vfork => Handle::Child(sys::vfork_stamp(page)?),
            Kind::Clone3Fork => Handle::Child(sys::clone3_stamp(page)?),
            Kind::Clone3Thread => {
                Handle::Cloned(sys::clone3_thread_stamp(&self.stack, &self.tls, page)?)
            }
            Kind::Clone(flags) => Handle::Cloned(sys::clone_stamp(flags, &self.stack, page)?),
            Kind::Pthread => Handle::Pthread(sys::pthread_stamp(page)?),
            Kind::StdThread => Handle::Std(std::thread::spawn(|| {
                (sys::monotonic_ns(), sys::current_cpu())
            })),
            Kind::Exec(start, program) => {
                let plan = self.ready_plan(program);
                Handle::Child(match start {
                    Start::PosixSpawn => plan.posix_spawn()?,
                    Start::VforkExec => plan.vfork_exec()?,
                    Start::ForkExec => plan.fork_exec()?,
                })
            }
        };
        let t1_ns = sys::monotonic_ns();
        let parent_cpu = sys::current_cpu();
        let mut wait_from_ns = t1_ns;
        if let Some(p) = pause {
            std::thread::sleep(p);
            wait_from_ns = sys::monotonic_ns();
        }
        let std_stamp = handle.wait()?;
        let t2_ns = sys::monotonic_ns();
        let (child_ns, child_cpu) = match (method.kind, std_stamp) {
            (Kind::Exec(_, program), _) => (self.ready_plan(program).read_stamp()?, -1),
            (_, Some(stamp)) => stamp,
            _ => (
                page.u64(0).load(Ordering::Acquire),
                page.i32(0).load(Ordering::Acquire),
            ),
        };
        if child_ns < t0_ns {
            return Err(io::Error::other(format!(
                "{}: the child left no start stamp",
                method.name()
            )));
        }
        // Each interval ends with one clock read that is not the work itself.
        // Never clamped: a net time below zero would say the overhead estimate is off.
        let net = |a: u64, b: u64| (b - a) as f64 - self.timer_overhead_ns;
        Ok((
            Launch {
                parent_return_ns: net(t0_ns, t1_ns),
                child_start_ns: net(t0_ns, child_ns),
                lifecycle_ns: net(t0_ns, t2_ns),
                parent_cpu,
                child_cpu,
            },
            net(wait_from_ns, t2_ns),
        ))
    }
}

/// The creating call's return to the parent: what the caller waits for.
pub const PARENT_RETURN_NS: MetricSpec = MetricSpec::new(
    "parent_return_ns",
    Unit::Ns,
    Better::Lower,
    metric::Kind::Creation,
    "from just before the creating call to its return in the parent",
);

/// The child's first instruction, from the child's own clock stamp (spawn's
/// launches and parallel.forktime's forks alike).
pub const CHILD_START_NS: MetricSpec = MetricSpec::new(
    "child_start_ns",
    Unit::Ns,
    Better::Lower,
    metric::Kind::Creation,
    "from just before the creating call to the child's first instruction (its CLOCK_MONOTONIC stamp)",
);

/// A whole launch: create, run to exit, reap or join.
pub const LIFECYCLE_NS: MetricSpec = MetricSpec::new(
    "lifecycle_ns",
    Unit::Ns,
    Better::Lower,
    metric::Kind::Creation,
    "one whole launch: create the task, let it exit, and reap or join it",
);

/// Where the children started: a condition of the measurement, not a cost.
pub const CHILD_ON_PARENT_CPU: MetricSpec = MetricSpec::new(
    "child_on_parent_cpu",
    Unit::Ratio,
    Better::Neither,
    metric::Kind::Other,
    "share of launches whose child started on its parent's CPU, where both CPUs are known",
);

/// The reap or join alone, once the child has done its work: spawn.launch
/// times it after the seed's pause, parallel.forktime after a child's report.
pub const REAP_NS: MetricSpec = MetricSpec::new(
    "reap_ns",
    Unit::Ns,
    Better::Lower,
    metric::Kind::Creation,
    "the reap (waitpid) or join alone, of a child that has done its work (spawn.launch: after the seed's 500 µs pause): the kernel tears down what it held",
);

/// Pushes the three series of `launches` with `base` labels.
pub fn push_launches(
    out: &mut WorkerOutput,
    base: &Labels,
    launches: &[Launch],
    detail_timings: bool,
) {
    let col = |f: fn(&Launch) -> f64| launches.iter().map(f).collect::<Vec<_>>();
    let put = |out: &mut WorkerOutput, spec: &MetricSpec, v: Vec<f64>, detail: bool| {
        if detail {
            out.push_detail(spec, base.clone(), v)
        } else {
            out.push(spec, base.clone(), v)
        }
    };
    put(out, &LIFECYCLE_NS, col(|l| l.lifecycle_ns), false);
    put(
        out,
        &PARENT_RETURN_NS,
        col(|l| l.parent_return_ns),
        detail_timings,
    );
    put(
        out,
        &CHILD_START_NS,
        col(|l| l.child_start_ns),
        detail_timings,
    );
}

/// How often the child started on its parent's CPU (the parent's CPU when
/// the creating call returned), where both are known.
pub fn push_placement_share(out: &mut WorkerOutput, base: &Labels, launches: &[Launch]) {
    let known: Vec<&Launch> = launches
        .iter()
        .filter(|l| l.child_cpu >= 0 && l.parent_cpu >= 0)
        .collect();
    if !known.is_empty() {
        let same = known.iter().filter(|l| l.child_cpu == l.parent_cpu).count();
        out.reading(
            &CHILD_ON_PARENT_CPU,
            base.clone(),
            same as f64 / known.len() as f64,
        );
    }
}

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;
