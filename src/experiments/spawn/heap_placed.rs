//! spawn.heap's forks after a pause (`-p paused_forks=N`): a cold fork, as
//! a server forking now and then sees, with the heap as touched, and again
//! with its pages laid out otherwise in physical memory (root only, where
//! the frames can be read): scattered (`-p scattered=true`, refaulted in a
//! shuffled order), in a row (`-p contiguous=true`, refaulted on huge
//! pages split into 4 KiB ones) and near (`-p near=true`, in a row, then
//! its pages moved within windows of 512). `tasklab predict` places a
//! process between the scattered and the contiguous heaps by its own share
//! of frames in a row (near pages counted in a row by how full their
//! blocks are: docs/PREDICT.md).

use super::engine::{push_launches, Launch};
use crate::experiments::prelude::*;
use crate::metric::key::CALL;
use crate::sys;
use crate::sys::procfs;

pub const PAUSED_FORKS_PARAM: Param<u64> = Param::number(ParamSpec {
        name: "paused_forks",
        help: "also time this many forks a round at each heap (thp=system), each after sleeping pause_ms (call=paused series): a cold fork, as a server that forks now and then (Redis's BGSAVE) sees, where the other series fork back to back (warm); 0 for none (`tasklab predict` asks for 4)",
        kind: ParamKind::Count { min: 0, max: 100 },
        quick: "0",
        thorough: "0",
    });

pub const PAUSE_MS_PARAM: Param<u64> = Param::number(ParamSpec {
        name: "pause_ms",
        help: "the pause before each paused fork, ms (on a busy 2-vCPU KVM guest a fork of 100 MiB cost 1.7 ms back to back, 2.1 ms after 10 ms, 4.4 ms after 100 ms and 7 to 9 ms after 0.3, 1 or 3 s)",
        kind: ParamKind::Count { min: 1, max: 10_000 },
        quick: "300",
        thorough: "300",
    });

pub const SCATTERED_PARAM: Param<bool> = Param::flag(ParamSpec {
        name: "scattered",
        help: "also time the forks after a pause with each heap faulted in again in a shuffled order (call=paused_scattered series; root only, where the physical frames can be read): its pages physically scattered, as a long-running server's often are (Redis's at 1 GiB: 28% of its pages' frames in a row, a fork 1.5 to 2 times a fresh heap's), with frames_adjacent_pct of both heaps; `tasklab predict` asks for it",
        kind: ParamKind::Bool,
        quick: "false",
        thorough: "false",
    });

pub const CONTIGUOUS_PARAM: Param<bool> = Param::flag(ParamSpec {
        name: "contiguous",
        help: "also time the forks after a pause with each heap faulted in again on huge pages split into 4 KiB ones (call=paused_contiguous series; root only): its pages order-0 and physically in a row 511 times in 512, more contiguous than any heap written page by page, with frames_adjacent_pct; left out where huge pages are refused or not split; `tasklab predict` asks for it",
        kind: ParamKind::Bool,
        quick: "false",
        thorough: "false",
    });

pub const NEAR_PARAM: Param<bool> = Param::flag(ParamSpec {
        name: "near",
        help: "also time the forks after a pause with each heap laid in a row as -p contiguous=true does, then its pages moved within windows of 512 to shuffled places (userfaultfd's UFFDIO_MOVE, Linux 6.8; call=paused_near series; root only): each page's frame in the same block of 512 frames as the pages before it, next to the page before's only by chance, as many of a long-running server's pages lie near each other, with frames_adjacent_pct and frames_near_pct; left out where the moves are refused; `tasklab predict` does not ask for it (it prices near pages by how full their blocks are: docs/PREDICT.md)",
        kind: ParamKind::Bool,
        quick: "false",
        thorough: "false",
    });

/// Pages moved within windows of this many for the near layout: one huge
/// page's worth, so that each window is one block of frames in a row and
/// every page after a window's first is near ([`procfs::NEAR_BLOCKS`]).
pub const NEAR_WINDOW: usize = 512;

/// The `call` label of the forks timed after a pause.
pub const PAUSED_CALL: &str = "paused";

