//! `compare` in words: the header (environments, each side's state, the
//! machine's speed and its common move, what the comparison could see),
//! the table of rows, and the verdict counts with the reasons.

use super::fit::{self, Column};
use super::verdict::signed;
use super::{Comparison, Row};
use crate::paint;
use crate::stats::Verdict;
use crate::units::{fmt_value, Unit};

/// Whether a row is a change worth showing by default.
fn changed(r: &Row) -> bool {
    matches!(
        r.verdict,
        Verdict::Improved | Verdict::Regressed | Verdict::Changed
    )
}

/// The comparison in words, fitted to the terminal's width.
pub fn render(c: &Comparison, all: bool) -> String {
    render_at(c, all, crate::report::terse::width())
}

/// [`render`] fitted to `width` columns: every line wrapped between words,
/// the table in the columns that fit.
pub fn render_at(c: &Comparison, all: bool, width: usize) -> String {
    let mut s = fitted(&head(c, width), width);
    s.push_str(&body_at(c, all, width));
    s
}

/// Logical lines (an indent of two spaces kept, and given once more to
/// the lines a long one wraps onto), each fitted to `width`.
pub fn fitted(text: &str, width: usize) -> String {
    text.lines()
        .map(|l| {
            let body = l.trim_start();
            let indent = &l[..l.len() - body.len()];
            if body.is_empty() {
                "\n".to_string()
            } else {
                fit::line(body, width, indent, &format!("{indent}  "))
            }
        })
        .collect()
}

