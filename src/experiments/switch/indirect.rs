//! switch.indirect: the indirect cost of a switch, which Bendersky's
//! "How expensive are context switches?" (seed 002) names but leaves
//! unmeasured: each task walks a working set of its own between switches, and
//! what the switch adds beyond itself is the caches and TLB it refills. The
//! set is walked in address order or as a random pointer-chase (no
//! prefetcher helps), between two threads or two processes (each switch
//! then also switches page tables).

use super::engine::{push_pair, run_pair_walking, Place};
use super::methods::{Method, PIPE_PROCESSES, PIPE_THREADS};
use super::series::{
    INVOLUNTARY_PER_ROUND_TRIP, ROUND_TRIPS_PER_SAMPLE, ROUND_TRIP_NS, SAME_CPU_FRACTION,
    SWITCHES_PER_ROUND_TRIP, SWITCH_NS, VOLUNTARY_PER_ROUND_TRIP,
};
use super::working_set::{Walk, Walking, WorkingSet};
use super::{plan_cpus, worker_cpus, CPUS_PARAM, PER_SWITCH_NOTE};
use crate::experiments::prelude::*;
use crate::measure::sampler::{interleave, per_op, Budget, CPU_NS, PASSES};
use crate::metric::key::BYTES;
use crate::sys;
use serde::{Deserialize, Serialize};

/// The walk alone, on a warm cache: what the switch's walk costs without
/// the switch.
pub const WALK_WARM_NS: MetricSpec = MetricSpec::new(
    "walk_warm_ns",
    Unit::Ns,
    Better::Lower,
    Kind::Other,
    "one walk of the working set (a write per cache line) with no switch between walks: a warm cache",
);

/// A reading: what a switch costs beyond itself once a task walks its
/// working set.
pub const INDIRECT_NS_PER_SWITCH: MetricSpec = MetricSpec::new(
    "indirect_ns_per_switch",
    Unit::Ns,
    Better::Lower,
    Kind::HandOff,
    "per switch, the switch with the set walked, minus the bare switch and the warm walk: the cache refill",
)
.signed();

/// The working set each task walks, in words (`64 KiB`; exact in `bytes`).
pub const WORKING_SET: LabelKey = "working_set";
/// How it is walked (`sequential`, `random`; a file from before: sequential).
pub const WALK: LabelKey = "walk";
/// What the two tasks are (`threads`, `processes`; a file from before:
/// threads).
pub const TASKS: LabelKey = "tasks";

/// The walks `-p walks=` takes.
pub const WALK_CHOICES: &[Choice] = &[
    Choice::new(
        "sequential",
        "one write per cache line in address order (the prefetcher runs ahead)",
    ),
    Choice::new(
        "random",
        "a pointer-chase through every line in a random order (each load waits for the one before)",
    ),
];

/// What the two tasks are, as `-p tasks=` takes it.
pub const TASK_CHOICES: &[Choice] = &[
    Choice::new("threads", "two threads of one process over a pipe"),
    Choice::new(
        "processes",
        "two processes over a pipe: each switch also switches page tables",
    ),
];

pub static EXPERIMENT: Experiment = Experiment {
    name: "switch.indirect",
    metrics: &[
        &SWITCH_NS,
        &ROUND_TRIP_NS,
        &WALK_WARM_NS,
        &SWITCHES_PER_ROUND_TRIP,
        &VOLUNTARY_PER_ROUND_TRIP,
        &INVOLUNTARY_PER_ROUND_TRIP,
        &CPU_NS,
        &SAME_CPU_FRACTION,
        &ROUND_TRIPS_PER_SAMPLE,
        &INDIRECT_NS_PER_SWITCH,
    ],
    summary: "indirect cost of a switch: each task walks W KiB of its own between switches (in order or a random pointer-chase; threads or processes over a pipe, one CPU); extra ns per switch vs W",
    reproduces: "the cache-refill cost Bendersky leaves unmeasured (no seed figure)",
    params: &[WORKING_SETS_PARAM.spec, WALKS_PARAM.spec, TASKS_PARAM.spec, CPUS_PARAM.spec],
    seeds: &[],
    points,
    measure,
    analyze,
    attributed: true,
    ..Experiment::DEFAULT
};

