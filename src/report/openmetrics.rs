//! `--export-openmetrics`: a run's figures as OpenMetrics text, in the form
//! node_exporter's textfile collector reads, so Prometheus keeps the
//! history and tasklab keeps none.
//!
//! Every series gives three gauges in base units (seconds, bytes, hertz, a
//! ratio for a percentage): its median (`tasklab_<name>_<unit>`) and its
//! 95% interval's bounds (`..._ci95_lo_<unit>`, `..._ci95_hi_<unit>`); a
//! reading gives one. `tasklab_series_unstable` says which series' rounds
//! did not agree (no conclusion should rest on them). Each sample carries
//! the run's `label`, its `fingerprint`, the `experiment` (and the `side`
//! of an A/B run) and the series' own labels: the same series keeps its
//! labels from run to run, so its history is one line. What changes from
//! run to run (the run id, the build, the machine's facts) is in the one
//! `tasklab_run_info` sample, joined on `label` and `fingerprint`.
//!
//! The text also parses as Prometheus' text format 0.0.4, which the
//! textfile collector reads: only gauges, no timestamps, HELP without a
//! double quote (the two formats escape one differently), every family's
//! samples with the same label names (a missing one is empty).

use crate::experiments;
use crate::results::{Metric, RunResults, UNKNOWN};
use crate::units::Unit;
use std::collections::BTreeMap;

/// Every metric family's name starts with this.
pub const PREFIX: &str = "tasklab_";

/// The labels tasklab sets (every sample's, before the series' own, and
/// `tasklab_series_unstable`'s `series`): a series' label key of the same
/// name is written `series_<key>`.
const FIXED: &[&str] = &["label", "fingerprint", "experiment", "side", "series"];

/// How a unit is written in base units: the name's suffix, the `# UNIT`
/// (empty for none) and the factor from the file's unit.
pub fn base_unit(u: Unit) -> (&'static str, &'static str, f64) {
    match u {
        Unit::Ns => ("seconds", "seconds", 1e-9),
        Unit::Bytes => ("bytes", "bytes", 1.0),
        Unit::Kib => ("bytes", "bytes", 1024.0),
        Unit::Mhz => ("hertz", "hertz", 1e6),
        Unit::Percent => ("ratio", "ratio", 0.01),
        Unit::PerSecond => ("per_second", "", 1.0),
        // A speedup or a count: a plain number.
        Unit::Ratio | Unit::Count => ("", "", 1.0),
    }
}

/// The words in a series' name that name its unit in the file (`call_ns`,
/// `rss_kib`, `iterations_per_s`): the base unit takes their place.
fn unit_words(u: Unit) -> &'static [&'static str] {
    match u {
        Unit::Ns => &["ns", "seconds"],
        Unit::Bytes => &["bytes"],
        Unit::Kib => &["kib", "bytes"],
        Unit::Mhz => &["mhz"],
        Unit::Percent => &["pct", "percent"],
        Unit::PerSecond => &["per", "s", "second"],
        Unit::Ratio | Unit::Count => &[],
    }
}

/// Suffixes OpenMetrics keeps for counters, histograms and infos.
const RESERVED: &[&str] = &[
    "_total", "_created", "_count", "_sum", "_bucket", "_gcount", "_gsum", "_info",
];

/// The family name of the series `name` in unit `u`, with `part` (empty,
/// `ci95_lo`, `ci95_hi`) before the unit: `call_ns` is
/// `tasklab_call_seconds`, `cpu_ns_per_job` `tasklab_cpu_per_job_seconds`.
pub fn family_name(name: &str, u: Unit, part: &str) -> String {
    let (suffix, _, _) = base_unit(u);
    let mut words: Vec<String> = sanitize(name)
        .split('_')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    // A word is the unit's only where the unit is named: `cpu_ns_per_job`
    // loses its `ns`, `iterations_per_s` its trailing `per_s`.
    let strip = unit_words(u);
    if u == Unit::PerSecond {
        while words.len() > 1
            && strip.contains(&words[words.len() - 1].to_ascii_lowercase().as_str())
        {
            words.pop();
        }
    } else {
        words.retain(|w| !strip.contains(&w.to_ascii_lowercase().as_str()));
    }
    if words.is_empty() {
        words.push("value".into());
    }
    let mut n = format!("{PREFIX}{}", words.join("_"));
    if suffix.is_empty() && RESERVED.iter().any(|r| n.ends_with(r)) {
        n.push_str("_value");
    }
    // The unit ends the name where a `# UNIT` names it; a plain rate keeps
    // its `per_second` beside the words it belongs to.
    let (_, declared, _) = base_unit(u);
    let order = if declared.is_empty() {
        [suffix, part]
    } else {
        [part, suffix]
    };
    for w in order {
        if !w.is_empty() {
            n.push('_');
            n.push_str(w);
        }
    }
    n
}

