//! Every seed figure beside ours: the ratio, and where they are more than 2x
//! apart, a one-line reason drawn from what differs (virtualisation, CPU,
//! kernel, method).

use super::doc::Table;
use super::table::seed_text;
use crate::experiments;
use crate::experiments::spawn::placement::Placement;
use crate::experiments::spec::Beside;
use crate::experiments::switch;
use crate::metric::key::PLACEMENT;
use crate::metric::Kind as SeriesKind;
use crate::results::{
    case, ExperimentResult, Metric, RunResults, SeedCompare, SeedRef, SeedStat, Unit,
};
use crate::stats::compare_text::{imprecise, plus_minus};
use crate::units::fmt_value;

/// The seed articles `text` names by their short label, each cited once in
/// full for the terminal: "Sysel: Martin Sysel, “Title” https://…", the
/// address whole on a line of its own where the line would pass `width`,
/// and left out where it would not fit even there.
pub fn sources(text: &str, width: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut done: Vec<&str> = Vec::new();
    for c in experiments::seeds::CITATIONS {
        if done.contains(&c.short) || !text.contains(c.short) {
            continue;
        }
        done.push(c.short);
        let line = format!("{}: {}", c.short, c.full());
        let line = super::table::wrap(&line, width, "  ", "    ");
        out.extend(line.lines().map(String::from));
        if let Some(url) = c.url {
            let last = out.last_mut().expect("a line");
            if last.chars().count() + 1 + url.chars().count() <= width {
                last.push(' ');
                last.push_str(url);
            } else if 4 + url.chars().count() <= width {
                out.push(format!("    {url}"));
            }
        }
    }
    out
}

/// Further apart than this (either way), a row says why.
pub const EXPLAIN_BEYOND: f64 = 2.0;

/// The seed table's columns, the seed's machine and the likely causes
/// among them.
const HEAD: [&str; 8] = [
    "experiment",
    "figure",
    "ours (same statistic)",
    "seed",
    "seed's machine",
    "ours/seed",
    "statistic and protocol",
    "likely causes (from this machine's recorded facts)",
];
/// The column of the seed's machine, given once per article when grouped.
const MACHINE: usize = 4;
/// The column of the seed's figure, labelled with its source when flat.
const SEED: usize = 3;

/// Every seed figure of the run in one table, each row labelled with its
/// source and the seed's machine.
pub fn table(r: &RunResults) -> Table {
    Table {
        head: HEAD.map(String::from).to_vec(),
        rows: rows(r).into_iter().map(|(_, row)| row).collect(),
        right: vec![2, 5],
    }
}

/// The seed figures of one article: its anchor and label, the machine and
/// what its ranges sweep (said once), and its rows.
#[derive(Clone, Debug)]
pub struct Group {
    /// The anchor of the article's reference (`seed-004`).
    pub anchor: String,
    /// The citation's short label ("Sysel").
    pub short: String,
    /// The seed's machine, as every row of the article had it.
    pub machine: String,
    /// What the article's ranges sweep, when they sweep something.
    pub sweep: Option<String>,
    /// Without the machine column; the seed's figure without its label.
    pub table: Table,
}

