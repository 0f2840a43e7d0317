//! parallel.average: seed 003's average phase ("Linux Fu: An Odd Use For
//! Fork()": 55,256,000 doubles averaged serially vs split across forked
//! processes), beside threads and a rayon pool on the same array; speedup,
//! efficiency, the CPU time the scheduler granted, and fork+reap alone.

use super::array::{
    check_against_serial, exact_average, fill, rel_diff, sum_by, tolerance, Pools, Variant,
};
use super::variants::{thp_of, VARIANTS};
use super::{
    column, fitting_sizes, notes_for_cpus, quota_words, reading_cpus, speedup_quoted, speedups,
    worker_counts, Contention, AVERAGE_NS, CPUS, CPU_QUOTA, MAX_WORKERS, N_PARAM, OTHERS_CPUS,
    SPEEDUP, WORKERS_HELP,
};
use crate::experiments::prelude::*;
use crate::measure::rss::{ANON_HUGE_KIB, VM_PTE_KIB};
use crate::measure::sampler::interleave;
use crate::metric::key::{N, VARIANT, WORKERS};
use crate::sys::procfs;
use crate::sys::{self, forkwork as par, forkwork::F64Buf};
use serde::{Deserialize, Serialize};

/// W-1 children forked and reaped, doing nothing: the bare cost of the
/// processes beside the array.
pub const FORK_REAP_NS: MetricSpec = MetricSpec::new(
    "fork_reap_ns",
    Unit::Ns,
    Better::Lower,
    Kind::Creation,
    "forking W-1 children that exit at once and reaping them, beside the array",
);
pub const EFFICIENCY: MetricSpec = MetricSpec::new(
    "efficiency",
    Unit::Ratio,
    Better::Higher,
    Kind::Other,
    "speedup over the W workers: 1 when every worker is fully used",
);
pub const CPUS_GRANTED: MetricSpec = MetricSpec::new(
    "cpus_granted",
    Unit::Ratio,
    Better::Neither,
    Kind::Other,
    "CPU time the variant used over its wall time: the CPUs the scheduler granted it",
);
pub const FILL_ONCE_NS: MetricSpec = MetricSpec::new(
    "fill_once_ns",
    Unit::Ns,
    Better::Neither,
    Kind::Creation,
    "filling the array once before the averages, its pages faulted in",
);
pub const SERIAL_REL_ERROR: MetricSpec = MetricSpec::new(
    "serial_rel_error",
    Unit::Ratio,
    Better::Neither,
    Kind::Other,
    "the serial average's relative difference from the exact average",
)
.signed();
pub const TOLERANCE: MetricSpec = MetricSpec::new(
    "tolerance",
    Unit::Ratio,
    Better::Neither,
    Kind::Other,
    "how far, relative, a variant's average may stray from serial's (sums rounded in another order)",
);
pub const MAX_REL_DIFF_FROM_SERIAL: MetricSpec = MetricSpec::new(
    "max_rel_diff_from_serial",
    Unit::Ratio,
    Better::Neither,
    Kind::Other,
    "the largest relative difference of a variant's average from serial's, over its repetitions",
);
/// The children `fork_reap_ns` forks: W-1.
pub const CHILDREN: LabelKey = "children";

