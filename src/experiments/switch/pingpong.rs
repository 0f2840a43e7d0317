//! switch.pingpong: Bendersky's ping-pong (seed 002): two tasks hand a
//! 4-byte token back and forth; 1.2–1.5 µs per switch pinned to one core,
//! ~2.2 µs unpinned. Here over pipes, futexes, a condition variable and
//! sched_yield, threads and processes, on one CPU, two, two kept awake, and
//! unpinned; beside each, the IPC's own cost without a switch.

use super::engine::{push_pair, run_pair, Place};
use super::methods::{
    method, placement, Mech, Method, Spread, METHODS, METHOD_CHOICES, PIPE_THREADS, PLACEMENTS,
    PLACEMENT_CHOICES,
};
use super::{plan_cpus, worker_cpus, CPUS, PER_SWITCH_NOTE};
use crate::experiments::prelude::*;
use crate::measure::sampler::{interleave, per_op, Budget, PASSES};
use crate::sys::{self, SharedPage};
use std::fs::File;
use std::hint::black_box;
use std::io::{self, Read, Write};
use std::sync::{Condvar, Mutex};

pub static EXPERIMENT: Experiment = Experiment {
    name: "switch.pingpong",
    better: &[("switch_ns", Better::Lower), ("round_trip_ns", Better::Lower), ("baseline_ns", Better::Lower), ("copy_ns", Better::Lower), ("switches_per_round_trip", Better::Neither), ("voluntary_per_round_trip", Better::Neither), ("involuntary_per_round_trip", Better::Neither)],
    summary: "ns per switch (round trip / 2) of two tasks ping-ponging: pipe, futex, condvar, sched_yield; threads and processes; one CPU, two CPUs, two CPUs kept awake, unpinned",
    reproduces: "Bendersky \"How expensive are context switches?\": 1.2–1.5 µs per switch pinned, ~2.2 µs unpinned",
    params: &[
        ParamSpec {
            name: "methods",
            help: "ping-pong methods",
            kind: ParamKind::Names(METHOD_CHOICES),
            quick: "all",
            thorough: "all",
        },
        ParamSpec {
            name: "placements",
            help: "same_cpu: both pinned to one CPU; two_cpus: pinned apart; two_cpus_awake: apart, with SCHED_IDLE spinners keeping both CPUs out of idle; unpinned",
            kind: ParamKind::Names(PLACEMENT_CHOICES),
            quick: "all",
            thorough: "all",
        },
        CPUS,
    ],
    seeds: &[
        SeedFigure {
            metric: "switch_ns",
            labels: &[("method", "pipe_threads"), ("placement", "same_cpu")],
            lo: 1200.0,
            hi: 1500.0,
            unit: Unit::Ns,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "two threads ping-ponging over a pipe, taskset to one core, per switch",
            statistic: SeedStat::Mean,
            cold: false,
        },
        SeedFigure {
            metric: "switch_ns",
            labels: &[("method", "condvar"), ("placement", "same_cpu")],
            lo: 1200.0,
            hi: 1500.0,
            unit: Unit::Ns,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "two threads signalling over a condition variable, taskset to one core, per switch",
            statistic: SeedStat::Mean,
            cold: false,
        },
        SeedFigure {
            metric: "copy_ns",
            labels: &[("size", "64 KiB")],
            lo: 3000.0,
            hi: 3000.0,
            unit: Unit::Ns,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "memcpy of 64 KiB, the seed's yardstick for a switch",
            statistic: SeedStat::Mean,
            cold: false,
        },
        SeedFigure {
            metric: "switch_ns",
            labels: &[("method", "pipe_threads"), ("placement", "unpinned")],
            lo: 2200.0,
            hi: 2200.0,
            unit: Unit::Ns,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "two threads ping-ponging over a pipe, unpinned, per switch",
            statistic: SeedStat::Mean,
            cold: false,
        },
        SeedFigure {
            metric: "switch_ns",
            labels: &[("method", "condvar"), ("placement", "unpinned")],
            lo: 2200.0,
            hi: 2200.0,
            unit: Unit::Ns,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "two threads over a condition variable, unpinned, per switch",
            statistic: SeedStat::Mean,
            cold: false,
        },
    ],
    points,
    measure,
    analyze,
    ..Experiment::DEFAULT
};

