//! `run --why` shown: where each attributed figure's time went, as shares
//! of the cpu-clock samples taken inside its timed windows, each with its
//! 95% interval across rounds. The report has a table and a flame graph
//! per attributed Summary quantity (then a table per other attributed
//! series); the terminal the top three kernel functions of each Summary
//! quantity.

use super::doc::{self, Block, Chart, Doc};
use crate::experiments::headline::Quantity;
use crate::experiments::summary_quantities;
use crate::results::why::{Attribution, Overhead, Share};
use crate::results::{ExperimentResult, Labels, RunResults};

/// An attributed series: what it is called, its attribution, and what
/// sampling cost the figure it stands for (a Summary quantity's series, or
/// the first series shown in tables that its windows timed).
pub struct Attributed<'a> {
    /// The experiment whose series it is.
    pub experiment: &'a str,
    pub title: String,
    pub summary: bool,
    pub attribution: &'a Attribution,
    pub overhead: Option<&'a Overhead>,
}

/// The attribution that covers a series with `labels`: the one whose
/// labels it all carries (a window times every series pushed with them).
pub fn covering<'a>(e: &'a ExperimentResult, labels: &Labels) -> Option<&'a Attribution> {
    e.why.iter().find(|a| a.covers(labels))
}

/// The cost of sampling of the first series shown in tables that `a`'s
/// windows timed.
fn shown_overhead<'a>(e: &ExperimentResult, a: &'a Attribution) -> Option<&'a Overhead> {
    a.overhead.iter().find(|o| {
        e.metrics
            .iter()
            .any(|m| m.name == o.metric && m.labels == o.labels && !m.detail)
    })
}

/// The run's attributed series: the Summary's quantities first (in the
/// Summary's order), then every other attributed series of each experiment.
pub fn attributed(r: &RunResults) -> Vec<Attributed<'_>> {
    let mut out: Vec<Attributed> = Vec::new();
    for q in summary_quantities(r) {
        let Some(e) = r.measured(q.experiment) else {
            continue;
        };
        if let Some(a) = covering(e, &q.headline.labels) {
            if !out.iter().any(|x| std::ptr::eq(x.attribution, a)) {
                out.push(Attributed {
                    experiment: &e.name,
                    title: title(&q),
                    summary: true,
                    attribution: a,
                    overhead: a.overhead_of(q.headline.spec.name, &q.headline.labels),
                });
            }
        }
    }
    for e in r
        .experiments
        .iter()
        .filter(|e| e.status == crate::results::Status::Ok)
    {
        for a in &e.why {
            if !out.iter().any(|x| std::ptr::eq(x.attribution, a)) {
                out.push(Attributed {
                    experiment: &e.name,
                    title: format!("{} {}", e.name, label_words(&a.labels)),
                    summary: false,
                    attribution: a,
                    overhead: shown_overhead(e, a),
                });
            }
        }
    }
    out
}

/// A Summary quantity sampled that no attribution covers, with what
/// sampling cost it: its windows ran with the events on in every twin
/// round and took no sample (too little CPU time in them).
pub struct Unsampled<'a> {
    pub experiment: &'a str,
    pub title: String,
    pub overhead: &'a Overhead,
}

/// The run's Summary quantities that were sampled, costed and got no
/// sample, in the Summary's order.
pub fn unsampled(r: &RunResults) -> Vec<Unsampled<'_>> {
    summary_quantities(r)
        .iter()
        .filter_map(|q| {
            let e = r.measured(q.experiment)?;
            if covering(e, &q.headline.labels).is_some() {
                return None;
            }
            let overhead = e
                .why_unsampled
                .iter()
                .find(|o| o.metric == q.headline.spec.name && o.labels == q.headline.labels)?;
            Some(Unsampled {
                experiment: &e.name,
                title: title(q),
                overhead,
            })
        })
        .collect()
}

/// Why windows took no sample, in words.
fn too_little_cpu(rate_hz: u64) -> String {
    format!(
        "too little CPU time in its windows to catch one of the samples, {:.1} ms apart at \
         {rate_hz} Hz",
        1e3 / rate_hz.max(1) as f64
    )
}

