//! The run's time shared out. Every point first gets the profile's minimum
//! rounds, and the points that carry the Summary's quantities
//! ([`summary_points`]) the profile's Summary minimum; then, until the
//! budget is spent, the Summary's points get the rest of the profile's
//! rounds, a layer at a time, the cheapest first ([`summary_plan`], which
//! also says how many seconds short the budget fell), and passes
//! of one more round each go to the points where a round buys the most
//! precision per second ([`pass`]), in a shuffled order. Also when the
//! run's measuring ends ([`deadline_s`]) and the time left the progress
//! line shows ([`left_s`]). Pure: costs, rounds and widths in, choices
//! out; nothing here measures or reads a clock.

use crate::experiments::Experiment;
use crate::measure::protocol::WorkerOutput;
use crate::results::{ExperimentResult, Metric, Reading, Unit};
use crate::stats::rounds::t975;

/// One point as the budget sees it, from its rounds so far.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// Seconds a round of it takes (the median of its rounds).
    pub cost_s: f64,
    /// Rounds it has.
    pub rounds: usize,
    /// The quick half-width over its median (a fraction) of each of its
    /// series that counts: better one way, shown, not flagged.
    pub widths: Vec<f64>,
}

/// A pass takes at most this share of the time left, so that the choice is
/// made again often, from the narrower intervals the pass left.
pub const PASS_SHARE: f64 = 0.25;

/// How much narrower, in logs, one more round makes an interval from
/// `rounds` rounds, the spread between rounds staying what it is:
/// Student's t with one more degree of freedom, over √(r+1) instead of √r.
/// 0.45 from 3 rounds, 0.16 from 5, 0.085 from 8, 0.03 from 16.
pub fn step(rounds: usize) -> f64 {
    let r = rounds.max(2);
    (width_factor(r) / width_factor(r + 1)).ln().max(0.0)
}

/// A narrowing counts this much for a series that cannot reach the target
/// within twice its rounds (its spread between rounds is too wide for this
/// run to buy): it still narrows, but the same second buys more where a
/// series can reach the target, which is what the Summary's last line
/// counts.
pub const FAR: f64 = 0.1;

/// The half-width from `rounds` rounds, over the spread between rounds:
/// Student's t over √r, as `stats::rounds::quick_half_width` takes it.
fn width_factor(rounds: usize) -> f64 {
    let r = rounds.max(2);
    t975(r - 1) / (r as f64).sqrt()
}

/// Whether a series `width` wide after `rounds` rounds reaches `target`
/// within twice its rounds, its spread between rounds staying what it is.
pub fn within_reach(width: f64, rounds: usize, target: f64) -> bool {
    let r = rounds.max(2);
    width * width_factor(2 * r) / width_factor(r) <= target
}

/// What one more round of `p` buys: each of its series wider than
/// `target` narrows by [`step`] in logs, counted down to the target and no
/// further (a series within it has nothing more to gain), and in full only
/// when the series can reach the target ([`within_reach`], else [`FAR`]).
/// Summed over the series, because one round measures them all.
pub fn gain(p: &Point, target: f64) -> f64 {
    let s = step(p.rounds);
    p.widths
        .iter()
        .filter(|w| w.is_finite() && **w > target)
        .map(|&w| {
            let weight = if within_reach(w, p.rounds, target) {
                1.0
            } else {
                FAR
            };
            weight * s.min((w / target).ln())
        })
        .sum()
}

