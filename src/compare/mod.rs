//! `tasklab compare BASE.json… [--vs NEW.json…]`: what changed between runs.
//!
//! The environments first (a kernel, CPU, THP mode or hypervisor change
//! explains more than any single figure), and each side's busy, partial or
//! failed state. Then, per series present on both sides, the ratio of
//! medians NEW/BASE with a 95% interval from both sides' round-aware
//! intervals. A series is called regressed or improved only when the whole
//! interval clears the noise threshold in the direction its experiment
//! declares (criterion's rule); unchanged when the interval holds no change
//! or stays within the threshold; inconclusive otherwise, and whenever a
//! side's series did not settle. Several files on one side are pooled as
//! rounds. The exit status is 1 only for a regression.

pub mod pool;

use crate::error::UsageError;
use crate::results::case_of;
use crate::results::{Better, Labels, RunResults, Unit};
use crate::stats::{self, Verdict};
use crate::units::fmt_value;
use pool::{Series, Side};
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub experiment: String,
    pub metric: String,
    pub labels: Labels,
    /// The labels people read, as the tables show them.
    pub case: String,
    pub unit: Unit,
    pub better: Better,
    /// The medians.
    pub base: f64,
    pub new: f64,
    /// The change NEW/BASE - 1 in percent, and its 95% interval.
    pub change: f64,
    pub ci_lo: f64,
    pub ci_hi: f64,
    pub verdict: Verdict,
    /// Why the verdict is inconclusive (every inconclusive row has one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<Reason>,
    /// The same, said in full.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// Why a row is inconclusive, for a reader who groups or filters them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// A side's rounds disagree beyond their own spread.
    Unsettled,
    /// A side's canary moved while its rounds ran.
    CanaryMoved,
    /// The kernel put one side's memory on huge pages and not the other's.
    HugePages,
    /// The change's interval excludes no change but reaches inside the
    /// noise threshold: a change, of a size the threshold cannot vouch for.
    WithinNoise,
    /// No ratio can be formed (a base of zero, or an interval not finite).
    NoRatio,
}

impl Reason {
    /// A few words, for the summary line and the table.
    pub fn short(self) -> &'static str {
        match self {
            Reason::Unsettled => "did not settle",
            Reason::CanaryMoved => "canary moved",
            Reason::HugePages => "huge pages differ",
            Reason::WithinNoise => "within the noise",
            Reason::NoRatio => "no ratio",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// (what, base, new)
    pub env_differences: Vec<(String, String, String)>,
    pub base_files: Vec<String>,
    pub new_files: Vec<String>,
    /// Partial runs, failed experiments, busy machines on each side.
    pub base_status: Vec<String>,
    pub new_status: Vec<String>,
    pub rows: Vec<Row>,
    pub only_in_base: usize,
    pub only_in_new: usize,
    /// The threshold asked for (`--threshold`).
    pub threshold_pct: f64,
    /// The threshold the verdicts used: the one asked for, or the machine's
    /// own drift on either side when that is larger (see [`noise`]).
    pub noise_pct: f64,
    /// Each side's drift in percent, where its files recorded canaries.
    pub base_drift_pct: Option<f64>,
    pub new_drift_pct: Option<f64>,
    /// Each side's canary median (a bare system call, ns): the machine's own
    /// speed. Shown, never used to judge: a kernel that slows system calls
    /// moves it as much as a slower host does.
    pub base_canary_ns: Option<f64>,
    pub new_canary_ns: Option<f64>,
}

impl Comparison {
    pub fn count(&self, v: Verdict) -> usize {
        self.rows.iter().filter(|r| r.verdict == v).count()
    }