pub static EXPERIMENT: Experiment = Experiment {
    name: "parallel.average",
    metrics: &[
        &AVERAGE_NS,
        &FORK_REAP_NS,
        &SPEEDUP,
        &EFFICIENCY,
        &CPUS_GRANTED,
        &FILL_ONCE_NS,
        &VM_PTE_KIB,
        &ANON_HUGE_KIB,
        &SERIAL_REL_ERROR,
        &TOLERANCE,
        &MAX_REL_DIFF_FROM_SERIAL,
        &CPUS,
        &CPU_QUOTA,
        &OTHERS_CPUS,
    ],
    summary: "the seed's array average, average phase only: serial vs W forked processes (partial sums through pipes), W threads, a rayon pool; speedup, efficiency, fork+reap cost",
    reproduces: "Linux Fu: 55,256,000 doubles averaged serially vs split across forked processes",
    params: &[
        N_PARAM.spec,
        WORKERS_PARAM.spec,
        VARIANTS_PARAM.spec,
        REPS_PARAM.spec,
        THP_PARAM.spec,
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

pub const WORKERS_PARAM: Param<Vec<u64>> = Param::numbers(ParamSpec {
    name: "workers",
    help: WORKERS_HELP,
    kind: ParamKind::CountList {
        min: 0,
        max: MAX_WORKERS,
    },
    quick: "0",
    thorough: "0",
});

pub const VARIANTS_PARAM: Param<Vec<String>> = Param::names(ParamSpec {
    name: "variants",
    help: "parallel variants measured beside serial",
    kind: ParamKind::Names(VARIANTS),
    quick: "all",
    thorough: "all",
});

pub const REPS_PARAM: Param<u64> = Param::number(ParamSpec {
    name: "reps",
    help: "repetitions of every variant per round (each a sample)",
    kind: ParamKind::Count { min: 2, max: 1000 },
    quick: "3",
    thorough: "4",
});

pub const THP_PARAM: Param<String> = Param::choice(ParamSpec {
    name: "thp",
    help:
        "back the array with transparent huge pages (on: fork copies one entry per 2 MiB, not 512)",
    kind: ParamKind::Choice(&["on", "off", "default"]),
    quick: "on",
    thorough: "on",
});

/// One parallel.average job: `n` doubles, averaged by each of `workers`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AveragePoint {
    pub n: u64,
    pub workers: Vec<usize>,
}

fn points(ctx: &PlanCtx) -> Result<Points, String> {
    let mut pts = Points::default();
    let sizes = fitting_sizes(ctx, &N_PARAM, &mut pts.notes)?;
    let workers = worker_counts(ctx, &WORKERS_PARAM)?;
    for n in sizes {
        let workers = workers.clone();
        pts.push(&AveragePoint { n, workers });
    }
    Ok(pts)
}

/// Pushes `speedup` (serial median / each repetition) and `efficiency`.
fn push_speedups(
    out: &mut WorkerOutput,
    base: &Labels,
    serial_ns: &[f64],
    variant_ns: &[f64],
    w: usize,
) {
    let sp = speedups(serial_ns, variant_ns);
    let eff: Vec<f64> = sp.iter().map(|s| s / w as f64).collect();
    out.push(&SPEEDUP, base.clone(), sp);
    out.push_detail(&EFFICIENCY, base.clone(), eff);
}

fn measure(job: &Job) -> anyhow::Result<WorkerOutput> {
    let AveragePoint { n, workers } = job.point()?;
    let reps = job.params.get(&REPS_PARAM) as usize;
    let variants: Vec<Variant> = job
        .params
        .get(&VARIANTS_PARAM)
        .iter()
        .filter_map(|v| Variant::named(v))
        .collect();
    let mut out = WorkerOutput::default();
    notes_for_cpus(&mut out, &workers);
    let nl = n.to_string();

    let mut buf = F64Buf::new(n as usize, thp_of(&job.params.get(&THP_PARAM)))?;
    let t0 = sys::monotonic_ns();
    fill(buf.as_mut_slice());
    let fill_ns = (sys::monotonic_ns() - t0) as f64;
    let xs = buf.as_slice();
    out.reading(&FILL_ONCE_NS, labels(&[(N, &nl)]), fill_ns);
    if let Some(v) = procfs::status_kib("VmPTE") {
        out.reading(&VM_PTE_KIB, labels(&[(N, &nl)]), v as f64);
    }
    if let Some(huge_kib) = procfs::smaps_rollup_kib("AnonHugePages") {
        out.reading(&ANON_HUGE_KIB, labels(&[(N, &nl)]), huge_kib as f64);
        let bytes = n as f64 * 8.0;
        if job.params.get(&THP_PARAM) == "on"
            && bytes >= 8e6
            && (huge_kib as f64) < bytes / 1024.0 / 2.0
        {
            out.notes.push(format!(
                "huge pages were asked for, but the kernel backed only {} of the {} array with them \
                 (THP disabled, or memory too fragmented): fork copies 4 KiB page tables here",
                fmt_size(huge_kib * 1024),
                fmt_size(n * 8)
            ));
        }
    }
    let pools = Pools::new(&workers)?;

    let serial_ref = par::seed_sum(xs) / n as f64;
    let exact = exact_average(n);
    out.reading(
        &SERIAL_REL_ERROR,
        labels(&[(N, &nl)]),
        rel_diff(serial_ref, exact),
    );
    out.reading(&TOLERANCE, labels(&[(N, &nl)]), tolerance(n));

    // The serial average and every (variant, workers), each once a rep, in
    // a fresh random order each rep, so none is always first: (time, CPUs
    // granted, relative difference from the serial reference) per rep.
    let mut items: Vec<(Variant, usize)> = vec![(Variant::Serial, 1)];
    for &v in &variants {
        for &w in &workers {
            items.push((v, w));
        }
    }
    let watch = Contention::start();
    let measured = interleave(
        &items,
        reps,
        job.seed,
        |&(v, w)| -> anyhow::Result<[f64; 3]> {
            // `run --why`: the timed average is its series' window (the
            // forked workers and the pool's threads sampled with it).
            let _why = crate::measure::why::Scope::enter(&labels(&[
                (VARIANT, v.name()),
                (WORKERS, &w.to_string()),
                (N, &nl),
            ]));
            let window = crate::measure::why::Window::open();
            let c0 = par::cpu_ns(par::CpuOf::ProcessAndChildren)?;
            let t0 = sys::monotonic_ns();
            let s = sum_by(xs, v, w, &pools)?;
            let t1 = sys::monotonic_ns();
            let c1 = par::cpu_ns(par::CpuOf::ProcessAndChildren)?;
            drop(window);
            let granted = (c1 - c0) as f64 / (t1 - t0).max(1) as f64;
            let mut worst = 0.0;
            let what = if v == Variant::Serial {
                "serial rerun".to_string()
            } else {
                format!("{} with {w} workers", v.name())
            };
            check_against_serial(&what, s / n as f64, serial_ref, n, &mut worst)?;
            Ok([(t1 - t0) as f64 - job.timer_overhead_ns, granted, worst])
        },
    )?;
    let serial_ns = column(&measured[0], 0);
    let serial_cpus = column(&measured[0], 1);
    // (variant, w, times, worst relative difference), CPUs granted
    let runs: Vec<(Variant, usize, Vec<f64>, f64)> = items[1..]
        .iter()
        .zip(&measured[1..])
        .map(|(&(v, w), reps)| {
            (
                v,
                w,
                column(reps, 0),
                column(reps, 2).into_iter().fold(0.0, f64::max),
            )
        })
        .collect();
    let granted: Vec<Vec<f64>> = measured[1..].iter().map(|reps| column(reps, 1)).collect();
    // The bare cost of the processes: W-1 children that exit at once.
    let mut fork_reap: Vec<(usize, Vec<f64>)> = workers
        .iter()
        .filter(|&&w| w > 1)
        .map(|&w| (w, Vec::new()))
        .collect();
    for _ in 0..reps {
        for (w, times) in fork_reap.iter_mut() {
            let t0 = sys::monotonic_ns();
            let kids: Vec<sys::Child> = (1..*w)
                .map(|_| par::fork_exit())
                .collect::<std::io::Result<_>>()?;
            for k in kids {
                k.wait()?;
            }
            times.push((sys::monotonic_ns() - t0) as f64 - job.timer_overhead_ns);
        }
    }

    let serial_labels = labels(&[(VARIANT, Variant::Serial.name()), (WORKERS, "1"), (N, &nl)]);
    out.push(&AVERAGE_NS, serial_labels.clone(), serial_ns.clone());
    out.push_detail(&CPUS_GRANTED, serial_labels, serial_cpus);
    for ((v, w, times, worst), g) in runs.iter().zip(granted) {
        let ws = w.to_string();
        let l = labels(&[(VARIANT, v.name()), (WORKERS, &ws), (N, &nl)]);
        out.push(&AVERAGE_NS, l.clone(), times.clone());
        out.push_detail(&CPUS_GRANTED, l.clone(), g);
        push_speedups(&mut out, &l, &serial_ns, times, *w);
        out.reading(&MAX_REL_DIFF_FROM_SERIAL, l, *worst);
    }
    for (w, times) in fork_reap {
        let ws = w.to_string();
        out.push(
            &FORK_REAP_NS,
            labels(&[(WORKERS, &ws), (CHILDREN, &(w - 1).to_string()), (N, &nl)]),
            times,
        );
    }
    reading_cpus(&mut out);
    watch.finish(&mut out, labels(&[(N, &nl)]));
    drop(pools);
    drop(buf);
    Ok(out)
}

fn analyze(r: &ExperimentResult) -> Analysis {
    let mut a = findings_and_notes(r);
    a.notes.extend(sum_checks(r));
    a.notes.extend(super::contention_notes(r, "the average"));
    a.headlines.extend(speedup_headline(r));
    a
}

/// What the speedups say (findings), and the CPU time the scheduler granted
/// where a speedup falls short (a condition of the measurement: a note).
fn findings_and_notes(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    let cpus = r.reading(&CPUS, &[]).unwrap_or(0.0);
    // Every size measured, settled or not: fork against threads keeps its
    // subject whatever settled (issue 39 item 9).
    let mut sizes: Vec<String> = r
        .metrics
        .iter()
        .filter(|m| m.name == AVERAGE_NS.name)
        .filter_map(|m| m.label(N).map(String::from))
        .collect();
    sizes.dedup();
    for nl in &sizes {
        let n: u64 = nl.parse().unwrap_or(0);
        let nn = nl.as_str();
        let versus = fork_vs_threads(r, cpus, n, nn);
        let Some(serial) = r
            .find(&AVERAGE_NS, &[(VARIANT, Variant::Serial.name()), (N, nn)])
            .map(|m| &m.summary)
        else {
            a.findings.extend(versus);
            continue;
        };
        let serial_ns = serial.median;
        let med = |spec: &MetricSpec, v: &str, w: &str| {
            r.median(spec, &[(VARIANT, v), (WORKERS, w), (N, nn)])
        };
        // The best speedup per variant, at W <= CPUs, with the CPU time the
        // scheduler granted it.
        let mut parts = Vec::new();
        let mut short = Vec::new();
        for v in names(VARIANTS) {
            // Every variant's speedups, flagged ones included: a variant
            // keeps its place whatever settled (issue 39 item 9).
            let best = r
                .metrics
                .iter()
                .filter(|m| m.name == SPEEDUP.name)
                .filter(|m| m.label(VARIANT) == Some(v) && m.label(N) == Some(nn))
                .filter(|m| {
                    m.label(WORKERS)
                        .and_then(|w| w.parse::<f64>().ok())
                        .is_some_and(|w| cpus == 0.0 || w <= cpus)
                })
                .max_by(|a, b| a.summary.median.total_cmp(&b.summary.median));
            let Some(b) = best else { continue };
            let wl = b.label(WORKERS).unwrap_or("2");
            let w: f64 = wl.parse().unwrap_or(2.0);
            let sp = b.summary.median;
            let granted = med(&CPUS_GRANTED, v, wl);
            let granted_text = granted
                .map(|g| format!(", {g:.2} CPUs granted"))
                .unwrap_or_default();
            // A speedup that did not settle, or one over a serial time that
            // did not, keeps its place, quoted with its mark; no efficiency
            // or serial fraction is drawn from it (issue 39 item 9).
            if b.summary.unstable || serial.unstable {
                parts.push(format!(
                    "{v} {} with {w} workers (unstable: no efficiency drawn{granted_text})",
                    quoted(&b.summary, Unit::Ratio)
                ));
                continue;
            }
            let kf = crate::stats::karp_flatt(sp, w)
                .map(|e| format!(", Karp-Flatt serial fraction {:.1}%", e * 100.0))
                .unwrap_or_default();
            parts.push(format!(
                "{v} {sp:.2}x with {w} workers ({:.0}% efficiency{kf}{granted_text})",
                sp / w * 100.0,
            ));
            if let Some(g) = granted {
                if g < 0.9 * w && sp < 0.9 * w {
                    short.push(format!(
                        "{v} got {g:.2} CPUs' worth of time for {w} workers"
                    ));
                }
            }
        }
        // The serial time quoted whatever its state (issue 39 item 9): a
        // flagged one with its mark, and no rate drawn from it.
        let rate = if serial.unstable {
            "unstable: no rate drawn".to_string()
        } else {
            format!(
                "{:.1} GB/s, {:.2} ns per element",
                n as f64 * 8.0 / serial_ns.max(1.0),
                serial_ns / (n as f64).max(1.0)
            )
        };
        a.findings.push(format!(
            "n={n}: the serial average phase takes {} ({rate}: the seed's loop keeps one \
             accumulator, so each addition waits for the one before, and two CPUs can each run such a chain); \
             best speedups at up to {cpus:.0} workers: {}",
            quoted(serial, Unit::Ns),
            parts.join("; ")
        ));
        if !short.is_empty() {
            a.notes.push(format!(
                "where a speedup falls short, the scheduler is the measured reason: {} (CPU time used over wall time: the workers did not run all the \
                 time; the others_cpus reading gives what other programs used meanwhile)",
                short.join(", ")
            ));
        }
        // Every figure measured, settled or not (issue 39 item 9).
        let any = |spec: &MetricSpec, v: &str, w: &str| {
            r.find(spec, &[(VARIANT, v), (WORKERS, w), (N, nn)])
                .map(|m| &m.summary)
        };
        if cpus >= 1.0 {
            a.findings.extend(oversubscribed(cpus, &any));
        }
        a.findings.extend(versus);
    }
    a
}

/// Fork against threads at W = CPUs for `n` elements (`nn` as labelled),
/// with the measured reason: what creating and reaping the children costs,
/// and its share of the gap. One subject in every run (issue 39 item 9): a
/// figure that did not settle is quoted with its mark and no share drawn
/// from it; a variant not measured is named.
fn fork_vs_threads(r: &ExperimentResult, cpus: f64, n: u64, nn: &str) -> Option<String> {
    let wl = (cpus.max(2.0) as usize).to_string();
    let any = |v: Variant| {
        r.find(
            &AVERAGE_NS,
            &[(VARIANT, v.name()), (WORKERS, wl.as_str()), (N, nn)],
        )
        .map(|m| &m.summary)
    };
    let (fork, threads) = match (any(Variant::Fork), any(Variant::Threads)) {
        (Some(f), Some(t)) => (f, t),
        (None, None) => return None,
        (f, _) => {
            let missing = if f.is_none() { "fork" } else { "threads" };
            return Some(format!(
                "with {wl} workers, fork against threads: not measured ({missing} not in this run's variants)"
            ));
        }
    };
    let mut s = format!(
        "with {wl} workers, {}",
        compare_shown("fork", fork, "threads", threads, Unit::Ns)
    );
    let kids = wl.parse::<usize>().unwrap_or(2) - 1;
    let children = if kids == 1 {
        "the child process".to_string()
    } else {
        format!("the {kids} child processes")
    };
    let what = format!(
        "; creating and reaping {children} alone with this {} array costs",
        fmt_size(n * 8)
    );
    match r.find(&FORK_REAP_NS, &[(WORKERS, wl.as_str()), (N, nn)]) {
        Some(m) if m.summary.unstable || fork.unstable || threads.unstable => {
            s.push_str(&format!(
                "{what} {}; its share of the gap: not quoted, a figure did not settle",
                shown(&m.summary, Unit::Ns)
            ));
        }
        Some(m) => {
            let reap = &m.summary;
            let gap = difference(fork, threads, Unit::Ns);
            s.push_str(&format!(
                "{what} {}",
                share_text(&amount(reap, Unit::Ns), &gap)
            ));
            if matches!(share(&amount(reap, Unit::Ns), &gap), Share::Of(_)) {
                s.push_str(" (parallel.forktime shows the rest)");
            }
        }
        None => s.push_str(&format!(
            "; creating and reaping {children} alone: not measured"
        )),
    }
    Some(s)
}

/// The check that every variant computed the serial average: a fact about
/// the method (a note), once per array size.
fn sum_checks(r: &ExperimentResult) -> Vec<String> {
    let mut out = Vec::new();
    let mut sizes: Vec<&str> = r
        .readings
        .iter()
        .filter(|x| x.name == TOLERANCE.name)
        .filter_map(|x| x.labels.get(N).map(String::as_str))
        .collect();
    sizes.dedup();
    for nn in sizes {
        if let (Some(err), Some(tol)) = (
            r.reading(&SERIAL_REL_ERROR, &[(N, nn)]),
            r.reading(&TOLERANCE, &[(N, nn)]),
        ) {
            let worst = r
                .readings
                .iter()
                .filter(|x| {
                    x.name == MAX_REL_DIFF_FROM_SERIAL.name
                        && x.labels.get(N).map(String::as_str) == Some(nn)
                })
                .map(|x| x.value)
                .fold(0.0, f64::max);
            out.push(format!(
                "every variant's average matched serial: the largest relative difference was {worst:.1e}, within the tolerance {tol:.1e} \
                 (parallel sums add in another order and round differently); the serial sum itself is {err:.1e} from the exact average"
            ));
        }
    }
    out
}

/// The oversubscription finding: W = CPUs + 1 against W = CPUs, each
/// variant decided from its intervals; the story of equal slices only when
/// the numbers bear it out (threads and fork slower, the pool not). Every
/// variant measured at both counts keeps its place whatever settled (issue
/// 39 item 9): a flagged figure is quoted with its mark, not told apart,
/// and no story rests on it.
fn oversubscribed<'a>(
    cpus: f64,
    any: &dyn Fn(&MetricSpec, &str, &str) -> Option<&'a Summary>,
) -> Option<String> {
    let (at, over) = (
        (cpus as usize).max(2).to_string(),
        (cpus as usize + 1).max(3).to_string(),
    );
    let mut bits = Vec::new();
    let mut slower = Vec::new();
    for v in names(VARIANTS) {
        if let (Some(a), Some(o)) = (
            any(&AVERAGE_NS, v, at.as_str()),
            any(&AVERAGE_NS, v, over.as_str()),
        ) {
            bits.push(format!(
                "{v}: {}",
                compare_shown(&format!("{over} workers"), o, &at, a, Unit::Ns)
            ));
            // A pair that did not settle tells no direction: no story.
            let settled = !(a.unstable || o.unstable);
            slower.push((v, settled.then(|| order(o, a) == Order::Above)));
        }
    }
    if bits.is_empty() {
        return None;
    }
    let is = |name: &str| {
        slower
            .iter()
            .find(|(v, _)| *v == name)
            .and_then(|(_, s)| *s)
    };
    let story = match (is(Variant::Threads.name()), is(Variant::Fork.name()), is(Variant::Pool.name())) {
        (Some(true), Some(true), Some(false)) => {
            ". Equal slices on threads or processes finish only when the last one has had its turn; the pool's work stealing rebalances chunks"
        }
        _ => "",
    };
    Some(format!(
        "oversubscribed, {over} workers on {cpus:.0} CPUs instead of {at}: {}{story}",
        bits.join("; ")
    ))
}

