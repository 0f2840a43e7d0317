//! Hand-made results for testing analyses without measuring.

use super::prelude::*;

pub fn metric(name: &str, pairs: &[(&str, &str)], v: &[f64]) -> Metric {
    Metric {
        name: name.into(),
        unit: Unit::Ns,
        labels: labels(pairs),
        summary: crate::stats::summarize(v).unwrap(),
        samples: v.to_vec(),
        rounds: vec![],
        detail: false,
        better: Better::Lower,
        seed: None,
        point: None,
    }
}

/// The same series with each sample a round of its own (a round's figure,
/// as a recorded run's rounds give them).
pub fn one_per_round(mut m: Metric) -> Metric {
    m.rounds = vec![1; m.samples.len()];
    m
}

pub fn result(metrics: Vec<Metric>) -> ExperimentResult {
    ExperimentResult {
        metrics,
        ..ExperimentResult::default_named("test.x")
    }
}

/// A settled series with median `m` and a 95% interval `[lo, hi]` from 5
/// rounds, as the run would summarise it.
pub fn settled(name: &str, pairs: &[(&str, &str)], m: f64, lo: f64, hi: f64) -> Metric {
    let mut x = metric(name, pairs, &[lo, m, m, m, hi, m, m]);
    let s = &mut x.summary;
    s.median = m;
    s.ci95_lo = lo;
    s.ci95_hi = hi;
    s.ci_covers_95 = true;
    s.rounds = 5;
    s.interval = "95%, 5 rounds".into();
    x
}

/// `settled` with an interval of ±`pct`% around `m`.
pub fn near(name: &str, pairs: &[(&str, &str)], m: f64, pct: f64) -> Metric {
    let h = m.abs() * pct / 100.0;
    settled(name, pairs, m, m - h, m + h)
}

/// The same series flagged: its rounds fell in two modes.
pub fn unsettled(mut m: Metric) -> Metric {
    m.summary.unstable = true;
    m.summary.unsettled = Some(crate::stats::rounds::Unsettled::TwoModes {
        low: m.summary.min,
        high: m.summary.max,
        low_share: 0.5,
        explained: None,
    });
    m
}
