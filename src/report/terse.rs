//! The terminal's answer on one screen: the machine in a line or two, a
//! few findings per experiment, the Summary (the report's own sentences,
//! last so the last screen holds it), the warnings and where the report
//! is; at most [`MAX_LINES`] lines, each fitted to the terminal's width. The tables are in the report, and on
//! the terminal under `--tables` / `-v` or when experiments are named.

use super::table::wrap;
use crate::results::{RunResults, RunStatus, Status};
use std::path::PathBuf;

/// The most lines the terse output takes (the findings give way first).
pub const MAX_LINES: usize = 80;

/// The width when stdout is no terminal (a file, a pipe, a test).
pub const DEFAULT_WIDTH: usize = 100;

/// Findings shown per experiment, at most.
const FINDINGS_EACH: usize = 3;

/// Lines one finding takes, at most (the report has it whole).
const FINDING_LINES: usize = 2;

/// The narrowest width the output is fitted to: below it, lines are let run.
const NARROWEST: usize = 40;

/// The width to fit the output to: the terminal's on stdout, else
/// [`DEFAULT_WIDTH`].
pub fn width() -> usize {
    crate::sys::tty::stdout_columns()
        .unwrap_or(DEFAULT_WIDTH)
        .max(NARROWEST)
}

/// Where this run's files are, for the last lines.
#[derive(Clone, Debug, Default)]
pub struct Paths {
    /// report.html
    pub report: PathBuf,
    /// results.json
    pub results: PathBuf,
    /// previous.json, when the folder kept the run before this one.
    pub previous: Option<PathBuf>,
}

/// `parts` joined by " · ", a new line (indented) where the next would not
/// fit in `width`.
fn joined(parts: &[String], width: usize) -> String {
    let mut out = String::new();
    let mut at = 0;
    for p in parts {
        let w = p.chars().count();
        if at == 0 {
            out.push_str(p);
            at = w;
        } else if at + 3 + w > width {
            out.push_str("\n  ");
            out.push_str(p);
            at = 2 + w;
        } else {
            out.push_str(" · ");
            out.push_str(p);
            at += 3 + w;
        }
    }
    out
}

/// What ran where: tasklab, the profile, the machine, its kernel and
/// whether it is virtualised; ends with a newline.
pub fn header(r: &RunResults, width: usize) -> String {
    let e = &r.env;
    // A clock in MHz as the report writes it everywhere (the environment,
    // the seed table, the rounds' range just after): no digit grouping, so
    // one line never reads "3,979 MHz ... (rounds 3863–3983 MHz)".
    let mhz = match (r.calibration.measured_mhz, e.stated_mhz.or(e.cpuinfo_mhz)) {
        (Some(m), Some(s)) => format!(", {m:.0} MHz measured, {s:.0} stated"),
        (Some(m), None) => format!(", {m:.0} MHz measured"),
        (None, Some(s)) => format!(", {s:.0} MHz stated"),
        (None, None) => String::new(),
    };
    // The clock each round counted, where the file has it: the host may
    // change it between rounds, so one reading does not stand for the run.
    let rounds = crate::stats::drift_range(&r.round_mhz())
        .map(|(lo, hi)| format!(" (rounds {lo:.0}–{hi:.0} MHz, 10th–90th percentile)"))
        .unwrap_or_default();
    let mhz = format!("{mhz}{rounds}");
    let parts = [
        format!("tasklab {}", r.tool_version),
        format!("{} profile", r.profile),
        format!("{} ({} CPUs{mhz})", e.cpu_model, e.cpus_online),
        format!("Linux {}", e.kernel),
        e.virtualization
            .as_deref()
            .map_or("bare metal".to_string(), |v| format!("virtualised ({v})")),
        format!("THP {}", e.thp_enabled.as_deref().unwrap_or("unknown")),
    ];
    let mut parts = parts.to_vec();
    parts.extend(quota(r));
    format!("{}\n", joined(&parts, width))
}

