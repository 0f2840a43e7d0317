//! switch.wakeup's arithmetic: the full cross-CPU hand-off as a stack of
//! parts, each a difference of measured series with its interval.
//!
//! Per round trip (two hand-offs):
//! - coherence floor = the busy-polling pair (a);
//! - syscall and switch path = the futex hand-off on one CPU (two wakes, two
//!   waits, two switches; no IPI, no idle);
//! - IPI = 2 × (barrier with the peer running − barrier with it blocked)
//!   (c), one per hand-off; only when the hand-off goes to a halting CPU (a
//!   polling idle CPU is woken without one);
//! - idle exit = halting hand-off − polling hand-off − IPI, when both were
//!   measured (d and e);
//! - residual = the full hand-off minus the parts above.
//!
//! Each part is a linear combination of series medians; its interval
//! combines the series' 95% intervals end to end (the low end from each
//! series' low end where it adds, its high end where it subtracts), which
//! is conservative. A part whose interval holds zero is "indistinguishable
//! from zero here", never clamped.

use super::series::ROUND_TRIP_NS;
use crate::experiments::prelude::*;
use crate::metric::key::VARIANT;

/// One membarrier call: the IPI with the peer running, none with it blocked.
pub const BARRIER_NS: MetricSpec = MetricSpec::new(
    "barrier_ns",
    Unit::Ns,
    Better::Lower,
    Kind::HandOff,
    "one membarrier(PRIVATE_EXPEDITED) call, the peer thread running (an IPI) or blocked (none)",
);

/// Interrupts per operation on the two CPUs, from /proc/interrupts: what
/// path a variant took.
pub const RES_PER_OP: MetricSpec = MetricSpec::new(
    "res_per_op",
    Unit::Count,
    Better::Neither,
    Kind::Other,
    "rescheduling interrupts (RES) per operation on the two CPUs",
);

pub const CAL_PER_OP: MetricSpec = MetricSpec::new(
    "cal_per_op",
    Unit::Count,
    Better::Neither,
    Kind::Other,
    "function-call interrupts (CAL) per operation on the two CPUs",
);

pub const TLB_PER_OP: MetricSpec = MetricSpec::new(
    "tlb_per_op",
    Unit::Count,
    Better::Neither,
    Kind::Other,
    "TLB shootdowns per operation on the two CPUs",
);

/// Which variant a pass measures: each removes one cost of the full
/// hand-off. Here, beside the arithmetic that stacks them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Coherence,
    SpinPark,
    IpiRunning,
    IpiBlocked,
    IdleCpu,
    PollingIdle,
    SameCpu,
}

impl Variant {
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Coherence => "coherence",
            Variant::SpinPark => "spin_then_park",
            Variant::IpiRunning => "ipi_peer_running",
            Variant::IpiBlocked => "ipi_peer_blocked",
            Variant::IdleCpu => "idle_cpu",
            Variant::PollingIdle => "polling_idle",
            Variant::SameCpu => "same_cpu",
        }
    }
}

/// One part of the stack.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    pub name: &'static str,
    pub median: f64,
    pub lo: f64,
    pub hi: f64,
}

/// The parts in stack order, with their words.
pub const PARTS: &[(&str, &str)] = &[
    ("coherence", "coherence floor"),
    ("path", "syscall and switch path"),
    ("ipi", "IPI"),
    ("idle_exit", "idle exit"),
    ("residual", "residual"),
];

impl Part {
    pub fn label(&self) -> &'static str {
        PARTS
            .iter()
            .find(|(n, _)| *n == self.name)
            .map_or(self.name, |(_, l)| l)
    }
}

/// The full hand-off and its parts.
#[derive(Clone, Debug, PartialEq)]
pub struct Decomposition {
    /// The full hand-off's median round trip, and which variant it is.
    pub total: f64,
    pub full: Variant,
    pub what: &'static str,
    pub parts: Vec<Part>,
    /// What could not be isolated.
    pub notes: Vec<String>,
    /// The hand-off without sleep against the one that sleeps.
    pub sleep: Option<String>,
}

/// A settled series: median and interval.
#[derive(Clone, Copy, Debug)]
struct Est {
    median: f64,
    lo: f64,
    hi: f64,
}

fn est(r: &ExperimentResult, spec: &MetricSpec, variant: Variant) -> Option<Est> {
    let m = r
        .find(spec, &[(VARIANT, variant.name())])
        .filter(|m| !m.summary.unstable)?;
    Some(Est {
        median: m.summary.median,
        lo: m.summary.ci95_lo,
        hi: m.summary.ci95_hi,
    })
}