/// What a side lacks of the other, each side's state and the header's
/// facts, as logical lines (not yet fitted).
fn head(c: &Comparison, width: usize) -> String {
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
    if let Some(m) = &c.missing {
        s.push_str(&format!("missing: {m}\n"));
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
    if let Some(n) = &c.noise {
        s.push_str(&noise_line(n, width));
    }
    s.push_str(&run_noise_line(c));
    s.push_str(&resolution(c));
    s
}

/// What the run-to-run noise rests on, in one line, and the next step when
/// it is the runs' own drift.
pub fn run_noise_line(c: &Comparison) -> String {
    use crate::stats::noise::{Basis, FLOOR};
    let families: usize = c.noise_bases.iter().map(|b| b.1).sum();
    if families == 0 {
        return String::new();
    }
    let parts: Vec<String> = c
        .noise_bases
        .iter()
        .map(|(b, n)| match b {
            Basis::Floor => format!("{n} at the {:.1}% floor (sd)", FLOOR * 100.0),
            _ => format!("{n} on {}", b.words()),
        })
        .collect();
    let median = c
        .median_run_noise_pct
        .map_or(String::new(), |m| format!("; median {m:.1}% (sd)"));
    let mut s = format!(
        "run-to-run noise, measured per family (an experiment at one point, each unit on its own) and in every interval: of {families} families and units, {}{median}\n",
        parts.join(", ")
    );
    let spread_only = c
        .noise_bases
        .iter()
        .all(|(b, _)| matches!(b, Basis::Spread | Basis::Floor));
    if spread_only && c.base_runs.min(c.new_runs) < 3 {
        s.push_str("  one run's spread sees only the host states its rounds met: for a firmer footing, three runs a side (A1 A2 A3 --vs B1 B2 B3), or tasklab calibrate on this machine\n");
    }
    s.push_str(&memory_line(c));
    s.push_str(&machine_line(c));
    s
}

/// What the host's memory state added to the memory-heavy rows, in one
/// line, when it added anything: the memory canary on each side and the
/// rows it widened (`stats::memstate`).
fn memory_line(c: &Comparison) -> String {
    let Some(m) = c.memory_canary.as_ref().filter(|m| m.rows > 0) else {
        return String::new();
    };
    let ns = |x: f64| crate::units::fmt_value(x, crate::units::Unit::Ns);
    let rows = if m.rows == 1 { "row" } else { "rows" };
    format!(
        "  and the host's memory state: the memory canary (a first touch of fresh memory, per 4 KiB page) {} base, {} new ({}), times each memory-heavy family's sensitivity to it over its rounds, with that sensitivity's standard error, widens {} {rows} by a median {:.1}% (sd); a canary that did not move widens none\n",
        ns(m.base_ns),
        ns(m.new_ns),
        super::verdict::signed((m.new_ns / m.base_ns - 1.0) * 100.0),
        m.rows,
        m.median_pct.unwrap_or(0.0),
    )
}

/// What the machine's speed added to the rows of the experiments whose
/// rounds follow it, in one line, when it added anything: the system
/// call's canary on each side, those experiments and the rows it widened
/// (`stats::memstate::follows`).
fn machine_line(c: &Comparison) -> String {
    let Some(m) = c.machine_canary.as_ref().filter(|m| m.rows > 0) else {
        return String::new();
    };
    let ns = |x: f64| crate::units::fmt_value(x, crate::units::Unit::Ns);
    let rows = if m.rows == 1 { "row" } else { "rows" };
    format!(
        "  and the machine's speed: the system call's canary {} base, {} new ({}), times the sensitivity to it of each family of the experiments whose rounds follow it ({}), with its standard error, widens {} {rows} by a median {:.1}% (sd)\n",
        ns(m.base_ns),
        ns(m.new_ns),
        super::verdict::signed((m.new_ns / m.base_ns - 1.0) * 100.0),
        m.experiments.join(", "),
        m.rows,
        m.median_pct.unwrap_or(0.0),
    )
}

/// The header's line on the noise file: where it came from, what it is
/// of, and how many rows it covers.
fn noise_line(n: &super::NoiseUse, width: usize) -> String {
    let whence = if n.from_cache {
        "found in the cache for the base files' machine"
    } else {
        "named with --noise"
    };
    let mut s = format!(
        "noise: {}{}({whence}; machine {}, calibrated from {} runs): {} rows have their series' own run-to-run variance, moderated by their family's and never wider than their own spread gives\n",
        n.path,
        // A long path on its own line, so the words after it stay whole.
        if format!("noise: {} ({whence};", n.path).chars().count() > width {
            "\n  "
        } else {
            " "
        },
        n.fingerprint,
        n.runs,
        n.rows,
    );
    if !n.new_machine_differs.is_empty() {
        s.push_str(&format!(
            "  the new side ran on another machine or configuration ({}): its bands are the base machine's, an assumption\n",
            n.new_machine_differs.join(", ")
        ));
    }
    s
}

/// The table of rows and the verdict counts, fitted to `width`: what `ab`
/// shows under its own header.
pub fn body_at(c: &Comparison, all: bool, width: usize) -> String {
    format!(
        "{}{}{}{}",
        summary(c, width),
        table(c, all, width),
        super::why::lines(c, width),
        counts(c, all, width)
    )
}

/// The Summary's quantities first, each with its change and verdict, a
/// line each.
fn summary(c: &Comparison, width: usize) -> String {
    if c.summary.is_empty() {
        return String::new();
    }
    let mut s = fit::line("the Summary's quantities:", width, "", "  ");
    for q in &c.summary {
        let Some(r) = c.rows.get(q.row) else {
            continue;
        };
        let line = format!(
            "{}: {} -> {}, {} {}, {}",
            q.name,
            fmt_value(r.base, r.unit),
            fmt_value(r.new, r.unit),
            signed(r.change),
            crate::units::fmt_interval(&signed(r.ci_lo), &signed(r.ci_hi)),
            verdict_word(r)
        );
        let plain = fit::line(&line, width, "  ", "    ");
        let word = verdict_word(r);
        s.push_str(&if paint::on() {
            plain.replacen(&word, &Tone::of(r).paint(&word), 1)
        } else {
            plain
        });
    }
    s.push_str(&fit::line(
        "every series that changed, by experiment (--all: every series):",
        width,
        "",
        "  ",
    ));
    s
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
        s.push_str(&format!(
            "; the median row calls a change of {m:.1}% half the time"
        ));
    }
    let m80: Vec<f64> = c
        .rows
        .iter()
        .map(|r| r.mde80)
        .filter(|m| m.is_finite())
        .collect();
    if let Some(m) = crate::stats::median(&m80) {
        s.push_str(&format!(", {m:.1}% 80% of the time"));
    }
    s.push('\n');
    if 2 * c.see_10pct < c.with_mde {
        let needs: Vec<_> = c
            .rows
            .iter()
            .filter_map(|r| r.inconclusive.as_ref())
            .filter(|i| i.reason == super::Reason::TooWide)
            .map(|i| i.narrow)
            .collect();
        let step = super::next::group_narrowing(&needs, &c.setting);
        s.push_str(&format!("  to see smaller changes: {step}\n"));
    }
    s
}

