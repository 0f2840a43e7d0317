//! memory.threads: Bendersky's blocked threads (`002_…`): 10,000 threads
//! ≈ 80 GiB virtual, ≈ 80 MiB resident; 400 KiB of stack touched in each
//! ≈ 2.6 GiB, not 4 GiB, checked against the exact count of smaps_rollup.

use super::bounds::{binding, limit_inputs, thread_bounds, THREAD_FLOOR_BYTES};
use super::crowd::Crowd;
use super::threads_findings::*;
use super::{default_stack, usable_memory, Snap, RSS_GROWTH_KIB};
use crate::experiments::prelude::*;
use crate::measure::rss::{self, RSS_BOUND_KIB, RSS_CROSS_CHECK_KIB};
use crate::measure::why;
use crate::metric::key::{THREADS, VARIANT};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The series are declared in `threads_findings`, which reads them too.
pub static EXPERIMENT: Experiment = Experiment {
    name: "memory.threads",
    metrics: &[
        &CREATE_NS,
        &CREATE_PER_THREAD_NS,
        &READY_NS,
        &TOUCH_ALL_NS,
        &VIRT_PER_THREAD_KIB,
        &RSS_PER_THREAD_KIB,
        &RSS_EXACT_PER_THREAD_KIB,
        &KERNEL_STACK_PER_THREAD_KIB,
        &KERNEL_KIB_PER_1000_THREADS,
        &PAGE_TABLES_PER_THREAD_BYTES,
        &VM_SIZE_GROWTH_KIB,
        &RSS_GROWTH_KIB,
        &RSS_EXACT_GROWTH_KIB,
        &THREADS_SEEN,
        &RSS_BOUND_KIB,
        &RSS_CROSS_CHECK_KIB,
    ],
    summary: "N blocked threads: VmSize, VmRSS (vs the exact smaps count), VmPTE, KernelStack; per thread; creation time",
    reproduces: "Bendersky: 10,000 threads ≈ 80 GiB virtual, ≈ 80 MiB resident; 400 KiB touched each ≈ 2.6 GiB, not 4 GiB",
    params: &[THREADS_PARAM.spec, VARIANTS_PARAM.spec, SMALL_STACK_PARAM.spec, TOUCH_PARAM.spec],
    seeds: &[
        SeedFigure::of(
            &VM_SIZE_GROWTH_KIB,
            (80.0 * 1024.0 * 1024.0, 80.0 * 1024.0 * 1024.0),
            SeedStat::OneReading,
            SEED_SWITCH,
            BENDERSKY_HW,
            "~80 GiB virtual seen in top/htop for 10,000 threads",
        )
        .labels(&[(VARIANT, DEFAULT.name), (THREADS, "10000")]),
        SeedFigure::of(
            &RSS_GROWTH_KIB,
            (80.0 * 1024.0, 80.0 * 1024.0),
            SeedStat::OneReading,
            SEED_SWITCH,
            BENDERSKY_HW,
            "~80 MiB resident seen in top/htop for 10,000 threads (the whole process)",
        )
        .labels(&[(VARIANT, DEFAULT.name), (THREADS, "10000")]),
        SeedFigure::of(
            &RSS_GROWTH_KIB,
            (2.6 * 1024.0 * 1024.0, 2.6 * 1024.0 * 1024.0),
            SeedStat::OneReading,
            SEED_SWITCH,
            BENDERSKY_HW,
            "total RSS with 400 KiB of stack used by each of 10,000 threads (\"around 2.6 GiB\")",
        )
        .labels(&[(VARIANT, TOUCH.name), (THREADS, "10000"), (TOUCHED, "400 KiB")]),
        SeedFigure::of(
            &VIRT_PER_THREAD_KIB,
            (8_388.6, 8_388.6),
            SeedStat::OneReading,
            SEED_SWITCH,
            BENDERSKY_HW,
            "~80 GiB / 10,000 threads",
        )
        .labels(&[(VARIANT, DEFAULT.name)]),
        SeedFigure::of(
            &RSS_PER_THREAD_KIB,
            (8.192, 8.192),
            SeedStat::OneReading,
            SEED_SWITCH,
            BENDERSKY_HW,
            "~80 MiB / 10,000 threads (whole-process RSS, so an upper bound)",
        )
        .labels(&[(VARIANT, DEFAULT.name)]),
        SeedFigure::of(
            &RSS_PER_THREAD_KIB,
            (272.6, 272.6),
            SeedStat::OneReading,
            SEED_SWITCH,
            BENDERSKY_HW,
            "~2.6 GiB / 10,000 threads",
        )
        .labels(&[(VARIANT, TOUCH.name), (TOUCHED, "400 KiB")]),
    ],
    points,
    measure,
    analyze,
    attributed: true,
    headlines,
    memory_work: true,
    ..Experiment::DEFAULT
};

