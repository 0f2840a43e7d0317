use super::*;
use crate::experiments::testing::{metric, result};

#[test]
fn the_forktime_finding_names_what_dominates() {
    let mut ms = Vec::new();
    for (thp, fork, first, reap) in [("off", 30e6, 180e6, 30e6), ("on", 0.6e6, 100e6, 0.04e6)] {
        let base = [("n", "55256000"), ("workers", "2"), ("thp", thp)];
        let with = |extra: (&'static str, &'static str)| {
            let mut v = base.to_vec();
            v.push(extra);
            v
        };
        ms.push(metric("fork_call_ns", &base, &[fork]));
        ms.push(metric("child_pass_ns", &with(("pass", "first")), &[first]));
        ms.push(metric("child_pass_ns", &with(("pass", "second")), &[100e6]));
        ms.push(metric("parent_pass_ns", &with(("pass", "first")), &[100e6]));
        ms.push(metric("reap_ns", &base, &[reap]));
        ms.push(metric("total_ns", &base, &[250e6]));
    }
    // Both page sizes: the conclusion is the finding, each size's parts notes.
    let a = analyze(&result(ms));
    let (f, n) = (&a.findings, &a.notes);
    assert_eq!((f.len(), n.len()), (1, 2), "{f:?} {n:?}");
    assert!(
        n[0].contains("the child's first-pass penalty dominates the overhead here, 80.0 ms"),
        "{}",
        n[0]
    );
    assert!(
        n[1].contains("the fork() call itself (copying the page tables) dominates"),
        "{}",
        n[1]
    );
    assert!(
        f[0].starts_with("in plain words:") && f[0].contains("huge pages"),
        "{}",
        f[0]
    );
}

/// Issue 13 point 7: three parts of similar size, and the parent paying a
/// first-pass penalty too.
#[test]
fn similar_parts_are_named_not_called_dominant() {
    use crate::experiments::testing::near;
    let base = [("n", "55256000"), ("workers", "2"), ("thp", "off")];
    let with = |extra: (&'static str, &'static str)| {
        let mut v = base.to_vec();
        v.push(extra);
        v
    };
    let r = result(vec![
        near("fork_call_ns", &base, 9.6e6, 10.0),
        near("child_pass_ns", &with(("pass", "first")), 33.0e6, 2.0),
        near("child_pass_ns", &with(("pass", "second")), 23.2e6, 2.0),
        near("parent_pass_ns", &with(("pass", "first")), 32.0e6, 2.0),
        near("parent_pass_ns", &with(("pass", "second")), 23.0e6, 2.0),
        near("reap_ns", &base, 9.0e6, 10.0),
        near("total_ns", &base, 83.1e6, 2.0),
    ]);
    // One page size, no conclusion: its parts stay findings.
    let a = analyze(&r);
    assert!(a.notes.is_empty(), "{:?}", a.notes);
    let f = a.findings;
    assert!(f[0].contains("no part dominates"), "{}", f[0]);
    assert!(!f[0].contains(" dominates the overhead"), "{}", f[0]);
    assert!(
        f[0].contains("the parent's first pass over an equal slice, beyond its second: 9.00 ms"),
        "{}",
        f[0]
    );
    assert!(
        f[0].contains("the two penalties are indistinguishable here"),
        "{}",
        f[0]
    );
}
