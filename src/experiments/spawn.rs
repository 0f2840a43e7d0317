//! Creation: what it costs to start a task, every way Linux offers.
//!
//! Reproduces Bendersky's launch benchmark (`000_…`: fork 35 µs vs thread
//! 5 µs at a 2 MB heap, fork growing with the heap, averaged over 10,000
//! launches) and Sysel's single calls (`004_…`: fork 34–94 µs to the parent,
//! 60–170 µs to the child; pthread_create 49–143 / 94–260 µs; 4 GB fork
//! ≈ 20 ms; fork+exec ≈ 700 µs). Each launch is timed three ways, as Sysel's
//! code does: to the creator's return, to the child's first instruction
//! (the child stamps CLOCK_MONOTONIC into a shared page), and to the reap or
//! join. `spawn.cold` times the first creation of a fresh process, which is
//! what Sysel measured, and shows why the two seeds disagree.

use super::prelude::*;
use crate::measure::sampler::{events, Budget};
use crate::measure::{probe, procfs, scratch};
use crate::sys::{self, CloneKind, CloneStack, ExecPlan, SharedPage};
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};

/// Every creation method, with what it is.
pub const METHODS: &[Choice] = &[
    Choice::new("fork", "fork(); the child _exits at once"),
    Choice::new("vfork", "vfork(); the parent sleeps until the child exits"),
    Choice::new(
        "clone_vfork",
        "clone(CLONE_VM|CLONE_VFORK|SIGCHLD), what posix_spawn does inside",
    ),
    Choice::new("posix_spawn", "posix_spawn() of a tiny static program"),
    Choice::new(
        "fork_exec_static",
        "fork() + execve() of a tiny static program",
    ),
    Choice::new(
        "fork_exec_dynamic",
        "fork() + execve() of a tiny dynamically linked program",
    ),
    Choice::new(
        "vfork_exec_static",
        "vfork() + execve() of the tiny static program",
    ),
    Choice::new(
        "sh_c",
        "fork() + execve(\"/bin/sh -c prog\"): what system() costs",
    ),
    Choice::new("clone_process", "raw clone() with SIGCHLD only: a process"),
    Choice::new(
        "clone_vm",
        "raw clone(CLONE_VM|SIGCHLD): a process sharing memory",
    ),
    Choice::new(
        "clone_thread_flags",
        "raw clone() with pthread_create's flags (less CLONE_SETTLS)",
    ),
    Choice::new(
        "pthread_create",
        "pthread_create() + pthread_join(), default attributes",
    ),
    Choice::new("std_thread", "Rust std::thread::spawn() + join()"),
    Choice::new(
        "clone3",
        "clone3() with no flags: fork through the newer system call",
    ),
];

/// Methods measured again with the heap on transparent huge pages.
const THP_METHODS: &[&str] = &["fork", "pthread_create"];

/// One launch, timed three ways (ns), and where parent and child ran.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct Launch {
    pub parent_return_ns: f64,
    pub child_start_ns: f64,
    pub lifecycle_ns: f64,
    pub parent_cpu: i32,
    pub child_cpu: i32,
}

static STD_STAMP: AtomicU64 = AtomicU64::new(0);
static STD_CPU: AtomicI32 = AtomicI32::new(-1);

enum Handle<'a> {
    Child(sys::Child),
    Cloned(sys::Cloned<'a>),
    Pthread(sys::Pthread),
    Std(std::thread::JoinHandle<()>),
}

impl Handle<'_> {
    fn wait(self) -> io::Result<()> {
        match self {
            Handle::Child(c) => c.wait(),
            Handle::Cloned(c) => c.wait(),
            Handle::Pthread(p) => p.join(),
            Handle::Std(h) => h.join().map_err(|_| io::Error::other("thread panicked")),
        }
    }
}

/// What launching needs, prepared once per process so the timed window holds
/// only the creation.
pub struct Launcher {
    page: SharedPage,
    stack: CloneStack,
    exec_static: Option<ExecPlan>,
    exec_dynamic: Option<ExecPlan>,
    exec_sh: Option<ExecPlan>,
    timer_ns: f64,
}

impl Launcher {
    pub fn new(scratch: Option<&Path>, timer_overhead_ns: f64) -> io::Result<Launcher> {
        let plan = |name: &str, sh: bool| -> Option<ExecPlan> {
            let p = scratch::helper(scratch?, name).ok()?;
            let p = p.to_str()?.to_string();
            if sh {
                ExecPlan::new("/bin/sh", &["/bin/sh", "-c", &p]).ok()
            } else {
                ExecPlan::new(&p, &[&p]).ok()
            }
        };
        Ok(Launcher {
            page: SharedPage::new()?,
            stack: CloneStack::new(64 << 10)?,
            exec_static: plan(scratch::STATIC_NAME, false),
            exec_dynamic: plan(scratch::DYNAMIC_NAME, false),
            exec_sh: if Path::new("/bin/sh").exists() {
                plan(scratch::STATIC_NAME, true)
            } else {
                None
            },
            timer_ns: timer_overhead_ns,
        })
    }

