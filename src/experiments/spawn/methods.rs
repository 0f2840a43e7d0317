//! spawn.methods: every creation method, warm, timed three ways (to the
//! parent's return, to the child's first instruction, to the reap or join).
//! Sysel's Table 1 (seed 004) lists the same methods; his figures are single
//! cold calls, so spawn.cold holds the comparison. Bendersky's launch
//! benchmark (seed 000) is replayed by its own protocol in spawn.launch.

use super::engine::{
    Launcher, CHILD_ON_PARENT_CPU, CHILD_START_NS, LIFECYCLE_NS, PARENT_RETURN_NS,
};
use super::launch_why;
use super::placement::{self, push_placed, Placement, PLACEMENTS};
use super::table::{self, CHOICES};
use crate::experiments::prelude::*;
use crate::measure::explain::cpu_of_wall_pinned;
use crate::measure::rss::RSS_BOUND_KIB;
use crate::measure::sampler::{events_cpu, interleave, push_cpu, Budget, CPU_NS, PASSES};
use crate::metric::key::{METHOD, PLACEMENT};
use crate::sys;

pub static EXPERIMENT: Experiment = Experiment {
    name: "spawn.methods",
    metrics: &[
        &PARENT_RETURN_NS,
        &CHILD_START_NS,
        &LIFECYCLE_NS,
        &CPU_NS,
        &CHILD_ON_PARENT_CPU,
        &WORKER_MAPPINGS,
        &WORKER_ANON_KIB,
        &RSS_BOUND_KIB,
    ],
    summary: "every creation method, warm (steady state), pinned to one CPU or free: to the parent's return, to the child's start, create+reap",
    reproduces: "Sysel Table 1's methods, warm (his single cold calls: spawn.cold)",
    params: &[METHODS_PARAM.spec, PLACEMENTS_PARAM.spec],
    measure,
    analyze,
    memory_work: true,
    attributed: true,
    starts_processes: true,
    ..Experiment::DEFAULT
};

pub const METHODS_PARAM: Param<Vec<String>> = Param::names(ParamSpec {
    name: "methods",
    help: "creation methods to measure",
    kind: ParamKind::Names(CHOICES),
    quick: "all",
    thorough: "all",
});

pub const PLACEMENTS_PARAM: Param<Vec<String>> = Param::names(ParamSpec {
    name: "placements",
    help: "pinned to one CPU, and/or free with each launch filed by where the child started",
    kind: ParamKind::Names(&PLACEMENTS),
    quick: "one_cpu",
    thorough: "one_cpu,free",
});

fn measure(job: &Job) -> anyhow::Result<WorkerOutput> {
    let l = Launcher::new(job.scratch.as_deref(), job.timer_overhead_ns)?;
    let mut out = WorkerOutput::default();
    let allowed = sys::allowed_cpus()?;
    let placements =
        placement::chosen(&job.params.get(&PLACEMENTS_PARAM), &allowed, &mut out.notes);
    let mut runnable = Vec::new();
    for name in job.params.get(&METHODS_PARAM) {
        let method =
            find(table::METHODS, &name).ok_or_else(|| anyhow::anyhow!("unknown method {name}"))?;
        match l.unsupported(method) {
            Some(why) => out.notes.push(why),
            None => {
                for &p in &placements {
                    runnable.push((name.clone(), method, p));
                }
            }
        }
    }
    push_image(&mut out);
    let share = Budget::from_job(job).split(PASSES);
    // Methods and placements take turns, a share of the budget at a time.
    let measured = interleave(&runnable, PASSES, job.seed, |(name, method, p)| {
        // `run --why` samples the launches pinned to one CPU: a free
        // launch is filed by where its child started only after it ran,
        // which no window can know beforehand.
        let _why = (*p == Placement::OneCpu)
            .then(|| method.why_scope(&labels(&[(METHOD, name), (PLACEMENT, p.name())])));
        p.enter(&allowed)
            .and_then(|_| events_cpu(&share, 5, || l.launch(method)))
            .map_err(|e| anyhow::anyhow!("{name}: {e}"))
    });
    sys::pin_current_thread(&allowed)?;
    for ((name, _, p), passes) in runnable.iter().zip(measured?) {
        let (launches, cpu): (Vec<_>, Vec<_>) = passes.into_iter().unzip();
        push_placed(&mut out, &[(METHOD, name)], *p, &launches.concat(), false);
        let placed = labels(&[(METHOD, name), (PLACEMENT, p.name())]);
        push_cpu(&mut out, &placed, &cpu);
    }
    Ok(out)
}