    /// How many inconclusive rows each reason holds, the most common first.
    pub fn inconclusive_reasons(&self) -> Vec<(Reason, usize)> {
        let mut out: Vec<(Reason, usize)> = Vec::new();
        for why in self.rows.iter().filter_map(|r| r.reason) {
            match out.iter_mut().find(|(w, _)| *w == why) {
                Some((_, n)) => *n += 1,
                None => out.push((why, 1)),
            }
        }
        out.sort_by_key(|r| std::cmp::Reverse(r.1));
        out
    }
}

/// The environment facts whose difference explains a difference of figures.
pub fn env_differences(base: &RunResults, new: &RunResults) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let (b, n) = (&base.env, &new.env);
    let mut diff = |what: &str, x: String, y: String| {
        if x != y {
            out.push((what.to_string(), x, y));
        }
    };
    let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "none".into());
    diff("kernel", b.kernel.clone(), n.kernel.clone());
    diff("CPU", b.cpu_model.clone(), n.cpu_model.clone());
    diff(
        "CPUs online",
        b.cpus_online.to_string(),
        n.cpus_online.to_string(),
    );
    diff(
        "virtualisation",
        opt(&b.virtualization),
        opt(&n.virtualization),
    );
    diff("container", opt(&b.container), opt(&n.container));
    diff("THP", opt(&b.thp_enabled), opt(&n.thp_enabled));
    diff("THP defrag", opt(&b.thp_defrag), opt(&n.thp_defrag));
    let mitigations = |e: &crate::env::Env| {
        e.mitigations
            .iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect::<Vec<_>>()
            .join("; ")
    };
    diff("mitigations", mitigations(b), mitigations(n));
    diff("clock source", opt(&b.clocksource), opt(&n.clocksource));
    diff("preemption", opt(&b.preempt), opt(&n.preempt));
    diff("profile", base.profile.clone(), new.profile.clone());
    diff(
        "rounds",
        base.rounds.max(1).to_string(),
        new.rounds.max(1).to_string(),
    );
    let mhz = |x: f64| format!("{x:.0} MHz");
    if let (Some(x), Some(y)) = (base.calibration.measured_mhz, new.calibration.measured_mhz) {
        if (x / y - 1.0).abs() > 0.05 {
            diff("measured clock", mhz(x), mhz(y));
        }
    }
    out
}

/// The noise threshold a verdict must clear: the one asked for (0.05 = 5%),
/// raised to either side's drift when that is larger. A machine whose
/// yardstick moved ±9% between the rounds of one run cannot tell a 6% change
/// of another figure from its own drift, however narrow that figure's
/// interval (its rounds may all have fallen in one of the machine's states).
pub fn noise(base: &Side, new: &Side, threshold: f64) -> f64 {
    [base.drift, new.drift]
        .into_iter()
        .flatten()
        .fold(threshold, f64::max)
}

/// Compares two sides with a noise threshold (0.05 = 5%), raised to the
/// machine's drift by [`noise`].
pub fn compare(base: &Side, new: &Side, threshold: f64) -> Vec<Row> {
    let threshold = noise(base, new, threshold);
    let mut rows = Vec::new();
    for n in &new.series {
        let Some(b) = base
            .series
            .iter()
            .find(|b| b.experiment == n.experiment && b.metric == n.metric && b.labels == n.labels)
        else {
            continue;
        };
        let mut r = row(b, n, threshold);
        if base.thp == new.thp {
            if let Some(why) = huge_pages_differ(b, n) {
                r.verdict = Verdict::Inconclusive;
                r.reason = Some(Reason::HugePages);
                r.why = Some(why);
            }
        }
        rows.push(r);
    }
    rows
}

/// Why a series was measured under different conditions on the two sides
/// although the THP setting is the same: the kernel found huge pages for
/// one side's memory and not for the other's (fragmentation, not the code).
fn huge_pages_differ(b: &Series, n: &Series) -> Option<String> {
    let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
    let (x, y) = (mean(&b.huge_kib)?, mean(&n.huge_kib)?);
    let apart = (x - y).abs() > (0.1 * x.max(y)).max(4096.0);
    apart.then(|| {
        format!(
            "measured under other conditions: {} of its memory on huge pages in base, {} in new, with the same THP setting (the kernel found huge pages for one and not the other)",
            crate::units::fmt_size((x * 1024.0) as u64),
            crate::units::fmt_size((y * 1024.0) as u64)
        )
    })
}

