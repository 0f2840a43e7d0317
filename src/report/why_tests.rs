use super::*;
use crate::results::why::{FunctionShare, WhyRecord};

fn fixture() -> RunResults {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-results.json");
    RunResults::read(&path).expect("the fixture reads")
}

fn exact(v: f64) -> Share {
    Share {
        share: v,
        lo: v,
        hi: v,
    }
}

fn function(name: &str, own: f64, total: f64) -> FunctionShare {
    FunctionShare {
        function: name.into(),
        self_share: exact(own),
        total: exact(total),
    }
}

/// The fixture with the Summary's fork at its largest heap attributed.
fn attributed_fixture() -> RunResults {
    let mut r = fixture();
    let q = summary_quantities(&r)
        .into_iter()
        .find(|q| q.headline.labels.get("method").map(String::as_str) == Some("fork"))
        .expect("the Summary quotes a fork");
    let labels: Labels = q
        .headline
        .labels
        .iter()
        .filter(|(k, _)| *k != "call")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let e = r
        .experiments
        .iter_mut()
        .find(|e| e.name == q.experiment)
        .unwrap();
    e.why.push(Attribution {
        labels,
        rounds: 3,
        samples: 300,
        lost: 0,
        user: exact(0.1),
        kernel: exact(0.9),
        functions: vec![
            function("clear_page_erms", 0.1, 0.1),
            function("copy_page_range", 0.6, 0.7),
            function("dup_mmap", 0.0, 0.75),
            function("vm_normal_page", 0.05, 0.05),
        ],
        folded: vec![],
        per_round: None,
        overhead: vec![],
    });
    r.why = Some(WhyRecord {
        event: "cpu-clock".into(),
        rate_hz: 1000,
        unavailable: None,
        mode: None,
        per_task_why: None,
        tasks: None,
        records_why: None,
    });
    r
}

#[test]
fn the_terminal_names_the_top_three_by_self_share_of_each_summary_quantity() {
    let r = attributed_fixture();
    let lines = terminal_lines(&r);
    assert_eq!(lines.len(), 1, "{lines:?}");
    let (experiment, l) = &lines[0];
    assert_eq!(*experiment, Some("spawn.heap"));
    assert!(l.contains("kernel 90.0% [90.0%, 90.0%]"), "{l}");
    let at = |f: &str| l.find(f).unwrap_or_else(|| panic!("{f} missing: {l}"));
    assert!(
        at("copy_page_range 60.0%") < at("clear_page_erms")
            && at("clear_page_erms") < at("vm_normal_page")
    );
    assert!(
        !l.contains("dup_mmap"),
        "no self share, not among the top: {l}"
    );
}

#[test]
fn without_why_nothing_is_shown_and_a_refusal_is_said() {
    let mut r = fixture();
    assert!(terminal_lines(&r).is_empty());
    r.why = Some(WhyRecord {
        event: "cpu-clock".into(),
        rate_hz: 1000,
        unavailable: Some("kernel.perf_event_paranoid is 3".into()),
        mode: None,
        per_task_why: None,
        tasks: None,
        records_why: None,
    });
    assert_eq!(
        terminal_lines(&r),
        vec![(
            None,
            "why: nothing attributed: kernel.perf_event_paranoid is 3".to_string()
        )]
    );
}

#[test]
fn the_report_has_a_table_per_attributed_quantity() {
    let r = attributed_fixture();
    let md = super::super::document::build(&r).markdown("");
    assert!(md.contains("Where the time goes"), "no section");
    assert!(md.contains("| copy_page_range | 60.0% [60.0%, 60.0%] | 70.0% [70.0%, 70.0%] |"));
}

fn stacks() -> Vec<(String, u64)> {
    vec![
        (
            "entry_SYSCALL_64;do_syscall_64;__do_sys_clone;kernel_clone;copy_process;dup_mmap;copy_page_range".into(),
            180,
        ),
        (
            "entry_SYSCALL_64;do_syscall_64;__do_sys_clone;kernel_clone;copy_process;dup_mmap;__pte_alloc".into(),
            30,
        ),
        ("[user]".into(), 30),
    ]
}

