use super::cold_findings;
use crate::experiments::testing::{metric, result};

fn cold(thread_first: f64, thread_steady: f64) -> String {
    let m = |method, call, v: f64| {
        metric(
            "lifecycle_ns",
            &[("method", method), ("call", call)],
            &[v, v, v],
        )
    };
    let r = result(vec![
        m("fork", "first", 100e3),
        m("fork", "steady", 100e3),
        m("pthread_create", "first", thread_first),
        m("pthread_create", "steady", thread_steady),
    ]);
    cold_findings(&r).pop().unwrap()
}

#[test]
fn the_seeds_explanation_is_given_only_when_the_run_shows_it() {
    // A cold thread dearer than a cold fork, as Sysel saw, and dearer
    // relatively than warm: the explanation holds.
    let dearer_cold = cold(150e3, 20e3);
    assert!(
        dearer_cold.contains("here too the thread is relatively dearer cold"),
        "{dearer_cold}"
    );
    // Relatively dearer cold, but still cheaper than a fork: the seeds'
    // gap (a thread at 1.5x a fork) is not explained.
    let cheaper = cold(60e3, 20e3);
    assert!(cheaper.contains("does not explain"), "{cheaper}");
    let same = cold(20e3, 20e3);
    assert!(same.contains("does not explain"), "{same}");
    assert!(
        same.starts_with("why the seeds disagree: cold, a thread costs 0.20x a fork"),
        "{same}"
    );
}

#[test]
fn the_seeds_explanation_needs_intervals_that_separate() {
    // The same medians as the case that gives the explanation, but a first
    // thread whose samples spread from 30 to 400 µs: its interval reaches
    // below the cold fork's, so nothing is claimed.
    let m =
        |method, call, v: &[f64]| metric("lifecycle_ns", &[("method", method), ("call", call)], v);
    let r = result(vec![
        m("fork", "first", &[100e3, 100e3, 100e3]),
        m("fork", "steady", &[100e3, 100e3, 100e3]),
        m("pthread_create", "first", &[30e3, 150e3, 400e3]),
        m("pthread_create", "steady", &[20e3, 20e3, 20e3]),
    ]);
    let said = cold_findings(&r).pop().unwrap();
    assert!(said.contains("does not explain"), "{said}");
}
