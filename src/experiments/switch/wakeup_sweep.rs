//! switch.wakeup's timer sweep: how late an absolute sleep returns on the
//! idle CPU, by the sleep's period. On a KVM guest the host polls a halted
//! vCPU for up to its `halt_poll_ns` (KVM's, 200 µs by default and adapted
//! per vCPU) before the vCPU's thread sleeps: a timer that fires within
//! that window finds the vCPU polled, a later one must wake a sleeping host
//! thread. Lateness then steps up between two periods, a fact about the host
//! no guest counter shows. A step is said only where the interval of the
//! difference between neighbouring periods lies above a fifth of the shorter
//! period's lateness ([`STEP_SHARE`]); otherwise "no step seen in the
//! range", naming the periods whose flagged figures tell nothing apart.
//!
//! Each period is a variant of the worker's passes, given a quarter of a
//! pass's time and at least [`MIN_SLEEPS`] sleeps, so the default sweep
//! (five periods) adds about one variant's time to the experiment.

use super::wakeup_parts::*;
use crate::experiments::prelude::*;
use crate::measure::sampler::Budget;

pub const TIMER_SWEEP_PARAM: Param<Vec<u64>> = Param::numbers(ParamSpec {
    name: "timer_sweep_us",
    help:
        "the periods of the timer sweep's absolute sleeps on the idle CPU, µs (0 alone: no sweep)",
    kind: ParamKind::CountList {
        min: 0,
        max: 100_000,
    },
    quick: "20,60,200,600,2000",
    thorough: "20,40,80,160,320,640,1280,2560",
});

/// A step is a rise between neighbouring periods whose interval's low end
/// is at least this share of the shorter period's lateness: a jump, not
/// the slow drift lateness shows with the period anyway.
pub const STEP_SHARE: f64 = 0.2;

/// Sleeps a sweep pass makes at least (two batches).
pub const MIN_SLEEPS: usize = 32;

/// A sweep pass's budget: a quarter of a pass's.
pub fn budget(pass: &Budget) -> Budget {
    Budget {
        seconds: pass.seconds / 4.0,
        ..*pass
    }
}

/// The sweep's periods, µs, ascending, without zeros or repeats.
pub fn periods(job: &Job) -> impl Iterator<Item = u64> {
    let mut v = job.params.get(&TIMER_SWEEP_PARAM);
    v.retain(|&p| p > 0);
    v.sort_unstable();
    v.dedup();
    v.into_iter()
}

/// The sweep in words: each period's lateness, and the largest step up
/// between neighbouring periods that their difference's interval tells
/// apart, or "no step seen in the range".
pub(super) fn sweep_finding(r: &ExperimentResult) -> Option<String> {
    let mut pts: Vec<(u64, &Summary)> = r
        .metrics
        .iter()
        .filter(|m| m.name == TIMER_SWEEP_NS.name)
        .filter_map(|m| Some((m.label(PERIOD_US)?.parse().ok()?, &m.summary)))
        .collect();
    pts.sort_by_key(|p| p.0);
    if pts.len() < 2 {
        return None;
    }
    let period = |us: u64| fmt_ns(us as f64 * 1e3);
    let each: Vec<String> = pts
        .iter()
        // The lateness, then the period it was measured at: "9.00 µs [8.50
        // µs, 9.50 µs] at 20.0 µs", never two times side by side ("20.0 µs
        // 37.7 µs [...]", /tmp/s18).
        .map(|(us, s)| format!("{} at {}", fig(s), period(*us)))
        .collect();
    let mut step: Option<(u64, u64, Difference)> = None;
    for w in pts.windows(2) {
        if let Some(d) = diff(w[1].1, w[0].1, Unit::Ns) {
            let jump = d.lo >= STEP_SHARE * w[0].1.median;
            if jump && step.as_ref().is_none_or(|s| d.lo > s.2.lo) {
                step = Some((w[0].0, w[1].0, d));
            }
        }
    }
    let flagged: Vec<String> = pts
        .iter()
        .filter(|(_, s)| s.unstable)
        .map(|(us, _)| period(*us))
        .collect();
    let unseen = if flagged.is_empty() {
        String::new()
    } else {
        format!(
            " ({} flagged: no step is told apart beside {})",
            flagged.join(", "),
            if flagged.len() == 1 { "it" } else { "them" }
        )
    };
    let (first, last) = (pts[0].0, pts[pts.len() - 1].0);
    let verdict = match step {
        Some((a, b, d)) => format!(
            "lateness steps up between {} and {} (by ≥ {}; the difference {}): where the host stops polling a halted vCPU (KVM's halt_poll_ns), if it polls, lies between those periods",
            period(a),
            period(b),
            fmt_ns(d.lo),
            d.text()
        ),
        None => format!(
            "no step seen in the range ({} to {}): no two neighbouring periods told apart upward by a fifth or more by their intervals{unseen}",
            period(first),
            period(last)
        ),
    };
    Some(format!(
        "a timer on the idle CPU by its period (absolute sleeps, timer slack 1 ns), how late it fires at each period: {}; {verdict}",
        each.join(", ")
    ))
}
