//! parallel.program: seed 003's whole program ("Linux Fu: An Odd Use For
//! Fork()": `time stress` 458 ms vs `time stress F` 395 ms, about 150 ms
//! saved at 155,256,000): a fresh array, its fill, the average and the
//! unmap, serial vs forked vs threads, with Amdahl's bound from the fill.

use super::array::{check_against_serial, exact_average, fill, sum_by, Pools, Variant, SEED_N};
use super::variants::{thp_choice, thp_of, THP_SETTINGS};
use super::{
    column, cpus, fitting_sizes, notes_for_cpus, reading_cpus, speedup_quoted, speedups,
    worker_counts, workers_chosen, Contention, AVERAGE_NS, CPUS, CPU_QUOTA, MAX_WORKERS, N_PARAM,
    OTHERS_CPUS, SPEEDUP,
};
use crate::experiments::prelude::*;
use crate::measure::rss::ANON_HUGE_KIB;
use crate::measure::sampler::interleave;
use crate::metric::key::{N, THP, VARIANT, WORKERS};
use crate::sys::{self, forkwork::F64Buf, Thp};
use serde::{Deserialize, Serialize};

/// The seed's whole program, as `time` saw it.
pub const WHOLE_NS: MetricSpec = MetricSpec::new(
    "whole_ns",
    Unit::Ns,
    Better::Lower,
    Kind::Other,
    "the seed's whole program: map a fresh array, fill it, average it by one variant, unmap it",
);
pub const FILL_NS: MetricSpec = MetricSpec::new(
    "fill_ns",
    Unit::Ns,
    Better::Lower,
    Kind::Creation,
    "mapping and filling a fresh array: mostly the kernel handing out its pages",
);
pub const FIRST_FILL_NS: MetricSpec = MetricSpec::new(
    "first_fill_ns",
    Unit::Ns,
    Better::Lower,
    Kind::Creation,
    "a worker's first map and fill, its first touch of fresh memory, kept apart from the rest",
);
pub const UNMAP_NS: MetricSpec = MetricSpec::new(
    "unmap_ns",
    Unit::Ns,
    Better::Lower,
    Kind::Creation,
    "unmapping the array, as an exiting process would",
);
pub const SAVED_NS: MetricSpec = MetricSpec::new(
    "saved_ns",
    Unit::Ns,
    Better::Higher,
    Kind::Other,
    "the serial program's median less a parallel variant's whole program",
)
.signed();

/// Which part of the program a series times.
pub const PHASE: LabelKey = "phase";
const FIRST_MAP_FILL: &str = "first map+fill";
const MAP_FILL: &str = "map+fill";
const AVERAGE: &str = "average";
const UNMAP: &str = "unmap";

/// The seed's labels: 55,256,000 doubles, huge pages as the system sets them.
const SEED_SERIAL: &[(&str, &str)] = &[
    (VARIANT, Variant::Serial.choice().name),
    (N, "55256000"),
    (THP, thp_choice(Thp::Default).name),
];
const SEED_FORK_2: &[(&str, &str)] = &[
    (VARIANT, Variant::Fork.choice().name),
    (WORKERS, "2"),
    (N, "55256000"),
    (THP, thp_choice(Thp::Default).name),
];

