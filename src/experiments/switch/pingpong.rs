//! switch.pingpong: Bendersky's ping-pong (seed 002): two tasks hand a
//! 4-byte token back and forth; 1.2–1.5 µs per switch pinned to one core,
//! ~2.2 µs unpinned. Here over pipes, futexes, a condition variable and
//! sched_yield, threads and processes, on one CPU, two, two kept awake, and
//! unpinned; beside each, the IPC's own cost without a switch.

use super::engine::{push_pair, run_pair, Place};
use super::methods::{
    Method, Spread, CONDVAR, FUTEX_THREADS, METHODS, METHOD_CHOICES, PIPE_PROCESSES, PIPE_THREADS,
    PLACEMENTS, PLACEMENT_CHOICES, SAME_CPU, SCHED_YIELD, TWO_CPUS, TWO_CPUS_AWAKE, UNPINNED,
};
use super::series::{
    INVOLUNTARY_PER_ROUND_TRIP, ROUND_TRIPS_PER_SAMPLE, ROUND_TRIP_NS, SAME_CPU_FRACTION,
    SWITCHES_PER_ROUND_TRIP, SWITCH_NS, VOLUNTARY_PER_ROUND_TRIP,
};
use super::{plan_cpus, worker_cpus, CPUS_PARAM, PER_SWITCH_NOTE};
use crate::experiments::prelude::*;
use crate::measure::copy::{copy_samples, COPY_NS, LAYOUT, SIZE};
use crate::measure::explain::cpu_of_wall;
use crate::measure::sampler::{interleave, Budget, CPU_NS, PASSES};
use crate::metric::key::{METHOD, PLACEMENT};
use crate::sys;
use serde::{Deserialize, Serialize};

/// The IPC's own cost per switch, by one task with no switch.
pub const BASELINE_NS: MetricSpec = MetricSpec::new(
    "baseline_ns",
    Unit::Ns,
    Better::Lower,
    Kind::Other,
    "per switch, the method's IPC done by one task with no switch (`what` says which calls)",
);

/// A reading: the switch net of the IPC's own cost (`switch_ns` − `baseline_ns`).
pub const NET_SWITCH_NS: MetricSpec = MetricSpec::new(
    "net_switch_ns",
    Unit::Ns,
    Better::Lower,
    Kind::HandOff,
    "per switch, the raw switch minus the method's baseline: the switch without its IPC",
)
.signed();

/// A reading: 1 when the CPU has PCID (the TLB keeps entries, tagged by
/// address space, across a switch of page tables), 0 when it has not; from
/// the environment the run planned with.
pub const PCID: MetricSpec = MetricSpec::new(
    "pcid",
    Unit::Count,
    Better::Neither,
    Kind::Other,
    "1 when the CPU has PCID (with it the kernel can switch page tables without flushing the TLB), 0 when not",
);

/// What a condvar row of the seed table says: what the seed and ours
/// count as one switch.
const CONDVAR_COUNT: &str = "per switch here means per hand-off, half a round trip, as the seed counts it; the context switches a condvar round trip makes are counted beside";

/// The context switches a round trip made, shown beside a condvar row.
const SWITCHES_COUNTED: Beside = Beside {
    metric: SWITCHES_PER_ROUND_TRIP.name,
    labels: &[],
    words: "context switches per round trip",
    above: Some((2.0, "more than two: the waker's mutex")),
};

/// What the baseline times, in words (a label of `baseline_ns`).
pub const WHAT: LabelKey = "what";

