use super::*;
use crate::results::why::{Attribution, FunctionShare, Share};

fn crowd(variant: &str, threads: &str, folded: &[(&str, u64)]) -> Attribution {
    let s = |v: f64| Share {
        share: v,
        lo: v * 0.5,
        hi: v,
    };
    Attribution {
        labels: crate::measure::protocol::labels(&[
            (VARIANT, variant),
            (THREADS, threads),
            ("stack", "8 MiB"),
        ]),
        rounds: 3,
        samples: folded.iter().map(|x| x.1).sum(),
        lost: 0,
        user: Share::default(),
        kernel: Share::default(),
        functions: vec![FunctionShare {
            function: "clear_page_erms".into(),
            self_share: s(0.5),
            total: s(0.5),
        }],
        folded: folded.iter().map(|(f, n)| (f.to_string(), *n)).collect(),
        per_round: None,
        overhead: vec![],
    }
}

#[test]
fn a_crowds_stacks_are_put_in_their_parts() {
    let p = |s: &str| why_parts::part_of(s, PARTS);
    assert_eq!(
        p("do_syscall_64;ksys_mmap_pgoff;vm_mmap_pgoff;do_mmap;mmap_region"),
        Some(MAP)
    );
    assert_eq!(
        p("do_syscall_64;__x64_sys_mprotect;do_mprotect_pkey;mprotect_fixup"),
        Some(MAP)
    );
    assert_eq!(
        p("asm_exc_page_fault;exc_page_fault;handle_mm_fault;clear_page_erms"),
        Some(FAULTS)
    );
    assert_eq!(
        p("do_syscall_64;__do_sys_clone3;kernel_clone;copy_process;dup_task_struct"),
        Some(CREATE)
    );
    assert_eq!(
        p("do_syscall_64;__x64_sys_futex;do_futex;futex_wait;schedule;__schedule"),
        Some(SWITCH)
    );
    assert_eq!(
        p("do_syscall_64;__x64_sys_futex;do_futex;futex_wake"),
        Some(GATE)
    );
}

#[test]
fn the_touched_stacks_faults_are_measured_where_attributed() {
    let mut r = ExperimentResult::default_named("memory.threads");
    r.why.push(crowd(
        "touch",
        "1000",
        &[
            (
                "asm_exc_page_fault;exc_page_fault;handle_mm_fault;clear_page_erms",
                60,
            ),
            (
                "do_syscall_64;__do_sys_clone3;kernel_clone;copy_process",
                30,
            ),
            ("[user]", 10),
        ],
    ));
    assert_eq!(
        faults(&r, "touch", "1000").unwrap(),
        "measured: 60.0% of the sampled CPU time of creating and readying them in page faults, clear_page_erms 50.0% [25.0%, 50.0%] (--why: 100 samples in 3 rounds)"
    );
    assert!(faults(&r, "touch", "10").is_none());
    let notes = paths(&r, &["default", "touch"]);
    assert_eq!(notes.len(), 1);
    assert!(
        notes[0].starts_with("touch, 1000 threads: where creating and readying them spent its sampled CPU time (--why: 100 samples in 3 rounds, pooled): page faults 60.0%"),
        "{}",
        notes[0]
    );
    assert!(
        notes[0].contains("the rest of creating each thread 30.0%"),
        "{}",
        notes[0]
    );
}