    /// Why `method` cannot run here, if it cannot.
    pub fn unsupported(&self, method: &str) -> Option<String> {
        let missing = |what: &str| Some(format!("{method} skipped: {what}"));
        match method {
            "posix_spawn" | "fork_exec_static" | "vfork_exec_static" if self.exec_static.is_none() => {
                missing("the tiny static program was not built (no static libc when tasklab was compiled?)")
            }
            "fork_exec_dynamic" if self.exec_dynamic.is_none() => missing("the tiny dynamic program was not built"),
            "sh_c" if self.exec_sh.is_none() => missing("no /bin/sh or no tiny program"),
            "clone3" if !sys::has_clone3() => missing("this kernel has no clone3 (before Linux 5.3)"),
            _ => None,
        }
    }

    fn plan(&self, method: &str) -> &ExecPlan {
        let p = match method {
            "fork_exec_dynamic" => &self.exec_dynamic,
            "sh_c" => &self.exec_sh,
            _ => &self.exec_static,
        };
        p.as_ref().expect("unsupported() was checked")
    }

    /// Creates one task with `method`, waits for it, and times it.
    pub fn launch(&self, method: &str) -> io::Result<Launch> {
        let page = &self.page;
        page.u64(0).store(0, Ordering::Relaxed);
        page.i32(0).store(-1, Ordering::Relaxed);
        STD_STAMP.store(0, Ordering::Relaxed);
        let exec = matches!(
            method,
            "posix_spawn" | "fork_exec_static" | "fork_exec_dynamic" | "vfork_exec_static" | "sh_c"
        );
        let t0 = sys::monotonic_ns();
        let handle = match method {
            "fork" => Handle::Child(sys::fork_stamp(page)?),
            "vfork" => Handle::Child(sys::vfork_stamp(page)?),
            "clone3" => Handle::Child(sys::clone3_stamp(page)?),
            "clone_vfork" => {
                Handle::Cloned(sys::clone_stamp(CloneKind::VforkVm, &self.stack, page)?)
            }
            "clone_process" => {
                Handle::Cloned(sys::clone_stamp(CloneKind::Process, &self.stack, page)?)
            }
            "clone_vm" => Handle::Cloned(sys::clone_stamp(CloneKind::SharedVm, &self.stack, page)?),
            "clone_thread_flags" => {
                Handle::Cloned(sys::clone_stamp(CloneKind::ThreadFlags, &self.stack, page)?)
            }
            "pthread_create" => Handle::Pthread(sys::pthread_stamp(page)?),
            "std_thread" => Handle::Std(std::thread::spawn(|| {
                STD_STAMP.store(sys::monotonic_ns(), Ordering::Release);
                STD_CPU.store(sys::current_cpu(), Ordering::Release);
            })),
            "posix_spawn" => Handle::Child(self.plan(method).posix_spawn()?),
            "vfork_exec_static" => Handle::Child(self.plan(method).vfork_exec()?),
            "fork_exec_static" | "fork_exec_dynamic" | "sh_c" => {
                Handle::Child(self.plan(method).fork_exec()?)
            }
            other => return Err(io::Error::other(format!("unknown method {other}"))),
        };
        let t1 = sys::monotonic_ns();
        let parent_cpu = sys::current_cpu();
        handle.wait()?;
        let t2 = sys::monotonic_ns();
        let (child_t, child_cpu) = if exec {
            (self.plan(method).read_stamp()?, -1)
        } else if method == "std_thread" {
            (
                STD_STAMP.load(Ordering::Acquire),
                STD_CPU.load(Ordering::Acquire),
            )
        } else {
            (
                page.u64(0).load(Ordering::Acquire),
                page.i32(0).load(Ordering::Acquire),
            )
        };
        if child_t < t0 {
            return Err(io::Error::other(format!(
                "{method}: the child left no start stamp"
            )));
        }
        // Each interval ends with one clock read that is not the work itself.
        let net = |a: u64, b: u64| ((b - a) as f64 - self.timer_ns).max(0.0);
        Ok(Launch {
            parent_return_ns: net(t0, t1),
            child_start_ns: net(t0, child_t),
            lifecycle_ns: net(t0, t2),
            parent_cpu,
            child_cpu,
        })
    }
}