/// The cgroup's CPU quota, when there is one, and how often it throttled
/// this run ("CPU quota 1.50 CPUs, throttled 3 times (12.0 ms held back)
/// during the run"); None without a quota.
pub fn quota(r: &RunResults) -> Option<String> {
    let q = r.env.facts.cgroup.cpu_quota_cpus?;
    let during = match r.busy.as_ref().and_then(|b| b.throttled) {
        Some(t) if t.nr_throttled > 0 => format!(", throttled {} during the run", t.words()),
        Some(_) => ", not throttled during the run".to_string(),
        None if r.finished_unix_s.is_none() => String::new(),
        None => ", throttling during the run not recorded".to_string(),
    };
    Some(format!("CPU quota {q:.2} CPUs{during}"))
}

/// The lines of one finding of experiment `name`, aligned after the names,
/// at most [`FINDING_LINES`]: a longer one ends at the last clause that
/// fits (never inside brackets), marked with "…".
fn finding(name: &str, text: &str, first: bool, indent: usize, width: usize) -> Vec<String> {
    let lead = if first {
        format!("{name:indent$}")
    } else {
        " ".repeat(indent)
    };
    let rest = " ".repeat(indent);
    let lines = |t: &str| -> Vec<String> {
        wrap(t, width, &lead, &rest)
            .lines()
            .map(String::from)
            .collect()
    };
    let whole = lines(text);
    if whole.len() <= FINDING_LINES {
        return whole;
    }
    let balanced = |t: &str| t.matches('(').count() == t.matches(')').count();
    let mut cuts: Vec<usize> = text
        .char_indices()
        .filter(|&(i, c)| matches!(c, ';' | ':' | ',') && text[i + 1..].starts_with(' '))
        .map(|(i, _)| i)
        .collect();
    // Failing every clause, the last word that fits.
    cuts.extend(
        text.char_indices()
            .filter(|&(_, c)| c == ' ')
            .map(|(i, _)| i),
    );
    cuts.sort_unstable();
    cuts.dedup();
    let clause = |i: usize| matches!(text.as_bytes()[i], b';' | b':' | b',');
    let fits = |i: &usize| {
        let cut = format!("{} …", &text[..*i]);
        lines(&cut).len() <= FINDING_LINES
    };
    // A clause that ends well before the lines do gives way to more words.
    let word = cuts.iter().rev().find(|i| fits(i));
    let best = cuts
        .iter()
        .rev()
        .filter(|&&i| clause(i) && balanced(&text[..i]))
        .find(|i| fits(i))
        .filter(|&&i| word.is_none_or(|&w| i * 5 >= w * 3))
        .or(word);
    match best {
        Some(&i) => lines(&format!("{} …", &text[..i])),
        None => whole,
    }
}

/// Each experiment's finding lines: its first finding (or why it did not
/// run), then a second and a third while the lines left allow, in
/// experiment order; `budget` lines in all, though every experiment keeps
/// its first.
fn findings(r: &RunResults, width: usize, budget: usize) -> Vec<String> {
    let name_cols = r
        .experiments
        .iter()
        .map(|e| e.name.chars().count() + 2)
        .max()
        .unwrap_or(0);
    // A narrow terminal puts the text under the name, not beside it.
    let indent = if width >= name_cols + 40 {
        name_cols
    } else {
        2
    };
    let texts: Vec<Vec<String>> = r
        .experiments
        .iter()
        .map(|e| match e.status {
            Status::Ok if e.findings.is_empty() => e
                .partial_words()
                .into_iter()
                .chain(["measured; no finding".to_string()])
                .collect(),
            Status::Ok => e
                .partial_words()
                .into_iter()
                .chain(e.findings.iter().take(FINDINGS_EACH).cloned())
                .collect(),
            Status::Failed => vec![format!(
                "failed: {}",
                e.reason.as_deref().unwrap_or("unknown reason")
            )],
            Status::Skipped => vec![format!(
                "skipped: {}",
                e.reason.as_deref().unwrap_or("no reason given")
            )],
        })
        .collect();
    let lines_of = |i: usize, k: usize| {
        let e = &r.experiments[i];
        let lead = if indent == 2 { Some(&e.name) } else { None };
        let mut v = Vec::new();
        if k == 0 {
            if let Some(name) = lead {
                v.push(name.clone());
            }
        }
        let first = k == 0 && lead.is_none();
        v.extend(finding(&e.name, &texts[i][k], first, indent, width));
        v
    };
    // How many findings each experiment shows.
    let mut shown: Vec<usize> = texts.iter().map(|t| t.len().min(1)).collect();
    let mut used: usize = (0..texts.len())
        .filter(|&i| shown[i] > 0)
        .map(|i| lines_of(i, 0).len())
        .sum();
    if used > budget {
        // Too narrow or too many experiments for even one whole finding
        // each: one line per experiment, its first finding cut to fit.
        return texts
            .iter()
            .zip(&r.experiments)
            .filter_map(|(t, e)| {
                t.first()
                    .map(|f| one_line(&format!("{}: {f}", e.name), width))
            })
            .collect();
    }
    for k in 1..FINDINGS_EACH {
        for i in 0..texts.len() {
            if shown[i] == k && texts[i].len() > k {
                let more = lines_of(i, k).len();
                if used + more <= budget {
                    used += more;
                    shown[i] += 1;
                }
            }
        }
    }
    (0..texts.len())
        .flat_map(|i| (0..shown[i]).flat_map(move |k| lines_of(i, k)))
        .collect()
}