pub const WORKING_SETS_PARAM: Param<Vec<u64>> = Param::numbers(ParamSpec {
    name: "working_sets",
    help: "bytes each task walks (one write per cache line) between switches",
    kind: ParamKind::SizeList {
        min: 0,
        max: 256 << 20,
    },
    quick: "0,64K,1M",
    thorough: "0,16K,64K,256K,1M,4M,16M",
});

pub const WALKS_PARAM: Param<Vec<String>> = Param::names(ParamSpec {
    name: "walks",
    help: "how each task walks its working set",
    kind: ParamKind::Names(WALK_CHOICES),
    quick: "all",
    thorough: "all",
});

pub const TASKS_PARAM: Param<Vec<String>> = Param::names(ParamSpec {
    name: "tasks",
    help: "threads or processes (a fresh worker each)",
    kind: ParamKind::Names(TASK_CHOICES),
    quick: "all",
    thorough: "all",
});

/// The one switch.indirect job: the CPUs, and the working sets (bytes) that
/// take turns in it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndirectPoint {
    pub cpus: Vec<usize>,
    pub working_sets: Vec<u64>,
    /// The walks that take turns with the working sets (none: sequential).
    #[serde(default)]
    pub walks: Vec<Walk>,
    /// Two processes rather than two threads.
    #[serde(default)]
    pub processes: bool,
}

fn points(ctx: &PlanCtx) -> Result<Points, String> {
    let mut pts = Points::default();
    let cpus = plan_cpus(ctx, &mut pts.notes)?;
    let available_bytes = crate::env::mem_available_bytes().unwrap_or(ctx.env.mem_available_bytes);
    let mut ws = ctx.params.get(&WORKING_SETS_PARAM);
    // Two tasks, a buffer each, plus a warm-walk copy: at most a quarter of
    // what is free.
    if let Some(big) = ws.iter().find(|&&w| w.saturating_mul(4) > available_bytes) {
        let msg = format!(
            "working set {} does not fit: three copies must stay under a quarter of the {} available",
            fmt_size(*big),
            fmt_size(available_bytes)
        );
        if ctx.set_by_user(&WORKING_SETS_PARAM) {
            return Err(msg);
        }
        pts.notes.push(format!("{msg}; dropped"));
        ws.retain(|&w| w.saturating_mul(4) <= available_bytes);
    }
    if !ws.contains(&0) {
        ws.insert(0, 0);
        pts.notes
            .push("working set 0 added: the extra cost is measured against it".into());
    }
    pts.notes.push(PER_SWITCH_NOTE.into());
    let walks: Vec<Walk> = ctx
        .params
        .get(&WALKS_PARAM)
        .iter()
        .filter_map(|w| Walk::ALL.into_iter().find(|k| k.name() == w))
        .collect();
    // One fresh worker per kind of task: a forked partner needs a
    // single-threaded parent. Threads first, so the thread switch with
    // nothing walked is the first series of its labels.
    for tasks in ctx.params.get(&TASKS_PARAM) {
        pts.push(&IndirectPoint {
            cpus: cpus.clone(),
            working_sets: ws.clone(),
            walks: walks.clone(),
            processes: tasks == "processes",
        });
    }
    Ok(pts)
}

fn measure(job: &Job) -> anyhow::Result<WorkerOutput> {
    let mut out = WorkerOutput::default();
    let point: IndirectPoint = job.point()?;
    let (all, cpus) = worker_cpus(&point.cpus, &mut out.notes)?;
    let walks = if point.walks.is_empty() {
        vec![Walk::Sequential]
    } else {
        point.walks.clone()
    };
    let (method, tasks): (&Method, &str) = if point.processes {
        (&PIPE_PROCESSES, "processes")
    } else {
        (&PIPE_THREADS, "threads")
    };
    // Every walk with every working set, the walks in the order asked.
    let cases: Vec<Walking> = walks
        .iter()
        .flat_map(|&walk| {
            point.working_sets.iter().map(move |&b| Walking {
                bytes: b as usize,
                walk,
            })
        })
        .collect();
    let budget = Budget::from_job(job).scaled(1.0 / cases.len().max(1) as f64 * 2.0);
    // The cases take turns, a share of the budget at a time.
    let share = budget.split(PASSES);
    let passes = interleave(&cases, PASSES, job.seed, |&walking| {
        // `run --why` samples the switches with the set walked; the warm
        // walk after them is not sampled.
        let why = crate::measure::why::Scope::enter(&case_labels(walking, tasks));
        let r = run_pair_walking(method, &Place::same(cpus[0]), &share, &all, walking)?;
        drop(why);
        // The same walk with no switch in between: the cache stays warm.
        sys::pin_current_thread(&cpus[..1])?;
        let mut ws = WorkingSet::new(walking, job.seed);
        let warm = per_op(&share.scaled(0.3), job.loop_overhead_ns, || ws.walk());
        sys::pin_current_thread(&all)?;
        anyhow::Ok((r, warm))
    })?;
    for (w, passes) in cases.iter().zip(passes) {
        let l = case_labels(*w, tasks);
        for (r, warm) in passes {
            push_pair(&mut out, &l, &r);
            out.push_detail(&WALK_WARM_NS, l.clone(), warm);
        }
    }
    Ok(out)
}

