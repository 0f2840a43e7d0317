use super::*;
use std::io::{Error, ErrorKind};

#[test]
fn throttling_during_the_run_is_a_warning_only_when_it_grew() {
    use crate::env::Throttling;
    assert_eq!(
        crate::run::busy::throttle_warning(Throttling::default()),
        None
    );
    let w = crate::run::busy::throttle_warning(Throttling {
        nr_throttled: 12,
        throttled_usec: 34_000,
    })
    .unwrap();
    assert!(w.contains("throttled 12 times") && w.contains("34"), "{w}");
    let before = Throttling {
        nr_throttled: 5,
        throttled_usec: 100,
    };
    assert_eq!(before.since(before), Throttling::default());
    // A counter that went down (a new cgroup) is no growth.
    assert_eq!(Throttling::default().since(before), Throttling::default());
}

#[test]
fn what_did_not_settle_names_the_steal_its_rounds_saw() {
    use crate::experiments::testing::{metric, result, unsettled as flagged};
    use crate::results::{RoundRecord, RoundTelemetry};
    let mut r = result(vec![flagged(metric(
        "x_ns",
        &[("k", "v")],
        &[1.0, 2.0, 3.0],
    ))]);
    let quiet = unsettled(&r).unwrap().0;
    assert!(quiet.starts_with("flagged here: x_ns"), "{quiet}");
    assert!(!quiet.contains("steal"), "{quiet}");
    // 0.2 s stolen of 2 CPUs x 1 s: 10%.
    r.round_log.push(RoundRecord {
        point: 0,
        round: 0,
        telemetry: RoundTelemetry {
            wall_ns: 1e9,
            steal_ns: 0.2e9,
            cpu_steal_ns: vec![0.1e9; 2],
            ..RoundTelemetry::default()
        },
    });
    let noisy = unsettled(&r).unwrap().0;
    assert!(
        noisy.contains(
            "no finding rests on it; over this experiment's rounds, steal was 10% of the CPUs' time"
        ),
        "{noisy}"
    );
}

#[test]
fn only_a_broken_pipe_means_stdout_is_gone() {
    assert!(!broken_pipe(Ok(())).unwrap());
    assert!(broken_pipe(Err(Error::from(ErrorKind::BrokenPipe).into())).unwrap());
    let other = broken_pipe(Err(Error::from(ErrorKind::StorageFull).into()));
    assert!(other.is_err());
    assert!(broken_pipe(Err(anyhow::anyhow!("not io"))).is_err());
}

#[test]
fn a_round_is_complete_when_every_point_that_did_not_fail_ran_it() {
    // Two points; round 0 ran at both, round 1 at point 0 only, round 2 at
    // both: rounds 0 and 2 are complete.
    let ran = [(0, 0), (1, 0), (0, 1), (1, 2), (0, 2)];
    assert_eq!(complete_rounds(2, &[], &ran), vec![0, 2]);
    // Point 1 failed: its rounds are not waited for.
    assert_eq!(complete_rounds(2, &[1], &ran), vec![0, 1, 2]);
    assert!(complete_rounds(2, &[], &[]).is_empty());
}
