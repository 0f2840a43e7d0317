use super::*;

#[test]
fn the_plan_groups_pages_by_block_of_frames_with_their_offsets() {
    // Fork's order: page 0 at frame 1025 (block 2, offset 1), page 1 at
    // 3 (block 0), a break, page 2 at 1024, page 3 at 511, page 4 at 600
    // (block 1, offset 88).
    let frames = [1025, 3, 0, 1024, 511, 600];
    let p = plan(&frames);
    assert_eq!(p.pages, 5);
    assert_eq!(
        p.blocks,
        vec![vec![(1, 3), (3, 511)], vec![(4, 88)], vec![(2, 0), (0, 1)]]
    );
    assert!(p.repeated.is_empty());
}

#[test]
fn a_frame_seen_twice_is_placed_once_and_the_other_page_faulted_in() {
    let p = plan(&[7, 9, 7, 7]);
    assert_eq!(p.pages, 4);
    assert_eq!(p.blocks, vec![vec![(0, 7), (1, 9)]]);
    assert_eq!(p.repeated, vec![2, 3]);
}

#[test]
fn every_page_is_planned_once() {
    let frames: Vec<u64> = (0..5000u64).map(|i| (i * 7919) % 40_000 + 1).collect();
    let p = plan(&frames);
    let mut seen: Vec<usize> = p.blocks.iter().flatten().map(|&(i, _)| i).collect();
    seen.extend(&p.repeated);
    seen.sort_unstable();
    assert_eq!(seen, (0..5000).collect::<Vec<_>>());
    // Each page's block and offset give back its frame's.
    for (b, moves) in p.blocks.iter().enumerate() {
        let block = frames[moves[0].0] / 512;
        for &(i, off) in moves {
            assert_eq!(frames[i], block * 512 + u64::from(off), "block {b}");
        }
    }
}

#[test]
fn the_memory_check_refuses_what_does_not_fit() {
    let frames = vec![1u64; 1000];
    let need = bytes_needed(1000) + MARGIN_BYTES;
    assert_eq!(why_not(Some(&frames), Some(need)), None);
    let why = why_not(Some(&frames), Some(need - 1)).expect("refused");
    assert!(why.contains("MemAvailable"), "{why}");
    assert!(why_not(Some(&frames), None).is_some());
}

#[test]
fn hidden_frames_fall_back_to_the_model() {
    // Without CAP_SYS_ADMIN pagemap reads every frame as 0.
    let why = why_not(Some(&[0, 0, 0]), Some(u64::MAX)).expect("fallback");
    assert!(why.contains("hidden"), "{why}");
    assert!(why_not(None, Some(u64::MAX)).is_some());
    assert!(why_not(Some(&[]), Some(u64::MAX)).is_some());
}

#[test]
fn shares_add_up_to_the_whole() {
    let frames: Vec<u64> = (1..=64).chain([5000, 90_000, 7000]).collect();
    let s = Shares::of(&frames).expect("frames seen");
    assert!((s.runs_pct + s.near_pct + s.scattered_pct - 100.0).abs() < 1e-9);
    assert!(Shares::of(&[0, 0]).is_none());
}

#[test]
fn the_figures_hold_the_median_inside_its_interval_and_spread() {
    let rounds = vec![
        vec![10.0, 11.0, 12.0, 13.0],
        vec![11.0, 12.0, 14.0, 10.0],
        vec![12.0, 13.0, 11.0, 12.0],
    ];
    let (m, one, tau) = figures(&rounds).expect("figures");
    assert!(m.lo <= m.median && m.median <= m.hi);
    assert!(one.p10 <= m.median && m.median <= one.p90);
    assert!(
        tau >= crate::stats::noise::FLOOR,
        "its run's noise, at least the floor"
    );
    assert!(figures(&[vec![1.0]]).is_none());
    // Held for the process's fork as a run of its own: wider, never moved,
    // the spread still holding the interval; no noise moves nothing.
    let r = Replay {
        parent_return_ns: m,
        single_fork_ns: one,
        forks_ns: rounds.concat(),
        rounds: 3,
        forks_per_round: 4,
        pause_ms: PAUSE_MS,
        process: Shares::default(),
        replayed: Shares::default(),
        pages: 0,
        blocks: 0,
        blocks_whole: 0,
        pages_not_placed: 0,
        build_ms: 0.0,
        run_noise: tau,
        process_run_noise: 0.0,
    };
    let mut same = r.clone();
    same.held_for(0.0);
    assert_eq!((same.parent_return_ns, same.single_fork_ns), (m, one));
    let mut held = r.clone();
    held.held_for(0.05);
    let (w, o) = (held.parent_return_ns, held.single_fork_ns);
    assert_eq!(held.process_run_noise, 0.05);
    assert!(
        w.median == m.median && w.lo < m.lo && m.hi < w.hi,
        "{w:?} {m:?}"
    );
    assert!(o.p10 <= w.lo && w.hi <= o.p90 && o.p10 <= one.p10 && one.p90 <= o.p90);
}

