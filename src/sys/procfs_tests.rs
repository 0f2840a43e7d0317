use super::*;

#[test]
fn fields_are_found_by_exact_name() {
    let text = "VmPeak:\t  10 kB\nVmPTE:\t      52 kB\nVmPTEx: 9 kB\n";
    assert_eq!(kib_field(text, "VmPTE"), Some(52));
    assert_eq!(kib_field(text, "VmPeak"), Some(10));
    assert_eq!(kib_field(text, "VmRSS"), None);
}

#[test]
fn shared_libraries_are_named_once_each_in_map_order() {
    let maps = "55d694a98000-55d694e96000 r--p 00000000 fe:00 5308583    /work/target/release/tasklab
7f0d948ee000-7f0d94914000 r--p 00000000 fe:00 326269     /usr/lib/x86_64-linux-gnu/libc.so.6
7f0d94914000-7f0d94a6a000 r-xp 00026000 fe:00 326269     /usr/lib/x86_64-linux-gnu/libc.so.6
7f0d94ac3000-7f0d94ad0000 rw-p 00000000 00:00 0
7f0d94ad0000-7f0d94ae0000 r--p 00000000 fe:00 326591     /usr/lib/x86_64-linux-gnu/libm.so.6
7f0d94bd5000-7f0d94bd6000 rw-s 00000000 00:01 42823      /dev/zero (deleted)
7f0d94be2000-7f0d94be4000 r-xp 00000000 00:00 0          [vdso]
7f0d94be4000-7f0d94be5000 r--p 00000000 fe:00 325835     /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
7f0d94be5000-7f0d94be6000 r--p 00000000 fe:00 325836     /opt/lib/libplugin.so
7f0d94be6000-7f0d94be7000 r--p 00000000 fe:00 325837     /data/notes.sorted
7f0d94be7000-7f0d94be8000 r--p 00000000 fe:00 325838     /x/libfoo.so backup
7f0d94be8000-7f0d94be9000 r--p 00000000 fe:00 325839     /my libs/libbar.so.2 (deleted)
";
    assert_eq!(
        shared_libraries(maps),
        [
            "libc.so.6",
            "libm.so.6",
            "ld-linux-x86-64.so.2",
            "libplugin.so",
            "libbar.so.2"
        ]
    );
    assert!(shared_libraries(&self_maps_text().unwrap())
        .iter()
        .any(|l| l.starts_with("libc.so")));
}

#[test]
fn interrupt_rows_are_read_per_cpu() {
    let text = "           CPU0       CPU1       \n 24:    1    0  IO-APIC   5-edge      ACPI:Ged\nRES:      79196      64468   Rescheduling interrupts\nCAL:  169641  161993   Function call interrupts\nERR:          0\n";
    assert_eq!(interrupt_row(text, "RES"), Some(vec![79_196, 64_468]));
    assert_eq!(interrupt_row(text, "CAL"), Some(vec![169_641, 161_993]));
    assert_eq!(interrupt_row(text, "ERR"), Some(vec![0]));
    assert_eq!(interrupt_row(text, "TLB"), None);
    assert!(ipis().is_some());
}

#[test]
fn per_cpu_lines_give_idle_and_steal() {
    let text = "cpu  10 0 10 500 5 0 0 7\ncpu0 5 0 5 300 2 0 0 3 0 0\ncpu1 5 0 5 200 3 0 0 4 0 0\nintr 1\n";
    let v = parse_per_cpu(text);
    assert_eq!(v.len(), 2);
    assert_eq!(v[1].cpu, 1);
    assert_eq!(v[1].idle_ns, 203 * NS_PER_TICK);
    assert_eq!(v[0].steal_ns, 3 * NS_PER_TICK);
    assert!(!per_cpu_times().unwrap().is_empty());
}

#[test]
fn the_scheduler_counters_read() {
    assert!(procs_running().unwrap() >= 1, "the reader runs");
    assert!(steal_ns().is_some());
    assert!(run_delay_ns().is_some());
}

