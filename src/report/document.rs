//! The report as a document, built section by section: the opening lines,
//! the Summary, one section per group (its charts, then each experiment),
//! the quantities several experiments measure, the seeds' figures beside
//! ours, and the environment. Rendered by [`super::doc`] to Markdown and HTML.

use super::doc::{self, Block, Chart, Doc};
use super::sentence::{capitalise, group_identifiers, identifiers};
use super::{charts, headlines, quantities, seeds, table, terse};
use crate::env::cpu_list;
use crate::experiments;
use crate::results::{ExperimentResult, Group, RunResults, RunStatus, Status};
use crate::stats::rounds::BOUNDED_FROM;
use crate::units::fmt_ns;

/// The group shown after the others: the scale the main groups are read
/// against, not an answer of its own.
const YARDSTICKS: &str = "yardstick";

/// What the Summary says when the run has none of its figures.
pub const NO_SUMMARY: &str = "This run has none of the figures the summary is made of; the sections below hold what it measured.";

/// A seed cited by the report: its anchor and citation.
type Cited = (String, &'static experiments::seeds::Citation);

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
            .map(|(anchor, c)| (c.short.to_string(), anchor.clone()))
            .collect(),
    };
    opening(&mut d, r);
    summary_section(&mut d, r);
    group_sections(&mut d, r);
    super::why::section(&mut d, r);
    quantities_section(&mut d, r);
    seeds_section(&mut d, r, &refs);
    environment_section(&mut d, r);
    d
}

/// The report of an A/B run (`tasklab ab`): what each side set and the
/// paired verdicts first, then each side's own report, one after the other,
/// its headings a level down, its anchors and chart files marked with the
/// side (`a-…`, `b-…`) so the two never collide.
pub fn build_ab(
    r: &RunResults,
    ab: &crate::results::AbRecord,
    verdicts: Option<super::AbDrawn>,
) -> Doc {
    use crate::results::ab::specs_text;
    let mut d = Doc {
        title: format!(
            "tasklab ab: {} against {}",
            specs_text(&ab.a),
            specs_text(&ab.b)
        ),
        ..Doc::default()
    };
    d.heading(2, "A/B", "ab");
    d.push(Block::Para(format!(
        "Side A ({}) and side B ({}) ran inside one run, in {} blocks in the order A B B A, each block one round of every series of its side in fresh workers. Each verdict pairs the rounds of A and B that ran next to each other, so what the host did over the run falls on both; its interval is resampled over those pairs.",
        specs_text(&ab.a),
        specs_text(&ab.b),
        ab.blocks
    )));
    match verdicts {
        Some(v) => {
            d.push(Block::Pre(v.words));
            super::why::differentials(
                &mut d,
                &r.side(crate::stats::paired::Side::A),
                &r.side(crate::stats::paired::Side::B),
                &v.changed,
            );
        }
        None => d.push(Block::Aside(
            "No verdicts: the run ended before its blocks did.".into(),
        )),
    }
    for (side, specs) in [
        (crate::stats::paired::Side::A, &ab.a),
        (crate::stats::paired::Side::B, &ab.b),
    ] {
        let tag = side.name().to_lowercase();
        let sd = build(&r.side(side));
        d.heading(
            2,
            format!("Side {}: {}", side.name(), specs_text(specs)),
            format!("side-{tag}"),
        );
        d.links.extend(sd.links);
        d.blocks
            .extend(sd.blocks.into_iter().map(|b| marked(b, &tag)));
    }
    d
}

/// A side's block, a level down, its anchor and chart file marked.
fn marked(b: Block, tag: &str) -> Block {
    match b {
        Block::Heading(l, t, id) => Block::Heading((l + 1).min(4), t, format!("{tag}-{id}")),
        Block::Chart(mut c) => {
            c.file = format!("{tag}-{}", c.file);
            Block::Chart(c)
        }
        Block::Details(line, inner) => {
            Block::Details(line, inner.into_iter().map(|b| marked(b, tag)).collect())
        }
        other => other,
    }
}

fn utc(unix_s: f64) -> String {
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(unix_s.max(0.0));
    humantime::format_rfc3339_seconds(t)
        .to_string()
        .replace('T', " ")
        .replace('Z', " UTC")
}

/// "tasklab report: vm (AMD EPYC), 2026-11-23": which run (its label:
/// `--label`, else the hostname), on what, which day.
fn title(r: &RunResults) -> String {
    let e = &r.env;
    let day: String = utc(r.started_unix_s).chars().take(10).collect();
    let label = r.label();
    let machine = match (label.as_str(), e.cpu_model.as_str()) {
        ("", cpu) => cpu.to_string(),
        (host, "") => host.to_string(),
        (host, cpu) => format!("{host} ({cpu})"),
    };
    format!("tasklab report: {machine}, {day}")
}

