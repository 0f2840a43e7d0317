//! parallel.forktime: seed 003's fork variant ("Linux Fu: An Odd Use For
//! Fork()") taken apart, where the seed timed only the whole program:
//! fork() itself, the child's first vs second pass over its inherited
//! slice, the reap; on 4 KiB pages and on huge pages.

use super::array::{check_against_serial, fill, split};
use super::variants::{thp_choice, thp_of};
use super::{cpus, fitting_sizes, notes_for_cpus, worker_counts, workers_chosen, Contention};
use super::{MAX_WORKERS, OTHERS_CPUS};
use crate::experiments::prelude::*;
use crate::experiments::spawn::engine::{CHILD_START_NS, REAP_NS};
use crate::measure::rss::{
    ANON_HUGE_KIB, RSS_BOUND_KIB, RSS_CROSS_CHECK_KIB, VM_PTE_KIB, VM_RSS_KIB,
};
use crate::metric::key::{N, THP, WORKERS};
use crate::sys::procfs;
use crate::sys::{self, forkwork as par, forkwork::F64Buf, Thp};
use serde::{Deserialize, Serialize};

pub const FORK_CALL_NS: MetricSpec = MetricSpec::new(
    "fork_call_ns",
    Unit::Ns,
    Better::Lower,
    Kind::Creation,
    "one fork() call of the parent holding the array, until it returns",
);
pub const CHILD_PASS_NS: MetricSpec = MetricSpec::new(
    "child_pass_ns",
    Unit::Ns,
    Better::Lower,
    Kind::Other,
    "a forked child's pass over its inherited slice: the first (fresh page-table copies) or the second",
);
pub const PARENT_PASS_NS: MetricSpec = MetricSpec::new(
    "parent_pass_ns",
    Unit::Ns,
    Better::Lower,
    Kind::Other,
    "the parent's pass over its own slice after forking: the first or the second",
);
pub const WAIT_REPORT_NS: MetricSpec = MetricSpec::new(
    "wait_report_ns",
    Unit::Ns,
    Better::Lower,
    Kind::HandOff,
    "the parent waiting for a child's report through the pipe",
);
pub const TOTAL_NS: MetricSpec = MetricSpec::new(
    "total_ns",
    Unit::Ns,
    Better::Lower,
    Kind::Creation,
    "the whole instrumented forked average, the two passes of each process included",
);

/// Which pass over a slice: the first after the fork, or the second.
pub const PASS: LabelKey = "pass";
const FIRST: &str = "first";
const SECOND: &str = "second";

pub static EXPERIMENT: Experiment = Experiment {
    name: "parallel.forktime",
    metrics: &[
        &FORK_CALL_NS,
        &CHILD_START_NS,
        &CHILD_PASS_NS,
        &PARENT_PASS_NS,
        &WAIT_REPORT_NS,
        &REAP_NS,
        &TOTAL_NS,
        &VM_PTE_KIB,
        &VM_RSS_KIB,
        &ANON_HUGE_KIB,
        &RSS_BOUND_KIB,
        &RSS_CROSS_CHECK_KIB,
        &OTHERS_CPUS,
    ],
    summary: "where a forked average's time goes: fork() itself, the child's first vs second pass over its inherited slice, the reap; 4 KiB pages vs huge pages",
    reproduces: "Linux Fu's fork variant, taken apart (the seed timed only the whole program)",
    params: &[N_PARAM.spec, WORKERS_PARAM.spec, REPS_PARAM.spec],
    points,
    measure,
    analyze,
    memory_work: true,
    ..Experiment::DEFAULT
};

/// One array size: the shared `n`, with one size in the thorough profile too.
pub const N_PARAM: Param<Vec<u64>> = Param::numbers(ParamSpec {
    name: "n",
    help: "array size (doubles)",
    thorough: "55256000",
    ..super::N_PARAM.spec
});

pub const WORKERS_PARAM: Param<Vec<u64>> = Param::numbers(ParamSpec {
        name: "workers",
        help: "workers: the parent and W-1 children, W from 2 to 4×CPUs; 0 (alone), the default, means the CPU count, at least 2",
        kind: ParamKind::CountList { min: 0, max: MAX_WORKERS },
        quick: "0",
        thorough: "0",
    });

pub const REPS_PARAM: Param<u64> = Param::number(ParamSpec {
    name: "reps",
    help: "repetitions per page size per round",
    kind: ParamKind::Count { min: 2, max: 1000 },
    quick: "2",
    thorough: "4",
});

