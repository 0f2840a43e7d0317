//! memory.threads: Bendersky's blocked threads (`002_…`): 10,000 threads
//! ≈ 80 GiB virtual, ≈ 80 MiB resident; 400 KiB of stack touched in each
//! ≈ 2.6 GiB, not 4 GiB, checked against the exact count of smaps_rollup.

use super::bounds::{binding, limit_inputs, thread_bounds, THREAD_FLOOR_BYTES};
use super::crowd::Crowd;
use super::{default_stack, usable_memory, Snap};
use crate::experiments::prelude::*;
use std::time::Duration;

const DEFAULT: Choice = Choice::new("default", "threads with the default stack size");
const SMALL: Choice = Choice::new(
    "small",
    "threads with a small stack (pthread_attr_setstacksize)",
);
const TOUCH: Choice = Choice::new("touch", "threads that each touch part of their stack");

/// The variants: what `-p variants=` accepts, what `tasklab list` prints,
/// and what the rounds and the findings loop over.
const VARIANTS: &[Choice] = &[DEFAULT, SMALL, TOUCH];

pub static EXPERIMENT: Experiment = Experiment {
    name: "memory.threads",
    better: &[("create_ns", Better::Lower), ("create_per_thread_ns", Better::Lower), ("ready_ns", Better::Lower), ("touch_all_ns", Better::Lower), ("virt_per_thread_kib", Better::Lower), ("rss_per_thread_kib", Better::Lower), ("rss_exact_per_thread_kib", Better::Lower), ("kernel_stack_per_thread_kib", Better::Lower), ("page_tables_per_thread_bytes", Better::Lower), ("vm_size_growth_kib", Better::Lower), ("rss_growth_kib", Better::Lower), ("rss_exact_growth_kib", Better::Lower), ("threads_seen", Better::Neither)],
    summary: "N blocked threads: VmSize, VmRSS (vs the exact smaps count), VmPTE, KernelStack; per thread; creation time",
    reproduces: "Bendersky: 10,000 threads ≈ 80 GiB virtual, ≈ 80 MiB resident; 400 KiB touched each ≈ 2.6 GiB, not 4 GiB",
    params: &[
        ParamSpec {
            name: "threads",
            help: "thread counts to start and block, each in its own rounds (clamped to this machine's limits)",
            kind: ParamKind::CountList { min: 1, max: 4_194_304 },
            quick: "500,1000,2000",
            thorough: "1000,5000,10000",
        },
        ParamSpec {
            name: "variants",
            help: "default stack; a small stack (pthread_attr_setstacksize); default stack with `touch` bytes used",
            kind: ParamKind::Names(VARIANTS),
            quick: "all",
            thorough: "all",
        },
        ParamSpec {
            name: "small_stack",
            help: "stack size of the small variant",
            kind: ParamKind::Size { min: 16 << 10, max: 1 << 30 },
            quick: "64K",
            thorough: "64K",
        },
        ParamSpec {
            name: "touch",
            help: "stack each thread of the touch variant uses",
            kind: ParamKind::Size { min: 4 << 10, max: 1 << 30 },
            quick: "400K",
            thorough: "400K",
        },
    ],
    seeds: &[
        SeedFigure {
            metric: "vm_size_growth_kib",
            labels: &[("variant", DEFAULT.name), ("threads", "10000")],
            lo: 80.0 * 1024.0 * 1024.0,
            hi: 80.0 * 1024.0 * 1024.0,
            unit: Unit::Kib,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "~80 GiB virtual seen in top/htop for 10,000 threads",
            statistic: SeedStat::Median,
            cold: false,
        },
        SeedFigure {
            metric: "rss_growth_kib",
            labels: &[("variant", DEFAULT.name), ("threads", "10000")],
            lo: 80.0 * 1024.0,
            hi: 80.0 * 1024.0,
            unit: Unit::Kib,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "~80 MiB resident seen in top/htop for 10,000 threads (the whole process)",
            statistic: SeedStat::Median,
            cold: false,
        },
        SeedFigure {
            metric: "rss_growth_kib",
            labels: &[("variant", TOUCH.name), ("threads", "10000"), ("touch", "400 KiB")],
            lo: 2.6 * 1024.0 * 1024.0,
            hi: 2.6 * 1024.0 * 1024.0,
            unit: Unit::Kib,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "total RSS with 400 KiB of stack used by each of 10,000 threads (\"around 2.6 GiB\")",
            statistic: SeedStat::Median,
            cold: false,
        },
        SeedFigure {
            metric: "virt_per_thread_kib",
            labels: &[("variant", DEFAULT.name)],
            lo: 8_388.6,
            hi: 8_388.6,
            unit: Unit::Kib,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "~80 GiB / 10,000 threads",
            statistic: SeedStat::Median,
            cold: false,
        },
        SeedFigure {
            metric: "rss_per_thread_kib",
            labels: &[("variant", DEFAULT.name)],
            lo: 8.192,
            hi: 8.192,
            unit: Unit::Kib,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "~80 MiB / 10,000 threads (whole-process RSS, so an upper bound)",
            statistic: SeedStat::Median,
            cold: false,
        },
        SeedFigure {
            metric: "rss_per_thread_kib",
            labels: &[("variant", TOUCH.name), ("touch", "400 KiB")],
            lo: 272.6,
            hi: 272.6,
            unit: Unit::Kib,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "~2.6 GiB / 10,000 threads",
            statistic: SeedStat::Median,
            cold: false,
        },
    ],
    points,
    measure,
    analyze,
    ..Experiment::DEFAULT
};

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