/// A case's labels: its working set, walk and tasks.
fn case_labels(w: Walking, tasks: &str) -> Labels {
    labels(&[
        (WORKING_SET, &fmt_size(w.bytes as u64)),
        (BYTES, &w.bytes.to_string()),
        (WALK, w.walk.name()),
        (TASKS, tasks),
    ])
}

/// `run --why`: where each case's switches with the set walked spent their
/// sampled CPU time, user space (the walk) against the kernel (the switch),
/// one note each, and what the samples cannot tell: a cache or TLB miss is
/// charged to the instruction that waits for it, so the refill shows as a
/// slower walk and a slower switch path, never as a part of its own.
fn measured_split(r: &ExperimentResult) -> Vec<String> {
    let mut out: Vec<String> = r
        .why
        .iter()
        .filter_map(|a| {
            let top = crate::experiments::why_parts::most_in(a, 2);
            Some(format!(
                "{}, {} walk, {}: the switches with the set walked spent {} of their sampled CPU time in user space (the walk) and {} in the kernel{top} (--why: {} samples in {} rounds)",
                a.labels.get(TASKS)?,
                a.labels.get(WALK)?,
                a.labels.get(WORKING_SET)?,
                crate::experiments::why_parts::interval(&a.user),
                crate::experiments::why_parts::interval(&a.kernel),
                a.samples,
                a.rounds
            ))
        })
        .collect();
    if !out.is_empty() {
        out.push(REFILL_UNSEEN.into());
    }
    out
}

/// What cpu-clock sampling cannot isolate in switch.indirect.
pub const REFILL_UNSEEN: &str = "--why cannot isolate the refill: a cpu-clock sample lands on the instruction that was running, so a cache or TLB miss is charged to the load that waits for it (in the walk, user space, or in the switch path) and never shows as a function of its own; with no hardware PMU here there are no miss counts to sample either. The indirect cost is the difference of the figures above, not of the samples";

/// A series' walk and tasks, a file from before them read as the one
/// variant it measured: sequential, threads.
fn variant(m: &Metric) -> (&str, &str) {
    (
        m.label(WALK).unwrap_or(Walk::Sequential.name()),
        m.label(TASKS).unwrap_or("threads"),
    )
}

/// The indirect cost per switch at each working set of one variant: the
/// switch with the set walked, minus the switch with nothing walked, minus
/// the walk on a warm cache. None without the variant's bare switch.
fn indirect_costs<'a>(
    r: &'a ExperimentResult,
    (walk, tasks): (&str, &str),
) -> Option<(&'a Summary, Vec<Cost>)> {
    let of = |spec: &'static MetricSpec, bytes: u64| {
        r.metrics_named(spec)
            .filter(|m| variant(m) == (walk, tasks) && m.label_num(BYTES) == Some(bytes))
            .find(|m| !m.summary.unstable)
            .map(|m| &m.summary)
    };
    let zero = of(&SWITCH_NS, 0)?;
    let mut pts = Vec::new();
    for m in r.metrics_named(&SWITCH_NS).filter(|m| !m.summary.unstable) {
        let Some(bytes) = m.label_num(BYTES).filter(|_| variant(m) == (walk, tasks)) else {
            continue;
        };
        // Per switch, one task walks its set once: take away the switch with
        // no working set and the walk itself as it runs with a warm cache.
        let extra = if bytes == 0 {
            Some(difference(&m.summary, zero, Unit::Ns))
        } else {
            of(&WALK_WARM_NS, bytes).map(|warm| difference(&m.summary, zero, Unit::Ns).minus(warm))
        };
        if let Some(extra) = extra {
            pts.push((
                bytes,
                m.label(WORKING_SET).unwrap_or("?").to_string(),
                extra,
            ));
        }
    }
    pts.sort_by_key(|p| p.0);
    Some((zero, pts))
}