pub static EXPERIMENT: Experiment = Experiment {
    name: "parallel.program",
    metrics: &[
        &WHOLE_NS,
        &FILL_NS,
        &FIRST_FILL_NS,
        &AVERAGE_NS,
        &UNMAP_NS,
        &SAVED_NS,
        &SPEEDUP,
        &ANON_HUGE_KIB,
        &CPUS,
        &CPU_QUOTA,
        &OTHERS_CPUS,
    ],
    summary: "the seed's whole program (fresh array, fill, average, unmap), serial vs forked vs threads, with Amdahl's bound from the serial fill",
    reproduces: "Linux Fu: `time stress` 458 ms vs `time stress F` 395 ms; about 150 ms saved at 155,256,000",
    params: &[N_PARAM.spec, WORKERS_PARAM.spec, REPS_PARAM.spec, THP_PARAM.spec],
    seeds: &[
        SeedFigure::of(
            &WHOLE_NS,
            (458e6, 458e6),
            SeedStat::Mean,
            SEED_FORK,
            SEED_FORK_HW,
            "time(1) of the whole C program, average of a few runs",
        )
        .labels(SEED_SERIAL),
        SeedFigure::of(
            &WHOLE_NS,
            (395e6, 395e6),
            SeedStat::Mean,
            SEED_FORK,
            SEED_FORK_HW,
            "time(1), one fork, parent and child each average half (no result sent back)",
        )
        .labels(SEED_FORK_2),
        SeedFigure::of(
            &SPEEDUP,
            (458.0 / 395.0, 458.0 / 395.0),
            SeedStat::Mean,
            SEED_FORK,
            SEED_FORK_HW,
            "458 ms / 395 ms, whole program",
        )
        .labels(SEED_FORK_2)
        .unlike(SPEEDUP_UNLIKE),
        SeedFigure::of(
            &SAVED_NS,
            (63e6, 63e6),
            SeedStat::Mean,
            SEED_FORK,
            SEED_FORK_HW,
            "458 - 395 ms (\"60 or so milliseconds\")",
        )
        .labels(SEED_FORK_2),
        SeedFigure::of(
            &SAVED_NS,
            (150e6, 150e6),
            SeedStat::Mean,
            SEED_FORK,
            SEED_FORK_HW,
            "\"a savings of around 150 milliseconds\" at 155,256,000",
        )
        .labels(&[
            (VARIANT, Variant::Fork.choice().name),
            (WORKERS, "2"),
            (N, "155256000"),
            (THP, thp_choice(Thp::Default).name),
        ]),
    ],
    points,
    measure,
    analyze,
    headlines,
    attributed: true,
    starts_processes: true,
    memory_work: true,
    ..Experiment::DEFAULT
};

/// Why the seed's speedup is not set against ours: his is one ratio of
/// two means, ours a ratio per round; the mean of ratios is not the ratio
/// of means (run 1 of /tmp/s18: 1.10x against 562 / 550 ms = 1.02x). The
/// two whole_ns rows compare mean with mean.
const SPEEDUP_UNLIKE: &str = "the seed's is one ratio of two means (458 / 395 ms), ours a ratio per round, whose mean is not the ratio of the means: the whole_ns rows above compare mean with mean";

pub const WORKERS_PARAM: Param<Vec<u64>> = Param::numbers(ParamSpec {
        name: "workers",
        help: "workers for the parallel variants, each 1 to 4×CPUs; 0 (alone), the default, means 2, as in the seed, or the CPU count when larger",
        kind: ParamKind::CountList { min: 0, max: MAX_WORKERS },
        quick: "0",
        thorough: "0",
    });

pub const REPS_PARAM: Param<u64> = Param::number(ParamSpec {
    name: "reps",
    help: "repetitions of the whole program per variant per round",
    kind: ParamKind::Count { min: 1, max: 1000 },
    quick: "1",
    thorough: "2",
});

pub const THP_PARAM: Param<Vec<String>> = Param::names(ParamSpec {
        name: "thp",
        help: "huge-page settings to run the program with: default leaves it to the system, as for the seed's static array; on asks for huge pages (madvise)",
        kind: ParamKind::Names(THP_SETTINGS),
        quick: "default,on",
        thorough: "default,on",
    });

/// One parallel.program job: the whole program on `n` doubles, forked and
/// threaded by each of `workers`, with the huge-page setting `thp` names.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProgramPoint {
    pub n: u64,
    pub workers: Vec<usize>,
    pub thp: String,
}

fn points(ctx: &PlanCtx) -> Result<Points, String> {
    let mut pts = Points::default();
    let sizes = fitting_sizes(ctx, &N_PARAM, &mut pts.notes)?;
    let mut workers = worker_counts(ctx, &WORKERS_PARAM)?;
    if !workers_chosen(ctx, &WORKERS_PARAM) {
        // The seed's 2, and the CPU count when it is more.
        workers = vec![2];
        if cpus(ctx.env) > 2 {
            workers.push(cpus(ctx.env));
        }
    }
    for n in sizes {
        for thp in ctx.params.get(&THP_PARAM) {
            let workers = workers.clone();
            pts.push(&ProgramPoint { n, workers, thp });
        }
    }
    Ok(pts)
}

