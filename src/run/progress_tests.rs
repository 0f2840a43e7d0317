use super::*;
use serde_json::json;

#[test]
fn points_read_as_words_never_as_json() {
    assert_eq!(words(&json!([0, 1])), "0,1");
    assert_eq!(words(&json!("same_cpu")), "same_cpu");
    assert_eq!(
        words(&json!({"method": "futex", "cpus": [0, 1]})),
        "cpus=0,1 method=futex"
    );
    for v in [json!({"a": {"b": [1, 2]}}), json!([{"x": "y"}])] {
        let w = words(&v);
        assert!(!w.contains(['{', '[', '"']), "{w}");
    }
}

#[test]
fn clock_reads_in_minutes_and_seconds() {
    assert_eq!(fmt_clock(0.4), "0s");
    assert_eq!(fmt_clock(42.0), "42s");
    assert_eq!(fmt_clock(185.0), "3m 05s");
}

#[test]
fn the_estimate_starts_from_the_prior_and_never_goes_negative() {
    let p = Pace {
        started: Instant::now(),
        done: 0,
        total: 10,
        prior_s: 1.0,
    };
    let left = p.left_s();
    assert!(left > 9.0 && left <= 10.5, "{left}");
    let done = Pace { done: 10, ..p };
    assert_eq!(done.left_s(), 0.0);
}
