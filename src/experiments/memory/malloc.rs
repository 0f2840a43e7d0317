//! memory.malloc: Bendersky's malloc-memusage demo (`002_…`): malloc 100 Mi
//! ints, then write every one; VmSize grows at the malloc (416,128 kB), VmRSS
//! only at the touch (4,780 → 410,916 kB): memory is virtual until touched.

use super::{usable_memory, Snap, RSS_GROWTH_KIB};
use crate::experiments::prelude::*;
use crate::measure::rss::{self, RSS_BOUND_KIB, RSS_CROSS_CHECK_KIB, VM_SIZE_KIB};
use crate::metric::key::SIZE;
use serde::{Deserialize, Serialize};
use std::hint::black_box;

/// VmRSS at a stage.
pub const RSS_KIB: MetricSpec = MetricSpec::new(
    "rss_kib",
    Unit::Kib,
    Better::Lower,
    Kind::Memory,
    "VmRSS at a stage of the malloc demo (the kernel's RSS counters)",
);
/// The exact resident count at a stage.
pub const RSS_EXACT_KIB: MetricSpec = MetricSpec::new(
    "rss_exact_kib",
    Unit::Kib,
    Better::Lower,
    Kind::Memory,
    "Rss of smaps_rollup at a stage of the malloc demo: a walk of the page tables, exact",
);
/// VmSize grown since the start.
pub const VM_GROWTH_KIB: MetricSpec = MetricSpec::new(
    "vm_growth_kib",
    Unit::Kib,
    Better::Lower,
    Kind::Memory,
    "VmSize grown since the start, at a stage of the malloc demo",
)
.signed();
/// The seed's "max RSS": getrusage's ru_maxrss, a peak: each round's first
/// repetition, in the round's fresh worker, as the seed's program read it
/// (a series over the rounds, so it compares with the seed like for like).
pub const MAX_RSS_KIB: MetricSpec = MetricSpec::new(
    "max_rss_kib",
    Unit::Kib,
    Better::Neither,
    Kind::Memory,
    "getrusage ru_maxrss at a stage of each round's first repetition: the peak resident set, the seed's figure",
);

/// Which moment of the demo a figure was read at.
pub const STAGE: LabelKey = "stage";
/// The stages: before the malloc, after it, after writing every element.
pub const START: &str = "start";
pub const AFTER_MALLOC: &str = "after_malloc";
pub const AFTER_TOUCH: &str = "after_touch";

pub static EXPERIMENT: Experiment = Experiment {
    name: "memory.malloc",
    metrics: &[
        &VM_SIZE_KIB,
        &RSS_KIB,
        &RSS_EXACT_KIB,
        &VM_GROWTH_KIB,
        &RSS_GROWTH_KIB,
        &MAX_RSS_KIB,
        &RSS_BOUND_KIB,
        &RSS_CROSS_CHECK_KIB,
    ],
    summary:
        "malloc then touch: VmSize and VmRSS at start, after malloc, after writing every element",
    reproduces: "Bendersky's malloc-memusage: VM 416,128 kB; RSS 4,780 → 410,916 kB",
    params: &[SIZE_PARAM.spec, REPS_PARAM.spec],
    seeds: &[
        SeedFigure::of(
            &VM_SIZE_KIB,
            (416_128.0, 416_128.0),
            SeedStat::OneReading,
            SEED_SWITCH,
            BENDERSKY_HW,
            "a tiny C program: VmSize from /proc/self/status; tasklab's own image is larger",
        )
        .labels(&[(STAGE, AFTER_MALLOC), (SIZE, "400 MiB")])
        .unlike(OWN_IMAGE_VM)
        .beside(AT_START),
        // The seed's "max RSS" is getrusage's ru_maxrss, a peak: compared
        // with ours read the same way (MAX_RSS_KIB), never with VmRSS. Its
        // growth (410,916 − 4,780 kB) is not compared: a difference of two
        // peaks is not VmRSS's growth, and the two rows give it already.
        SeedFigure::of(
            &MAX_RSS_KIB,
            (4_780.0, 4_780.0),
            SeedStat::OneReading,
            SEED_SWITCH,
            BENDERSKY_HW,
            "ru_maxrss of a tiny C program at start; tasklab's own image is larger",
        )
        .labels(&[(STAGE, START), (SIZE, "400 MiB")])
        .unlike(OWN_IMAGE_RSS),
        SeedFigure::of(
            &MAX_RSS_KIB,
            (410_916.0, 410_916.0),
            SeedStat::OneReading,
            SEED_SWITCH,
            BENDERSKY_HW,
            "ru_maxrss after writing every int",
        )
        .labels(&[(STAGE, AFTER_TOUCH), (SIZE, "400 MiB")])
        .caveat("both peaks include their program's own at start: ours the worker's (beside), the seed's 4,780 kB")
        .beside(AT_START),
        SeedFigure::of(
            &VM_GROWTH_KIB,
            (409_604.0, 409_604.0),
            SeedStat::OneReading,
            SEED_SWITCH,
            BENDERSKY_HW,
            "416,128 − 6,524 kB: VmSize after malloc less VmSize at start",
        )
        .labels(&[(STAGE, AFTER_MALLOC), (SIZE, "400 MiB")]),
    ],
    points,
    measure,
    analyze,
    memory_work: true,
    ..Experiment::DEFAULT
};