fn measure(job: &Job) -> anyhow::Result<WorkerOutput> {
    let ProgramPoint {
        n,
        workers,
        thp: thp_label,
    } = job.point()?;
    let reps = job.params.get(&REPS_PARAM) as usize;
    let thp = thp_of(&thp_label);
    let nl = n.to_string();
    let mut out = WorkerOutput::default();
    notes_for_cpus(&mut out, &workers);
    let pools = Pools::new(&workers)?;
    let mut cases: Vec<(Variant, usize)> = vec![(Variant::Serial, 1)];
    for &w in &workers {
        cases.push((Variant::Fork, w));
        cases.push((Variant::Threads, w));
    }
    let reference = exact_average(n);
    let watch = Contention::start();
    // The worker's first map+fill is its first touch of fresh memory (on
    // huge pages, the kernel zeroing 2 MiB pages the host may have to fault
    // in first: 0.5-1 s against a steady 73 ms, in one run). It is no variant's:
    // one map+fill+unmap comes before the measured ones and is reported apart.
    // Charged to whichever variant ran first (the serial one, always), it
    // made the serial program 10x slower and the speedup 6-12x on 2 CPUs.
    let t0 = sys::monotonic_ns();
    let mut warm = F64Buf::new(n as usize, thp)?;
    fill(warm.as_mut_slice());
    let first_fill_ns = (sys::monotonic_ns() - t0) as f64;
    // How much of the array the kernel put on huge pages: whether it found
    // them is a condition of the figures (compare checks it).
    let huge_kib = sys::procfs::smaps_rollup_kib("AnonHugePages");
    drop(warm);
    // Per case and rep, (fill, average, unmap, whole) in ns; the cases in a
    // fresh random order each rep, so none is always first.
    let per_case = interleave(
        &cases,
        reps,
        job.seed,
        |&(v, w)| -> anyhow::Result<[f64; 4]> {
            // `run --why`: the whole program timed is its series' window.
            let _why = crate::measure::why::Scope::enter(&labels(&[
                (VARIANT, v.name()),
                (WORKERS, &w.to_string()),
                (N, &nl),
                (THP, &thp_label),
            ]));
            let window = crate::measure::why::Window::open();
            // The seed's program: a fresh array faulted in by the fill, the
            // average, and the unmap an exiting process would do.
            let t0 = sys::monotonic_ns();
            let mut buf = F64Buf::new(n as usize, thp)?;
            fill(buf.as_mut_slice());
            let t1 = sys::monotonic_ns();
            let s = sum_by(buf.as_slice(), v, w, &pools)?;
            let t2 = sys::monotonic_ns();
            drop(buf);
            let t3 = sys::monotonic_ns();
            drop(window);
            let mut worst = 0.0;
            check_against_serial(
                &format!("{} with {w} workers (whole program)", v.name()),
                s / n as f64,
                reference,
                n,
                &mut worst,
            )?;
            let d = |a: u64, b: u64| (b - a) as f64;
            Ok([d(t0, t1), d(t1, t2), d(t2, t3), d(t0, t3)])
        },
    )?;
    let fills_ns: Vec<f64> = per_case.iter().flat_map(|r| column(r, 0)).collect();
    let unmaps_ns: Vec<f64> = per_case.iter().flat_map(|r| column(r, 2)).collect();
    out.push_detail(
        &FIRST_FILL_NS,
        labels(&[(N, &nl), (THP, &thp_label), (PHASE, FIRST_MAP_FILL)]),
        vec![first_fill_ns],
    );
    out.push(
        &FILL_NS,
        labels(&[(N, &nl), (THP, &thp_label), (PHASE, MAP_FILL)]),
        fills_ns,
    );
    out.push_detail(
        &UNMAP_NS,
        labels(&[(N, &nl), (THP, &thp_label), (PHASE, UNMAP)]),
        unmaps_ns,
    );
    let serial_whole_ns = column(&per_case[0], 3);
    let serial_median_ns = crate::stats::median(&serial_whole_ns).unwrap_or(0.0);
    for ((v, w), reps) in cases.iter().zip(&per_case) {
        let whole = column(reps, 3);
        let ws = w.to_string();
        let l = labels(&[
            (VARIANT, v.name()),
            (WORKERS, &ws),
            (N, &nl),
            (THP, &thp_label),
        ]);
        out.push(&WHOLE_NS, l.clone(), whole.clone());
        let mut pl = l.clone();
        pl.insert(PHASE.into(), AVERAGE.into());
        out.push_detail(&AVERAGE_NS, pl, column(reps, 1));
        if *v != Variant::Serial {
            out.push(&SPEEDUP, l.clone(), speedups(&serial_whole_ns, &whole));
            out.push(
                &SAVED_NS,
                l,
                whole.iter().map(|x| serial_median_ns - x).collect(),
            );
        }
    }
    reading_cpus(&mut out);
    if let Some(kib) = huge_kib {
        out.reading(
            &ANON_HUGE_KIB,
            labels(&[(N, &nl), (THP, &thp_label)]),
            kib as f64,
        );
    }
    watch.finish(&mut out, labels(&[(N, &nl), (THP, &thp_label)]));
    Ok(out)
}

