//! The findings at the top of the report: one or two sentences per group,
//! computed from this run's medians. A sentence whose figures the run lacks
//! is left out, never filled in.

use super::{fmt_ns, fmt_value};
use crate::results::{ExperimentResult, RunResults, Unit};
use crate::stats::linear_fit;

fn med(e: &ExperimentResult, name: &str, with: &[(&str, &str)]) -> Option<f64> {
    e.find(name, with).map(|m| m.summary.median)
}

/// (group, sentence) in report order.
pub fn headlines(r: &RunResults) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let mut add = |g: &'static str, s: Option<String>| {
        if let Some(s) = s {
            out.push((g, s));
        }
    };
    add("yardstick", yardstick(r));
    add("spawn", fork_vs_thread(r));
    add("spawn", program_start(r));
    add("switch", switch_placement(r));
    add("switch", userspace(r));
    add("memory", thread_memory(r));
    add("parallel", speedup(r));
    out
}

fn yardstick(r: &RunResults) -> Option<String> {
    let sys = med(r.measured("yardstick.syscall")?, "call_ns", &[])?;
    let clock = r
        .measured("yardstick.timer")
        .and_then(|e| med(e, "call_ns", &[("clock", "monotonic")]));
    Some(match clock {
        Some(c) => format!(
            "a bare system call costs {}, a clock read {}: the scale every other figure is measured against",
            fmt_ns(sys),
            fmt_ns(c)
        ),
        None => format!("a bare system call costs {}", fmt_ns(sys)),
    })
}

/// Warm fork vs thread at the smallest non-empty heap, and fork's growth
/// per 100 MiB of heap from a straight-line fit over every heap measured.
fn fork_vs_thread(r: &RunResults) -> Option<String> {
    let Some(e) = r.measured("spawn.heap") else {
        let e = r.measured("spawn.methods")?;
        let f = med(e, "lifecycle_ns", &[("method", "fork")])?;
        let t = med(e, "lifecycle_ns", &[("method", "pthread_create")])?;
        return Some(format!(
            "fork is {:.1}x slower than a thread ({} vs {}, created and reaped)",
            f / t,
            fmt_ns(f),
            fmt_ns(t)
        ));
    };
    let series = |method: &str| -> Vec<(u64, f64, String)> {
        let mut v: Vec<(u64, f64, String)> = e
            .metrics_named("lifecycle_ns")
            .filter(|m| m.label("method") == Some(method) && m.label("thp") != Some("on"))
            .filter_map(|m| {
                Some((
                    m.label_num("heap_bytes")?,
                    m.summary.median,
                    m.label("heap")?.to_string(),
                ))
            })
            .collect();
        v.sort_by_key(|p| p.0);
        v
    };
    let fork = series("fork");
    let thread = series("pthread_create");
    let (bytes, f, heap) = fork.iter().find(|p| p.0 > 0).or(fork.first())?.clone();
    let t = thread.iter().find(|p| p.0 == bytes)?.1;
    let mut s = format!(
        "fork is {:.1}x slower than a thread at a {heap} heap ({} vs {}, created and reaped)",
        f / t,
        fmt_ns(f),
        fmt_ns(t)
    );
    let xs: Vec<f64> = fork.iter().map(|p| p.0 as f64).collect();
    let ys: Vec<f64> = fork.iter().map(|p| p.1).collect();
    if let (Some(fit), Some(last)) = (linear_fit(&xs, &ys), fork.last()) {
        if fork.len() >= 3 && fit.slope > 0.0 {
            s.push_str(&format!(
                " and grows {} per 100 MiB of heap ({} at {}); a thread does not grow",
                fmt_ns(fit.slope * 100.0 * 1024.0 * 1024.0),
                fmt_ns(last.1),
                last.2
            ));
        }
    }
    Some(s)
}