/// The pages the array is on, as a headline states them.
fn pages(e: &ExperimentResult) -> &'static str {
    match e.params.get("thp").and_then(|v| v.as_str()) {
        Some("on") => "on transparent huge pages (thp=on)",
        Some("off") => "on 4 KiB pages (thp=off)",
        _ => "with the system's huge-page setting (thp=default)",
    }
}

/// The Summary's figures, picked by labels: each variant's speedup at the
/// most workers the machine's CPUs allowed and the largest array.
struct Picks<'a> {
    cpus: f64,
    workers: u64,
    /// Fork, threads, pool: each where measured.
    of: [(Variant, Option<&'a Metric>); 3],
}

fn picks(e: &ExperimentResult) -> Option<Picks<'_>> {
    let cpus = e.reading(&CPUS, &[]).unwrap_or(1.0);
    let all = || e.metrics.iter().filter(|m| m.name == SPEEDUP.name);
    let workers = all()
        .filter_map(|m| m.label_num(WORKERS))
        .filter(|&w| w as f64 <= cpus)
        .max()?;
    let n = all().filter_map(|m| m.label_num(N)).max()?;
    let (w, nl) = (workers.to_string(), n.to_string());
    let of = |v: Variant| {
        let at = [(VARIANT, v.name()), (WORKERS, w.as_str()), (N, nl.as_str())];
        (v, e.find(&SPEEDUP, &at))
    };
    Some(Picks {
        cpus,
        workers,
        of: [of(Variant::Fork), of(Variant::Threads), of(Variant::Pool)],
    })
}