#[test]
fn this_process_has_page_tables() {
    assert!(status_kib("VmPTE").is_some());
    assert!(meminfo_kib("MemTotal").unwrap() > 0);
}

#[test]
fn another_process_is_read_by_pid() {
    let me = std::process::id();
    assert!(kib_field(&status_of(me).unwrap(), "VmPTE").is_some());
    assert!(maps_of(me).unwrap() > 0);
    assert!(fds_of(me).unwrap() >= 1, "the directory being read is open");
    let s = Sharing::of(me).unwrap();
    assert!(s.private_kib + s.shared_kib > 0);
    let gone = status_of(u32::MAX).unwrap_err();
    assert_eq!(gone.kind(), std::io::ErrorKind::NotFound);
    let text = "Rss: 10 kB\nShared_Clean: 1 kB\nShared_Dirty: 2 kB\nPrivate_Clean: 3 kB\nPrivate_Dirty: 4 kB\nAnonHugePages: 2048 kB\n";
    assert_eq!(
        Sharing::parse(text),
        Sharing {
            private_kib: 7,
            shared_kib: 3,
            anon_huge_kib: 2048
        }
    );
}

#[test]
fn this_process_has_a_thread_and_mappings() {
    assert!(status_count("Threads").unwrap() >= 1);
    assert!(system_tasks().unwrap() >= 1);
    assert!(self_maps().unwrap() > 0);
}

#[test]
fn the_thp_and_compaction_counters_are_read_by_exact_name() {
    let text = "nr_free_pages 1\nthp_fault_alloc 12\nthp_fault_alloc_extra 99\nthp_fault_fallback 3\ncompact_stall 7\ncompact_success 5\n";
    assert_eq!(
        vmstat_of(text),
        [
            ("thp_fault_alloc", 12),
            ("thp_fault_fallback", 3),
            ("compact_stall", 7),
            ("compact_success", 5)
        ]
    );
    assert!(vmstat_of("").is_empty());
    // This machine's, where /proc/vmstat has them: every key known.
    assert!(vmstat().iter().all(|(k, _)| VMSTAT_KEYS.contains(k)));
}

#[test]
fn pagemap_entries_give_frames_of_present_pages_only() {
    let present = (1u64 << 63) | 0x1234;
    let swapped_or_absent = 0x1234u64; // bit 63 clear: no frame
    let mut bytes = Vec::new();
    for v in [present, swapped_or_absent, 1u64 << 63] {
        bytes.extend_from_slice(&v.to_ne_bytes());
    }
    assert_eq!(frames_of(&bytes), vec![0x1234, 0, 0]);
}

#[test]
fn a_touched_heap_reads_one_frame_per_page() {
    let heap = crate::sys::Heap::touched(4 * crate::sys::PAGE, crate::sys::Thp::Off).unwrap();
    let frames = heap.frames().expect("pagemap readable");
    assert_eq!(frames.len(), heap.pages());
}

