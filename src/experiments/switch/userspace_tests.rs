use super::*;
use crate::experiments::testing::{metric, result};

#[test]
fn user_space_switches_are_read_against_the_kernel_pipe() {
    let r = result(vec![
        metric("switch_ns", &[("variant", "kernel_pipe")], &[1000.0]),
        metric("switch_ns", &[("variant", "coroutine")], &[10.0]),
        metric("switch_ns", &[("variant", "go_default")], &[200.0]),
        metric("switch_ns", &[("variant", "go_locked")], &[2000.0]),
    ]);
    let a = analyze(&r);
    let all = a.findings.join("\n");
    assert!(all.contains("coroutine 10.0 ns (100.0x cheaper)"), "{all}");
    assert!(all.contains("go_locked 2.00 µs (2.0x dearer)"), "{all}");
    assert!(
        all.contains(
            "locking the goroutines to OS threads (on one CPU) turns 200.0 ns into 2.00 µs"
        ),
        "{all}"
    );
    assert_eq!(
        a.headlines,
        ["switching in user space: a stackful coroutine 10.0 ns, a goroutine 200.0 ns per switch, without entering the kernel"]
    );
    assert_eq!(analyze(&result(vec![])), Analysis::default());
}

#[test]
fn a_coroutine_and_async_tasks_round_trip() {
    let tiny = Budget {
        seconds: 0.01,
        min_samples: 5,
        max_samples: 50,
    };
    let co = coroutine_round_trips(&tiny, 0.0);
    assert!(!co.is_empty() && co.iter().all(|x| x.is_finite()));
    let rt = async_round_trips(&tiny).unwrap();
    assert!(rt.len() >= 15, "{}", rt.len());
    assert!(rt.iter().all(|x| *x > 0.0));
}
