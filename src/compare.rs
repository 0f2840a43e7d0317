//! `tasklab compare BASE.json NEW.json`: what changed between two runs.
//!
//! Environments that differ come first (a kernel, CPU, THP mode or hypervisor
//! change explains more than any single figure). Then, per metric present in
//! both, the ratio of medians NEW/BASE with a conservative 95% interval built
//! from the two medians' confidence intervals; a metric is called regressed
//! or improved only when the whole interval clears the noise threshold
//! (criterion's rule), else unchanged.

use crate::error::UsageError;
use crate::report::table::case;
use crate::results::{Metric, RunResults, Unit};
use crate::stats::{self, Verdict};
use crate::units::fmt_value;
use serde::Serialize;
use std::path::Path;
use std::process::ExitCode;

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub experiment: String,
    pub metric: String,
    pub case: String,
    pub unit: Unit,
    pub base_median: f64,
    pub new_median: f64,
    /// Change in percent, and its 95% interval.
    pub change_pct: f64,
    pub lo_pct: f64,
    pub hi_pct: f64,
    pub verdict: Verdict,
}

#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub env_differences: Vec<(String, String, String)>,
    pub rows: Vec<Row>,
    pub only_in_base: usize,
    pub only_in_new: usize,
    pub threshold_pct: f64,
}

impl Comparison {
    pub fn regressed(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| r.verdict == Verdict::Regressed)
            .count()
    }
}

/// Higher is better for throughput units; for every other unit (times,
/// memory) lower is better.
fn higher_is_better(unit: Unit) -> bool {
    matches!(unit, Unit::PerSecond)
}

fn key(exp: &str, m: &Metric) -> String {
    format!("{exp}|{}|{:?}", m.name, m.labels)
}

pub fn compare(base: &RunResults, new: &RunResults, threshold: f64) -> Comparison {
    let mut env_differences = Vec::new();
    let (b, n) = (&base.env, &new.env);
    let mut diff = |what: &str, x: String, y: String| {
        if x != y {
            env_differences.push((what.to_string(), x, y));
        }
    };
    diff("kernel", b.kernel.clone(), n.kernel.clone());
    diff("CPU", b.cpu_model.clone(), n.cpu_model.clone());
    diff(
        "CPUs online",
        b.cpus_online.to_string(),
        n.cpus_online.to_string(),
    );
    diff(
        "virtualisation",
        format!("{:?}", b.virtualization),
        format!("{:?}", n.virtualization),
    );
    diff(
        "container",
        format!("{:?}", b.container),
        format!("{:?}", n.container),
    );
    diff(
        "THP",
        format!("{:?}", b.thp_enabled),
        format!("{:?}", n.thp_enabled),
    );
    diff(
        "mitigations",
        format!("{:?}", b.mitigations),
        format!("{:?}", n.mitigations),
    );
    diff(
        "clock source",
        format!("{:?}", b.clocksource),
        format!("{:?}", n.clocksource),
    );
    diff("profile", base.profile.clone(), new.profile.clone());
    let mhz = |x: Option<f64>| x.map_or("?".into(), |v| format!("{v:.0} MHz"));
    if let (Some(x), Some(y)) = (base.calibration.measured_mhz, new.calibration.measured_mhz) {
        if (x / y - 1.0).abs() > 0.05 {
            diff("measured clock", mhz(Some(x)), mhz(Some(y)));
        }
    }

    let mut base_metrics = std::collections::HashMap::new();
    for e in &base.experiments {
        for m in &e.metrics {
            base_metrics.insert(key(&e.name, m), m);
        }
    }
    let mut rows = Vec::new();
    let mut only_in_new = 0;
    for e in &new.experiments {
        for m in &e.metrics {
            let Some(bm) = base_metrics.remove(&key(&e.name, m)) else {
                only_in_new += 1;
                continue;
            };
            let Some(c) = stats::change(&bm.summary, &m.summary) else {
                continue;
            };
            // For a throughput, a rise is the improvement: invert the ratio.
            let (c, cmp) = if higher_is_better(m.unit) {
                let inv = stats::Change {
                    ratio: 1.0 / c.ratio,
                    lo: 1.0 / c.hi,
                    hi: 1.0 / c.lo,
                };
                (c, inv)
            } else {
                (c.clone(), c)
            };
            rows.push(Row {
                experiment: e.name.clone(),
                metric: m.name.clone(),
                case: case(m),
                unit: m.unit,
                base_median: bm.summary.median,
                new_median: m.summary.median,
                change_pct: (c.ratio - 1.0) * 100.0,
                lo_pct: (c.lo - 1.0) * 100.0,
                hi_pct: (c.hi - 1.0) * 100.0,
                verdict: stats::verdict(&cmp, threshold),
            });
        }
    }
    Comparison {
        env_differences,
        rows,
        only_in_base: base_metrics.len(),
        only_in_new,
        threshold_pct: threshold * 100.0,
    }
}