/// A verdict as the table says it.
fn verdict_word(r: &Row) -> String {
    match r.reason() {
        Some(why) => format!("inconclusive: {}", why.short()),
        None => format!("{:?}", r.verdict).to_lowercase(),
    }
}

/// How a row's verdict is painted: regressed red, improved green,
/// inconclusive as a warning, any other plain.
#[derive(Clone, Copy)]
enum Tone {
    Bad,
    Good,
    Warn,
    Plain,
}

impl Tone {
    fn of(r: &Row) -> Tone {
        match (r.reason(), r.verdict) {
            (Some(_), _) | (None, Verdict::Inconclusive) => Tone::Warn,
            (None, Verdict::Regressed) => Tone::Bad,
            (None, Verdict::Improved) => Tone::Good,
            (None, Verdict::Changed | Verdict::Unchanged) => Tone::Plain,
        }
    }

    fn paint(self, text: &str) -> String {
        match self {
            Tone::Bad => paint::bad(text),
            Tone::Good => paint::good(text),
            Tone::Warn => paint::warn(text),
            Tone::Plain => text.to_string(),
        }
    }
}

/// The rows shown, in columns that fit `width`: every column when they
/// fit; else the series named in one column that wraps its words; else
/// each row as its series on a line and its figures packed under it.
fn table(c: &Comparison, all: bool, width: usize) -> String {
    let shown = shown_rows(c, all);
    if shown.is_empty() {
        return String::new();
    }
    let col = |head, right| Column { head, right };
    let tail = [
        col("base", true),
        col("new", true),
        col("change", true),
        col("95% interval", true),
        col("mde", true),
        col("verdict", false),
    ];
    let paint_last = |last: usize| {
        let shown = &shown;
        move |row: usize, i: usize, t: &str| match shown.get(row) {
            Some(r) if i == last => Tone::of(r).paint(t),
            _ => t.to_string(),
        }
    };
    let mut wide = vec![
        col("experiment", false),
        col("metric", false),
        col("case", false),
    ];
    wide.extend(tail.iter().map(|c| col(c.head, c.right)));
    let rows: Vec<Vec<String>> = shown
        .iter()
        .map(|r| {
            let mut v = vec![r.experiment.clone(), r.metric.clone(), r.case.clone()];
            v.extend(figures(r));
            v
        })
        .collect();
    if let Some(t) = fit::table(&wide, &rows, width, None, &paint_last(8)) {
        return t;
    }
    let mut named = vec![col("series", false)];
    named.extend(tail.iter().map(|c| col(c.head, c.right)));
    let rows: Vec<Vec<String>> = shown
        .iter()
        .map(|r| {
            let mut v = vec![series_name(r)];
            v.extend(figures(r));
            v
        })
        .collect();
    if let Some(t) = fit::table(&named, &rows, width, Some(0), &paint_last(6)) {
        return t;
    }
    stacked(&shown, width)
}