pub static EXPERIMENT: Experiment = Experiment {
    name: "switch.pingpong",
    metrics: &[
        &SWITCH_NS,
        &ROUND_TRIP_NS,
        &BASELINE_NS,
        &COPY_NS,
        &SWITCHES_PER_ROUND_TRIP,
        &VOLUNTARY_PER_ROUND_TRIP,
        &INVOLUNTARY_PER_ROUND_TRIP,
        &CPU_NS,
        &SAME_CPU_FRACTION,
        &ROUND_TRIPS_PER_SAMPLE,
        &NET_SWITCH_NS,
        &PCID,
    ],
    summary: "ns per switch (round trip / 2) of two tasks ping-ponging: pipe, futex, condvar, sched_yield; threads and processes; one CPU, two CPUs, two CPUs kept awake, unpinned",
    reproduces: "Bendersky \"How expensive are context switches?\": 1.2–1.5 µs per switch pinned, ~2.2 µs unpinned",
    params: &[METHODS_PARAM.spec, PLACEMENTS_PARAM.spec, CPUS_PARAM.spec],
    seeds: &[
        SeedFigure::of(
            &SWITCH_NS,
            (1200.0, 1500.0),
            SeedStat::Mean,
            SEED_SWITCH,
            BENDERSKY_HW,
            "two threads ping-ponging over a pipe, taskset to one core, per switch",
        )
        .labels(&[(METHOD, PIPE_THREADS.name()), (PLACEMENT, SAME_CPU.name())]),
        SeedFigure::of(
            &SWITCH_NS,
            (1200.0, 1500.0),
            SeedStat::Mean,
            SEED_SWITCH,
            BENDERSKY_HW,
            "two threads signalling over a condition variable, taskset to one core, per switch",
        )
        .labels(&[(METHOD, CONDVAR.name()), (PLACEMENT, SAME_CPU.name())])
        .caveat(CONDVAR_COUNT)
        .beside(SWITCHES_COUNTED),
        SeedFigure::of(
            &COPY_NS,
            (3000.0, 3000.0),
            SeedStat::Unstated,
            SEED_SWITCH,
            BENDERSKY_HW,
            "\"memcpy, which takes 3 us for 64 KiB on the same machine\" (his launch post's figure), the seed's yardstick for a switch; no count of copies or loop described",
        )
        .labels(&[(SIZE, "64 KiB")])
        .caveat(BENDERSKY_COPY_LAYOUT),
        SeedFigure::of(
            &SWITCH_NS,
            (2200.0, 2200.0),
            SeedStat::Mean,
            SEED_SWITCH,
            BENDERSKY_HW,
            "two threads ping-ponging over a pipe, unpinned, per switch",
        )
        .labels(&[(METHOD, PIPE_THREADS.name()), (PLACEMENT, UNPINNED.name())]),
        SeedFigure::of(
            &SWITCH_NS,
            (2200.0, 2200.0),
            SeedStat::Mean,
            SEED_SWITCH,
            BENDERSKY_HW,
            "two threads over a condition variable, unpinned, per switch",
        )
        .labels(&[(METHOD, CONDVAR.name()), (PLACEMENT, UNPINNED.name())])
        .caveat(CONDVAR_COUNT)
        .beside(SWITCHES_COUNTED),
    ],
    points,
    measure,
    analyze,
    headlines,
    attributed: true,
    ..Experiment::DEFAULT
};

pub const METHODS_PARAM: Param<Vec<String>> = Param::names(ParamSpec {
    name: "methods",
    help: "ping-pong methods",
    kind: ParamKind::Names(METHOD_CHOICES),
    quick: "all",
    thorough: "all",
});

pub const PLACEMENTS_PARAM: Param<Vec<String>> = Param::names(ParamSpec {
        name: "placements",
        help: "same_cpu: both pinned to one CPU; two_cpus: pinned apart; two_cpus_awake: apart, with SCHED_IDLE spinners keeping both CPUs out of idle; unpinned",
        kind: ParamKind::Names(PLACEMENT_CHOICES),
        quick: "all",
        thorough: "all",
    });

/// One switch.pingpong job: a method, the placements it takes turns in, and
/// the CPUs they use.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PingPongPoint {
    pub method: String,
    pub placements: Vec<String>,
    pub cpus: Vec<usize>,
    /// Whether the CPU has PCID (the environment's flag), recorded as a
    /// reading so the findings can say what a process switch keeps.
    #[serde(default)]
    pub pcid: bool,
}

