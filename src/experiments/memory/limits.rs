//! memory.limits: Bendersky's "the maximal number of threads the OS lets one
//! process start is about 32K" (`002_…`): every limit that bounds it, the
//! binding one named, and an opt-in probe that starts threads until refused.

use super::bounds::{binding, limit_inputs, thread_bounds, THREAD_FLOOR_BYTES};
use super::crowd::Crowd;
use super::{default_stack, usable_memory};
use crate::experiments::prelude::*;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// The most threads one process may start: computed, or found by the probe.
pub const MAX_THREADS: MetricSpec = MetricSpec::new(
    "max_threads",
    Unit::Count,
    Better::Neither,
    Kind::Other,
    "the most threads one process may start: the binding limit's count (computed) or the probe's",
);
/// One limit's count of further threads, with its reason.
pub const THREAD_BOUND: MetricSpec = MetricSpec::new(
    "thread_bound",
    Unit::Count,
    Better::Neither,
    Kind::Other,
    "how many more threads one limit lets this process start (the limit and why as labels)",
);
/// How long the probe ran (seconds, recorded as a count).
pub const PROBE_SECONDS: MetricSpec = MetricSpec::new(
    "probe_seconds",
    Unit::Count,
    Better::Neither,
    Kind::Other,
    "seconds the probe took to start threads until refused and join them all",
);

/// Where a count comes from: a limit's name, `computed` or `probe`.
pub const SOURCE: LabelKey = "source";
pub const COMPUTED: &str = "computed";
pub const PROBE: &str = "probe";
/// What stopped the probe (an errno, the ceiling, the time limit).
pub const STOPPED_BY: LabelKey = "stopped_by";
/// A limit's reason, in words.
pub const WHY: LabelKey = "why";
/// The limit that binds the computed count.
pub const BINDING: LabelKey = "binding";

pub static EXPERIMENT: Experiment = Experiment {
    name: "memory.limits",
    metrics: &[&MAX_THREADS, &THREAD_BOUND, &PROBE_SECONDS],
    summary: "the most threads one process may start here, from every limit, naming the binding one; opt-in probe",
    reproduces: "Bendersky: \"the maximal number of threads the OS lets one process start is about 32K\"",
    params: &[PROBE_PARAM.spec, PROBE_CEILING_PARAM.spec],
    seeds: &[SeedFigure::of(
        &MAX_THREADS,
        (32_000.0, 32_768.0),
        SeedStat::OneReading,
        SEED_SWITCH,
        BENDERSKY_HW,
        "\"about 32K\" on the seed's machine, how it was found not said",
    )
    .labels(&[(SOURCE, PROBE)])],
    points,
    measure,
    analyze,
    ..Experiment::DEFAULT
};

pub const PROBE_PARAM: Param<bool> = Param::flag(ParamSpec {
        name: "probe",
        help: "also start threads (default stack) until the first refusal, then join them all; may briefly exhaust pids for the whole machine",
        kind: ParamKind::Bool,
        quick: "false",
        thorough: "false",
    });

pub const PROBE_CEILING_PARAM: Param<u64> = Param::number(ParamSpec {
    name: "probe_ceiling",
    help: "the probe stops after this many threads",
    kind: ParamKind::Count {
        min: 1,
        max: 4_194_304,
    },
    quick: "40000",
    thorough: "40000",
});

/// The one memory.limits job: whether to start threads until refused, and
/// the most it may start.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsPoint {
    pub probe: bool,
    pub ceiling: u64,
}

fn points(ctx: &PlanCtx) -> Result<Points, String> {
    let mut pts = Points::default();
    let mut ceiling = ctx.params.get(&PROBE_CEILING_PARAM);
    let probe = ctx.params.get(&PROBE_PARAM);
    let usable_bytes = usable_memory(ctx.env);
    let fits = (usable_bytes / 2) / THREAD_FLOOR_BYTES;
    if probe && ceiling > fits {
        let msg = format!(
            "probe_ceiling {ceiling} threads x about {} each needs more than half of the {} available (at most {fits})",
            fmt_size(THREAD_FLOOR_BYTES),
            fmt_size(usable_bytes)
        );
        if ctx.set_by_user(&PROBE_CEILING_PARAM) {
            return Err(msg);
        }
        ceiling = fits;
        pts.notes.push(format!("{msg}; clamped to {ceiling}"));
    }
    pts.push(&LimitsPoint { probe, ceiling });
    Ok(pts)
}

fn measure(job: &Job) -> anyhow::Result<WorkerOutput> {
    let mut out = WorkerOutput::default();
    let env = crate::env::probe();
    let inputs = limit_inputs(&env, default_stack(&env));
    let bounds = thread_bounds(&inputs);
    for (name, most, why) in &bounds {
        out.reading(
            &THREAD_BOUND,
            labels(&[(SOURCE, name), (WHY, why)]),
            *most as f64,
        );
    }
    if let Some((name, most, _)) = binding(&bounds) {
        out.push(
            &MAX_THREADS,
            labels(&[(SOURCE, COMPUTED), (BINDING, name)]),
            vec![*most as f64],
        );
    }
    if inputs.root && env.limits.rlimit_nproc.is_some() {
        out.notes.push(
            "running as root: RLIMIT_NPROC is not enforced (CAP_SYS_RESOURCE), so it is no bound here"
                .into(),
        );
    }
    let point: LimitsPoint = job.point()?;
    if point.probe {
        let ceiling = point.ceiling as usize;
        let (started, stop, secs) = probe(ceiling);
        out.push(
            &MAX_THREADS,
            labels(&[(SOURCE, PROBE), (STOPPED_BY, &stop)]),
            vec![started as f64],
        );
        out.reading(&PROBE_SECONDS, labels(&[(STOPPED_BY, &stop)]), secs);
    }
    Ok(out)
}

