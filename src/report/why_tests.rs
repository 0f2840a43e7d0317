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
