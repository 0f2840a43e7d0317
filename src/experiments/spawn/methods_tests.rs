use crate::experiments::testing::{metric, result};

fn findings(r: &crate::results::ExperimentResult) -> Vec<String> {
    super::analyze(r).findings
}

fn life(method: &str, v: &[f64]) -> crate::results::Metric {
    metric(
        "lifecycle_ns",
        &[("method", method), ("placement", "one_cpu")],
        v,
    )
}

#[test]
fn fork_is_put_against_a_thread_only_when_their_intervals_part() {
    let r = result(vec![
        life("fork", &[70e3, 71e3, 69e3]),
        life("pthread_create", &[10e3, 11e3, 9e3]),
    ]);
    let f = findings(&r);
    assert!(
        f[0].contains("fork (70.0 µs) is 7.0x [6.4x, 7.8x] a thread (10.0 µs)"),
        "{}",
        f[0]
    );
    let r = result(vec![
        life("fork", &[10e3, 12e3, 30e3]),
        life("pthread_create", &[9e3, 11e3, 25e3]),
    ]);
    let f = findings(&r);
    assert!(f[0].contains("indistinguishable from"), "{}", f[0]);
    assert!(!f[0].contains("x a thread"), "{}", f[0]);
}

#[test]
fn a_negative_loader_cost_is_never_clamped_and_library_work_is_named_not_subtracted() {
    let r = result(vec![
        life("fork_exec_static", &[300e3, 301e3, 302e3]),
        life("fork_exec_dynamic", &[200e3, 201e3, 202e3]),
        life("pthread_create", &[20e3, 21e3, 22e3]),
        life("clone3_thread", &[10e3, 11e3, 12e3]),
    ]);
    let f = findings(&r).join("\n");
    assert!(f.contains("100 µs less with the loader"), "{f}");
    assert!(!f.contains("0.00 ns"), "{f}");
    assert!(
        f.contains("pthread_create (21.0 µs) is 1.91x [1.73x, 2.1x] the bare call"),
        "{f}"
    );
    assert!(!f.contains("library work"), "{f}");
}

#[test]
fn an_unstable_series_keeps_its_subject_and_is_compared_with_nothing() {
    let mut fork = life("fork", &[70e3, 71e3, 69e3]);
    fork.summary.unstable = true;
    let r = result(vec![fork, life("pthread_create", &[10e3, 11e3, 9e3])]);
    let f = findings(&r);
    assert!(
        f[0].starts_with("warm, pinned to one CPU: a fork+reap costs 70.0 µs ±1.4% ! (flagged)"),
        "{f:?}"
    );
    assert!(
        f[0].contains("is not told apart from a thread (10.0 µs) here: a figure did not settle"),
        "{f:?}"
    );
    // the methods this run did not measure are named, not left out
    assert!(
        f.iter().any(|x| x.contains("clone3 was not measured")),
        "{f:?}"
    );
    assert!(
        f.iter().any(|x| x.contains("std_thread was not measured")),
        "{f:?}"
    );
}

#[test]
fn the_conditions_are_notes_not_findings() {
    let mut r = result(vec![
        life("fork", &[70e3, 71e3, 69e3]),
        life("pthread_create", &[10e3, 11e3, 9e3]),
    ]);
    r.readings.push(crate::results::Reading {
        name: "worker_mappings".into(),
        unit: crate::results::Unit::Count,
        labels: Default::default(),
        value: 39.0,
    });
    r.readings.push(crate::results::Reading {
        name: "worker_anon_kib".into(),
        unit: crate::results::Unit::Kib,
        labels: Default::default(),
        value: 340.0,
    });
    let a = super::analyze(&r);
    // fork against a thread, and pthread_create's library work with the
    // methods it is set against named as not measured
    assert_eq!(a.findings.len(), 3, "{:?}", a.findings);
    assert!(a.findings[1].contains("clone3 was not measured"));
    assert!(a
        .notes
        .iter()
        .any(|n| n.contains("fork copied a worker of 39 mappings")));
}

#[test]
fn the_libraries_beyond_a_c_programs_are_named() {
    let libs = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
    let c = libs(&["libc.so.6", "ld-linux-x86-64.so.2"]);
    assert_eq!(
        super::libraries_note(&c),
        None,
        "a C program's own: nothing to say"
    );
    assert_eq!(super::libraries_note(&[]), None, "a static program");
    let rust = libs(&[
        "libc.so.6",
        "libm.so.6",
        "libgcc_s.so.1",
        "ld-linux-x86-64.so.2",
    ]);
    let note = super::libraries_note(&rust).unwrap();
    assert!(
        note.starts_with("the worker maps libm.so.6 and libgcc_s.so.1 beyond"),
        "{note}"
    );
    let three = libs(&["libc.so.6", "libm.so.6", "libz.so.1", "libgcc_s.so.1"]);
    assert!(super::libraries_note(&three)
        .unwrap()
        .contains("libm.so.6, libz.so.1 and libgcc_s.so.1 beyond"));
}
