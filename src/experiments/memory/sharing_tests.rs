use super::*;
use crate::experiments::testing::result;

#[test]
fn documented_sharing_follows_the_flag() {
    assert!(documented(libc::CLONE_VM, libc::CLONE_VM));
    assert!(!documented(0, libc::CLONE_VM));
    assert!(!documented(libc::CLONE_FILES, libc::CLONE_FS));
}

/// A result whose every cell is what clone(2) documents, but `wrong`.
fn matrix(wrong: Option<(&str, &str)>) -> ExperimentResult {
    let mut r = result(vec![]);
    for (row, flags) in SHARE_ROWS {
        for (name, aflag) in ASPECTS {
            let shared = documented(*flags, *aflag) != (wrong == Some((row, name)));
            r.readings.push(Reading {
                name: "shared".into(),
                unit: Unit::Count,
                labels: labels(&[("flag", row), ("aspect", name)]),
                value: if shared { 1.0 } else { 0.0 },
            });
        }
    }
    r
}

#[test]
fn a_documented_matrix_is_verified_and_a_surprise_is_named() {
    let a = analyze(&matrix(None));
    // The matrix is in the notes, a row a line; the findings say it in two.
    assert_eq!(a.findings.len(), 2);
    assert_eq!(a.notes.len(), SHARE_ROWS.len());
    assert!(a.notes[0].starts_with("no flag         memory copied · fd_open copied"));
    assert!(a.notes[1].starts_with("CLONE_VM        memory shared · fd_open copied"));
    assert!(a.findings[0]
        .contains("no flag: nothing; CLONE_VM: memory; CLONE_FILES: fd_open, fd_close;"));
    assert!(a.findings[0].contains("pthread_create: memory, fd_open, fd_close, cwd, signal, tgid"));
    assert!(a
        .findings
        .last()
        .unwrap()
        .starts_with("verified on this machine"));
    let a = analyze(&matrix(Some(("CLONE_FS", "cwd"))));
    assert_eq!(
        a.findings.last().unwrap(),
        "these cells differ from what clone(2) documents: CLONE_FS/cwd"
    );
}

#[test]
fn nothing_observed_nothing_found() {
    assert_eq!(analyze(&result(vec![])), Analysis::default());
}