fn points(ctx: &PlanCtx) -> Result<Points, String> {
    let mut pts = Points::default();
    let set = |n: &str| ctx.user_set.iter().any(|u| u == n);
    let variants = ctx.params.names("variants");
    let counts = ctx.params.list("threads");
    let mut n = counts.iter().copied().max().unwrap_or(1);
    let small_bytes = ctx.params.int("small_stack");
    let mut touch_bytes = ctx.params.int("touch");
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
        if set("touch") {
            return Err(msg);
        }
        touch_bytes = room_bytes;
        pts.notes
            .push(format!("{msg}; clamped to {}", fmt_size(touch_bytes)));
    }
    // Limits: leave a tenth of the binding bound (and 100 threads) to others.
    let bounds = thread_bounds(&limit_inputs(ctx.env, stack_bytes.max(small_bytes)));
    if let Some((name, most, why)) = binding(&bounds) {
        let allowed = (most - most / 10).saturating_sub(100).max(1);
        if n > allowed {
            let msg = format!(
                "{n} threads is more than this machine allows one process now: {name} bounds it at {most} ({why}); {allowed} leaves room for the rest of the system"
            );
            if set("threads") {
                return Err(msg);
            }
            n = allowed;
            pts.notes.push(format!("{msg}; clamped to {n} threads"));
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
        if set("threads") || set("touch") {
            return Err(msg);
        }
        n = fits.max(1);
        pts.notes.push(format!("{msg}; clamped to {n} threads"));
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
            pts.points.push(serde_json::json!({
                "variant": v, "threads": count,
                "stack": stack, "touch": touch, "default_stack": stack_bytes,
            }));
        }
    }
    Ok(pts)
}