fn points(ctx: &PlanCtx) -> Result<Points, String> {
    let mut pts = Points::default();
    let cpus = plan_cpus(ctx, &mut pts.notes)?;
    let mut placements = ctx.params.names("placements");
    let two_cpus = |p: &str| placement(p).is_some_and(|p| p.two_cpus());
    if cpus.len() < 2 && placements.iter().any(|p| two_cpus(p)) {
        let why = if ctx.env.cpus_allowed.len() < 2 {
            format!("only {} CPU is allowed here", ctx.env.cpus_allowed.len())
        } else {
            "the cpus parameter names one CPU".to_string()
        };
        pts.notes.push(format!("two-CPU placements skipped: {why}"));
        placements.retain(|p| !two_cpus(p));
    }
    pts.notes.push(PER_SWITCH_NOTE.into());
    // One fresh worker per method: a forked partner needs a single-threaded
    // parent, and no method inherits another's warm caches or leftovers.
    for m in ctx.params.names("methods") {
        let same_cpu_only = method(&m).is_some_and(Method::same_cpu_only);
        let one_cpu = |p: &str| placement(p).is_some_and(|p| p.spread == Spread::OneCpu);
        let place: Vec<&String> = placements
            .iter()
            .filter(|p| !same_cpu_only || one_cpu(p))
            .collect();
        if same_cpu_only && place.len() < placements.len() {
            pts.notes.push(format!(
                "{m} runs on one CPU only: on two CPUs the tasks would spin, not switch"
            ));
        }
        if place.is_empty() {
            continue;
        }
        pts.points.push(serde_json::json!({
            "method": m, "placements": place, "cpus": cpus,
        }));
    }
    Ok(pts)
}

fn measure(job: &Job) -> anyhow::Result<WorkerOutput> {
    let mut out = WorkerOutput::default();
    let (all, cpus) = worker_cpus(job, &mut out.notes)?;
    let name = job.point["method"].as_str().unwrap_or("");
    let m = method(name).ok_or_else(|| anyhow::anyhow!("unknown method {name}"))?;
    let budget = Budget::from_job(job);
    let places: Vec<String> = job.point["placements"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|p| p.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let mut runnable = Vec::new();
    for p in &places {
        let pl = placement(p).ok_or_else(|| anyhow::anyhow!("unknown placement {p}"))?;
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
        run_pair(m, place, &share, &all, 0)
            .map_err(|e| anyhow::anyhow!("{name} {}: {e}", place.name))
    })?;
    for (place, passes) in runnable.iter().zip(per_place) {
        for r in &passes {
            push_pair(
                &mut out,
                &labels(&[("method", name), ("placement", place.name)]),
                r,
            );
        }
    }
    // The IPC's own cost without a switch, on one CPU, by one task.
    sys::pin_current_thread(&cpus[..1])?;
    let b = budget.scaled(0.4);
    let base = baseline(m, &b, job.loop_overhead_ns)?;
    // The seed's yardstick: "a context switch is a bit quicker than copying
    // 64 KiB" (memcpy 64 KiB ≈ 3 µs on its machine).
    if m.name() == PIPE_THREADS.name() {
        let src = vec![1u8; 64 << 10];
        let mut dst = vec![0u8; 64 << 10];
        let copy = per_op(&budget.scaled(0.2), job.loop_overhead_ns, || {
            dst.copy_from_slice(black_box(&src));
            black_box(&mut dst);
        });
        out.push_detail("copy_ns", Unit::Ns, labels(&[("size", "64 KiB")]), copy);
    }
    sys::pin_current_thread(&all)?;
    out.push(
        "baseline_ns",
        Unit::Ns,
        labels(&[("method", name), ("what", m.baseline)]),
        base,
    );
    Ok(out)
}