/// The worker's mappings, read before measuring: fork copies each one.
pub const WORKER_MAPPINGS: MetricSpec = MetricSpec::new(
    "worker_mappings",
    Unit::Count,
    Better::Neither,
    Kind::Memory,
    "the mappings (lines of /proc/self/maps) of the worker that forks, read before measuring",
);

/// The worker's anonymous resident memory, read before measuring.
pub const WORKER_ANON_KIB: MetricSpec = MetricSpec::new(
    "worker_anon_kib",
    Unit::Kib,
    Better::Neither,
    Kind::Memory,
    "the anonymous resident memory (RssAnon) of the worker that forks, read before measuring",
);

/// The image fork copies here, read just before measuring: a fork's cost
/// grows with the parent's mappings and anonymous pages, and a tasklab
/// worker is bigger than a minimal C program (docs/FIDELITY.md).
fn push_image(out: &mut WorkerOutput) {
    use crate::sys::procfs;
    // One reading of the mappings: their count and the libraries among them.
    let maps = procfs::self_maps_text();
    if let Some(text) = &maps {
        let count = text.lines().count() as f64;
        out.reading(&WORKER_MAPPINGS, Labels::new(), count);
    }
    if let Some(kib) = procfs::status_kib("RssAnon") {
        out.reading(&WORKER_ANON_KIB, Labels::new(), kib as f64);
        // RssAnon is a counter like VmRSS: its bound beside it.
        crate::measure::rss::record_bound(out, &Labels::new());
    }
    if let Some(text) = &maps {
        out.notes
            .extend(libraries_note(&procfs::shared_libraries(text)));
    }
}

/// What the worker's shared libraries beyond a C program's (libc and the
/// loader) add to a fork, by name.
fn libraries_note(libs: &[String]) -> Option<String> {
    let c_has = |l: &&String| l.starts_with("libc.so") || l.starts_with("ld-");
    let beyond: Vec<&str> = libs
        .iter()
        .filter(|l| !c_has(l))
        .map(|l| l.as_str())
        .collect();
    let (last, rest) = beyond.split_last()?;
    let named = match rest {
        [] => last.to_string(),
        _ => format!("{} and {last}", rest.join(", ")),
    };
    Some(format!(
        "the worker maps {named} beyond the libc and loader a minimal C program maps, each several mappings that fork copies, so such a program forks faster than this worker (docs/FIDELITY.md measures by how much)"
    ))
}