fn analyze(r: &ExperimentResult) -> Analysis {
    Analysis {
        findings: findings(r),
        headlines: whole_program_headline(r).into_iter().collect(),
        notes: first_fills(r)
            .into_iter()
            .chain(super::contention_notes(r, "the program"))
            .collect(),
        ..Analysis::default()
    }
}

/// A worker's first map+fill against its later ones: how the method keeps
/// the first touch of fresh memory apart (a note).
fn first_fills(r: &ExperimentResult) -> Vec<String> {
    let mut out = Vec::new();
    for first in r.metrics_named(&FIRST_FILL_NS) {
        let (nl, thp) = (
            first.label(N).unwrap_or("?"),
            first.label(THP).unwrap_or("?"),
        );
        let with = [(N, nl), (THP, thp), (PHASE, MAP_FILL)];
        if let Some(rest) = r.settled(&FILL_NS, &with) {
            out.push(format!(
                "n={nl}, thp={thp}: a worker's first map+fill, its first touch of fresh memory, is reported apart from the median of the later ones: {}",
                compare("the first", &first.summary, "the later fills", rest, Unit::Ns)
            ));
        }
    }
    out
}

/// The Summary's figures, picked by labels: the whole program's speedup of
/// 2 forked processes at the largest array, for each THP setting measured
/// (in order of the setting), and that array's length.
fn picks(r: &ExperimentResult) -> Option<(u64, Vec<&Metric>)> {
    let all = || r.metrics.iter().filter(|m| m.name == SPEEDUP.name);
    let n = all().filter_map(|m| m.label_num(N)).max()?;
    let nl = n.to_string();
    let mut cases: Vec<&Metric> = all()
        .filter(|m| {
            m.label(VARIANT) == Some(Variant::Fork.name())
                && m.label(WORKERS) == Some("2")
                && m.label(N) == Some(nl.as_str())
        })
        .collect();
    cases.sort_by_key(|m| m.label(THP).map(String::from));
    Some((n, cases))
}

/// The Summary's quantities: [`picks`] in words.
fn headlines(r: &ExperimentResult) -> Vec<Headline> {
    let (_, cases) = picks(r).unwrap_or_default();
    cases
        .into_iter()
        .map(|m| {
            let thp = m.label(THP).unwrap_or("?");
            Headline::of(
                format!("the whole program, fork × 2, thp={thp}"),
                &SPEEDUP,
                m,
            )
        })
        .collect()
}

/// The Summary's sentence beside parallel.average's phase figure: the
/// seed's whole program, forked across 2 workers against serial, on each
/// page size measured (the largest array). Every page size is quoted,
/// flagged or imprecise ones with their mark, and one the rounds cannot
/// bound with the words that say so (never its interval as a result).
fn whole_program_headline(r: &ExperimentResult) -> Option<String> {
    let (n, cases) = picks(r)?;
    if cases.is_empty() {
        return None;
    }
    let parts: Vec<String> = cases
        .iter()
        .map(|m| {
            format!(
                "{} with thp={}",
                speedup_quoted(&m.summary),
                m.label(THP).unwrap_or("?")
            )
        })
        .collect();
    Some(format!(
        "the seed's whole program (map, fill, average, unmap of {} doubles), 2 forked processes against serial: {}; the fill stays serial",
        group_digits(n as i64),
        parts.join(", ")
    ))
}

