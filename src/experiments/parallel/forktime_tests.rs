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
    let f = findings(&result(ms));
    assert_eq!(f.len(), 3, "{f:?}");
    assert!(
        f[0].contains("first pass over the pages it inherited"),
        "{}",
        f[0]
    );
    assert!(f[1].contains("the fork() call itself"), "{}", f[1]);
    assert!(f[2].contains("huge pages"), "{}", f[2]);
}
