//! Presenting results: number formatting shared by every exporter, and the
//! exporters themselves: the terminal table, CSV, and the report folder
//! (report.md, a self-contained report.html, one SVG per chart).

pub mod charts;
pub mod doc;
pub mod export;
pub mod folder;
pub mod headlines;
pub mod quantities;
pub mod seeds;
pub mod sentence;
pub mod table;
pub mod terse;

use crate::cli::OutputArgs;
use crate::env::cpu_list;
use crate::error::UsageError;
use crate::experiments;
use crate::results::{RunResults, RunStatus, Status, RESULTS_FILE};
use crate::sys::safefile::{OutDir, Trust};
use crate::units::fmt_ns;
use doc::{Block, Doc};
use sentence::{capitalise, group_identifiers, identifiers};
use std::path::{Path, PathBuf};

/// A saved results file, ready to render: a file of an older schema gets
/// what it lacks from this tasklab's registry (group titles, `reproduces`,
/// the Summary sentences computed from its own figures).
pub fn load(file: &Path) -> anyhow::Result<RunResults> {
    let mut r = RunResults::read(file).map_err(|e| UsageError(format!("{e:#}")))?;
    upgrade(&mut r);
    Ok(r)
}

/// Fills in what a schema-1 file lacks; a current file is left as it is.
pub fn upgrade(r: &mut RunResults) {
    if r.groups.is_empty() {
        r.groups = experiments::group_records();
    }
    // Seed figures are comparisons, not measurements: each series is paired
    // anew by this version's declarations, so a file written before a
    // pairing was corrected is not shown against the wrong figure. The
    // direction of better is a declaration too, taken from this version
    // where it declares one.
    for x in &mut r.experiments {
        if let Some(reg) = experiments::find(&x.name) {
            for m in &mut x.metrics {
                m.seed = reg.seed_for(&m.name, &m.labels);
                m.better = reg.better_or(&m.name, &m.labels, m.better);
            }
        }
    }
    if r.schema_version >= 2 {
        return;
    }
    for x in &mut r.experiments {
        let Some(reg) = experiments::find(&x.name) else {
            continue;
        };
        if x.reproduces.is_empty() {
            x.reproduces = reg.reproduces.to_string();
        }
        if x.headlines.is_empty() && x.status == Status::Ok {
            x.headlines = (reg.analyze)(x).headlines;
        }
    }
}

fn utc(unix_s: f64) -> String {
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(unix_s.max(0.0));
    humantime::format_rfc3339_seconds(t)
        .to_string()
        .replace('T', " ")
        .replace('Z', " UTC")
}

/// The group shown after the others: the scale the main groups are read
/// against, not an answer of its own.
const YARDSTICKS: &str = "yardstick";

/// "tasklab report: vm (AMD EPYC), 2026-11-23": which machine, which day.
fn title(r: &RunResults) -> String {
    let e = &r.env;
    let day: String = utc(r.started_unix_s).chars().take(10).collect();
    let machine = match (e.hostname.as_str(), e.cpu_model.as_str()) {
        ("", cpu) => cpu.to_string(),
        (host, "") => host.to_string(),
        (host, cpu) => format!("{host} ({cpu})"),
    };
    format!("tasklab report: {machine}, {day}")
}

/// Every seed this run has a figure of, cited once per article, in the
/// order of the citation table: (anchor, full citation, short label).
fn cited(r: &RunResults) -> Vec<(String, String, String)> {
    let used: Vec<&str> = r
        .experiments
        .iter()
        .flat_map(|x| x.metrics.iter().filter_map(|m| m.seed.as_ref()))
        .map(|s| s.source.as_str())
        .collect();
    let mut out: Vec<(String, String, String)> = Vec::new();
    for c in experiments::seeds::CITATIONS {
        let anchor = experiments::seeds::anchor(c.file);
        if used.contains(&c.file) && !out.iter().any(|o| o.0 == anchor) {
            out.push((anchor, c.full(), c.short.to_string()));
        }
    }
    out
}