#[test]
fn adjacency_counts_pages_in_long_runs_of_frames_next_to_each_other() {
    let run = |from: u64, n: u64, up: bool| -> Vec<u64> {
        (0..n)
            .map(|i| if up { from + i } else { from - i })
            .collect()
    };
    // A run of 8 ascending frames, then 2 scattered: 8 of 10 in a run.
    let mut v = run(100, 8, true);
    v.extend([500, 900]);
    assert_eq!(frames_adjacent_pct(&v), Some(80.0));
    // Descending frames are next to each other too (a per-CPU list hands
    // them out so).
    assert_eq!(frames_adjacent_pct(&run(300, 10, false)), Some(100.0));
    // Runs shorter than RUN_MIN_PAGES do not count: pairs, as a
    // long-running server's pages often lie, are no run.
    let pairs: Vec<u64> = (0..8).flat_map(|i| [1000 * i + 1, 1000 * i + 2]).collect();
    assert_eq!(frames_adjacent_pct(&pairs), Some(0.0));
    // A hole (0: not resident, or hidden) ends a run; a gap of two is no
    // neighbour.
    let mut holed = run(100, 7, true);
    holed.push(0);
    holed.extend(run(107, 7, true));
    assert_eq!(frames_adjacent_pct(&holed), Some(0.0));
    assert_eq!(frames_adjacent_pct(&[1, 3, 5, 7, 9, 11, 13, 15]), Some(0.0));
    // No frame seen (no CAP_SYS_ADMIN: all hidden): nothing to say.
    assert_eq!(frames_adjacent_pct(&[0, 0, 0]), None);
    assert_eq!(frames_adjacent_pct(&[]), None);
    // Across chunks: the frame before the chunk carries over, and the run.
    let mut a = Adjacency::default();
    let last = a.add(&run(5, 4, true), 0);
    a.add(&run(9, 4, true), last);
    assert_eq!(a.pct(), Some(100.0));
}

#[test]
fn near_frames_are_the_pages_outside_runs_in_the_last_blocks_seen() {
    // A run of 8 in block 1 (frames 512 to 1,023): in runs. Then 1,100
    // (block 2, new: not near), 1,300 (block 2 again: near), 700 (block 1,
    // seen: near), 20,000 and 30,000 (new blocks), 20,100 (seen: near).
    let mut v: Vec<u64> = (1000..1008).collect();
    v.extend([1100, 1300, 700, 20_000, 30_000, 20_100]);
    assert_eq!(frames_adjacent_pct(&v), Some(100.0 * 8.0 / 14.0));
    assert_eq!(frames_near_pct(&v), Some(100.0 * 3.0 / 14.0));
    // A run of 8 or more is in runs, never near; a run of 7 in one block
    // is near but for its first page.
    let seven: Vec<u64> = (1..=7).collect();
    assert_eq!(frames_near_pct(&seven), Some(100.0 * 6.0 / 7.0));
    let eight: Vec<u64> = (1..=8).collect();
    assert_eq!(
        (frames_adjacent_pct(&eight), frames_near_pct(&eight)),
        (Some(100.0), Some(0.0))
    );
    // Shuffled within a block: every page near but the first, none in runs.
    let w16: Vec<u64> = (0..64u64)
        .map(|i| 100 + (i / 16) * 16 + (i * 7) % 16)
        .collect();
    assert_eq!(frames_adjacent_pct(&w16), Some(0.0));
    assert_eq!(frames_near_pct(&w16), Some(100.0 * 63.0 / 64.0));
    // Eight blocks visited twice, their frames far apart: the second visit
    // near. Nine: each forgotten before it comes again, none near.
    let cycle = |blocks: u64| -> Vec<u64> {
        (0..2)
            .flat_map(|k| (1..=blocks).map(move |b| b * 512 * 100 + 5 * k))
            .collect()
    };
    assert_eq!(frames_near_pct(&cycle(8)), Some(50.0));
    assert_eq!(frames_near_pct(&cycle(9)), Some(0.0));
    // A hole (not resident) leaves the blocks remembered; nothing seen,
    // nothing said.
    assert_eq!(frames_near_pct(&[5, 0, 6]), Some(50.0));
    assert_eq!(frames_near_pct(&[0, 0]), None);
    // The shares never add past 100, across chunks alike.
    let mut a = Adjacency::default();
    let last = a.add(&v[..5], 0);
    a.add(&v[5..], last);
    assert_eq!(
        (a.pct(), a.near_pct()),
        (Some(100.0 * 8.0 / 14.0), Some(100.0 * 3.0 / 14.0))
    );
}