pub const THREADS_PARAM: Param<Vec<u64>> = Param::numbers(ParamSpec {
        name: "threads",
        help: "thread counts to start and block, each in its own rounds (clamped to this machine's limits)",
        kind: ParamKind::CountList { min: 1, max: 4_194_304 },
        // Two counts give the per-thread slope; eight rounds of a third
        // cost 2.4 s of the quick minute.
        quick: "500,2000",
        thorough: "1000,5000,10000",
    });

pub const VARIANTS_PARAM: Param<Vec<String>> = Param::names(ParamSpec {
        name: "variants",
        help: "default stack; a small stack (pthread_attr_setstacksize); default stack with `touch` bytes used",
        kind: ParamKind::Names(VARIANTS),
        quick: "all",
        thorough: "all",
    });

pub const SMALL_STACK_PARAM: Param<u64> = Param::number(ParamSpec {
    name: "small_stack",
    help: "stack size of the small variant",
    kind: ParamKind::Size {
        min: 16 << 10,
        max: 1 << 30,
    },
    quick: "64K",
    thorough: "64K",
});

pub const TOUCH_PARAM: Param<u64> = Param::number(ParamSpec {
    name: "touch",
    help: "stack each thread of the touch variant uses",
    kind: ParamKind::Size {
        min: 4 << 10,
        max: 1 << 30,
    },
    quick: "400K",
    thorough: "400K",
});

/// Resident memory one thread is expected to need at most, when it
/// touches `touch_bytes` of its stack.
fn thread_resident_estimate(touch_bytes: u64) -> u64 {
    touch_bytes + THREAD_FLOOR_BYTES
}

/// The stack (None: the default) and the bytes of it each thread of
/// `variant` uses.
fn stack_and_touch(variant: &str, small_bytes: u64, touch_bytes: u64) -> (Option<u64>, u64) {
    if variant == SMALL.name {
        (Some(small_bytes), 0)
    } else if variant == TOUCH.name {
        (None, touch_bytes)
    } else {
        (None, 0)
    }
}

/// One memory.threads job: `threads` threads of one variant, each on a
/// stack of `stack` bytes (None: glibc's default, `default_stack` here)
/// and writing `touch` bytes of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadsPoint {
    pub variant: String,
    pub threads: u64,
    pub stack: Option<u64>,
    pub touch: u64,
    pub default_stack: u64,
}