/// The whole report as a document: the Summary, charts and findings open;
/// tables and notes closed in `<details>`; the yardsticks after the main
/// groups; the seeds cited in full and linked from every figure.
pub fn build(r: &RunResults) -> Doc {
    let refs = cited(r);
    let mut d = Doc {
        title: title(r),
        blocks: Vec::new(),
        links: refs
            .iter()
            .map(|(anchor, _, short)| (short.clone(), anchor.clone()))
            .collect(),
    };
    let e = &r.env;
    d.push(Block::Para(format!(
        "{} · {} CPUs · Linux {} · {} · profile {} · started {}{}",
        e.cpu_model,
        e.cpus_online,
        e.kernel,
        e.virtualization
            .as_deref()
            .map_or("bare metal".to_string(), |v| format!("virtualised ({v})")),
        r.profile,
        utc(r.started_unix_s),
        r.finished_unix_s
            .map(|f| format!(", took {:.0} s", f - r.started_unix_s))
            .unwrap_or_default()
    )));
    if let Some(q) = terse::quota(r) {
        d.push(Block::Para(format!("{q}.")));
    }
    if r.status == RunStatus::Partial {
        d.push(Block::Warning(
            "this run was interrupted: the results are partial, and experiments that did not run are missing".into(),
        ));
    }
    for w in &r.warnings {
        d.push(Block::Warning(w.clone()));
    }

    d.heading(1, "Summary", "summary");
    let heads = summary(r);
    if heads.is_empty() {
        d.push(Block::Para(NO_SUMMARY.into()));
    } else {
        d.push(Block::Summary(heads));
    }
    let failed = failures(r);
    d.push(Block::Aside(format!(
        "{} {} a ~ marks a wide spread, a ! a figure whose rounds did not agree. The seeds' figures appear only beside ours, labelled with their source.",
        measured_sentence(r),
        rounds_sentence(r)
    )));
    if !failed.is_empty() {
        d.push(Block::Bullets(failed));
    }

    let mut charts = charts::all(r);
    let mut groups: Vec<_> = r.groups.iter().collect();
    groups.sort_by_key(|g| g.name == YARDSTICKS);
    for group in groups {
        let exps: Vec<_> = r
            .experiments
            .iter()
            .filter(|x| x.group == group.name)
            .collect();
        if exps.is_empty() {
            continue;
        }
        d.heading(1, group.title.as_str(), group.name.as_str());
        d.push(Block::Para(group.about.clone()));
        let mut rest = Vec::new();
        for (g, c) in charts.drain(..) {
            if g == group.name {
                d.push(Block::Chart(c));
            } else {
                rest.push((g, c));
            }
        }
        charts = rest;
        for x in exps {
            d.heading(2, x.name.as_str(), x.name.replace('.', "-"));
            // What it measures and what it reproduces, in one line under the name.
            let mut about = capitalise(&x.summary, &group_identifiers(r, &x.group));
            if !x.reproduces.is_empty() {
                about.push_str(&format!(". Reproduces: {}", x.reproduces));
            }
            d.push(Block::Aside(about));
            match x.status {
                Status::Failed => d.push(Block::Warning(format!(
                    "failed: {}",
                    x.reason.as_deref().unwrap_or("unknown reason")
                ))),
                Status::Skipped => d.push(Block::Warning(format!(
                    "skipped: {}",
                    x.reason.as_deref().unwrap_or("")
                ))),
                Status::Ok => {}
            }
            // Every finding stays open; the table and the notes close.
            let open: Vec<String> = x
                .findings
                .iter()
                .map(|f| capitalise(f, &identifiers(x)))
                .collect();
            if !open.is_empty() {
                d.push(Block::Bullets(open));
            }
            let t = table::metric_table(x, false);
            let hidden = x.metrics.iter().filter(|m| m.detail).count();
            let mut small = Vec::new();
            if x.metrics
                .iter()
                .any(|m| m.summary.noisy && !m.summary.unstable)
            {
                small.push(table::NOISY.to_string());
            }
            if x.metrics.iter().any(|m| m.summary.unstable) {
                small.push(table::UNSETTLED.to_string());
            }
            if hidden > 0 {
                small.push(format!("{hidden} more series in results.json."));
            }
            small.extend(x.fits.iter().map(table::fit_text));
            small.extend(x.notes.iter().map(|n| format!("Note: {n}")));
            let mut inner = Vec::new();
            let mut line = Vec::new();
            if !t.rows.is_empty() {
                line.push(count(t.rows.len(), "row"));
                inner.push(Block::Table(t));
            }
            if !small.is_empty() {
                line.push(count(small.len(), "note"));
                inner.extend(small.into_iter().map(Block::Aside));
            }
            if !inner.is_empty() {
                let what = if line.is_empty() {
                    "Table and notes".to_string()
                } else {
                    format!("Table and notes: {}", line.join(", "))
                };
                d.push(Block::Details(what, inner));
            }
        }
    }

    let shared = quantities::blocks(r);
    if !shared.is_empty() {
        d.heading(1, "One quantity, several experiments", "quantities");
        d.push(Block::Para(
            "Some quantities are measured by more than one experiment, each in workers of its own. The Summary quotes the first source; the others are checked against it here.".into(),
        ));
        d.push(Block::Details("The checks".into(), shared));
    }

    d.heading(1, "Seed figures beside ours", "seeds");
    d.push(Block::Para(format!(
        "Every figure the seed articles publish that this run measured, with ours beside it. The seeds measured other machines years ago; this run measured {} with {} CPUs{}, Linux {}. A ratio far from 1 is a difference of machine or of method, and the last column says which is likelier where they are more than {:.0}x apart.",
        e.cpu_model,
        e.cpus_online,
        e.virtualization
            .as_deref()
            .map_or(String::new(), |v| format!(" as a {v} guest")),
        e.kernel,
        seeds::EXPLAIN_BEYOND
    )));
    let st = seeds::table(r);
    if st.rows.is_empty() {
        d.push(Block::Aside(
            "No experiment of this run has a seed figure.".into(),
        ));
    } else {
        d.push(Block::Refs(
            refs.iter()
                .map(|(anchor, full, short)| (anchor.clone(), format!("{short}: {full}")))
                .collect(),
        ));
        d.push(Block::Details(
            format!("The table: {}", count(st.rows.len(), "seed figure")),
            vec![Block::Table(st)],
        ));
    }

    d.heading(1, "Environment", "environment");
    let mut rows: Vec<Vec<String>> = e.describe().into_iter().map(|(k, v)| vec![k, v]).collect();
    let c = &r.calibration;
    rows.push(vec![
        "timer".into(),
        format!(
            "{}: {} per read, resolution {}, loop {:.2} ns per iteration (subtracted)",
            c.clock,
            fmt_ns(c.timer_overhead_ns),
            fmt_ns(c.timer_resolution_ns),
            c.loop_overhead_ns
        ),
    ]);
    if let Some(text) = machine_during(r) {
        rows.push(vec!["the machine during this run".into(), text]);
    }
    rows.push(vec![
        "placement".into(),
        r.pin
            .as_ref()
            .map_or("unpinned (--pin not given)".to_string(), |p| {
                format!("pinned to CPUs {}", cpu_list(p))
            }),
    ]);
    rows.push(vec![
        "tasklab".into(),
        format!("{} (results schema {})", r.tool_version, r.schema_version),
    ]);
    d.push(Block::Details(
        "The machine, its settings and the timer".into(),
        vec![Block::Table(doc::Table {
            head: vec!["".into(), "".into()],
            rows,
            right: vec![],
        })],
    ));
    d
}

