use super::*;
use crate::results::why::{FunctionShare, Share};

#[test]
fn each_function_is_put_in_its_part_of_the_path_by_name() {
    assert_eq!(part_of("finish_task_switch.isra.0"), Some(PARTS[0]));
    assert_eq!(part_of("__schedule"), Some(PARTS[0]));
    assert_eq!(part_of("__switch_to_asm"), Some(PARTS[0]));
    assert_eq!(part_of("dequeue_task_fair"), Some(PARTS[0]));
    assert_eq!(part_of("try_to_wake_up"), Some(PARTS[1]));
    assert_eq!(part_of("__wake_up_sync_key"), Some(PARTS[1]));
    assert_eq!(part_of("pipe_read"), Some(PARTS[2]));
    assert_eq!(part_of("anon_pipe_write"), Some(PARTS[2]));
    assert_eq!(part_of("futex_wait"), Some(PARTS[2]));
    assert_eq!(part_of("do_syscall_64"), Some(PARTS[3]));
    assert_eq!(part_of("entry_SYSCALL_64_after_hwframe"), Some(PARTS[3]));
    // Skid and locks are nobody's part: the rest of the kernel.
    assert_eq!(part_of("_raw_spin_unlock_irqrestore"), None);
    assert_eq!(part_of("copy_page_range"), None);
}

fn exact(v: f64) -> Share {
    Share {
        share: v,
        lo: v,
        hi: v,
    }
}

fn pipe_same_cpu() -> ExperimentResult {
    let mut r = ExperimentResult::default_named("switch.pingpong");
    let f = |name: &str, own: f64| FunctionShare {
        function: name.into(),
        self_share: exact(own),
        total: exact(own),
    };
    r.why.push(Attribution {
        labels: crate::measure::protocol::labels(&[
            ("method", "pipe_threads"),
            ("placement", "same_cpu"),
        ]),
        rounds: 3,
        samples: 100,
        lost: 0,
        user: exact(0.15),
        kernel: exact(0.85),
        functions: vec![
            f("finish_task_switch.isra.0", 0.3),
            f("__schedule", 0.1),
            f("pipe_read", 0.2),
            f("do_syscall_64", 0.15),
            f("_raw_spin_unlock_irqrestore", 0.1),
        ],
        folded: vec![
            (
                "do_syscall_64;ksys_read;pipe_read;schedule;__schedule;finish_task_switch.isra.0"
                    .into(),
                30,
            ),
            ("do_syscall_64;ksys_read;pipe_read".into(), 20),
            ("do_syscall_64".into(), 15),
            ("[user]".into(), 15),
            (
                "do_syscall_64;ksys_read;pipe_read;schedule;__schedule".into(),
                10,
            ),
            (
                "do_syscall_64;ksys_write;_raw_spin_unlock_irqrestore".into(),
                10,
            ),
        ],
        per_round: None,
        overhead: vec![],
    });
    r
}

#[test]
fn a_same_cpu_pipe_switch_names_its_path_with_parts_that_add_to_the_whole() {
    let r = pipe_same_cpu();
    let s = measured_path(&r, "pipe_threads", "same_cpu").unwrap();
    assert!(s.contains("100 samples in 3 rounds"), "{s}");
    assert!(
        s.contains(
            "the switch 40.0% (finish_task_switch.isra.0 30.0% [30.0%, 30.0%], __schedule 10.0% [10.0%, 10.0%])"
        ),
        "{s}"
    );
    assert!(
        s.contains("the IPC's own functions 20.0% (pipe_read 20.0%"),
        "{s}"
    );
    assert!(s.contains("the system call's entry and exit 15.0%"), "{s}");
    assert!(
        s.contains("user space 15.0%, the rest of the kernel 10.0%"),
        "{s}"
    );
    // 40 + 20 + 15 + 15 + 10 = 100: the parts add up to the whole.
    assert!(!s.contains("halted"), "{s}");
    // No attribution of another hand-off: nothing said of it.
    assert!(measured_path(&r, "futex_threads", "same_cpu").is_none());
    assert!(other_paths(&r).is_empty());
}
