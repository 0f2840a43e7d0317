use super::*;
use std::os::unix::fs::symlink;

#[test]
fn a_name_is_checked_before_anything_else() {
    for good in [
        "v1",
        "before-fix",
        "main_2026.01.02",
        "A",
        "-",
        &"x".repeat(64),
    ] {
        assert!(check_name(good).is_ok(), "{good}");
    }
    for bad in [
        "",
        ".hidden",
        "..",
        "a/b",
        "a b",
        "é",
        "x\n",
        &"x".repeat(65),
    ] {
        let e = check_name(bad).unwrap_err().0;
        assert!(
            e.starts_with("bad baseline name") && !e.contains('\n'),
            "{e}"
        );
    }
}

/// A results file started at `t` (a fixture with the time changed).
fn results_at(path: &Path, t: f64) {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/advise-results.json"
    ))
    .unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["started_unix_s"] = serde_json::json!(t);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_json::to_vec(&v).unwrap()).unwrap();
}

#[test]
fn the_latest_run_is_the_one_that_started_last_wherever_it_is() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("tasklab-report");
    assert!(latest(&root).unwrap_err().0.contains("no run to compare"));
    results_at(&root.join(RESULTS_FILE), 2000.0);
    assert_eq!(latest(&root).unwrap(), root.join(RESULTS_FILE));
    let a = root.join("partial/spawn.methods").join(RESULTS_FILE);
    let b = root.join("partial/switch").join(RESULTS_FILE);
    results_at(&a, 3000.0);
    results_at(&b, 1000.0);
    assert_eq!(latest(&root).unwrap(), a);
    // Something that is not a results file is passed over.
    let junk = root.join("partial/zzz").join(RESULTS_FILE);
    std::fs::create_dir_all(junk.parent().unwrap()).unwrap();
    std::fs::write(&junk, b"{\"started_unix_s\": 9e9}").unwrap();
    assert_eq!(latest(&root).unwrap(), a);
}

#[test]
fn compare_with_a_baseline_resolves_to_the_baseline_and_the_run() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("tasklab-report");
    let store = root.join(DIR);
    results_at(&root.join(RESULTS_FILE), 2000.0);
    // No store yet: it says how to make one.
    let e = pick(&store, &root, "v1", &[]).unwrap_err().0;
    assert!(
        e.contains("no baseline 'v1'") && e.contains("--save-baseline"),
        "{e}"
    );
    results_at(&store.join("v1.json"), 1000.0);
    results_at(&store.join("v2.json"), 1500.0);
    assert_eq!(
        pick(&store, &root, "v1", &[]).unwrap(),
        vec![store.join("v1.json"), root.join(RESULTS_FILE)]
    );
    let f = d.path().join("other.json");
    assert_eq!(
        pick(&store, &root, "v2", std::slice::from_ref(&f)).unwrap(),
        vec![store.join("v2.json"), f.clone()]
    );
    let e = pick(&store, &root, "v3", &[]).unwrap_err().0;
    assert!(e.contains("the baselines there: v1, v2"), "{e}");
    let e = pick(&store, &root, "v1", &[f.clone(), f]).unwrap_err().0;
    assert!(e.contains("at most one FILE"), "{e}");
    assert!(pick(&store, &root, "../v1", &[])
        .unwrap_err()
        .0
        .contains("bad baseline name"));
    // A link in the store is no baseline.
    symlink(store.join("v1.json"), store.join("v4.json")).unwrap();
    assert!(pick(&store, &root, "v4", &[]).is_err());
    assert_eq!(names_in(&store), vec!["v1", "v2"]);
}