fn points(ctx: &PlanCtx) -> Result<Points, String> {
    let mut pts = Points::default();
    let cpus = plan_cpus(ctx, &mut pts.notes)?;
    let mut placements = ctx.params.get(&PLACEMENTS_PARAM);
    let two_cpus = |p: &str| find(PLACEMENTS, p).is_some_and(|p| p.two_cpus());
    if cpus.len() < 2 && placements.iter().any(|p| two_cpus(p)) {
        let why = if ctx.env.cpus_allowed.len() < 2 {
            format!("only {} CPU is allowed here", ctx.env.cpus_allowed.len())
        } else {
            "the cpus parameter names one CPU".to_string()
        };
        // The user's own two-CPU placement cannot run: refused, as a
        // value the machine cannot honour; a default one is dropped.
        if ctx.set_by_user(&PLACEMENTS_PARAM) {
            let asked: Vec<&str> = placements
                .iter()
                .filter(|p| two_cpus(p))
                .map(String::as_str)
                .collect();
            return Err(format!(
                "placements={} needs two CPUs, but {why}: give -p cpus=A,B with two CPUs, or a one-CPU placement (same_cpu, unpinned)",
                asked.join(",")
            ));
        }
        pts.notes.push(format!("two-CPU placements skipped: {why}"));
        placements.retain(|p| !two_cpus(p));
    }
    pts.notes.push(PER_SWITCH_NOTE.into());
    // One fresh worker per method: a forked partner needs a single-threaded
    // parent, and no method inherits another's warm caches or leftovers.
    for m in ctx.params.get(&METHODS_PARAM) {
        let same_cpu_only = find(METHODS, &m).is_some_and(Method::same_cpu_only);
        let one_cpu = |p: &str| find(PLACEMENTS, p).is_some_and(|p| p.spread == Spread::OneCpu);
        let place: Vec<String> = placements
            .iter()
            .filter(|p| !same_cpu_only || one_cpu(p))
            .cloned()
            .collect();
        if same_cpu_only && place.len() < placements.len() {
            pts.notes.push(format!(
                "{m} runs on one CPU only: on two CPUs the tasks would spin, not switch"
            ));
        }
        if place.is_empty() {
            continue;
        }
        pts.push(&PingPongPoint {
            method: m,
            placements: place,
            cpus: cpus.clone(),
            pcid: ctx.env.facts.pcid,
        });
    }
    if pts.points.is_empty() && !ctx.user_set.is_empty() {
        return Err(
            "nothing to measure: no method fits the placements asked for (a same-CPU-only method needs a one-CPU placement)"
                .into(),
        );
    }
    Ok(pts)
}

fn measure(job: &Job) -> anyhow::Result<WorkerOutput> {
    let mut out = WorkerOutput::default();
    let point: PingPongPoint = job.point()?;
    let (all, cpus) = worker_cpus(&point.cpus, &mut out.notes)?;
    let name = point.method.as_str();
    let m = find(METHODS, name).ok_or_else(|| anyhow::anyhow!("unknown method {name}"))?;
    let budget = Budget::from_job(job);
    let places = &point.placements;
    let mut runnable = Vec::new();
    for p in places {
        let pl = find(PLACEMENTS, p).ok_or_else(|| anyhow::anyhow!("unknown placement {p}"))?;
        if pl.two_cpus() && cpus.len() < 2 {
            out.notes.push(format!(
                "{name}/{p} skipped: this worker may use only one CPU"
            ));
            continue;
        }
        runnable.push(Place::of(pl, &cpus, &all));
    }
    // The placements take turns, a share of the budget at a time.
    let share = budget.split(PASSES);
    let per_place = interleave(&runnable, PASSES, job.seed, |place| {
        let _why = crate::measure::why::Scope::enter(&labels(&at(name, place.name)));
        run_pair(m, place, &share, &all, 0)
            .map_err(|e| anyhow::anyhow!("{name} {}: {e}", place.name))
    })?;
    for (place, passes) in runnable.iter().zip(per_place) {
        for r in &passes {
            push_pair(
                &mut out,
                &labels(&[(METHOD, name), (PLACEMENT, place.name)]),
                r,
            );
        }
    }
    // The IPC's own cost without a switch, on one CPU, by one task.
    sys::pin_current_thread(&cpus[..1])?;
    let b = budget.scaled(0.4);
    let base = m.handoff.baseline(&b, job.loop_overhead_ns, m.processes)?;
    // The seed's yardstick: "a context switch is a bit quicker than copying
    // 64 KiB" (memcpy 64 KiB ≈ 3 µs on its machine).
    // yardstick.memcpy's protocol ("aligned"), so the two are one quantity.
    if m.name() == PIPE_THREADS.name() {
        let copy = copy_samples(&budget.scaled(0.2), job.loop_overhead_ns, 64 << 10, 0);
        out.push_detail(
            &COPY_NS,
            labels(&[(SIZE, "64 KiB"), (LAYOUT, "aligned")]),
            copy,
        );
    }
    sys::pin_current_thread(&all)?;
    out.reading(&PCID, labels(&[]), f64::from(u8::from(point.pcid)));
    out.push(
        &BASELINE_NS,
        labels(&[(METHOD, name), (WHAT, m.baseline)]),
        base,
    );
    Ok(out)
}