/// Why VmSize after malloc is not compared with the seed's: each includes
/// its own program's image at start.
const OWN_IMAGE_VM: &str = "each includes its own program's VmSize at start, ours the worker's (beside), the seed's a small C program's 6,524 kB: the growth after malloc (vm_growth_kib) compares without them";

/// Why the peak RSS at start is not compared: two programs' own images.
const OWN_IMAGE_RSS: &str = "ours is the worker's own image at start, the seed's a small C program's: two programs, not one quantity";

/// The same series at start, shown beside a later stage's seed row.
const AT_START: Beside = Beside {
    metric: "",
    labels: &[(STAGE, START)],
    words: "at start",
    above: None,
};

pub const SIZE_PARAM: Param<u64> = Param::number(ParamSpec {
    name: "size",
    help: "bytes to malloc and then touch (the seed: 100 Mi ints = 400 MiB)",
    kind: ParamKind::Size {
        min: 1 << 20,
        max: 1 << 40,
    },
    quick: "400M",
    thorough: "400M",
});

pub const REPS_PARAM: Param<u64> = Param::number(ParamSpec {
    name: "reps",
    help: "malloc-touch-free repetitions per round (one sample each)",
    kind: ParamKind::Count { min: 1, max: 1000 },
    quick: "1",
    thorough: "4",
});

/// The one memory.malloc job: the bytes it allocates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MallocPoint {
    pub size: u64,
}

fn points(ctx: &PlanCtx) -> Result<Points, String> {
    let mut pts = Points::default();
    let mut size_bytes = ctx.params.get(&SIZE_PARAM);
    let usable_bytes = usable_memory(ctx.env);
    let limit_bytes = usable_bytes / 2;
    if size_bytes > limit_bytes {
        let msg = format!(
            "size {} does not fit: {} is available and half must stay free (largest allowed here: {})",
            fmt_size(size_bytes),
            fmt_size(usable_bytes),
            fmt_size(limit_bytes)
        );
        if ctx.set_by_user(&SIZE_PARAM) {
            return Err(msg);
        }
        size_bytes = limit_bytes & !((1 << 20) - 1);
        pts.notes
            .push(format!("{msg}; clamped to {}", fmt_size(size_bytes)));
    }
    pts.push(&MallocPoint { size: size_bytes });
    Ok(pts)
}

fn measure(job: &Job) -> anyhow::Result<WorkerOutput> {
    let size_bytes = job.point::<MallocPoint>()?.size as usize;
    let n = size_bytes / 4;
    let reps = job.params.get(&REPS_PARAM) as usize;
    let size_name = fmt_size(size_bytes as u64);
    let mut out = WorkerOutput::default();
    let stages = [START, AFTER_MALLOC, AFTER_TOUCH];
    // Per stage, one sample per round.
    let mut vm_size_kib = [Vec::new(), Vec::new(), Vec::new()];
    let mut vm_rss_kib = [Vec::new(), Vec::new(), Vec::new()];
    let mut rss_exact_kib = [Vec::new(), Vec::new(), Vec::new()];
    for rep in 0..reps {
        let mut snaps = [Snap::default(); 3];
        let mut max_rss_kib = [0u64; 3];
        snaps[0] = Snap::now()?;
        max_rss_kib[0] = crate::sys::max_rss_kib()?;
        // malloc(N * sizeof(int)): reserved, not yet touched.
        let mut m: Vec<u32> = Vec::with_capacity(n);
        snaps[1] = Snap::now()?;
        max_rss_kib[1] = crate::sys::max_rss_kib()?;
        // for (i = 0; i < N; ++i) m[i] = i;
        m.extend(0..n as u32);
        black_box(&mut m);
        snaps[2] = Snap::now()?;
        max_rss_kib[2] = crate::sys::max_rss_kib()?;
        drop(m);
        for (k, s) in snaps.iter().enumerate() {
            vm_size_kib[k].push(s.vm_size_kib);
            vm_rss_kib[k].push(s.vm_rss_kib);
            rss_exact_kib[k].push(s.rss_exact_kib);
        }
        if rep == 0 {
            let l = labels(&[(SIZE, &size_name)]);
            rss::record_bound(&mut out, &l);
            for (k, stage) in stages.iter().enumerate() {
                rss::cross_check(
                    &mut out,
                    &labels(&[(STAGE, stage), (SIZE, &size_name)]),
                    snaps[k].vm_rss_kib,
                    snaps[k].rss_exact_kib,
                );
            }
            // ru_maxrss is a peak: only a fresh process's first repetition
            // reads what the seed's program read; one sample a round.
            for (k, stage) in stages.iter().enumerate() {
                out.push(
                    &MAX_RSS_KIB,
                    labels(&[(STAGE, stage), (SIZE, &size_name)]),
                    vec![max_rss_kib[k] as f64],
                );
            }
        }
    }
    for (k, stage) in stages.iter().enumerate() {
        let l = labels(&[(STAGE, stage), (SIZE, &size_name)]);
        out.push(&VM_SIZE_KIB, l.clone(), vm_size_kib[k].clone());
        out.push(&RSS_KIB, l.clone(), vm_rss_kib[k].clone());
        out.push_detail(&RSS_EXACT_KIB, l.clone(), rss_exact_kib[k].clone());
        if k > 0 {
            let d = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x - y).collect();
            out.push(
                &VM_GROWTH_KIB,
                l.clone(),
                d(&vm_size_kib[k], &vm_size_kib[0]),
            );
            out.push(&RSS_GROWTH_KIB, l, d(&vm_rss_kib[k], &vm_rss_kib[0]));
        }
    }
    Ok(out)
}

