use super::*;

#[test]
fn a_percentage_interval_stops_at_100() {
    let r = vec![
        vec![1.0, 1.5, 0.5],
        vec![2.0, 1.0, 90.0],
        vec![95.0, 99.0, 1.0],
    ];
    let l = Labels::new();
    let s = summarize_series("switch.wakeup", "peer_idle_pct", &l, Unit::Percent, &r).unwrap();
    assert!(s.ci95_hi <= 100.0 && s.ci95_lo >= 0.0, "{s:?}");
    // the same rounds as a count: the widening alone passes 100
    let other = summarize_series("switch.wakeup", "other", &l, Unit::Count, &r).unwrap();
    assert!(other.ci95_hi > 100.0, "{other:?}");
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