/// The fixture with its first two Summary quantities attributed, each
/// with folded stacks.
fn two_attributed() -> RunResults {
    let mut r = fixture();
    let qs: Vec<_> = summary_quantities(&r).into_iter().take(2).collect();
    assert_eq!(qs.len(), 2, "the fixture's Summary has two quantities");
    for q in qs {
        let e = r
            .experiments
            .iter_mut()
            .find(|e| e.name == q.experiment)
            .unwrap();
        e.why.push(Attribution {
            labels: q.headline.labels.clone(),
            rounds: 3,
            samples: 240,
            lost: 0,
            user: exact(0.125),
            kernel: exact(0.875),
            functions: vec![function("copy_page_range", 0.75, 0.75)],
            folded: stacks(),
            per_round: None,
            overhead: vec![],
        });
    }
    r.why = Some(WhyRecord {
        event: "cpu-clock".into(),
        rate_hz: 1000,
        unavailable: None,
        mode: None,
        per_task_why: None,
        tasks: None,
        records_why: None,
    });
    r
}

/// Every `id="…"` of the page itself (a frame's page is an attribute,
/// its quotes escaped, so its ids are not among them).
fn page_ids(html: &str) -> Vec<&str> {
    html.split(" id=\"")
        .skip(1)
        .map(|s| &s[..s.find('"').unwrap()])
        .collect()
}

#[test]
fn each_attributed_summary_quantity_gets_a_flame_graph_in_a_page_of_its_own() {
    let d = super::super::document::build(&two_attributed());
    let flames: Vec<_> = d.charts().filter(|c| c.own_page.is_some()).collect();
    assert_eq!(flames.len(), 2);
    assert_ne!(flames[0].file, flames[1].file);
    for c in &flames {
        assert!(c.file.starts_with("flame-") && c.file.ends_with(".svg"));
        assert!(c.svg.contains("copy_page_range") && c.svg.contains("[user]"));
    }
    let md = d.markdown("");
    assert!(md.contains(&format!("]({})", flames[0].file)), "linked");
    let html = d.html();
    assert_eq!(html.matches("<iframe ").count(), 2);
    assert_eq!(
        html.matches("srcdoc=\"").count(),
        2,
        "each graph a page of its own"
    );
    // The graphs' ids (frames, details, search, ...) are each in its own
    // frame's page: the page's own ids stay unique.
    let ids = page_ids(&html);
    assert!(!ids.contains(&"frames"), "a graph's id in the page");
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "an id twice in the page");
    // Inside each frame's page, the graph's ids once each.
    for page in html.split("srcdoc=\"").skip(1) {
        let page = html_escape::decode_html_entities(&page[..page.find('"').unwrap()]).into_owned();
        assert_eq!(page.matches("<svg id=\"frames\"").count(), 1);
        assert!(page.contains("<script"), "interactive");
    }
}

#[test]
fn nothing_is_drawn_without_attribution_or_without_stacks() {
    let d = super::super::document::build(&fixture());
    assert_eq!(d.charts().filter(|c| c.own_page.is_some()).count(), 0);
    assert!(!d.html().contains("<iframe"));
    // Attributed, but an older file kept no folded stacks: the table only.
    let d = super::super::document::build(&attributed_fixture());
    assert!(d.markdown("").contains("Where the time goes"));
    assert_eq!(d.charts().filter(|c| c.own_page.is_some()).count(), 0);
}

