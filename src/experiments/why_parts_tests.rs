use super::*;
use crate::results::why::{FunctionShare, Share};

const PARTS: &[Part] = &[
    Part {
        name: "the copy",
        on_chain: &["dup_mmap"],
    },
    Part {
        name: "the faults",
        on_chain: &["asm_exc_page_fault", "handle_mm_*"],
    },
];

fn exact(v: f64) -> Share {
    Share {
        share: v,
        lo: v,
        hi: v,
    }
}

pub fn fixture(folded: &[(&str, u64)], functions: &[(&str, f64)]) -> Attribution {
    let samples = folded.iter().map(|x| x.1).sum();
    Attribution {
        labels: crate::measure::protocol::labels(&[("method", "fork")]),
        rounds: 4,
        samples,
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

#[test]
fn a_stack_is_in_the_first_part_one_of_its_frames_names() {
    // A fault inside the copy is the copy's: the copy comes first.
    assert_eq!(
        part_of("kernel_clone;dup_mmap;asm_exc_page_fault;clear_page", PARTS),
        Some("the copy")
    );
    assert_eq!(
        part_of("asm_exc_page_fault;handle_mm_fault;clear_page", PARTS),
        Some("the faults")
    );
    // A prefix, and a compiler's suffix dropped.
    assert_eq!(
        part_of("handle_mm_fault.constprop.0;x", PARTS),
        Some("the faults")
    );
    assert_eq!(part_of("dup_mmap.isra.0", PARTS), Some("the copy"));
    // A name only contained in a frame is not that frame.
    assert_eq!(part_of("xdup_mmap;y", PARTS), None);
    assert_eq!(part_of(USER_FRAME, PARTS), None);
}

#[test]
fn the_parts_user_space_and_the_rest_add_up_to_every_pooled_sample() {
    let a = fixture(
        &[
            ("kernel_clone;dup_mmap;copy_page_range", 60),
            ("asm_exc_page_fault;handle_mm_fault;clear_page_erms", 20),
            ("[user]", 15),
            ("do_syscall_64;_raw_spin_unlock_irqrestore", 5),
        ],
        &[("copy_page_range", 0.6), ("clear_page_erms", 0.2)],
    );
    let s = split(&a, PARTS).unwrap();
    assert_eq!(s.parts, vec![("the copy", 60), ("the faults", 20)]);
    assert_eq!((s.user, s.rest, s.pooled), (15, 5, 100));
    let total: u64 = s.parts.iter().map(|x| x.1).sum::<u64>() + s.user + s.rest;
    assert_eq!(total, s.pooled);
    assert_eq!(s.share("the copy"), 0.6);
    assert_eq!(s.share("not a part"), 0.0);
    assert_eq!(
        words(&a, PARTS).unwrap(),
        "the copy 60.0% (copy_page_range 60.0% [60.0%, 60.0%]), the faults 20.0% (clear_page_erms 20.0% [20.0%, 20.0%]); user space 15.0%, the rest of the kernel 5.00%"
    );
    // No stacks kept: nothing to tell.
    assert!(words(&fixture(&[], &[]), PARTS).is_none());
}

#[test]
fn a_function_is_quoted_in_the_part_that_holds_most_of_its_own_samples() {
    // clear_page_erms: 30 samples under the copy, 10 under a fault.
    let a = fixture(
        &[
            ("dup_mmap;clear_page_erms", 30),
            ("asm_exc_page_fault;clear_page_erms", 10),
            ("asm_exc_page_fault;handle_mm_fault", 10),
        ],
        &[("clear_page_erms", 0.8), ("handle_mm_fault", 0.2)],
    );
    assert_eq!(
        functions_in(&a, "the copy", PARTS, 2),
        "clear_page_erms 80.0% [80.0%, 80.0%]"
    );
    assert_eq!(
        functions_in(&a, "the faults", PARTS, 2),
        "handle_mm_fault 20.0% [20.0%, 20.0%]"
    );
    // A part with no sample is left out of the words.
    let w = words(&a, PARTS).unwrap();
    assert!(w.starts_with("the copy 60.0%"), "{w}");
}
