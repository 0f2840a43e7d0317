use super::*;
use crate::experiments::testing::{metric, result};
use crate::results::Reading;

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
        ["averaging the seed's array across 2 forked processes is 1.80x as fast as serially on 2 CPUs (threads 1.90x)"]
    );
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