/// The labels of one method in one placement.
fn at<'a>(method: &'a str, placement: &'a str) -> [(&'static str, &'a str); 2] {
    [(METHOD, method), (PLACEMENT, placement)]
}

/// At most five findings: the same-CPU switch path (threads against
/// processes), the wake-up on another CPU, unpinned against pinned, the
/// seed's memcpy yardstick, and (from the run) what did not settle. What
/// the method is (each method's raw, baseline and net; its switch counts;
/// its CPU time; the spinner variant) goes in the notes.
fn analyze(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    for m in METHODS.iter().map(Method::name) {
        if let Some(f) = raw_baseline_net(r, m, &mut a.readings) {
            a.notes.push(f);
        }
    }
    if let Some((finding, counts)) = switch_path(r) {
        a.findings.push(finding);
        a.notes.push(counts);
    }
    a.findings.extend(super::pingpong_why::measured_path(
        r,
        PIPE_THREADS.name(),
        SAME_CPU.name(),
    ));
    a.notes.extend(super::pingpong_why::other_paths(r));
    if let Some(n) = r.median(
        &SWITCHES_PER_ROUND_TRIP,
        &at(CONDVAR.name(), SAME_CPU.name()),
    ) {
        if n > 2.5 {
            a.notes.push(format!(
                "condvar on one CPU: {n:.2} switches per round trip, not 2: the notified thread wakes while the notifier still holds the mutex, blocks on it, and is woken again; its figure is more than one switch"
            ));
        }
    }
    if let Some(y) = r.median(
        &INVOLUNTARY_PER_ROUND_TRIP,
        &at(SCHED_YIELD.name(), SAME_CPU.name()),
    ) {
        a.notes.push(format!(
            "sched_yield hands over with {y:.2} involuntary switches per round trip: a yielding task stays runnable, so getrusage counts its switches as involuntary"
        ));
    }
    a.findings.extend(two_cpus(r));
    a.notes.extend(cpu_of_wall(
        r,
        "a futex round trip between two CPUs",
        &ROUND_TRIP_NS,
        &at(FUTEX_THREADS.name(), TWO_CPUS.name()),
    ));
    a.notes.extend(kept_awake(r));
    a.findings.extend(unpinned(r));
    a.findings.extend(yardstick(r));
    a.headlines.extend(placement_headline(r));
    a
}

/// The seed's yardstick, a pinned pipe switch against a memcpy of 64 KiB:
/// one subject in every run that measured the seed's method (issue 39 item
/// 9), a figure that did not settle quoted with its mark and compared with
/// nothing ([`compare_shown`]).
fn yardstick(r: &ExperimentResult) -> Option<String> {
    let sw = &r
        .find(&SWITCH_NS, &at(PIPE_THREADS.name(), SAME_CPU.name()))?
        .summary;
    let cmp = match r.find(&COPY_NS, &[(SIZE, "64 KiB")]) {
        Some(copy) => compare_shown(
            "a pinned pipe switch",
            sw,
            "a memcpy of 64 KiB",
            &copy.summary,
            Unit::Ns,
        ),
        None => format!(
            "a pinned pipe switch ({}) against a memcpy of 64 KiB: the copy was not measured",
            quoted(sw, Unit::Ns)
        ),
    };
    Some(format!(
        "yardstick: {cmp} ({}: 1.2–1.5 µs vs ~3 µs, \"a bit quicker than copying 64 KiB\")",
        cite_short(SEED_SWITCH)
    ))
}