/// The `call` label of the forks timed after a pause with the heap's pages
/// physically scattered (`-p scattered=true`).
pub const SCATTERED_CALL: &str = "paused_scattered";

/// The `call` label of the forks timed after a pause with the heap's pages
/// in a row in physical memory (`-p contiguous=true`).
pub const CONTIGUOUS_CALL: &str = "paused_contiguous";

/// The `call` label of the forks timed after a pause with the heap's pages
/// near each other in physical memory (`-p near=true`).
pub const NEAR_CALL: &str = "paused_near";

/// The share of the heap's pages whose physical frame follows the frame of
/// the page before (`call` = [`PAUSED_CALL`] as touched, [`SCATTERED_CALL`]
/// after the shuffled refault, [`CONTIGUOUS_CALL`] after the refault on
/// split huge pages).
pub const FRAMES_ADJACENT_PCT: MetricSpec = MetricSpec::new(
    "frames_adjacent_pct",
    Unit::Percent,
    Better::Neither,
    Kind::Memory,
    "share of the heap's pages whose physical frame directly follows the page before's (/proc/self/pagemap, root only): how contiguous the heap is in physical memory, which fork's per-page work reads in that order",
);

/// The share of the heap's pages outside runs of frames in a row whose
/// frame lies near the page before's (`-p near=true`: every layout's).
pub const FRAMES_NEAR_PCT: MetricSpec = MetricSpec::new(
    "frames_near_pct",
    Unit::Percent,
    Better::Neither,
    Kind::Memory,
    "share of the heap's pages outside runs of 8 frames in a row whose frame lies in one of the last 8 blocks of 512 frames the pages before it lay in (/proc/self/pagemap, root only): fork reads their struct page among those it has just read",
);

/// The `call` label of the heap's share of frames in a row as the free
/// lists gave it, read once a round at every heap of
/// [`AS_TOUCHED_MIN_HEAP_BYTES`] or more (thp=system) right after it is
/// populated, outside every timed window: the same heap written the same
/// way forks up to twice as fast in a row as scattered, and which it gets
/// depends on what ran before (docs/REPEATABILITY.md, session 21).
pub const AS_TOUCHED_CALL: &str = "as_touched";

/// The smallest heap whose share of frames in a row is read as touched:
/// below it the fork is a few hundred µs, and at 64 MiB a pagemap read
/// of 128 KiB costs well under a millisecond of the untimed round.
pub const AS_TOUCHED_MIN_HEAP_BYTES: u64 = 64 << 20;

/// Said once when the frames cannot be read.
pub const FRAMES_HIDDEN_NOTE: &str = "the heap's share of frames in a row (frames_adjacent_pct and frames_near_pct, call=as_touched) was not read: /proc/self/pagemap could not be read or showed no physical frame (it shows them only to root, CAP_SYS_ADMIN)";

/// Reads the populated heap's share of frames in a row into
/// `frames_adjacent_pct` ([`record_as_touched`]); reading the pagemap of
/// 1 GiB took 14 ms, outside every timed window.
pub fn as_touched(out: &mut WorkerOutput, heap: &sys::Heap, heap_bytes: u64, point: &Labels) {
    if heap_bytes >= AS_TOUCHED_MIN_HEAP_BYTES {
        record_as_touched(out, heap.frames().as_deref(), heap_bytes, point);
    }
}

/// `frames`' share in a row as a reading of `frames_adjacent_pct` at
/// `point` with `call`, and, where `near`, the rest's share near as one of
/// `frames_near_pct`: what every layout records. False when no share could
/// be read from them (no frame seen).
fn record_shares(
    out: &mut WorkerOutput,
    point: &Labels,
    call: &str,
    frames: &[u64],
    near: bool,
) -> bool {
    let (Some(pct), near_pct) = procfs::frame_shares(frames) else {
        return false;
    };
    let mut at = point.clone();
    at.insert(CALL.into(), call.into());
    out.reading(&FRAMES_ADJACENT_PCT, at.clone(), pct);
    if let Some(q) = near_pct.filter(|_| near) {
        out.reading(&FRAMES_NEAR_PCT, at, q);
    }
    true
}