/// Per switch, what the IPC costs when no switch happens.
fn baseline(m: &Method, b: &Budget, loop_ns: f64) -> io::Result<Vec<f64>> {
    Ok(match m.mech {
        Mech::Pipe => {
            let (r, w) = sys::pipe(false)?;
            let (mut r, mut w) = (File::from(r), File::from(w));
            let mut failed = None;
            let v = per_op(b, loop_ns, || {
                let mut buf = [0u8; 4];
                if let Err(e) = w
                    .write_all(&[1, 2, 3, 4])
                    .and_then(|_| r.read_exact(&mut buf))
                {
                    failed = Some(e);
                }
            });
            if let Some(e) = failed {
                return Err(e);
            }
            v
        }
        Mech::Futex => {
            let page = SharedPage::new()?;
            let w = page.i32(0);
            let shared = m.processes;
            per_op(b, loop_ns, || {
                let _ = sys::futex_wake(w, 1, shared);
                let _ = sys::futex_wait(w, 1, shared); // the word is 0: returns at once
            })
        }
        Mech::Condvar => {
            let state = Mutex::new((0i32, 0u32));
            let cv = Condvar::new();
            per_op(b, loop_ns, || {
                if let Ok(mut g) = state.lock() {
                    g.0 = black_box(g.0 + 1);
                    cv.notify_one();
                }
            })
        }
        Mech::Yield => per_op(b, loop_ns, sys::sched_yield),
    })
}

/// The labels of one method in one placement.
fn at<'a>(method: &'a str, placement: &'a str) -> [(&'static str, &'a str); 2] {
    [("method", method), ("placement", placement)]
}

