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
    }
}

pub fn result(metrics: Vec<Metric>) -> ExperimentResult {
    ExperimentResult {
        name: "test.x".into(),
        group: "test".into(),
        summary: String::new(),
        reproduces: String::new(),
        status: crate::results::Status::Ok,
        reason: None,
        duration_s: 0.0,
        params: Default::default(),
        metrics,
        readings: vec![],
        fits: vec![],
        findings: vec![],
        headlines: vec![],
        notes: vec![],
        round_log: vec![],
    }
}