fn points(ctx: &PlanCtx) -> Result<Points, String> {
    let mut pts = Points::default();
    let variants = ctx.params.get(&VARIANTS_PARAM);
    let counts = ctx.params.get(&THREADS_PARAM);
    let mut n = counts.iter().copied().max().unwrap_or(1);
    let small_bytes = ctx.params.get(&SMALL_STACK_PARAM);
    let mut touch_bytes = ctx.params.get(&TOUCH_PARAM);
    let stack_bytes = default_stack(ctx.env);
    let min_stack_bytes = crate::sys::pthread::min_thread_stack() as u64;
    if small_bytes < min_stack_bytes {
        return Err(format!(
            "small_stack {} is below PTHREAD_STACK_MIN ({}) here",
            fmt_size(small_bytes),
            fmt_size(min_stack_bytes)
        ));
    }
    let touching = variants.iter().any(|v| v == TOUCH.name);
    // The touch must fit the default stack with room for the thread's frames.
    let room_bytes = stack_bytes.saturating_sub(64 << 10);
    if touching && touch_bytes > room_bytes {
        let msg = format!(
            "touch {} does not fit the default thread stack of {} (at most {})",
            fmt_size(touch_bytes),
            fmt_size(stack_bytes),
            fmt_size(room_bytes)
        );
        if ctx.set_by_user(&TOUCH_PARAM) {
            return Err(msg);
        }
        touch_bytes = room_bytes;
        pts.notes
            .push(format!("{msg}; clamped to {}", fmt_size(touch_bytes)));
    }
    // Limits: leave a tenth of the binding bound to others, and of a bound
    // the rest of the system shares (tasks, pids, memory) up to 100 threads
    // more; this process's own address space and map count are its alone.
    let bounds = thread_bounds(&limit_inputs(ctx.env, stack_bytes.max(small_bytes)));
    if let Some((name, most, why)) = binding(&bounds) {
        let own = matches!(*name, "address space" | "vm.max_map_count");
        let kept = if own { 0 } else { 100.min(most / 4) };
        let allowed = (most - most / 10).saturating_sub(kept).max(1);
        if n > allowed {
            let bound = format!(
                "{n} threads is more than this machine allows one process now: {name} bounds it at {most} ({why})"
            );
            let room = format!(
                "{allowed} {}",
                if own {
                    "leaves a tenth of it spare"
                } else {
                    "leaves room for the rest of the system"
                }
            );
            if ctx.set_by_user(&THREADS_PARAM) {
                return Err(format!("{bound}; {room}"));
            }
            n = allowed;
            pts.fewer(bound, &format!("{room}; clamped to {n} threads"));
        }
    }
    // Memory: the touched variant makes every thread resident.
    let usable_bytes = usable_memory(ctx.env);
    let touched_bytes = if touching { touch_bytes } else { 0 };
    let per_thread_bytes = thread_resident_estimate(touched_bytes);
    let fits = (usable_bytes / 2) / per_thread_bytes;
    if n > fits {
        let msg = format!(
            "{n} threads x {} resident each (touch {} + about {} of kernel stack and page tables) needs {}, but only {} is available and half must stay free (at most {fits} threads)",
            fmt_size(per_thread_bytes),
            fmt_size(touched_bytes),
            fmt_size(THREAD_FLOOR_BYTES),
            fmt_size(n * per_thread_bytes),
            fmt_size(usable_bytes),
        );
        if ctx.set_by_user(&THREADS_PARAM) || ctx.set_by_user(&TOUCH_PARAM) {
            return Err(msg);
        }
        n = fits.max(1);
        pts.fewer(msg, &format!("clamped to {n} threads"));
    }
    // `n` is now the most this machine takes; larger counts become `n`.
    let mut counts: Vec<u64> = counts.iter().map(|&c| c.min(n)).collect();
    counts.sort_unstable();
    counts.dedup();
    for &count in &counts {
        for v in &variants {
            let (stack, touch) = stack_and_touch(v, small_bytes, touch_bytes);
            // Each point runs in a fresh worker per round, so glibc's cache
            // of freed thread stacks cannot hide the next round's cost.
            pts.push(&ThreadsPoint {
                variant: v.clone(),
                threads: count,
                stack,
                touch,
                default_stack: stack_bytes,
            });
        }
    }
    Ok(pts)
}

