use super::*;
use crate::results::why::{Attribution, Share};

fn wake(variant: &str, folded: &[(&str, u64)]) -> Attribution {
    Attribution {
        labels: crate::measure::protocol::labels(&[(VARIANT, variant)]),
        rounds: 3,
        samples: folded.iter().map(|x| x.1).sum(),
        lost: 0,
        user: Share::default(),
        kernel: Share::default(),
        functions: vec![],
        folded: folded.iter().map(|(f, n)| (f.to_string(), *n)).collect(),
        per_round: None,
        overhead: vec![],
    }
}

#[test]
fn only_the_variants_with_no_spinner_are_sampled() {
    assert!(sampled(Variant::CrossCpu));
    assert!(sampled(Variant::SameCpu));
    assert!(sampled(Variant::TimerIdle));
    assert!(!sampled(Variant::CrossCpuAwake));
    assert!(!sampled(Variant::TimerAwake));
    assert!(!sampled(Variant::IpiRunning));
    assert!(!sampled(Variant::TimerSweep(100)));
}

#[test]
fn a_cross_cpu_wake_ups_path_says_its_wait_is_unsampled() {
    let mut r = ExperimentResult::default_named("switch.wakeup");
    r.why.push(wake(
        "cross_cpu",
        &[
            ("entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_futex;do_futex;futex_wake;wake_up_q;try_to_wake_up;ttwu_queue_wakelist", 40),
            ("do_syscall_64;__x64_sys_futex;do_futex;futex_wait;schedule;__schedule;finish_task_switch.isra.0", 30),
            ("do_syscall_64;__x64_sys_futex;do_futex;futex_wait_setup", 10),
            ("[user]", 20),
        ],
    ));
    let notes = paths(&r);
    assert_eq!(notes.len(), 1);
    assert_eq!(
        notes[0],
        "cross_cpu, where its sampled CPU time went (--why: 100 samples in 3 rounds, pooled): the wake-up (try_to_wake_up and the IPI or remote enqueue it sends) 40.0%, the switch 30.0%, the futex's own functions 10.0%; user space 20.0%, the rest of the kernel 0.000%; the wait for the halted CPU to leave idle and run the woken thread is halted time, which no sample sees: these shares are of the CPU time around each wake-up, not of its latency"
    );
}