fn analyze(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    let Some(size) = r
        .metrics
        .first()
        .and_then(|m| m.label(SIZE))
        .map(str::to_string)
    else {
        return a;
    };
    let at = |spec: &MetricSpec, stage: &str| r.median(spec, &[(STAGE, stage)]);
    // The bound of one counter reading; a growth is two readings.
    let bound = rss::bound(r, &[]);
    let pm = |readings: f64| rss::pm(bound, readings, 1.0);
    a.notes.extend(rss::note(r));
    if let (Some(vm_malloc_kib), Some(rss_malloc_kib), Some(vm_touch_kib), Some(rss_touch_kib)) = (
        at(&VM_GROWTH_KIB, AFTER_MALLOC),
        at(&RSS_GROWTH_KIB, AFTER_MALLOC),
        at(&VM_GROWTH_KIB, AFTER_TOUCH),
        at(&RSS_GROWTH_KIB, AFTER_TOUCH),
    ) {
        let size_kib = crate::units::parse_size(&size).unwrap_or(1) as f64 / 1024.0;
        a.findings.push(format!(
            "malloc of {size} grew VmSize by {} but VmRSS by only {}{}; writing every element then added {}{} of resident memory ({:.0}% of the size) and {} of VmSize: memory is virtual until touched (seed: VM 416,128 kB throughout, RSS 4,780 → 410,916 kB)",
            fmt_value(vm_malloc_kib, Unit::Kib),
            fmt_value(rss_malloc_kib, Unit::Kib),
            pm(2.0),
            fmt_value(rss_touch_kib, Unit::Kib),
            pm(2.0),
            100.0 * rss_touch_kib / size_kib.max(1.0),
            fmt_value(vm_touch_kib - vm_malloc_kib, Unit::Kib)
        ));
    }
    // a series over the rounds; a reading in files from before
    let max_rss = |stage: &str| {
        r.median(&MAX_RSS_KIB, &[(STAGE, stage)])
            .or_else(|| r.reading(&MAX_RSS_KIB, &[(STAGE, stage)]))
    };
    if let (Some(start_kib), Some(malloc_kib), Some(touch_kib)) =
        (max_rss(START), max_rss(AFTER_MALLOC), max_rss(AFTER_TOUCH))
    {
        a.findings.push(format!(
            "the seed's \"max RSS\" (getrusage ru_maxrss, each round's first repetition, the median over rounds): started {}, after malloc {}, after touch {}{}",
            fmt_value(start_kib, Unit::Kib),
            fmt_value(malloc_kib, Unit::Kib),
            fmt_value(touch_kib, Unit::Kib),
            pm(1.0).replacen(" ±", ", each ±", 1)
        ));
    }
    if let (Some(vm_rss_kib), Some(exact_kib)) =
        (at(&RSS_KIB, AFTER_TOUCH), at(&RSS_EXACT_KIB, AFTER_TOUCH))
    {
        let gap = vm_rss_kib - exact_kib;
        let verdict = bound.map_or(String::new(), |b| {
            format!(
                ", {} the counters' bound",
                if gap.abs() <= b { "within" } else { "beyond" }
            )
        });
        a.findings.push(format!(
            "after the touch VmRSS reads {}{} and the exact count (smaps_rollup Rss) {}: {} apart ({:.2}%){verdict}",
            fmt_value(vm_rss_kib, Unit::Kib),
            pm(1.0),
            fmt_value(exact_kib, Unit::Kib),
            fmt_value(gap.abs(), Unit::Kib),
            100.0 * gap.abs() / exact_kib.max(1.0)
        ));
    }
    a
}

#[cfg(test)]
#[path = "malloc_tests.rs"]
mod tests;