/// The seed figures grouped by article, in the order of the citations:
/// the long texts (the machine, what a range sweeps) given once per
/// article, not on every row.
pub fn groups(r: &RunResults) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::new();
    let mut sweeps: Vec<(String, String)> = Vec::new();
    for e in &r.experiments {
        for m in &e.metrics {
            if let Some(s) = &m.seed {
                if let Some(w) = &s.sweep {
                    sweeps.push((experiments::seeds::anchor(&s.source), w.clone()));
                }
            }
        }
    }
    for (source, mut row) in rows(r) {
        let anchor = experiments::seeds::anchor(&source);
        let machine = row.remove(MACHINE);
        let label = format!(" ({})", experiments::seeds::cite_short(&source));
        if let Some(fig) = row[SEED].strip_suffix(label.as_str()) {
            row[SEED] = fig.to_string();
        }
        let sweep = sweeps
            .iter()
            .find(|(a, _)| *a == anchor)
            .map(|(_, w)| w.clone());
        // What a sweep means is said once, above the article's rows.
        let last = row.len() - 1;
        if sweep.as_ref().is_some_and(|w| row[last] == sweep_words(w)) {
            row[last].clear();
        }
        let at = match out.iter().position(|g| g.anchor == anchor) {
            Some(i) => i,
            None => {
                let head: Vec<String> = HEAD
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| i != MACHINE)
                    .map(|(_, h)| h.to_string())
                    .collect();
                out.push(Group {
                    anchor: anchor.clone(),
                    short: experiments::seeds::cite_short(&source),
                    machine: machine.clone(),
                    sweep,
                    table: Table {
                        head,
                        rows: Vec::new(),
                        right: vec![2, 4],
                    },
                });
                out.len() - 1
            }
        };
        let g = &mut out[at];
        // A row on another machine than the article's first says so.
        if machine != g.machine {
            row[last] = [row[last].as_str(), &format!("seed's machine: {machine}")]
                .iter()
                .filter(|t| !t.is_empty())
                .copied()
                .collect::<Vec<_>>()
                .join("; ");
        }
        g.table.rows.push(row);
    }
    let order = |g: &Group| {
        experiments::seeds::CITATIONS
            .iter()
            .position(|c| experiments::seeds::anchor(c.file) == g.anchor)
            .unwrap_or(usize::MAX)
    };
    out.sort_by_key(order);
    out
}

/// What "within" means for a range that sweeps `w`.
fn sweep_words(w: &str) -> String {
    format!("his range is a sweep of {w}: within it means within the range he swept")
}

/// Every seed row: the seed file it cites, and its cells.
fn rows(r: &RunResults) -> Vec<(String, Vec<String>)> {
    let mut rows = Vec::new();
    for e in &r.experiments {
        for m in e.metrics.iter().filter(|m| m.seed.is_some()) {
            let s = m.seed.as_ref().expect("filtered");
            let ours = m.seed_ours().unwrap_or(m.summary.median);
            let sm = &m.summary;
            // The same rules as the findings: a flagged or imprecise figure
            // carries its mark and states no cause; a cause is given only
            // when the whole interval of the ratio lies beyond 2x.
            // Below a lower bound, ours is below his figure by at least
            // the bound over our interval's upper end: that ratio, not our
            // median's, is the one the words may state.
            let compared = match m.seed_compare() {
                Some(SeedCompare::Ratio(_)) if s.lower_bound => m
                    .seed_ratio_interval()
                    .map(|(_, _, hi)| SeedCompare::Ratio(hi)),
                c => c,
            };
            let why = match compared {
                Some(SeedCompare::Ratio(x)) if !outside(x) => String::new(),
                Some(SeedCompare::Ratio(x)) if sm.unstable => format!(
                    "{}: ours is flagged (!), so no cause is stated",
                    apart_words(x)
                ),
                Some(SeedCompare::Ratio(x)) if imprecise(sm) => format!(
                    "{}: ours is imprecise (~), so no cause is stated",
                    apart_words(x)
                ),
                Some(SeedCompare::Ratio(x)) if beyond(m) && !s.protocol.is_empty() => {
                    protocol_reason(x, &s.protocol)
                }
                Some(SeedCompare::Ratio(x)) if beyond(m) => reason(r, &e.name, m, x),
                Some(SeedCompare::Ratio(x)) => format!(
                    "{}: the interval of the ratio reaches within {EXPLAIN_BEYOND}x, so no cause is stated",
                    apart_words(x)
                ),
                Some(SeedCompare::Unlike(why)) => why,
                // A scaled figure is one value: "within" a sweep is said
                // only of a range compared as published.
                Some(SeedCompare::Within) if s.clock_mhz.is_none() => {
                    s.sweep.as_deref().map(sweep_words).unwrap_or_default()
                }
                Some(SeedCompare::Within | SeedCompare::Reaches | SeedCompare::NotBelow) | None => {
                    String::new()
                }
            };
            // ... and says "at least" ([`SeedRef::lower_bound`]).
            let why = if s.lower_bound && !why.is_empty() && m.seed_ratio().is_some() {
                format!("at least {why}")
            } else {
                why
            };
            let mark = sm.spaced_mark();
            // ±X% is the median's interval: quoted beside a median (or
            // single calls or one reading, compared by our median), not a
            // mean or a minimum, which carry the mark alone.
            let by_median = matches!(
                s.statistic,
                SeedStat::Median | SeedStat::Single | SeedStat::OneReading | SeedStat::Unstated
            );
            let declared =
                experiments::find(&e.name).and_then(|x| x.seed_figure(&m.name, &m.labels));
            let beside = declared
                .and_then(|f| f.beside)
                .and_then(|b| beside_text(e, m, s.statistic, &b))
                .map(|t| format!("; {t}"))
                .unwrap_or_default();
            let pm = if by_median && (sm.unstable || imprecise(sm)) && sm.half_width().is_finite() {
                format!(" {}", plus_minus(sm.half_width()))
            } else {
                String::new()
            };
            rows.push((
                s.source.clone(),
                vec![
                    e.name.clone(),
                    format!("{} {}", m.name, case(m)).trim().to_string(),
                    format!(
                        "{}{pm}{mark} ({}){beside}",
                        fmt_value(ours, m.unit),
                        match s.statistic {
                            _ if !s.protocol.is_empty() => "median; not the seed's protocol",
                            // Ours is never one reading, and always of a
                            // stated statistic: the median of ours is what
                            // is held against such a figure.
                            SeedStat::OneReading | SeedStat::Unstated => SeedStat::Median.word(),
                            stat => stat.word(),
                        }
                    ),
                    seed_text(m),
                    s.hardware.clone(),
                    m.seed_compare_text(),
                    how(s, declared.map_or("", |f| f.caveat)),
                    why,
                ],
            ));
        }
    }
    rows
}

