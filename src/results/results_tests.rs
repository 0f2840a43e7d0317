use super::*;

/// Issue 39: a percentage's interval is kept as computed, never clamped to
/// 100: rounds whose widening passes 100 give the bound past it (the
/// report says the bound passes 100%: `units::percent_bounds_past`).
#[test]
fn a_percentage_interval_is_kept_as_computed_never_clamped() {
    let r = vec![
        vec![1.0, 1.5, 0.5],
        vec![2.0, 1.0, 90.0],
        vec![95.0, 99.0, 1.0],
    ];
    let l = Labels::new();
    let s = summarize_series("switch.wakeup", "timed_pct", &l, &r).unwrap();
    assert!(s.ci95_hi > 100.0, "{s:?}");
    assert!(s.median <= 100.0, "{s:?}");
}

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn foreign_truncated_and_other_version_files_are_refused_clearly() {
    let d = tempfile::tempdir().unwrap();
    let e = RunResults::read(&write(d.path(), "a.json", "{\"hello\": 1}")).unwrap_err();
    assert!(e.to_string().contains("not a tasklab results file"), "{e}");
    let e = RunResults::read(&write(d.path(), "b.json", "{\"schema\": \"tasklab-res")).unwrap_err();
    assert!(e.to_string().contains("truncated"), "{e}");
    let e = RunResults::read(&write(
        d.path(),
        "c.json",
        "{\"schema\": \"tasklab-results\", \"schema_version\": 99}",
    ))
    .unwrap_err();
    assert!(e.to_string().contains("schema version 99"), "{e}");
    let e = RunResults::read(&d.path().join("missing.json")).unwrap_err();
    assert!(e.to_string().contains("cannot read"), "{e}");
}

#[test]
fn a_version_2_ab_record_is_read_as_data_and_its_printed_verdicts_kept() {
    let mut v = serde_json::json!({
        "ab": {"a": ["param:thp=true"], "b": ["sysfs:/sys/kernel/mm/transparent_hugepage/enabled=always"],
               "blocks": 8, "verdicts": "A/B inside one run: …"}
    });
    let printed = ab::read_version_2(&mut v).unwrap();
    assert_eq!(printed.as_deref(), Some("A/B inside one run: …"));
    let r: AbRecord = serde_json::from_value(v["ab"].clone()).unwrap();
    assert_eq!(r.a, vec![ab::Spec::parse("param:thp=true").unwrap()]);
    assert!(r.a[0].sets_huge_pages() && r.b[0].sets_huge_pages());
    assert!(!ab::Spec::parse("param:ns=1000").unwrap().sets_huge_pages());
    assert_eq!(r.judged, None);
    // an interrupted run's empty verdicts: none
    let mut v = serde_json::json!({"ab": {"a": [], "b": [], "blocks": 2, "verdicts": ""}});
    assert_eq!(ab::read_version_2(&mut v).unwrap(), None);
}

#[test]
fn an_interruption_reads_back_from_a_version_2_warning() {
    let w = vec![
        "a busy machine".to_string(),
        "interrupted at job 15 of 48: 1 of 5 experiments ran every round".to_string(),
    ];
    assert_eq!(
        Interruption::from_old_warnings(&w),
        Some(Interruption { job: 15, jobs: 48 })
    );
    assert_eq!(Interruption::from_old_warnings(&w[..1]), None);
}