/// Every seed this run has a figure of, cited once per article, in the
/// order of the citation table.
fn cited(r: &RunResults) -> Vec<Cited> {
    let used: Vec<&str> = r
        .experiments
        .iter()
        .flat_map(|x| x.metrics.iter().filter_map(|m| m.seed.as_ref()))
        .map(|s| s.source.as_str())
        .collect();
    let mut out: Vec<Cited> = Vec::new();
    for c in experiments::seeds::CITATIONS {
        let anchor = experiments::seeds::anchor(c.file);
        if used.contains(&c.file) && !out.iter().any(|o| o.0 == anchor) {
            out.push((anchor, c));
        }
    }
    out
}

/// Under the title: the machine and the run in a line, the CPU quota, and
/// the warnings the reader must not miss.
fn opening(d: &mut Doc, r: &RunResults) {
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
}

/// The Summary: its sentences, how the figures were measured, and what
/// failed or was skipped.
fn summary_section(d: &mut Doc, r: &RunResults) {
    d.heading(1, "Summary", "summary");
    let heads = summary(r);
    if heads.is_empty() {
        d.push(Block::Para(NO_SUMMARY.into()));
    } else {
        d.push(Block::Summary(heads));
    }
    let failed = failures(r);
    d.push(Block::Aside(format!(
        "{} {} a ~ marks a wide spread, a ! a figure flagged for a trend over the run or two modes (its interval is shown; no finding rests on it); ±X% is half a figure's 95% interval over its median, given where it is wider than ±10% or the figure is marked; two figures differ only where the interval of their ratio excludes 1.{} The seeds' figures appear only beside ours, labelled with their source.",
        measured_sentence(r),
        rounds_sentence(r),
        past_the_samples(r).map_or(String::new(), |s| format!(" {s}"))
    )));
    if !failed.is_empty() {
        d.push(Block::Bullets(failed));
    }
}

/// One section per group that ran, the yardsticks last: its title, what it
/// asks, its charts, then each of its experiments.
fn group_sections(d: &mut Doc, r: &RunResults) {
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
        group_section(d, group, &mut charts);
        for x in exps {
            experiment_section(d, r, x);
        }
    }
}

/// A group's heading and paragraph, and the charts of `charts` that are
/// its own (taken out of the list).
fn group_section(d: &mut Doc, group: &Group, charts: &mut Vec<(&str, Chart)>) {
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
    *charts = rest;
}

/// An experiment: what it measures and reproduces, whether it failed or
/// was skipped, its findings open, its table and notes closed.
fn experiment_section(d: &mut Doc, r: &RunResults, x: &ExperimentResult) {
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
        Status::Ok => {
            if let Some(words) = x.partial_words() {
                d.push(Block::Warning(words));
            }
        }
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
    if let Some(b) = table_and_notes(x) {
        d.push(b);
    }
}

/// An experiment's table and its small print (marks, hidden series, fits,
/// notes) in one closed block, titled with how many of each; none when it
/// has neither.
fn table_and_notes(x: &ExperimentResult) -> Option<Block> {
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
    if inner.is_empty() {
        return None;
    }
    let what = if line.is_empty() {
        "Table and notes".to_string()
    } else {
        format!("Table and notes: {}", line.join(", "))
    };
    Some(Block::Details(what, inner))
}

/// The quantities more than one experiment measures, checked against each
/// other; no section when there are none.
fn quantities_section(d: &mut Doc, r: &RunResults) {
    let shared = quantities::blocks(r);
    if shared.is_empty() {
        return;
    }
    d.heading(1, "One quantity, several experiments", "quantities");
    d.push(Block::Para(
        "Some quantities are measured by more than one experiment, each in workers of its own. The Summary quotes the first source; the others are checked against it here.".into(),
    ));
    d.push(Block::Details("The checks".into(), shared));
}

/// Every seed figure this run measured, ours beside it, and the seeds
/// cited in full.
fn seeds_section(d: &mut Doc, r: &RunResults, refs: &[Cited]) {
    let e = &r.env;
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
                .map(|(anchor, c)| doc::Ref {
                    anchor: anchor.clone(),
                    text: format!("{}: {}", c.short, c.full()),
                    link: c
                        .url
                        .map(|u| (format!("\u{201c}{}\u{201d}", c.title), u.to_string())),
                })
                .collect(),
        ));
        // One table per article: its machine and what its ranges sweep
        // said once above its rows, not on each.
        let mut tables = Vec::new();
        for g in seeds::groups(r) {
            let sweep = g
                .sweep
                .as_deref()
                .map(|w| {
                    let at = r
                        .calibration
                        .measured_mhz
                        .map_or(" (none was measured here, so they are not compared)".into(), |m| {
                            format!(", {m:.0} MHz")
                        });
                    format!(
                        " Its ranges are a sweep of {w}: a figure he gives at a clock is compared scaled to the clock this run measured{at}, never as published."
                    )
                })
                .unwrap_or_default();
            tables.push(Block::Para(format!(
                "{}: measured on {}.{sweep}",
                g.short, g.machine
            )));
            tables.push(Block::Table(g.table));
        }
        d.push(Block::Details(
            format!("The tables: {}", count(st.rows.len(), "seed figure")),
            tables,
        ));
    }
}