/// Unpinned against pinned to one CPU, per method that has both, in one
/// sentence with how often the scheduler kept the pair on one CPU. The
/// same subjects in every run (issue 39 item 9): a flagged figure is
/// quoted with its mark and compared with nothing, never dropped. The
/// share on one CPU is a reading per round, recorded as the median over
/// rounds, and said as such: a series whose rounds fell in two modes may
/// have kept the pair on one CPU in some rounds and never in the median
/// one.
fn unpinned(r: &ExperimentResult) -> Option<String> {
    let mut parts = Vec::new();
    for m in [PIPE_THREADS.name(), CONDVAR.name()] {
        if let (Some(pin), Some(un)) = (
            r.find(&SWITCH_NS, &at(m, SAME_CPU.name()))
                .map(|x| &x.summary),
            r.find(&SWITCH_NS, &at(m, UNPINNED.name()))
                .map(|x| &x.summary),
        ) {
            let kept = r
                .reading(&SAME_CPU_FRACTION, &at(m, UNPINNED.name()))
                .map_or(String::new(), |f| {
                    format!(
                        ", the pair on one CPU in {:.0}% of a round's batches (the median round)",
                        f * 100.0
                    )
                });
            let vs = if pin.unstable || un.unstable {
                format!(
                    "{} unpinned against {} pinned, not compared: a figure did not settle",
                    quoted(un, Unit::Ns),
                    quoted(pin, Unit::Ns)
                )
            } else if bounds_nothing(un, Unit::Ns) || bounds_nothing(pin, Unit::Ns) {
                // An interval that bounds nothing supports no comparison.
                format!(
                    "{} unpinned against {} pinned, not compared: an interval that bounds nothing",
                    figure(un, Unit::Ns),
                    figure(pin, Unit::Ns)
                )
            } else {
                versus(un, pin)
            };
            parts.push(format!("{m} {vs}{kept}"));
        }
    }
    (!parts.is_empty()).then(|| {
        format!(
            "unpinned vs pinned to one CPU, per switch: {} ({}: ~2.2 vs 1.2–1.5 µs)",
            parts.join("; "),
            cite_short(SEED_SWITCH)
        )
    })
}

/// One method's raw switch (round trip / 2), its baseline (the IPC by one
/// task, no switch) and their difference, the net, each named, per
/// placement; the net recorded as a reading, as measured.
fn raw_baseline_net(r: &ExperimentResult, m: &str, readings: &mut Vec<Reading>) -> Option<String> {
    let base_metric = r.find(&BASELINE_NS, &[(METHOD, m)])?;
    let base = r.settled(&BASELINE_NS, &[(METHOD, m)])?;
    let mut parts = Vec::new();
    for p in PLACEMENTS.iter().map(|p| p.name()) {
        let Some(raw) = r.settled(&SWITCH_NS, &at(m, p)) else {
            continue;
        };
        // An interval that bounds nothing supports no difference either.
        if bounds_nothing(raw, Unit::Ns) {
            parts.push(format!("{p} raw {}, no net given", figure(raw, Unit::Ns)));
            continue;
        }
        let net = difference(raw, base, Unit::Ns);
        readings.push(Reading::of(&NET_SWITCH_NS, labels(&at(m, p)), net.d));
        let odd = if net.sign() == Order::Below {
            " (below the baseline: odd, shown as measured)"
        } else {
            ""
        };
        parts.push(format!(
            "{p} raw {}, net {}{odd}",
            figure(raw, Unit::Ns),
            net.text()
        ));
    }
    (!parts.is_empty()).then(|| {
        format!(
            "{m} per switch: raw is the round trip / 2, net is raw minus the baseline ({}: {}, by one task with no switch): {}",
            base_metric.label(WHAT).unwrap_or("the IPC alone"),
            figure(base, Unit::Ns),
            parts.join("; ")
        )
    })
}

