//! Yardsticks: what reading a clock, a bare system call and a memcpy cost
//! here. The seeds use them to put creation and switch times in proportion
//! (Sysel §4: clock_gettime ≈ 94 ns, chrono ≈ 110 ns; Bendersky: memcpy of
//! 64 KiB ≈ 3 µs, of 2 MB ≈ 60 µs).

use super::*;
use crate::measure::sampler::{per_op, Budget};
use crate::sys;
use std::hint::black_box;
use std::time::Instant;

pub static TIMER: Experiment = Experiment {
    name: "yardstick.timer",
    group: "yardstick",
    summary: "cost of one clock read: clock_gettime MONOTONIC and REALTIME, Instant::now, rdtsc",
    reproduces: "Sysel §4.1-4.2: clock_gettime and chrono overhead",
    params: &[],
    seeds: &[
        SeedFigure {
            metric: "call_ns",
            labels: &[("clock", "realtime")],
            lo: 94.0,
            hi: 94.0,
            unit: Unit::Ns,
            source: SEED_SYSEL,
            hardware: SYSEL_HW,
            method: "an empty region timed with clock_gettime(CLOCK_REALTIME), at 3.4 GHz",
        },
        SeedFigure {
            metric: "call_ns",
            labels: &[("clock", "instant")],
            lo: 110.0,
            hi: 110.0,
            unit: Unit::Ns,
            source: SEED_SYSEL,
            hardware: SYSEL_HW,
            method:
                "C++ std::chrono::high_resolution_clock::now(), the nearest to Rust's Instant::now",
        },
    ],
    hidden: false,
    supported: always_supported,
    points: single_point,
    measure: measure_timer,
    analyze: analyze_timer,
};

fn measure_timer(job: &Job) -> anyhow::Result<WorkerOutput> {
    let b = Budget::from_job(job).scaled(0.5);
    let lo = job.loop_overhead_ns;
    let mut out = WorkerOutput::default();
    let clock = |c: &str| labels(&[("clock", c)]);
    out.push(
        "call_ns",
        Unit::Ns,
        clock("monotonic"),
        per_op(&b, lo, || {
            black_box(sys::monotonic_ns());
        }),
    );
    out.push(
        "call_ns",
        Unit::Ns,
        clock("realtime"),
        per_op(&b, lo, || {
            black_box(sys::realtime_ns());
        }),
    );
    out.push(
        "call_ns",
        Unit::Ns,
        clock("instant"),
        per_op(&b, lo, || {
            black_box(Instant::now());
        }),
    );
    if sys::rdtsc().is_some() {
        out.push(
            "call_ns",
            Unit::Ns,
            clock("rdtsc"),
            per_op(&b, lo, || {
                black_box(sys::rdtsc());
            }),
        );
    } else {
        out.notes
            .push("no time-stamp counter on this architecture: rdtsc skipped".into());
    }
    Ok(out)
}

fn analyze_timer(r: &mut ExperimentResult) {
    let get = |c: &str| r.find("call_ns", &[("clock", c)]).map(|m| m.summary.median);
    if let (Some(mono), Some(rdtsc)) = (get("monotonic"), get("rdtsc")) {
        let f = format!(
            "reading CLOCK_MONOTONIC costs {} ({:.1}x an rdtsc at {}): {}",
            crate::report::fmt_ns(mono),
            mono / rdtsc.max(0.01),
            crate::report::fmt_ns(rdtsc),
            if mono < 100.0 {
                "the vDSO serves it without entering the kernel"
            } else {
                "slow enough that the clock source may not be vDSO-readable (check `tasklab env`: clock source)"
            }
        );
        r.findings.push(f);
    }
}

pub static SYSCALL: Experiment = Experiment {
    name: "yardstick.syscall",
    group: "yardstick",
    summary: "cost of one bare system call (getppid): the floor under every kernel switch",
    reproduces: "a yardstick the seeds imply: every switch and creation enters the kernel",
    params: &[],
    seeds: &[],
    hidden: false,
    supported: always_supported,
    points: single_point,
    measure: |job| {
        let mut out = WorkerOutput::default();
        let b = Budget::from_job(job).scaled(0.5);
        out.push(
            "call_ns",
            Unit::Ns,
            labels(&[("call", "getppid")]),
            per_op(&b, job.loop_overhead_ns, || {
                black_box(sys::bare_syscall());
            }),
        );
        Ok(out)
    },
    analyze: |r| {
        if let Some(m) = r.find("call_ns", &[]) {
            let f = format!(
                "a bare system call costs {}: entering and leaving the kernel, mitigations included",
                crate::report::fmt_ns(m.summary.median)
            );
            r.findings.push(f);
        }
    },
};

pub static MEMCPY: Experiment = Experiment {
    name: "yardstick.memcpy",
    group: "yardstick",
    summary: "memcpy of 64 KiB (about a process's page tables) and of 2 MiB",
    reproduces:
        "Bendersky (clone): memcpy 64 KiB ≈ 3 µs, 2 MB ≈ 60 µs, the yardstick for launch cost",
    params: &[ParamSpec {
        name: "sizes",
        help: "copy sizes",
        kind: ParamKind::SizeList {
            min: 1,
            max: 1 << 30,
        },
        quick: "64K,2M",
        thorough: "4K,64K,2M,64M",
    }],
    seeds: &[
        SeedFigure {
            metric: "copy_ns",
            labels: &[("size", "64 KiB")],
            lo: 3000.0,
            hi: 3000.0,
            unit: Unit::Ns,
            source: SEED_CLONE,
            hardware: BENDERSKY_HW,
            method: "memcpy in a loop",
        },
        SeedFigure {
            metric: "copy_ns",
            labels: &[("size", "2 MiB")],
            lo: 60000.0,
            hi: 60000.0,
            unit: Unit::Ns,
            source: SEED_CLONE,
            hardware: BENDERSKY_HW,
            method: "memcpy of 2 MB (\"over 60 us\")",
        },
    ],
    hidden: false,
    supported: always_supported,
    points: single_point,
    measure: measure_memcpy,
    analyze: |r| {
        let mut findings = Vec::new();
        for m in r.metrics_named("copy_ns") {
            let size = m
                .label("bytes")
                .and_then(|b| b.parse::<f64>().ok())
                .unwrap_or(0.0);
            if size > 0.0 {
                let f = format!(
                    "memcpy of {} takes {} ({:.1} GB/s)",
                    m.label("size").unwrap_or("?"),
                    crate::report::fmt_ns(m.summary.median),
                    size / m.summary.median.max(1e-9)
                );
                findings.push(f);
            }
        }
        r.findings.extend(findings);
    },
};

fn measure_memcpy(job: &Job) -> anyhow::Result<WorkerOutput> {
    let mut out = WorkerOutput::default();
    let sizes = job.params.list("sizes");
    let b = Budget::from_job(job).scaled(1.0 / sizes.len() as f64);
    for size in sizes {
        let src = vec![1u8; size as usize];
        let mut dst = vec![0u8; size as usize];
        let samples = per_op(&b, job.loop_overhead_ns, || {
            dst.copy_from_slice(black_box(&src));
            black_box(&mut dst);
        });
        let name = params::fmt_size(size);
        out.push(
            "copy_ns",
            Unit::Ns,
            labels(&[("size", &name), ("bytes", &size.to_string())]),
            samples,
        );
    }
    Ok(out)
}