fn program_start(r: &RunResults) -> Option<String> {
    let e = r.measured("spawn.heap")?;
    let biggest = e
        .metrics_named("lifecycle_ns")
        .filter(|m| m.label("method") == Some("posix_spawn"))
        .max_by_key(|m| m.label_num("heap_bytes").unwrap_or(0))?;
    let heap = biggest.label("heap")?;
    let exec = med(
        e,
        "lifecycle_ns",
        &[
            ("method", "fork_exec_static"),
            ("heap", heap),
            ("thp", "off"),
        ],
    )?;
    Some(format!(
        "to start a program from a process with a {heap} heap, posix_spawn takes {} and fork+exec {} ({:.0}x): fork copies the page tables exec then throws away",
        fmt_ns(biggest.summary.median),
        fmt_ns(exec),
        exec / biggest.summary.median
    ))
}

fn switch_placement(r: &RunResults) -> Option<String> {
    let e = r.measured("switch.pingpong")?;
    for method in ["pipe_threads", "futex_threads", "pipe_processes"] {
        let same = med(
            e,
            "switch_ns",
            &[("method", method), ("placement", "same_cpu")],
        );
        let apart = med(
            e,
            "switch_ns",
            &[("method", method), ("placement", "two_cpus")],
        );
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

fn userspace(r: &RunResults) -> Option<String> {
    let e = r.measured("switch.userspace")?;
    let kernel = med(e, "switch_ns", &[("variant", "kernel_pipe")])?;
    let mut parts = Vec::new();
    for (v, name) in [
        ("coroutine", "a stackful coroutine"),
        ("async", "an async task"),
        ("go_default", "a goroutine"),
    ] {
        if let Some(x) = med(e, "switch_ns", &[("variant", v)]) {
            parts.push(format!("{name} {}", fmt_ns(x)));
        }
    }
    (!parts.is_empty()).then(|| {
        format!(
            "switching in user space: {} per switch, against {} for a kernel switch between threads",
            parts.join(", "),
            fmt_ns(kernel)
        )
    })
}

fn thread_memory(r: &RunResults) -> Option<String> {
    let e = r.measured("memory.threads")?;
    // The largest thread count measured for the default stack.
    let virt = e
        .metrics_named("virt_per_thread_kib")
        .filter(|m| m.label("variant") == Some("default"))
        .max_by_key(|m| m.label_num("threads").unwrap_or(0))?;
    let n = virt.label("threads")?;
    let stack = virt.label("stack").unwrap_or("default");
    let at = [("variant", "default"), ("threads", n)];
    let res = med(e, "rss_exact_per_thread_kib", &at).or(med(e, "rss_per_thread_kib", &at))?;
    let kernel = med(e, "kernel_stack_per_thread_kib", &at);
    Some(format!(
        "a blocked thread with the {stack} default stack reserves {} of address space but keeps {} resident{} ({n} threads)",
        fmt_value(virt.summary.median, Unit::Kib),
        fmt_value(res, Unit::Kib),
        kernel
            .map(|k| format!(", plus {} of kernel stack", fmt_value(k, Unit::Kib)))
            .unwrap_or_default()
    ))
}

fn speedup(r: &RunResults) -> Option<String> {
    let e = r.measured("parallel.average")?;
    let cpus = e.reading("cpus", &[]).unwrap_or(1.0);
    let mut best: Vec<(String, f64, u64)> = Vec::new();
    for m in e.metrics_named("speedup") {
        let (Some(v), Some(w)) = (m.label("variant"), m.label_num("workers")) else {
            continue;
        };
        if w as f64 > cpus {
            continue;
        }
        match best.iter_mut().find(|b| b.0 == v) {
            Some(b) if b.1 >= m.summary.median => {}
            Some(b) => *b = (v.into(), m.summary.median, w),
            None => best.push((v.into(), m.summary.median, w)),
        }
    }
    let fork = best.iter().find(|b| b.0 == "fork")?;
    let others: Vec<String> = best
        .iter()
        .filter(|b| b.0 != "fork")
        .map(|b| format!("{} {:.2}x", b.0, b.1))
        .collect();
    Some(format!(
        "averaging the seed's array across {} forked processes is {:.2}x as fast as serially on {cpus:.0} CPUs{}",
        fork.2,
        fork.1,
        if others.is_empty() {
            String::new()
        } else {
            format!(" ({})", others.join(", "))
        }
    ))
}