/// The next pass: the points (indices into `points`) that get one more
/// round each, the best [`gain`] per second first, while the pass takes at
/// most [`PASS_SHARE`] of `left_s` (at least two points when two fit in
/// `left_s`, so that no point's rounds run back to back). A point at
/// `max_rounds`, within `target`, or dearer than the time left gets none.
/// Empty when nothing more is worth a round or fits.
pub fn pass(points: &[Point], target: f64, left_s: f64, max_rounds: usize) -> Vec<usize> {
    let mut ranked: Vec<(f64, usize)> = points
        .iter()
        .enumerate()
        .filter(|(_, p)| {
            p.rounds < max_rounds && p.cost_s.is_finite() && p.cost_s > 0.0 && p.cost_s <= left_s
        })
        .map(|(i, p)| (gain(p, target) / p.cost_s, i))
        .filter(|(g, _)| *g > 0.0)
        .collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let room = PASS_SHARE * left_s;
    let mut spent = 0.0;
    let mut chosen = Vec::new();
    for (_, i) in ranked {
        let c = points[i].cost_s;
        let fits = spent + c <= room || (chosen.len() < 2 && spent + c <= left_s);
        if fits {
            spent += c;
            chosen.push(i);
        }
    }
    chosen
}

/// One layer of the Summary's rounds beyond its minimum: of the Summary's
/// points still below the profile's rounds, each `costs[i]` seconds a
/// round, the cheapest first while their sum fits in `left_s`. Indices
/// into `costs`, cheapest first; empty when none fits. On a slow host the
/// dearest points (a 1 GiB heap, the seed's whole program) are the ones
/// left at the minimum, and the Summary's last line says how many rounds
/// each got.
pub fn top_up(costs: &[f64], left_s: f64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..costs.len())
        .filter(|&i| costs[i].is_finite() && costs[i] >= 0.0)
        .collect();
    order.sort_by(|&a, &b| costs[a].total_cmp(&costs[b]).then(a.cmp(&b)));
    let mut spent = 0.0;
    let mut chosen = Vec::new();
    for i in order {
        if spent + costs[i] <= left_s {
            spent += costs[i];
            chosen.push(i);
        }
    }
    chosen
}

/// The Summary's rounds beyond what its points have, planned in the time
/// left: layers of one round of each point below the profile's rounds, the
/// cheapest first while a layer fits ([`top_up`]), until none fits. A round
/// narrows a point's intervals by the same [`step`] whatever it costs, so
/// the cheapest points first buy the most precision per second; on a slow
/// host the dearest points are the ones left short, and the plan says by
/// how many seconds.
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryPlan {
    /// The rounds each point would end with.
    pub rounds: Vec<usize>,
    /// The first layer: the points that get a round now, cheapest first.
    pub next: Vec<usize>,
    /// Seconds more than the time left that the profile's rounds at every
    /// point would take at these costs: 0 when they all fit. Points whose
    /// cost is not known count for nothing.
    pub short_s: f64,
}

/// Leeway in the time left, so that rounds whose costs add up to exactly
/// the time left are not refused for a rounding of the sum.
const FIT_SLACK_S: f64 = 1e-9;

/// [`SummaryPlan`] for points whose rounds cost `costs[i]` seconds each and
/// that have `have[i]` rounds, towards `rounds` each, in `left_s` seconds.
/// Every point gets `rounds` whenever their rounds' costs add up to no more
/// than `left_s`.
pub fn summary_plan(costs: &[f64], have: &[usize], rounds: usize, left_s: f64) -> SummaryPlan {
    let known = |i: usize| costs[i].is_finite() && costs[i] >= 0.0;
    let mut planned: Vec<usize> = have.to_vec();
    let mut left = left_s + FIT_SLACK_S;
    let mut next = None;
    loop {
        let below: Vec<usize> = (0..costs.len())
            .filter(|&i| known(i) && planned[i] < rounds)
            .collect();
        let layer: Vec<f64> = below.iter().map(|&i| costs[i]).collect();
        let chosen: Vec<usize> = top_up(&layer, left).into_iter().map(|k| below[k]).collect();
        if chosen.is_empty() {
            break;
        }
        for &i in &chosen {
            planned[i] += 1;
            left -= costs[i];
        }
        next.get_or_insert(chosen);
    }
    let short_s = (0..costs.len())
        .filter(|&i| known(i))
        .map(|i| rounds.saturating_sub(planned[i]) as f64 * costs[i])
        .sum();
    SummaryPlan {
        rounds: planned,
        next: next.unwrap_or_default(),
        short_s,
    }
}

