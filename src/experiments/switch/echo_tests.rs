use super::*;
use crate::experiments::testing::{metric, near, result};

#[test]
fn the_echo_finding_compares_unpinned_with_pinned() {
    let r = result(vec![
        metric(
            "iterations_per_s",
            &[("placement", "same_cpu")],
            &[400_000.0],
        ),
        metric(
            "iterations_per_s",
            &[("placement", "unpinned")],
            &[200_000.0],
        ),
    ]);
    let a = analyze(&r);
    assert_eq!(a.findings.len(), 1);
    assert!(
        a.findings[0].starts_with("pipe echo: 400,000/s [400,000/s, 400,000/s; min–max of 1, 0%] pinned to one CPU (2.50 µs per iteration, i.e. 1.25 µs per switch)"),
        "{}",
        a.findings[0]
    );
    assert!(
        a.findings[0].contains("; unpinned 200,000/s [")
            && a.findings[0].contains("] against the pinned rate: 0.50x ("),
        "{}",
        a.findings[0]
    );
    assert!(analyze(&result(vec![])).findings.is_empty());
}

#[test]
fn no_ratio_through_noise() {
    let r = result(vec![
        near(
            "iterations_per_s",
            &[("placement", "same_cpu")],
            200_000.0,
            10.0,
        ),
        near(
            "iterations_per_s",
            &[("placement", "unpinned")],
            190_000.0,
            10.0,
        ),
    ]);
    let f = &analyze(&r).findings[0];
    assert!(
        f.contains("unpinned 190,000/s [")
            && f.contains("] against the pinned rate: indistinguishable here"),
        "{f}"
    );
    assert!(!f.contains("0.95x"), "{f}");
}

/// Issue 28: "unpinned (22,993/s) is indistinguishable from pinned
/// (190,147/s)" stood on an unpinned interval of [13,510/s, 6,869,116/s],
/// which bounds nothing: no sentence compares it.
#[test]
fn an_interval_that_bounds_nothing_is_compared_with_nothing() {
    use crate::experiments::testing::settled;
    let r = result(vec![
        near(
            "iterations_per_s",
            &[("placement", "same_cpu")],
            190_147.0,
            3.0,
        ),
        settled(
            "iterations_per_s",
            &[("placement", "unpinned")],
            22_993.0,
            13_510.0,
            6_869_116.0,
        ),
    ]);
    let f = &analyze(&r).findings[0];
    assert!(!f.contains("indistinguishable"), "{f}");
    assert!(!f.contains("0.12x"), "{f}");
    assert!(
        f.contains("unpinned 22,993/s (no usable interval")
            && f.contains(
                "against the pinned rate: not compared, the unpinned rate's rounds disagree"
            ),
        "{f}"
    );
}

/// Measured: a run records both sides' CPU time. (Its bound against the
/// wall time is checked in tests/switch.rs, in a worker of its own: here the
/// process's CPU time also counts the other tests running beside it.)
#[test]
fn both_sides_cpu_time_is_recorded_per_run() {
    let all = sys::allowed_cpus().unwrap();
    let e = echo_runs(&Place::same(all[0]), &all, 2_000, 2).unwrap();
    assert_eq!(e.counted, 4_000);
    assert_eq!(e.cpu.len(), 2);
    assert!(e.cpu.iter().all(|c| c.ns > 0.0), "{:?}", e.cpu);
}

/// Pinned to one CPU, a CPU time at or a hair above the wall time is no
/// second CPU: session 20's third final run read "an echo iteration pinned
/// to one CPU keeps more than one CPU busy ... 1.00 CPUs' worth [1.00,
/// 1.00]".
#[test]
fn a_pinned_echo_never_keeps_two_cpus_busy() {
    use crate::experiments::testing::one_per_round;
    let l = &[("placement", "same_cpu")];
    let r = result(vec![
        one_per_round(metric("iteration_ns", l, &[1960.0, 1955.0, 1962.0])),
        one_per_round(metric("cpu_ns", l, &[1964.0, 1959.0, 1966.0])),
    ]);
    let all = analyze(&r).notes.join("\n");
    assert!(!all.contains("more than one CPU"), "{all}");
    assert!(
        all.contains("an echo iteration pinned to one CPU: a mean CPU time of")
            && all.contains("tasks pinned to one CPU cannot use more than the wall time"),
        "{all}"
    );
}