/// One parallel.forktime job: `n` doubles split between the parent and
/// its children, `workers` in all (one count), on the pages `thp` names.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ForktimePoint {
    pub n: u64,
    pub workers: [usize; 1],
    pub thp: String,
}

fn points(ctx: &PlanCtx) -> Result<Points, String> {
    let mut pts = Points::default();
    let sizes = fitting_sizes(ctx, &N_PARAM, &mut pts.notes)?;
    let w = if workers_chosen(ctx, &WORKERS_PARAM) {
        *worker_counts(ctx, &WORKERS_PARAM)?
            .iter()
            .max()
            .unwrap_or(&2)
    } else {
        cpus(ctx.env).max(2)
    };
    if w < 2 {
        return Err("workers must be at least 2 here: the parent and one child".into());
    }
    let thp_possible = ctx.env.thp_enabled.as_deref() != Some("never");
    if !thp_possible {
        pts.notes.push(
            "transparent huge pages are disabled here (enabled=never): 4 KiB pages only".into(),
        );
    }
    let (off, on) = (thp_choice(Thp::Off).name, thp_choice(Thp::On).name);
    let point = |n, thp: &str| ForktimePoint {
        n,
        workers: [w],
        thp: thp.into(),
    };
    for n in sizes {
        pts.push(&point(n, off));
        if thp_possible {
            pts.push(&point(n, on));
        }
    }
    Ok(pts)
}

fn measure(job: &Job) -> anyhow::Result<WorkerOutput> {
    let point: ForktimePoint = job.point()?;
    let n = point.n;
    let w = point.workers[0].max(2);
    // Only the two page sizes: anything but "on" is 4 KiB pages.
    let thp = if thp_of(&point.thp) == Thp::On {
        Thp::On
    } else {
        Thp::Off
    };
    let thp_label = thp_choice(thp).name;
    let reps = job.params.get(&REPS_PARAM) as usize;
    let mut out = WorkerOutput::default();
    notes_for_cpus(&mut out, &[w]);
    let mut buf = F64Buf::new(n as usize, thp)?;
    fill(buf.as_mut_slice());
    let xs = buf.as_slice();
    let nl = n.to_string();
    let pl = labels(&[(N, &nl), (THP, thp_label)]);
    for (field, spec) in [("VmPTE", &VM_PTE_KIB), ("VmRSS", &VM_RSS_KIB)] {
        if let Some(v) = procfs::status_kib(field) {
            out.reading(spec, pl.clone(), v as f64);
        }
    }
    // The bound of the VmRSS reading and its cross-check against smaps_rollup.
    crate::measure::rss::record_now(&mut out, &pl);
    if let Some(v) = procfs::smaps_rollup_kib("AnonHugePages") {
        out.reading(&ANON_HUGE_KIB, pl.clone(), v as f64);
    }
    let serial = par::seed_sum(xs);
    let ranges = split(xs.len(), w);
    let tn = job.timer_overhead_ns;
    let mut s: [Vec<f64>; 9] = Default::default();
    let [fork_call, child_start, child_first, child_second, parent_first, parent_second, wait_ns, reap, total] =
        &mut s;
    let watch = Contention::start();
    for _ in 0..reps {
        let t0 = sys::monotonic_ns();
        let mut kids = Vec::new();
        let mut starts = Vec::new();
        for r in &ranges[1..] {
            let a = sys::monotonic_ns();
            kids.push(par::fork_sum(&xs[r.clone()], true)?);
            fork_call.push((sys::monotonic_ns() - a) as f64 - tn);
            starts.push(a);
        }
        let a = sys::monotonic_ns();
        let mut sum = par::seed_sum(&xs[ranges[0].clone()]);
        let b = sys::monotonic_ns();
        std::hint::black_box(par::seed_sum(std::hint::black_box(&xs[ranges[0].clone()])));
        let c = sys::monotonic_ns();
        parent_first.push((b - a) as f64 - tn);
        parent_second.push((c - b) as f64 - tn);
        for (k, start) in kids.into_iter().zip(starts) {
            let before = sys::monotonic_ns();
            let rep = k.read_report()?;
            let got = sys::monotonic_ns();
            k.reap()?;
            let reaped = sys::monotonic_ns();
            sum += rep.sum;
            child_start.push(rep.start_ns.saturating_sub(start) as f64);
            child_first.push(rep.first_pass_ns as f64);
            child_second.push(rep.second_pass_ns as f64);
            wait_ns.push((got - before) as f64 - tn);
            reap.push((reaped - got) as f64 - tn);
        }
        total.push((sys::monotonic_ns() - t0) as f64 - tn);
        let mut worst = 0.0;
        check_against_serial(
            &format!("fork with {w} workers"),
            sum / n as f64,
            serial / n as f64,
            n,
            &mut worst,
        )?;
    }
    let ws = w.to_string();
    let l = |extra: &[(&str, &str)]| {
        let mut v = vec![(N, nl.as_str()), (THP, thp_label), (WORKERS, ws.as_str())];
        v.extend_from_slice(extra);
        labels(&v)
    };
    let [fork_call, child_start, child_first, child_second, parent_first, parent_second, wait_ns, reap, total] =
        s;
    out.push(&FORK_CALL_NS, l(&[]), fork_call);
    out.push_detail(&CHILD_START_NS, l(&[]), child_start);
    out.push(&CHILD_PASS_NS, l(&[(PASS, FIRST)]), child_first);
    out.push(&CHILD_PASS_NS, l(&[(PASS, SECOND)]), child_second);
    out.push(&PARENT_PASS_NS, l(&[(PASS, FIRST)]), parent_first);
    out.push_detail(&PARENT_PASS_NS, l(&[(PASS, SECOND)]), parent_second);
    out.push_detail(&WAIT_REPORT_NS, l(&[]), wait_ns);
    out.push(&REAP_NS, l(&[]), reap);
    out.push(&TOTAL_NS, l(&[]), total);
    watch.finish(&mut out, pl);
    Ok(out)
}