/// The same-CPU switch: what its figure includes and, over a pipe, threads
/// against processes (the finding); what its switches were, the voluntary
/// and involuntary counts (a note). Always of the seed's method
/// (pipe_threads), as the Summary: a flagged figure is quoted with its
/// mark and its net left "not told apart", never swapped for another
/// method's (issue 39 item 9).
fn switch_path(r: &ExperimentResult) -> Option<(String, String)> {
    let m = PIPE_THREADS.name();
    let s = &r.find(&SWITCH_NS, &at(m, SAME_CPU.name()))?.summary;
    let includes = match (
        r.find(&BASELINE_NS, &[(METHOD, m)]),
        r.settled(&BASELINE_NS, &[(METHOD, m)]),
    ) {
        (Some(bm), Some(b)) if !s.unstable => format!(
            "it includes {} ({} by one task with no switch), so net of that the switch path is {}",
            bm.label(WHAT).unwrap_or("the IPC"),
            figure(b, Unit::Ns),
            difference(s, b, Unit::Ns).text()
        ),
        (Some(bm), _) => format!(
            "it includes {} ({} by one task with no switch), so net of that the switch path is not told apart: a figure did not settle",
            bm.label(WHAT).unwrap_or("the IPC"),
            quoted(&bm.summary, Unit::Ns)
        ),
        _ => "it includes the IPC's own work, which this run did not measure apart".to_string(),
    };
    let finding = format!(
        "same CPU, {m} (the seed's method): {} per switch is the round trip / 2 (raw): {includes}{}",
        shown(s, Unit::Ns),
        process_switch(r)
    );
    let Some(n) = r.median(&SWITCHES_PER_ROUND_TRIP, &at(m, SAME_CPU.name())) else {
        return Some((
            finding,
            format!("same CPU, {m}: its switches per round trip were not counted"),
        ));
    };
    let vol = r.median(&VOLUNTARY_PER_ROUND_TRIP, &at(m, SAME_CPU.name()));
    let inv = r
        .median(&INVOLUNTARY_PER_ROUND_TRIP, &at(m, SAME_CPU.name()))
        .or(vol.map(|v| n - v));
    let count = if (n - 2.0).abs() <= 0.3 {
        "close to 2, one switch each way"
    } else if n < 1.5 {
        "fewer than 2: some hand-offs happened without a switch, so the figure is not all switch"
    } else {
        "more than 2: extra switches (preemption or migration) are in the figure"
    };
    let kinds = match (vol, inv) {
        (Some(v), Some(i)) if i >= 0.05 => format!(
            ": {v:.2} voluntary (a task blocks on its read) and {i:.2} involuntary, preemptions on wake (the woken task preempts the waker before it blocks), so not every switch is a task blocking"
        ),
        (Some(v), _) => format!(": {v:.2} voluntary, each a task blocking on its read"),
        _ => String::new(),
    };
    Some((
        finding,
        format!("same CPU, {m}: {n:.2} switches per round trip, {count}{kinds}"),
    ))
}

/// Over a pipe on one CPU, a process switch against a thread switch, with
/// what the CPU's PCID flag (the one TLB fact recorded) implies: with PCID
/// the kernel can switch page tables without a TLB flush, but none is
/// counted, so none is ruled in or out; without it, every such switch
/// flushes the TLB's non-global entries. Indistinguishable figures get no cause.
fn process_switch(r: &ExperimentResult) -> String {
    let find = |m: &str| {
        r.find(&SWITCH_NS, &at(m, SAME_CPU.name()))
            .map(|x| &x.summary)
    };
    let (Some(t), Some(p)) = (find(PIPE_THREADS.name()), find(PIPE_PROCESSES.name())) else {
        return format!(
            ". Over a pipe, a process switch against a thread switch: not measured ({} not in this run's methods)",
            PIPE_PROCESSES.name()
        );
    };
    let c = compare_shown("a process switch", p, "a thread switch", t, Unit::Ns);
    // A cause only on figures that settled and bound something.
    let usable = |s: &Summary| !s.unstable && !bounds_nothing(s, Unit::Ns);
    if !usable(p) || !usable(t) {
        return format!(". Over a pipe, {c}");
    }
    let pcid = r.reading(&PCID, &[]).map(|v| v > 0.5);
    let why = match (order(p, t), pcid) {
        (Order::Overlap, Some(true)) => ": switching page tables added nothing this run could see; this CPU has PCID, with which the kernel can switch page tables without flushing the TLB (no flush was counted here)",
        (Order::Overlap, Some(false)) => ": switching page tables added nothing this run could see, although this CPU has no PCID, so each such switch flushes the TLB's non-global entries",
        (Order::Overlap, None) => ": switching page tables added nothing this run could see",
        (Order::Above, Some(true)) => ": a process switch also switches page tables; this CPU has PCID, with which the kernel can do that without flushing the TLB, but no flush was counted here, so whether the difference holds one is not known",
        (Order::Above, Some(false)) => ": a process switch also switches page tables, and this CPU has no PCID, so each one flushes the TLB's non-global entries",
        (Order::Above, None) => ": a process switch also switches page tables",
        (Order::Below, _) => ": switching page tables made the process switch no dearer here",
    };
    format!(". Over a pipe, {c}{why}")
}