pub fn render(c: &Comparison) -> String {
    let mut s = String::new();
    if c.env_differences.is_empty() {
        s.push_str("environment: the same kernel, CPU, virtualisation, THP and mitigations\n");
    } else {
        s.push_str("environment differences (base -> new):\n");
        for (what, b, n) in &c.env_differences {
            s.push_str(&format!("  {what}: {b} -> {n}\n"));
        }
    }
    let mut t = comfy_table::Table::new();
    t.load_preset(comfy_table::presets::UTF8_BORDERS_ONLY)
        .set_content_arrangement(comfy_table::ContentArrangement::Disabled)
        .set_header(vec![
            "experiment",
            "metric",
            "case",
            "base",
            "new",
            "change",
            "95% CI",
            "verdict",
        ]);
    for r in &c.rows {
        t.add_row(vec![
            r.experiment.clone(),
            r.metric.clone(),
            r.case.clone(),
            fmt_value(r.base_median, r.unit),
            fmt_value(r.new_median, r.unit),
            format!("{:+.1}%", r.change_pct),
            format!("{:+.1}% … {:+.1}%", r.lo_pct, r.hi_pct),
            format!("{:?}", r.verdict).to_lowercase(),
        ]);
    }
    s.push_str(&t.to_string());
    s.push('\n');
    let count = |v: Verdict| c.rows.iter().filter(|r| r.verdict == v).count();
    s.push_str(&format!(
        "{} regressed, {} improved, {} unchanged (threshold ±{:.0}%: a verdict needs the whole interval beyond it)",
        count(Verdict::Regressed),
        count(Verdict::Improved),
        count(Verdict::Unchanged),
        c.threshold_pct
    ));
    if c.only_in_base + c.only_in_new > 0 {
        s.push_str(&format!(
            "; {} series only in base, {} only in new",
            c.only_in_base, c.only_in_new
        ));
    }
    s.push('\n');
    s
}

/// The `compare` command. Exit status: 0 nothing regressed, 1 something
/// regressed (for CI jobs), 2 bad input.
pub fn run(base: &Path, new: &Path, threshold_pct: f64, json: bool) -> anyhow::Result<ExitCode> {
    if !(threshold_pct.is_finite() && (0.0..100.0).contains(&threshold_pct)) {
        return Err(UsageError("--threshold takes a percentage from 0 to 100".into()).into());
    }
    let b = RunResults::read(base).map_err(|e| UsageError(format!("{e:#}")))?;
    let n = RunResults::read(new).map_err(|e| UsageError(format!("{e:#}")))?;
    let c = compare(&b, &n, threshold_pct / 100.0);
    if c.rows.is_empty() {
        return Err(UsageError(format!(
            "{} and {} have no metric in common: nothing to compare",
            base.display(),
            new.display()
        ))
        .into());
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&c)?);
    } else {
        print!("{}", render(&c));
    }
    Ok(if c.regressed() > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
