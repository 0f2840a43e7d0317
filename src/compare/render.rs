//! `compare` in words: the header (environments, each side's state, the
//! machine's speed and its common move, what the comparison could see),
//! the table of rows, and the verdict counts with the reasons.

use super::verdict::signed;
use super::{Comparison, Row};
use crate::stats::Verdict;
use crate::units::{fmt_value, Unit};

/// Whether a row is a change worth showing by default.
fn changed(r: &Row) -> bool {
    matches!(
        r.verdict,
        Verdict::Improved | Verdict::Regressed | Verdict::Changed
    )
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
    s.push_str(&speed(c));
    if let Some(cm) = c
        .common_mode
        .filter(|cm| cm.worth_saying(c.threshold_pct / 100.0))
    {
        s.push_str(&cm.line(c.relative));
        s.push('\n');
    } else if let Some(cm) = c.common_mode.filter(|_| c.relative) {
        s.push_str(&format!(
            "--relative: every change below is given with the common factor ({:+.1}%) divided out of costs and rates\n",
            (cm.factor - 1.0) * 100.0
        ));
    }
    let runs = c.base_runs.min(c.new_runs);
    if let Some(n) = &c.noise {
        s.push_str(&noise_line(n, c.rows.len(), runs));
    } else if runs < crate::stats::rounds::RUNS_MEASURED {
        s.push_str(&format!(
            "{runs} run{} a side: the variance between runs is estimated from the rounds, with a floor of ±{:.0}% that one run's rounds cannot see (four runs a side measure it instead)\n",
            if runs == 1 { "" } else { "s" },
            crate::stats::rounds::RUN_NOISE * 100.0
        ));
    }
    s.push_str(&resolution(c));
    s.push_str(&body(c, all));
    s
}

/// The header's line on the noise file: where it came from, what it is
/// of, and how many rows it widened.
fn noise_line(n: &super::NoiseUse, rows: usize, runs: usize) -> String {
    let whence = if n.from_cache {
        "found in the cache for the base files' machine"
    } else {
        "named with --noise"
    };
    let mut s = format!(
        "noise: {} ({whence}; machine {}, calibrated from {} runs): {} of {rows} rows have their series' own run-to-run band, which takes the ±{:.0}% default's place and is the least each side's interval holds\n",
        n.path,
        n.fingerprint,
        n.runs,
        n.rows,
        crate::stats::rounds::RUN_NOISE * 100.0
    );
    if n.rows < rows && runs < crate::stats::rounds::RUNS_MEASURED {
        s.push_str(&format!(
            "  the other {} rows keep the ±{:.0}% default (series the calibration did not measure)\n",
            rows - n.rows,
            crate::stats::rounds::RUN_NOISE * 100.0
        ));
    }
    if !n.new_machine_differs.is_empty() {
        s.push_str(&format!(
            "  the new side ran on another machine or configuration ({}): its bands are the base machine's, an assumption\n",
            n.new_machine_differs.join(", ")
        ));
    }
    s
}

/// The table of rows and the verdict counts: what `ab` shows under its own
/// header.
pub fn body(c: &Comparison, all: bool) -> String {
    format!("{}{}", table(c, all), counts(c, all))
}

/// How far the machine's speed moved within each side and between them:
/// facts beside the verdicts, never a veto.
fn speed(c: &Comparison) -> String {
    let within = |d: Option<f64>| d.map_or("n/a".to_string(), |d| format!("±{d:.0}%"));
    match (c.base_canary_ns, c.new_canary_ns) {
        (Some(b), Some(n)) => format!(
            "machine speed (canary: a bare system call at every round): {} base, {} new ({} between the sides); within each side {} base, {} new\n",
            fmt_value(b, Unit::Ns),
            fmt_value(n, Unit::Ns),
            signed((n / b - 1.0) * 100.0),
            within(c.base_drift_pct),
            within(c.new_drift_pct)
        ),
        _ => String::new(),
    }
}

/// What the comparison could see, and what would help when it saw little.
fn resolution(c: &Comparison) -> String {
    let mut s = format!(
        "resolution: could see a change of 10% or more in {} of {} series",
        c.see_10pct, c.with_mde
    );
    if let Some(m) = c.median_mde {
        s.push_str(&format!("; median minimum detectable change {m:.1}%"));
    }
    s.push('\n');
    if 2 * c.see_10pct < c.with_mde {
        s.push_str(
            "  to see smaller changes: two runs per side (compare A1 A2 --vs B1 B2), --profile thorough, --rounds 16, or a quieter machine\n",
        );
    }
    s
}

fn table(c: &Comparison, all: bool) -> String {
    let mut shown: Vec<&Row> = c.rows.iter().filter(|r| all || changed(r)).collect();
    if shown.is_empty() {
        return String::new();
    }
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
            "mde",
            "verdict",
        ]);
    for r in shown {
        t.add_row(vec![
            r.experiment.clone(),
            r.metric.clone(),
            r.case.clone(),
            fmt_value(r.base, r.unit),
            fmt_value(r.new, r.unit),
            signed(r.change),
            crate::units::fmt_interval(&signed(r.ci_lo), &signed(r.ci_hi)),
            if r.mde.is_finite() {
                format!("{:.0}%", r.mde)
            } else {
                "n/a".into()
            },
            match r.reason {
                Some(why) => format!("inconclusive: {}", why.short()),
                None => format!("{:?}", r.verdict).to_lowercase(),
            },
        ]);
    }
    format!("{t}\n")
}

fn counts(c: &Comparison, all: bool) -> String {
    let mut s = format!(
        "{} regressed, {} improved, {} changed, {} unchanged, {} inconclusive of {} series (threshold ±{}%: regressed or improved needs the whole 95% interval beyond it, unchanged needs it wholly within{})",
        c.count(Verdict::Regressed),
        c.count(Verdict::Improved),
        c.count(Verdict::Changed),
        c.count(Verdict::Unchanged),
        c.count(Verdict::Inconclusive),
        c.rows.len(),
        c.threshold_pct,
        if all { "" } else { "; --all shows every series" }
    );
    if c.only_in_base + c.only_in_new > 0 {
        s.push_str(&format!(
            "; {} series only in base, {} only in new",
            c.only_in_base, c.only_in_new
        ));
    }
    s.push('\n');
    let reasons = c.inconclusive_reasons();
    if !reasons.is_empty() {
        let runs = c.base_runs.min(c.new_runs);
        s.push_str("inconclusive (they do not fail the gate):\n");
        for (why, n) in reasons {
            s.push_str(&format!("  {n} {}: {}\n", why.short(), why.next(runs)));
        }
    }
    s
}
