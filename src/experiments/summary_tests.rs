//! The Summary keeps its subjects: the same quantities, in the same order,
//! whichever series of a run came out imprecise or flagged.

use crate::results::{Metric, RunResults};
use crate::stats::rounds::Unsettled;

fn fixture() -> RunResults {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-results.json");
    RunResults::read(&path).expect("the fixture reads")
}

/// Every experiment's Summary sentences, analysed anew, in report order.
fn summary(r: &RunResults) -> Vec<(String, String)> {
    r.experiments
        .iter()
        .filter_map(|e| Some((e, super::find(&e.name)?)))
        .flat_map(|(e, x)| {
            (x.analyze)(e)
                .headlines
                .into_iter()
                .map(|h| (e.name.clone(), h))
        })
        .collect()
}

fn imprecise(m: &mut Metric, pct: f64) {
    let s = &mut m.summary;
    let h = s.median.abs() * pct / 100.0;
    s.ci95_lo = s.median - h;
    s.ci95_hi = s.median + h;
    s.noisy = true;
}

fn flagged(m: &mut Metric) {
    let s = &mut m.summary;
    s.unstable = true;
    s.unsettled = Some(Unsettled::TwoModes {
        low: s.median * 0.8,
        high: s.median * 1.2,
        low_share: 0.5,
        explained: None,
    });
    s.ci95_lo = s.median * 0.8;
    s.ci95_hi = s.median * 1.2;
}

/// The run with its series perturbed by `how(index, metric)`.
fn perturbed(r: &RunResults, how: impl Fn(usize, &mut Metric)) -> RunResults {
    let mut r = r.clone();
    for e in &mut r.experiments {
        for (i, m) in e.metrics.iter_mut().enumerate() {
            how(i, m);
        }
    }
    r
}

/// The phrases that name the Summary's subjects, in their order.
const SUBJECTS: &[&str] = &[
    "a bare system call costs",
    "a fork+reap costs",
    "and a thread create+join",
    "per 100 MiB of touched heap between",
    "posix_spawn takes",
    "and fork+exec",
    "a page the parent writes while the child lives costs",
    "with no child",
    "waking a task on the other CPU costs",
    "and a same-CPU switch",
    "a stackful coroutine",
    "an async task",
    "a goroutine",
    "reserves",
    "resident",
    "of kernel stack, ",
    "of page tables (VmPTE) and ",
    "of slab (Slab, system-wide) (at ",
    "forked processes average the seed's array",
    "(threads ",
    ", pool ",
    "2 forked processes against serial:",
    "with thp=default",
    "with thp=on",
];