/// Pushes the three series of `launches` with `base` labels.
fn push_launches(out: &mut WorkerOutput, base: &Labels, launches: &[Launch], detail_timings: bool) {
    let col = |f: fn(&Launch) -> f64| launches.iter().map(f).collect::<Vec<_>>();
    let put = |out: &mut WorkerOutput, name: &str, v: Vec<f64>, detail: bool| {
        if detail {
            out.push_detail(name, Unit::Ns, base.clone(), v)
        } else {
            out.push(name, Unit::Ns, base.clone(), v)
        }
    };
    put(out, "lifecycle_ns", col(|l| l.lifecycle_ns), false);
    put(
        out,
        "parent_return_ns",
        col(|l| l.parent_return_ns),
        detail_timings,
    );
    put(
        out,
        "child_start_ns",
        col(|l| l.child_start_ns),
        detail_timings,
    );
    let known: Vec<&Launch> = launches
        .iter()
        .filter(|l| l.child_cpu >= 0 && l.parent_cpu >= 0)
        .collect();
    if !known.is_empty() {
        let same = known.iter().filter(|l| l.child_cpu == l.parent_cpu).count();
        out.reading(
            "child_on_parent_cpu",
            Unit::Ratio,
            base.clone(),
            same as f64 / known.len() as f64,
        );
    }
}

fn method_labels(method: &str) -> Labels {
    labels(&[("method", method)])
}

// ---------------------------------------------------------------- methods

pub static METHODS_EXP: Experiment = Experiment {
    name: "spawn.methods",
    summary: "every creation method, warm (steady state): to the parent's return, to the child's start, create+reap",
    reproduces: "Bendersky's launch benchmark and Sysel Table 1, steady state",
    params: &[ParamSpec {
        name: "methods",
        help: "creation methods to measure",
        kind: ParamKind::Names(METHODS),
        quick: "all",
        thorough: "all",
    }],
    seeds: &[
        SeedFigure {
            metric: "lifecycle_ns",
            labels: &[("method", "fork_exec_static")],
            lo: 700_000.0,
            hi: 700_000.0,
            unit: Unit::Ns,
            source: SEED_SYSEL,
            hardware: SYSEL_HW,
            method: "fork+exec of HelloWorld, single call (\"about 700 and more\")",
        },
        SeedFigure {
            metric: "lifecycle_ns",
            labels: &[("method", "pthread_create")],
            lo: 5_000.0,
            hi: 5_000.0,
            unit: Unit::Ns,
            source: SEED_CLONE,
            hardware: BENDERSKY_HW,
            method: "thread launch averaged over 10,000 launches (2 MB heap)",
        },
        SeedFigure {
            metric: "lifecycle_ns",
            labels: &[("method", "fork")],
            lo: 35_000.0,
            hi: 35_000.0,
            unit: Unit::Ns,
            source: SEED_CLONE,
            hardware: BENDERSKY_HW,
            method: "fork launch averaged over 10,000 launches (2 MB heap)",
        },
    ],
    hidden: false,
    supported: always_supported,
    points: single_point,
    measure: measure_methods,
    analyze: analyze_methods,
    ..Experiment::DEFAULT
};

fn measure_methods(job: &Job) -> anyhow::Result<WorkerOutput> {
    let l = Launcher::new(job.scratch.as_deref(), job.timer_overhead_ns)?;
    let mut out = WorkerOutput::default();
    let budget = Budget::from_job(job);
    for method in job.params.names("methods") {
        let method = method.as_str();
        if let Some(why) = l.unsupported(method) {
            out.notes.push(why);
            continue;
        }
        let launches = events(&budget, 5, || l.launch(method))
            .map_err(|e| anyhow::anyhow!("{method}: {e}"))?;
        push_launches(&mut out, &method_labels(method), &launches, false);
    }
    Ok(out)
}

fn analyze_methods(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    let findings = methods_findings(r);
    a.findings.extend(findings);
    a
}

fn methods_findings(r: &ExperimentResult) -> Vec<String> {
    let mut out = Vec::new();
    let med = |m: &str| {
        r.find("lifecycle_ns", &[("method", m)])
            .map(|x| x.summary.median)
    };
    if let (Some(f), Some(t)) = (med("fork"), med("pthread_create")) {
        out.push(format!(
            "warm, a fork+reap costs {} and a pthread create+join {}: fork is {:.1}x a thread (seed 000: 35 vs 5 µs, 7x)",
            fmt_ns(f),
            fmt_ns(t),
            f / t.max(1.0)
        ));
    }
    if let (Some(f), Some(v), Some(p)) = (
        med("fork_exec_static"),
        med("vfork_exec_static"),
        med("posix_spawn"),
    ) {
        out.push(format!(
            "starting a program: fork+exec {}, vfork+exec {}, posix_spawn {}",
            fmt_ns(f),
            fmt_ns(v),
            fmt_ns(p)
        ));
    }
    if let (Some(s), Some(d), Some(sh)) = (
        med("fork_exec_static"),
        med("fork_exec_dynamic"),
        med("sh_c"),
    ) {
        out.push(format!(
            "the exec'd program's own start-up is part of the bill: static {}, dynamically linked {} (+{} for the loader), through /bin/sh -c {} (what system() costs)",
            fmt_ns(s),
            fmt_ns(d),
            fmt_ns((d - s).max(0.0)),
            fmt_ns(sh)
        ));
    }
    if let (Some(c), Some(f)) = (med("clone_thread_flags"), med("pthread_create")) {
        out.push(format!(
            "raw clone with pthread's flags costs {}; pthread_create adds {} of library work (stack cache, TLS, attributes)",
            fmt_ns(c),
            fmt_ns((f - c).max(0.0))
        ));
    }
    out
}

