use super::*;

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;
const ROOM: &str = "20 GiB is available and 2 GiB must stay free";

fn process(vm_pte_kib: u64) -> Process {
    Process {
        pid: 1,
        vm_pte_kib,
        rss_anon_kib: vm_pte_kib * 512,
        ..Process::default()
    }
}

#[test]
fn a_process_within_the_fixed_heaps_adds_none() {
    // A shell (60 KiB of page tables) and a 113 MiB Redis (340 KiB, a heap
    // of 170 MiB's): 256 MiB already reaches them.
    for pte in [0, 60, 340, 512] {
        let h = FreshHeaps::for_process(&process(pte), 18 * GIB, ROOM);
        assert_eq!(h.bytes, FRESH_HEAPS.to_vec(), "{pte}");
        assert_eq!((h.wanted, h.short.clone()), (None, None), "{pte}");
    }
}

#[test]
fn a_larger_process_adds_a_heap_whose_page_tables_reach_its_own() {
    // Redis at 1.1 GiB and at 4.4 GiB of used memory (2,436 and 9,188 KiB
    // of page tables): a heap of 1,218 and 4,594 MiB reaches them, rounded
    // up to a step of 256 MiB.
    for (pte, want) in [(2_436, 1_280 * MIB), (9_188, 4_608 * MIB), (513, 512 * MIB)] {
        let h = FreshHeaps::for_process(&process(pte), 18 * GIB, ROOM);
        assert_eq!(h.wanted, Some(want), "{pte}");
        assert_eq!(h.short, None, "{pte}");
        assert_eq!(h.bytes, [&FRESH_HEAPS[..], &[want]].concat(), "{pte}");
        // 2 KiB of page tables a MiB of heap: at least the process's.
        assert!((want / MIB) as f64 * 2.0 >= pte as f64, "{pte}");
        assert!(want - BRACKET_STEP < (pte / 2 + 1) * MIB, "{pte}");
    }
    // Memory on huge pages has no page tables fork walks: a smaller heap.
    let huge = Process {
        anon_huge_kib: 4 << 20,
        ..process(9_188)
    };
    let h = FreshHeaps::for_process(&huge, 18 * GIB, ROOM);
    assert!(h.wanted.unwrap() < 4_608 * MIB, "{h:?}");
}

#[test]
fn a_heap_that_does_not_fit_is_capped_and_the_cap_said_with_its_cause() {
    // 3.2 GiB of room: a heap of 3 GiB (whole steps), and why it stops there.
    let h = FreshHeaps::for_process(&process(9_188), 3 * GIB + 200 * MIB, ROOM);
    assert_eq!(h.bytes.last(), Some(&(3 * GIB)));
    assert_eq!(h.wanted, Some(4_608 * MIB));
    let why = h.short.unwrap();
    for part in [
        "4.5 GiB",
        "3 GiB is the most that fits here",
        ROOM,
        "up to 3 GiB",
    ] {
        assert!(why.contains(part), "{part}: {why}");
    }
    // No room beyond the fixed heaps: none added, and said.
    let h = FreshHeaps::for_process(&process(9_188), 200 * MIB, ROOM);
    assert_eq!(h.bytes, FRESH_HEAPS.to_vec());
    assert!(h.short.unwrap().contains("up to 256 MiB"));
    // Beyond what a short run touches: the largest it does, and how to
    // measure more.
    let h = FreshHeaps::for_process(&process(40_000), 64 * GIB, ROOM);
    assert_eq!(h.bytes.last(), Some(&FRESH_HEAP_MAX));
    let why = h.short.unwrap();
    assert!(why.contains("touches heaps up to 8 GiB"), "{why}");
    assert!(why.contains("-p heap_sizes=0,256M,20224M"), "{why}");
    assert!(!why.contains(ROOM), "{why}");
}

#[test]
fn an_extrapolation_says_why_the_heaps_did_not_reach_the_process() {
    // Capped: the cap's reason.
    let h = FreshHeaps::for_process(&process(9_188), 3 * GIB, ROOM);
    assert_eq!(
        h.why_extrapolated(6_200.0, 9_188.0),
        h.short.clone().unwrap()
    );
    // Planned in full but not reached (the point failed, or the process
    // grew): the largest heap's page tables against the process's.
    let h = FreshHeaps::for_process(&process(2_436), 18 * GIB, ROOM);
    let why = h.why_extrapolated(600.0, 2_436.0);
    assert!(
        why.contains("600 KiB of page tables, below its 2.4 MiB"),
        "{why}"
    );
    assert!(why.contains("the heap of 1.2 GiB planned"), "{why}");
}

#[test]
fn the_short_run_asks_enough_cold_forks_for_a_spread_at_its_fewest_rounds() {
    let fewest = crate::measure::sizing::MIN_ROUNDS as u64;
    assert!(fewest * PAUSED_FORKS >= super::super::model::SPREAD_FROM as u64);
}