/// Σ coef × series, with the ends combined as the module says. Terms on
/// the same series are merged first, so a series that cancels adds no
/// width.
fn combine(name: &'static str, terms: &[(f64, usize)], series: &[Est]) -> Part {
    let mut coef = vec![0.0; series.len()];
    for &(c, i) in terms {
        coef[i] += c;
    }
    let (mut median, mut lo, mut hi) = (0.0, 0.0, 0.0);
    for (c, s) in coef.iter().zip(series) {
        if *c == 0.0 {
            continue;
        }
        median += c * s.median;
        let (a, b) = (c * s.lo, c * s.hi);
        lo += a.min(b);
        hi += a.max(b);
    }
    Part {
        name,
        median: median + 0.0,
        lo: lo + 0.0,
        hi: hi + 0.0,
    }
}

/// The stack, when the full hand-off, the coherence floor and the one-CPU
/// path all settled.
pub fn decompose(r: &ExperimentResult) -> Option<Decomposition> {
    let rt = |v| est(r, &ROUND_TRIP_NS, v);
    let (full, what, d) = match (rt(Variant::IdleCpu), rt(Variant::PollingIdle)) {
        (Some(d), _) => (Variant::IdleCpu, "the peer's CPU halting when idle", d),
        (None, Some(e)) => (Variant::PollingIdle, "the peer's CPU polling when idle", e),
        _ => return None,
    };
    let (a, s) = (rt(Variant::Coherence)?, rt(Variant::SameCpu)?);
    let mut series = vec![d, a, s];
    let (i_d, i_a, i_s) = (0, 1, 2);
    let mut parts_terms: Vec<(&'static str, Vec<(f64, usize)>)> =
        vec![("coherence", vec![(1.0, i_a)]), ("path", vec![(1.0, i_s)])];
    let mut notes = Vec::new();
    let barrier = |v| est(r, &BARRIER_NS, v);
    let mut ipi_terms = None;
    if full == Variant::IdleCpu {
        // The barrier interrupts the peer only while it runs: when it sent
        // fewer than one IPI per two calls, the peer was mostly preempted
        // and the difference is not an IPI's cost.
        let sent = r.median(&CAL_PER_OP, &[(VARIANT, Variant::IpiRunning.name())]);
        let ipis_sent = sent.is_none_or(|n| n >= 0.5);
        if !ipis_sent {
            notes.push(format!(
                "the IPI is not isolated here: with the peer running a barrier sent only {} function-call IPIs per call (the peer was mostly preempted), so it is in the residual",
                sent.map_or(String::new(), |n| format!("{n:.2}"))
            ));
        } else if let (Some(run), Some(blk)) =
            (barrier(Variant::IpiRunning), barrier(Variant::IpiBlocked))
        {
            series.extend([run, blk]);
            let t = vec![(2.0, 3), (-2.0, 4)];
            parts_terms.push(("ipi", t.clone()));
            ipi_terms = Some(t);
        } else {
            notes.push("the IPI is not isolated here (its barrier series are missing or did not settle): it is in the residual".into());
        }
        match rt(Variant::PollingIdle) {
            Some(e) => {
                series.push(e);
                let ie = series.len() - 1;
                let mut t = vec![(1.0, i_d), (-1.0, ie)];
                if let Some(ipi) = &ipi_terms {
                    t.extend(ipi.iter().map(|&(c, i)| (-c, i)));
                }
                parts_terms.push(("idle_exit", t));
            }
            None => notes.push("the idle exit is not isolated here (no hand-off with a polling idle state to set against it): it is in the residual".into()),
        }
    } else {
        notes.push("a polling idle CPU is woken without an IPI: the stack has no IPI part, and no halting hand-off to isolate an idle exit against".into());
    }
    let mut residual = vec![(1.0, i_d)];
    for (_, t) in &parts_terms {
        residual.extend(t.iter().map(|&(c, i)| (-c, i)));
    }
    parts_terms.push(("residual", residual));
    let parts = parts_terms
        .iter()
        .map(|(n, t)| combine(n, t, &series))
        .collect();
    let mut sleep_text = None;
    if let Some(b) = rt(Variant::SpinPark) {
        series.push(b);
        let sleep = combine("sleep", &[(1.0, i_d), (-1.0, series.len() - 1)], &series);
        sleep_text = Some(if sleep.lo > 0.0 {
            format!(
                "without sleeping (each side spins before it parks) a round trip costs {}: sleeping and waking adds {} {}",
                fmt_ns(b.median),
                fmt_ns(sleep.median),
                fmt_interval(&fmt_ns(sleep.lo), &fmt_ns(sleep.hi))
            )
        } else {
            format!(
                "without sleeping (each side spins before it parks) a round trip costs {}: indistinguishable here from the hand-off that sleeps",
                fmt_ns(b.median)
            )
        });
    }
    Some(Decomposition {
        total: d.median,
        full,
        what,
        parts,
        notes,
        sleep: sleep_text,
    })
}
