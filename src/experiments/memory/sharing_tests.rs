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
    assert_eq!(a.findings.len(), SHARE_ROWS.len() + 1);
    assert!(a.findings[1].starts_with("CLONE_VM        memory shared · fd_open copied"));
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