fn findings(r: &ExperimentResult) -> Vec<String> {
    let mut out = Vec::new();
    let cpus = r.reading(&CPUS, &[]).unwrap_or(2.0).max(1.0);
    let mut cases: Vec<(String, String)> = Vec::new();
    // Every case measured, settled or not (issue 39 item 9).
    for m in r.metrics.iter().filter(|m| m.name == WHOLE_NS.name) {
        let key = (
            m.label(N).unwrap_or("").to_string(),
            m.label(THP)
                .unwrap_or(thp_choice(Thp::Default).name)
                .to_string(),
        );
        if !cases.contains(&key) {
            cases.push(key);
        }
    }
    for (nl, thp) in &cases {
        let (n, t) = (nl.as_str(), thp.as_str());
        let (Some(whole), Some(fill), Some(average)) = (
            r.find(
                &WHOLE_NS,
                &[(VARIANT, Variant::Serial.name()), (N, n), (THP, t)],
            ),
            r.find(&FILL_NS, &[(N, n), (THP, t)]),
            r.find(
                &AVERAGE_NS,
                &[
                    (VARIANT, Variant::Serial.name()),
                    (N, n),
                    (THP, t),
                    (PHASE, AVERAGE),
                ],
            ),
        ) else {
            continue;
        };
        let speedups: Vec<&Metric> = r
            .metrics
            .iter()
            .filter(|m| m.name == SPEEDUP.name)
            .filter(|m| m.label(N) == Some(n) && m.label(THP) == Some(t))
            .collect();
        out.push(amdahl_sentence(
            n,
            t,
            cpus,
            (&whole.summary, &fill.summary, &average.summary),
            &speedups,
        ));
    }
    for (nl, _) in cases
        .iter()
        .filter(|(_, t)| t == thp_choice(Thp::Default).name)
    {
        let n = nl.as_str();
        // One subject in every run that measured both page sizes (issue 39
        // item 9): the saving stated only when the fills' interval of the
        // difference excludes none and neither is flagged.
        let fill_at = |thp: Thp| {
            r.find(&FILL_NS, &[(N, n), (THP, thp_choice(thp).name)])
                .map(|m| &m.summary)
        };
        if let (Some(default), Some(huge)) = (fill_at(Thp::Default), fill_at(Thp::On)) {
            let pages = n.parse::<f64>().unwrap_or(0.0) * 8.0 / 4096.0;
            let saved = !default.unstable
                && !huge.unstable
                && order(default, huge) == Order::Above
                && pages > 0.0;
            if saved {
                out.push(format!(
                    "n={n}: the fill on huge pages against 4 KiB pages: it takes {} instead of {}, about {} saved per \
                     4 KiB page fault avoided: most of the fill is the kernel handing out memory, not the formula",
                    fmt_ns(huge.median),
                    fmt_ns(default.median),
                    fmt_ns((default.median - huge.median) / pages)
                ));
            } else {
                out.push(format!(
                    "n={n}: the fill on huge pages against 4 KiB pages: {}",
                    compare_shown("on huge pages", huge, "on 4 KiB pages", default, Unit::Ns)
                ));
            }
        }
    }
    out.extend(seed_verdict(r));
    out
}

/// The serial fraction `1 - average / whole`, not clamped: outside 0–1
/// it is a fraction no program has, and Amdahl's law bounds nothing there.
fn serial_fraction(whole_ns: f64, average_ns: f64) -> f64 {
    (whole_ns - average_ns) / whole_ns
}

/// One end of Amdahl's bound: the speedup at a serial fraction `s`, or
/// None where `s` lies outside 0–1 (no bound at that end; never held at
/// 0% or 100%, issue 39).
fn amdahl_end(s: f64, cpus: f64) -> Option<f64> {
    ((0.0..=1.0).contains(&s)).then(|| crate::stats::amdahl_speedup(s, cpus))
}

/// "1.22x", or "no bound" for an end the serial fraction's interval
/// leaves undetermined.
fn end_text(b: Option<f64>) -> String {
    b.map_or("no bound".to_string(), |b| format!("{b:.2}x"))
}

