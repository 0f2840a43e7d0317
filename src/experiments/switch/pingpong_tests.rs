use super::*;
use crate::experiments::testing::{metric, result};

fn at(m: &'static str, p: &'static str) -> [(&'static str, &'static str); 2] {
    [("method", m), ("placement", p)]
}

fn fixture() -> ExperimentResult {
    result(vec![
        metric("switch_ns", &at("pipe_threads", "same_cpu"), &[1000.0]),
        metric("switch_ns", &at("pipe_threads", "two_cpus"), &[3000.0]),
        metric(
            "switch_ns",
            &at("pipe_threads", "two_cpus_awake"),
            &[1200.0],
        ),
        metric(
            "switches_per_round_trip",
            &at("pipe_threads", "same_cpu"),
            &[2.0],
        ),
        metric(
            "voluntary_per_round_trip",
            &at("pipe_threads", "same_cpu"),
            &[2.0],
        ),
        metric("switch_ns", &at("condvar", "same_cpu"), &[1500.0]),
        metric(
            "switches_per_round_trip",
            &at("condvar", "same_cpu"),
            &[3.0],
        ),
        metric("baseline_ns", &[("method", "pipe_threads")], &[400.0]),
        metric("copy_ns", &[("size", "64 KiB")], &[2000.0]),
    ])
}

#[test]
fn the_net_switch_is_raw_minus_the_ipc_baseline() {
    let a = analyze(&fixture());
    let net: Vec<(String, f64)> = a
        .readings
        .iter()
        .filter(|r| r.name == "net_switch_ns")
        .map(|r| (r.labels["placement"].clone(), r.value))
        .collect();
    assert_eq!(
        net,
        [
            ("same_cpu".to_string(), 600.0),
            ("two_cpus".to_string(), 2600.0),
            ("two_cpus_awake".to_string(), 800.0)
        ]
    );
    // condvar has no baseline here: no net reading for it
    assert!(a
        .readings
        .iter()
        .all(|r| r.labels["method"] == "pipe_threads"));
}

#[test]
fn findings_read_the_switch_counts_the_wake_up_and_the_yardstick() {
    let a = analyze(&fixture());
    let all = a.findings.join("\n");
    assert!(
        all.contains("same CPU, pipe_threads: 1.00 µs per switch is the kernel's switch path; 2.00 switches per round trip (2.00 voluntary), close to 2"),
        "{all}"
    );
    assert!(
        all.contains("condvar on one CPU: 3.00 switches per round trip, not 2"),
        "{all}"
    );
    assert!(
        all.contains("pipe_threads: on two CPUs a hand-off costs 3.00 µs vs 1.00 µs on one"),
        "{all}"
    );
    assert!(all.contains("waking the idle CPU dominates"), "{all}");
    assert!(
        all.contains(
            "yardstick: a pinned pipe switch costs 1.00 µs and a memcpy of 64 KiB 2.00 µs (0.50x"
        ),
        "{all}"
    );
}

#[test]
fn the_headline_compares_one_cpu_with_two() {
    let a = analyze(&fixture());
    assert_eq!(
        a.headlines,
        ["a same-CPU switch costs 1.00 µs (pipe threads); waking a task on the other CPU costs 3.00 µs (3.0x)"]
    );
    assert!(analyze(&result(vec![])).headlines.is_empty());
}