// ------------------------------------------------------------------- cold

/// How many launches a cold probe makes after the first; the last half of
/// them is its steady state.
const COLD_FOLLOWERS: usize = 20;

#[derive(serde::Serialize, serde::Deserialize)]
pub struct ColdProbe {
    pub first: Launch,
    pub second: Launch,
    pub steady: Vec<Launch>,
}

/// What one cold probe is asked to launch.
#[derive(serde::Serialize, serde::Deserialize)]
struct ColdArg {
    method: String,
    timer_ns: f64,
    scratch: Option<std::path::PathBuf>,
}

/// The probe `spawn.cold` runs in a fresh tasklab process.
fn cold_probe(arg: &serde_json::Value) -> anyhow::Result<serde_json::Value> {
    let a: ColdArg = serde_json::from_value(arg.clone())?;
    let p = cold_launches(&a.method, a.scratch.as_deref(), a.timer_ns)?;
    Ok(serde_json::to_value(p)?)
}

/// Runs in a fresh tasklab process: one method, the first creation this
/// process has ever made, then the followers.
fn cold_launches(method: &str, scratch: Option<&Path>, timer_ns: f64) -> anyhow::Result<ColdProbe> {
    let l = Launcher::new(scratch, timer_ns)?;
    if let Some(why) = l.unsupported(method) {
        anyhow::bail!(why);
    }
    let first = l.launch(method)?;
    let second = l.launch(method)?;
    let mut rest = Vec::new();
    for _ in 0..COLD_FOLLOWERS {
        rest.push(l.launch(method)?);
    }
    let steady = rest.split_off(COLD_FOLLOWERS / 2);
    Ok(ColdProbe {
        first,
        second,
        steady,
    })
}

pub static COLD: Experiment = Experiment {
    name: "spawn.cold",
    probe: Some(cold_probe),
    summary: "the first creation in a fresh process vs the second and the steady state, per method",
    reproduces: "Sysel Table 1 (single cold calls) beside Bendersky's averages: why they disagree",
    params: &[
        ParamSpec {
            name: "probes",
            help: "fresh processes per method (one cold launch each)",
            kind: ParamKind::Count {
                min: 2,
                max: 10_000,
            },
            quick: "8",
            thorough: "60",
        },
        ParamSpec {
            name: "methods",
            help: "methods to probe",
            kind: ParamKind::Names(METHODS),
            quick: "fork,vfork,posix_spawn,fork_exec_static,pthread_create,std_thread,clone_thread_flags",
            thorough: "all",
        },
    ],
    seeds: &[
        SeedFigure {
            metric: "parent_return_ns",
            labels: &[("method", "fork"), ("call", "first")],
            lo: 34_000.0,
            hi: 94_000.0,
            unit: Unit::Ns,
            source: SEED_SYSEL,
            hardware: SYSEL_HW,
            method: "single call, 3.4 GHz (34 µs) to 1.3 GHz (94 µs)",
        },
        SeedFigure {
            metric: "child_start_ns",
            labels: &[("method", "fork"), ("call", "first")],
            lo: 60_000.0,
            hi: 170_000.0,
            unit: Unit::Ns,
            source: SEED_SYSEL,
            hardware: SYSEL_HW,
            method: "single call, to the child's first instruction",
        },
        SeedFigure {
            metric: "parent_return_ns",
            labels: &[("method", "pthread_create"), ("call", "first")],
            lo: 49_000.0,
            hi: 143_000.0,
            unit: Unit::Ns,
            source: SEED_SYSEL,
            hardware: SYSEL_HW,
            method: "single call, return to the parent",
        },
        SeedFigure {
            metric: "child_start_ns",
            labels: &[("method", "pthread_create"), ("call", "first")],
            lo: 94_000.0,
            hi: 260_000.0,
            unit: Unit::Ns,
            source: SEED_SYSEL,
            hardware: SYSEL_HW,
            method: "single call, to the new thread's first instruction",
        },
        SeedFigure {
            metric: "lifecycle_ns",
            labels: &[("method", "fork_exec_static"), ("call", "first")],
            lo: 700_000.0,
            hi: 700_000.0,
            unit: Unit::Ns,
            source: SEED_SYSEL,
            hardware: SYSEL_HW,
            method: "fork+exec of HelloWorld, single call (\"about 700 and more\")",
        },
    ],
    hidden: false,
    supported: always_supported,
    points: single_point,
    measure: measure_cold,
    analyze: analyze_cold,
    ..Experiment::DEFAULT
};