/// A heap laid in a small constructed layout reads back with its pages in
/// the same blocks as the layout's pages, each at its offset within its
/// block; skipped, with the reason, where userfaultfd's move, huge pages
/// or the frames are not to be had.
#[test]
fn a_replayed_heap_reads_back_in_the_layout_s_blocks() {
    // Three blocks: pages 0-9 in a row at offsets 100-109 of block A,
    // pages 10-19 at reversed offsets of block B, pages 20-29 interleaved
    // between A (offsets 300+) and C.
    let mut frames = Vec::new();
    frames.extend((0..10).map(|k| 5 * 512 + 100 + k));
    frames.extend((0..10).map(|k| 9 * 512 + 400 - k));
    for k in 0..10 {
        frames.push(if k % 2 == 0 {
            5 * 512 + 300 + k
        } else {
            40 * 512 + k
        });
    }
    let p = plan(&frames);
    let heap = sys::Heap::untouched(p.pages * sys::PAGE, sys::Thp::Off).expect("heap");
    let laid = match heap.replay(&p.blocks) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("skipped: the pages could not be moved ({e})");
            return;
        }
    };
    let got = heap.frames().unwrap_or_default();
    if got.iter().all(|&f| f == 0) {
        eprintln!("skipped: the frames are hidden (no CAP_SYS_ADMIN, or pagemap unreadable)");
        return;
    }
    if laid.whole < laid.blocks {
        eprintln!(
            "skipped: {} of {} huge pages came whole (THP refused or fragmented)",
            laid.whole, laid.blocks
        );
        return;
    }
    assert_eq!(laid.blocks, 3);
    assert!(got.iter().all(|&f| f != 0), "every page present");
    for (i, (&f, &g)) in frames.iter().zip(&got).enumerate() {
        assert_eq!(f % 512, g % 512, "page {i}'s offset in its block");
        for (j, (&f2, &g2)) in frames.iter().zip(&got).enumerate() {
            assert_eq!(
                f / 512 == f2 / 512,
                g / 512 == g2 / 512,
                "pages {i} and {j}"
            );
        }
    }
}

/// A frames file (u64 each, 0 a break: bench's dump) replayed, where
/// TASKLAB_REPLAY_FRAMES names one (or a live process's, TASKLAB_REPLAY_PID);
/// a probe, not a check.
#[test]
#[ignore = "a probe: needs TASKLAB_REPLAY_FRAMES"]
fn a_frames_file_replays() {
    let frames = match (
        std::env::var("TASKLAB_REPLAY_FRAMES"),
        std::env::var("TASKLAB_REPLAY_PID"),
    ) {
        (Ok(path), _) => procfs_frames(&std::fs::read(path).expect("frames file")),
        (_, Ok(pid)) => procfs::anon_frames(pid.parse().expect("pid")).expect("frames"),
        _ => return,
    };
    let p = plan(&frames);
    let heap = sys::Heap::untouched(p.pages * sys::PAGE, sys::Thp::Off).expect("heap");
    let r = heap.replay(&p.blocks);
    eprintln!("{} pages, {} blocks: {r:?}", p.pages, p.blocks.len());
    let got = heap.frames().unwrap_or_default();
    eprintln!(
        "process {:?}, replayed {:?}",
        Shares::of(&frames),
        Shares::of(&got)
    );
}

fn procfs_frames(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks_exact(8)
        .map(|b| u64::from_ne_bytes(b.try_into().expect("8 bytes")))
        .collect()
}
