//! switch.indirect: the indirect cost of a switch, which Bendersky's
//! "How expensive are context switches?" (seed 002) names but leaves
//! unmeasured: each task walks a working set of its own between switches, and
//! what the switch adds beyond itself is the caches and TLB it refills.

use super::engine::{push_pair, run_pair, walk, Place};
use super::methods::PIPE_THREADS;
use super::series::{
    INVOLUNTARY_PER_ROUND_TRIP, ROUND_TRIPS_PER_SAMPLE, ROUND_TRIP_NS, SAME_CPU_FRACTION,
    SWITCHES_PER_ROUND_TRIP, SWITCH_NS, VOLUNTARY_PER_ROUND_TRIP,
};
use super::{plan_cpus, worker_cpus, CPUS, PER_SWITCH_NOTE};
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
);

/// The working set each task walks, in words (`64 KiB`; exact in `bytes`).
pub const WORKING_SET: LabelKey = "working_set";

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
    summary: "indirect cost of a switch: each task walks W KiB of its own between switches (pipe threads, one CPU); extra ns per switch vs W",
    reproduces: "the cache-refill cost Bendersky leaves unmeasured (no seed figure)",
    params: &[
        ParamSpec {
            name: "working_sets",
            help: "bytes each task walks (one write per cache line) between switches",
            kind: ParamKind::SizeList {
                min: 0,
                max: 256 << 20,
            },
            quick: "0,64K,1M",
            thorough: "0,16K,64K,256K,1M,4M,16M",
        },
        CPUS,
    ],
    seeds: &[],
    points,
    measure,
    analyze,
    ..Experiment::DEFAULT
};

/// The one switch.indirect job: the CPUs, and the working sets (bytes) that
/// take turns in it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndirectPoint {
    pub cpus: Vec<usize>,
    pub working_sets: Vec<u64>,
}

fn points(ctx: &PlanCtx) -> Result<Points, String> {
    let mut pts = Points::default();
    let cpus = plan_cpus(ctx, &mut pts.notes)?;
    let available_bytes = crate::env::mem_available_bytes().unwrap_or(ctx.env.mem_available_bytes);
    let mut ws = ctx.params.list("working_sets");
    // Two tasks, a buffer each, plus a warm-walk copy: at most a quarter of
    // what is free.
    if let Some(big) = ws.iter().find(|&&w| w.saturating_mul(4) > available_bytes) {
        let msg = format!(
            "working set {} does not fit: three copies must stay under a quarter of the {} available",
            fmt_size(*big),
            fmt_size(available_bytes)
        );
        if ctx.user_set.iter().any(|n| n == "working_sets") {
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
    pts.push(&IndirectPoint {
        cpus,
        working_sets: ws,
    });
    Ok(pts)
}

fn measure(job: &Job) -> anyhow::Result<WorkerOutput> {
    let mut out = WorkerOutput::default();
    let point: IndirectPoint = job.point()?;
    let (all, cpus) = worker_cpus(&point.cpus, &mut out.notes)?;
    let working_set_bytes = point.working_sets;
    let budget = Budget::from_job(job).scaled(1.0 / working_set_bytes.len().max(1) as f64 * 2.0);
    // The working sets take turns, a share of the budget at a time.
    let share = budget.split(PASSES);
    let passes = interleave(&working_set_bytes, PASSES, job.seed, |&ws_bytes| {
        let r = run_pair(
            &PIPE_THREADS,
            &Place::same(cpus[0]),
            &share,
            &all,
            ws_bytes as usize,
        )?;
        // The same walk with no switch in between: the cache stays warm.
        sys::pin_current_thread(&cpus[..1])?;
        let mut buf = vec![1u8; ws_bytes as usize];
        let warm = per_op(&share.scaled(0.3), job.loop_overhead_ns, || walk(&mut buf));
        sys::pin_current_thread(&all)?;
        anyhow::Ok((r, warm))
    })?;
    for (&ws_bytes, passes) in working_set_bytes.iter().zip(passes) {
        let size = fmt_size(ws_bytes);
        let l = labels(&[(WORKING_SET, &size), (BYTES, &ws_bytes.to_string())]);
        for (r, warm) in passes {
            push_pair(&mut out, &l, &r);
            out.push_detail(&WALK_WARM_NS, l.clone(), warm);
        }
    }
    Ok(out)
}

fn analyze(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    let Some(zero) = r.settled(&SWITCH_NS, &[(BYTES, "0")]) else {
        return a;
    };
    let mut pts: Vec<(u64, String, Option<Difference>)> = Vec::new();
    for m in r.metrics_named(&SWITCH_NS) {
        let Some(bytes) = m.label(BYTES).and_then(|b| b.parse::<u64>().ok()) else {
            continue;
        };
        let ws = m.label(WORKING_SET).unwrap_or("?").to_string();
        // Per switch, one task walks its set once: take away the switch with
        // no working set and the walk itself as it runs with a warm cache.
        let extra = if bytes == 0 {
            Some(difference(&m.summary, zero, Unit::Ns))
        } else {
            r.settled(&WALK_WARM_NS, &[(BYTES, &bytes.to_string())])
                .map(|warm| difference(&m.summary, zero, Unit::Ns).minus(warm))
        };
        pts.push((bytes, ws, extra));
    }
    pts.sort_by_key(|p| p.0);
    let mut parts = Vec::new();
    for (bytes, ws, extra) in &pts {
        let Some(extra) = extra else {
            continue;
        };
        a.readings.push(Reading::of(
            &INDIRECT_NS_PER_SWITCH,
            labels(&[(WORKING_SET, ws), (BYTES, &bytes.to_string())]),
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
            "indirect cost per switch (switch with W walked, minus the switch with nothing walked, minus the walk on a warm cache): {}; the direct switch is {}",
            parts.join(", "),
            figure(zero, Unit::Ns)
        ));
    }
    a
}

#[cfg(test)]
#[path = "indirect_tests.rs"]
mod tests;