fn measure_cold(job: &Job) -> anyhow::Result<WorkerOutput> {
    let mut out = WorkerOutput::default();
    let methods = job.params.names("methods");
    let probes = job.params.int("probes") as usize;
    for method in methods.iter().map(String::as_str) {
        let mut firsts = Vec::new();
        let mut seconds = Vec::new();
        let mut steady = Vec::new();
        let mut skipped = None;
        for _ in 0..probes {
            let arg = ColdArg {
                method: method.to_string(),
                timer_ns: job.timer_overhead_ns,
                scratch: job.scratch.clone(),
            };
            let answer = match probe::run(COLD.name, serde_json::to_value(arg)?) {
                Ok(a) => a,
                Err(e) => {
                    let err = e.to_string();
                    if err.contains("skipped") {
                        skipped = Some(err);
                        break;
                    }
                    anyhow::bail!("cold probe for {method} failed: {err}");
                }
            };
            let p: ColdProbe = serde_json::from_value(answer)?;
            firsts.push(p.first);
            seconds.push(p.second);
            steady.extend(p.steady);
        }
        if let Some(why) = skipped {
            out.notes.push(why);
            continue;
        }
        for (call, v) in [
            ("first", &firsts),
            ("second", &seconds),
            ("steady", &steady),
        ] {
            push_launches(
                &mut out,
                &labels(&[("method", method), ("call", call)]),
                v,
                false,
            );
        }
    }
    Ok(out)
}

fn analyze_cold(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    let findings = cold_findings(r);
    a.findings.extend(findings);
    a
}

fn cold_findings(r: &ExperimentResult) -> Vec<String> {
    let mut out = Vec::new();
    let get = |metric: &str, m: &str, call: &str| {
        r.find(metric, &[("method", m), ("call", call)])
            .map(|x| x.summary.median)
    };
    for m in ["fork", "pthread_create"] {
        if let (Some(first), Some(steady)) = (
            get("child_start_ns", m, "first"),
            get("child_start_ns", m, "steady"),
        ) {
            out.push(format!(
                "{m}: the first call in a fresh process reaches the child in {}, the steady state in {} ({:.1}x)",
                fmt_ns(first),
                fmt_ns(steady),
                first / steady.max(1.0)
            ));
        }
    }
    let (Some(fork_first), Some(thr_first), Some(fork_steady), Some(thr_steady)) = (
        get("lifecycle_ns", "fork", "first"),
        get("lifecycle_ns", "pthread_create", "first"),
        get("lifecycle_ns", "fork", "steady"),
        get("lifecycle_ns", "pthread_create", "steady"),
    ) else {
        return out;
    };
    let cold = thr_first / fork_first.max(1.0);
    let warm = thr_steady / fork_steady.max(1.0);
    // The seeds' explanation holds only when this run shows the same
    // direction: a thread relatively dearer cold than warm.
    let why = if cold > warm * 1.1 {
        format!(
            "here too the thread is relatively dearer cold ({:.1}x its warm share): Sysel timed single cold calls, \
             where the first pthread_create must map and fault in a fresh stack (8 MiB reserved, guard page, TLS); \
             Bendersky averaged 10,000 warm launches, where glibc reuses the cached stack of the last joined thread, \
             so the thread looks several times cheaper than fork",
            cold / warm.max(1e-9)
        )
    } else {
        "here the thread's share is not larger cold than warm, so the seeds' gap is not a cold-versus-warm \
         effect on this machine; their CPUs, kernels and timing methods differ more"
            .to_string()
    };
    out.push(format!(
        "why the seeds disagree: cold, a thread costs {cold:.2}x a fork ({} vs {}); warm, {warm:.2}x ({} vs {}); {why}",
        fmt_ns(thr_first),
        fmt_ns(fork_first),
        fmt_ns(thr_steady),
        fmt_ns(fork_steady)
    ));
    out
}

// ------------------------------------------------------------------- heap