/// Where each subject phrase is found, in order; panics with the Summary
/// when one is missing or out of order.
fn subjects_in_order(lines: &[(String, String)], what: &str) {
    let text: String = lines
        .iter()
        .map(|(_, h)| h.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let mut at = 0;
    for s in SUBJECTS {
        match text[at..].find(s) {
            Some(i) => at += i + s.len(),
            None => panic!("{what}: subject {s:?} missing or out of order in\n{text}"),
        }
    }
}

#[test]
fn the_summary_keeps_its_subjects_and_their_order_whatever_is_imprecise_or_flagged() {
    let base = fixture();
    let settled = summary(&base);
    subjects_in_order(&settled, "as measured");
    let names = |l: &[(String, String)]| l.iter().map(|x| x.0.clone()).collect::<Vec<_>>();
    let cases: Vec<(&str, RunResults)> = vec![
        (
            "every series imprecise",
            perturbed(&base, |_, m| imprecise(m, 30.0)),
        ),
        ("every series flagged", perturbed(&base, |_, m| flagged(m))),
        (
            "every other series flagged, the rest imprecise",
            perturbed(&base, |i, m| {
                if i % 2 == 0 {
                    flagged(m)
                } else {
                    imprecise(m, 25.0)
                }
            }),
        ),
        (
            "every third series flagged",
            perturbed(&base, |i, m| {
                if i % 3 == 1 {
                    flagged(m)
                }
            }),
        ),
        (
            "series that bound nothing",
            perturbed(&base, |i, m| {
                if i % 2 == 1 {
                    imprecise(m, 95.0)
                }
            }),
        ),
    ];
    for (what, r) in &cases {
        let lines = summary(r);
        assert_eq!(names(&lines), names(&settled), "{what}: {lines:#?}");
        subjects_in_order(&lines, what);
        for (_, h) in &lines {
            assert!(!h.contains("[0.0") && !h.contains("-0"), "{what}: {h}");
        }
    }
    // a flagged figure is quoted with its mark, an imprecise one with ±X%
    let all_flagged = summary(&cases[1].1);
    assert!(
        all_flagged.iter().all(|(_, h)| h.contains(" !")),
        "{all_flagged:#?}"
    );
    let all_imprecise = summary(&cases[0].1);
    assert!(
        all_imprecise.iter().all(|(_, h)| h.contains("±30% ~")),
        "{all_imprecise:#?}"
    );
}

/// The Summary's quantities are the sentences' figures: every experiment
/// that declares one writes a sentence and the reverse; each is found in
/// the run it was picked from; and the picks do not move when the figures
/// do (labels only), so the matrix's rows and the budget's points stay put.
#[test]
fn the_declared_quantities_are_the_sentences_figures_and_read_labels_only() {
    let base = fixture();
    let quantities = super::summary_quantities(&base);
    assert!(quantities.len() >= 10, "{} quantities", quantities.len());
    let declaring: Vec<&str> = quantities.iter().map(|q| q.experiment).collect();
    let mut writing: Vec<String> = summary(&base).into_iter().map(|(e, _)| e).collect();
    writing.dedup();
    let mut declared = declaring.clone();
    declared.dedup();
    assert_eq!(declared, writing);
    for q in &quantities {
        let e = base.measured(q.experiment).unwrap();
        let f = q.headline.figure(e);
        assert!(f.is_some(), "{} has no figure", q.headline.name);
        assert_eq!(
            q.headline.slope.is_some(),
            q.headline.find_from(e).is_some()
        );
        assert!(super::find(q.experiment)
            .unwrap()
            .metric(q.headline.spec.name)
            .is_some());
    }
    let same = |r: &RunResults| {
        super::summary_quantities(r)
            .into_iter()
            .map(|q| (q.experiment, q.headline))
            .collect::<Vec<_>>()
    };
    let flagged_all = perturbed(&base, |_, m| flagged(m));
    let imprecise_all = perturbed(&base, |_, m| imprecise(m, 40.0));
    assert_eq!(same(&flagged_all), same(&base));
    assert_eq!(same(&imprecise_all), same(&base));
}

/// The findings that keep a fixed subject (issue 39 item 9): each named in
/// every run, whatever settled, as the Summary's quantities are.
const FINDING_SUBJECTS: &[(&str, &str)] = &[
    (
        "switch.pingpong",
        "same CPU, pipe_threads (the seed's method)",
    ),
    ("switch.echo", "pipe echo"),
    ("spawn.cold", "fork"),
    ("spawn.cold", "pthread_create"),
    ("spawn.cold", "why the seeds disagree"),
    (
        "parallel.program",
        "Linux Fu gained #.#x (# → # ms) with one fork",
    ),
    ("spawn.methods", "starting a program"),
    (
        "spawn.launch",
        "by the seed's protocol (# MiB heap, launch, sleep # µs, reap)",
    ),
    ("spawn.launch", "the seed's mean against the median"),
    (
        "spawn.heap",
        "launch+reap against the heap, smallest to largest (grows",
    ),
    (
        "spawn.heap",
        "advice for a process with a large heap that must start programs",
    ),
    (
        "spawn.heap",
        "what extras add to fork, which copies every mapping and the descriptor table (the child's exit tears them down)",
    ),
    ("spawn.methods", "warm, pinned to one CPU"),
    ("spawn.cow", "# KiB pages"),
    ("spawn.cow", "huge pages"),
    ("switch.pingpong", "yardstick"),
    ("switch.userspace", "per switch"),
    (
        "switch.userspace",
        "locking the goroutines to OS threads (on one CPU), per switch",
    ),
    (
        "switch.userspace",
        "GOMAXPROCS=# on one CPU against the default, per switch",
    ),
    ("parallel.program", "n=# thp=default"),
    ("parallel.program", "n=# thp=on"),
];

/// Phrases past a finding's head that name its later subjects, each found
/// in its experiment's findings in every run, whatever the verdict.
const FINDING_PHRASES: &[(&str, &str)] = &[
    (
        "spawn.methods",
        "; the exec'd program's own start-up is part of the bill: static ",
    ),
    ("spawn.launch", " on average (mean), fork against a thread "),
    ("spawn.launch", "the seed's mean against the median: fork "),
    ("spawn.heap", "; fork "),
    ("spawn.heap", "; posix_spawn "),
    ("spawn.heap", "; vfork "),
    ("spawn.heap", ": posix_spawn "),
    ("spawn.heap", ", vfork "),
    ("spawn.heap", ", fork+exec "),
    ("spawn.heap", ": each extra one-page mapping adds "),
    ("spawn.heap", "; each extra open descriptor adds "),
    (
        "spawn.methods",
        "warm, pinned to one CPU: a fork+reap costs ",
    ),
    (
        "spawn.methods",
        " against clone3 with the same flags, a stack and a TLS block ",
    ),
    ("spawn.methods", "; clone() with those flags and no TLS "),
    ("spawn.methods", "Rust's std::thread::spawn+join "),
    (
        "spawn.cow",
        "4 KiB pages: with the child alive, writing 100% of a 256 MiB heap costs ",
    ),
    (
        "spawn.cow",
        "huge pages: with the child alive, writing 10% of a 256 MiB heap costs ",
    ),
    (
        "spawn.cow",
        "on huge pages (256 MiB of the heap in 2 MiB pages), a write after fork at 1% costs ",
    ),
    (
        "spawn.cow",
        "fork with a touched 256 MiB heap on 4 KiB pages returns to the parent in ",
    ),
    ("switch.pingpong", "yardstick: a pinned pipe switch ("),
    ("switch.pingpong", ". Over a pipe, a process switch ("),
    (
        "switch.pingpong",
        "a hand-off to the other CPU vs one on the same CPU, per switch: pipe_threads ",
    ),
    ("switch.pingpong", "; futex_threads "),
    ("switch.pingpong", "; futex_processes "),
    ("switch.echo", "; unpinned "),
    ("switch.echo", " against the pinned rate: "),
    ("switch.userspace", "per switch: coroutine "),
    ("switch.userspace", ", async "),
    ("switch.userspace", ", go_maxprocs1 "),
    ("switch.userspace", ", go_default "),
    ("switch.userspace", ", go_locked "),
    ("switch.userspace", "per switch: go_locked "),
    ("switch.userspace", "per switch: go_maxprocs1 "),
    (
        "switch.wakeup",
        " late on a CPU left without work (no cpuidle driver: HLT, not counted), ",
    ),
    (
        "switch.wakeup",
        " late on one kept awake by a SCHED_IDLE spinner: ",
    ),
    (
        "parallel.program",
        "n=55256000: the fill on huge pages against 4 KiB pages: ",
    ),
    ("parallel.average", "with 2 workers, fork ("),
    (
        "parallel.average",
        "; creating and reaping the child process alone with this 421.6 MiB array costs ",
    ),
    ("parallel.average", "; its share of the "),
];

/// The experiments whose every finding keeps its subject: the same number
/// of findings in every run, and each phrase of [`FINDING_PHRASES`] in the
/// same finding.
const FIXED_EXPERIMENTS: &[&str] = &[
    "spawn.methods",
    "spawn.cow",
    "spawn.cold",
    "spawn.launch",
    "switch.echo",
    "switch.userspace",
];

/// Phrases that must lie in one given finding: (experiment, how the
/// finding starts, what it contains), found once in every run.
const FINDING_PARTS: &[(&str, &str, &str)] = &[
    (
        "parallel.program",
        "n=55256000, thp=on: ",
        "; measured: fork with 2 workers ",
    ),
    (
        "parallel.program",
        "n=55256000, thp=on: ",
        ", threads with 2 workers ",
    ),
];

/// The findings of experiment `name` in `r`, analysed anew.
fn findings_of(r: &RunResults, name: &str, what: &str) -> Vec<String> {
    let Some(e) = r.experiments.iter().find(|e| e.name == name) else {
        panic!("{what}: {name} not in the run");
    };
    (super::find(name).unwrap().analyze)(e).findings
}

/// Every phrase of [`FINDING_PHRASES`] and [`FINDING_PARTS`] in `r`'s
/// findings, panicking with the findings when one is missing; returns, for
/// the experiments of [`FIXED_EXPERIMENTS`], their number of findings and
/// the finding each phrase is in.
fn phrases_found(r: &RunResults, what: &str) -> Vec<(&'static str, usize, Option<usize>)> {
    let mut at = Vec::new();
    for (name, phrase) in FINDING_PHRASES {
        let findings = findings_of(r, name, what);
        let i = findings.iter().position(|f| f.contains(phrase));
        assert!(
            i.is_some(),
            "{what}: {name}: {phrase:?} missing in {findings:#?}"
        );
        if FIXED_EXPERIMENTS.contains(name) {
            at.push((*name, findings.len(), i));
        }
    }
    for (name, head, phrase) in FINDING_PARTS {
        let findings = findings_of(r, name, what);
        let starting: Vec<&String> = findings.iter().filter(|f| f.starts_with(head)).collect();
        assert!(
            starting.len() == 1 && starting[0].contains(phrase),
            "{what}: {name}: one finding {head:?} with {phrase:?}, in {findings:#?}"
        );
    }
    at
}

/// A finding with its figures stripped: its head, up to the first ':' or
/// ';', every digit run made '#'.
fn stripped(finding: &str) -> String {
    let head = finding.split([':', ';']).next().unwrap_or(finding);
    let mut out = String::new();
    let mut digits = false;
    for c in head.chars() {
        if c.is_ascii_digit() || (digits && c == ',') {
            if !digits {
                out.push('#');
            }
            digits = true;
        } else {
            digits = false;
            out.push(c);
        }
    }
    out
}

/// The fixed-subject findings of a run, analysed anew, figures stripped.
fn finding_subjects(r: &RunResults) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for e in &r.experiments {
        let Some(x) = super::find(&e.name) else {
            continue;
        };
        for f in (x.analyze)(e).findings {
            let head = stripped(&f);
            if FINDING_SUBJECTS.contains(&(e.name.as_str(), head.as_str())) {
                out.push((e.name.clone(), head));
            }
        }
    }
    out
}