/// The heap's share of frames in a row as touched
/// (`frames_adjacent_pct`, `call` = [`AS_TOUCHED_CALL`], `thp` = `thp`),
/// by heap size: what the trend finding and compare read of a run.
pub fn as_touched_shares(r: &ExperimentResult, thp: &str) -> std::collections::BTreeMap<u64, f64> {
    use crate::metric::key::{HEAP_BYTES, THP};
    r.readings
        .iter()
        .filter(|x| x.name == FRAMES_ADJACENT_PCT.name && x.value.is_finite())
        .filter(|x| x.labels.get(CALL).map(String::as_str) == Some(AS_TOUCHED_CALL))
        .filter(|x| x.labels.get(THP).map(String::as_str) == Some(thp))
        .filter_map(|x| Some((x.labels.get(HEAP_BYTES)?.parse().ok()?, x.value)))
        .collect()
}

/// The heap's share of frames in a row from its `frames` (0: hidden or
/// not present; None: the pagemap could not be read) as a reading of
/// `frames_adjacent_pct`, and of the rest near each other as one of
/// `frames_near_pct` (`call` = [`AS_TOUCHED_CALL`], the point's labels), at heaps of [`AS_TOUCHED_MIN_HEAP_BYTES`] or more; where no
/// frame can be seen, [`FRAMES_HIDDEN_NOTE`] instead (said once a run:
/// notes are kept once).
pub fn record_as_touched(
    out: &mut WorkerOutput,
    frames: Option<&[u64]>,
    heap_bytes: u64,
    point: &Labels,
) {
    if heap_bytes < AS_TOUCHED_MIN_HEAP_BYTES {
        return;
    }
    // The rest near each other or not too: at 0% in a row the fork varied
    // 2.3 times (docs/REPEATABILITY.md, session 21).
    if !frames.is_some_and(|f| record_shares(out, point, AS_TOUCHED_CALL, f, true)) {
        out.notes.push(FRAMES_HIDDEN_NOTE.into());
    }
}

/// What the trend finding says of the largest heap's share of frames in a
/// row as touched (the median over its rounds), where it was read.
pub fn in_a_row(r: &ExperimentResult, base: &str) -> Option<String> {
    let (bytes, pct) = as_touched_shares(r, base).into_iter().next_back()?;
    Some(format!(
        "the {} heap lay {pct:.0}% in a row this run (its pages in runs of {} or more frames next to each other, as the free lists gave them; how the heap lies moves fork's figure from run to run, and this share alone does not set it: docs/REPEATABILITY.md, session 21)",
        fmt_size(bytes),
        procfs::RUN_MIN_PAGES
    ))
}

/// A contiguous heap with more of its pages than this on large folios
/// (the split refused) is left out: fork copies those in batches, another
/// path than a program's order-0 pages take.
const LARGE_FOLIO_MAX_PCT: f64 = 1.0;