/// How ours, a median with its interval, is held against the seed's one
/// reading, which has none.
pub const ONE_READING: &str = "ours the median of repetitions, above or below a reading (which has no interval) only where its whole 95% interval is, else neither";

/// How ours, a median with its interval, is held against a seed figure
/// whose statistic the seed does not state.
pub const UNSTATED: &str = "ours the median of repetitions, above or below his figure (of a statistic he does not state) only where its whole 95% interval is, else neither";

/// What a row says of how each figure was taken: the seed's statistic
/// and protocol, ours where it differs, the seed's figure scaled to our
/// clock where it was, and what else differs (`caveat`).
fn how(s: &SeedRef, caveat: &str) -> String {
    let ours = match s.statistic {
        SeedStat::Single if s.cold => "ours the median of first calls, each in a fresh process",
        SeedStat::Single => "ours the median of repetitions",
        SeedStat::CountOverTime => {
            "ours all runs' iterations over all their time (not the mean of the runs' rates)"
        }
        SeedStat::Mean => "ours the mean of repetitions",
        SeedStat::Median => "ours the median of repetitions",
        SeedStat::Min => "ours the fastest repetition",
        SeedStat::OneReading => ONE_READING,
        SeedStat::Unstated => UNSTATED,
    };
    let mut parts = vec![
        format!("the seed: {}, {}", s.statistic.word(), s.method),
        ours.to_string(),
    ];
    parts.extend(s.scaling_text());
    if !caveat.is_empty() {
        parts.push(caveat.to_string());
    }
    parts.join("; ")
}

/// Ours of the series a seed row shows beside the compared one (`b`), by
/// the seed's statistic: "885.0 ns malloc'd neighbours (dst+16)".
fn beside_text(e: &ExperimentResult, m: &Metric, stat: SeedStat, b: &Beside) -> Option<String> {
    let name = if b.metric.is_empty() {
        m.name.as_str()
    } else {
        b.metric
    };
    let mut labels = m.labels.clone();
    for (k, v) in b.labels {
        labels.insert((*k).to_string(), (*v).to_string());
    }
    let other = e
        .metrics
        .iter()
        .find(|o| o.name == name && o.labels == labels)?;
    let v = match stat {
        SeedStat::Mean => other.summary.mean,
        SeedStat::Min => other.summary.min,
        SeedStat::CountOverTime => crate::results::count_over_time(&other.samples)?,
        SeedStat::Median | SeedStat::Single | SeedStat::OneReading | SeedStat::Unstated => {
            other.summary.median
        }
    };
    let text = if other.unit == Unit::Count {
        crate::units::fmt_num(v, 1)
    } else {
        fmt_value(v, other.unit)
    };
    let above = match b.above {
        Some((v, words)) if other.summary.ci95_lo > v => format!(" ({words})"),
        _ => String::new(),
    };
    Some(format!(
        "{text} {}{}{above}",
        b.words,
        other.summary.spaced_mark()
    ))
}