/// The Amdahl sentence of one array size and page size. The serial whole,
/// the fill and the average are medians of separate series: they are
/// called parts "of which" the whole consists only when their sum lies
/// between the whole's interval's low end and its median (the whole also
/// unmaps), else "measured apart". The serial fraction comes with the
/// interval its parts' interval ends give, never clamped: an end past 0%
/// or 100% leaves the bound unbounded at that end, and a fraction whose
/// median lies outside 0–100% gives no bound at all. The bound is called
/// "at most" only when no measured speedup's median exceeds it; one that
/// does is said to reach past it, within noise or beyond the bound's
/// interval, and only a speedup that settled and bounds something is
/// concluded from. Where the whole, the fill or the average is flagged
/// the three are quoted with their marks and the bound is not given
/// (issue 39).
fn amdahl_sentence(
    n: &str,
    t: &str,
    cpus: f64,
    (whole, fill, average): (&Summary, &Summary, &Summary),
    speedups: &[&Metric],
) -> String {
    let (whole_ns, fill_ns, average_ns) = (whole.median, fill.median, average.median);
    let s = serial_fraction(whole_ns, average_ns);
    // A larger average or a smaller whole leaves less serial: the ends.
    let (s_lo, s_hi) = (
        serial_fraction(whole.ci95_lo, average.ci95_hi),
        serial_fraction(whole.ci95_hi, average.ci95_lo),
    );
    let parts_sum = fill_ns + average_ns;
    let size = fmt_size(n.parse::<u64>().unwrap_or(0) * 8);
    let parts = if parts_sum >= whole.ci95_lo && parts_sum <= whole_ns {
        format!(
            ", of which mapping and filling {size} takes {} and the average only {}",
            fmt_ns(fill_ns),
            fmt_ns(average_ns)
        )
    } else {
        format!(
            "; measured apart, mapping and filling {size} takes {} and the average {} \
             (medians of their own series, together {})",
            fmt_ns(fill_ns),
            fmt_ns(average_ns),
            fmt_ns(parts_sum)
        )
    };
    // Every speedup measured, each quoted with its mark; a conclusion only
    // from those that settled and bound something.
    let measured: Vec<String> = speedups
        .iter()
        .map(|m| format!("{} {}", speedup_name(m), quoted(&m.summary, Unit::Ratio)))
        .collect();
    if [whole, fill, average].iter().any(|s| s.unstable) {
        return format!(
            "n={n}, thp={t}: the whole program takes {} serially; measured apart, mapping and filling {size} takes {} \
             and the average {}: Amdahl's bound not given (a figure did not settle); measured: {}",
            quoted(whole, Unit::Ns),
            quoted(fill, Unit::Ns),
            quoted(average, Unit::Ns),
            measured.join(", ")
        );
    }
    let fraction = format!(
        "the serial fraction (the whole less the average, over the whole) is {:.0}% [{:.0}%, {:.0}%]",
        s * 100.0,
        s_lo * 100.0,
        s_hi * 100.0
    );
    let Some(best) = amdahl_end(s, cpus) else {
        return format!(
            "n={n}, thp={t}: the whole program takes {} serially{parts}: {fraction}, outside 0–100% by the medians \
             (the average alone takes no less than the whole), so Amdahl's law gives no bound here; measured: {}",
            fmt_ns(whole_ns),
            measured.join(", ")
        );
    };
    // The bound's ends from the fraction's: the most serial end gives the
    // low one. Past 0% or 100% an end is unbounded, never held there.
    let (lo, hi) = (amdahl_end(s_hi, cpus), amdahl_end(s_lo, cpus));
    let past_any = speedups.iter().any(|m| m.summary.median > best);
    let past: Vec<&&Metric> = speedups
        .iter()
        .filter(|m| !m.summary.unstable && summary_bounds(&m.summary, Unit::Ratio))
        .filter(|m| m.summary.median > best)
        .collect();
    let (verb, after) = if !past_any {
        // With no upper end to its interval the bound holds only by the
        // medians, and says so.
        let verb = if hi.is_some() {
            "at most"
        } else {
            "at most, by the medians,"
        };
        (verb.to_string(), String::new())
    } else if past.is_empty() {
        (
            "about".to_string(),
            "; a speedup whose rounds did not settle or bound nothing reaches past the bound's point estimate, \
             so nothing is concluded from it"
                .to_string(),
        )
    } else {
        // Only the speedups that do reach past it are named: "the measured
        // speedups" of a sentence where one of two stays below would be
        // false of the other.
        let beyond: Vec<&&Metric> = past
            .iter()
            .copied()
            .filter(|m| hi.is_some_and(|hi| m.summary.ci95_lo > hi))
            .collect();
        if beyond.is_empty() {
            let (who, verb) = named_speedups(&past);
            (
                "about".to_string(),
                format!("; {who} {verb} past the bound's point estimate, within noise (inside its interval)"),
            )
        } else {
            let (who, verb) = named_speedups(&beyond);
            (
                "about".to_string(),
                format!(
                    "; {who} {verb} past the bound, beyond its interval: the program is less serial than \
                     the parts measured apart make it"
                ),
            )
        }
    };
    let open: Vec<&str> = [(s_lo < 0.0, "below 0%"), (s_hi > 1.0, "above 100%")]
        .iter()
        .filter(|x| x.0)
        .map(|x| x.1)
        .collect();
    let unbounded = match open.len() {
        0 => String::new(),
        k => format!(
            "; the serial fraction's interval reaches {}, where Amdahl's law gives no bound, so the bound's interval has none at {}",
            open.join(" and "),
            if k == 1 { "that end" } else { "either end" }
        ),
    };
    let limit = if s > 0.0 {
        format!("by the medians, no number of CPUs beyond {:.2}x", 1.0 / s)
    } else {
        "by the medians, a serial fraction of 0%: no limit however many CPUs".to_string()
    };
    format!(
        "n={n}, thp={t}: the whole program takes {} serially{parts}: \
         {fraction}, so by Amdahl's law {cpus:.0} CPUs can speed the program up {verb} {best:.2}x \
         [{}, {}] ({limit}) unless the fill is parallelised too{unbounded}; measured: {}{after}",
        fmt_ns(whole_ns),
        end_text(lo),
        end_text(hi),
        measured.join(", ")
    )
}