fn row(b: &Series, n: &Series, threshold: f64) -> Row {
    let better = match n.better {
        Better::Unknown => b.better,
        x => x,
    };
    let (change, ci_lo, ci_hi, mut verdict) = match stats::change(&b.summary, &n.summary) {
        Some(c) => (
            (c.ratio - 1.0) * 100.0,
            (c.lo - 1.0) * 100.0,
            (c.hi - 1.0) * 100.0,
            stats::verdict(&c, threshold, better),
        ),
        // Zero on both sides (no involuntary switch in either run): the
        // medians agree, though no ratio can be formed for an interval.
        None if b.summary.median == 0.0 && n.summary.median == 0.0 => {
            (0.0, f64::NAN, f64::NAN, Verdict::Unchanged)
        }
        None => (f64::NAN, f64::NAN, f64::NAN, Verdict::Inconclusive),
    };
    let unsettled: Vec<&str> = [("base", &b.summary), ("new", &n.summary)]
        .iter()
        .filter(|(_, s)| s.unstable)
        .map(|(side, _)| *side)
        .collect();
    let (reason, why) = if !unsettled.is_empty() {
        (
            Some(Reason::Unsettled),
            Some(format!(
                "did not settle on the {} side: its rounds disagree",
                unsettled.join(" and ")
            )),
        )
    } else if let Some(moved) = b.canary.clone().or_else(|| n.canary.clone()) {
        (Some(Reason::CanaryMoved), Some(moved))
    } else if verdict != Verdict::Inconclusive {
        (None, None)
    } else if change.is_finite() {
        (
            Some(Reason::WithinNoise),
            Some(format!(
                "its interval [{}, {}] excludes no change but reaches inside the ±{:.1}% noise threshold: a change of a size the threshold cannot vouch for",
                pct(ci_lo),
                pct(ci_hi),
                threshold * 100.0
            )),
        )
    } else {
        (
            Some(Reason::NoRatio),
            Some(
                "no ratio can be formed: the base median is zero and the new one is not, or an interval is not finite"
                    .into(),
            ),
        )
    };
    if reason.is_some() {
        verdict = Verdict::Inconclusive;
    }
    Row {
        experiment: n.experiment.clone(),
        metric: n.metric.clone(),
        case: case_of(&n.labels),
        labels: n.labels.clone(),
        unit: n.unit,
        better,
        base: b.summary.median,
        new: n.summary.median,
        change,
        ci_lo,
        ci_hi,
        verdict,
        reason,
        why,
    }
}

/// Whether a row is a change worth showing by default.
fn changed(r: &Row) -> bool {
    matches!(
        r.verdict,
        Verdict::Improved | Verdict::Regressed | Verdict::Changed
    )
}

/// A change in percent, signed: "+12.3%", "n/a" when not finite.
fn pct(x: f64) -> String {
    if x.is_finite() {
        format!("{x:+.1}%")
    } else {
        "n/a".into()
    }
}

pub fn render(c: &Comparison, all: bool) -> String {
    let mut s = format!(
        "base: {}\nnew:  {}\n",
        c.base_files.join(", "),
        c.new_files.join(", ")
    );
    if c.env_differences.is_empty() {
        s.push_str("environment: the same kernel, CPU, virtualisation, THP and mitigations\n");
    } else {
        s.push_str("environment differences (base -> new):\n");
        for (what, b, n) in &c.env_differences {
            s.push_str(&format!("  {what}: {b} -> {n}\n"));
        }
    }
    for (side, status) in [("base", &c.base_status), ("new", &c.new_status)] {
        for st in status {
            s.push_str(&format!("{side}: {st}\n"));
        }
    }
    if let (Some(b), Some(n)) = (c.base_canary_ns, c.new_canary_ns) {
        s.push_str(&format!(
            "canary (a bare system call at every round's start and end), median: {} base, {} new ({}): the machine's own speed, or the kernel's; a figure that moved about as much may have moved with it\n",
            fmt_value(b, Unit::Ns),
            fmt_value(n, Unit::Ns),
            pct((n / b - 1.0) * 100.0)
        ));
    }
    let mut shown: Vec<&Row> = c.rows.iter().filter(|r| all || changed(r)).collect();
    // The largest changes first; rows with no change to size (no ratio) last.
    shown.sort_by(|a, b| {
        let size = |r: &Row| {
            let x = (1.0 + r.change / 100.0).abs().ln().abs();
            if x.is_nan() {
                f64::NEG_INFINITY
            } else {
                x
            }
        };
        size(b).total_cmp(&size(a))
    });
    if !shown.is_empty() {
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
                "95% interval",
                "verdict",
            ]);
        for r in shown {
            t.add_row(vec![
                r.experiment.clone(),
                r.metric.clone(),
                r.case.clone(),
                fmt_value(r.base, r.unit),
                fmt_value(r.new, r.unit),
                pct(r.change),
                crate::units::fmt_interval(&pct(r.ci_lo), &pct(r.ci_hi)),
                match r.reason {
                    Some(why) => format!("inconclusive: {}", why.short()),
                    None => format!("{:?}", r.verdict).to_lowercase(),
                },
            ]);
        }
        s.push_str(&t.to_string());
        s.push('\n');
    }
    let threshold = if c.noise_pct > c.threshold_pct {
        let drift = |d: Option<f64>| d.map_or("n/a".to_string(), |d| format!("±{d:.1}%"));
        format!(
            "threshold ±{:.1}%: ±{:.0}% asked, raised to the machine's own drift, its canary's 10th to 90th percentile over the rounds ({} base, {} new)",
            c.noise_pct,
            c.threshold_pct,
            drift(c.base_drift_pct),
            drift(c.new_drift_pct)
        )
    } else {
        format!("threshold ±{:.0}%", c.threshold_pct)
    };
    s.push_str(&format!(
        "{} regressed, {} improved, {} changed, {} unchanged, {} inconclusive of {} series ({threshold}: a verdict needs the whole 95% interval beyond it{})",
        c.count(Verdict::Regressed),
        c.count(Verdict::Improved),
        c.count(Verdict::Changed),
        c.count(Verdict::Unchanged),
        c.count(Verdict::Inconclusive),
        c.rows.len(),
        if all { "" } else { "; --all shows every series" }
    ));
    if c.only_in_base + c.only_in_new > 0 {
        s.push_str(&format!(
            "; {} series only in base, {} only in new",
            c.only_in_base, c.only_in_new
        ));
    }
    s.push('\n');
    let reasons = c.inconclusive_reasons();
    if !reasons.is_empty() {
        let said: Vec<String> = reasons
            .iter()
            .map(|(why, n)| format!("{n} {}", why.short()))
            .collect();
        s.push_str(&format!("inconclusive: {}\n", said.join(", ")));
    }
    s
}