/// `order` with its first item moved away when it is `last` (the point the
/// previous pass ended with), so that no point runs twice in a row where
/// another could run between.
pub fn not_first<T: PartialEq>(order: &mut [T], last: Option<&T>) {
    if order.len() > 1 && last.is_some_and(|l| *l == order[0]) {
        let n = order.len();
        order.swap(0, n / 2);
    }
}

/// Where `n` more rounds of one point go in a queue of `len` jobs: one in
/// each of `n` equal stretches of it, `pick(stretch length)` places into
/// its stretch (`pick(m)` answers below `m`), so that they spread over
/// what is left of the queue instead of landing together, and two of them
/// are never next to each other while the queue has jobs to put between.
/// Positions in the queue as it grows: insert them in order.
pub fn spread(len: usize, n: usize, mut pick: impl FnMut(usize) -> usize) -> Vec<usize> {
    let mut at = Vec::with_capacity(n);
    for k in 0..n {
        let lo = len * k / n;
        let hi = len * (k + 1) / n;
        let m = (hi - lo).max(1);
        // Each earlier insertion moved this stretch one place on.
        at.push(lo + pick(m).min(m - 1) + k);
    }
    at
}

/// When the run's measuring ends, in seconds from its first job: the
/// budget; unless the user gave it (`asked`), also no later than the
/// profile's rounds at every point would take (`rounds_s`), so that a run
/// of a few experiments stays as short as their rounds.
pub fn deadline_s(budget_s: f64, asked: bool, rounds_s: f64) -> f64 {
    if asked || !rounds_s.is_finite() {
        budget_s
    } else {
        budget_s.min(rounds_s)
    }
}

/// Seconds of measuring left after the job about to run: the jobs already
/// queued (`queued_s`), and, when the budget shares out more rounds, up to
/// its end (`deadline_s`, from the first job; `elapsed_s` counts the job
/// about to run as done).
pub fn left_s(queued_s: f64, elapsed_s: f64, deadline_s: Option<f64>) -> f64 {
    let to_end = deadline_s.map_or(0.0, |d| d - elapsed_s);
    queued_s.max(to_end).max(0.0)
}

/// The points of `exp` that carry the Summary's quantities, from the
/// series and readings of its rounds so far (one round of each point is
/// enough: the Summary picks by labels, never by figures,
/// `experiments::headline`). Sorted, each once.
pub fn summary_points(exp: &Experiment, outputs: &[(usize, usize, WorkerOutput)]) -> Vec<usize> {
    let r = skeleton(exp, outputs);
    let mut points: Vec<usize> = (exp.headlines)(&r)
        .iter()
        .flat_map(|h| [h.find(&r), h.find_from(&r)])
        .flatten()
        .filter_map(|m| m.point)
        .collect();
    points.sort_unstable();
    points.dedup();
    points
}

/// An experiment's series and readings as labels and points, each series
/// summarised from one round's samples (no bootstrap: the Summary's picks
/// read labels only).
fn skeleton(exp: &Experiment, outputs: &[(usize, usize, WorkerOutput)]) -> ExperimentResult {
    let mut r = ExperimentResult::default_named(exp.name);
    for (point, _, out) in outputs {
        for s in &out.series {
            let known = r
                .metrics
                .iter()
                .any(|m| m.name == s.name && m.labels == s.labels);
            let Ok(summary) = crate::stats::summarize(&s.samples) else {
                continue;
            };
            if !known {
                r.metrics.push(Metric {
                    name: s.name.clone(),
                    unit: s.unit.unwrap_or(Unit::Count),
                    labels: s.labels.clone(),
                    summary,
                    samples: vec![],
                    rounds: vec![],
                    detail: s.detail,
                    better: exp.better_for(&s.name, &s.labels),
                    seed: None,
                    point: Some(*point),
                });
            }
        }
        for x in &out.readings {
            if !r
                .readings
                .iter()
                .any(|y: &Reading| y.name == x.name && y.labels == x.labels)
            {
                r.readings.push(x.clone());
            }
        }
    }
    r
}

#[cfg(test)]
#[path = "budget_tests.rs"]
mod tests;
