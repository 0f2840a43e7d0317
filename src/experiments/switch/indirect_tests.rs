use super::*;
use crate::experiments::testing::{metric, near, result};

fn ws(size: &'static str, bytes: &'static str) -> [(&'static str, &'static str); 2] {
    [("working_set", size), ("bytes", bytes)]
}

#[test]
fn the_indirect_cost_takes_away_the_bare_switch_and_the_warm_walk() {
    let r = result(vec![
        metric("switch_ns", &ws("0 B", "0"), &[1000.0]),
        metric("switch_ns", &ws("1 MiB", "1048576"), &[9000.0]),
        metric("switch_ns", &ws("64 KiB", "65536"), &[1500.0]),
        metric("walk_warm_ns", &ws("64 KiB", "65536"), &[100.0]),
        metric("walk_warm_ns", &ws("1 MiB", "1048576"), &[2000.0]),
    ]);
    let a = analyze(&r);
    let got: Vec<(&str, f64)> = a
        .readings
        .iter()
        .map(|r| (r.labels["bytes"].as_str(), r.value))
        .collect();
    // sorted by size; 0 is its own reference
    assert_eq!(got, [("0", 0.0), ("65536", 400.0), ("1048576", 6000.0)]);
    assert_eq!(a.findings.len(), 1);
    assert!(
        a.findings[0].contains("the direct switch is 1.00 µs ["),
        "{}",
        a.findings[0]
    );
    // a cost whose interval covers zero is within noise
    let r = result(vec![
        near("switch_ns", &ws("0 B", "0"), 1000.0, 5.0),
        near("switch_ns", &ws("64 KiB", "65536"), 1100.0, 5.0),
        near("walk_warm_ns", &ws("64 KiB", "65536"), 50.0, 5.0),
    ]);
    let f = &analyze(&r).findings[0];
    assert!(
        f.contains("64 KiB: 50.0 ns [-24.4 ns, 124.4 ns]: within noise"),
        "{f}"
    );
    // without the zero working set there is nothing to measure against
    assert_eq!(analyze(&result(vec![])), Analysis::default());
}

fn at(
    size: &'static str,
    bytes: &'static str,
    walk: &'static str,
    tasks: &'static str,
) -> [(&'static str, &'static str); 4] {
    [
        ("working_set", size),
        ("bytes", bytes),
        ("walk", walk),
        ("tasks", tasks),
    ]
}

/// Issue 28 item 6 (open since the last review): a random pointer-chase
/// and a process variant beside the sequential walk between threads, each
/// its own line, and the two set against the sequential threads'.
fn variants_fixture() -> ExperimentResult {
    let mut ms = Vec::new();
    for (walk, tasks, zero, big, warm) in [
        ("sequential", "threads", 1000.0, 3000.0, 500.0),
        ("random", "threads", 1000.0, 6000.0, 1000.0),
        ("sequential", "processes", 1100.0, 4100.0, 500.0),
    ] {
        ms.push(near("switch_ns", &at("0 B", "0", walk, tasks), zero, 1.0));
        ms.push(near(
            "switch_ns",
            &at("1 MiB", "1048576", walk, tasks),
            big,
            1.0,
        ));
        ms.push(near(
            "walk_warm_ns",
            &at("1 MiB", "1048576", walk, tasks),
            warm,
            1.0,
        ));
    }
    result(ms)
}

#[test]
fn each_walk_and_kind_of_task_is_its_own_line() {
    let a = analyze(&variants_fixture());
    let all = a.findings.join("\n");
    // threads, sequential: 3000 − 1000 − 500 = 1500
    assert!(
        all.contains("indirect cost per switch, threads, sequential walk (switch with W walked, minus the switch with nothing walked, minus the walk on a warm cache): 1 MiB: 1.50 µs ["),
        "{all}"
    );
    // threads, random: 6000 − 1000 − 1000 = 4000
    assert!(
        all.contains("threads, random walk (") && all.contains("1 MiB: 4.00 µs ["),
        "{all}"
    );
    // processes, sequential, against its own bare switch: 4100 − 1100 − 500
    assert!(
        all.contains("processes, sequential walk (") && all.contains("1 MiB: 2.50 µs ["),
        "{all}"
    );
    assert!(
        all.contains(
            "at 1 MiB, a random walk's indirect cost minus a sequential one's (threads): 2.50 µs ["
        ) && all.contains(": larger, a refill in a random, dependent order costs more"),
        "{all}"
    );
    assert!(
        all.contains("at 1 MiB, the indirect cost between processes minus between threads (sequential walk): 1.00 µs [")
            && all.contains("switching page tables adds to the refill"),
        "{all}"
    );
    let readings: Vec<(&str, &str, f64)> = a
        .readings
        .iter()
        .filter(|r| r.labels["bytes"] != "0")
        .map(|r| {
            (
                r.labels["walk"].as_str(),
                r.labels["tasks"].as_str(),
                r.value,
            )
        })
        .collect();
    assert_eq!(
        readings,
        [
            ("sequential", "threads", 1500.0),
            ("random", "threads", 4000.0),
            ("sequential", "processes", 2500.0)
        ]
    );
}

#[test]
fn a_difference_within_noise_claims_no_cause_and_a_flagged_series_no_cost() {
    let mut r = variants_fixture();
    for m in &mut r.metrics {
        // processes as dear as threads: within noise
        if m.name == "switch_ns"
            && m.label("tasks") == Some("processes")
            && m.label("bytes") == Some("1048576")
        {
            *m = near(
                "switch_ns",
                &at("1 MiB", "1048576", "sequential", "processes"),
                3100.0,
                1.0,
            );
        }
        // the random walk's series flagged
        if m.label("walk") == Some("random")
            && m.name == "switch_ns"
            && m.label("bytes") != Some("0")
        {
            m.summary.unstable = true;
        }
    }
    let all = analyze(&r).findings.join("\n");
    assert!(
        all.contains("between processes minus between threads (sequential walk): 0.00 ns [")
            && all.contains("within noise, no difference claimed"),
        "{all}"
    );
    assert!(!all.contains("page tables adds"), "{all}");
    assert!(!all.contains("random walk's"), "{all}");
    assert!(!all.contains("random walk ("), "{all}");
}