/// Findings from the recorded runs (the report fixture, and the matrix's
/// three runs of switch.pingpong), each also with every series flagged,
/// imprecise, or scaled: with the figures stripped, the same subjects.
#[test]
fn the_findings_keep_their_subjects_in_every_recorded_run_whatever_settled() {
    let base = fixture();
    let sorted = |mut v: Vec<(String, String)>| {
        v.sort();
        v
    };
    let base = with_timer(base);
    let expected = sorted(finding_subjects(&base));
    let want = sorted(
        FINDING_SUBJECTS
            .iter()
            .map(|(e, s)| (e.to_string(), s.to_string()))
            .collect(),
    );
    assert_eq!(expected, want, "the recorded run names every subject");
    let positions = phrases_found(&base, "as measured");
    let scaled = |k: f64| {
        move |_: usize, m: &mut Metric| {
            let s = &mut m.summary;
            for v in [&mut s.median, &mut s.ci95_lo, &mut s.ci95_hi] {
                *v *= k;
            }
        }
    };
    let cases: Vec<(&str, RunResults)> = vec![
        ("every series flagged", perturbed(&base, |_, m| flagged(m))),
        (
            "every series imprecise",
            perturbed(&base, |_, m| imprecise(m, 40.0)),
        ),
        (
            "every other series flagged",
            perturbed(&base, |i, m| {
                if i % 2 == 0 {
                    flagged(m)
                }
            }),
        ),
        (
            "every third series flagged",
            perturbed(&base, |i, m| {
                if i % 3 == 1 {
                    flagged(m)
                }
            }),
        ),
        (
            "series that bound nothing",
            perturbed(&base, |i, m| {
                if i % 2 == 1 {
                    imprecise(m, 95.0)
                }
            }),
        ),
        ("every figure 0.7x", perturbed(&base, scaled(0.7))),
        ("every figure 1.5x", perturbed(&base, scaled(1.5))),
    ];
    for (what, r) in &cases {
        assert_eq!(sorted(finding_subjects(r)), expected, "{what}");
        assert_eq!(phrases_found(r, what), positions, "{what}");
    }
    // The matrix's three recorded runs: pingpong's lead subject in each.
    for run in ["alpha", "beta", "gamma"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("tests/data/matrix/{run}.json"));
        let r = RunResults::read(&path).expect("the matrix fixture reads");
        let heads: Vec<String> = finding_subjects(&r)
            .into_iter()
            .filter(|x| x.0 == FINDING_SUBJECTS[0].0)
            .map(|x| x.1)
            .collect();
        assert_eq!(heads, [FINDING_SUBJECTS[0].1, "yardstick"], "{run}");
    }
}