/// `s` as a metric or label name: ASCII letters, digits and `_`, not
/// starting with a digit.
fn sanitize(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// A series' label key as a label name: sanitized, kept clear of the
/// fixed labels and of the names Prometheus keeps (`__...`).
pub fn label_name(key: &str) -> String {
    let s = sanitize(key);
    if FIXED.contains(&s.as_str()) || s.starts_with("__") {
        format!("series_{}", s.trim_start_matches('_'))
    } else {
        s
    }
}

/// A label value escaped: backslash, double quote and newline.
pub fn escape_value(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

/// A HELP text escaped for both formats: backslash and newline escaped, a
/// double quote written as a single one.
fn escape_help(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('\n', "\\n")
        .replace('"', "'")
}

/// A number as both formats write it (`+Inf`, `-Inf`, `NaN`); Rust's
/// shortest form reads back as the same f64.
pub fn number(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v == f64::INFINITY {
        "+Inf".into()
    } else if v == f64::NEG_INFINITY {
        "-Inf".into()
    } else {
        format!("{v:?}")
    }
}

type LabelSet = Vec<(String, String)>;

/// One family: its help, its unit and its samples in order.
struct Family {
    help: String,
    unit: &'static str,
    samples: Vec<(LabelSet, f64)>,
}

/// Families by name, each written once with all its samples together.
#[derive(Default)]
struct Families(BTreeMap<String, Family>);

impl Families {
    /// Adds a sample; a second sample with the same labels in a family is
    /// left out (a file can hold one series twice only when hand-made).
    fn add(&mut self, name: String, help: &str, unit: &'static str, labels: LabelSet, v: f64) {
        let f = self.0.entry(name).or_insert_with(|| Family {
            help: help.to_string(),
            unit,
            samples: Vec::new(),
        });
        if !f.samples.iter().any(|(l, _)| *l == labels) {
            f.samples.push((labels, v));
        }
    }

    fn render(&self) -> String {
        let mut out = String::new();
        for (name, f) in &self.0 {
            out.push_str(&format!("# TYPE {name} gauge\n"));
            if !f.unit.is_empty() {
                out.push_str(&format!("# UNIT {name} {}\n", f.unit));
            }
            out.push_str(&format!("# HELP {name} {}\n", escape_help(&f.help)));
            // Every sample with the family's label names, in one order.
            let mut names: Vec<&str> = Vec::new();
            for (l, _) in &f.samples {
                for (k, _) in l {
                    if !names.contains(&k.as_str()) {
                        names.push(k);
                    }
                }
            }
            for (l, v) in &f.samples {
                let pairs: Vec<String> = names
                    .iter()
                    .map(|n| {
                        let v = l.iter().find(|(k, _)| k == n).map_or("", |(_, v)| v);
                        format!("{n}=\"{}\"", escape_value(v))
                    })
                    .collect();
                out.push_str(&format!("{name}{{{}}} {}\n", pairs.join(","), number(*v)));
            }
        }
        out
    }
}

/// What a series is, in a line: its experiment's declaration, else its
/// name.
fn about(experiment: &str, name: &str) -> String {
    experiments::find(experiment)
        .and_then(|e| e.metrics.iter().find(|m| m.name == name))
        .map_or_else(|| name.replace('_', " "), |m| m.about.to_string())
}

/// The labels of a sample of experiment `e`'s series with `labels`.
fn labels_of(
    run: &LabelSet,
    experiment: &str,
    side: Option<String>,
    labels: &BTreeMap<String, String>,
) -> LabelSet {
    let mut l = run.clone();
    l.push(("experiment".into(), experiment.into()));
    if let Some(s) = side {
        l.push(("side".into(), s));
    }
    for (k, v) in labels {
        l.push((label_name(k), v.clone()));
    }
    l
}

/// The OpenMetrics text of `r`, ending in `# EOF`.
pub fn render(r: &RunResults) -> String {
    render_runs(&[(r.label(), r)])
}

/// The OpenMetrics text of several runs (a matrix's), each labelled by the
/// label given with it, every family written once: ending in `# EOF`.
pub fn render_runs(runs: &[(String, &RunResults)]) -> String {
    let mut fam = Families::default();
    for (label, r) in runs {
        add_run(&mut fam, label, r);
    }
    let mut out = fam.render();
    out.push_str("# EOF\n");
    out
}

/// Every family's samples of run `r`, labelled `label`.
fn add_run(fam: &mut Families, label: &str, r: &RunResults) {
    let facts = r.identity_facts();
    let fact = |n: &str| {
        facts
            .iter()
            .find(|(k, _)| *k == n)
            .map_or_else(|| UNKNOWN.to_string(), |(_, v)| v.clone())
    };
    let run: LabelSet = vec![
        ("label".into(), label.to_string()),
        ("fingerprint".into(), fact("fingerprint")),
    ];

    let mut info = run.clone();
    info.push((
        "run_id".into(),
        r.run_id().unwrap_or_else(|| UNKNOWN.into()),
    ));
    info.push(("hardware_class".into(), r.hardware_class()));
    info.push(("profile".into(), r.profile.clone()));
    for (k, v) in &facts {
        let k = sanitize(k);
        if !info.iter().any(|(n, _)| *n == k) {
            info.push((k, v.clone()));
        }
    }
    fam.add(
        format!("{PREFIX}run_info"),
        "the run that wrote these figures: its id, the build and the machine's facts (always 1)",
        "",
        info,
        1.0,
    );
    fam.add(
        format!("{PREFIX}run_start_timestamp_seconds"),
        "when the run started, in seconds since the Unix epoch",
        "seconds",
        run.clone(),
        r.started_unix_s,
    );

    summary(fam, &run, r);
    for e in &r.experiments {
        let side = e.side.map(|s| s.name().to_string());
        for m in &e.metrics {
            series(fam, &run, &e.name, side.clone(), m);
        }
        for rd in &e.readings {
            let (_, unit, k) = base_unit(rd.unit);
            fam.add(
                family_name(&rd.name, rd.unit, ""),
                &format!("{} (a reading)", about(&e.name, &rd.name)),
                unit,
                labels_of(&run, &e.name, side.clone(), &rd.labels),
                rd.value * k,
            );
        }
    }
}

/// The report Summary's quantities, as each experiment declares them
/// (`experiments::headline`, which the matrix's rows read too), each its
/// median and interval bounds, labelled `quantity` with the quantity's
/// words: a dashboard's handful of figures, fork's growth per 100 MiB of
/// heap among them. An A/B file's Summary is its sides'; none is written.
fn summary(fam: &mut Families, run: &LabelSet, r: &RunResults) {
    if r.ab.is_some() {
        return;
    }
    for q in experiments::summary_quantities(r) {
        let h = &q.headline;
        let Some(f) = r.measured(q.experiment).and_then(|e| h.figure(e)) else {
            continue;
        };
        let (_, unit, k) = base_unit(f.unit);
        let mut labels = run.clone();
        labels.push(("quantity".into(), h.name.clone()));
        // fork's growth is per 100 MiB of heap: a family of its own, so a
        // family's unit is the unit of each of its samples.
        let (family, about) = if h.slope.is_some() {
            (
                "summary_fork_growth_per_100mib",
                "fork's growth per 100 MiB of touched heap, of the report's Summary",
            )
        } else {
            ("summary", "a quantity of the report's Summary")
        };
        for (part, what, v) in [
            ("", "median", f.median),
            ("ci95_lo", "95% interval, lower bound", f.lo),
            ("ci95_hi", "95% interval, upper bound", f.hi),
        ] {
            fam.add(
                family_name(family, f.unit, part),
                &format!("{about} ({what})"),
                unit,
                labels.clone(),
                v * k,
            );
        }
        // The flag is a gauge of its own, so a quantity keeps its labels
        // whether or not a run flagged it.
        fam.add(
            format!("{PREFIX}summary_unstable"),
            "1 when a Summary quantity's rounds did not agree (a trend or two modes): no conclusion rests on it",
            "",
            labels,
            if f.mark == "!" { 1.0 } else { 0.0 },
        );
    }
}

/// A series' median, its interval's bounds and its flag.
fn series(fam: &mut Families, run: &LabelSet, experiment: &str, side: Option<String>, m: &Metric) {
    let (_, unit, k) = base_unit(m.unit);
    let labels = labels_of(run, experiment, side, &m.labels);
    let about = about(experiment, &m.name);
    let s = &m.summary;
    for (part, what, v) in [
        ("", "median", s.median),
        (
            "ci95_lo",
            "95% interval of the median, lower bound",
            s.ci95_lo,
        ),
        (
            "ci95_hi",
            "95% interval of the median, upper bound",
            s.ci95_hi,
        ),
    ] {
        fam.add(
            family_name(&m.name, m.unit, part),
            &format!("{about} ({what})"),
            unit,
            labels.clone(),
            v * k,
        );
    }
    let mut flagged = labels;
    flagged.insert(2, ("series".into(), family_name(&m.name, m.unit, "")));
    fam.add(
        format!("{PREFIX}series_unstable"),
        "1 when a series' rounds did not agree (a trend or two modes): no conclusion rests on it",
        "",
        flagged,
        if s.unstable { 1.0 } else { 0.0 },
    );
}