/// Whether the whole interval of ours over the seed's lies beyond
/// [`EXPLAIN_BEYOND`] (either way), for a figure that is not flagged.
pub fn beyond(m: &Metric) -> bool {
    let Some((r, lo, hi)) = m.seed_ratio_interval() else {
        return false;
    };
    !m.summary.unstable && outside(r) && outside(lo) && outside(hi) && (lo > 1.0) == (hi > 1.0)
}

/// Whether a ratio is more than [`EXPLAIN_BEYOND`] either way.
pub fn outside(x: f64) -> bool {
    !(1.0 / EXPLAIN_BEYOND..=EXPLAIN_BEYOND).contains(&x)
}

/// "3.1x higher" / "2.5x lower": how far apart, no cause.
fn apart_words(ratio: f64) -> String {
    if ratio > 1.0 {
        format!("{ratio:.1}x higher")
    } else {
        format!("{:.1}x lower", 1.0 / ratio)
    }
}

/// A gap whose likely cause is the protocol, not the machine: the seed's
/// figure was taken another way (`protocol` says how), so no CPU or kernel
/// is blamed for it.
pub fn protocol_reason(ratio: f64, protocol: &str) -> String {
    let more = ratio > 1.0;
    format!(
        "{:.1}x {}: the protocols differ: {protocol}",
        if more { ratio } else { 1.0 / ratio },
        if more { "higher" } else { "lower" },
    )
}

/// The likely causes of a figure `ratio` times the seed's, drawn from what
/// this run recorded and chosen by what the figure of `experiment` measures
/// (its declared kind): page tables and first touches for creation, wake-ups
/// for hand-offs, the clock and the CPU for the rest.
pub fn reason(r: &RunResults, experiment: &str, m: &Metric, ratio: f64) -> String {
    let env = &r.env;
    let mut parts: Vec<String> = Vec::new();
    let timing = matches!(m.unit, Unit::Ns | Unit::PerSecond);
    let slower = timing && ((ratio > 1.0) == (m.unit == Unit::Ns));
    let kind = quantity(experiment, m);
    let guest = env.virtualization.as_deref();
    // A gap only across CPUs: what every kernel entry or the CPU costs
    // would show on one CPU too, so only the hand-off's path is named.
    if let Some(same) = gap_only_across_cpus(r, experiment, m, ratio) {
        return across_cpus_reason(r, experiment, m, same, ratio);
    }
    // `run --why`: where the figure's time went, measured, comes first; it
    // replaces the guesses about page tables (a measured copy of them or
    // zeroing of pages is the cause, not nested paging in general). A
    // wake-up's waiting is halted time, which no sample sees: its guess
    // stays.
    let measured = r
        .measured(experiment)
        .and_then(|e| super::why::covering(e, &m.labels))
        .map(|a| (a, super::why::top_words(a, 2)))
        .filter(|(_, top)| !top.is_empty());
    if let Some((a, top)) = &measured {
        parts.push(format!(
            "measured here (--why, {} samples in {} rounds): {top} of its sampled CPU time{}",
            a.samples,
            a.rounds,
            if kind == Kind::WakeUp {
                ", the wait for the woken CPU unsampled (halted)"
            } else {
                ""
            }
        ));
    }
    if slower {
        match (kind, guest) {
            (Kind::PageTables, Some(_)) if measured.is_some() => {}
            (Kind::PageTables, Some(v)) => {
                parts.push(format!(
                    "a {v} guest: with nested paging a TLB miss walks two levels of page tables"
                ));
                if let Some(b) = env.facts.balloon.first() {
                    parts.push(format!(
                        "{b}: memory handed back to the host faults in the host again on first touch"
                    ));
                }
                if !env.facts.pcid {
                    parts.push(
                        "no PCID: each switch of address space (a fork's child, an exec) flushes the whole TLB".into(),
                    );
                }
            }
            (Kind::WakeUp, Some(v)) => {
                let idle = env.facts.cpuidle.as_ref().and_then(|c| c.driver.clone());
                parts.push(format!(
                    "a {v} guest{}: an idle vCPU halts into the hypervisor, so a wake-up costs an inter-processor interrupt through the host and a VM entry",
                    idle.map(|d| format!(" (cpuidle driver {d})")).unwrap_or_default()
                ));
            }
            (Kind::WakeUp, None) => parts.push(
                "wake-ups: an idle CPU must leave its idle state before the woken task runs".into(),
            ),
            _ => {}
        }
        let (active, partial) = crate::env::active_mitigations(&env.mitigations);
        if kind != Kind::Copy && !active.is_empty() {
            parts.push(crate::env::mitigations_active_text(active.len(), partial));
        }
    }
    if timing {
        parts.push(format!(
            "CPU: {}{} here, {} there",
            env.cpu_model,
            r.calibration
                .measured_mhz
                .map(|m| format!(" at {m:.0} MHz"))
                .unwrap_or_default(),
            short_hw(m.seed.as_ref().map_or("", |s| s.hardware.as_str()))
        ));
    } else {
        parts.push(format!(
            "Linux {} here, and tasklab's own process image, not the seed's program",
            env.kernel
        ));
    }
    let more = ratio > 1.0;
    format!(
        "{:.1}x {}: {}",
        if more { ratio } else { 1.0 / ratio },
        if more { "higher" } else { "lower" },
        parts.join("; ")
    )
}