/// "fork with 2 workers": how a speedup series is named in a sentence.
fn speedup_name(m: &Metric) -> String {
    format!(
        "{} with {} workers",
        m.label(VARIANT).unwrap_or("?"),
        m.label(WORKERS).unwrap_or("?")
    )
}

/// "fork with 2 workers reaches" or "fork with 2 workers and threads
/// with 2 workers reach": the speedups a sentence is about, by name.
fn named_speedups(ms: &[&&Metric]) -> (String, &'static str) {
    let names: Vec<String> = ms.iter().map(|m| speedup_name(m)).collect();
    let verb = if names.len() == 1 { "reaches" } else { "reach" };
    (names.join(" and "), verb)
}

/// The seed's program at the seed's array, 2 forked processes against
/// serial: one subject in every run, the speedup quoted with its mark,
/// whichever way its interval falls (issue 39 item 9); missing only when
/// the run did not measure that point.
fn seed_verdict(r: &ExperimentResult) -> Option<String> {
    let n = SEED_N.to_string();
    let at = |thp: Thp| {
        r.metrics
            .iter()
            .find(|m| {
                m.name == SPEEDUP.name
                    && m.label(VARIANT) == Some(Variant::Fork.name())
                    && m.label(WORKERS) == Some("2")
                    && m.label(N) == Some(n.as_str())
                    && m.label(THP) == Some(thp_choice(thp).name)
            })
            .map(|m| &m.summary)
    };
    let sp = at(Thp::Default)?;
    let on = at(Thp::On)
        .map(|x| format!("; with the array on huge pages it {}", gain(x)))
        .unwrap_or_default();
    Some(format!(
        "{} gained 1.16x (458 → 395 ms) with one fork; here the same program {}{on}. \
         A fork pays off only when the average is long beside the fill and the fork is cheap (the seed's loop, \
         built without -O, was likely much slower than ours): on 4 KiB pages the fork copies and later frees the page tables of the whole array, \
         and the child's first pass over inherited pages can be slower than a second (parallel.forktime measures whether it is here)",
        cite_short(SEED_FORK),
        gain(sp)
    ))
}

/// What a speedup says, from its interval: a gain, a loss, or neither (a
/// flagged figure tells nothing apart), the figure quoted with its mark.
fn gain(s: &Summary) -> String {
    let f = quoted(s, Unit::Ratio);
    if s.unstable {
        format!("runs at {f}, not told apart from no gain (its rounds did not settle)")
    } else if s.ci95_lo > 1.0 {
        format!("gains {f}")
    } else if s.ci95_hi < 1.0 {
        format!("runs slower, {f}")
    } else {
        format!("runs at {f}, not told apart from no gain")
    }
}

#[cfg(test)]
#[path = "program_tests.rs"]
mod tests;
