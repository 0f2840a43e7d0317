use super::*;
use crate::experiments::testing::{metric, result};

fn bound(source: &str, why: &str, value: f64) -> Reading {
    Reading {
        name: "thread_bound".into(),
        unit: Unit::Count,
        labels: labels(&[("source", source), ("why", why)]),
        value,
    }
}

#[test]
fn the_smallest_bound_binds_and_the_probe_is_compared_with_it() {
    let mut r = result(vec![
        metric(
            "max_threads",
            &[("source", "computed"), ("binding", "pid_max")],
            &[32_368.0],
        ),
        metric(
            "max_threads",
            &[
                ("source", "probe"),
                ("stopped_by", "EAGAIN (Resource temporarily unavailable)"),
            ],
            &[32_001.0],
        ),
    ]);
    r.readings = vec![
        bound("threads-max", "kernel.threads-max", 192_614.0),
        bound("pid_max", "kernel.pid_max 32768", 32_368.0),
    ];
    let a = analyze(&r);
    assert_eq!(
        a.findings[0],
        "this process may start at most about 32,368 more threads: pid_max binds \
         (kernel.pid_max 32768); the other bounds: threads-max 192,614"
    );
    assert!(
        a.findings[1].starts_with(
            "the probe started 32,001 threads (computed bound: 32,368) and was stopped by \
             EAGAIN (Resource temporarily unavailable): pthread_create's answer"
        ),
        "{}",
        a.findings[1]
    );
}

#[test]
fn each_bound_is_listed_once_and_close_bounds_tie() {
    let mut r = result(vec![]);
    r.readings = vec![
        bound("pid_max", "kernel.pid_max 32768", 32_440.0),
        bound("threads-max", "kernel.threads-max", 192_637.0),
        bound("pid_max", "kernel.pid_max 32768", 32_442.0),
        bound("vm.max_map_count", "vm.max_map_count 65530", 32_747.0),
        bound("threads-max", "kernel.threads-max", 192_644.0),
        bound("pid_max", "kernel.pid_max 32768", 32_433.0),
    ];
    let f = &analyze(&r).findings[0];
    assert_eq!(f.matches("pid_max 32,4").count(), 1, "{f}");
    assert_eq!(f.matches("threads-max 192,").count(), 1, "{f}");
    assert!(f.contains("at most about 32,433 more threads"), "{f}");
    // 32,747 is within 5% of 32,433: the two tie
    assert!(
        f.contains("pid_max 32,433–32,442 and vm.max_map_count 32,747 tie, within 5%"),
        "{f}"
    );
    assert!(
        f.contains("the other bounds: threads-max 192,637–192,644"),
        "{f}"
    );
    assert!(!f.contains(" binds"), "{f}");
}

#[test]
fn errno_text_names_the_errno() {
    let e = std::io::Error::from_raw_os_error(libc::EAGAIN);
    assert!(errno_text(&e).starts_with("EAGAIN ("), "{}", errno_text(&e));
    assert!(!errno_text(&e).contains("os error"));
}