#[test]
fn a_changed_summary_quantity_attributed_on_both_sides_gets_a_differential_graph() {
    let a = two_attributed();
    let mut b = two_attributed();
    for e in &mut b.experiments {
        for w in &mut e.why {
            w.folded[0].1 = 60;
            w.folded.push((
                "entry_SYSCALL_64;do_syscall_64;__do_sys_clone;kernel_clone;copy_process;dup_mmap;copy_huge_pmd".into(),
                120,
            ));
        }
    }
    let q = summary_quantities(&b).into_iter().next().unwrap();
    let changed = vec![(
        q.experiment.to_string(),
        q.headline.spec.name.to_string(),
        q.headline.labels.clone(),
    )];
    let mut d = Doc::default();
    differentials(&mut d, &a, &b, &changed);
    let charts: Vec<_> = d.charts().collect();
    assert_eq!(charts.len(), 1, "the changed quantity only");
    let c = charts[0];
    assert!(c.own_page.is_some() && c.file == "flame-diff-0.svg");
    roxmltree::Document::parse_with_options(
        &c.svg,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .expect("well-formed");
    assert!(c.svg.contains("copy_huge_pmd") && c.svg.contains("copy_page_range"));

    // Nothing changed, or a side not attributed: no graph and no heading.
    let mut d = Doc::default();
    differentials(&mut d, &a, &b, &[]);
    assert!(d.blocks.is_empty());
    differentials(&mut d, &fixture(), &b, &changed);
    assert!(d.blocks.is_empty());
}

#[test]
fn the_terminal_sets_each_attribution_under_its_experiments_summary_sentences() {
    let r = two_attributed();
    let paths = crate::report::terse::Paths {
        report: "report.html".into(),
        results: "results.json".into(),
        previous: None,
    };
    let text = crate::paint::strip(&crate::report::terse::body(&r, 200, false, &paths, 400));
    let lines: Vec<&str> = text.lines().collect();
    let sentences = crate::report::headlines::sentences(&r);
    let whys = terminal_lines(&r);
    assert_eq!(whys.len(), 2);
    for (experiment, why) in &whys {
        let at = lines
            .iter()
            .position(|l| l.trim_start().starts_with(&why[..40]))
            .unwrap_or_else(|| panic!("{why} not shown:\n{text}"));
        assert!(
            lines[at].starts_with("    why: "),
            "indented under a bullet"
        );
        // The bullet above it is its experiment's last sentence.
        let bullet = lines[..at]
            .iter()
            .rposition(|l| l.starts_with("  • "))
            .expect("a sentence above");
        let last = sentences
            .iter()
            .rev()
            .find(|(e, _)| Some(*e) == *experiment)
            .expect("its experiment has a sentence");
        let words: String = last.1.chars().take(30).collect();
        assert!(
            lines[bullet].contains(&words),
            "{} is not under {words}:\n{text}",
            why
        );
    }
}

#[test]
fn the_cost_of_sampling_is_said_within_its_bound_or_with_its_interval() {
    use crate::results::why::Overhead;
    let o = |ratio: f64, lo: f64, hi: f64| Overhead {
        metric: "lifecycle_ns".into(),
        labels: Labels::new(),
        pairs: 8,
        ratio,
        lo,
        hi,
    };
    assert_eq!(
        overhead_words(&o(1.005, 0.99, 1.015)),
        "within ±1.5% (8 pairs)"
    );
    assert_eq!(
        overhead_words(&o(1.05, 1.03, 1.07)),
        "+5.0% [+3.0%, +7.0%] (8 pairs)"
    );
    assert!(within_target(&o(1.005, 0.99, 1.015)));
    assert!(!within_target(&o(1.005, 0.97, 1.015)));
    assert!(!within_target(&o(1.05, 1.03, 1.07)));
}

#[test]
fn a_summary_quantity_carries_the_cost_measured_for_its_own_series() {
    use crate::results::why::Overhead;
    let mut r = attributed_fixture();
    let q = summary_quantities(&r)
        .into_iter()
        .find(|q| q.headline.labels.get("method").map(String::as_str) == Some("fork"))
        .unwrap();
    let e = r
        .experiments
        .iter_mut()
        .find(|e| e.name == q.experiment)
        .unwrap();
    let a = e.why.last_mut().unwrap();
    a.overhead.push(Overhead {
        metric: q.headline.spec.name.into(),
        labels: q.headline.labels.clone(),
        pairs: 3,
        ratio: 1.01,
        lo: 0.995,
        hi: 1.018,
    });
    let lines = terminal_lines(&r);
    assert!(
        lines[0]
            .1
            .ends_with("; sampling's cost within ±1.8% (3 pairs)"),
        "{lines:?}"
    );
    let md = super::super::document::build(&r).markdown("");
    assert!(md.contains("sampling's cost"), "no column");
    assert!(
        md.contains("within ±1.8% (3 pairs)"),
        "no cost in the table"
    );
    assert!(
        md.contains("1 of the 1 Summary quantities costed are shown within the 2% target"),
        "no target sentence"
    );
}

/// A Summary quantity whose windows took no sample (thread create+join's
/// 7 µs at 99 Hz) still has its cost measured: the terminal and the report
/// say it with why it has no share, and the target counts it.
#[test]
fn a_summary_quantity_with_no_sample_is_costed_and_says_why_it_has_no_share() {
    use crate::results::why::Overhead;
    let mut r = attributed_fixture();
    r.why.as_mut().unwrap().rate_hz = 99;
    let q = summary_quantities(&r)
        .into_iter()
        .find(|q| q.headline.labels.get("method").map(String::as_str) == Some("pthread_create"))
        .expect("the Summary quotes a thread's creation");
    let e = r
        .experiments
        .iter_mut()
        .find(|e| e.name == q.experiment)
        .unwrap();
    assert!(e.why.iter().all(|a| !a.covers(&q.headline.labels)));
    e.why_unsampled.push(Overhead {
        metric: q.headline.spec.name.into(),
        labels: q.headline.labels.clone(),
        pairs: 96,
        ratio: 1.004,
        lo: 0.99,
        hi: 1.019,
    });
    // A cost of a series no Summary quantity quotes is not shown.
    e.why_unsampled.push(Overhead {
        metric: "cpu_ns".into(),
        labels: q.headline.labels.clone(),
        pairs: 96,
        ratio: 1.5,
        lo: 1.4,
        hi: 1.6,
    });
    let lines = terminal_lines(&r);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(
        lines[1].1,
        format!(
            "why: {}: no sample in its 96 sampled rounds (too little CPU time in its windows to \
             catch one of the samples, 10.1 ms apart at 99 Hz); sampling's cost within ±1.9% \
             (96 pairs)",
            q.headline.name
        )
    );
    let md = super::super::document::build(&r).markdown("");
    assert!(
        md.contains("| none (96 rounds) | no sample | no sample | within ±1.9% (96 pairs) |"),
        "no row:\n{md}"
    );
    assert!(!md.contains("+50.0%"), "a cost no Summary quantity quotes");
}

/// Issue 39: an attribution's share keeps its interval as computed; a
/// bound past 100% is said so, never printed as a share.
#[test]
fn a_share_bound_past_the_whole_is_said_not_quoted() {
    let s = Share {
        share: 0.9375,
        lo: 0.7846,
        hi: 1.1202,
    };
    let w = share_words(&s);
    assert!(w.starts_with("93.8% [78.5%, past 100%] ("), "{w}");
    assert!(!w.contains("112"), "{w}");
    assert_eq!(
        share_words(&Share {
            share: 0.5,
            lo: 0.4,
            hi: 0.6
        }),
        "50.0% [40.0%, 60.0%]"
    );
}

#[test]
fn the_mode_is_said_and_only_per_task_hides_the_exit_teardown() {
    let rec = |mode: Option<&str>, per_task_why: Option<&str>| WhyRecord {
        event: "cpu-clock".into(),
        rate_hz: 1000,
        unavailable: None,
        mode: mode.map(Into::into),
        per_task_why: per_task_why.map(Into::into),
        tasks: None,
        records_why: None,
    };
    assert!(mode_words(&rec(None, None)).is_none());
    let wide = mode_words(&rec(Some("cpu-wide"), None)).unwrap();
    assert!(wide.contains("CPU-wide"), "{wide}");
    let per = mode_words(&rec(Some("per-task"), Some("refused (EACCES)"))).unwrap();
    assert!(per.contains("per task: refused (EACCES)"), "{per}");
    // CPU-wide, how the worker's tasks were told, and why by the records.
    let told = |tasks: &str| {
        mode_words(&WhyRecord {
            tasks: Some(tasks.into()),
            records_why: Some("no cgroup2 mounted".into()),
            ..rec(Some("cpu-wide"), None)
        })
        .unwrap()
    };
    assert!(
        told("cgroup").contains("cgroup of its own"),
        "{}",
        told("cgroup")
    );
    // The records' reason is no part of it: the cgroup could be used.
    assert!(!told("cgroup").contains("no cgroup2"), "{}", told("cgroup"));
    assert!(
        told("records").contains("no cgroup2 mounted"),
        "{}",
        told("records")
    );
    let text = |w: WhyRecord| {
        let mut r = fixture();
        r.why = Some(w);
        let mut d = Doc::default();
        section(&mut d, &r);
        d.blocks
            .iter()
            .filter_map(|b| match b {
                Block::Para(p) => Some(p.clone()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(!text(rec(Some("cpu-wide"), None)).contains("exit teardown"));
    assert!(text(rec(Some("per-task"), None)).contains("exit teardown is not seen"));
    assert!(text(rec(None, None)).contains("exit teardown is not seen"));
}

/// A run whose windows took no sample and quote no Summary quantity (one
/// method at one heap) is not said to have sampled nothing: its costs are
/// named where they are kept.
#[test]
fn a_run_with_no_sample_and_no_summary_quantity_points_to_its_costs() {
    use crate::results::why::Overhead;
    let mut r = attributed_fixture();
    for e in &mut r.experiments {
        e.why.clear();
    }
    let said = |r: &RunResults| super::super::document::build(r).markdown("");
    assert!(said(&r).contains("No series of this run was sampled"));
    r.experiments[0].why_unsampled.push(Overhead {
        metric: "no_such_series_ns".into(),
        labels: Labels::new(),
        pairs: 8,
        ratio: 1.0,
        lo: 0.99,
        hi: 1.01,
    });
    let md = said(&r);
    assert!(!md.contains("No series of this run was sampled"), "{md}");
    assert!(
        md.contains("No sample fell in a timed window of this run")
            && md.contains("(`why_unsampled`)"),
        "{md}"
    );
}