/// The Summary's quantities: [`Picks`] in words.
fn headlines(e: &ExperimentResult) -> Vec<Headline> {
    let Some(p) = picks(e) else {
        return Vec::new();
    };
    p.of.iter()
        .filter_map(|&(v, m)| {
            let what = format!("speedup, {} × {}", v.name(), p.workers);
            Some(Headline::of(what, &SPEEDUP, m?))
        })
        .collect()
}

/// The Summary's sentence: each variant's speedup of the average phase
/// alone, at one fixed worker count (the most workers within the CPUs
/// there are) and the largest array, with its page size; parallel.program
/// gives the whole program beside it. A flagged or imprecise figure is
/// quoted with its mark, never swapped for another worker count.
fn speedup_headline(e: &ExperimentResult) -> Option<String> {
    let p = picks(e)?;
    let (cpus, workers) = (p.cpus, p.workers);
    let fork = p.of[0].1?;
    let others: Vec<String> = p.of[1..]
        .iter()
        .filter_map(|&(v, m)| Some(format!("{} {}", v.name(), speedup_quoted(&m?.summary))))
        .collect();
    Some(format!(
        "the average phase alone (the array already filled, {}): {workers} forked processes average the seed's array {} as fast as serially on {cpus:.0} CPUs{}{}",
        pages(e),
        speedup_quoted(&fork.summary),
        quota_words(e, cpus),
        if others.is_empty() {
            String::new()
        } else {
            format!(" ({})", others.join(", "))
        }
    ))
}

#[cfg(test)]
#[path = "average_tests.rs"]
mod tests;