/// Every method on two CPUs against one, in one sentence: the hand-off to
/// another CPU, and the switches a round trip makes on each side. The
/// kept-awake variant is not read as a part of the extra: it takes another
/// kernel path than the hand-off to a halted CPU ([`ANOTHER_PATH`]), so no
/// share of the extra and no conclusion is drawn from it here. On one path
/// that comparison is switch.wakeup's (its `cross_cpu_remote` variant,
/// TTWU_QUEUE off), which this experiment's results do not hold (issue 39).
fn two_cpus(r: &ExperimentResult) -> Option<String> {
    let mut parts = Vec::new();
    let mut above = false;
    let mut awake = false;
    let mut counts = None;
    for m in METHODS.iter().map(Method::name) {
        // Every method measured in both placements, settled or not (issue
        // 39 item 9): a flagged figure is quoted with its mark and tells
        // nothing apart, and no reason rests on it.
        let find = |p: &str| r.find(&SWITCH_NS, &at(m, p)).map(|x| &x.summary);
        let (Some(same), Some(cross)) = (find(SAME_CPU.name()), find(TWO_CPUS.name())) else {
            continue;
        };
        // The kept-awake variant measured, settled or not: the clause
        // that no share is read from it stays whatever settled.
        awake |= find(TWO_CPUS_AWAKE.name()).is_some();
        if same.unstable || cross.unstable {
            parts.push(format!(
                "{m} {} vs {} (not told apart: a figure did not settle)",
                quoted(cross, Unit::Ns),
                quoted(same, Unit::Ns)
            ));
            continue;
        }
        above |= order(cross, same) == Order::Above;
        if counts.is_none() {
            counts = r
                .median(&SWITCHES_PER_ROUND_TRIP, &at(m, SAME_CPU.name()))
                .zip(r.median(&SWITCHES_PER_ROUND_TRIP, &at(m, TWO_CPUS.name())))
                .filter(|(one, two)| (two - one).abs() > 0.3)
                .map(|(one, two)| (m, one, two));
        }
        parts.push(format!("{m} {}", versus(cross, same)));
    }
    let mut why = String::new();
    if above {
        why.push_str(
            ": the extra is the hand-off across CPUs: the wake sent to the other CPU and that CPU running the task (switch.wakeup times the one-way wake-up)",
        );
    }
    if awake {
        why.push_str(&format!(
            "; the variant with SCHED_IDLE spinners keeping both CPUs awake (two_cpus_awake, in the notes) is not set against the hand-off to the other CPU, and no share of it is read from that variant: {ANOTHER_PATH}"
        ));
    }
    if above {
        if let Some((m, one, two)) = counts {
            why.push_str(&format!(
                "; and the paths differ: {m} makes {two:.2} switches per round trip across CPUs against {one:.2} on one"
            ));
        }
    }
    (!parts.is_empty()).then(|| {
        format!(
            "a hand-off to the other CPU vs one on the same CPU, per switch: {}{why}",
            parts.join("; ")
        )
    })
}

/// What the kept-awake control is: another kernel path than the hand-off
/// to a halted CPU (issue 39 item 6), so no difference of the two is read
/// as what leaving idle costs, and no share of one is taken of the other.
/// The like-for-like comparison, the halted wake on the control's path, is
/// switch.wakeup's `cross_cpu_remote` variant: this experiment's results do
/// not hold it, so the words point there and draw nothing from it.
const ANOTHER_PATH: &str = "that control takes another kernel path (the peer's CPU runs the spinner, so the wake is a remote enqueue and a reschedule IPI, RES; to a halted CPU it goes through the wake list and a function-call IPI, CAL), so the difference between the two bounds nothing about leaving idle (on one path the comparison is switch.wakeup's cross_cpu_remote variant, the halted wake with TTWU_QUEUE off, measured only as root with debugfs's sched/features writable)";

