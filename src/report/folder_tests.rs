use super::*;
use std::os::unix::fs::{symlink, PermissionsExt};

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn the_default_suite_writes_the_report_folder_and_named_experiments_their_own() {
    let root = Path::new("tasklab-report");
    assert_eq!(Place::of(None, root, &[]), Place::Full(root.into()));
    let p = Place::of(None, root, &names(&["spawn.methods"]));
    assert_eq!(p.path(), root.join("partial").join("spawn.methods"));
    // Every group named is the default suite.
    let groups: Vec<String> = crate::experiments::groups()
        .iter()
        .map(|g| g.to_string())
        .collect();
    assert_eq!(Place::of(None, root, &groups), Place::Full(root.into()));
    // A hidden experiment is never the default suite.
    let mut more = groups.clone();
    more.push("selftest.spin".into());
    assert!(matches!(
        Place::of(None, root, &more),
        Place::Partial { .. }
    ));
    // --out is the user's, whatever was named.
    let out = Path::new("mine");
    assert_eq!(
        Place::of(Some(out), root, &names(&["spawn.methods"])),
        Place::Named(out.into())
    );
    assert_eq!(Place::of(Some(out), root, &[]), Place::Named(out.into()));
}

#[test]
fn a_selection_is_one_safe_file_name_the_same_for_the_same_names() {
    assert_eq!(
        selection(&names(&["switch.pingpong", "spawn", "spawn"])),
        "spawn+switch.pingpong"
    );
    assert_eq!(
        selection(&names(&["spawn", "switch.pingpong"])),
        selection(&names(&["switch.pingpong", "spawn"]))
    );
    for bad in [
        vec![".."],
        vec!["."],
        vec!["a/b"],
        vec![""],
        vec!["../../etc"],
        vec!["x y", "é"],
    ] {
        let s = selection(&names(&bad));
        assert!(!s.is_empty() && !s.starts_with('.'), "{bad:?}: {s}");
        assert!(
            s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-+".contains(&b)),
            "{bad:?}: {s}"
        );
    }
    // A long selection is cut, and two that share the start stay apart.
    let long: Vec<String> = (0..20).map(|k| format!("experiment.number{k}")).collect();
    let mut other = long.clone();
    other.push("z".into());
    let (a, b) = (selection(&long), selection(&other));
    assert!(
        a.len() <= MAX_SELECTION && b.len() <= MAX_SELECTION,
        "{a} {b}"
    );
    assert_ne!(a, b);
    assert_eq!(a, selection(&long));
}

#[test]
fn a_partial_folder_is_refused_when_a_level_is_a_link_or_open_to_all() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("tasklab-report");
    let place = Place::Partial {
        root: root.clone(),
        selection: "yardstick.syscall".into(),
    };
    // Created level by level, then writable.
    let out = place.open().unwrap();
    out.write("x", b"1").unwrap();
    assert!(root.join("partial/yardstick.syscall/x").is_file());
    drop(out);

    // partial/ a link to elsewhere: refused, elsewhere untouched.
    let elsewhere = d.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::remove_dir_all(root.join("partial")).unwrap();
    symlink(&elsewhere, root.join("partial")).unwrap();
    let e = place.open().unwrap_err().0;
    assert!(e.contains("symbolic link"), "{e}");
    assert!(
        e.contains("--out") && e.contains("partial/yardstick.syscall"),
        "{e}"
    );
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);

    // The selection's own folder a link: refused the same way.
    std::fs::remove_file(root.join("partial")).unwrap();
    std::fs::create_dir(root.join("partial")).unwrap();
    symlink(&elsewhere, root.join("partial/yardstick.syscall")).unwrap();
    let e = place.open().unwrap_err().0;
    assert!(e.contains("symbolic link"), "{e}");
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);

    // partial/ open to every user: refused.
    std::fs::remove_file(root.join("partial/yardstick.syscall")).unwrap();
    std::fs::set_permissions(root.join("partial"), std::fs::Permissions::from_mode(0o777)).unwrap();
    let e = place.open().unwrap_err().0;
    assert!(e.contains("can be written by every user"), "{e}");

    // The report folder itself a link: refused before anything is created.
    let e2 = tempfile::tempdir().unwrap();
    let root2 = e2.path().join("tasklab-report");
    symlink(&elsewhere, &root2).unwrap();
    let place2 = Place::Partial {
        root: root2,
        selection: "spawn.methods".into(),
    };
    let e = place2.open().unwrap_err().0;
    assert!(e.contains("symbolic link"), "{e}");
    assert!(
        e.contains("partial/spawn.methods"),
        "the hint names the folder: {e}"
    );
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
}

#[test]
fn a_run_into_the_report_folder_leaves_its_subfolders_and_a_partial_run_its_parent() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("tasklab-report");
    let full = Place::Full(root.clone());
    let out = full.open().unwrap();
    begin(&out, true).unwrap();
    out.write(RESULTS_FILE, b"{\"full\": 1}").unwrap();
    out.write("report.html", b"full").unwrap();
    drop(out);
    let before: Vec<(String, Vec<u8>)> = ["results.json", "report.html", MANIFEST]
        .iter()
        .map(|n| (n.to_string(), std::fs::read(root.join(n)).unwrap()))
        .collect();

    // A partial run, twice: its own results, its own previous.json.
    let part = Place::Partial {
        root: root.clone(),
        selection: "spawn.methods".into(),
    };
    for k in 0..2 {
        let out = part.open().unwrap();
        let b = begin(&out, true).unwrap();
        assert_eq!(b.previous.is_some(), k == 1);
        assert!(b.removed.iter().all(|f| !f.contains('/')));
        out.write(RESULTS_FILE, format!("{{\"partial\": {k}}}").as_bytes())
            .unwrap();
        out.write("report.html", b"partial").unwrap();
    }
    for (n, bytes) in &before {
        assert_eq!(&std::fs::read(root.join(n)).unwrap(), bytes, "{n} changed");
    }
    assert!(!root.join(PREVIOUS_FILE).exists());
    let sub = root.join("partial/spawn.methods");
    assert_eq!(
        std::fs::read(sub.join(PREVIOUS_FILE)).unwrap(),
        b"{\"partial\": 0}"
    );

    // A baseline beside them, and a manifest that names the subfolders.
    std::fs::create_dir(root.join("baselines")).unwrap();
    std::fs::write(root.join("baselines/v1.json"), b"{}").unwrap();
    let mut m = std::fs::read_to_string(root.join(MANIFEST)).unwrap();
    for name in [
        "partial",
        "baselines",
        "baselines/v1.json",
        "partial/spawn.methods",
    ] {
        m.push_str(&format!("{}  {name}\n", sha256_hex(b"{}")));
    }
    std::fs::write(root.join(MANIFEST), m).unwrap();
    // The next full run: its files go, its subfolders stay whole.
    let out = full.open().unwrap();
    let b = begin(&out, true).unwrap();
    assert_eq!(b.removed, vec!["report.html".to_string()]);
    assert!(root.join("baselines/v1.json").is_file());
    assert!(sub.join(RESULTS_FILE).is_file() && sub.join(PREVIOUS_FILE).is_file());
    assert!(sub.join("report.html").is_file());
}