/// The forks after a pause at this heap: as touched, then scattered and
/// contiguous where asked and the frames can be read, each with the heap's
/// share of frames in a row. `fork` = (its method's name, its labels).
pub fn paused_forks(
    job: &Job,
    out: &mut WorkerOutput,
    heap: &sys::Heap,
    mut launch: impl FnMut() -> std::io::Result<Launch>,
    fork: (&str, &Labels),
    point: &Labels,
) -> anyhow::Result<()> {
    let n = job.params.get(&PAUSED_FORKS_PARAM);
    if n == 0 {
        return Ok(());
    }
    let (name, base) = fork;
    let pause = std::time::Duration::from_millis(job.params.get(&PAUSE_MS_PARAM));
    let mut timed = |out: &mut WorkerOutput, call: &str, what: &str| -> anyhow::Result<()> {
        let forks = after_pauses(n, pause, &mut launch)
            .map_err(|e| anyhow::anyhow!("{name}: {e} (after a pause{what})"))?;
        let mut with = base.clone();
        with.insert(CALL.into(), call.into());
        push_launches(out, &with, &forks, true);
        Ok(())
    };
    let near = job.params.get(&NEAR_PARAM);
    // The share in runs, and where the near layout is asked, the share near.
    let share = |out: &mut WorkerOutput, call: &str, frames: &[u64]| {
        record_shares(out, point, call, frames, near);
    };
    // The caches and whatever else a fork finds warm back to back have had
    // pause_ms to go cold, as between two BGSAVEs of an idle server.
    timed(out, PAUSED_CALL, "")?;
    let scattered = job.params.get(&SCATTERED_PARAM);
    let contiguous = job.params.get(&CONTIGUOUS_PARAM);
    // Without the frames (not root) nothing says how the heap lies.
    let Some(as_touched) = heap
        .frames()
        .filter(|f| procfs::frames_adjacent_pct(f).is_some())
    else {
        return Ok(());
    };
    if scattered || contiguous || near {
        share(out, PAUSED_CALL, &as_touched);
    }
    if scattered {
        heap.refault_shuffled(job.seed)?;
        if let Some(f) = heap.frames() {
            share(out, SCATTERED_CALL, &f);
        }
        timed(out, SCATTERED_CALL, ", scattered")?;
    }
    if contiguous {
        let on_huge = heap.refault_contiguous()?;
        let frames = heap.frames().unwrap_or_default();
        let large = procfs::large_folio_pct(&frames);
        match (procfs::frames_adjacent_pct(&frames), large) {
            (Some(_), Some(l)) if l <= LARGE_FOLIO_MAX_PCT => {
                share(out, CONTIGUOUS_CALL, &frames);
                timed(out, CONTIGUOUS_CALL, ", contiguous")?;
            }
            (_, l) => out.notes.push(format!(
                "the contiguous heap was left out: {} (fork would copy a large folio's pages in batches, not one by one as a program's 4 KiB pages)",
                l.map_or("its pages' folios could not be read (/proc/kpageflags)".into(), |l| {
                    format!("{l:.0}% of its pages stayed on large folios, the split refused")
                })
            )),
        }
        if on_huge.is_some_and(|h| h < 100.0) {
            out.notes.push(
                "the contiguous heap got huge pages for only part of its pages (the rest faulted in order, as the free lists gave them): its share of frames in a row says what it got".into(),
            );
        }
    }
    if near {
        near_forks(job, out, heap, &mut timed, &share)?;
    }
    Ok(())
}

/// The near layout: the heap laid in a row, then its pages moved within
/// windows of [`NEAR_WINDOW`]; timed where the moves went through and its
/// pages are order-0, else left out with a note.
fn near_forks(
    job: &Job,
    out: &mut WorkerOutput,
    heap: &sys::Heap,
    timed: &mut impl FnMut(&mut WorkerOutput, &str, &str) -> anyhow::Result<()>,
    share: &impl Fn(&mut WorkerOutput, &str, &[u64]),
) -> anyhow::Result<()> {
    heap.refault_contiguous()?;
    if let Err(e) = heap.permute_within(NEAR_WINDOW, job.seed) {
        out.notes.push(format!(
            "the near heap was left out: its pages could not be moved ({e}; userfaultfd's UFFDIO_MOVE needs Linux 6.8 and root or vm.unprivileged_userfaultfd=1)"
        ));
        return Ok(());
    }
    let frames = heap.frames().unwrap_or_default();
    match procfs::large_folio_pct(&frames) {
        Some(l) if l <= LARGE_FOLIO_MAX_PCT => {
            share(out, NEAR_CALL, &frames);
            timed(out, NEAR_CALL, ", near")
        }
        l => {
            out.notes.push(format!(
                "the near heap was left out: {}",
                l.map_or(
                    "its pages' folios could not be read (/proc/kpageflags)".into(),
                    |l| {
                        format!("{l:.0}% of its pages stayed on large folios, the split refused")
                    }
                )
            ));
            Ok(())
        }
    }
}

/// `n` launches, each after sleeping `pause`.
fn after_pauses<T>(
    n: u64,
    pause: std::time::Duration,
    mut launch: impl FnMut() -> std::io::Result<T>,
) -> std::io::Result<Vec<T>> {
    (0..n)
        .map(|_| {
            std::thread::sleep(pause);
            launch()
        })
        .collect()
}