/// `text` on one line of `width` columns, cut at a word and ended with "…"
/// when it is longer.
fn one_line(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut out = String::new();
    for word in text.split(' ') {
        if out.chars().count() + word.chars().count() + 2 > width {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out.push('…');
    out
}

/// What a Summary figure's unit may be, the word after its number.
const UNITS: &[&str] = &[
    "ns", "µs", "ms", "s", "B", "KiB", "MiB", "GiB", "TiB", "GB/s", "MB/s", "/s", "%",
];

/// Whether `w` is a number as the Summary writes one: "151.6", "10.6x",
/// "±12%", "1,234", "-0.5".
fn is_number(w: &str) -> bool {
    let digits = w.trim_start_matches(['±', '-', '−', '~']);
    digits.starts_with(|c: char| c.is_ascii_digit())
        && digits
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, ',' | '.' | 'x' | '%'))
}

/// `line` with each figure in it ("151.6 ns", "10.6x", "±12%") passed
/// through `bold`, its brackets and punctuation left outside: the Summary's
/// figures stand out. Applied after the line is fitted to the width.
pub fn bold_figures(line: &str, bold: impl Fn(&str) -> String) -> String {
    let split = |w: &str| -> (usize, usize) {
        let lead = w.len() - w.trim_start_matches(['(', '[']).len();
        let trail = w.len() - w.trim_end_matches([',', ';', ':', ')', ']', '.']).len();
        (lead, w.len().saturating_sub(trail).max(lead))
    };
    let words: Vec<&str> = line.split(' ').collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        let (a, b) = split(w);
        let core = &w[a..b];
        if !is_number(core) {
            out.push(w.to_string());
            i += 1;
            continue;
        }
        // A number and its unit, when the unit is the next word.
        if b == w.len() {
            if let Some(next) = words.get(i + 1) {
                let (na, nb) = split(next);
                if na == 0 && UNITS.contains(&&next[..nb]) {
                    out.push(format!(
                        "{}{}{}",
                        &w[..a],
                        bold(&format!("{core} {}", &next[..nb])),
                        &next[nb..]
                    ));
                    i += 2;
                    continue;
                }
            }
        }
        out.push(format!("{}{}{}", &w[..a], bold(core), &w[b..]));
        i += 1;
    }
    out.join(" ")
}

