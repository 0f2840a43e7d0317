//! parallel.program: seed 003's whole program ("Linux Fu: An Odd Use For
//! Fork()": `time stress` 458 ms vs `time stress F` 395 ms, about 150 ms
//! saved at 155,256,000): a fresh array, its fill, the average and the
//! unmap, serial vs forked vs threads, with Amdahl's bound from the fill.

use super::array::{check_against_serial, exact_average, fill, sum_by, Pools, Variant, SEED_N};
use super::variants::{thp_of, THP_SETTINGS};
use super::{
    column, cpus, fitting_sizes, notes_for_cpus, reading_cpus, speedups, worker_counts, Contention,
    MAX_WORKERS, N_PARAM,
};
use crate::experiments::prelude::*;
use crate::measure::sampler::interleave;
use crate::sys::{self, forkwork::F64Buf};
use serde::{Deserialize, Serialize};

pub static EXPERIMENT: Experiment = Experiment {
    name: "parallel.program",
    better: &[("whole_ns", Better::Lower), ("fill_ns", Better::Lower), ("first_fill_ns", Better::Lower), ("average_ns", Better::Lower), ("unmap_ns", Better::Lower), ("saved_ns", Better::Higher), ("speedup", Better::Higher)],
    summary: "the seed's whole program (fresh array, fill, average, unmap), serial vs forked vs threads, with Amdahl's bound from the serial fill",
    reproduces: "seed 003: `time stress` 458 ms vs `time stress F` 395 ms; about 150 ms saved at 155,256,000",
    params: &[
        N_PARAM,
        ParamSpec {
            name: "workers",
            help: "workers for the parallel variants, each 1 to 4×CPUs; 0, the default, means 2, as in the seed, or the CPU count when larger",
            kind: ParamKind::CountList { min: 0, max: MAX_WORKERS },
            quick: "0",
            thorough: "0",
        },
        ParamSpec {
            name: "reps",
            help: "repetitions of the whole program per variant per round",
            kind: ParamKind::Count { min: 1, max: 1000 },
            quick: "1",
            thorough: "2",
        },
        ParamSpec {
            name: "thp",
            help: "huge-page settings to run the program with: default leaves it to the system, as for the seed's static array; on asks for huge pages (madvise)",
            kind: ParamKind::Names(THP_SETTINGS),
            quick: "default,on",
            thorough: "default,on",
        },
    ],
    seeds: &[
        SeedFigure {
            metric: "whole_ns",
            labels: &[("variant", "serial"), ("n", "55256000"), ("thp", "default")],
            lo: 458e6,
            hi: 458e6,
            unit: Unit::Ns,
            source: SEED_FORK,
            hardware: SEED_FORK_HW,
            method: "time(1) of the whole C program, average of a few runs",
            statistic: SeedStat::Mean,
            cold: false,
        },
        SeedFigure {
            metric: "whole_ns",
            labels: &[
                ("variant", "fork"),
                ("workers", "2"),
                ("n", "55256000"),
                ("thp", "default"),
            ],
            lo: 395e6,
            hi: 395e6,
            unit: Unit::Ns,
            source: SEED_FORK,
            hardware: SEED_FORK_HW,
            method: "time(1), one fork, parent and child each average half (no result sent back)",
            statistic: SeedStat::Mean,
            cold: false,
        },
        SeedFigure {
            metric: "speedup",
            labels: &[
                ("variant", "fork"),
                ("workers", "2"),
                ("n", "55256000"),
                ("thp", "default"),
            ],
            lo: 458.0 / 395.0,
            hi: 458.0 / 395.0,
            unit: Unit::Ratio,
            source: SEED_FORK,
            hardware: SEED_FORK_HW,
            method: "458 ms / 395 ms, whole program",
            statistic: SeedStat::Mean,
            cold: false,
        },
        SeedFigure {
            metric: "saved_ns",
            labels: &[
                ("variant", "fork"),
                ("workers", "2"),
                ("n", "55256000"),
                ("thp", "default"),
            ],
            lo: 63e6,
            hi: 63e6,
            unit: Unit::Ns,
            source: SEED_FORK,
            hardware: SEED_FORK_HW,
            method: "458 - 395 ms (\"60 or so milliseconds\")",
            statistic: SeedStat::Mean,
            cold: false,
        },
        SeedFigure {
            metric: "saved_ns",
            labels: &[
                ("variant", "fork"),
                ("workers", "2"),
                ("n", "155256000"),
                ("thp", "default"),
            ],
            lo: 150e6,
            hi: 150e6,
            unit: Unit::Ns,
            source: SEED_FORK,
            hardware: SEED_FORK_HW,
            method: "\"a savings of around 150 milliseconds\" at 155,256,000",
            statistic: SeedStat::Mean,
            cold: false,
        },
    ],
    points,
    measure,
    analyze,
    ..Experiment::DEFAULT
};

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
    let sizes = fitting_sizes(ctx, "n", &mut pts.notes)?;
    let mut workers = worker_counts(ctx, "workers")?;
    if !ctx.user_set.iter().any(|n| n == "workers") {
        // The seed's 2, and the CPU count when it is more.
        workers = vec![2];
        if cpus(ctx.env) > 2 {
            workers.push(cpus(ctx.env));
        }
    }
    for n in sizes {
        for thp in ctx.params.names("thp") {
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
    let reps = job.params.int("reps") as usize;
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
    out.push_detail_raw(
        "first_fill_ns",
        Unit::Ns,
        labels(&[("n", &nl), ("thp", &thp_label), ("phase", "first map+fill")]),
        vec![first_fill_ns],
    );
    out.push_raw(
        "fill_ns",
        Unit::Ns,
        labels(&[("n", &nl), ("thp", &thp_label), ("phase", "map+fill")]),
        fills_ns,
    );
    out.push_detail_raw(
        "unmap_ns",
        Unit::Ns,
        labels(&[("n", &nl), ("thp", &thp_label), ("phase", "unmap")]),
        unmaps_ns,
    );
    let serial_whole_ns = column(&per_case[0], 3);
    let serial_median_ns = crate::stats::median(&serial_whole_ns).unwrap_or(0.0);
    for ((v, w), reps) in cases.iter().zip(&per_case) {
        let whole = column(reps, 3);
        let ws = w.to_string();
        let l = labels(&[
            ("variant", v.name()),
            ("workers", &ws),
            ("n", &nl),
            ("thp", &thp_label),
        ]);
        out.push_raw("whole_ns", Unit::Ns, l.clone(), whole.clone());
        let mut pl = l.clone();
        pl.insert("phase".into(), "average".into());
        out.push_detail_raw("average_ns", Unit::Ns, pl, column(reps, 1));
        if *v != Variant::Serial {
            out.push_raw(
                "speedup",
                Unit::Ratio,
                l.clone(),
                speedups(&serial_whole_ns, &whole),
            );
            out.push_raw(
                "saved_ns",
                Unit::Ns,
                l,
                whole.iter().map(|x| serial_median_ns - x).collect(),
            );
        }
    }
    reading_cpus(&mut out);
    if let Some(kib) = huge_kib {
        out.reading_raw(
            "anon_huge_kib",
            Unit::Kib,
            labels(&[("n", &nl), ("thp", &thp_label)]),
            kib as f64,
        );
    }
    watch.finish(
        &mut out,
        &format!("n={n} thp={thp_label}"),
        labels(&[("n", &nl), ("thp", &thp_label)]),
    );
    Ok(out)
}

fn analyze(r: &ExperimentResult) -> Analysis {
    Analysis {
        findings: findings(r),
        headlines: whole_program_headline(r).into_iter().collect(),
        notes: first_fills(r),
        ..Analysis::default()
    }
}

/// A worker's first map+fill against its later ones: how the method keeps
/// the first touch of fresh memory apart (a note).
fn first_fills(r: &ExperimentResult) -> Vec<String> {
    let mut out = Vec::new();
    for first in r.metrics_named("first_fill_ns") {
        let (nl, thp) = (
            first.label("n").unwrap_or("?"),
            first.label("thp").unwrap_or("?"),
        );
        let with = [("n", nl), ("thp", thp), ("phase", "map+fill")];
        if let Some(rest) = r.settled("fill_ns", &with) {
            out.push(format!(
                "n={nl}, thp={thp}: a worker's first map+fill, its first touch of fresh memory, is reported apart from the median of the later ones: {}",
                compare("the first", &first.summary, "the later fills", rest, Unit::Ns)
            ));
        }
    }
    out
}

/// The Summary's sentence beside parallel.average's phase figure: the
/// seed's whole program, forked across 2 workers against serial, on each
/// page size measured (the largest array).
fn whole_program_headline(r: &ExperimentResult) -> Option<String> {
    let n = r
        .metrics_named("speedup")
        .filter_map(|m| m.label_num("n"))
        .max()?
        .to_string();
    let mut parts = Vec::new();
    let mut unbounded = Vec::new();
    for m in r.metrics_named("speedup").filter(|m| {
        m.label("variant") == Some(Variant::Fork.name())
            && m.label("workers") == Some("2")
            && m.label("n") == Some(n.as_str())
    }) {
        let thp = format!("thp={}", m.label("thp").unwrap_or("?"));
        // A figure the rounds cannot bound stays out of the Summary.
        if bounds_nothing(&m.summary, Unit::Ratio) {
            unbounded.push(thp);
        } else {
            parts.push(format!("{} with {thp}", figure(&m.summary, Unit::Ratio)));
        }
    }
    if parts.is_empty() {
        return None;
    }
    if !unbounded.is_empty() {
        parts.push(format!(
            "with {} its rounds disagree too much to bound a figure",
            unbounded.join(" and ")
        ));
    }
    Some(format!(
        "the seed's whole program (map, fill, average, unmap of {} doubles), 2 forked processes against serial: {}; the fill stays serial",
        group_digits(n.parse::<i64>().unwrap_or(0)),
        parts.join(", ")
    ))
}

fn findings(r: &ExperimentResult) -> Vec<String> {
    let mut out = Vec::new();
    let cpus = r.reading("cpus", &[]).unwrap_or(2.0).max(1.0);
    let mut cases: Vec<(String, String)> = Vec::new();
    for m in r.metrics_named("whole_ns") {
        let key = (
            m.label("n").unwrap_or("").to_string(),
            m.label("thp").unwrap_or("default").to_string(),
        );
        if !cases.contains(&key) {
            cases.push(key);
        }
    }
    let mut fork_at: Vec<(String, Summary)> = Vec::new();
    for (nl, thp) in &cases {
        let (n, t) = (nl.as_str(), thp.as_str());
        let (Some(whole_ns), Some(fill_ns), Some(average_ns)) = (
            r.median(
                "whole_ns",
                &[("variant", Variant::Serial.name()), ("n", n), ("thp", t)],
            ),
            r.median("fill_ns", &[("n", n), ("thp", t)]),
            r.median(
                "average_ns",
                &[
                    ("variant", Variant::Serial.name()),
                    ("n", n),
                    ("thp", t),
                    ("phase", "average"),
                ],
            ),
        ) else {
            continue;
        };
        // Everything but the average is serial in the seed's program.
        let s = ((whole_ns - average_ns) / whole_ns).clamp(0.0, 1.0);
        let best = crate::stats::amdahl_speedup(s, cpus);
        let mut measured = Vec::new();
        for m in r
            .metrics_named("speedup")
            .filter(|m| m.label("n") == Some(n) && m.label("thp") == Some(t))
        {
            let v = m.label("variant").unwrap_or("?");
            measured.push(format!(
                "{v} with {} workers {:.2}x",
                m.label("workers").unwrap_or("?"),
                m.summary.median
            ));
            if v == Variant::Fork.name() && m.label("workers") == Some("2") {
                fork_at.push((format!("n={n} thp={t}"), m.summary.clone()));
            }
        }
        out.push(format!(
            "n={n}, thp={t}: the whole program takes {} serially, of which mapping and filling {} takes {} and the average only {}: \
             the serial fraction is {:.0}%, so by Amdahl's law {cpus:.0} CPUs can speed the program up at most {best:.2}x \
             (no number of CPUs beyond {:.2}x) unless the fill is parallelised too; measured: {}",
            fmt_ns(whole_ns),
            fmt_size(n.parse::<u64>().unwrap_or(0) * 8),
            fmt_ns(fill_ns),
            fmt_ns(average_ns),
            s * 100.0,
            1.0 / s.max(1e-9),
            measured.join(", ")
        ));
    }
    for (nl, _) in cases.iter().filter(|(_, t)| t == "default") {
        let n = nl.as_str();
        if let (Some(default_ns), Some(huge_ns)) = (
            r.median("fill_ns", &[("n", n), ("thp", "default")]),
            r.median("fill_ns", &[("n", n), ("thp", "on")]),
        ) {
            let pages = n.parse::<f64>().unwrap_or(0.0) * 8.0 / 4096.0;
            if default_ns > huge_ns && pages > 0.0 {
                out.push(format!(
                    "n={n}: most of the fill is the kernel handing out memory, not the formula: on huge pages it takes {} \
                     instead of {}, about {} saved per 4 KiB page fault avoided",
                    fmt_ns(huge_ns),
                    fmt_ns(default_ns),
                    fmt_ns((default_ns - huge_ns) / pages)
                ));
            }
        }
    }
    if let Some((_, sp)) = fork_at
        .iter()
        .find(|(k, _)| k == &format!("n={SEED_N} thp=default"))
    {
        let on = fork_at
            .iter()
            .find(|(k, _)| k == &format!("n={SEED_N} thp=on"))
            .map(|(_, x)| format!("; with the array on huge pages it {}", gain(x)))
            .unwrap_or_default();
        out.push(format!(
            "seed 003 gained 1.16x (458 → 395 ms) with one fork; here the same program {}{on}. \
             A fork pays off only when the average is long beside the fill and the fork is cheap (the seed's loop, \
             built without -O, was likely much slower than ours): on 4 KiB pages the fork copies and later frees the page tables of the whole array, \
             and the child's first pass over inherited pages is slower than a second (see parallel.forktime)",
            gain(sp)
        ));
    }
    out
}

/// What a speedup says, from its interval: a gain, a loss, or neither.
fn gain(s: &Summary) -> String {
    let f = figure(s, Unit::Ratio);
    if s.ci95_lo > 1.0 {
        format!("gains {f}")
    } else if s.ci95_hi < 1.0 {
        format!("runs slower, {f}")
    } else {
        format!("runs at {f}, indistinguishable from no gain")
    }
}

#[cfg(test)]
#[path = "program_tests.rs"]
mod tests;
