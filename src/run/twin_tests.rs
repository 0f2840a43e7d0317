use super::*;
use crate::measure::why::WhyPlan;
use crate::run::plan::SideSetup;
use crate::stats::paired::Side;

fn planned(name: &str, side: Option<SideSetup>) -> Planned {
    Planned {
        exp: crate::experiments::find(name).unwrap(),
        params: Default::default(),
        points: vec![serde_json::Value::Null],
        notes: vec![],
        fewer_than_asked: vec![],
        unsupported: None,
        side,
    }
}

const WHY: WhyPlan = WhyPlan {
    rate_hz: 1000,
    refused: None,
    mode: crate::sys::perf::Mode::CpuWide,
    per_task_why: None,
    cgroup: true,
    records_why: None,
};
const JOB: WhyJob = WhyJob {
    rate_hz: 1000,
    mode: crate::sys::perf::Mode::CpuWide,
    cgroup: true,
};

/// JOB for an experiment whose windows start no process: its tasks told
/// by pid and the records, never by a cgroup of its own.
const NO_GROUP: WhyJob = WhyJob {
    cgroup: false,
    ..JOB
};

#[test]
fn only_an_attributed_experiment_gets_a_sampled_twin() {
    // yardstick.syscall names its series; yardstick.memcpy does not.
    let attributed = planned("yardstick.syscall", None);
    let not = planned("yardstick.memcpy", None);
    assert_eq!(sampling(&attributed, Some(&WHY)), (None, Some(NO_GROUP)));
    assert_eq!(sampling(&not, Some(&WHY)), (None, None));
    // No --why, or refused here: nothing sampled.
    assert_eq!(sampling(&attributed, None), (None, None));
    let refused = WhyPlan {
        refused: Some("no".into()),
        ..WHY
    };
    assert_eq!(sampling(&attributed, Some(&refused)), (None, None));
}

#[test]
fn an_ab_side_samples_as_it_says_with_no_twin() {
    let side = |why| {
        Some(SideSetup {
            side: Side::B,
            pin: None,
            env: vec![],
            why,
        })
    };
    let on = planned("yardstick.syscall", side(None));
    let off = planned("yardstick.syscall", side(Some(false)));
    assert_eq!(sampling(&on, Some(&WHY)), (Some(NO_GROUP), None));
    assert_eq!(sampling(&off, Some(&WHY)), (None, None));
}

#[test]
fn only_windows_that_start_processes_get_a_cgroup_of_their_own() {
    let heap = planned("spawn.heap", None);
    let pingpong = planned("switch.pingpong", None);
    assert_eq!(sampling(&heap, Some(&WHY)), (None, Some(JOB)));
    assert_eq!(sampling(&pingpong, Some(&WHY)), (None, Some(NO_GROUP)));
    // Where the run can use no cgroup, none gets one.
    let records = WhyPlan {
        cgroup: false,
        ..WHY
    };
    assert_eq!(sampling(&heap, Some(&records)), (None, Some(NO_GROUP)));
    // Every attributed experiment that forks or spawns in its windows says so.
    for name in [
        "spawn.methods",
        "spawn.heap",
        "spawn.cow",
        "spawn.launch",
        "parallel.average",
        "parallel.program",
    ] {
        assert!(
            crate::experiments::find(name).unwrap().starts_processes,
            "{name}"
        );
    }
}

fn job(round: usize) -> Job {
    serde_json::from_value(serde_json::json!({
        "experiment": "yardstick.syscall",
        "profile": "quick",
        "params": {},
        "point": null,
        "round": round,
        "rounds": 8,
        "seed": 1,
        "budget_s": 0.01,
        "min_samples": 1,
        "max_samples": 2,
        "timer_overhead_ns": 0.0,
        "loop_overhead_ns": 0.0,
    }))
    .unwrap()
}

#[test]
fn the_twins_run_next_to_each_other_the_order_alternating_by_round() {
    let stop = StopFlag::new(0);
    for round in 0..4 {
        let mut order = Vec::new();
        let (plain, sampled) = run_both(&job(round), JOB, &stop, |j| {
            order.push(j.why.is_some());
            let mut out = WorkerOutput::default();
            out.notes.push(format!("sampled {}", j.why.is_some()));
            Ok(out)
        });
        assert_eq!(order, vec![sampled_first(round), !sampled_first(round)]);
        assert_eq!(plain.unwrap().notes, vec!["sampled false"]);
        assert_eq!(sampled.unwrap().unwrap().notes, vec!["sampled true"]);
    }
    // Even rounds unsampled first, odd ones sampled first.
    assert!(!sampled_first(0) && sampled_first(1) && !sampled_first(2));
}

#[test]
fn a_stop_after_the_first_twin_leaves_the_second_unrun() {
    let stop = StopFlag::new(0);
    let mut ran = 0;
    let (plain, sampled) = run_both(&job(0), JOB, &stop, |_| {
        ran += 1;
        crate::measure::worker::request_stop(&stop, 15);
        Ok(WorkerOutput::default())
    });
    assert_eq!(ran, 1);
    assert!(plain.is_ok() && sampled.is_none());
}

#[test]
fn a_failed_twin_costs_its_round_the_attribution_not_the_figures() {
    let stop = StopFlag::new(0);
    let (mut twins, mut notes) = (Vec::new(), Vec::new());
    for round in 0..2 {
        let keep = (&mut twins, &mut notes, (0, round));
        let plain = run_round(&job(round), Some(JOB), &stop, keep, |j| match j.why {
            Some(_) => Err(Failure {
                reason: "worker killed by signal 9 (SIGKILL)".into(),
                interrupted: false,
            }),
            None => Ok(WorkerOutput::default()),
        });
        assert!(plain.is_ok());
    }
    assert!(twins.is_empty());
    // Said once however many rounds lost theirs.
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].starts_with("--why: a sampled round failed"));
    // Kept when it ran; no twin without --why.
    let keep = (&mut twins, &mut notes, (2, 5));
    assert!(run_round(&job(5), Some(JOB), &stop, keep, |_| Ok(
        WorkerOutput::default()
    ))
    .is_ok());
    assert_eq!(twins.len(), 1);
    assert_eq!((twins[0].0, twins[0].1), (2, 5));
    let mut runs = 0;
    let keep = (&mut twins, &mut notes, (0, 0));
    let _ = run_round(&job(0), None, &stop, keep, |_| {
        runs += 1;
        Ok(WorkerOutput::default())
    });
    assert_eq!((runs, twins.len()), (1, 1));
}