/// The report fixture with switch.wakeup's timer probe added as a default
/// run records it (the fixture predates the probe; its boot has no cpuidle
/// driver), so the timer's finding is among those checked.
fn with_timer(mut r: RunResults) -> RunResults {
    use crate::experiments::testing::settled;
    let e = r
        .experiments
        .iter_mut()
        .find(|e| e.name == "switch.wakeup")
        .expect("the fixture has switch.wakeup");
    e.metrics.push(settled(
        "timer_late_ns",
        &[("variant", "idle")],
        41_000.0,
        38_000.0,
        45_000.0,
    ));
    e.metrics.push(settled(
        "timer_late_ns",
        &[("variant", "kept_awake")],
        4_000.0,
        3_600.0,
        4_500.0,
    ));
    r
}

/// memory.threads quotes each per-thread figure at the largest count, with
/// one phrase for the counts measured whichever of them settled (issue 39
/// item 9): never "over 500–2000 threads" in one run and "at 2000" in
/// another.
#[test]
fn memory_threads_names_the_counts_one_way_whatever_settled() {
    let base = fixture();
    let at_largest = |m: &Metric| m.label("threads") == Some("2000");
    let cases: Vec<(&str, RunResults)> = vec![
        ("as measured", base.clone()),
        (
            "every count but the largest flagged",
            perturbed(&base, |_, m| {
                if !at_largest(m) {
                    flagged(m)
                }
            }),
        ),
        (
            "the counts apart",
            perturbed(&base, |_, m| {
                if !at_largest(m) {
                    let s = &mut m.summary;
                    for v in [&mut s.median, &mut s.ci95_lo, &mut s.ci95_hi] {
                        *v *= 1.5;
                    }
                }
            }),
        ),
        (
            "every figure 0.7x",
            perturbed(&base, |_, m| {
                let s = &mut m.summary;
                for v in [&mut s.median, &mut s.ci95_lo, &mut s.ci95_hi] {
                    *v *= 0.7;
                }
            }),
        ),
    ];
    for (what, r) in &cases {
        let findings = findings_of(r, "memory.threads", what);
        let all = findings.join("\n");
        assert!(
            findings[0].contains("Per thread, at 2000 threads, of 500–2000 measured, ")
                && findings[1].contains("resident (VmRSS, at 2000 threads, of 500–2000 measured, ")
                && findings[2].contains("per thread (at 2000 threads, of 500–2000 measured, "),
            "{what}: {all}"
        );
        assert!(!all.contains("over 500"), "{what}: {all}");
    }
}

