use super::*;
use crate::experiments::testing::{metric, result};
use crate::results::{Metric, Reading};

fn cpus(n: f64) -> Reading {
    Reading {
        name: "cpus".into(),
        unit: Unit::Count,
        labels: Labels::new(),
        value: n,
    }
}

#[test]
fn the_headline_takes_each_variants_best_speedup_within_the_cpus() {
    let n = ("n", "55256000");
    let mut r = result(vec![
        metric(
            "speedup",
            &[("variant", "fork"), ("workers", "2"), n],
            &[1.8],
        ),
        // three workers on two CPUs: oversubscribed, not a candidate
        metric(
            "speedup",
            &[("variant", "fork"), ("workers", "3"), n],
            &[1.9],
        ),
        metric(
            "speedup",
            &[("variant", "threads"), ("workers", "2"), n],
            &[1.9],
        ),
    ]);
    r.readings.push(cpus(2.0));
    let a = analyze(&r);
    assert_eq!(
        a.headlines,
        ["the average phase alone (the array already filled, with the system's huge-page setting (thp=default)): 2 forked processes average the seed's array 1.80x as fast as serially on 2 CPUs (threads 1.90x)"]
    );
    // A cgroup's CPU quota below the CPUs is why a speedup stops short of
    // them, and the sentence says it; a quota of more CPUs than there are
    // changes nothing.
    let quota = |q: f64| {
        let mut with = r.clone();
        with.readings
            .push(Reading::of(&CPU_QUOTA, Labels::new(), q));
        analyze(&with).headlines
    };
    assert_eq!(
        quota(1.5),
        ["the average phase alone (the array already filled, with the system's huge-page setting (thp=default)): 2 forked processes average the seed's array 1.80x as fast as serially on 2 CPUs under a CPU quota of 1.50 CPUs (threads 1.90x)"]
    );
    assert_eq!(quota(4.0), a.headlines);
}

#[test]
fn no_fork_no_headline() {
    let r = result(vec![metric(
        "speedup",
        &[("variant", "threads"), ("workers", "1")],
        &[1.0],
    )]);
    assert!(analyze(&r).headlines.is_empty());
}

fn avg(v: &'static str, w: &'static str, m: f64) -> Metric {
    crate::experiments::testing::near(
        "average_ns",
        &[("variant", v), ("workers", w), ("n", "55256000")],
        m,
        2.0,
    )
}

fn two_cpus(mut ms: Vec<Metric>) -> ExperimentResult {
    ms.push(avg("serial", "1", 46.4e6));
    let mut r = result(ms);
    r.readings.push(cpus(2.0));
    r
}

#[test]
fn no_share_of_a_gap_within_noise_and_never_above_100_percent() {
    // fork 25.0 ms vs threads 24.8 ms: ±2% intervals overlap
    let mut r = two_cpus(vec![avg("fork", "2", 25.0e6), avg("threads", "2", 24.8e6)]);
    r.metrics.push(crate::experiments::testing::near(
        "fork_reap_ns",
        &[("workers", "2"), ("n", "55256000")],
        1.29e6,
        5.0,
    ));
    let all = findings_and_notes(&r).findings.join("\n");
    assert!(
        all.contains("fork (25.0 ms) is indistinguishable from threads (24.8 ms) here"),
        "{all}"
    );
    assert!(
        all.contains("its share of the ")
            && all.contains(" gap: not quoted, the gap is within noise"),
        "{all}"
    );
    assert!(!all.contains("% of the"), "{all}");
    // a real gap smaller than the part: the parts do not add up
    let mut r = two_cpus(vec![avg("fork", "2", 26.0e6), avg("threads", "2", 24.0e6)]);
    r.metrics.push(crate::experiments::testing::near(
        "fork_reap_ns",
        &[("workers", "2"), ("n", "55256000")],
        3.0e6,
        1.0,
    ));
    let all = findings_and_notes(&r).findings.join("\n");
    assert!(all.contains("do not add up"), "{all}");
    assert!(!all.contains("% of the"), "{all}");
}

/// Two CPUs, 2 and 3 workers: fork slower at 3, threads and the pool at
/// 3 workers as given.
fn over(threads3: f64, pool3: f64) -> String {
    let r = two_cpus(vec![
        avg("fork", "2", 25.0e6),
        avg("fork", "3", 26.7e6),
        avg("threads", "2", 23.8e6),
        avg("threads", "3", threads3),
        avg("pool", "2", 24.4e6),
        avg("pool", "3", pool3),
    ]);
    findings_and_notes(&r).findings.join("\n")
}

#[test]
fn the_oversubscription_story_only_when_the_numbers_bear_it_out() {
    let all = over(25.4e6, 23.8e6);
    assert!(all.contains("work stealing rebalances"), "{all}");
    // the pool slower too: the story is withdrawn
    let all = over(25.4e6, 27.0e6);
    assert!(
        all.contains("oversubscribed, 3 workers on 2 CPUs instead of 2"),
        "{all}"
    );
    assert!(!all.contains("work stealing"), "{all}");
    // threads within noise: no story either
    let all = over(24.0e6, 23.8e6);
    assert!(
        all.contains("threads: 3 workers (24.0 ms) is indistinguishable from 2 (23.8 ms) here"),
        "{all}"
    );
    assert!(!all.contains("work stealing"), "{all}");
}
