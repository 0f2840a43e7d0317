use super::*;
use crate::results::why::{FunctionShare, WhyRecord};

fn fixture() -> RunResults {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-results.json");
    RunResults::read(&path).expect("the fixture reads")
}

fn exact(v: f64) -> Share {
    Share {
        median: v,
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
    });
    r
}

#[test]
fn the_terminal_names_the_top_three_by_self_share_of_each_summary_quantity() {
    let r = attributed_fixture();
    let lines = terminal_lines(&r);
    assert_eq!(lines.len(), 1, "{lines:?}");
    let l = &lines[0];
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
    });
    assert_eq!(
        terminal_lines(&r),
        vec!["why: nothing attributed: kernel.perf_event_paranoid is 3".to_string()]
    );
}

#[test]
fn the_report_has_a_table_per_attributed_quantity() {
    let r = attributed_fixture();
    let md = super::super::document::build(&r).markdown("");
    assert!(md.contains("Where the time goes"), "no section");
    assert!(md.contains("| copy_page_range | 60.0% [60.0%, 60.0%] | 70.0% [70.0%, 70.0%] |"));
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
        lines[0].ends_with("; sampling's cost within ±1.8% (3 pairs)"),
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