/// What the Summary says when the run has none of its figures.
pub const NO_SUMMARY: &str = "This run has none of the figures the summary is made of; the sections below hold what it measured.";

/// The Summary's sentences, as the report and the terminal print them.
pub fn summary(r: &RunResults) -> Vec<String> {
    headlines::headlines(r)
        .into_iter()
        .map(|(g, s)| capitalise(s, &group_identifiers(r, g)))
        .collect()
}

/// "18 of 19 experiments measured."
pub fn measured_sentence(r: &RunResults) -> String {
    let ok = r
        .experiments
        .iter()
        .filter(|x| x.status == Status::Ok)
        .count();
    format!("{ok} of {} experiments measured.", r.experiments.len())
}

/// One line per experiment that failed or was skipped, with why.
pub fn failures(r: &RunResults) -> Vec<String> {
    r.experiments
        .iter()
        .filter(|x| x.status != Status::Ok)
        .map(|x| {
            format!(
                "{} {}: {}",
                x.name,
                if x.status == Status::Failed {
                    "failed"
                } else {
                    "was skipped"
                },
                x.reason.as_deref().unwrap_or("no reason given")
            )
        })
        .collect()
}

/// "1 row", "42 rows".
fn count(n: usize, what: &str) -> String {
    format!(
        "{} {what}{}",
        crate::units::group_digits(n as i64),
        if n == 1 { "" } else { "s" }
    )
}