fn analyze(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    let mut findings = Vec::new();
    let mut readings = Vec::new();
    for m in METHODS.iter().map(Method::name) {
        let base = r.median("baseline_ns", &[("method", m)]);
        let mut parts = Vec::new();
        for p in PLACEMENTS.iter().map(|p| p.name()) {
            let Some(raw) = r.median("switch_ns", &at(m, p)) else {
                continue;
            };
            if let Some(b) = base {
                let net = raw - b;
                readings.push(Reading {
                    name: "net_switch_ns".into(),
                    unit: Unit::Ns,
                    labels: labels(&at(m, p)),
                    value: net,
                });
                parts.push(format!(
                    "{p} raw {} / baseline {} / net {}{}",
                    fmt_ns(raw),
                    fmt_ns(b),
                    fmt_ns(net),
                    if net < 0.0 {
                        " (negative: odd, shown as measured)"
                    } else {
                        ""
                    }
                ));
            }
        }
        if !parts.is_empty() {
            findings.push(format!("{m} per switch: {}", parts.join("; ")));
        }
    }
    // Same CPU: the switch path, with its switch counts.
    for m in [
        "pipe_processes",
        "pipe_threads",
        "futex_threads",
        "condvar",
        "sched_yield",
    ] {
        let (Some(s), Some(n)) = (
            r.median("switch_ns", &at(m, "same_cpu")),
            r.median("switches_per_round_trip", &at(m, "same_cpu")),
        ) else {
            continue;
        };
        let vol = r
            .median("voluntary_per_round_trip", &at(m, "same_cpu"))
            .unwrap_or(0.0);
        let verdict = if (n - 2.0).abs() <= 0.3 {
            "close to 2, one switch each way: the figure is a switch".to_string()
        } else if n < 1.5 {
            "fewer than 2: some hand-offs happened without a switch, so the figure is not all switch".to_string()
        } else {
            "more than 2: extra switches (preemption or migration) are in the figure".to_string()
        };
        findings.push(format!(
            "same CPU, {m}: {} per switch is the kernel's switch path; {n:.2} switches per round trip ({vol:.2} voluntary), {verdict}",
            fmt_ns(s)
        ));
        break;
    }
    if let Some(n) = r.median("switches_per_round_trip", &at("condvar", "same_cpu")) {
        if n > 2.5 {
            findings.push(format!(
                "condvar on one CPU: {n:.2} switches per round trip, not 2: the notified thread wakes while the notifier still holds the mutex, blocks on it, and is woken again; its figure is more than one switch"
            ));
        }
    }
    if let Some(y) = r.median("involuntary_per_round_trip", &at("sched_yield", "same_cpu")) {
        findings.push(format!(
            "sched_yield hands over with {y:.2} involuntary switches per round trip: a yielding task stays runnable, so getrusage counts its switches as involuntary"
        ));
    }
    // Two CPUs: wake-up latency, and what keeping the CPUs awake removes.
    for m in METHODS.iter().map(Method::name) {
        let (Some(same), Some(cross)) = (
            r.median("switch_ns", &at(m, "same_cpu")),
            r.median("switch_ns", &at(m, "two_cpus")),
        ) else {
            continue;
        };
        let mut f = format!(
            "{m}: on two CPUs a hand-off costs {} vs {} on one: that is wake-up latency (an inter-processor interrupt and the other CPU leaving idle), not the switch path",
            fmt_ns(cross),
            fmt_ns(same)
        );
        if let Some(awake) = r.median("switch_ns", &at(m, "two_cpus_awake")) {
            let idle_part = cross - awake;
            let dominant = if idle_part > awake {
                "waking the idle CPU dominates"
            } else {
                "the hand-off itself dominates, not waking an idle CPU"
            };
            f.push_str(&format!(
                "; with both CPUs kept awake by SCHED_IDLE spinners it costs {}: {dominant} ({} of the {} is leaving idle{})",
                fmt_ns(awake),
                fmt_ns(idle_part.max(0.0)),
                fmt_ns(cross),
                if idle_part > awake {
                    ", large as on virtual machines where an idle vCPU halts into the hypervisor"
                } else {
                    ""
                }
            ));
        }
        findings.push(f);
        break;
    }
    for m in ["pipe_threads", "condvar"] {
        if let (Some(pin), Some(un)) = (
            r.median("switch_ns", &at(m, "same_cpu")),
            r.median("switch_ns", &at(m, "unpinned")),
        ) {
            let frac = r
                .reading("same_cpu_fraction", &at(m, "unpinned"))
                .unwrap_or(0.0);
            findings.push(format!(
                "{m} unpinned: {} per switch vs {} pinned ({:.1}x; seed 002: ~2.2 vs 1.2–1.5 µs); the scheduler kept the two tasks on one CPU in {:.0}% of batches",
                fmt_ns(un),
                fmt_ns(pin),
                un / pin.max(1.0),
                frac * 100.0
            ));
        }
    }
    if let (Some(sw), Some(copy)) = (
        r.median("switch_ns", &at("pipe_threads", "same_cpu")),
        r.median("copy_ns", &[("size", "64 KiB")]),
    ) {
        findings.push(format!(
            "yardstick: a pinned pipe switch costs {} and a memcpy of 64 KiB {} ({:.2}x; seed 002: 1.2–1.5 µs vs ~3 µs, \"a bit quicker than copying 64 KiB\")",
            fmt_ns(sw),
            fmt_ns(copy),
            sw / copy.max(1.0)
        ));
    }
    if let (Some(t), Some(p)) = (
        r.median("switch_ns", &at("pipe_threads", "same_cpu")),
        r.median("switch_ns", &at("pipe_processes", "same_cpu")),
    ) {
        findings.push(format!(
            "threads vs processes on one CPU (pipe): {} vs {} per switch; a process switch also changes the address space",
            fmt_ns(t),
            fmt_ns(p)
        ));
    }
    a.readings.extend(readings);
    a.findings.extend(findings);
    a.headlines.extend(placement_headline(r));
    a
}

/// The same-CPU switch against the wake-up on the other CPU.
fn placement_headline(e: &ExperimentResult) -> Option<String> {
    for method in ["pipe_threads", "futex_threads", "pipe_processes"] {
        let same = e.median("switch_ns", &at(method, "same_cpu"));
        let apart = e.median("switch_ns", &at(method, "two_cpus"));
        if let (Some(a), Some(b)) = (same, apart) {
            return Some(format!(
                "a same-CPU switch costs {} ({}); waking a task on the other CPU costs {} ({:.1}x)",
                fmt_ns(a),
                method.replace('_', " "),
                fmt_ns(b),
                b / a
            ));
        }
    }
    None
}

#[cfg(test)]
#[path = "pingpong_tests.rs"]
mod tests;