/// The rows shown (all, or those that changed), by experiment in the
/// run's order; within one, the largest changes first, rows with no change
/// to size (no ratio) last.
fn shown_rows(c: &Comparison, all: bool) -> Vec<&Row> {
    let mut shown: Vec<&Row> = c.rows.iter().filter(|r| all || changed(r)).collect();
    let mut order: Vec<&str> = Vec::new();
    for r in &c.rows {
        if !order.contains(&r.experiment.as_str()) {
            order.push(&r.experiment);
        }
    }
    let at = |r: &Row| order.iter().position(|e| *e == r.experiment);
    shown.sort_by(|a, b| {
        let size = |r: &Row| {
            let x = (1.0 + r.change / 100.0).abs().ln().abs();
            if x.is_nan() {
                f64::NEG_INFINITY
            } else {
                x
            }
        };
        at(a).cmp(&at(b)).then(size(b).total_cmp(&size(a)))
    });
    shown
}

/// A row's figures: base, new, change, interval, mde, verdict.
fn figures(r: &Row) -> Vec<String> {
    vec![
        fmt_value(r.base, r.unit),
        fmt_value(r.new, r.unit),
        signed(r.change),
        crate::units::fmt_interval(&signed(r.ci_lo), &signed(r.ci_hi)),
        if r.mde.is_finite() {
            format!("{:.0}%", r.mde)
        } else {
            "n/a".into()
        },
        verdict_word(r),
    ]
}

/// Too narrow for columns: a series a line, its figures under it.
fn stacked(shown: &[&Row], width: usize) -> String {
    let mut s = String::new();
    for r in shown {
        s.push_str(&fit::line(&series_name(r), width, "", "  "));
        let f = figures(r);
        let verdict = f[5].clone();
        let pieces = vec![
            format!("{} -> {}", f[0], f[1]),
            format!("{} {}", f[2], f[3]),
            format!("mde {}", f[4]),
            verdict.clone(),
        ];
        let text = fit::pack(&pieces, width, "    ", "    ", "  ");
        // Painted after packing: the verdict is whole on its line.
        s.push_str(&match text.rfind(&verdict) {
            Some(i) => format!(
                "{}{}{}",
                &text[..i],
                Tone::of(r).paint(&verdict),
                &text[i + verdict.len()..]
            ),
            None => text,
        });
    }
    s
}