/// The findings are the one-CPU comparisons; the other placements, the
/// CPU time, where the children started and the image fork copied are
/// the measurement's conditions: notes.
fn analyze(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    a.findings = placement_findings(r, "one_cpu", &mut a.notes);
    a.findings
        .extend(launch_why::program_start(r, Some(ONE_CPU)));
    a.notes.extend(launch_why::paths(r, Some(ONE_CPU)));
    for placement in ["free_same_cpu", "free_other_cpu", "free"] {
        let mut why = Vec::new();
        a.notes.extend(placement_findings(r, placement, &mut why));
    }
    a.notes.extend(cpu_of_wall_pinned(
        r,
        "a fork+reap pinned to one CPU",
        &LIFECYCLE_NS,
        &[(METHOD, table::FORK.name()), (PLACEMENT, "one_cpu")],
    ));
    if let Some(share) = r.reading(
        &CHILD_ON_PARENT_CPU,
        &[(METHOD, table::FORK.name()), (PLACEMENT, "free")],
    ) {
        a.notes.push(format!(
            "left free, {:.0}% of fork's children started on their parent's CPU, the rest on another (free_same_cpu and free_other_cpu are the two figures, never mixed)",
            share * 100.0
        ));
    }
    if let (Some(maps), Some(anon)) = (
        r.reading(&WORKER_MAPPINGS, &[]),
        r.reading(&WORKER_ANON_KIB, &[]),
    ) {
        let measured =
            launch_why::fork_copy(r, Some(ONE_CPU)).map_or(String::new(), |m| format!("; {m}"));
        a.notes.push(format!(
            "fork copied a worker of {maps:.0} mappings and {}{} of anonymous memory (RssAnon); fork's cost grows with both, so a smaller program forks faster and a bigger one slower (spawn.heap; docs/FIDELITY.md){measured}",
            fmt_value(anon, Unit::Kib),
            crate::measure::rss::pm(crate::measure::rss::bound(r, &[]), 1.0, 1.0)
        ));
    }
    a.notes.extend(crate::measure::rss::note(r));
    a
}

/// The placement `run --why` samples.
const ONE_CPU: &str = Placement::choice(Placement::OneCpu).name;

/// What each comparison's figures include, once: a note beside the finding.
const FORK_VS_THREAD_ENDS: &str = "a fork+reap and a pthread_create+join end at different points: the join returns when the kernel clears the thread's tid word as it exits, the reap after the process has fully exited";
const BEYOND_CLONE3: &str = "beyond clone3, glibc's pthread_create takes a stack from its cache or maps one with a guard page, sets up the thread descriptor and TLS, blocks signals around the call, and the new thread registers its robust list and rseq area before it runs the start routine";
const STD_WORK: &str = "Rust's std::thread::spawn does its own start-up work around pthread_create: it names the thread, installs an alternate signal stack for stack-overflow reports and looks up the guard page";

/// The findings for one placement's series; what their figures include
/// goes to `why`.
fn placement_findings(r: &ExperimentResult, placement: &str, why: &mut Vec<String>) -> Vec<String> {
    let mut out = Vec::new();
    // Every subject in every run (issue 39 item 9): a figure that did not
    // settle is quoted with its mark and tells nothing apart; a method the
    // run did not measure is said to be missing, never left out silently.
    let any = |method: &str| {
        r.find(&LIFECYCLE_NS, &[(METHOD, method), (PLACEMENT, placement)])
            .map(|m| &m.summary)
    };
    let where_ = match placement {
        "one_cpu" => "pinned to one CPU",
        "free_same_cpu" => "free, the child on its parent's CPU",
        "free_other_cpu" => "free, the child on the other CPU",
        _ => "free",
    };
    let (fork, thread) = (any(table::FORK.name()), any(table::PTHREAD_CREATE.name()));
    let one_missing = |have: &str, s: &Summary, missing: &str| {
        format!(
            "{have} costs {}; {missing} was not measured (not in this run's methods), so nothing is compared",
            shown(s, Unit::Ns)
        )
    };
    let warm = match (fork, thread) {
        (Some(f), Some(t)) => Some(format!(
            "a fork+reap costs {} and a pthread_create+join {}: {}",
            shown(f, Unit::Ns),
            shown(t, Unit::Ns),
            compare_shown("fork", f, "a thread", t, Unit::Ns)
        )),
        (Some(f), None) => Some(one_missing("a fork+reap", f, "a pthread_create+join")),
        (None, Some(t)) => Some(one_missing("a pthread_create+join", t, "a fork+reap")),
        (None, None) => None,
    };
    if let Some(text) = warm {
        out.push(format!("warm, {where_}: {text}"));
        why.push(FORK_VS_THREAD_ENDS.into());
    }
    if placement != "one_cpu" {
        return out;
    }
    // Starting a program, and what the program's own start-up adds: one
    // finding.
    let mut start = Vec::new();
    if let (Some(fork), Some(vfork), Some(spawn)) = (
        any(table::FORK_EXEC_STATIC.name()),
        any(table::VFORK_EXEC_STATIC.name()),
        any(table::POSIX_SPAWN.name()),
    ) {
        start.push(format!(
            "starting a program: fork+exec {}, vfork+exec {}, posix_spawn {}",
            shown(fork, Unit::Ns),
            shown(vfork, Unit::Ns),
            shown(spawn, Unit::Ns)
        ));
    }
    if let (Some(st), Some(dy)) = (
        any(table::FORK_EXEC_STATIC.name()),
        any("fork_exec_dynamic"),
    ) {
        let d = dy.median - st.median;
        let verdict = if st.unstable || dy.unstable {
            "the loader's share not told apart here: a figure did not settle".to_string()
        } else if apart(st, dy) {
            format!(
                "{} {} with the loader",
                fmt_ns(d.abs()),
                if d > 0.0 { "more" } else { "less" }
            )
        } else {
            "the loader's share not told apart here".to_string()
        };
        start.push(format!(
            "the exec'd program's own start-up is part of the bill: static {}, dynamically linked {} ({verdict})",
            shown(st, Unit::Ns),
            shown(dy, Unit::Ns),
        ));
    }
    if !start.is_empty() {
        out.push(start.join("; "));
    }
    out.extend(library_work(&any, why));
    out
}