#[test]
fn near_pages_are_counted_by_how_full_their_block_is() {
    // Block 1 (frames 512 to 1,023) holds 4 pages, all outside runs: the
    // first is not near, the other three are, in a block holding 4.
    let v: Vec<u64> = vec![600, 700, 800, 900];
    let by = {
        let mut a = Adjacency::default();
        a.add(&v, 0);
        a.near_by_fill()
    };
    assert_eq!(by.len(), NEAR_BLOCK_FRAMES as usize + 1);
    assert_eq!(by[4], 3);
    assert_eq!(by.iter().sum::<u64>(), 3);
    // A run of 8 in block 2 adds to that block's pages, not to the near
    // ones; a near page there is then in a block holding 9; a page near in
    // block 1 again makes it 5, and every near page of block 1 moves there.
    let mut w = v.clone();
    w.extend(1024..1032);
    w.extend([1100, 650]);
    let mut a = Adjacency::default();
    a.add(&w, 0);
    let by = a.near_by_fill();
    assert_eq!((by[5], by[9]), (4, 1));
    assert_eq!(
        100.0 * by.iter().sum::<u64>() as f64 / a.resident as f64,
        a.near_pct().unwrap()
    );
    // Across chunks alike, the open run's near pages counted at the end.
    let mut b = Adjacency::default();
    let last = b.add(&w[..6], 0);
    b.add(&w[6..], last);
    assert_eq!(b.near_by_fill(), by);
    // No page near: empty.
    let mut c = Adjacency::default();
    c.add(&(1..=8).collect::<Vec<u64>>(), 0);
    assert!(c.near_by_fill().is_empty());
}

#[test]
fn only_anonymous_private_mappings_are_read_for_adjacency() {
    let r = |l: &str| anon_private_range(l);
    assert_eq!(
        r("7f0000000000-7f0000002000 rw-p 00000000 00:00 0 "),
        Some((0x7f00_0000_0000, 0x7f00_0000_2000))
    );
    assert_eq!(
        r("55aa00000000-55aa00001000 rw-p 00000000 00:00 0    [heap]"),
        Some((0x55aa_0000_0000, 0x55aa_0000_1000))
    );
    // A file, a shared mapping, a guard page, the stack: not read.
    assert_eq!(r("400000-401000 r-xp 00000000 08:01 12 /usr/bin/x"), None);
    assert_eq!(r("7f0000000000-7f0000001000 rw-s 00000000 00:01 9 "), None);
    assert_eq!(r("7f0000000000-7f0000001000 ---p 00000000 00:00 0 "), None);
    assert_eq!(
        r("7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0 [stack]"),
        None
    );
}

#[test]
fn a_shuffled_refault_keeps_every_page_resident() {
    let heap = crate::sys::Heap::touched(64 * crate::sys::PAGE, crate::sys::Thp::Off).unwrap();
    heap.refault_shuffled(7).unwrap();
    let frames = heap.frames().expect("pagemap readable");
    assert_eq!(frames.len(), heap.pages());
    // Its own process's adjacency reads (None without CAP_SYS_ADMIN).
    let own = anon_pages(std::process::id()).unwrap();
    assert!(own
        .frames_adjacent_pct
        .is_none_or(|p| (0.0..=100.0).contains(&p)));
    // Its tables hold its entries, and the heap's are among them (the
    // present bit is readable without CAP_SYS_ADMIN).
    let f = own.fill;
    assert!(f.entries >= heap.pages() as u64, "{f:?}");
    assert!(
        f.tables >= 1 && f.entries <= PTES_PER_TABLE * f.tables,
        "{f:?}"
    );
}

const PRESENT: u64 = 1 << 63;
const SWAPPED: u64 = 1 << 62;