/// Issue 39 item 9, the leftovers: memory.threads, parallel.average,
/// spawn.heap, yardstick.memcpy and switch.pingpong keep every finding when
/// a series is flagged. On the recorded run, with every series flagged,
/// every other one or every third, each experiment gives as many findings
/// with the same heads (figures stripped) as unflagged: a flagged figure is
/// quoted with its mark, never dropped with its bullet.
#[test]
fn flagged_series_drop_no_finding_of_the_leftover_experiments() {
    const LEFTOVERS: &[&str] = &[
        "memory.threads",
        "parallel.average",
        "spawn.heap",
        "yardstick.memcpy",
        "switch.pingpong",
    ];
    let base = fixture();
    // A finding's head: its text to the first figure's interval or mark
    // (a flagged figure's words hold a ':' of their own) or a figure in
    // brackets, figures stripped.
    let heads = |r: &RunResults, name: &str, what: &str| {
        findings_of(r, name, what)
            .iter()
            .map(|f| {
                let s = stripped(f);
                let end = ["[", "±", "!", "~", "(#"]
                    .iter()
                    .filter_map(|c| s.find(c))
                    .min()
                    .unwrap_or(s.len());
                s[..end].trim_end().to_string()
            })
            .collect::<Vec<_>>()
    };
    let cases: Vec<(&str, RunResults)> = vec![
        ("every series flagged", perturbed(&base, |_, m| flagged(m))),
        (
            "every other series flagged",
            perturbed(&base, |i, m| {
                if i % 2 == 0 {
                    flagged(m)
                }
            }),
        ),
        (
            "every third series flagged",
            perturbed(&base, |i, m| {
                if i % 3 == 1 {
                    flagged(m)
                }
            }),
        ),
    ];
    for name in LEFTOVERS {
        let want = heads(&base, name, "as measured");
        assert!(!want.is_empty(), "{name}: no finding in the fixture");
        for (what, r) in &cases {
            assert_eq!(heads(r, name, what), want, "{name}: {what}");
        }
    }
}
