//! Yardsticks: what reading a clock, a bare system call and a memcpy cost
//! here. The seeds use them to put creation and switch times in proportion
//! (Sysel §4: clock_gettime ≈ 94 ns, chrono ≈ 110 ns; Bendersky: memcpy of
//! 64 KiB ≈ 3 µs, of 2 MB ≈ 60 µs).

use super::prelude::*;
use crate::measure::sampler::{per_op, Budget};
use crate::sys;
use std::hint::black_box;
use std::time::Instant;

pub static TIMER: Experiment = Experiment {
    name: "yardstick.timer",
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
    ..Experiment::DEFAULT
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

fn analyze_timer(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    let get = |c: &str| r.find("call_ns", &[("clock", c)]).map(|m| m.summary.median);
    if let (Some(mono), Some(rdtsc)) = (get("monotonic"), get("rdtsc")) {
        let f = format!(
            "reading CLOCK_MONOTONIC costs {} ({:.1}x an rdtsc at {}): {}",
            fmt_ns(mono),
            mono / rdtsc.max(0.01),
            fmt_ns(rdtsc),
            if mono < 100.0 {
                "the vDSO serves it without entering the kernel"
            } else {
                "slow enough that the clock source may not be vDSO-readable (check `tasklab env`: clock source)"
            }
        );
        a.findings.push(f);
    }
    a
}

pub static SYSCALL: Experiment = Experiment {
    name: "yardstick.syscall",
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
        let mut a = Analysis::default();
        if let Some(m) = r.find("call_ns", &[]) {
            let f = format!(
                "a bare system call costs {}: entering and leaving the kernel, mitigations included",
                fmt_ns(m.summary.median)
            );
            a.findings.push(f);
            a.headlines.push(format!(
                "a bare system call costs {}: the scale every other figure is measured against",
                fmt_ns(m.summary.median)
            ));
        }
        a
    },
    ..Experiment::DEFAULT
};

pub static MEMCPY: Experiment = Experiment {
    name: "yardstick.memcpy",
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
            labels: &[("size", "64 KiB"), ("layout", "aligned")],
            lo: 3000.0,
            hi: 3000.0,
            unit: Unit::Ns,
            source: SEED_CLONE,
            hardware: BENDERSKY_HW,
            method: "memcpy in a loop",
        },
        SeedFigure {
            metric: "copy_ns",
            labels: &[("size", "2 MiB"), ("layout", "aligned")],
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
        let mut a = Analysis::default();
        let mut findings = Vec::new();
        for m in r.metrics_named("copy_ns") {
            let size = m
                .label("bytes")
                .and_then(|b| b.parse::<f64>().ok())
                .unwrap_or(0.0);
            if size > 0.0 {
                let f = format!(
                    "memcpy of {} ({}) takes {} ({:.1} GB/s)",
                    m.label("size").unwrap_or("?"),
                    m.label("layout").unwrap_or("?"),
                    fmt_ns(m.summary.median),
                    size / m.summary.median.max(1e-9)
                );
                findings.push(f);
            }
        }
        // The same copy, the destination 16 bytes further on: a large gap is
        // the copy routine's slow path on this CPU, not the memory.
        for m in r
            .metrics_named("copy_ns")
            .filter(|m| m.label("layout") == Some("dst+16"))
        {
            let size = m.label("size").unwrap_or("?");
            if let Some(a) = r.find("copy_ns", &[("size", size), ("layout", "aligned")]) {
                let k = m.summary.median / a.summary.median.max(1e-9);
                if k > 2.0 {
                    findings.push(format!(
                        "odd but real: a {size} memcpy takes {} when the destination sits 16 bytes past the source's \
                         page offset (where two malloc'd neighbours land) against {} page-aligned, {k:.0}x slower: \
                         glibc copies mid sizes with `rep movsb`, which this CPU (or its hypervisor) runs slowly for that \
                         layout; `bench/fidelity/fork_loop.c memcpy64k+16` shows the same from C",
                        fmt_ns(m.summary.median),
                        fmt_ns(a.summary.median)
                    ));
                }
            }
        }
        a.findings.extend(findings);
        a
    },
    ..Experiment::DEFAULT
};

fn measure_memcpy(job: &Job) -> anyhow::Result<WorkerOutput> {
    let mut out = WorkerOutput::default();
    let sizes = job.params.list("sizes");
    let b = Budget::from_job(job).scaled(0.5 / sizes.len() as f64);
    for size in sizes {
        let size = size as usize;
        // One buffer, both halves page-aligned ("aligned"), then the
        // destination moved 16 bytes on ("dst+16"): where two malloc'd
        // neighbours land (each block has a 16-byte header), and a layout
        // some CPUs copy far more slowly.
        let gap = size.div_ceil(4096) * 4096;
        let mut buf = vec![1u8; 2 * gap + 2 * 4096];
        let start = buf.as_ptr().align_offset(4096);
        for (layout, shift) in [("aligned", 0usize), ("dst+16", 16)] {
            let (head, tail) = buf[start..].split_at_mut(gap);
            let src = &head[..size];
            let dst = &mut tail[shift..shift + size];
            let samples = per_op(&b, job.loop_overhead_ns, || {
                dst.copy_from_slice(black_box(src));
                black_box(&mut *dst);
            });
            let name = fmt_size(size as u64);
            out.push(
                "copy_ns",
                Unit::Ns,
                labels(&[
                    ("size", &name),
                    ("bytes", &size.to_string()),
                    ("layout", layout),
                ]),
                samples,
            );
        }
    }
    Ok(out)
}