#[test]
fn a_table_fill_counts_present_and_swapped_entries_and_the_tables_holding_them() {
    // A heap written whole: 2 tables, full.
    let mut whole = TableFill::default();
    whole.add(&vec![PRESENT | 42; 1024], 512 * 10);
    assert_eq!((whole.entries, whole.tables), (1024, 2));
    // One page in each of 4 tables, a swapped one among them; the entries
    // not present (0) hold nothing.
    let mut thin = TableFill::default();
    let mut v = vec![0u64; 2048];
    for (i, e) in [
        (0, PRESENT),
        (600, SWAPPED),
        (1100, PRESENT | 7),
        (2047, PRESENT),
    ] {
        v[i] = e;
    }
    thin.add(&v, 0);
    assert_eq!((thin.entries, thin.tables), (4, 4));
    // A range not aligned to a table: pages 500 to 523 straddle two.
    let mut straddle = TableFill::default();
    straddle.add(&[PRESENT; 24], 500);
    assert_eq!((straddle.entries, straddle.tables), (24, 2));
}

#[test]
fn two_mappings_in_one_table_count_it_once() {
    // Mappings read in address order: the second starts in the table the
    // first ended in.
    let mut f = TableFill::default();
    f.add(&[PRESENT; 100], 0);
    f.add(&[PRESENT; 100], 200);
    assert_eq!((f.entries, f.tables), (200, 1));
    f.add(&[0, 0, PRESENT], 600);
    assert_eq!((f.entries, f.tables), (201, 2));
    // No entry at all: no table.
    let none = TableFill::default();
    assert_eq!((none.entries, none.tables), (0, 0));
}

#[test]
fn a_contiguous_refault_lies_more_in_a_row_than_a_shuffled_one() {
    // 8 MiB: four huge pages' worth, on the order-0 path once split.
    let heap = crate::sys::Heap::touched(8 << 20, crate::sys::Thp::Default).unwrap();
    let on_huge = heap.refault_contiguous().unwrap();
    let contiguous = heap.frames().expect("pagemap readable");
    assert_eq!(contiguous.len(), heap.pages());
    let Some(in_a_row) = frames_adjacent_pct(&contiguous) else {
        eprintln!("skipped: the frames are hidden (no CAP_SYS_ADMIN), nothing to compare");
        return;
    };
    let large = large_folio_pct(&contiguous);
    if on_huge != Some(100.0) || large != Some(0.0) {
        // Huge pages refused (THP never, no free 2 MiB block), or not
        // split by this kernel: the heap is then only faulted in order,
        // as contiguous as the free lists happen to be.
        eprintln!("skipped: on huge pages before the split {on_huge:?}%, on large folios after {large:?}%");
        return;
    }
    heap.refault_shuffled(11).unwrap();
    let shuffled = frames_adjacent_pct(&heap.frames().unwrap()).unwrap();
    // Split huge pages: 511 frames in 512 in a row, a shuffle about none.
    assert!(in_a_row > shuffled, "{in_a_row}% against {shuffled}%");
}

#[test]
fn pages_moved_within_windows_keep_their_frames_near_and_not_in_a_row() {
    // 4 MiB: two huge pages, each one window of 512 pages once split.
    let heap = crate::sys::Heap::touched(4 << 20, crate::sys::Thp::Default).unwrap();
    let on_huge = heap.refault_contiguous().unwrap();
    let before = heap.frames().expect("pagemap readable");
    if frames_adjacent_pct(&before).is_none() || on_huge != Some(100.0) {
        eprintln!("skipped: frames hidden or no huge pages ({on_huge:?}%): no layout to move");
        return;
    }
    if let Err(e) = heap.permute_within(512, 7) {
        // Linux before 6.8, or no userfaultfd for this user: the heap is
        // whole again all the same.
        eprintln!("skipped: {e}");
        assert_eq!(heap.resident_pages().unwrap(), heap.pages());
        return;
    }
    let after = heap.frames().unwrap();
    // Every page still present, each window holding the frames it held.
    assert!(after.iter().all(|&f| f != 0));
    for (a, b) in before.chunks(512).zip(after.chunks(512)) {
        let (mut a, mut b) = (a.to_vec(), b.to_vec());
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
    }
    // In a row no longer; near, all but the windows' first pages at most.
    assert!(frames_adjacent_pct(&after).unwrap() < 5.0);
    assert!(frames_near_pct(&after).unwrap() > 99.0);
}