pub static HEAP: Experiment = Experiment {
    name: "spawn.heap",
    summary: "creation cost vs the parent's touched heap (0 to 4 GiB), VmPTE, cost per KiB of page tables, THP on vs off",
    reproduces: "Bendersky's \"launch time vs memory image\" figure; Sysel's 4 GB fork ≈ 20 ms",
    params: &[
        ParamSpec {
            name: "heap_sizes",
            help: "parent heap sizes, touched so they are resident",
            kind: ParamKind::SizeList { min: 0, max: 1 << 40 },
            quick: "0,2M,64M,512M,4G",
            thorough: "0,2M,16M,64M,256M,512M,1G,2G,4G",
        },
        ParamSpec {
            name: "methods",
            help: "methods swept over the heap",
            kind: ParamKind::Names(METHODS),
            quick: "fork,fork_exec_static,vfork,clone_vfork,posix_spawn,clone_vm,pthread_create",
            thorough: "fork,fork_exec_static,vfork,clone_vfork,posix_spawn,clone_vm,pthread_create,clone_thread_flags",
        },
        ParamSpec {
            name: "thp",
            help: "also measure fork and pthread_create with each heap of 64 MiB and more on transparent huge pages",
            kind: ParamKind::Bool,
            quick: "true",
            thorough: "true",
        },
    ],
    seeds: &[
        SeedFigure {
            metric: "lifecycle_ns",
            labels: &[("method", "fork"), ("heap", "2 MiB"), ("thp", "off")],
            lo: 35_000.0,
            hi: 35_000.0,
            unit: Unit::Ns,
            source: SEED_CLONE,
            hardware: BENDERSKY_HW,
            method: "fork launch averaged over 10,000 launches, 2 MB heap",
        },
        SeedFigure {
            metric: "lifecycle_ns",
            labels: &[("method", "pthread_create"), ("heap", "2 MiB"), ("thp", "off")],
            lo: 5_000.0,
            hi: 5_000.0,
            unit: Unit::Ns,
            source: SEED_CLONE,
            hardware: BENDERSKY_HW,
            method: "thread launch averaged over 10,000 launches, 2 MB heap",
        },
        SeedFigure {
            metric: "parent_return_ns",
            labels: &[("method", "fork"), ("heap", "4 GiB"), ("thp", "off")],
            lo: 20_000_000.0,
            hi: 20_000_000.0,
            unit: Unit::Ns,
            source: SEED_SYSEL,
            hardware: SYSEL_HW,
            method: "single fork after malloc(4 GB), return to the parent",
        },
        SeedFigure {
            metric: "child_start_ns",
            labels: &[("method", "pthread_create"), ("heap", "4 GiB"), ("thp", "off")],
            lo: 170_000.0,
            hi: 290_000.0,
            unit: Unit::Ns,
            source: SEED_SYSEL,
            hardware: SYSEL_HW,
            method: "single cold call with a 4 GB address space, to the thread's start",
        },
    ],
    hidden: false,
    supported: always_supported,
    points: heap_points,
    measure: measure_heap,
    analyze: analyze_heap,
    ..Experiment::DEFAULT
};

/// Memory a heap point must leave free, beyond the heap itself.
pub fn heap_margin(env: &Env) -> u64 {
    (1u64 << 30).max(env.mem_total_bytes / 10)
}

fn heap_points(ctx: &PlanCtx) -> Result<Points, String> {
    let mut pts = Points::default();
    let available = crate::env::mem_available_bytes().unwrap_or(ctx.env.mem_available_bytes);
    let limit = available.saturating_sub(heap_margin(ctx.env));
    let user_set = ctx.user_set.iter().any(|n| n == "heap_sizes");
    let mut sizes = Vec::new();
    for s in ctx.params.list("heap_sizes") {
        if s > limit {
            let msg = format!(
                "heap size {} does not fit: {} is available and {} must stay free (largest allowed here: {})",
                fmt_size(s),
                fmt_size(available),
                fmt_size(heap_margin(ctx.env)),
                fmt_size(limit)
            );
            if user_set {
                return Err(msg);
            }
            pts.notes.push(format!("{msg}; that point was dropped"));
            continue;
        }
        sizes.push(s);
    }
    let thp_possible = ctx.env.thp_enabled.as_deref() != Some("never");
    if ctx.params.flag("thp") && !thp_possible {
        pts.notes
            .push("transparent huge pages are disabled here (enabled=never): no THP points".into());
    }
    for &s in &sizes {
        pts.points
            .push(serde_json::json!({"heap": s, "thp": "off"}));
    }
    if ctx.params.flag("thp") && thp_possible {
        for &s in sizes.iter().filter(|&&s| s >= 64 << 20) {
            pts.points.push(serde_json::json!({"heap": s, "thp": "on"}));
        }
    }
    Ok(pts)
}

fn measure_heap(job: &Job) -> anyhow::Result<WorkerOutput> {
    let heap_bytes = job.point["heap"].as_u64().unwrap_or(0);
    let thp = if job.point["thp"] == "on" {
        sys::Thp::On
    } else {
        sys::Thp::Off
    };
    let thp_label = if thp == sys::Thp::On { "on" } else { "off" };
    let heap = sys::Heap::touched(heap_bytes as usize, thp)?;
    let l = Launcher::new(job.scratch.as_deref(), job.timer_overhead_ns)?;
    let heap_name = fmt_size(heap_bytes);
    let base = |m: &str| {
        labels(&[
            ("method", m),
            ("heap", &heap_name),
            ("heap_bytes", &heap_bytes.to_string()),
            ("thp", thp_label),
        ])
    };
    let mut out = WorkerOutput::default();
    let point_labels = labels(&[
        ("heap", &heap_name),
        ("heap_bytes", &heap_bytes.to_string()),
        ("thp", thp_label),
    ]);
    for (field, name) in [
        ("VmPTE", "vm_pte_kib"),
        ("VmRSS", "vm_rss_kib"),
        ("VmSize", "vm_size_kib"),
    ] {
        if let Some(v) = procfs::status_kib(field) {
            out.reading(name, Unit::Kib, point_labels.clone(), v as f64);
        }
    }
    if let Some(v) = procfs::smaps_rollup_kib("AnonHugePages") {
        out.reading("anon_huge_kib", Unit::Kib, point_labels.clone(), v as f64);
    }
    let chosen = job.params.names("methods");
    let methods: Vec<&str> = chosen
        .iter()
        .map(String::as_str)
        .filter(|m| thp == sys::Thp::Off || THP_METHODS.contains(m))
        .collect();
    let budget = Budget::from_job(job);
    for method in methods {
        if let Some(why) = l.unsupported(method) {
            out.notes.push(why);
            continue;
        }
        let launches = events(&budget, 2, || l.launch(method))
            .map_err(|e| anyhow::anyhow!("{method}: {e}"))?;
        push_launches(&mut out, &base(method), &launches, true);
    }
    drop(heap);
    Ok(out)
}