/// The same figure on one CPU, when `m` is a figure across CPUs whose gap
/// from its seed ([`beyond`]) does not show there: the one-CPU figure of
/// the same series and labels, but for a one-CPU placement, is settled and
/// the whole interval of its ratio to its own seed lies within
/// [`EXPLAIN_BEYOND`]x (or it reaches the seed). None when there is no
/// such figure, when it shows a gap too, or when its interval cannot tell.
fn gap_only_across_cpus<'a>(
    r: &'a RunResults,
    experiment: &str,
    m: &Metric,
    ratio: f64,
) -> Option<&'a Metric> {
    if quantity(experiment, m) != Kind::WakeUp || !beyond(m) || !outside(ratio) {
        return None;
    }
    let e = r.experiments.iter().find(|e| e.name == experiment)?;
    let same = e.metrics.iter().find(|o| {
        o.name == m.name
            && o.label(PLACEMENT).is_some_and(one_cpu)
            && o.labels.len() == m.labels.len()
            && o.labels
                .iter()
                .all(|(k, v)| k == PLACEMENT || m.label(k) == Some(v.as_str()))
    })?;
    if same.summary.unstable {
        return None;
    }
    let matches = match same.seed_compare()? {
        SeedCompare::Within | SeedCompare::Reaches => true,
        SeedCompare::NotBelow => false,
        SeedCompare::Ratio(_) => same
            .seed_ratio_interval()
            .is_some_and(|(x, lo, hi)| !outside(x) && !outside(lo) && !outside(hi)),
        SeedCompare::Unlike(_) => false,
    };
    matches.then_some(same)
}