/// The machine, its settings, the timer, the machine's steadiness during
/// the run, the placement and this tasklab, closed in one table.
fn environment_section(d: &mut Doc, r: &RunResults) {
    d.heading(1, "Environment", "environment");
    let e = &r.env;
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
        format!(
            "{}{} (results schema {}){}",
            r.tool_version,
            r.build.as_ref().map_or(String::new(), |b| format!(
                ", commit {}, build {}",
                b.commit, b.build_id
            )),
            r.schema_version,
            r.run_id().map_or(String::new(), |id| format!("; run {id}"))
        ),
    ]);
    d.push(Block::Details(
        "The machine, its settings and the timer".into(),
        vec![Block::Table(doc::Table {
            head: vec!["".into(), "".into()],
            rows,
            right: vec![],
        })],
    ));
}

/// The Summary's sentences, as the report and the terminal print them.
pub fn summary(r: &RunResults) -> Vec<String> {
    headlines::sentences(r)
        .into_iter()
        .map(|(_, s)| s)
        .collect()
}

/// "18 of 19 experiments measured."
pub fn measured_sentence(r: &RunResults) -> String {
    let ok = r
        .experiments
        .iter()
        .filter(|x| x.status == Status::Ok)
        .count();
    let mut s = format!("{ok} of {} experiments measured.", r.experiments.len());
    if let Some(p) = &r.precision {
        s.push_str(&format!(" {}.", p.sentence(r.busy.as_ref())));
    }
    s
}

/// How many of the run's series have an interval that reaches past their
/// least or greatest sample, counted from the file, and why (issue 39): one
/// of [`BOUNDED_FROM`] rounds or more is held within the samples and then
/// widened by the run-to-run noise (`stats::rounds::widen_by_run_noise`),
/// for what one run's samples cannot show; one of fewer rounds is widened
/// for its few rounds and not held within them. None when no interval does.
pub(super) fn past_the_samples(r: &RunResults) -> Option<String> {
    let all: Vec<&crate::stats::Summary> = r
        .experiments
        .iter()
        .flat_map(|x| x.metrics.iter().map(|m| &m.summary))
        .collect();
    let past: Vec<_> = all
        .iter()
        .filter(|s| s.ci95_lo < s.min || s.ci95_hi > s.max)
        .collect();
    if past.is_empty() {
        return None;
    }
    const NOISE: &str = "the run-to-run noise (what one run's samples cannot show: the host's state from one run to the next)";
    let many = |noise: bool| {
        past.iter()
            .filter(|s| s.rounds >= BOUNDED_FROM && s.run_noise.is_some() == noise)
            .count()
    };
    let few: Vec<_> = past.iter().filter(|s| s.rounds < BOUNDED_FROM).collect();
    let mut why = Vec::new();
    if many(true) > 0 {
        why.push(format!(
            "{} with {BOUNDED_FROM} rounds or more, whose interval is held within the samples and then widened by {NOISE}",
            many(true)
        ));
    }
    if many(false) > 0 {
        why.push(format!(
            "{} with {BOUNDED_FROM} rounds or more and no run-to-run noise recorded (a file from before its interval was held within the samples)",
            many(false)
        ));
    }
    if !few.is_empty() {
        why.push(format!(
            "{} with fewer than {BOUNDED_FROM} rounds, whose interval is widened for its few rounds and not held within the samples{}",
            few.len(),
            match (few.iter().any(|s| s.run_noise.is_some()), many(true) > 0) {
                (true, true) => ", and widened by that noise too".to_string(),
                (true, false) => format!(", and widened by {NOISE}"),
                (false, _) => String::new(),
            }
        ));
    }
    Some(format!(
        "{} of {} series have an interval that reaches past their least or greatest sample: {}.",
        past.len(),
        all.len(),
        why.join("; ")
    ))
}