fn analyze_heap(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    // Fit lifecycle = a + b * VmPTE per method, over the THP-off points.
    let mut methods: Vec<String> = r
        .metrics_named("lifecycle_ns")
        .filter_map(|m| m.label("method").map(String::from))
        .collect();
    methods.sort();
    methods.dedup();
    let mut fits = Vec::new();
    for method in &methods {
        let mut xs = Vec::new();
        let mut ys = Vec::new();
        let mut by_heap: Vec<(u64, f64)> = Vec::new();
        for m in r
            .metrics_named("lifecycle_ns")
            .filter(|m| m.label("method") == Some(method) && m.label("thp") == Some("off"))
        {
            let heap = m.label("heap").unwrap_or("");
            if let Some(pte) = r.reading("vm_pte_kib", &[("heap", heap), ("thp", "off")]) {
                xs.push(pte);
                ys.push(m.summary.median);
            }
            let bytes = m
                .label("heap_bytes")
                .and_then(|b| b.parse().ok())
                .unwrap_or(0);
            by_heap.push((bytes, m.summary.median));
        }
        by_heap.sort_by_key(|x| x.0);
        if let Some(fit) = crate::stats::linear_fit(&xs, &ys) {
            fits.push(NamedFitInput {
                method: method.clone(),
                fit,
                by_heap,
            });
        }
    }
    for f in &fits {
        a.fits.push(crate::results::NamedFit {
            name: format!("{} lifecycle_ns vs VmPTE KiB", f.method),
            labels: labels(&[("method", &f.method), ("thp", "off")]),
            x_unit: "KiB of page tables".into(),
            y_unit: "ns".into(),
            fit: f.fit.clone(),
        });
    }
    let growth = |f: &NamedFitInput| {
        let (first, last) = (f.by_heap.first()?, f.by_heap.last()?);
        Some((
            first.1,
            last.1,
            last.1 / first.1.max(1.0),
            fmt_size(first.0),
            fmt_size(last.0),
        ))
    };
    for f in &fits {
        let Some((lo, hi, ratio, from, to)) = growth(f) else {
            continue;
        };
        let flat = ratio < 1.5;
        let text = if flat {
            format!(
                "{} stays flat as the heap grows: {} at {from}, {} at {to} ({ratio:.2}x)",
                f.method,
                fmt_ns(lo),
                fmt_ns(hi)
            )
        } else {
            format!(
                "{} grows with the heap: {} at {from}, {} at {to} ({ratio:.1}x); {:.0} ns per KiB of page tables (R² {:.3})",
                f.method,
                fmt_ns(lo),
                fmt_ns(hi),
                f.fit.slope,
                f.fit.r2
            )
        };
        a.findings.push(text);
    }
    // Huge pages: the largest heap measured both ways.
    let on: Vec<&crate::results::Metric> = r
        .metrics_named("lifecycle_ns")
        .filter(|m| m.label("method") == Some("fork") && m.label("thp") == Some("on"))
        .collect();
    if let Some(big) = on
        .iter()
        .max_by_key(|m| m.label("heap_bytes").and_then(|b| b.parse::<u64>().ok()))
    {
        let heap = big.label("heap").unwrap_or("");
        if let Some(off) = r.find(
            "lifecycle_ns",
            &[("method", "fork"), ("heap", heap), ("thp", "off")],
        ) {
            let huge = r
                .reading("anon_huge_kib", &[("heap", heap), ("thp", "on")])
                .unwrap_or(0.0);
            let text = format!(
                "on transparent huge pages ({} of the heap in 2 MiB pages) a fork with a {heap} heap costs {} instead of {} ({:.1}x cheaper): \
                 fork copies one entry per 2 MiB instead of 512. VmPTE barely changes, because the kernel keeps a spare page table \
                 deposited for every huge page in case it must be split",
                fmt_size((huge * 1024.0) as u64),
                fmt_ns(big.summary.median),
                fmt_ns(off.summary.median),
                off.summary.median / big.summary.median.max(1.0),
            );
            a.findings.push(text);
        }
    }
    if let (Some(f), Some(t)) = (
        r.find(
            "lifecycle_ns",
            &[("method", "fork"), ("heap", "2 MiB"), ("thp", "off")],
        ),
        r.find(
            "lifecycle_ns",
            &[
                ("method", "pthread_create"),
                ("heap", "2 MiB"),
                ("thp", "off"),
            ],
        ),
    ) {
        let text = format!(
            "at a 2 MiB heap fork costs {} and a thread {}: {:.1}x (seed 000: 35 vs 5 µs, 7x)",
            fmt_ns(f.summary.median),
            fmt_ns(t.summary.median),
            f.summary.median / t.summary.median.max(1.0)
        );
        a.findings.push(text);
    }
    if methods.iter().any(|m| m == "posix_spawn") {
        a.findings.push(
            "advice: a process with a large heap that must start programs should use posix_spawn or vfork, whose cost does not grow with the heap; fork+exec pays for copying the page tables first".into(),
        );
    }
    a.headlines
        .extend(fork_vs_thread(r).into_iter().chain(program_start(r)));
    a
}