/// Starts default-stack threads until one is refused, the ceiling is reached
/// or 60 s pass; joins them all (the Crowd's drop). Returns how many started
/// and what stopped it.
fn probe(ceiling: usize) -> (usize, String, f64) {
    let t0 = Instant::now();
    let mut crowd = Crowd::with_capacity(ceiling.min(1 << 20));
    crowd.go();
    let mut stop = format!("ceiling {ceiling}");
    while crowd.len() < ceiling {
        if let Err(e) = crowd.spawn(None, 0) {
            stop = errno_text(&e);
            break;
        }
        if t0.elapsed() > Duration::from_secs(60) {
            stop = "the 60 s time limit".into();
            break;
        }
    }
    let started = crowd.len();
    drop(crowd);
    (started, stop, t0.elapsed().as_secs_f64())
}

/// "EAGAIN (Resource temporarily unavailable)" for the errors pthread_create
/// gives, so the report names the errno the man page documents.
fn errno_text(e: &std::io::Error) -> String {
    let name = match e.raw_os_error() {
        Some(libc::EAGAIN) => "EAGAIN",
        Some(libc::ENOMEM) => "ENOMEM",
        Some(libc::EPERM) => "EPERM",
        Some(libc::EINVAL) => "EINVAL",
        _ => return e.to_string(),
    };
    let text = e.to_string();
    let text = text.split(" (os error").next().unwrap_or(&text);
    format!("{name} ({text})")
}

/// Two bounds this close (relative) tie: neither binds alone.
const TIE: f64 = 0.05;

/// One bound as the rounds read it: its source, why, and the smallest and
/// largest count any round computed (the system's tasks come and go).
struct BoundSeen<'a> {
    source: &'a str,
    why: &'a str,
    lo: f64,
    hi: f64,
}

impl BoundSeen<'_> {
    fn count(&self) -> String {
        if self.lo == self.hi {
            group_digits(self.lo as i64)
        } else {
            format!(
                "{}–{}",
                group_digits(self.lo as i64),
                group_digits(self.hi as i64)
            )
        }
    }
}

/// Each bound once, smallest first, however many rounds read it.
fn bounds_seen(r: &ExperimentResult) -> Vec<BoundSeen<'_>> {
    let mut out: Vec<BoundSeen> = Vec::new();
    for x in r.readings.iter().filter(|x| x.name == THREAD_BOUND.name) {
        let source = x.labels.get(SOURCE).map_or("?", String::as_str);
        let why = x.labels.get(WHY).map_or("", String::as_str);
        match out.iter_mut().find(|b| b.source == source) {
            Some(b) => {
                b.lo = b.lo.min(x.value);
                b.hi = b.hi.max(x.value);
            }
            None => out.push(BoundSeen {
                source,
                why,
                lo: x.value,
                hi: x.value,
            }),
        }
    }
    out.sort_by(|a, b| a.lo.total_cmp(&b.lo));
    out
}

fn analyze(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    let bounds = bounds_seen(r);
    let mut f = Vec::new();
    if let Some(b) = bounds.first() {
        // Bounds within TIE of the smallest tie with it.
        let ties = bounds
            .iter()
            .take_while(|x| x.lo <= b.lo * (1.0 + TIE))
            .count();
        let (tied, rest) = bounds.split_at(ties);
        let binds = if tied.len() == 1 {
            format!("{} binds ({})", b.source, b.why)
        } else {
            format!(
                "{} tie, within 5% of each other ({})",
                tied.iter()
                    .map(|x| format!("{} {}", x.source, x.count()))
                    .collect::<Vec<_>>()
                    .join(" and "),
                tied.iter().map(|x| x.why).collect::<Vec<_>>().join("; ")
            )
        };
        let others = if rest.is_empty() {
            String::new()
        } else {
            format!(
                "; the other bounds: {}",
                rest.iter()
                    .map(|x| format!("{} {}", x.source, x.count()))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        f.push(format!(
            "this process may start at most about {} more threads: {binds}{others}",
            group_digits(b.lo as i64),
        ));
    }
    if let Some(m) = r.find(&MAX_THREADS, &[(SOURCE, PROBE)]) {
        let stop = m.label(STOPPED_BY).unwrap_or("?").to_string();
        let computed = r.median(&MAX_THREADS, &[(SOURCE, COMPUTED)]);
        let why = if stop.starts_with("EAGAIN") {
            ": pthread_create's answer when a task limit (pid_max, threads-max, RLIMIT_NPROC, cgroup pids.max) is reached or the stack cannot be mapped (address space, vm.max_map_count)"
        } else {
            ""
        };
        f.push(format!(
            "the probe started {} threads{} and was stopped by {stop}{why}; every thread was joined",
            group_digits(m.summary.median as i64),
            computed
                .map(|c| format!(
                    " (computed bound: {})",
                    group_digits(c as i64)
                ))
                .unwrap_or_default()
        ));
    }
    a.findings.extend(f);
    a
}

#[cfg(test)]
#[path = "limits_tests.rs"]
mod tests;