/// The one part whose interval lies above every other's, if any.
fn dominant<'a>(parts: &'a [(&'a str, Difference)]) -> Option<&'a (&'a str, Difference)> {
    parts.iter().find(|(name, d)| {
        parts
            .iter()
            .filter(|(other, _)| other != name)
            .all(|(_, o)| d.lo > o.hi)
    })
}

/// What the overhead is made of, in words, as a sentence of its own: the
/// dominant part when its interval separates from the others', else that
/// none is told apart as the largest (overlapping intervals do not show
/// the parts alike either).
fn made_of(parts: &[(&str, Difference)]) -> String {
    match dominant(parts) {
        Some((name, d)) => {
            let mut c = name.chars();
            let cap: String = c
                .next()
                .map(|f| f.to_uppercase().chain(c).collect())
                .unwrap_or_default();
            format!("{cap} dominates the overhead here, {}", d.text())
        }
        // Each part's figure is in the sentence already.
        None => "No part dominates: their intervals overlap, so none is told apart as the largest"
            .to_string(),
    }
}

/// The parts' sum, each half-width added in quadrature (as
/// [`Difference::against`] weighs two): the overhead with an interval, so
/// two page sizes' overheads are set against each other by the one rule.
fn sum(parts: &[&Difference]) -> Difference {
    let d: f64 = parts.iter().map(|p| p.d).sum();
    let below = parts
        .iter()
        .map(|p| (p.d - p.lo).max(0.0))
        .fold(0.0, f64::hypot);
    let above = parts
        .iter()
        .map(|p| (p.hi - p.d).max(0.0))
        .fold(0.0, f64::hypot);
    Difference {
        d,
        lo: d - below,
        hi: d + above,
        unit: Unit::Ns,
        weak: None,
    }
}

/// The conclusion in plain words is the finding; each page size's parts
/// (which repeat the table, part by part) are notes. Without a conclusion
/// (one page size only) the parts stay findings.
fn analyze(r: &ExperimentResult) -> Analysis {
    let mut per_size = Vec::new();
    let get = |spec: &MetricSpec, thp: &str, extra: &[(&str, &str)]| {
        let mut with = vec![(THP, thp)];
        with.extend_from_slice(extra);
        r.settled(spec, &with)
    };
    let mut overheads = Vec::new();
    for thp in [Thp::Off, Thp::On].map(|t| thp_choice(t).name) {
        let (Some(fork), Some(first), Some(second), Some(reap), Some(total)) = (
            get(&FORK_CALL_NS, thp, &[]),
            get(&CHILD_PASS_NS, thp, &[(PASS, FIRST)]),
            get(&CHILD_PASS_NS, thp, &[(PASS, SECOND)]),
            get(&REAP_NS, thp, &[]),
            get(&TOTAL_NS, thp, &[]),
        ) else {
            continue;
        };
        let m = r.find(&TOTAL_NS, &[(THP, thp)]).expect("found above");
        let n: f64 = m.label(N).and_then(|x| x.parse().ok()).unwrap_or(0.0);
        let w: f64 = m.label(WORKERS).and_then(|x| x.parse().ok()).unwrap_or(2.0);
        let (page_bytes, pages, page) = if thp == thp_choice(Thp::On).name {
            (2u64 << 20, "2 MiB huge pages", "2 MiB")
        } else {
            (4096, "4 KiB pages", "4 KiB")
        };
        let slice_pages = (n / w * 8.0 / page_bytes as f64).max(1.0);
        let pte = r
            .reading(&VM_PTE_KIB, &[(THP, thp)])
            .map(|k| format!(" ({k:.0} KiB of page tables)"))
            .unwrap_or_default();
        // Never clamped: a second pass slower than the first stays negative.
        let child_extra = difference(first, second, Unit::Ns);
        let per_page = match child_extra.sign() {
            Order::Above => format!(
                "{} more per {page} page",
                fmt_ns(child_extra.d / slice_pages)
            ),
            _ => "within noise".to_string(),
        };
        // The parent pays a first pass over its own slice too.
        let parent_extra = match (
            get(&PARENT_PASS_NS, thp, &[(PASS, FIRST)]),
            get(&PARENT_PASS_NS, thp, &[(PASS, SECOND)]),
        ) {
            (Some(pf), Some(ps)) => Some(difference(pf, ps, Unit::Ns)),
            _ => None,
        };
        let parent = match &parent_extra {
            Some(p) => {
                let whose = match child_extra.against(p) {
                    Order::Above => "the child's penalty is larger than the parent's: beyond what both pay, its fresh page-table copies cost it more",
                    Order::Below => "the parent's penalty is the larger",
                    Order::Overlap => "the two penalties are indistinguishable here, so this run does not isolate what of the child's is fresh page-table copies",
                };
                format!("; the parent's first pass over an equal slice, beyond its second: {} ({whose})", p.text())
            }
            None => String::new(),
        };
        let mut parts = vec![
            (
                "the fork() call itself (copying the page tables)",
                amount(fork, Unit::Ns),
            ),
            ("the child's first-pass penalty", child_extra.clone()),
            (
                "reaping the child (tearing down its page tables)",
                amount(reap, Unit::Ns),
            ),
        ];
        if let Some(p) = parent_extra {
            parts.push(("the parent's first-pass penalty", p));
        }
        per_size.push(format!(
            "on {pages}{pte}: fork() returns in {}; the child's first pass over its slice takes {} and its second {} \
             (penalty {}, {per_page}){parent}; reaping takes {}; the whole instrumented run (two passes each) {}. {}",
            figure(fork, Unit::Ns),
            fmt_ns(first.median),
            fmt_ns(second.median),
            child_extra.text(),
            figure(reap, Unit::Ns),
            figure(total, Unit::Ns),
            made_of(&parts)
        ));
        let overhead = sum(&[
            &amount(fork, Unit::Ns),
            &child_extra,
            &amount(reap, Unit::Ns),
        ]);
        overheads.push((thp, overhead, child_extra));
    }
    per_size.extend(super::contention_notes(r, "forktime"));
    let [(_, off_ns, off_extra), (_, on_ns, on_extra)] = overheads.as_slice() else {
        return Analysis::findings(per_size);
    };
    let penalty = |d: &Difference| match d.sign() {
        Order::Above => format!("{} extra", d.text()),
        _ => format!("{}, within noise", d.text()),
    };
    // The advice only where the overheads are told apart, by the interval
    // of their difference: a difference of two medians alone is no result.
    let verdict = match on_ns.against(off_ns) {
        Order::Below => ". Put a large array that children will read on huge pages (madvise MADV_HUGEPAGE) before forking",
        Order::Above => ": larger on huge pages here",
        Order::Overlap => ": not told apart here, so this run does not show huge pages paying off",
    };
    let plain = format!(
        "in plain words: on 4 KiB pages fork copies one page-table entry per page, and later frees them; a child reading \
         inherited memory pays a first-pass penalty of {}; on huge pages there is one entry per 2 MiB instead of 512, and the \
         overhead (fork + the child's first-pass penalty + reap, half-widths in quadrature) is {} against {} on 4 KiB pages \
         (first-pass penalty there: {}){verdict}",
        penalty(off_extra),
        on_ns.text(),
        off_ns.text(),
        penalty(on_extra)
    );
    Analysis {
        findings: vec![plain],
        notes: per_size,
        ..Analysis::default()
    }
}

#[cfg(test)]
#[path = "forktime_tests.rs"]
mod tests;