/// How the figures were measured, in a sentence.
fn rounds_sentence(r: &RunResults) -> String {
    if r.rounds >= 2 {
        format!(
            "Every figure is a median over {} independent rounds spread over the run (schedule seed {}), with a 95% interval from the rounds;",
            r.rounds,
            r.seed.map_or("unknown".into(), |s| s.to_string())
        )
    } else {
        "Every figure is the median of independent samples;".into()
    }
}

/// Writes report.md, report.html and the charts into `dir`, each file
/// atomically (a failure leaves the previous file and no temporary one);
/// returns the files written.
pub fn write_folder(r: &RunResults, dir: &OutDir) -> anyhow::Result<Vec<PathBuf>> {
    let d = build(r);
    let mut written = Vec::new();
    let mut put = |name: &str, text: &str| -> anyhow::Result<()> {
        dir.write(name, text.as_bytes())?;
        written.push(dir.shown(name));
        Ok(())
    };
    for c in d.charts() {
        put(&c.file, &c.svg)?;
    }
    put("report.md", &d.markdown(""))?;
    put("report.html", &d.html())?;
    Ok(written)
}

/// How the terminal shows a run: terse, or with every experiment's table
/// (`--tables`; `-v` also the detail series), fitted to `width` columns.
#[derive(Clone, Copy, Debug)]
pub struct View {
    pub tables: bool,
    pub verbose: bool,
    pub width: usize,
}

impl View {
    /// Whether the tables are shown.
    pub fn tables(&self) -> bool {
        self.tables || self.verbose
    }
}

/// What `run` and `report` print on stdout: the terse answer, or with
/// `--tables` / `-v` the header, every experiment's table and then the
/// Summary, warnings and paths.
pub fn terminal(r: &RunResults, view: View, paths: &terse::Paths) -> String {
    if !view.tables() {
        return terse::terse(r, view.width, paths);
    }
    let mut s = terse::header(r, view.width);
    s.push_str(&timer_line(r, view.width));
    for e in &r.experiments {
        s.push_str(&table::experiment(e, view.verbose, view.width));
    }
    s.push_str(&terse::body(r, view.width, false, paths, terse::MAX_LINES));
    s
}

/// How the figures were timed, fitted to `width`; ends with a newline.
pub fn timer_line(r: &RunResults, width: usize) -> String {
    let c = &r.calibration;
    let text = format!(
        "timer: {} per CLOCK_MONOTONIC read, loop {} ns per iteration (subtracted); {}",
        fmt_ns(c.timer_overhead_ns),
        crate::units::fmt_num(c.loop_overhead_ns, 2),
        rounds_sentence(r)
            .trim_end_matches(';')
            .replacen("Every", "every", 1)
    );
    format!("{}\n", table::wrap(&text, width, "", "  "))
}

/// Opens the output folder `dir` before anything is measured or rendered:
/// created if need be, checked as `trust` says (a default folder that is a
/// link, another user's or open to all is refused), locked against a second
/// run, cleared of the temporary files a killed run left, and a file written
/// in it as a test.
pub fn open_out(dir: &Path, trust: Trust) -> Result<OutDir, UsageError> {
    let out = OutDir::open(dir, trust).map_err(UsageError)?;
    out.lock().map_err(UsageError)?;
    out.sweep();
    out.probe().map_err(UsageError)?;
    Ok(out)
}