/// pthread_create against the system call it makes, and Rust's std against
/// pthread_create: each difference stated only where the intervals part,
/// each subject kept whatever settled ([`compare_shown`]), and a method the
/// run did not measure named as such.
fn library_work<'a>(
    any: &dyn Fn(&str) -> Option<&'a Summary>,
    why: &mut Vec<String>,
) -> Vec<String> {
    let mut out = Vec::new();
    let Some(pthread) = any(table::PTHREAD_CREATE.name()) else {
        return out;
    };
    let mut text = match any("clone3_thread") {
        Some(raw) => {
            let mut t = format!(
                "pthread_create+join {} against clone3 with the same flags, a stack and a TLS block {}: {}",
                shown(pthread, Unit::Ns),
                shown(raw, Unit::Ns),
                compare_shown("pthread_create", pthread, "the bare call", raw, Unit::Ns)
            );
            // The fastest launches, of figures that settled only.
            let settled = !pthread.unstable && !raw.unstable;
            if settled && (pthread.median > raw.median) != (pthread.min > raw.min) {
                t.push_str(&format!(
                    "; the fastest launches order the other way ({} against {}), so the gap is not a fixed cost",
                    fmt_ns(pthread.min),
                    fmt_ns(raw.min)
                ));
            }
            t
        }
        None => format!(
            "pthread_create+join {} against clone3 with the same flags, a stack and a TLS block: clone3 was not measured (not in this run's methods, or the kernel lacks it: the notes say which)",
            shown(pthread, Unit::Ns)
        ),
    };
    text.push_str(&match any("clone_thread_flags") {
        Some(flags) => format!(
            "; clone() with those flags and no TLS {}",
            shown(flags, Unit::Ns)
        ),
        None => "; clone() with those flags and no TLS not measured".to_string(),
    });
    why.push(BEYOND_CLONE3.into());
    out.push(text);
    out.push(match any("std_thread") {
        Some(std) => {
            why.push(STD_WORK.into());
            format!(
                "Rust's std::thread::spawn+join {} against pthread_create+join {}: {}",
                shown(std, Unit::Ns),
                shown(pthread, Unit::Ns),
                compare_shown("std", std, "pthread_create", pthread, Unit::Ns)
            )
        }
        None => format!(
            "Rust's std::thread::spawn+join against pthread_create+join {}: std_thread was not measured (not in this run's methods)",
            shown(pthread, Unit::Ns)
        ),
    });
    out
}

#[cfg(test)]
#[path = "methods_tests.rs"]
mod tests;