fn measure(job: &Job) -> anyhow::Result<WorkerOutput> {
    let p = &job.point;
    let variant = p["variant"].as_str().unwrap_or(DEFAULT.name).to_string();
    let n = p["threads"].as_u64().unwrap_or(1) as usize;
    let stack_bytes = p["stack"].as_u64().map(|s| s as usize);
    let touch_bytes = p["touch"].as_u64().unwrap_or(0) as usize;
    let default_stack_bytes = p["default_stack"].as_u64().unwrap_or(8 << 20);
    let mut out = WorkerOutput::default();

    let mut crowd = Crowd::with_capacity(n);
    let before = Snap::now()?;
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
    let after = Snap::now()?;
    drop(crowd);
    if let Some(e) = refused {
        out.notes.push(format!(
            "{variant}: thread {} of {n} was refused ({e}); figures are for the {started} started",
            started + 1
        ));
    }
    if started == 0 {
        anyhow::bail!("no thread could be started");
    }
    let per = started as f64;
    let stack_name = fmt_size(stack_bytes.map_or(default_stack_bytes, |s| s as u64));
    let started_name = started.to_string();
    let mut base = vec![
        ("variant", variant.as_str()),
        ("threads", started_name.as_str()),
        ("stack", stack_name.as_str()),
    ];
    let touch_name = fmt_size(touch_bytes as u64);
    if touch_bytes > 0 {
        base.push(("touch", touch_name.as_str()));
    }
    let l = labels(&base);
    // How much a figure of the snapshot grew while the threads started.
    let growth = |f: fn(&Snap) -> f64| f(&after) - f(&before);
    let one = |v: f64| vec![v];
    out.push(
        "vm_size_growth_kib",
        Unit::Kib,
        l.clone(),
        one(growth(|s| s.vm_size_kib)),
    );
    out.push(
        "rss_growth_kib",
        Unit::Kib,
        l.clone(),
        one(growth(|s| s.vm_rss_kib)),
    );
    out.push(
        "rss_exact_growth_kib",
        Unit::Kib,
        l.clone(),
        one(growth(|s| s.rss_exact_kib)),
    );
    out.push(
        "virt_per_thread_kib",
        Unit::Kib,
        l.clone(),
        one(growth(|s| s.vm_size_kib) / per),
    );
    out.push(
        "rss_per_thread_kib",
        Unit::Kib,
        l.clone(),
        one(growth(|s| s.vm_rss_kib) / per),
    );
    out.push(
        "rss_exact_per_thread_kib",
        Unit::Kib,
        l.clone(),
        one(growth(|s| s.rss_exact_kib) / per),
    );
    out.push(
        "kernel_stack_per_thread_kib",
        Unit::Kib,
        l.clone(),
        one(growth(|s| s.kernel_stack_kib) / per),
    );
    out.push_detail(
        "page_tables_per_thread_bytes",
        Unit::Bytes,
        l.clone(),
        one(growth(|s| s.vm_pte_kib) * 1024.0 / per),
    );
    out.push("create_ns", Unit::Ns, l.clone(), one(created_ns));
    out.push_detail(
        "create_per_thread_ns",
        Unit::Ns,
        l.clone(),
        one(created_ns / per),
    );
    if touch_bytes > 0 {
        out.push("touch_all_ns", Unit::Ns, l.clone(), one(ready_ns));
    } else {
        out.push_detail("ready_ns", Unit::Ns, l.clone(), one(ready_ns));
    }
    out.push_detail(
        "threads_seen",
        Unit::Count,
        l,
        one(after.threads as f64 - before.threads as f64),
    );
    Ok(out)
}

/// The largest thread count measured for `variant`, as its label.
fn most_threads(r: &ExperimentResult, variant: &str) -> String {
    r.metrics
        .iter()
        .filter(|m| m.label("variant") == Some(variant))
        .filter_map(|m| m.label_num("threads"))
        .max()
        .map_or_else(|| "?".into(), |n| n.to_string())
}

/// Per variant, how resident and virtual memory grow with the thread
/// count: the slope is the cost of one more thread.
fn thread_growth_fits(r: &ExperimentResult) -> Vec<NamedFit> {
    let mut fits = Vec::new();
    for variant in names(VARIANTS) {
        for (metric, what) in [
            ("rss_exact_growth_kib", "resident"),
            ("vm_size_growth_kib", "virtual"),
        ] {
            let pts: Vec<(f64, f64)> = r
                .metrics_named(metric)
                .filter(|m| m.label("variant") == Some(variant))
                .filter_map(|m| Some((m.label_num("threads")? as f64, m.summary.median)))
                .collect();
            if pts.len() < 3 {
                continue;
            }
            let (xs, ys): (Vec<f64>, Vec<f64>) = pts.into_iter().unzip();
            if let Some(fit) = crate::stats::linear_fit(&xs, &ys) {
                fits.push(NamedFit {
                    name: format!("{variant} {what} KiB vs threads"),
                    labels: labels(&[("variant", variant), ("what", what)]),
                    x_unit: "thread".into(),
                    y_unit: "KiB".into(),
                    fit,
                });
            }
        }
    }
    fits
}