/// Every variant measured, in the table's order: threads before
/// processes, sequential before random.
fn variants(r: &ExperimentResult) -> Vec<(&str, &str)> {
    let mut v: Vec<(&str, &str)> = r.metrics_named(&SWITCH_NS).map(variant).collect();
    let rank = |(w, t): &(&str, &str)| {
        (
            TASK_CHOICES.iter().position(|c| c.name == *t),
            WALK_CHOICES.iter().position(|c| c.name == *w),
        )
    };
    v.sort_by_key(rank);
    v.dedup();
    v
}

fn analyze(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    let mut costs = Vec::new();
    for (walk, tasks) in variants(r) {
        let Some((zero, pts)) = indirect_costs(r, (walk, tasks)) else {
            continue;
        };
        let mut parts = Vec::new();
        for (bytes, ws, extra) in &pts {
            a.readings.push(Reading::of(
                &INDIRECT_NS_PER_SWITCH,
                labels(&[
                    (WORKING_SET, ws),
                    (BYTES, &bytes.to_string()),
                    (WALK, walk),
                    (TASKS, tasks),
                ]),
                extra.d,
            ));
            if *bytes > 0 {
                let noise = match extra.sign() {
                    Order::Overlap => ": within noise, indistinguishable from zero here",
                    Order::Below => ": below zero, odd, shown as measured",
                    Order::Above => "",
                };
                parts.push(format!("{ws}: {}{noise}", extra.text()));
            }
        }
        if !parts.is_empty() {
            a.findings.push(format!(
                "indirect cost per switch, {tasks}, {walk} walk (switch with W walked, minus the switch with nothing walked, minus the walk on a warm cache): {}; the direct switch is {}",
                parts.join(", "),
                figure(zero, Unit::Ns)
            ));
        }
        costs.push(((walk, tasks), pts));
    }
    a.findings.extend(against(
        &costs,
        ("sequential", "threads"),
        ("random", "threads"),
        "a random walk's indirect cost minus a sequential one's (threads)",
        "a refill in a random, dependent order costs more: each miss waits for the one before, where a sequential walk's misses overlap and the prefetcher runs ahead",
    ));
    a.findings.extend(against(
        &costs,
        ("sequential", "threads"),
        ("sequential", "processes"),
        "the indirect cost between processes minus between threads (sequential walk)",
        "switching page tables adds to the refill",
    ));
    a.notes.extend(measured_split(r));
    a
}

/// One working set's indirect cost: its bytes, its size in words, the cost.
type Cost = (u64, String, Difference);

/// Costs by variant: (walk, tasks) and each working set's indirect cost.
type Costs<'a> = [((&'a str, &'a str), Vec<Cost>)];

/// One variant's indirect cost against another's at the largest working
/// set both measured: `b − a`, its interval the interval arithmetic of the
/// two, and `why` said only when it lies above zero.
fn against(
    costs: &Costs,
    a: (&str, &str),
    b: (&str, &str),
    what: &str,
    why: &str,
) -> Option<String> {
    let of = |v: (&str, &str)| costs.iter().find(|(k, _)| *k == v).map(|(_, p)| p);
    let (pa, pb) = (of(a)?, of(b)?);
    let (bytes, ws, db) = pb
        .iter()
        .filter(|(bytes, _, _)| *bytes > 0)
        .filter(|(bytes, _, _)| pa.iter().any(|(x, _, _)| x == bytes))
        .max_by_key(|(bytes, _, _)| *bytes)?;
    let da = &pa.iter().find(|(x, _, _)| x == bytes)?.2;
    let d = Difference {
        d: db.d - da.d,
        lo: db.lo - da.hi,
        hi: db.hi - da.lo,
        unit: Unit::Ns,
        weak: db.weak.clone().or(da.weak.clone()),
    };
    let verdict = match d.sign() {
        Order::Above => format!(": larger, {why}"),
        Order::Below => ": smaller".to_string(),
        Order::Overlap => ": within noise, no difference claimed".to_string(),
    };
    Some(format!("at {ws}, {what}: {}{verdict}", d.text()))
}

#[cfg(test)]
#[path = "indirect_tests.rs"]
mod tests;
