//! predict's own short run: the heaps it forks with, fitted to the
//! process (one whose page tables reach the process's, so that its fork is
//! interpolated, not extrapolated) and to the machine, and the run itself.

use super::model::Process;
use super::NEEDED;
use crate::experiments::spawn::{cow, heap, table};
use crate::results::RunResults;
use crate::run::plan::{Preset, Request};
use crate::units::fmt_size;

/// Forks after a pause a round at each heap in predict's own run (the
/// pause is spawn.heap's default, 300 ms): 1.2 s a heap a round, 3.6 s a
/// round at the three fixed heaps, 4.8 s with a bracketing one. Four, so
/// that the quick profile's 3 rounds at the least give 12 cold forks a
/// heap, more than the [`super::model::SPREAD_FROM`] (9) from which order
/// statistics alone hold four in five single forks on average (2 a round
/// gave 6: a spread that could only be guessed at).
pub const PAUSED_FORKS: u64 = 4;

/// The heaps predict's own run always forks with.
pub const FRESH_HEAPS: [u64; 3] = [0, 64 << 20, 256 << 20];

/// A heap that brackets the process's page tables is rounded up to a
/// whole number of these.
pub const BRACKET_STEP: u64 = 256 << 20;

/// The largest heap predict's own run touches: a fresh worker faults every
/// page in each round (0.5 to 2.3 s a GiB on a KVM guest, spawn.heap's
/// notes), so 8 GiB costs 4 to 19 s a round, three rounds at the least.
pub const FRESH_HEAP_MAX: u64 = 8 << 30;

/// KiB of page tables a MiB of touched heap takes (a 4 KiB page table maps
/// 2 MiB of 4 KiB pages).
const PTE_KIB_PER_MIB: f64 = 2.0;

/// The heaps of predict's own run, fitted to the process and the machine.
#[derive(Clone, Debug, PartialEq)]
pub struct FreshHeaps {
    /// Ascending: [`FRESH_HEAPS`], and the bracketing heap when one is
    /// needed and fits.
    pub bytes: Vec<u64>,
    /// The heap whose page tables reach the process's, rounded up to a
    /// [`BRACKET_STEP`]: None when the fixed heaps reach them.
    pub wanted: Option<u64>,
    /// Why the largest heap stays short of that, when it does (the
    /// prediction is then extrapolated, and says this).
    pub short: Option<String>,
}

impl FreshHeaps {
    /// The heaps for `p`, given the largest heap that fits here and why
    /// (`heap::heap_room`): the fixed ones, and one whose page tables reach
    /// the process's (2 KiB a MiB of heap, plus the worker's own), so that
    /// its fork is interpolated between two heaps measured, not
    /// extrapolated from the fixed ones. It is capped by the room (a whole
    /// number of steps) and by [`FRESH_HEAP_MAX`]; a capped heap is still
    /// measured when it is beyond the fixed ones, and `short` says why the
    /// line goes on beyond it.
    pub fn for_process(p: &Process, room_bytes: u64, room_why: &str) -> FreshHeaps {
        let mut bytes = FRESH_HEAPS.to_vec();
        let largest = FRESH_HEAPS[FRESH_HEAPS.len() - 1];
        let need_mib = (p.copied_pte_kib() / PTE_KIB_PER_MIB).ceil().max(0.0) as u64;
        let need = need_mib << 20;
        if need <= largest {
            return FreshHeaps {
                bytes,
                wanted: None,
                short: None,
            };
        }
        let wanted = need.div_ceil(BRACKET_STEP) * BRACKET_STEP;
        let fits = room_bytes / BRACKET_STEP * BRACKET_STEP;
        let heap = wanted.min(fits).min(FRESH_HEAP_MAX);
        if heap > largest {
            bytes.push(heap);
        }
        let measured = fmt_size(heap.max(largest));
        let short = (heap < wanted).then(|| {
            let hint = format!(
                "`tasklab run {} -p methods=fork -p heap_sizes=0,256M,{}M -p paused_forks={PAUSED_FORKS}` and pass its results.json with --results",
                NEEDED.join(" "),
                wanted >> 20
            );
            if fits < wanted.min(FRESH_HEAP_MAX) {
                format!(
                    "its page tables would need a heap of {} to be bracketed, but {} is the most that fits here ({room_why}), so the short run measured heaps up to {measured}; where memory allows, run {hint}",
                    fmt_size(wanted),
                    fmt_size(fits),
                )
            } else {
                format!(
                    "its page tables would need a heap of {} to be bracketed, but the short run touches heaps up to {} (a fresh worker faults every page in each round, 0.5 to 2.3 s a GiB on a KVM guest), so it measured heaps up to {measured}; run {hint}",
                    fmt_size(wanted),
                    fmt_size(FRESH_HEAP_MAX),
                )
            }
        });
        FreshHeaps {
            bytes,
            wanted: Some(wanted),
            short,
        }
    }