struct NamedFitInput {
    method: String,
    fit: crate::stats::Fit,
    by_heap: Vec<(u64, f64)>,
}

// ------------------------------------------------------------- summary

/// Warm fork vs thread at the smallest non-empty heap, and fork's growth
/// per 100 MiB of heap from a straight-line fit over every heap measured.
fn fork_vs_thread(e: &ExperimentResult) -> Option<String> {
    let series = |method: &str| -> Vec<(u64, f64, String)> {
        let mut v: Vec<(u64, f64, String)> = e
            .metrics_named("lifecycle_ns")
            .filter(|m| m.label("method") == Some(method) && m.label("thp") != Some("on"))
            .filter_map(|m| {
                Some((
                    m.label_num("heap_bytes")?,
                    m.summary.median,
                    m.label("heap")?.to_string(),
                ))
            })
            .collect();
        v.sort_by_key(|p| p.0);
        v
    };
    let fork = series("fork");
    let thread = series("pthread_create");
    let (bytes, f, heap) = fork.iter().find(|p| p.0 > 0).or(fork.first())?.clone();
    let t = thread.iter().find(|p| p.0 == bytes)?.1;
    let mut s = format!(
        "fork is {:.1}x slower than a thread at a {heap} heap ({} vs {}, created and reaped)",
        f / t,
        fmt_ns(f),
        fmt_ns(t)
    );
    let xs: Vec<f64> = fork.iter().map(|p| p.0 as f64).collect();
    let ys: Vec<f64> = fork.iter().map(|p| p.1).collect();
    if let (Some(fit), Some(last)) = (crate::stats::linear_fit(&xs, &ys), fork.last()) {
        if fork.len() >= 3 && fit.slope > 0.0 {
            s.push_str(&format!(
                " and grows {} per 100 MiB of heap ({} at {}); a thread does not grow",
                fmt_ns(fit.slope * 100.0 * 1024.0 * 1024.0),
                fmt_ns(last.1),
                last.2
            ));
        }
    }
    Some(s)
}

/// posix_spawn against fork+exec from the largest heap measured.
fn program_start(e: &ExperimentResult) -> Option<String> {
    let biggest = e
        .metrics_named("lifecycle_ns")
        .filter(|m| m.label("method") == Some("posix_spawn"))
        .max_by_key(|m| m.label_num("heap_bytes").unwrap_or(0))?;
    let heap = biggest.label("heap")?;
    let exec = e.median(
        "lifecycle_ns",
        &[
            ("method", "fork_exec_static"),
            ("heap", heap),
            ("thp", "off"),
        ],
    )?;
    Some(format!(
        "to start a program from a process with a {heap} heap, posix_spawn takes {} and fork+exec {} ({:.0}x): fork copies the page tables exec then throws away",
        fmt_ns(biggest.summary.median),
        fmt_ns(exec),
        exec / biggest.summary.median
    ))
}

#[cfg(test)]
mod tests {
    use super::cold_findings;
    use crate::experiments::testing::{metric, result};

    fn cold(thread_first: f64, thread_steady: f64) -> String {
        let m = |method, call, v: f64| {
            metric(
                "lifecycle_ns",
                &[("method", method), ("call", call)],
                &[v, v, v],
            )
        };
        let r = result(vec![
            m("fork", "first", 100e3),
            m("fork", "steady", 100e3),
            m("pthread_create", "first", thread_first),
            m("pthread_create", "steady", thread_steady),
        ]);
        cold_findings(&r).pop().unwrap()
    }

    #[test]
    fn the_seeds_explanation_is_given_only_when_the_run_shows_it() {
        let dearer_cold = cold(60e3, 20e3);
        assert!(
            dearer_cold.contains("here too the thread is relatively dearer cold"),
            "{dearer_cold}"
        );
        let same = cold(20e3, 20e3);
        assert!(same.contains("not a cold-versus-warm effect"), "{same}");
        assert!(
            same.starts_with("why the seeds disagree: cold, a thread costs 0.20x a fork"),
            "{same}"
        );
    }
}
