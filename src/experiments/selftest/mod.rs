//! Hidden experiments that misbehave on purpose, so the tests can check that
//! a worker's crash, kill or hang fails only its point (or, with one point,
//! its experiment), kills everything it started, and lets the run go on.
//! Run only when named; they reproduce no seed experiment.
//!
//! Each has `points` points (default 1), and misbehaves only at the one
//! `fail_at` names; the others measure a trivial series, so a test can see
//! that they are kept.

pub mod crash;
pub mod hang;
pub mod spin;

use crate::experiments::prelude::*;
use serde::{Deserialize, Serialize};

/// A trivial figure the points that behave measure: a clock read.
pub const READ_NS: MetricSpec = MetricSpec::new(
    "read_ns",
    Unit::Ns,
    Better::Lower,
    Kind::Other,
    "a clock read, by a point that behaved (a selftest's control)",
);

/// How many points.
pub const POINTS_PARAM: Param<u64> = Param::number(ParamSpec {
    name: "points",
    help: "how many points (jobs a round) the experiment has",
    kind: ParamKind::Count { min: 1, max: 16 },
    quick: "1",
    thorough: "1",
});

/// The point that misbehaves.
pub const FAIL_AT_PARAM: Param<u64> = Param::number(ParamSpec {
    name: "fail_at",
    help: "the point (from 0) that misbehaves; the others measure a clock read",
    kind: ParamKind::Count { min: 0, max: 15 },
    quick: "0",
    thorough: "0",
});

/// One point of a selftest.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SelftestPoint {
    pub point: u64,
}

/// `points` points, unless there is one (then the single point, as before).
pub fn points(ctx: &PlanCtx) -> Result<Points, String> {
    let n = ctx.params.get(&POINTS_PARAM);
    let at = ctx.params.get(&FAIL_AT_PARAM);
    if at >= n {
        return Err(format!(
            "fail_at={at} is not one of the {n} points (0 to {})",
            n - 1
        ));
    }
    if n == 1 {
        return Ok(Points::single());
    }
    Ok(Points::of((0..n).map(|point| SelftestPoint { point })))
}

/// The label of the point a series was measured at.
pub const POINT: LabelKey = "point";

/// Whether this job is the one to misbehave.
pub fn misbehaves(job: &Job) -> anyhow::Result<bool> {
    if job.point.is_null() {
        return Ok(true);
    }
    let p: SelftestPoint = job.point()?;
    Ok(p.point == job.params.get(&FAIL_AT_PARAM))
}

/// What a point that behaves measures.
pub fn behave(job: &Job) -> anyhow::Result<WorkerOutput> {
    let p: SelftestPoint = job.point()?;
    let mut out = WorkerOutput::default();
    let samples = (0..16)
        .map(|_| {
            let t = std::time::Instant::now();
            std::hint::black_box(std::time::Instant::now());
            t.elapsed().as_nanos() as f64
        })
        .collect();
    out.push(&READ_NS, labels(&[(POINT, &p.point.to_string())]), samples);
    Ok(out)
}
