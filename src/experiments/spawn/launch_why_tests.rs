use super::*;
use crate::experiments::why_parts::FAULTS;
use crate::metric::key::PLACEMENT;
use crate::results::why::{FunctionShare, Share};

fn exact(v: f64) -> Share {
    Share {
        share: v,
        lo: v * 0.9,
        hi: (v * 1.1).min(1.0),
    }
}

/// A launch attributed from `folded` (pooled stacks) and the self shares
/// of `functions`.
fn launch(method: &str, folded: &[(&str, u64)], functions: &[(&str, f64)]) -> Attribution {
    Attribution {
        labels: crate::measure::protocol::labels(&[(METHOD, method), (PLACEMENT, "one_cpu")]),
        rounds: 6,
        samples: folded.iter().map(|x| x.1).sum(),
        lost: 0,
        user: Share::default(),
        kernel: Share::default(),
        functions: functions
            .iter()
            .map(|(f, v)| FunctionShare {
                function: f.to_string(),
                self_share: exact(*v),
                total: exact(*v),
            })
            .collect(),
        folded: folded.iter().map(|(s, n)| (s.to_string(), *n)).collect(),
        per_round: None,
        overhead: vec![],
    }
}

const CLONE: &str = "entry_SYSCALL_64_after_hwframe;do_syscall_64;__do_sys_clone;kernel_clone";
const EXEC: &str = "entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_execve;do_execveat_common.isra.0;bprm_execve";

fn fork_exec() -> Attribution {
    launch(
        "fork_exec_static",
        &[
            (&format!("{CLONE};copy_process;dup_mmap;copy_page_range"), 40),
            (
                &format!("{EXEC};load_elf_binary;begin_new_exec;exec_mmap;mmput;exit_mmap;unmap_page_range"),
                30,
            ),
            (&format!("{EXEC};load_elf_binary;elf_load"), 10),
            ("asm_exc_page_fault;exc_page_fault;handle_mm_fault;clear_page_erms", 10),
            ("do_syscall_64;do_wait;schedule;__schedule;finish_task_switch.isra.0", 5),
            ("[user]", 5),
        ],
        &[
            ("copy_page_range", 0.4),
            ("unmap_page_range", 0.3),
            ("elf_load", 0.1),
            ("clear_page_erms", 0.1),
            ("finish_task_switch.isra.0", 0.05),
        ],
    )
}

#[test]
fn each_stack_of_a_launch_is_put_in_its_part_of_the_path() {
    let p = |s: &str| why_parts::part_of(s, PARTS);
    // exec's unmapping of the copy is the teardown, though under exec.
    assert_eq!(
        p(&format!(
            "{EXEC};begin_new_exec;exec_mmap;mmput;exit_mmap;unmap_page_range"
        )),
        Some(TEARDOWN)
    );
    assert_eq!(
        p(&format!("{CLONE};copy_process;dup_mmap;copy_page_range")),
        Some(COPY)
    );
    // A fault inside fork's copy is the copy's.
    assert_eq!(
        p(&format!(
            "{CLONE};copy_process;dup_mmap;asm_exc_page_fault;handle_mm_fault"
        )),
        Some(COPY)
    );
    assert_eq!(p(&format!("{EXEC};load_elf_binary;elf_load")), Some(LOAD));
    assert_eq!(
        p("asm_exc_page_fault;exc_page_fault;handle_mm_fault"),
        Some(FAULTS)
    );
    assert_eq!(
        p("ret_from_fork_asm;ret_from_fork;schedule_tail;finish_task_switch.isra.0"),
        Some(SWITCH)
    );
    assert_eq!(p(&format!("{CLONE};copy_process;alloc_pid")), Some(CREATE));
    assert_eq!(
        p("do_syscall_64;__do_sys_wait4;kernel_wait4;do_wait;wait_task_zombie;release_task"),
        Some(EXIT)
    );
    assert_eq!(p("do_syscall_64;_raw_spin_unlock_irqrestore"), None);
}

#[test]
fn starting_a_program_says_where_each_methods_time_went_and_the_cause_only_when_measured() {
    let mut r = ExperimentResult::default_named("spawn.methods");
    r.why.push(fork_exec());
    // Alone, nothing is compared.
    assert!(program_start(&r, Some("one_cpu")).is_none());
    r.why.push(launch(
        "vfork_exec_static",
        &[
            (&format!("{EXEC};load_elf_binary;elf_load"), 30),
            ("entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_vfork;kernel_clone;copy_process", 10),
        ],
        &[("elf_load", 0.75)],
    ));
    let got = program_start(&r, Some("one_cpu")).unwrap();
    assert_eq!(
        got,
        "starting a program, where each launch's sampled CPU time went (--why, pooled over the rounds): fork_exec_static 70.0% copying the address space and tearing it down, 10.0% in exec's load (100 samples in 6 rounds); vfork_exec_static 0.000% copying the address space and tearing it down, 75.0% in exec's load (40 samples in 6 rounds) (fork+exec: copy_page_range 40.0% [36.0%, 44.0%], unmap_page_range 30.0% [27.0%, 33.0%] of its sampled CPU time): none of the others' samples copy or tear down an address space, as they share the parent's until the exec; that work is fork+exec's own"
    );
    // Another placement's attribution is not this one's.
    assert!(program_start(&r, Some("free")).is_none());
    // One sample of vfork+exec in a teardown: no cause claimed, the
    // shares stand.
    r.why[1]
        .folded
        .push(("do_syscall_64;mmput;exit_mmap".into(), 1));
    let got = program_start(&r, Some("one_cpu")).unwrap();
    assert!(!got.contains("fork+exec's own"), "{got}");
    assert!(got.contains("vfork_exec_static 2.44% copying"), "{got}");
}

#[test]
fn every_attributed_launch_gets_its_path_and_fork_its_measured_copy() {
    let mut r = ExperimentResult::default_named("spawn.methods");
    r.why.push(fork_exec());
    r.why.push(launch(
        "fork",
        &[
            (
                &format!("{CLONE};copy_process;dup_mmap;copy_page_range"),
                80,
            ),
            ("[user]", 20),
        ],
        &[("copy_page_range", 0.8)],
    ));
    let notes = paths(&r, Some("one_cpu"));
    // In the table's order: fork first.
    assert_eq!(notes.len(), 2);
    assert_eq!(
        notes[0],
        "fork, where its sampled CPU time went (--why: 100 samples in 6 rounds, pooled): fork's copy of the address space 80.0% (copy_page_range 80.0% [72.0%, 88.0%]); user space 20.0%, the rest of the kernel 0.000%"
    );
    assert!(
        notes[1].starts_with("fork_exec_static, where"),
        "{}",
        notes[1]
    );
    assert_eq!(
        fork_copy(&r, Some("one_cpu")).unwrap(),
        "measured (--why: 100 samples in 6 rounds): 80.0% of fork+reap's sampled CPU time is fork's copy of the address space (copy_page_range 80.0% [72.0%, 88.0%])"
    );
    // No attribution: nothing said.
    let none = ExperimentResult::default_named("spawn.methods");
    assert!(paths(&none, Some("one_cpu")).is_empty());
    assert!(fork_copy(&none, Some("one_cpu")).is_none());
}