/// Why a costed quantity has no share, in words.
fn no_sample_words(x: &Unsampled, rate_hz: u64) -> String {
    format!(
        "no sample in its {} sampled rounds ({}); sampling's cost {}",
        x.overhead.pairs,
        too_little_cpu(rate_hz),
        overhead_words(x.overhead)
    )
}

/// A Summary quantity's name as its attribution is titled: a slope is
/// attributed at its larger point, whose windows hold the growth it
/// measures, and says so.
fn title(q: &Quantity) -> String {
    let to = &q.headline.labels;
    let at = q
        .headline
        .slope
        .as_ref()
        .and_then(|s| to.iter().find(|(k, v)| s.from.get(*k) != Some(*v)));
    match at {
        Some((k, v)) => format!("{}, sampled at {k} {v}", q.headline.name),
        None => q.headline.name.clone(),
    }
}

fn label_words(labels: &Labels) -> String {
    labels
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A share with its interval: "84.8% [80.1%, 88.0%]"; a bound computed
/// past 100% or below 0% said so in words (`units::fmt_share_interval`).
pub fn share_words(s: &Share) -> String {
    crate::units::fmt_share_interval(s.share, s.lo, s.hi)
}

/// What sampling cost a figure, in words: "+3.1% [+1.2%, +5.0%]" where the
/// interval of the paired change excludes none, else "within ±2.4%" (no
/// change told apart, and none larger than that); with its pairs.
pub fn overhead_words(o: &Overhead) -> String {
    let pct = |r: f64| (r - 1.0) * 100.0;
    let (m, lo, hi) = (pct(o.ratio), pct(o.lo), pct(o.hi));
    let pairs = format!("{} pairs", o.pairs);
    if lo <= 0.0 && hi >= 0.0 {
        format!("within ±{:.1}% ({pairs})", lo.abs().max(hi.abs()))
    } else {
        format!("{m:+.1}% [{lo:+.1}%, {hi:+.1}%] ({pairs})")
    }
}

/// The target the sampling's cost is held to at the default rate: 2%.
pub const OVERHEAD_TARGET: f64 = 0.02;

/// Whether a cost is shown within the target: its whole interval inside
/// ±[`OVERHEAD_TARGET`].
pub fn within_target(o: &Overhead) -> bool {
    (o.lo - 1.0).abs() <= OVERHEAD_TARGET && (o.hi - 1.0).abs() <= OVERHEAD_TARGET
}

/// The top `n` kernel functions by self share, in words.
pub fn top_words(a: &Attribution, n: usize) -> String {
    let mut f: Vec<_> = a.functions.iter().collect();
    f.sort_by(|x, y| y.self_share.share.total_cmp(&x.self_share.share));
    f.iter()
        .take(n)
        .filter(|f| f.self_share.share > 0.0)
        .map(|f| format!("{} {}", f.function, share_words(&f.self_share)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One line per attributed Summary quantity (or, when none is, per
/// attributed series): its kernel share and top three functions, with the
/// experiment it is of (the terminal sets it under that experiment's
/// Summary sentences); the refusal, of none, when sampling was asked for
/// and refused. Empty without --why.
pub fn terminal_lines(r: &RunResults) -> Vec<(Option<&str>, String)> {
    let Some(w) = &r.why else {
        return Vec::new();
    };
    if let Some(no) = &w.unavailable {
        return vec![(None, format!("why: nothing attributed: {no}"))];
    }
    let all = attributed(r);
    let shown: Vec<&Attributed> = if all.iter().any(|a| a.summary) {
        all.iter().filter(|a| a.summary).collect()
    } else {
        all.iter().collect()
    };
    let none = unsampled(r).into_iter().map(|x| {
        (
            Some(x.experiment),
            format!("why: {}: {}", x.title, no_sample_words(&x, w.rate_hz)),
        )
    });
    shown
        .iter()
        .map(|x| {
            let a = x.attribution;
            let top = top_words(a, 3);
            let line = format!(
                "why: {} ({} samples, {} rounds): kernel {}, user {}{}{}",
                x.title,
                a.samples,
                a.rounds,
                share_words(&a.kernel),
                share_words(&a.user),
                if top.is_empty() {
                    String::new()
                } else {
                    format!("; {top}")
                },
                x.overhead.map_or(String::new(), |o| format!(
                    "; sampling's cost {}",
                    overhead_words(o)
                ))
            );
            (Some(x.experiment), line)
        })
        .chain(none)
        .collect()
}

/// The report's section: a table per attributed series, the Summary's
/// quantities first. Nothing without --why.
pub fn section(d: &mut Doc, r: &RunResults) {
    let Some(w) = &r.why else {
        return;
    };
    d.heading(1, "Where the time goes", "why");
    d.push(Block::Para(format!(
        "Each attributed figure's time shared out from {} samples at {} Hz of the \
         tasks' CPU time, taken only inside the timed windows of its rounds (its \
         worker and the children it started); each share pools the rounds (every \
         round's count over every round's samples) with its 95% interval, the wider \
         of what the samples alone allow and what the rounds' spread gives, the \
         rounds the unit. A function's self share \
         counts the samples taken in it, its total share those it is on the call \
         chain of. Halted time (a task asleep, a CPU idle) is not sampled{} (see \
         docs/WHY.md).",
        w.event,
        w.rate_hz,
        // CPU-wide events see a child to its end; inherited ones leave it
        // before its memory is torn down.
        if w.mode.as_deref() == Some("cpu-wide") {
            ""
        } else {
            ", and a child's exit teardown is not seen"
        }
    )));
    if let Some(no) = &w.unavailable {
        d.push(Block::Warning(format!("Nothing attributed: {no}.")));
        return;
    }
    if let Some(m) = mode_words(w) {
        d.push(Block::Para(m));
    }
    let all = attributed(r);
    let none = unsampled(r);
    if all.iter().any(|x| x.overhead.is_some()) || !none.is_empty() {
        d.push(Block::Para(cost_words(&all, &none, w.rate_hz)));
        d.push(Block::Table(overview(&all, &none)));
    }
    for x in &none {
        d.push(Block::Para(format!(
            "{}: {}.",
            x.title,
            no_sample_words(x, w.rate_hz)
        )));
    }
    let costed_apart = r.experiments.iter().any(|e| !e.why_unsampled.is_empty());
    if all.is_empty() && none.is_empty() && costed_apart {
        d.push(Block::Aside(format!(
            "No sample fell in a timed window of this run ({}), and no Summary quantity was \
             among its series; what sampling cost each series is in results.json \
             (`why_unsampled`).",
            too_little_cpu(w.rate_hz)
        )));
    } else if all.is_empty() && none.is_empty() {
        d.push(Block::Aside(
            "No series of this run was sampled (an A/B side with why:off, or no timed window \
             of an experiment that names its series)."
                .into(),
        ));
    }
    for (i, x) in all.iter().enumerate() {
        d.heading(2, x.title.clone(), format!("why-{i}"));
        d.push(Block::Table(table(x.attribution)));
        let a = x.attribution;
        let mut aside = format!(
            "{} samples in {} rounds; labels {}",
            a.samples,
            a.rounds,
            label_words(&a.labels)
        );
        if a.lost > 0 {
            aside.push_str(&format!("; {} samples lost (a full ring)", a.lost));
        }
        d.push(Block::Aside(aside));
        if x.summary {
            if let Some(c) = flame_chart(x, &format!("flame-why-{i}.svg")) {
                d.push(Block::Chart(c));
            }
        }
    }
}

/// Which tasks the events sampled, and what that costs at a context
/// switch; None in a file that does not say (from before both modes).
pub fn mode_words(w: &crate::results::why::WhyRecord) -> Option<String> {
    // CPU-wide: how the worker's tasks were told, and what the kernel
    // then does no work for at.
    let cpu_wide = |told: &str, free_at: &str| {
        format!(
            "Sampled CPU-wide: an event on each CPU samples every task that runs there, and \
             the samples of other processes are dropped ({told}), so the kernel does no work for \
             sampling at {free_at}."
        )
    };
    match (w.mode.as_deref()?, w.tasks.as_deref()) {
        ("cpu-wide", Some("cgroup")) => Some(cpu_wide(
            "each worker of an experiment whose windows start processes moved itself into a \
             cgroup of its own, where the tasks it starts are born, and each sample carries its \
             task's cgroup; the other workers' tasks are told by pid and the kernel's fork and \
             exit records, which windows that start no process do not pay, where a cgroup would \
             add a level to the kernel's accounting at every switch",
            "a context switch, or at a fork or an exit where the windows start processes",
        )),
        ("cpu-wide", Some("records")) => Some(cpu_wide(
            &format!(
                "the worker's tree is followed by the kernel's fork and exit records, a few \
                 hundred ns of each process started, since no cgroup of the worker's own could \
                 be used: {}",
                w.records_why.as_deref().unwrap_or("not said")
            ),
            "a context switch",
        )),
        ("cpu-wide", _) => Some(cpu_wide(
            "the worker's tree is followed by the kernel's fork records",
            "a context switch or a fork",
        )),
        ("per-task", _) => Some(format!(
            "Sampled per task: {}.",
            w.per_task_why
                .as_deref()
                .unwrap_or("the events follow the worker and the tasks it starts")
        )),
        (other, _) => Some(format!("Sampled in mode {other}.")),
    }
}

/// What a flame graph's caption says after its first sentence.
pub const FLAME_HOW: &str = "Each box is a function on the call chains sampled inside the \
     figure's timed windows, as wide as its share of the samples pooled over the rounds, \
     the functions it called stacked on it; `[user]` is time in user space. In the HTML \
     page (or the SVG file opened alone) a click on a box zooms to it and Ctrl+F searches.";

/// The samples and rounds a graph is drawn from, and how much of them.
fn drawn_from(a: &Attribution) -> String {
    let drawn: u64 = a.folded.iter().map(|(_, n)| n).sum();
    let mut s = format!("{} samples in {} rounds", a.samples, a.rounds);
    if drawn < a.samples {
        s.push_str(&format!(
            "; the heaviest {} call chains drawn ({drawn} samples)",
            a.folded.len()
        ));
    }
    s
}

/// The flame graph of an attributed Summary quantity: None when it kept no
/// folded stacks (an older file) or a drawing error, said (a bug, never a
/// reason to lose the report).
pub fn flame_chart(x: &Attributed, file: &str) -> Option<Chart> {
    let a = x.attribution;
    let title = format!("Where the time goes: {}", x.title);
    match super::flame::graph(&title, &drawn_from(a), &a.folded) {
        Ok(svg) => svg.map(|svg| {
            super::flame::chart(
                file.into(),
                &title,
                format!(
                    "Where the sampled CPU time of {} went, function by function ({}). {FLAME_HOW}",
                    x.title,
                    drawn_from(a)
                ),
                svg,
            )
        }),
        Err(e) => {
            eprintln!("tasklab: a flame graph could not be drawn: {e:#}");
            None
        }
    }
}

/// What the figures and the cost of sampling rest on, and whether the
/// Summary's quantities met the target.
fn cost_words(all: &[Attributed], none: &[Unsampled], rate_hz: u64) -> String {
    let costed: Vec<&Overhead> = all
        .iter()
        .filter(|x| x.summary)
        .filter_map(|x| x.overhead)
        .chain(none.iter().map(|x| x.overhead))
        .collect();
    let met = costed.iter().filter(|o| within_target(o)).count();
    let mut s = format!(
        "Each sampled round ran beside an unsampled twin, next to it in time: the figures \
         come from the unsampled rounds alone, the shares from the sampled ones, and \
         sampling's cost is the change from each unsampled round to its twin, paired as \
         tasklab ab pairs its sides (\"within ±x%\": no change told apart, the interval \
         reaching x% at most). At {rate_hz} Hz"
    );
    if costed.is_empty() {
        s.push_str(", no Summary quantity has a cost measured.");
    } else {
        s.push_str(&format!(
            ", {met} of the {} Summary quantities costed are shown within the {:.0}% target \
             (the whole interval inside ±{:.0}%){}.",
            costed.len(),
            OVERHEAD_TARGET * 100.0,
            OVERHEAD_TARGET * 100.0,
            if met < costed.len() {
                "; for the others the pairs cannot tell so: a cost larger than that, or rounds \
                 too scattered to bound it"
            } else {
                ""
            }
        ));
    }
    s
}

/// One row per attributed series: its samples, the kernel's share, the top
/// function by self share, and what sampling cost its figure.
/// A Summary quantity with no sample gets a row with its cost alone.
fn overview(all: &[Attributed], none: &[Unsampled]) -> doc::Table {
    let mut rows: Vec<Vec<String>> = all
        .iter()
        .map(|x| {
            let a = x.attribution;
            vec![
                x.title.clone(),
                format!("{} ({} rounds)", a.samples, a.rounds),
                share_words(&a.kernel),
                top_words(a, 1),
                // A Summary quantity's own series; else the series named.
                x.overhead
                    .map_or("not measured".into(), |o| match x.summary {
                        true => overhead_words(o),
                        false => format!("{}: {}", o.metric, overhead_words(o)),
                    }),
            ]
        })
        .collect();
    rows.extend(none.iter().map(|x| {
        vec![
            x.title.clone(),
            format!("none ({} rounds)", x.overhead.pairs),
            "no sample".into(),
            "no sample".into(),
            overhead_words(x.overhead),
        ]
    }));
    doc::Table {
        head: vec![
            "figure".into(),
            "samples".into(),
            "the kernel".into(),
            "top function (self)".into(),
            "sampling's cost".into(),
        ],
        rows,
        right: vec![1, 2, 4],
    }
}

fn table(a: &Attribution) -> doc::Table {
    let mut rows = vec![
        vec!["user space".into(), share_words(&a.user), String::new()],
        vec!["the kernel".into(), share_words(&a.kernel), String::new()],
    ];
    for f in &a.functions {
        rows.push(vec![
            f.function.clone(),
            share_words(&f.self_share),
            share_words(&f.total),
        ]);
    }
    doc::Table {
        head: vec!["where".into(), "self share".into(), "total share".into()],
        rows,
        right: vec![1, 2],
    }
}

/// What a differential flame graph's caption says after its first
/// sentence.
pub const DIFF_HOW: &str = "Each box is a function on side B's sampled call chains, as wide \
     as its share of B's samples; red where its share grew from A to B, blue where it fell, \
     the deeper the more (A's samples scaled to B's count, so the colours compare shares, \
     not times: the verdict above says how much the figure itself changed). In the HTML \
     page (or the SVG file opened alone) a click on a box zooms to it and Ctrl+F searches.";

/// An A/B run's section: a differential flame graph, side A to side B, of
/// each Summary quantity whose verdict is a change (`changed`: experiment,
/// series and labels) and that both sides attributed with folded stacks.
/// Nothing, not even the heading, when there is none.
pub fn differentials(d: &mut Doc, a: &RunResults, b: &RunResults, changed: &[Changed]) {
    let mut charts = Vec::new();
    for q in summary_quantities(b) {
        let key = (q.experiment, q.headline.spec.name, &q.headline.labels);
        if !changed
            .iter()
            .any(|c| (c.0.as_str(), c.1.as_str(), &c.2) == key)
        {
            continue;
        }
        let of = |r: &RunResults| {
            r.measured(q.experiment)
                .and_then(|e| covering(e, &q.headline.labels))
                .filter(|at| !at.folded.is_empty())
                .cloned()
        };
        let (Some(wa), Some(wb)) = (of(a), of(b)) else {
            continue;
        };
        let name = title(&q);
        let title = format!("What changed from A to B: {name}");
        let from = format!(
            "A: {} samples in {} rounds; B: {} samples in {} rounds",
            wa.samples, wa.rounds, wb.samples, wb.rounds
        );
        match super::flame::differential(&title, &from, &wa.folded, &wb.folded) {
            Ok(Some(svg)) => charts.push(super::flame::chart(
                format!("flame-diff-{}.svg", charts.len()),
                &title,
                format!(
                    "How the sampled CPU time of {name} shifted between functions from side A to side B ({from}). {DIFF_HOW}"
                ),
                svg,
            )),
            Ok(None) => {}
            Err(e) => eprintln!("tasklab: a flame graph could not be drawn: {e:#}"),
        }
    }
    if charts.is_empty() {
        return;
    }
    d.heading(2, "Where the change went", "ab-why");
    for c in charts {
        d.push(Block::Chart(c));
    }
}

/// A series whose A/B verdict is a change: experiment, series, labels.
pub type Changed = (String, String, Labels);

#[cfg(test)]
#[path = "why_tests.rs"]
mod tests;
