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
fn errno_text_names_the_errno() {
    let e = std::io::Error::from_raw_os_error(libc::EAGAIN);
    assert!(errno_text(&e).starts_with("EAGAIN ("), "{}", errno_text(&e));
    assert!(!errno_text(&e).contains("os error"));
}
