use super::findings;
use crate::experiments::testing::{metric, result};

#[test]
fn fork_is_put_against_a_thread_and_the_library_work_is_the_difference() {
    let m = |method, ns: f64| metric("lifecycle_ns", &[("method", method)], &[ns, ns, ns]);
    let r = result(vec![
        m("fork", 70e3),
        m("pthread_create", 10e3),
        m("clone_thread_flags", 4e3),
    ]);
    let f = findings(&r);
    assert_eq!(f.len(), 2, "{f:?}");
    assert!(f[0].contains("fork is 7.0x a thread"), "{}", f[0]);
    assert!(
        f[1].starts_with("raw clone with pthread's flags costs 4.00 µs"),
        "{}",
        f[1]
    );
}