/// `tasklab report FILE [--out DIR]`: the report of a saved run, rendered
/// anew, and on the terminal what `run` prints. Without `--out` it goes
/// beside the file, a folder tasklab did not choose: refused when unsafe,
/// as a default folder is. Exports are checked before the folder is
/// touched.
pub fn rerender(
    file: &Path,
    out: Option<&Path>,
    output: &OutputArgs,
) -> anyhow::Result<std::process::ExitCode> {
    let saved = RunResults::read(file).map_err(|e| UsageError(format!("{e:#}")))?;
    let exports = export::plan(output)?;
    let mut r = saved.clone();
    upgrade(&mut r);
    let here = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let (path, trust) = match out {
        Some(o) => (o, Trust::Explicit),
        None => (here, Trust::Default),
    };
    let dir = open_out(path, trust)?;
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    let own = same(&dir.shown(RESULTS_FILE), file);
    let begun = folder::begin(&dir, !own)?;
    if !own {
        saved.write_in(&dir)?;
    }
    write_folder(&r, &dir)?;
    let print = |t: &str| -> anyhow::Result<()> {
        print!("{t}");
        Ok(())
    };
    export::write(&r, &exports, path, print)?;
    for n in &begun.notes {
        eprintln!("note: {n}");
    }
    let paths = terse::Paths {
        report: dir.shown("report.html"),
        results: dir.shown(RESULTS_FILE),
        previous: begun.previous,
    };
    if export::takes_stdout(&exports) {
        eprintln!("report: {}", paths.report.display());
    } else {
        let view = View {
            tables: output.tables,
            verbose: output.verbose,
            width: terse::width(),
        };
        print!("{}", terminal(&r, view, &paths));
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// Every metric as one CSV row, for spreadsheets and scripts.
pub fn csv(r: &RunResults) -> anyhow::Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "experiment",
        "group",
        "metric",
        "labels",
        "unit",
        "n",
        "min",
        "median",
        "mean",
        "p90",
        "p99",
        "max",
        "stddev",
        "ci95_lo",
        "ci95_hi",
        "outliers",
        "noisy",
        "seed_lo",
        "seed_hi",
        "seed_source",
        "ours_over_seed",
        "rounds",
        "interval",
        "unstable",
        "within_ci95_lo",
        "within_ci95_hi",
    ])?;
    let num = |v: f64| format!("{v}");
    for e in &r.experiments {
        for m in &e.metrics {
            let s = &m.summary;
            let labels: Vec<String> = m.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let (slo, shi, src) = m
                .seed
                .as_ref()
                .map_or((String::new(), String::new(), String::new()), |x| {
                    (num(x.lo), num(x.hi), x.source.clone())
                });
            w.write_record([
                e.name.clone(),
                e.group.clone(),
                m.name.clone(),
                labels.join(" "),
                m.unit.name().to_string(),
                s.n.to_string(),
                num(s.min),
                num(s.median),
                num(s.mean),
                num(s.p90),
                num(s.p99),
                num(s.max),
                num(s.stddev),
                num(s.ci95_lo),
                num(s.ci95_hi),
                (s.outliers_low + s.outliers_high).to_string(),
                s.noisy.to_string(),
                slo,
                shi,
                src,
                m.seed_ratio().map_or(String::new(), num),
                s.rounds.max(1).to_string(),
                s.interval.clone(),
                s.unstable.to_string(),
                s.within_ci95_lo.map_or(String::new(), num),
                s.within_ci95_hi.map_or(String::new(), num),
            ])?;
        }
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

/// How fast and how steady the machine itself was over this run: its
/// canary (a bare system call, a pipe write and read, at every round's start
/// and end), the host's steal and other work. Another run may find the
/// machine at another speed; the reader learns how far it moved within this
/// one, which is what `compare` takes as its noise floor.
fn machine_during(r: &RunResults) -> Option<String> {
    let canaries = r.canaries();
    let syscall: Vec<f64> = canaries.iter().map(|c| c.syscall_ns).collect();
    let median = crate::stats::median(&syscall)?;
    let mut text = format!(
        "a bare system call {} at the median of {} readings (every round's start and end)",
        fmt_ns(median),
        syscall.len()
    );
    if let Some((p10, p90)) = crate::stats::drift_range(&syscall) {
        text.push_str(&format!(
            ", {}–{} from the 10th to the 90th percentile (±{:.1}%)",
            fmt_ns(p10),
            fmt_ns(p90),
            crate::stats::drift_of((p10, p90)) * 100.0
        ));
    }
    let pipe: Vec<f64> = canaries
        .iter()
        .map(|c| c.pipe_ns)
        .filter(|x| x.is_finite() && *x > 0.0)
        .collect();
    if let Some(p) = crate::stats::median(&pipe) {
        text.push_str(&format!("; a pipe write and read {}", fmt_ns(p)));
    }
    if let Some(b) = &r.busy {
        text.push_str(&format!(
            "; steal {:.1}% of all CPUs' time; other runnable tasks {:.1} on average between jobs (at most {:.0})",
            100.0 * b.steal_share,
            b.during_other_runnable,
            b.during_max_other_runnable
        ));
    }
    text.push_str(
        ". Another run may find the machine at another speed. tasklab compare raises its threshold to this run's ± when that is larger than the one asked; two runs a side, pooled, are the surer test",
    );
    Some(text)
}