/// The Summary block: its title, its sentences (figures bold), how many
/// experiments were measured and what failed. A run none of whose figures
/// the Summary is made of (a few experiments named) gets no Summary title:
/// its tables or findings are the answer.
fn summary_lines(r: &RunResults, width: usize) -> Vec<String> {
    let sentences = super::headlines::sentences(r);
    let mut why = super::why::terminal_lines(r);
    let mut out = vec![String::new()];
    if !sentences.is_empty() {
        out.push(crate::paint::bold("Summary"));
    }
    for (i, (experiment, s)) in sentences.iter().enumerate() {
        out.extend(
            wrap(s, width, "  • ", "    ")
                .lines()
                .map(|l| bold_figures(l, crate::paint::bold)),
        );
        // --why: an experiment's attributions under its last sentence.
        if sentences
            .get(i + 1)
            .is_none_or(|(next, _)| next != experiment)
        {
            for (_, line) in why.extract_if(.., |(e, _)| *e == Some(*experiment)) {
                out.extend(
                    wrap(&line, width, "    ", "      ")
                        .lines()
                        .map(String::from),
                );
            }
        }
    }
    let indent = if sentences.is_empty() { "" } else { "  " };
    let rest = if sentences.is_empty() { "  " } else { "    " };
    for (_, line) in why {
        out.extend(wrap(&line, width, indent, rest).lines().map(String::from));
    }
    out.extend(
        wrap(&super::measured_sentence(r), width, indent, rest)
            .lines()
            .map(String::from),
    );
    for f in super::failures(r) {
        let first = format!("{indent}• ");
        out.extend(wrap(&f, width, &first, rest).lines().map(String::from));
    }
    out
}

/// The findings (unless the tables already showed them), then the Summary,
/// the warnings and where the files are: what follows the header, in
/// `budget` lines when it can be (the findings give way). The Summary comes
/// last before the warnings and the paths, so the last screen holds it.
pub fn body(
    r: &RunResults,
    width: usize,
    with_findings: bool,
    paths: &Paths,
    budget: usize,
) -> String {
    let summary = summary_lines(r, width);
    let mut bottom = Vec::new();
    // An interrupted run says how far it came in a warning of its own.
    if r.status == RunStatus::Partial && r.interrupted.is_none() {
        bottom.push(wrap(
            "warning: this run was interrupted: the results are partial",
            width,
            "",
            "  ",
        ));
    }
    for w in &r.warnings {
        bottom.push(wrap(&format!("warning: {w}"), width, "", "  "));
    }
    bottom.push(String::new());
    // Paths stay whole on their lines, to be copied.
    bottom.push(format!("report:  {}", paths.report.display()));
    bottom.push(format!("results: {}", paths.results.display()));
    if let Some(prev) = &paths.previous {
        bottom.push("against the run before:".into());
        bottom.push(format!(
            "  tasklab compare {} {}",
            prev.display(),
            paths.results.display()
        ));
    }
    let bottom: Vec<String> = bottom.join("\n").lines().map(String::from).collect();
    let mut out: Vec<String> = Vec::new();
    if with_findings && !r.experiments.is_empty() {
        let head = "Findings, shortened where they end in … (--tables shows the tables, the report has everything)";
        out.push(String::new());
        out.extend(wrap(head, width, "", "  ").lines().map(String::from));
        // The seeds the findings shown name are cited in full after them,
        // in lines the findings give up.
        let fixed = out.len() + summary.len() + bottom.len();
        let room = budget.saturating_sub(fixed);
        let mut shown = findings(r, width, room);
        let mut cited = super::seeds::sources(&shown.join("\n"), width);
        if !cited.is_empty() {
            shown = findings(r, width, room.saturating_sub(cited.len() + 1));
            cited = super::seeds::sources(&shown.join("\n"), width);
        }
        out.extend(shown);
        if !cited.is_empty() {
            out.push("Sources:".into());
            out.extend(cited);
        }
    }
    out.extend(summary);
    // One blank line before the warnings or the paths.
    let skip = usize::from(
        bottom.first().is_some_and(|l| l.is_empty()) && out.last().is_some_and(|l| l.is_empty()),
    );
    out.extend(bottom.into_iter().skip(skip));
    let mut s = out.join("\n");
    s.push('\n');
    s
}

/// The whole terse output, at most [`MAX_LINES`] lines when every
/// experiment's first finding fits: the header, then the [`body`].
pub fn terse(r: &RunResults, width: usize, paths: &Paths) -> String {
    let head = header(r, width);
    let budget = MAX_LINES.saturating_sub(head.lines().count());
    format!("{head}{}", body(r, width, true, paths, budget))
}

#[cfg(test)]
#[path = "terse_tests.rs"]
mod tests;