/// The likely causes of a gap that shows only across CPUs (`same`, the
/// one-CPU figure, matches its seed): not the mitigations or the CPU,
/// which the one-CPU figure would pay too, but the hand-off's path to the
/// other CPU, in what this run recorded of it: how its CPUs idle, the IPIs
/// switch.wakeup counted per cross-CPU hand-off, and the same hand-off
/// with both CPUs kept awake (issue 39).
fn across_cpus_reason(
    r: &RunResults,
    experiment: &str,
    m: &Metric,
    same: &Metric,
    ratio: f64,
) -> String {
    let env = &r.env;
    let on_one = match same.seed_compare() {
        Some(SeedCompare::Ratio(x)) => format!("{x:.2}x the seed's"),
        Some(SeedCompare::Reaches) => "neither above nor below the seed's one reading".to_string(),
        Some(SeedCompare::NotBelow) => "not below the seed's lower bound".to_string(),
        _ => "within the seed's range".to_string(),
    };
    let mut parts = vec![format!(
        "only across CPUs: on one CPU ({}) the same figure is {on_one}, so the gap comes with the hand-off to the other CPU, not with what the one-CPU hand-off pays as well (the mitigations on each kernel entry, the CPU's speed)",
        same.label(PLACEMENT).unwrap_or("")
    )];
    let idle = env.facts.cpuidle.as_ref().and_then(|c| c.driver.clone());
    let idle_words = match (env.facts.polling_idle(env.virtualization.as_deref()), idle) {
        (Ok(how), _) => format!("idle CPUs poll here ({how})"),
        (Err(_), Some(d)) => format!("idle CPUs halt here (cpuidle driver {d})"),
        (Err(_), None) => "idle CPUs halt here (no cpuidle driver: HLT)".to_string(),
    };
    parts.push(match env.virtualization.as_deref() {
        Some(v) => format!("a {v} guest whose {idle_words}"),
        None => idle_words,
    });
    if let Some(w) = r.measured(switch::wakeup::EXPERIMENT.name) {
        let at = [(
            crate::metric::key::VARIANT,
            switch::wakeup::Variant::CrossCpu.name(),
        )];
        if let (Some(cal), Some(res)) = (
            w.median(&switch::wakeup::CAL_PER_OP, &at),
            w.median(&switch::wakeup::RES_PER_OP, &at),
        ) {
            parts.push(format!(
                "switch.wakeup counted {cal:.2} function-call (CAL) and {res:.2} reschedule (RES) IPIs per cross-CPU hand-off"
            ));
        }
    }
    let awake = r
        .experiments
        .iter()
        .find(|e| e.name == experiment)
        .and_then(|e| {
            e.metrics.iter().find(|o| {
                o.name == m.name
                    && o.label(PLACEMENT) == Some(switch::methods::TWO_CPUS_AWAKE.name())
                    && o.labels.len() == m.labels.len()
                    && o.labels
                        .iter()
                        .all(|(k, v)| k == PLACEMENT || m.label(k) == Some(v.as_str()))
            })
        });
    if let Some(a) = awake.filter(|a| !a.summary.unstable) {
        parts.push(format!(
            "with both CPUs kept awake by SCHED_IDLE spinners (no idle to leave, another kernel path) its median is {}",
            crate::stats::compare_text::figure(&a.summary, a.unit)
        ));
    }
    let more = ratio > 1.0;
    format!(
        "{:.1}x {}, {}",
        if more { ratio } else { 1.0 / ratio },
        if more { "higher" } else { "lower" },
        parts.join("; ")
    )
}

/// What a seed figure measures, for picking its likely causes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Creation and address-space work: fork, exec, faults.
    PageTables,
    /// A hand-off between tasks that may wake another CPU.
    WakeUp,
    /// A plain memory copy.
    Copy,
    Other,
}

/// What the series `m` of `experiment` measures, from its declaration in
/// this version's registry: a series it does not declare (a foreign or
/// older file's) is `Other`. A hand-off with both tasks on one CPU wakes
/// no other CPU.
fn quantity(experiment: &str, m: &Metric) -> Kind {
    let declared = experiments::find(experiment).and_then(|e| e.metric(&m.name));
    match declared.map(|spec| spec.kind) {
        Some(SeriesKind::Creation) => Kind::PageTables,
        Some(SeriesKind::HandOff) if one_cpu(m.label(PLACEMENT).unwrap_or("")) => Kind::Other,
        Some(SeriesKind::HandOff) => Kind::WakeUp,
        Some(SeriesKind::Copy) => Kind::Copy,
        Some(SeriesKind::Memory | SeriesKind::Other) | None => Kind::Other,
    }
}

/// A placement that keeps both tasks on one CPU: a switch placement whose
/// declared spread is one CPU (`same_cpu`), or spawn's `one_cpu`.
fn one_cpu(placement: &str) -> bool {
    switch::methods::Placement::named(placement).is_some_and(|p| p.one_cpu())
        || Placement::parse(placement) == Some(Placement::OneCpu)
}

/// "Intel Core i7-4771 (Haswell), 2018" -> "i7-4771": the model people know.
pub fn short_hw(hw: &str) -> String {
    let first = hw.split([',', ';', '(']).next().unwrap_or(hw).trim();
    first
        .split_whitespace()
        .rev()
        .find(|w| w.chars().any(|c| c.is_ascii_digit()))
        .unwrap_or(first)
        .to_string()
}

#[cfg(test)]
#[path = "seeds_tests.rs"]
mod tests;