/// The SCHED_IDLE spinner variant, for every method that has it, counted
/// across methods: how many were faster with both CPUs kept awake, slower,
/// or within noise, each with the interval of its difference. The control
/// takes another kernel path ([`ANOTHER_PATH`]): no difference is worded
/// as a saving or a cost of leaving idle.
fn kept_awake(r: &ExperimentResult) -> Option<String> {
    let mut parts = Vec::new();
    let (mut faster, mut slower, mut noise) = (0, 0, 0);
    let mut medians = Vec::new();
    for m in METHODS.iter().map(Method::name) {
        let (Some(idle), Some(awake)) = (
            r.settled(&SWITCH_NS, &at(m, TWO_CPUS.name())),
            r.settled(&SWITCH_NS, &at(m, TWO_CPUS_AWAKE.name())),
        ) else {
            continue;
        };
        let d = difference(awake, idle, Unit::Ns);
        medians.push(d.d);
        let word = match d.sign() {
            Order::Below => {
                faster += 1;
                "faster"
            }
            Order::Above => {
                slower += 1;
                "slower"
            }
            Order::Overlap => {
                noise += 1;
                "within noise"
            }
        };
        parts.push(format!(
            "{m} {} against {} ({}: {word})",
            fmt_ns(awake.median),
            fmt_ns(idle.median),
            d.text()
        ));
    }
    let n = parts.len();
    if n == 0 {
        return None;
    }
    let lead = format!(
        "{}; {}",
        awake_lead(n, faster, slower, noise),
        by_median(&medians)
    );
    Some(format!(
        "{lead}; {ANOTHER_PATH}; awake − idle per method: {}",
        parts.join("; ")
    ))
}

fn picks(e: &ExperimentResult) -> Picks<'_> {
    let method = PIPE_THREADS.name();
    Picks {
        same: e.find(&SWITCH_NS, &at(method, SAME_CPU.name())),
        other: e.find(&SWITCH_NS, &at(method, TWO_CPUS.name())),
    }
}

/// The Summary's quantities: [`Picks`] in words.
fn headlines(e: &ExperimentResult) -> Vec<Headline> {
    let p = picks(e);
    [
        (p.same, "a same-CPU switch (pipe, threads)"),
        (p.other, "a cross-CPU wake-up (pipe, threads)"),
    ]
    .into_iter()
    .filter_map(|(m, what)| Some(Headline::of(what, &SWITCH_NS, m?)))
    .collect()
}

/// The same-CPU switch against the wake-up on the other CPU ([`Picks`]); a
/// flagged or imprecise figure is quoted with its interval and mark.
fn placement_headline(e: &ExperimentResult) -> Option<String> {
    let p = picks(e);
    let same = p.same?;
    let head = format!(
        "per switch ({}, round trip / 2, the IPC included)",
        PIPE_THREADS.name()
    );
    let Some(other) = p.other else {
        return Some(format!(
            "{head}, a same-CPU switch costs {}",
            quoted(&same.summary, Unit::Ns)
        ));
    };
    Some(format!(
        "{head}, waking a task on the other CPU costs {} and a same-CPU switch {} ({})",
        quoted(&other.summary, Unit::Ns),
        quoted(&same.summary, Unit::Ns),
        summary_ratio(&other.summary, &same.summary)
    ))
}

/// The Summary's figures, picked by labels: the same-CPU switch and the
/// wake-up on the other CPU, always of the seed's method (pipe_threads), so
/// the Summary's subject never changes from run to run.
struct Picks<'a> {
    same: Option<&'a Metric>,
    other: Option<&'a Metric>,
}

#[path = "pingpong_sign.rs"]
mod sign;
#[cfg(test)]
use sign::sign_test;
use sign::{awake_lead, by_median};

#[cfg(test)]
#[path = "pingpong_tests.rs"]
mod tests;