fn analyze(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    let fits = thread_growth_fits(r);
    let f = &mut a.findings;
    // The findings speak of the largest count measured for each variant.
    let most: Vec<(&str, String)> = names(VARIANTS)
        .into_iter()
        .map(|v| (v, most_threads(r, v)))
        .collect();
    let at = |variant: &str| {
        most.iter()
            .find(|m| m.0 == variant)
            .map_or("?", |m| m.1.as_str())
    };
    let v = |name: &str, variant: &str| {
        r.median(name, &[("variant", variant), ("threads", at(variant))])
    };
    let label = |variant: &str, key: &str| {
        r.find(
            "create_ns",
            &[("variant", variant), ("threads", at(variant))],
        )
        .and_then(|m| m.label(key))
        .unwrap_or("?")
        .to_string()
    };
    let (default, small, touch) = (DEFAULT.name, SMALL.name, TOUCH.name);
    if let (Some(vm_kib), Some(rss_kib), Some(virt_kib), Some(res_kib)) = (
        v("vm_size_growth_kib", default),
        v("rss_growth_kib", default),
        v("virt_per_thread_kib", default),
        v("rss_per_thread_kib", default),
    ) {
        let n: f64 = label(default, "threads").parse().unwrap_or(1.0);
        f.push(format!(
            "{} threads with the default {} stack: VmSize +{} ({} per thread: the stack and its guard page), VmRSS +{} ({} per thread): stacks are virtual until used. Scaled to the seed's 10,000: {} virtual, {} resident (seed: ~80 GiB, ~80 MiB)",
            label(default, "threads"),
            label(default, "stack"),
            fmt_value(vm_kib * 1024.0, Unit::Bytes),
            fmt_value(virt_kib, Unit::Kib),
            fmt_value(rss_kib * 1024.0, Unit::Bytes),
            fmt_value(res_kib, Unit::Kib),
            fmt_value(vm_kib * 1024.0 * 10_000.0 / n.max(1.0), Unit::Bytes),
            fmt_value(rss_kib * 1024.0 * 10_000.0 / n.max(1.0), Unit::Bytes),
        ));
    }
    if let (Some(virt_kib), Some(res_kib)) = (
        v("virt_per_thread_kib", small),
        v("rss_per_thread_kib", small),
    ) {
        f.push(format!(
            "with a {} stack (pthread_attr_setstacksize) a thread reserves {} of address space and keeps {} resident{}",
            label(small, "stack"),
            fmt_value(virt_kib, Unit::Kib),
            fmt_value(res_kib, Unit::Kib),
            v("rss_per_thread_kib", default)
                .map(|d| format!(" (default stack: {} resident): a smaller stack saves address space, not memory", fmt_value(d, Unit::Kib)))
                .unwrap_or_default()
        ));
    }
    if let (Some(rss_kib), Some(exact_kib), Some(rss_total_kib)) = (
        v("rss_per_thread_kib", touch),
        v("rss_exact_per_thread_kib", touch),
        v("rss_growth_kib", touch),
    ) {
        let touched = label(touch, "touch");
        let touched_kib = crate::units::parse_size(&touched).unwrap_or(0) as f64 / 1024.0;
        let gap = 100.0 * (exact_kib - rss_kib) / exact_kib.max(1e-9);
        let verdict = if gap.abs() < 2.0 {
            "On this kernel VmRSS agrees with the exact count (smaps_rollup walks the page tables), so the resident cost is what was touched. The seed's shortfall fits its footnote: kernels before 6.2 kept each thread's RSS changes in a private cache flushed only every 64 page faults (SPLIT_RSS_COUNTING). Its gap, 4 GiB - 2.6 GiB over 10,000 threads, is about 147 KiB (37 pages) per thread: the faults of each thread's 100-page touch after its last flush, held back while the thread blocks. The threads did use 400 KiB each; VmRSS under-reported it".to_string()
        } else {
            format!(
                "VmRSS is {gap:.1}% {} the exact count: the kernel's RSS counters are approximate here, as the seed's footnote says; smaps_rollup (a walk of the page tables) is the right figure.",
                if gap > 0.0 { "below" } else { "above" }
            )
        };
        f.push(format!(
            "touching {touched} of stack in each of {} threads: VmRSS +{} per thread, exact (smaps_rollup Rss) +{} per thread, {:.0}% of the touched size; total VmRSS +{} (the seed's 10,000 x 400 KiB gave ~2.6 GiB, not 4 GiB). {verdict}",
            label(touch, "threads"),
            fmt_value(rss_kib, Unit::Kib),
            fmt_value(exact_kib, Unit::Kib),
            100.0 * exact_kib / touched_kib.max(1e-9),
            fmt_value(rss_total_kib * 1024.0, Unit::Bytes),
        ));
    }
    if let Some(kernel_kib) = v("kernel_stack_per_thread_kib", default) {
        let pte_bytes = v("page_tables_per_thread_bytes", default).unwrap_or(0.0);
        f.push(format!(
            "outside VmRSS each thread also costs the kernel {} of kernel stack (KernelStack, system-wide, so other activity adds noise) and {} of page tables",
            fmt_value(kernel_kib, Unit::Kib),
            fmt_value(pte_bytes, Unit::Bytes)
        ));
    }
    if let (Some(c), Some(per)) = (v("create_ns", default), v("create_per_thread_ns", default)) {
        f.push(format!(
            "creating {} threads took {} ({} each, the threads blocked until all exist)",
            label(default, "threads"),
            fmt_ns(c),
            fmt_ns(per)
        ));
    }
    if let Some(t) = v("touch_all_ns", touch) {
        let n: f64 = label(touch, "threads").parse().unwrap_or(1.0);
        f.push(format!(
            "faulting in {} of stack in each of {} threads took {} ({} per thread, on {} CPUs' worth of page faults)",
            label(touch, "touch"),
            label(touch, "threads"),
            fmt_ns(t),
            fmt_ns(t / n.max(1.0)),
            std::thread::available_parallelism().map_or(1, |p| p.get())
        ));
    }
    let lines: Vec<&NamedFit> = fits
        .iter()
        .filter(|x| x.fit.r2 > 0.9 && x.labels.get("what").is_some_and(|w| w == "resident"))
        .collect();
    if let Some(first) = lines.first() {
        f.push(format!(
            "each further thread adds {} resident: a straight line through {} thread counts (R² at least {:.3}), so the per-thread figures hold at any count",
            lines
                .iter()
                .map(|x| format!(
                    "{} {}",
                    fmt_value(x.fit.slope, Unit::Kib),
                    x.labels.get("variant").map_or("?", |v| v.as_str())
                ))
                .collect::<Vec<_>>()
                .join(", "),
            first.fit.n,
            lines.iter().map(|x| x.fit.r2).fold(1.0, f64::min)
        ));
    }
    a.fits.extend(fits);
    a.headlines.extend(thread_memory_headline(r));
    a
}

/// What a blocked thread with the default stack reserves and keeps.
fn thread_memory_headline(e: &ExperimentResult) -> Option<String> {
    // The largest thread count measured for the default stack.
    let virt = e
        .metrics_named("virt_per_thread_kib")
        .filter(|m| m.label("variant") == Some(DEFAULT.name))
        .max_by_key(|m| m.label_num("threads").unwrap_or(0))?;
    let n = virt.label("threads")?;
    let stack = virt.label("stack").unwrap_or("default");
    let at = [("variant", DEFAULT.name), ("threads", n)];
    let res_kib = e
        .median("rss_exact_per_thread_kib", &at)
        .or(e.median("rss_per_thread_kib", &at))?;
    let kernel_kib = e.median("kernel_stack_per_thread_kib", &at);
    Some(format!(
        "a blocked thread with the {stack} default stack reserves {} of address space but keeps {} resident{} ({n} threads)",
        fmt_value(virt.summary.median, Unit::Kib),
        fmt_value(res_kib, Unit::Kib),
        kernel_kib
            .map(|k| format!(", plus {} of kernel stack", fmt_value(k, Unit::Kib)))
            .unwrap_or_default()
    ))
}

#[cfg(test)]
#[path = "threads_tests.rs"]
mod tests;