    /// Why a prediction from this run is extrapolated: [`FreshHeaps::short`],
    /// or, with the bracketing heap measured in full, that its page tables
    /// (`largest_kib`, the largest heap's in the results) stayed below the
    /// process's `pte_kib` after all.
    pub(super) fn why_extrapolated(&self, largest_kib: f64, pte_kib: f64) -> String {
        self.short.clone().unwrap_or_else(|| {
            let planned = self.wanted.map_or(String::new(), |w| {
                format!(
                    " (the heap of {} planned to reach them was not measured, or the process grew since it was read)",
                    fmt_size(w)
                )
            });
            format!(
                "the largest heap the short run measured has {} of page tables, below its {}{planned}",
                kib_text(largest_kib),
                kib_text(pte_kib)
            )
        })
    }
}

/// KiB as a size: "2.4 MiB".
fn kib_text(kib: f64) -> String {
    fmt_size((kib.max(0.0) * 1024.0).round() as u64)
}

/// Measures the slopes quietly: fork at a few heaps, writes after fork at
/// the shares either side of the one asked for.
pub fn run(p: &Process, heaps: &FreshHeaps, writes_pct: f64) -> anyhow::Result<RunResults> {
    // Private, in the checked TMPDIR (a bad one is exit 2, naming it), and
    // named with its owner: a run killed here leaves a folder the next start
    // removes.
    let dir = crate::measure::scratch::Scratch::temporary()?;
    let mut shares = vec![1, 10, 100];
    let asked = writes_pct.round() as u64;
    if !shares.contains(&asked) && asked > 0 {
        shares.push(asked);
        shares.sort_unstable();
    }
    let (spawn_heap, spawn_cow) = (&heap::EXPERIMENT, &cow::EXPERIMENT);
    let presets = vec![
        Preset::of(spawn_heap, &heap::HEAP_SIZES_PARAM, heaps.bytes.clone()),
        Preset::of(
            spawn_heap,
            &heap::METHODS_PARAM,
            vec![table::FORK.choice.name.to_string()],
        ),
        Preset::of(spawn_heap, &heap::THP_PARAM, false),
        Preset::of(spawn_heap, &heap::UNTOUCHED_PARAM, false),
        // Forks after a pause, a few a round at each heap: the cold figure.
        Preset::of(spawn_heap, &heap::PAUSED_FORKS_PARAM, PAUSED_FORKS),
        // And again with each heap's pages scattered in physical memory
        // (root only): the cold figure for a process whose pages are.
        Preset::of(spawn_heap, &heap::SCATTERED_PARAM, true),
        // And on pages in a row (huge pages split into 4 KiB ones): the
        // cold figure for a process more contiguous than a heap written
        // page by page gets (root only too).
        Preset::of(spawn_heap, &heap::CONTIGUOUS_PARAM, true),
        Preset::of(spawn_cow, &cow::HEAP_PARAM, 256 << 20),
        Preset::of(spawn_cow, &cow::WRITES_PARAM, shares.clone()),
        Preset::of(spawn_cow, &cow::THP_WRITES_PARAM, shares),
        Preset::of(spawn_cow, &cow::THP_PARAM, p.anon_huge_kib > 0),
    ];
    let sizes: Vec<String> = heaps.bytes.iter().map(|&b| fmt_size(b)).collect();
    eprintln!(
        "predict: measuring the slopes here ({}; the quick profile's rounds within its budget, as `tasklab run`; fork at heaps of {}{}): this takes 20 to 75 seconds{}",
        NEEDED.join(", "),
        sizes.join(", "),
        heaps.wanted.filter(|_| heaps.short.is_none()).map_or(String::new(), |_| format!(
            ", the largest to reach its {} of page tables",
            kib_text(p.copied_pte_kib())
        )),
        heaps.bytes.last().filter(|&&b| b > 1 << 30).map_or(String::new(), |&b| format!(
            ", and more for the heap of {}, touched afresh each round",
            fmt_size(b)
        )),
    );
    if let Some(why) = &heaps.short {
        eprintln!("predict: {why}");
    }
    let names: Vec<String> = NEEDED.iter().map(|s| s.to_string()).collect();
    crate::run::run_request(
        &Request::quick(&names, &presets),
        &dir.path().join("results"),
    )
}

#[cfg(test)]
#[path = "fresh_tests.rs"]
mod tests;