/// A row's series in words: experiment, metric and case.
fn series_name(r: &Row) -> String {
    [r.experiment.as_str(), r.metric.as_str(), r.case.as_str()]
        .iter()
        .filter(|x| !x.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join(" ")
}

/// What the exit status rests on: the consistent regressions (each series
/// with how many of its experiment's points moved), then the isolated ones
/// grouped by family, with whether they fail it.
fn gate_lines(c: &Comparison, width: usize) -> String {
    let (consistent, isolated) = c.regressions();
    let mut s = String::new();
    if !consistent.is_empty() {
        s.push_str(&fit::line(
            &format!(
                "consistent: {} regressed {} moved the same way across their experiment's points: the exit status is 1",
                consistent.len(),
                if consistent.len() == 1 { "row" } else { "rows" }
            ),
            width,
            "",
            "  ",
        ));
    }
    if !isolated.is_empty() {
        let mut fams: Vec<(&str, Vec<&Row>)> = Vec::new();
        for r in &isolated {
            match fams.iter_mut().find(|(f, _)| *f == r.family) {
                Some((_, v)) => v.push(r),
                None => fams.push((&r.family, vec![r])),
            }
        }
        let named: Vec<String> = fams
            .iter()
            .map(|(_, rows)| {
                let r = rows[0];
                let point = point_words(c, &r.family);
                format!("{} at {point} ({})", r.experiment, rows.len())
            })
            .collect();
        let fails = if c.strict {
            "--strict: the exit status is 1"
        } else {
            "they do not fail the exit status (--strict would); confirm with more runs a side or tasklab ab"
        };
        s.push_str(&fit::line(
            &format!(
                "isolated: {} regressed {}, {}; the same series at the experiment's other points did not move the same way: {fails}",
                isolated.len(),
                if isolated.len() == 1 { "row" } else { "rows" },
                named.join(", ")
            ),
            width,
            "",
            "  ",
        ));
    }
    s
}

/// A family's point in words: the labels every one of its rows has
/// ("heap=256MiB"), or "its one point".
fn point_words(c: &Comparison, family: &str) -> String {
    let rows: Vec<&Row> = c.rows.iter().filter(|r| r.family == family).collect();
    let Some(first) = rows.first() else {
        return family.to_string();
    };
    let common: crate::results::Labels = first
        .labels
        .iter()
        .filter(|(k, v)| rows.iter().all(|r| r.labels.get(*k) == Some(*v)))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let case = crate::results::case_of(&common);
    if case.is_empty() {
        "its one point".into()
    } else {
        case
    }
}

/// The verdict counts, what the gate rests on, and each inconclusive
/// reason with its rows' mde and their next step; fitted to `width`.
fn counts(c: &Comparison, all: bool, width: usize) -> String {
    let n = |v: Verdict| c.count(v);
    let some = |k: usize, word: &str, paint: fn(&str) -> String| {
        let t = format!("{k} {word}");
        if k > 0 {
            paint(&t)
        } else {
            t
        }
    };
    let text = format!(
        "{}, {}, {} changed, {} unchanged, {} inconclusive of {} series (threshold ±{}%: regressed or improved needs the whole 95% interval beyond it and a discovery at a false discovery rate of {}% across {} families, unchanged needs the interval wholly within{})",
        some(n(Verdict::Regressed), "regressed", paint::bad),
        some(n(Verdict::Improved), "improved", paint::good),
        n(Verdict::Changed),
        n(Verdict::Unchanged),
        n(Verdict::Inconclusive),
        c.rows.len(),
        c.threshold_pct,
        c.discoveries.q_pct,
        c.discoveries.families,
        if all { "" } else { "; --all shows every series" }
    );
    // Wrapped plain, then painted: the escapes take no columns.
    let plain = paint::strip(&text);
    let mut s = fit::line(&plain, width, "", "  ");
    for (k, word, f) in [
        (
            n(Verdict::Regressed),
            "regressed",
            paint::bad as fn(&str) -> String,
        ),
        (n(Verdict::Improved), "improved", paint::good),
    ] {
        let t = format!("{k} {word}");
        if k > 0 && paint::on() {
            s = s.replacen(&t, &f(&t), 1);
        }
    }
    s.push_str(&gate_lines(c, width));
    let inconclusive = n(Verdict::Inconclusive);
    if inconclusive > 0 && n(Verdict::Regressed) == 0 {
        s.push_str(&fit::line(
            &format!(
                "no regression among the {} decided series; {}",
                c.rows.len() - inconclusive,
                if inconclusive == 1 {
                    "the inconclusive one is not unchanged: it could hide a change up to its mde".to_string()
                } else {
                    format!("the {inconclusive} inconclusive ones are not unchanged: each could hide a change up to its mde")
                }
            ),
            width,
            "",
            "  ",
        ));
    }
    let reasons = c.inconclusive_reasons();
    if !reasons.is_empty() {
        let setting = &c.setting;
        s.push_str(&fit::line(
            "inconclusive (they do not fail the gate unless --fail-on-inconclusive or --min-verdicts asks):",
            width,
            "",
            "  ",
        ));
        for (why, k) in reasons {
            let rows: Vec<&Row> = c.rows.iter().filter(|r| r.reason() == Some(why)).collect();
            let mdes: Vec<f64> = rows
                .iter()
                .map(|r| r.mde)
                .filter(|m| m.is_finite())
                .collect();
            let mde = crate::stats::median(&mdes)
                .map_or(String::new(), |m| format!(" (median mde {m:.0}%)"));
            let needs: Vec<_> = rows
                .iter()
                .filter_map(|r| r.inconclusive.as_ref())
                .map(|i| i.narrow)
                .collect();
            let step = super::next::group_step(why, &needs, setting);
            s.push_str(&fit::line(
                &format!("{k} {}{mde}: {step}", why.short()),
                width,
                "  ",
                "    ",
            ));
        }
    }
    s
}