/// What `tasklab compare` was asked.
pub struct Args<'a> {
    /// `compare A.json B.json`, or the base files with `--vs`.
    pub files: &'a [PathBuf],
    pub vs: &'a [PathBuf],
    pub threshold_pct: f64,
    pub json: bool,
    pub all: bool,
}

fn read_all(paths: &[PathBuf]) -> anyhow::Result<Vec<RunResults>> {
    paths
        .iter()
        .map(|p| RunResults::read(p).map_err(|e| UsageError(format!("{e:#}")).into()))
        .collect()
}

fn names(paths: &[PathBuf]) -> Vec<String> {
    paths.iter().map(|p| p.display().to_string()).collect()
}

/// The `compare` command. Exit status: 0 nothing regressed, 1 something
/// regressed beyond the noise (for CI jobs), 2 bad input.
pub fn run(a: &Args) -> anyhow::Result<ExitCode> {
    if !(a.threshold_pct.is_finite() && (0.0..100.0).contains(&a.threshold_pct)) {
        return Err(UsageError("--threshold takes a percentage from 0 to 100".into()).into());
    }
    let (base_paths, new_paths): (&[PathBuf], &[PathBuf]) = if a.vs.is_empty() {
        match a.files {
            [b, n] => (std::slice::from_ref(b), std::slice::from_ref(n)),
            _ => {
                return Err(UsageError(
                    "compare takes two files (BASE.json NEW.json), or several per side: A1.json A2.json --vs B1.json B2.json".into(),
                )
                .into())
            }
        }
    } else {
        (a.files, a.vs)
    };
    let base = read_all(base_paths)?;
    let new = read_all(new_paths)?;
    let (bn, nn) = (names(base_paths), names(new_paths));
    let bs = pool::side(&base, &bn);
    let ns = pool::side(&new, &nn);
    let rows = compare(&bs, &ns, a.threshold_pct / 100.0);
    if rows.is_empty() {
        return Err(UsageError(format!(
            "{} and {} have no series in common: nothing to compare",
            bn.join(", "),
            nn.join(", ")
        ))
        .into());
    }
    let only = |side: &Side, other: &Side| {
        side.series
            .iter()
            .filter(|s| {
                !other.series.iter().any(|o| {
                    o.experiment == s.experiment && o.metric == s.metric && o.labels == s.labels
                })
            })
            .count()
    };
    let c = Comparison {
        env_differences: env_differences(&base[0], &new[0]),
        base_files: bn,
        new_files: nn,
        base_status: bs.status.clone(),
        new_status: ns.status.clone(),
        only_in_base: only(&bs, &ns),
        only_in_new: only(&ns, &bs),
        rows,
        threshold_pct: a.threshold_pct,
        noise_pct: noise(&bs, &ns, a.threshold_pct / 100.0) * 100.0,
        base_drift_pct: bs.drift.map(|d| d * 100.0),
        new_drift_pct: ns.drift.map(|d| d * 100.0),
        base_canary_ns: bs.canary_ns,
        new_canary_ns: ns.canary_ns,
    };
    if a.json {
        println!("{}", serde_json::to_string_pretty(&c)?);
    } else {
        print!("{}", render(&c, a.all));
    }
    Ok(if c.count(Verdict::Regressed) > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests;