/// One line per experiment that failed, was skipped or is partial, with why.
pub fn failures(r: &RunResults) -> Vec<String> {
    r.experiments
        .iter()
        .filter(|x| x.status != Status::Ok || x.partial())
        .map(|x| match x.partial_words() {
            Some(words) => format!("{} is {words}", x.name),
            None => format!(
                "{} {}: {}",
                x.name,
                if x.status == Status::Failed {
                    "failed"
                } else {
                    "was skipped"
                },
                x.reason.as_deref().unwrap_or("no reason given")
            ),
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
pub(super) fn rounds_sentence(r: &RunResults) -> String {
    let budget = r.precision.as_ref().filter(|p| p.budget_s.is_some());
    if let Some((p, (lo, hi))) = budget.and_then(|p| Some((p, p.rounds?))) {
        format!(
            "Every figure is a median over independent rounds spread over the run: {lo} at least{}{} (schedule seed {}), with a 95% interval from the rounds;",
            p.summary_rounds.map_or(String::new(), |(s, _)| format!(
                ", {s} for the Summary's quantities"
            )),
            // Said only when adaptive rounds ran: else no round was bought.
            if hi > lo && p.adaptive_jobs > 0 {
                format!(", up to {hi} where a round bought the most precision per second")
            } else {
                String::new()
            },
            r.seed.map_or("unknown".into(), |s| s.to_string())
        )
    } else if r.rounds >= 2 {
        format!(
            "Every figure is a median over {} independent rounds spread over the run{} (schedule seed {}), with a 95% interval from the rounds;",
            r.rounds,
            if r.precision.as_ref().is_some_and(|p| p.adaptive_jobs > 0) {
                ", more where adaptive rounds went to the widest intervals"
            } else {
                ""
            },
            r.seed.map_or("unknown".into(), |s| s.to_string())
        )
    } else {
        "Every figure is the median of independent samples;".into()
    }
}

/// The CPU's clock as each round counted it at its start (a chain of
/// dependent additions), beside the calibration's one reading: the host
/// may change it between rounds. Empty for a file from before.
fn cpu_clock(r: &RunResults) -> String {
    let mhz = r.round_mhz();
    let Some(median) = crate::stats::median(&mhz) else {
        return String::new();
    };
    let range = crate::stats::drift_range(&mhz)
        .map(|(p10, p90)| format!(", {p10:.0}–{p90:.0} MHz from the 10th to the 90th percentile"))
        .unwrap_or_default();
    let once = r
        .calibration
        .measured_mhz
        .map(|m| format!("; the calibration's one reading was {m:.0} MHz"))
        .unwrap_or_default();
    format!(
        "; the CPU's clock, counted at each of {} rounds' start, {median:.0} MHz at the median{range}{once}",
        mhz.len()
    )
}

/// The THP and compaction counters' growth over the rounds, when any
/// moved: huge pages given and refused at a fault, khugepaged's collapses,
/// and the direct compaction faults waited for (system-wide).
fn thp_counters(r: &RunResults) -> String {
    let v = r.round_vmstat();
    let moved: Vec<String> = v
        .iter()
        .filter(|(_, n)| **n > 0.0)
        .map(|(k, n)| format!("{k} {n:.0}"))
        .collect();
    if v.is_empty() {
        return String::new();
    }
    if moved.is_empty() {
        return "; no THP or compaction counter of /proc/vmstat moved during the rounds".into();
    }
    format!(
        "; /proc/vmstat's THP and compaction counters grew during the rounds (system-wide): {}",
        moved.join(", ")
    )
}

/// How fast and how steady the machine itself was over this run: its
/// canary (a bare system call, a pipe write and read, at every round's start
/// and end), the host's steal and other work. Another run may find the
/// machine at another speed; the reader learns how far it moved within this
/// one, a fact beside the figures (`compare` states it and judges no row by
/// it). The pooled compare is said for what it is: each file a run, the
/// runs a level of the bootstrap.
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
    text.push_str(&cpu_clock(r));
    if let Some(b) = &r.busy {
        text.push_str(&format!(
            "; steal {:.1}% of all CPUs' time; other runnable tasks {:.1} on average between jobs (at most {:.0})",
            100.0 * b.steal_share,
            b.during_other_runnable,
            b.during_max_other_runnable
        ));
    }
    text.push_str(&thp_counters(r));
    let measured = r
        .experiments
        .iter()
        .flat_map(|e| &e.metrics)
        .any(|m| m.summary.run_noise.is_some());
    let holds = if measured {
        format!(
            "every interval here holds its experiment's run-to-run noise at that point, measured from this run's own drift (its early rounds against its late ones), never less than {:.1}% (sd)",
            crate::stats::noise::FLOOR * 100.0
        )
    } else {
        "this file is from an older tasklab, whose intervals carry a fixed ±2% for the noise between runs".to_string()
    };
    text.push_str(&format!(
        ". Another run may find the machine at another speed: {holds}; tasklab compare states each side's speed, judges no row by it, and measures that noise again from both sides; given two or more files a side (compare A1 A2 --vs B1 B2), it takes each file as a run and resamples the runs as a level of the bootstrap, and their spread measures it"
    ));
    Some(text)
}

#[cfg(test)]
#[path = "document_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "boots_tests.rs"]
mod boots_tests;