fn measure(job: &Job) -> anyhow::Result<WorkerOutput> {
    let p: ThreadsPoint = job.point()?;
    let variant = p.variant;
    let n = p.threads as usize;
    let stack_bytes = p.stack.map(|s| s as usize);
    let touch_bytes = p.touch as usize;
    let default_stack_bytes = p.default_stack;
    let mut out = WorkerOutput::default();

    let mut crowd = Crowd::with_capacity(n);
    let before = Snap::now()?;
    // `run --why` samples the creation and the readying, one window: the
    // threads as asked, relabelled below if fewer started.
    let asked = why_labels(
        &variant,
        &n.to_string(),
        stack_bytes,
        default_stack_bytes,
        touch_bytes,
    );
    let scope = why::Scope::enter(&asked);
    let window = why::Window::open();
    let t0 = crate::sys::monotonic_ns();
    let mut refused = None;
    for _ in 0..n {
        if let Err(e) = crowd.spawn(stack_bytes, touch_bytes) {
            refused = Some(e);
            break;
        }
    }
    let t1 = crate::sys::monotonic_ns();
    let created_ns = (t1 - t0) as f64;
    let started = crowd.len();
    crowd.go();
    if !crowd.all_arrived(Duration::from_secs(120)) {
        anyhow::bail!("the started threads did not all reach the gate within 120 s");
    }
    // From "go" until every thread has touched its stack and blocked.
    let ready_ns = (crate::sys::monotonic_ns() - t1) as f64;
    drop(window);
    drop(scope);
    let after = Snap::now()?;
    let bound = rss::bound_now();
    drop(crowd);
    if let Some(e) = refused {
        let why = format!("{variant}: thread {} of {n} was refused ({e})", started + 1);
        out.notes
            .push(format!("{why}; figures are for the {started} started"));
        out.fewer_than_asked.push(why);
    }
    if started == 0 {
        anyhow::bail!("no thread could be started");
    }
    let per = started as f64;
    let stack_name = fmt_size(stack_bytes.map_or(default_stack_bytes, |s| s as u64));
    let started_name = started.to_string();
    let mut base = vec![
        (VARIANT, variant.as_str()),
        (THREADS, started_name.as_str()),
        (STACK, stack_name.as_str()),
    ];
    let touch_name = fmt_size(touch_bytes as u64);
    if touch_bytes > 0 {
        base.push((TOUCHED, touch_name.as_str()));
    }
    let l = labels(&base);
    if l != asked {
        why::relabel(&asked, &l);
    }
    // The bound of one VmRSS reading, taken while the threads were alive
    // (before 6.2 it grows with them), and the cross-check against
    // smaps_rollup, read together.
    if let Some(b) = bound {
        rss::push_bound(&mut out, &l, b);
    }
    rss::cross_check(&mut out, &l, after.vm_rss_kib, after.rss_exact_kib);
    // How much a figure of the snapshot grew while the threads started.
    let growth = |f: fn(&Snap) -> f64| f(&after) - f(&before);
    let one = |v: f64| vec![v];
    out.push(
        &VM_SIZE_GROWTH_KIB,
        l.clone(),
        one(growth(|s| s.vm_size_kib)),
    );
    out.push(&RSS_GROWTH_KIB, l.clone(), one(growth(|s| s.vm_rss_kib)));
    out.push(
        &RSS_EXACT_GROWTH_KIB,
        l.clone(),
        one(growth(|s| s.rss_exact_kib)),
    );
    out.push(
        &VIRT_PER_THREAD_KIB,
        l.clone(),
        one(growth(|s| s.vm_size_kib) / per),
    );
    out.push(
        &RSS_PER_THREAD_KIB,
        l.clone(),
        one(growth(|s| s.vm_rss_kib) / per),
    );
    out.push(
        &RSS_EXACT_PER_THREAD_KIB,
        l.clone(),
        one(growth(|s| s.rss_exact_kib) / per),
    );
    out.push(
        &KERNEL_STACK_PER_THREAD_KIB,
        l.clone(),
        one(growth(|s| s.kernel_stack_kib) / per),
    );
    // The kernel's own memory per 1,000 threads, from /proc/meminfo.
    type Field = fn(&Snap) -> f64;
    let kernel: [(&str, Field); 4] = [
        ("KernelStack", |s| s.kernel_stack_kib),
        ("PageTables", |s| s.page_tables_kib),
        ("Slab", |s| s.slab_kib),
        ("SUnreclaim", |s| s.sunreclaim_kib),
    ];
    for (kind, field) in kernel {
        let mut with = base.clone();
        with.push((MEMINFO, kind));
        out.push_detail(
            &KERNEL_KIB_PER_1000_THREADS,
            labels(&with),
            one(growth(field) * 1000.0 / per),
        );
    }
    out.push_detail(
        &PAGE_TABLES_PER_THREAD_BYTES,
        l.clone(),
        one(growth(|s| s.vm_pte_kib) * 1024.0 / per),
    );
    out.push(&CREATE_NS, l.clone(), one(created_ns));
    out.push_detail(&CREATE_PER_THREAD_NS, l.clone(), one(created_ns / per));
    if touch_bytes > 0 {
        out.push(&TOUCH_ALL_NS, l.clone(), one(ready_ns));
    } else {
        out.push_detail(&READY_NS, l.clone(), one(ready_ns));
    }
    out.push_detail(
        &THREADS_SEEN,
        l,
        one(after.threads as f64 - before.threads as f64),
    );
    Ok(out)
}

/// The labels of a point's series: variant, threads, stack, and the bytes
/// touched when any.
fn why_labels(
    variant: &str,
    threads: &str,
    stack_bytes: Option<usize>,
    default_stack_bytes: u64,
    touch_bytes: usize,
) -> Labels {
    let stack_name = fmt_size(stack_bytes.map_or(default_stack_bytes, |s| s as u64));
    let touch_name = fmt_size(touch_bytes as u64);
    let mut base = vec![
        (VARIANT, variant),
        (THREADS, threads),
        (STACK, stack_name.as_str()),
    ];
    if touch_bytes > 0 {
        base.push((TOUCHED, touch_name.as_str()));
    }
    labels(&base)
}

#[cfg(test)]
#[path = "threads_tests.rs"]
mod tests;
