//! Parallel work with fork: reproduces seed 003 ("Linux Fu: An Odd Use For
//! Fork()"): the average of a 55,256,000-double array, serial (458 ms) vs
//! split across two processes (395 ms, 1.16x; about 150 ms saved at
//! 155,256,000), and the line-printer story of fanning out I/O-bound reports.
//!
//! Past the seed: the children send their partial sums back through a pipe
//! (the seed skipped it), threads and a work-stealing pool run the same loop
//! on the same array, every variant's average is checked against serial, the
//! fill is timed apart from the average, Amdahl's law bounds what the whole
//! program could gain, and `parallel.forktime` shows where a forked child's
//! time goes (the fork, its first pass over inherited pages vs a second pass,
//! the reap), on 4 KiB and on huge pages.

use super::prelude::*;
use crate::measure::procfs;
use crate::sys::parallel::{self as par, F64Buf, SlowSink};
use crate::sys::{self, Thp};
use rayon::prelude::*;

const SEED_FORK: &str = "003_641a413697a75944.txt";
const SEED_HW: &str =
    "the author's machine, not described (Hackaday Linux Fu, c. 2022); built with `gcc -o stress stress.c` (no -O)";

/// The seed's array size.
pub const SEED_N: u64 = 55_256_000;

/// The most workers anyone may ask for, whatever the machine.
const MAX_WORKERS: u64 = 256;

// ------------------------------------------------------------ the data

/// The fill formula: `k_i / 10007` with `k_i = 7919·i mod 10007`. Both are
/// prime, so each run of 10007 consecutive `i` takes every `k` once, which
/// gives the exact sum in integers (see [`exact_sum_k`]).
#[inline(always)]
pub fn value(i: usize) -> f64 {
    ((i as u64).wrapping_mul(7919) % 10007) as f64 / 10007.0
}

/// Fills `xs` with [`value`]`(i)`, stepping `k` instead of dividing: the same
/// numbers, without a 64-bit modulo per element.
pub fn fill(xs: &mut [f64]) {
    let mut k = 0u64;
    for x in xs.iter_mut() {
        *x = k as f64 / 10007.0;
        k += 7919;
        if k >= 10007 {
            k -= 10007;
        }
    }
}

/// `Σ k_i` for `i < n`, exactly, in integers.
pub fn exact_sum_k(n: u64) -> u128 {
    let period = 10007u64;
    let full = n / period;
    let mut s = full as u128 * (period as u128 * (period as u128 - 1) / 2);
    for i in full * period..n {
        s += (i.wrapping_mul(7919) % period) as u128;
    }
    s
}

/// The exact average of the first `n` values (to f64 precision).
pub fn exact_average(n: u64) -> f64 {
    if n == 0 {
        return 0.0;
    }
    exact_sum_k(n) as f64 / 10007.0 / n as f64
}

/// How far a variant's average may stray from serial, relative.
///
/// A parallel sum adds the same numbers in another order, and floating-point
/// addition is not associative: every order rounds differently, so the
/// variants may disagree in the last bits. Each of the n additions rounds by
/// at most half an ulp of the running total; those errors behave like a random
/// walk, so the typical relative error of a sum grows like u·√n/3
/// (u = 2⁻⁵³ ≈ 1.1e-16): a few 1e-13 at the seed's n. We allow 8·u·√n,
/// floored at 1e-12: about 25 standard deviations of that walk, yet still
/// several times smaller than one element's share of the sum (1/n) up to
/// n = 3e9 (24 GB of doubles), so a lost, doubled or misplaced slice always
/// fails. (The rigorous worst case, (n-1)·u, would be too loose to see one
/// lost element.)
pub fn tolerance(n: u64) -> f64 {
    (8.0 * f64::EPSILON / 2.0 * (n as f64).sqrt()).max(1e-12)
}

/// Relative difference of `a` from `reference`.
pub fn rel_diff(a: f64, reference: f64) -> f64 {
    if reference == 0.0 {
        a.abs()
    } else {
        ((a - reference) / reference).abs()
    }
}

/// Splits `0..n` into `w` contiguous ranges whose sizes differ by at most one.
pub fn split(n: usize, w: usize) -> Vec<std::ops::Range<usize>> {
    let w = w.max(1);
    let (q, r) = (n / w, n % w);
    let mut out = Vec::with_capacity(w);
    let mut start = 0;
    for i in 0..w {
        let len = q + usize::from(i < r);
        out.push(start..start + len);
        start += len;
    }
    out
}

// ------------------------------------------------------- the variants

/// How an average is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Serial,
    /// The parent sums the first slice itself while W-1 forked children sum
    /// the others and send their partial sums through a pipe (the seed's
    /// scheme: it forked one child for two workers).
    Fork,
    /// The calling thread plus W-1 scoped threads, one slice each.
    Threads,
    /// A rayon pool of W threads, built before timing, stealing chunks.
    Pool,
}

pub const VARIANT_NAMES: &[Choice] = &[
    Choice::new(
        "fork",
        "the parent and W-1 forked children, partial sums through a pipe",
    ),
    Choice::new("threads", "the calling thread and W-1 scoped threads"),
    Choice::new("pool", "a rayon pool of W threads stealing chunks"),
];

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::Serial => "serial",
            Variant::Fork => "fork",
            Variant::Threads => "threads",
            Variant::Pool => "pool",
        }
    }

    pub fn parse(s: &str) -> Option<Variant> {
        Some(match s {
            "serial" => Variant::Serial,
            "fork" => Variant::Fork,
            "threads" => Variant::Threads,
            "pool" => Variant::Pool,
            _ => return None,
        })
    }
}

/// Rayon pools by worker count, built outside every timed window: a pool is
/// long-lived by design, its start-up is not what a pool user pays per task.
pub struct Pools(Vec<(usize, rayon::ThreadPool)>);

impl Pools {
    pub fn new(workers: &[usize]) -> anyhow::Result<Pools> {
        let mut v = Vec::new();
        for &w in workers {
            let p = rayon::ThreadPoolBuilder::new().num_threads(w).build()?;
            v.push((w, p));
        }
        Ok(Pools(v))
    }

    fn get(&self, w: usize) -> &rayon::ThreadPool {
        &self
            .0
            .iter()
            .find(|(n, _)| *n == w)
            .expect("a pool per worker count")
            .1
    }
}

/// The sum of `xs` by `variant` with `w` workers.
pub fn sum_by(xs: &[f64], variant: Variant, w: usize, pools: &Pools) -> anyhow::Result<f64> {
    Ok(match variant {
        Variant::Serial => par::seed_sum(xs),
        Variant::Fork => {
            let ranges = split(xs.len(), w);
            let mut children = Vec::with_capacity(w);
            let mut err = None;
            for r in &ranges[1..] {
                match par::fork_sum(&xs[r.clone()], false) {
                    Ok(c) => children.push(c),
                    Err(e) => {
                        err = Some(e);
                        break;
                    }
                }
            }
            // Even after a failed fork, sum and reap what was started.
            let mut total = par::seed_sum(&xs[ranges[0].clone()]);
            for c in children {
                match c.collect() {
                    Ok(r) => total += r.sum,
                    Err(e) => err = err.or(Some(e)),
                }
            }
            if let Some(e) = err {
                anyhow::bail!("fork variant, {w} workers: {e}");
            }
            total
        }
        Variant::Threads => {
            let ranges = split(xs.len(), w);
            std::thread::scope(|s| {
                let handles: Vec<_> = ranges[1..]
                    .iter()
                    .map(|r| {
                        let part = &xs[r.clone()];
                        s.spawn(move || par::seed_sum(part))
                    })
                    .collect();
                let mut total = par::seed_sum(&xs[ranges[0].clone()]);
                for h in handles {
                    total += h
                        .join()
                        .map_err(|_| anyhow::anyhow!("a summing thread panicked"))?;
                }
                anyhow::Ok(total)
            })?
        }
        Variant::Pool => {
            // Chunks of 64 Ki doubles (512 KiB): small enough to balance
            // across W threads by stealing, large enough that the per-chunk
            // cost vanishes.
            let chunk = (xs.len() / (w * 16)).clamp(1, 1 << 16);
            pools
                .get(w)
                .install(|| xs.par_chunks(chunk).map(par::seed_sum).sum::<f64>())
        }
    })
}

/// Checks `avg` against the serial average: a mismatch is an error.
fn check_against_serial(
    what: &str,
    avg: f64,
    serial: f64,
    n: u64,
    worst: &mut f64,
) -> anyhow::Result<()> {
    let d = rel_diff(avg, serial);
    *worst = worst.max(d);
    if d > tolerance(n) {
        anyhow::bail!(
            "{what}: average {avg:.17} differs from the serial {serial:.17} by {d:.2e} (relative), \
             beyond the tolerance {:.1e}: a slice was lost, doubled or misread",
            tolerance(n)
        );
    }
    Ok(())
}

// ------------------------------------------------------ shared params

fn cpus(env: &Env) -> usize {
    if env.cpus_allowed.is_empty() {
        env.cpus_online.max(1)
    } else {
        env.cpus_allowed.len()
    }
}

/// Memory a point must leave free beyond its array.
fn margin(env: &Env) -> u64 {
    (512u64 << 20).max(env.mem_total_bytes / 10)
}

/// Keeps the sizes `n` whose arrays fit in the memory available now. A size
/// the user asked for that does not fit is an error; a default one is
/// dropped with a note.
fn fitting_sizes(ctx: &PlanCtx, name: &str, notes: &mut Vec<String>) -> Result<Vec<u64>, String> {
    let available = crate::env::mem_available_bytes().unwrap_or(ctx.env.mem_available_bytes);
    let limit = available.saturating_sub(margin(ctx.env));
    let user_set = ctx.user_set.iter().any(|n| n == name);
    let mut out = Vec::new();
    for n in ctx.params.list(name) {
        let bytes = n.saturating_mul(8);
        if bytes > limit {
            let msg = format!(
                "{name}={n} needs {} for its array, but only {} is available and {} must stay free \
                 (the largest {name} that fits here is {})",
                fmt_size(bytes),
                fmt_size(available),
                fmt_size(margin(ctx.env)),
                limit / 8
            );
            if user_set {
                return Err(msg);
            }
            notes.push(format!("{msg}; that point was dropped"));
            continue;
        }
        out.push(n);
    }
    if out.is_empty() && !user_set {
        notes.push("no array size fits in the memory available: nothing to measure".into());
    }
    Ok(out)
}

/// The worker counts: the user's list (each 1..=4×CPUs), or by default 2 up
/// to the CPU count and one more, to show oversubscription.
fn worker_counts(ctx: &PlanCtx, name: &str) -> Result<Vec<usize>, String> {
    let c = cpus(ctx.env);
    let cap = (4 * c as u64).clamp(4, MAX_WORKERS);
    let asked = ctx.params.list(name);
    if !ctx.user_set.iter().any(|n| n == name) || asked.is_empty() {
        return Ok((2..=c.max(2) + 1).collect());
    }
    let mut out = Vec::new();
    for w in asked {
        if w == 0 {
            return Err(format!(
                "{name}=0: at least one worker is needed (valid: 1..={cap}, four times the {c} CPUs here)"
            ));
        }
        if w > cap {
            return Err(format!(
                "{name}={w} is absurd for {c} CPUs: at most {cap} (four times the CPU count) is allowed"
            ));
        }
        if !out.contains(&(w as usize)) {
            out.push(w as usize);
        }
    }
    Ok(out)
}

/// The array sizes, shared by the average and the whole program.
const N_PARAM: ParamSpec = ParamSpec {
    name: "n",
    help: "array sizes (doubles); each must fit in the memory available",
    kind: ParamKind::CountList {
        min: 1,
        max: 1 << 40,
    },
    quick: "55256000",
    thorough: "55256000,155256000",
};

const WORKERS_HELP: &str =
    "worker counts W, each 1..=4×CPUs; the default (listed as 0) is 2 up to the CPU count plus one";

fn thp_of(text: &str) -> Thp {
    match text {
        "on" => Thp::On,
        "off" => Thp::Off,
        _ => Thp::Default,
    }
}

fn notes_for_cpus(out: &mut WorkerOutput, workers: &[usize]) {
    let allowed = sys::allowed_cpus().map(|c| c.len()).unwrap_or(0);
    if let Some(w) = workers.iter().find(|&&w| allowed > 0 && w > allowed) {
        out.notes.push(format!(
            "{w} workers share {allowed} CPU(s): the workers beyond {allowed} show oversubscription, not more parallelism"
        ));
    }
}

/// Watches how much CPU time other programs took while we measured: busy
/// time of the whole machine (/proc/stat, steal included) minus our own
/// threads' and children's. Parallel speedups mean little when another
/// program held a CPU, so the figure goes into the results and a note.
struct Contention {
    busy_ns: u64,
    ours_ns: u64,
    wall_ns: u64,
}

fn machine_busy_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|x| x.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal (guest is inside user)
    let busy: u64 = v.iter().take(8).sum::<u64>() - v.get(3)? - v.get(4).unwrap_or(&0);
    // USER_HZ is 100 on every Linux architecture tasklab builds for.
    Some(busy * 10_000_000)
}

impl Contention {
    fn start() -> Contention {
        Contention {
            busy_ns: machine_busy_ns().unwrap_or(0),
            ours_ns: par::cpu_time_ns().unwrap_or(0),
            wall_ns: sys::monotonic_ns(),
        }
    }

    /// CPUs' worth of time others used since start(), as a reading, and a
    /// note when it was more than a tenth of a CPU.
    fn finish(self, out: &mut WorkerOutput, what: &str, l: Labels) {
        let (Some(busy), Ok(ours)) = (machine_busy_ns(), par::cpu_time_ns()) else {
            return;
        };
        let wall = (sys::monotonic_ns() - self.wall_ns).max(1) as f64;
        let others = (busy.saturating_sub(self.busy_ns) as f64
            - ours.saturating_sub(self.ours_ns) as f64)
            .max(0.0)
            / wall;
        out.reading("others_cpus", Unit::Ratio, l, others);
        // /proc/stat counts in 10 ms ticks and kernel threads always run a
        // little: a quarter of a CPU is where others start to matter.
        if others > 0.25 {
            out.notes.push(format!(
                "{what}: other programs kept {others:.2} CPUs busy on average while this was measured, \
                 so parallel speedups here understate an idle machine's"
            ));
        }
    }
}

fn hms(ns: f64) -> String {
    fmt_ns(ns)
}

// ------------------------------------------------------------ average

pub static AVERAGE: Experiment = Experiment {
    name: "parallel.average",
    summary: "the seed's array average, average phase only: serial vs W forked processes (partial sums through pipes), W threads, a rayon pool; speedup, efficiency, fork+reap cost",
    reproduces: "seed 003: 55,256,000 doubles averaged serially vs split across forked processes",
    params: &[
        N_PARAM,
        ParamSpec {
            name: "workers",
            help: WORKERS_HELP,
            kind: ParamKind::CountList { min: 0, max: MAX_WORKERS },
            quick: "0",
            thorough: "0",
        },
        ParamSpec {
            name: "variants",
            help: "parallel variants measured beside serial",
            kind: ParamKind::Names(VARIANT_NAMES),
            quick: "all",
            thorough: "all",
        },
        ParamSpec {
            name: "reps",
            help: "repetitions of every variant (each a sample)",
            kind: ParamKind::Count { min: 2, max: 1000 },
            quick: "9",
            thorough: "21",
        },
        ParamSpec {
            name: "thp",
            help: "back the array with transparent huge pages (on: fork copies one entry per 2 MiB, not 512)",
            kind: ParamKind::Choice(&["on", "off", "default"]),
            quick: "on",
            thorough: "on",
        },
    ],
    seeds: &[],
    hidden: false,
    supported: always_supported,
    points: average_points,
    measure: measure_average,
    analyze: analyze_average,
    ..Experiment::DEFAULT
};

fn average_points(ctx: &PlanCtx) -> Result<Points, String> {
    let mut pts = Points::default();
    let sizes = fitting_sizes(ctx, "n", &mut pts.notes)?;
    let workers = worker_counts(ctx, "workers")?;
    for n in sizes {
        pts.points
            .push(serde_json::json!({"n": n, "workers": workers}));
    }
    Ok(pts)
}

fn point_workers(job: &Job) -> Vec<usize> {
    job.point["workers"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_u64())
                .map(|v| v as usize)
                .collect()
        })
        .unwrap_or_else(|| vec![2])
}

/// Pushes the per-rep ratios serial/variant as `speedup` and `efficiency`.
/// The median of `xs` (0 for none).
fn median(xs: &[f64]) -> f64 {
    crate::stats::summarize(xs).map_or(0.0, |s| s.median)
}

/// Speedup samples: the serial median over each repetition's time, so the
/// median speedup is exactly median(serial) / median(variant), and a
/// disturbed serial repetition does not skew one variant's figure.
fn speedups(serial: &[f64], v: &[f64]) -> Vec<f64> {
    let s = median(serial);
    v.iter().map(|x| s / x.max(1.0)).collect()
}

/// Pushes `speedup` (serial median / each repetition) and `efficiency`.
fn push_speedups(out: &mut WorkerOutput, base: &Labels, serial: &[f64], v: &[f64], w: usize) {
    let sp = speedups(serial, v);
    let eff: Vec<f64> = sp.iter().map(|s| s / w as f64).collect();
    out.push("speedup", Unit::Ratio, base.clone(), sp);
    out.push_detail("efficiency", Unit::Ratio, base.clone(), eff);
}

fn measure_average(job: &Job) -> anyhow::Result<WorkerOutput> {
    let n = job.point["n"].as_u64().unwrap_or(SEED_N);
    let workers = point_workers(job);
    let reps = job.params.int("reps") as usize;
    let variants: Vec<Variant> = job
        .params
        .names("variants")
        .iter()
        .filter_map(|v| Variant::parse(v))
        .collect();
    let mut out = WorkerOutput::default();
    notes_for_cpus(&mut out, &workers);
    let nl = n.to_string();

    let mut buf = F64Buf::new(n as usize, thp_of(job.params.text("thp")))?;
    let t0 = sys::monotonic_ns();
    fill(buf.as_mut_slice());
    let fill_ns = (sys::monotonic_ns() - t0) as f64;
    let xs = buf.as_slice();
    out.reading("fill_once_ns", Unit::Ns, labels(&[("n", &nl)]), fill_ns);
    if let Some(v) = procfs::status_kib("VmPTE") {
        out.reading("vm_pte_kib", Unit::Kib, labels(&[("n", &nl)]), v as f64);
    }
    if let Some(v) = procfs::smaps_rollup_kib("AnonHugePages") {
        out.reading("anon_huge_kib", Unit::Kib, labels(&[("n", &nl)]), v as f64);
        let bytes = n as f64 * 8.0;
        if job.params.text("thp") == "on" && bytes >= 8e6 && (v as f64) < bytes / 1024.0 / 2.0 {
            out.notes.push(format!(
                "huge pages were asked for, but the kernel backed only {} of the {} array with them \
                 (THP disabled, or memory too fragmented): fork copies 4 KiB page tables here",
                fmt_size(v * 1024),
                fmt_size(n * 8)
            ));
        }
    }
    let pools = Pools::new(&workers)?;

    let serial_ref = par::seed_sum(xs) / n as f64;
    let exact = exact_average(n);
    out.reading(
        "serial_rel_error",
        Unit::Ratio,
        labels(&[("n", &nl)]),
        rel_diff(serial_ref, exact),
    );
    out.reading(
        "tolerance",
        Unit::Ratio,
        labels(&[("n", &nl)]),
        tolerance(n),
    );

    let mut serial_ns = Vec::with_capacity(reps);
    // (variant, w) -> (times, worst relative difference)
    let mut runs: Vec<(Variant, usize, Vec<f64>, f64)> = Vec::new();
    for &v in &variants {
        for &w in &workers {
            runs.push((v, w, Vec::with_capacity(reps), 0.0));
        }
    }
    let mut fork_reap: Vec<(usize, Vec<f64>)> = workers
        .iter()
        .filter(|&&w| w > 1)
        .map(|&w| (w, Vec::new()))
        .collect();
    let watch = Contention::start();
    let mut serial_cpus = Vec::with_capacity(reps);
    let mut granted: Vec<Vec<f64>> = runs.iter().map(|_| Vec::new()).collect();
    for _ in 0..reps {
        let c0 = par::cpu_time_ns()?;
        let t0 = sys::monotonic_ns();
        let s = sum_by(xs, Variant::Serial, 1, &pools)?;
        let t1 = sys::monotonic_ns();
        serial_cpus.push((par::cpu_time_ns()? - c0) as f64 / (t1 - t0).max(1) as f64);
        serial_ns.push((t1 - t0) as f64 - job.timer_overhead_ns);
        let mut worst_serial = 0.0;
        check_against_serial(
            "serial rerun",
            s / n as f64,
            serial_ref,
            n,
            &mut worst_serial,
        )?;
        for ((v, w, times, worst), g) in runs.iter_mut().zip(granted.iter_mut()) {
            let c0 = par::cpu_time_ns()?;
            let t0 = sys::monotonic_ns();
            let s = sum_by(xs, *v, *w, &pools)?;
            let t1 = sys::monotonic_ns();
            g.push((par::cpu_time_ns()? - c0) as f64 / (t1 - t0).max(1) as f64);
            times.push((t1 - t0) as f64 - job.timer_overhead_ns);
            let what = format!("{} with {w} workers", v.name());
            check_against_serial(&what, s / n as f64, serial_ref, n, worst)?;
        }
        // The bare cost of the processes: W-1 children that exit at once.
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

    let serial_labels = labels(&[("variant", "serial"), ("workers", "1"), ("n", &nl)]);
    out.push(
        "average_ns",
        Unit::Ns,
        serial_labels.clone(),
        serial_ns.clone(),
    );
    out.push_detail("cpus_granted", Unit::Ratio, serial_labels, serial_cpus);
    for ((v, w, times, worst), g) in runs.iter().zip(granted) {
        let ws = w.to_string();
        let l = labels(&[("variant", v.name()), ("workers", &ws), ("n", &nl)]);
        out.push("average_ns", Unit::Ns, l.clone(), times.clone());
        out.push_detail("cpus_granted", Unit::Ratio, l.clone(), g);
        push_speedups(&mut out, &l, &serial_ns, times, *w);
        out.reading("max_rel_diff_from_serial", Unit::Ratio, l, *worst);
    }
    for (w, times) in fork_reap {
        let ws = w.to_string();
        out.push(
            "fork_reap_ns",
            Unit::Ns,
            labels(&[
                ("workers", &ws),
                ("children", &(w - 1).to_string()),
                ("n", &nl),
            ]),
            times,
        );
    }
    out.reading(
        "cpus",
        Unit::Count,
        Labels::new(),
        sys::allowed_cpus().map(|c| c.len()).unwrap_or(0) as f64,
    );
    watch.finish(&mut out, &format!("n={n}"), labels(&[("n", &nl)]));
    drop(pools);
    drop(buf);
    Ok(out)
}

fn analyze_average(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    let findings = average_findings(r);
    a.findings.extend(findings);
    a.headlines.extend(speedup_headline(r));
    a
}

fn average_findings(r: &ExperimentResult) -> Vec<String> {
    let mut out = Vec::new();
    let cpus = r.reading("cpus", &[]).unwrap_or(0.0);
    let mut sizes: Vec<String> = r
        .metrics_named("average_ns")
        .filter_map(|m| m.label("n").map(String::from))
        .collect();
    sizes.dedup();
    for nl in &sizes {
        let n: u64 = nl.parse().unwrap_or(0);
        let nn = nl.as_str();
        let Some(serial) = r.find("average_ns", &[("variant", "serial"), ("n", nn)]) else {
            continue;
        };
        let ser = serial.summary.median;
        let med = |name: &str, v: &str, w: &str| {
            r.find(name, &[("variant", v), ("workers", w), ("n", nn)])
                .map(|m| m.summary.median)
        };
        // The best speedup per variant, at W <= CPUs, with the CPU time the
        // scheduler granted it.
        let mut parts = Vec::new();
        let mut short = Vec::new();
        for v in names(VARIANT_NAMES) {
            let best = r
                .metrics_named("speedup")
                .filter(|m| m.label("variant") == Some(v) && m.label("n") == Some(nn))
                .filter(|m| {
                    m.label("workers")
                        .and_then(|w| w.parse::<f64>().ok())
                        .is_some_and(|w| cpus == 0.0 || w <= cpus)
                })
                .max_by(|a, b| a.summary.median.total_cmp(&b.summary.median));
            let Some(b) = best else { continue };
            let wl = b.label("workers").unwrap_or("2");
            let w: f64 = wl.parse().unwrap_or(2.0);
            let sp = b.summary.median;
            let kf = crate::stats::karp_flatt(sp, w)
                .map(|e| format!(", Karp-Flatt serial fraction {:.1}%", e * 100.0))
                .unwrap_or_default();
            let granted = med("cpus_granted", v, wl);
            parts.push(format!(
                "{v} {sp:.2}x with {w} workers ({:.0}% efficiency{kf}{})",
                sp / w * 100.0,
                granted
                    .map(|g| format!(", {g:.2} CPUs granted"))
                    .unwrap_or_default()
            ));
            if let Some(g) = granted {
                if g < 0.9 * w && sp < 0.9 * w {
                    short.push(format!(
                        "{v} got {g:.2} CPUs' worth of time for {w} workers"
                    ));
                }
            }
        }
        out.push(format!(
            "n={n}: the serial average phase takes {} ({:.1} GB/s, {:.2} ns per element: the seed's loop keeps one \
             accumulator, so each addition waits for the one before, and two CPUs can each run such a chain); \
             best speedups at up to {cpus:.0} workers: {}",
            hms(ser),
            n as f64 * 8.0 / ser.max(1.0),
            ser / (n as f64).max(1.0),
            parts.join("; ")
        ));
        if !short.is_empty() {
            out.push(format!(
                "where a speedup falls short, the scheduler is the measured reason: {} (CPU time used over wall time; \
                 the rest went to other programs, see others_cpus)",
                short.join(", ")
            ));
        }
        // Oversubscription: W = CPUs + 1 against W = CPUs.
        if cpus >= 1.0 {
            let (at, over) = (
                (cpus as usize).max(2).to_string(),
                (cpus as usize + 1).max(3).to_string(),
            );
            let mut bits = Vec::new();
            for v in names(VARIANT_NAMES) {
                if let (Some(a), Some(o)) = (
                    med("average_ns", v, at.as_str()),
                    med("average_ns", v, over.as_str()),
                ) {
                    bits.push(format!(
                        "{v} {} → {} ({:+.0}%)",
                        hms(a),
                        hms(o),
                        (o / a - 1.0) * 100.0
                    ));
                }
            }
            if !bits.is_empty() {
                out.push(format!(
                    "oversubscribed, {over} workers on {cpus:.0} CPUs instead of {at}: {}. Equal slices on threads or \
                     processes finish only when the last one has had its turn; the pool's work stealing rebalances chunks",
                    bits.join(", ")
                ));
            }
        }
        // Fork vs threads at W = CPUs, with the measured reason.
        let wl = (cpus.max(2.0) as usize).to_string();
        if let (Some(f), Some(t)) = (
            med("average_ns", "fork", wl.as_str()),
            med("average_ns", "threads", wl.as_str()),
        ) {
            let fr = r
                .find("fork_reap_ns", &[("workers", wl.as_str()), ("n", nn)])
                .map(|m| m.summary.median);
            let mut s = format!(
                "with {wl} workers fork takes {} and threads {}",
                hms(f),
                hms(t)
            );
            if let Some(fr) = fr {
                let kids = wl.parse::<usize>().unwrap_or(2) - 1;
                if f > t {
                    s.push_str(&format!(
                        "; creating and reaping the {kids} child process(es) alone costs {} with this {} array \
                         ({:.0}% of the gap; parallel.forktime shows the rest)",
                        hms(fr),
                        fmt_size(n * 8),
                        (fr / (f - t) * 100.0).min(999.0)
                    ));
                } else {
                    s.push_str(&format!(
                        ": fork is no slower than threads here; creating and reaping the {kids} child process(es) costs {}",
                        hms(fr)
                    ));
                }
            }
            out.push(s);
        }
        if let (Some(err), Some(tol)) = (
            r.reading("serial_rel_error", &[("n", nn)]),
            r.reading("tolerance", &[("n", nn)]),
        ) {
            let worst = r
                .readings
                .iter()
                .filter(|x| {
                    x.name == "max_rel_diff_from_serial"
                        && x.labels.get("n").map(String::as_str) == Some(nn)
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

// ------------------------------------------------------------ program

pub static PROGRAM: Experiment = Experiment {
    name: "parallel.program",
    summary: "the seed's whole program (fresh array, fill, average, unmap), serial vs forked vs threads, with Amdahl's bound from the serial fill",
    reproduces: "seed 003: `time stress` 458 ms vs `time stress F` 395 ms; about 150 ms saved at 155,256,000",
    params: &[
        N_PARAM,
        ParamSpec {
            name: "workers",
            help: "workers for the parallel variants, each 1..=4×CPUs; the default (listed as 0) is 2, as in the seed, and the CPU count when larger",
            kind: ParamKind::CountList { min: 0, max: MAX_WORKERS },
            quick: "0",
            thorough: "0",
        },
        ParamSpec {
            name: "reps",
            help: "repetitions of the whole program per variant",
            kind: ParamKind::Count { min: 2, max: 1000 },
            quick: "3",
            thorough: "11",
        },
        ParamSpec {
            name: "thp",
            help: "huge-page settings to run the program with: default leaves it to the system, as for the seed's static array; on asks for huge pages (madvise)",
            kind: ParamKind::Names(&[
                Choice::new("default", "huge pages as the system sets them"),
                Choice::new("on", "huge pages asked for (madvise)"),
                Choice::new("off", "huge pages refused"),
            ]),
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
            hardware: SEED_HW,
            method: "time(1) of the whole C program, average of a few runs",
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
            hardware: SEED_HW,
            method: "time(1), one fork, parent and child each average half (no result sent back)",
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
            hardware: SEED_HW,
            method: "458 ms / 395 ms, whole program",
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
            hardware: SEED_HW,
            method: "458 - 395 ms (\"60 or so milliseconds\")",
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
            hardware: SEED_HW,
            method: "\"a savings of around 150 milliseconds\" at 155,256,000",
        },
    ],
    hidden: false,
    supported: always_supported,
    points: program_points,
    measure: measure_program,
    analyze: analyze_program,
    ..Experiment::DEFAULT
};

fn program_points(ctx: &PlanCtx) -> Result<Points, String> {
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
            pts.points
                .push(serde_json::json!({"n": n, "workers": workers, "thp": thp}));
        }
    }
    Ok(pts)
}

fn measure_program(job: &Job) -> anyhow::Result<WorkerOutput> {
    let n = job.point["n"].as_u64().unwrap_or(SEED_N);
    let workers = point_workers(job);
    let reps = job.params.int("reps") as usize;
    let thp_label = job.point["thp"].as_str().unwrap_or("default").to_string();
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
    // Per case: (fill, average, unmap, whole) per rep.
    let mut times: Vec<[Vec<f64>; 4]> = cases.iter().map(|_| Default::default()).collect();
    let mut fills = Vec::new();
    let mut unmaps = Vec::new();
    let reference = exact_average(n);
    let watch = Contention::start();
    for _ in 0..reps {
        for (i, &(v, w)) in cases.iter().enumerate() {
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
            times[i][0].push(d(t0, t1));
            times[i][1].push(d(t1, t2));
            times[i][2].push(d(t2, t3));
            times[i][3].push(d(t0, t3));
            fills.push(d(t0, t1));
            unmaps.push(d(t2, t3));
        }
    }
    out.push(
        "fill_ns",
        Unit::Ns,
        labels(&[("n", &nl), ("thp", &thp_label), ("phase", "map+fill")]),
        fills,
    );
    out.push_detail(
        "unmap_ns",
        Unit::Ns,
        labels(&[("n", &nl), ("thp", &thp_label), ("phase", "unmap")]),
        unmaps,
    );
    let serial_whole = times[0][3].clone();
    for ((v, w), t) in cases.iter().zip(&times) {
        let ws = w.to_string();
        let l = labels(&[
            ("variant", v.name()),
            ("workers", &ws),
            ("n", &nl),
            ("thp", &thp_label),
        ]);
        out.push("whole_ns", Unit::Ns, l.clone(), t[3].clone());
        let mut pl = l.clone();
        pl.insert("phase".into(), "average".into());
        out.push_detail("average_ns", Unit::Ns, pl, t[1].clone());
        if *v != Variant::Serial {
            out.push(
                "speedup",
                Unit::Ratio,
                l.clone(),
                speedups(&serial_whole, &t[3]),
            );
            let sm = median(&serial_whole);
            out.push(
                "saved_ns",
                Unit::Ns,
                l,
                t[3].iter().map(|x| sm - x).collect(),
            );
        }
    }
    out.reading(
        "cpus",
        Unit::Count,
        Labels::new(),
        sys::allowed_cpus().map(|c| c.len()).unwrap_or(0) as f64,
    );
    watch.finish(
        &mut out,
        &format!("n={n} thp={thp_label}"),
        labels(&[("n", &nl), ("thp", &thp_label)]),
    );
    Ok(out)
}

fn analyze_program(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    let findings = program_findings(r);
    a.findings.extend(findings);
    a
}

fn program_findings(r: &ExperimentResult) -> Vec<String> {
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
    let mut fork_at: Vec<(String, f64)> = Vec::new();
    for (nl, thp) in &cases {
        let (n, t) = (nl.as_str(), thp.as_str());
        let (Some(whole), Some(fill), Some(avg)) = (
            r.find("whole_ns", &[("variant", "serial"), ("n", n), ("thp", t)]),
            r.find("fill_ns", &[("n", n), ("thp", t)]),
            r.find(
                "average_ns",
                &[
                    ("variant", "serial"),
                    ("n", n),
                    ("thp", t),
                    ("phase", "average"),
                ],
            ),
        ) else {
            continue;
        };
        let whole = whole.summary.median;
        let fill = fill.summary.median;
        let avg = avg.summary.median;
        // Everything but the average is serial in the seed's program.
        let s = ((whole - avg) / whole).clamp(0.0, 1.0);
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
            if v == "fork" && m.label("workers") == Some("2") {
                fork_at.push((format!("n={n} thp={t}"), m.summary.median));
            }
        }
        out.push(format!(
            "n={n}, thp={t}: the whole program takes {} serially, of which mapping and filling {} takes {} and the average only {}: \
             the serial fraction is {:.0}%, so by Amdahl's law {cpus:.0} CPUs can speed the program up at most {best:.2}x \
             (no number of CPUs beyond {:.2}x) unless the fill is parallelised too; measured: {}",
            hms(whole),
            fmt_size(n.parse::<u64>().unwrap_or(0) * 8),
            hms(fill),
            hms(avg),
            s * 100.0,
            1.0 / s.max(1e-9),
            measured.join(", ")
        ));
    }
    for (nl, _) in cases.iter().filter(|(_, t)| t == "default") {
        let n = nl.as_str();
        if let (Some(d), Some(h)) = (
            r.find("fill_ns", &[("n", n), ("thp", "default")]),
            r.find("fill_ns", &[("n", n), ("thp", "on")]),
        ) {
            let (d, h) = (d.summary.median, h.summary.median);
            let pages = n.parse::<f64>().unwrap_or(0.0) * 8.0 / 4096.0;
            if d > h && pages > 0.0 {
                out.push(format!(
                    "n={n}: most of the fill is the kernel handing out memory, not the formula: on huge pages it takes {} \
                     instead of {}, about {} saved per 4 KiB page fault avoided",
                    hms(h),
                    hms(d),
                    hms((d - h) / pages)
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
            .map(|(_, x)| format!("; with the array on huge pages it gains {x:.2}x"))
            .unwrap_or_default();
        out.push(format!(
            "seed 003 gained 1.16x (458 → 395 ms) with one fork; here the same program gains {sp:.2}x{on}. \
             A fork pays off only when the average is long beside the fill and the fork is cheap (the seed's loop, \
             built without -O, was likely much slower than ours): on 4 KiB pages the fork copies and later frees the page tables of the whole array, \
             and the child's first pass over inherited pages is slower than a second (see parallel.forktime)"
        ));
    }
    out
}

// ----------------------------------------------------------- forktime

pub static FORKTIME: Experiment = Experiment {
    name: "parallel.forktime",
    summary: "where a forked average's time goes: fork() itself, the child's first vs second pass over its inherited slice, the reap; 4 KiB pages vs huge pages",
    reproduces: "seed 003's fork variant, taken apart (the seed timed only the whole program)",
    params: &[
        ParamSpec {
            name: "n",
            help: "array size (doubles)",
            kind: ParamKind::CountList { min: 1, max: 1 << 40 },
            quick: "55256000",
            thorough: "55256000",
        },
        ParamSpec {
            name: "workers",
            help: "workers: the parent and W-1 children, 2..=4×CPUs; the default (listed as 0) is the CPU count, at least 2",
            kind: ParamKind::CountList { min: 0, max: MAX_WORKERS },
            quick: "0",
            thorough: "0",
        },
        ParamSpec {
            name: "reps",
            help: "repetitions per page size",
            kind: ParamKind::Count { min: 2, max: 1000 },
            quick: "5",
            thorough: "21",
        },
    ],
    seeds: &[],
    hidden: false,
    supported: always_supported,
    points: forktime_points,
    measure: measure_forktime,
    analyze: analyze_forktime,
    ..Experiment::DEFAULT
};

fn forktime_points(ctx: &PlanCtx) -> Result<Points, String> {
    let mut pts = Points::default();
    let sizes = fitting_sizes(ctx, "n", &mut pts.notes)?;
    let w = if ctx.user_set.iter().any(|n| n == "workers") {
        *worker_counts(ctx, "workers")?.iter().max().unwrap_or(&2)
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
    for n in sizes {
        pts.points
            .push(serde_json::json!({"n": n, "workers": [w], "thp": "off"}));
        if thp_possible {
            pts.points
                .push(serde_json::json!({"n": n, "workers": [w], "thp": "on"}));
        }
    }
    Ok(pts)
}

fn measure_forktime(job: &Job) -> anyhow::Result<WorkerOutput> {
    let n = job.point["n"].as_u64().unwrap_or(SEED_N);
    let w = point_workers(job).first().copied().unwrap_or(2).max(2);
    let thp_label = if job.point["thp"] == "on" {
        "on"
    } else {
        "off"
    };
    let thp = if thp_label == "on" { Thp::On } else { Thp::Off };
    let reps = job.params.int("reps") as usize;
    let mut out = WorkerOutput::default();
    notes_for_cpus(&mut out, &[w]);
    let mut buf = F64Buf::new(n as usize, thp)?;
    fill(buf.as_mut_slice());
    let xs = buf.as_slice();
    let nl = n.to_string();
    let pl = labels(&[("n", &nl), ("thp", thp_label)]);
    for (field, name) in [("VmPTE", "vm_pte_kib"), ("VmRSS", "vm_rss_kib")] {
        if let Some(v) = procfs::status_kib(field) {
            out.reading(name, Unit::Kib, pl.clone(), v as f64);
        }
    }
    if let Some(v) = procfs::smaps_rollup_kib("AnonHugePages") {
        out.reading("anon_huge_kib", Unit::Kib, pl.clone(), v as f64);
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
        let mut v = vec![
            ("n", nl.as_str()),
            ("thp", thp_label),
            ("workers", ws.as_str()),
        ];
        v.extend_from_slice(extra);
        labels(&v)
    };
    let [fork_call, child_start, child_first, child_second, parent_first, parent_second, wait_ns, reap, total] =
        s;
    out.push("fork_call_ns", Unit::Ns, l(&[]), fork_call);
    out.push_detail("child_start_ns", Unit::Ns, l(&[]), child_start);
    out.push(
        "child_pass_ns",
        Unit::Ns,
        l(&[("pass", "first")]),
        child_first,
    );
    out.push(
        "child_pass_ns",
        Unit::Ns,
        l(&[("pass", "second")]),
        child_second,
    );
    out.push(
        "parent_pass_ns",
        Unit::Ns,
        l(&[("pass", "first")]),
        parent_first,
    );
    out.push_detail(
        "parent_pass_ns",
        Unit::Ns,
        l(&[("pass", "second")]),
        parent_second,
    );
    out.push_detail("wait_report_ns", Unit::Ns, l(&[]), wait_ns);
    out.push("reap_ns", Unit::Ns, l(&[]), reap);
    out.push("total_ns", Unit::Ns, l(&[]), total);
    watch.finish(&mut out, &format!("n={n} thp={thp_label}"), pl);
    Ok(out)
}

fn analyze_forktime(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    let findings = forktime_findings(r);
    a.findings.extend(findings);
    a
}

fn forktime_findings(r: &ExperimentResult) -> Vec<String> {
    let mut out = Vec::new();
    let med = |name: &str, thp: &str, extra: &[(&str, &str)]| {
        let mut with = vec![("thp", thp)];
        with.extend_from_slice(extra);
        r.find(name, &with).map(|m| m.summary.median)
    };
    let mut parts = Vec::new();
    for thp in ["off", "on"] {
        let (Some(fork), Some(first), Some(second), Some(parent), Some(reap), Some(total)) = (
            med("fork_call_ns", thp, &[]),
            med("child_pass_ns", thp, &[("pass", "first")]),
            med("child_pass_ns", thp, &[("pass", "second")]),
            med("parent_pass_ns", thp, &[("pass", "first")]),
            med("reap_ns", thp, &[]),
            med("total_ns", thp, &[]),
        ) else {
            continue;
        };
        let m = r.find("total_ns", &[("thp", thp)]).expect("found above");
        let n: f64 = m.label("n").and_then(|x| x.parse().ok()).unwrap_or(0.0);
        let w: f64 = m
            .label("workers")
            .and_then(|x| x.parse().ok())
            .unwrap_or(2.0);
        let (page, pages) = if thp == "on" {
            (2u64 << 20, "2 MiB huge pages")
        } else {
            (4096, "4 KiB pages")
        };
        let slice_pages = (n / w * 8.0 / page as f64).max(1.0);
        let pte = r
            .reading("vm_pte_kib", &[("thp", thp)])
            .map(|k| format!(" ({k:.0} KiB of page tables)"))
            .unwrap_or_default();
        let extra = (first - second).max(0.0);
        let costs = [
            ("the fork() call itself (copying the page tables)", fork),
            (
                "the child's first pass over the pages it inherited, beyond its second pass",
                extra,
            ),
            ("reaping the child (tearing down its page tables)", reap),
        ];
        let top = costs
            .iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .expect("three costs");
        out.push(format!(
            "on {pages}{pte}: fork() returns in {}; the child's first pass over its slice takes {} and its second {} \
             ({:.2}x, {} more per {} page; the parent's pass over an equal slice at the same time: {}); reaping takes {}; \
             the whole instrumented run (two passes each) {}. What dominates the overhead here: {}, {}",
            hms(fork),
            hms(first),
            hms(second),
            first / second.max(1.0),
            if extra > 0.02 * second {
                hms(extra / slice_pages)
            } else {
                "nothing measurable".to_string()
            },
            if thp == "on" { "2 MiB" } else { "4 KiB" },
            hms(parent),
            hms(reap),
            hms(total),
            top.0,
            hms(top.1)
        ));
        parts.push((
            thp,
            fork + extra + reap,
            if extra > 0.02 * second {
                hms(extra)
            } else {
                "nothing measurable".to_string()
            },
        ));
    }
    if let [(_, off, off_extra), (_, on, on_extra)] = parts.as_slice() {
        out.push(format!(
            "in plain words: a forked child reading inherited memory is not free. Its page-table entries are fresh copies \
             (marked not yet accessed), so on 4 KiB pages the child pays again, page by page, on its first pass ({} extra) \
             and fork pays to copy and later free them; on huge pages there is one entry per 2 MiB instead of 512, and the \
             overhead (fork + first-pass penalty + reap) falls from {} to {} ({:.0}x less; first-pass penalty there: {}). \
             Put a large array that children will read on huge pages (madvise MADV_HUGEPAGE) before forking",
            off_extra,
            hms(*off),
            hms(*on),
            off / on.max(1.0),
            on_extra
        ));
    }
    out
}

// ------------------------------------------------------------- fanout

pub static FANOUT: Experiment = Experiment {
    name: "parallel.fanout",
    summary: "the line-printer story: K reports, each some CPU work then output to a slow sink, serial vs one forked child per report",
    reproduces: "seed 003's client: a 14-hour report run cut to 5 hours by forking one child per printer",
    params: &[
        ParamSpec {
            name: "jobs",
            help: "reports K (one forked child each)",
            kind: ParamKind::Count { min: 1, max: 256 },
            quick: "4",
            thorough: "8",
        },
        ParamSpec {
            name: "cpu_ms",
            help: "CPU work per report, in milliseconds of this machine's time",
            kind: ParamKind::Count { min: 0, max: 60_000 },
            quick: "20",
            thorough: "50",
        },
        ParamSpec {
            name: "output",
            help: "bytes each report writes to its sink",
            kind: ParamKind::Size { min: 1, max: 1 << 30 },
            quick: "64K",
            thorough: "256K",
        },
        ParamSpec {
            name: "sink_rate",
            help: "how fast a sink (a printer) accepts output, bytes per second; must be above 0",
            kind: ParamKind::Size { min: 0, max: 1 << 40 },
            quick: "1M",
            thorough: "1M",
        },
        ParamSpec {
            name: "reps",
            help: "repetitions of each mode",
            kind: ParamKind::Count { min: 2, max: 1000 },
            quick: "3",
            thorough: "11",
        },
    ],
    seeds: &[],
    hidden: false,
    supported: always_supported,
    points: fanout_points,
    measure: measure_fanout,
    analyze: analyze_fanout,
    ..Experiment::DEFAULT
};

/// The longest a fan-out run may take, serial side included.
const FANOUT_MAX_S: f64 = 600.0;

fn fanout_points(ctx: &PlanCtx) -> Result<Points, String> {
    let p = ctx.params;
    let rate = p.int("sink_rate");
    if rate == 0 {
        return Err(
            "sink_rate=0: a sink that accepts no bytes per second never finishes a report; give a rate above 0 (e.g. 1M)"
                .into(),
        );
    }
    let jobs = p.int("jobs") as f64;
    let per_job_s = p.int("cpu_ms") as f64 / 1e3 + p.int("output") as f64 / rate as f64;
    let est = jobs * per_job_s * p.int("reps") as f64 * 1.3;
    let max_s = FANOUT_MAX_S.min(0.8 * ctx.sizing.timeout_s);
    if est > max_s {
        return Err(format!(
            "these settings would run for about {est:.0} s (serial: {jobs:.0} reports × {per_job_s:.2} s, × reps, plus the fan-out): \
             more than the {max_s:.0} s allowed; lower jobs, cpu_ms, output or reps, or raise sink_rate"
        ));
    }
    let cap = (ctx.env.limits.rlimit_nproc.unwrap_or(u64::MAX) / 2).max(1);
    if p.int("jobs") > cap {
        return Err(format!(
            "jobs={} forked children would exceed half of this user's process limit ({cap})",
            p.int("jobs")
        ));
    }
    Ok(Points::single())
}

/// Iterations of [`par::report_math`] per millisecond here.
fn math_iters_per_ms() -> f64 {
    let mut iters = 1u64 << 16;
    loop {
        let t0 = sys::monotonic_ns();
        std::hint::black_box(par::report_math(std::hint::black_box(7), iters));
        let dt = (sys::monotonic_ns() - t0) as f64;
        if dt > 5e6 || iters > 1 << 40 {
            return iters as f64 / (dt / 1e6);
        }
        iters *= 4;
    }
}

fn measure_fanout(job: &Job) -> anyhow::Result<WorkerOutput> {
    let p = &job.params;
    let jobs = p.int("jobs") as usize;
    let cpu_ms = p.int("cpu_ms") as f64;
    let bytes = p.int("output") as usize;
    let rate = p.int("sink_rate");
    let reps = p.int("reps") as usize;
    let iters = (math_iters_per_ms() * cpu_ms) as u64;
    let output: Vec<u8> = (0..bytes)
        .map(|i| if i % 80 == 79 { b'\n' } else { b'#' })
        .collect();
    let devnull: std::os::fd::OwnedFd = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/null")?
        .into();
    let sink = SlowSink {
        fd: std::os::fd::AsFd::as_fd(&devnull),
        rate_bytes_per_s: rate,
        chunk: 4096,
    };
    let watch = Contention::start();
    let mut serial = Vec::new();
    let mut forked = Vec::new();
    for _ in 0..reps {
        let t0 = sys::monotonic_ns();
        for j in 0..jobs {
            if !par::run_report(j as u64, iters, &output, &sink) {
                anyhow::bail!("the sink refused a write");
            }
        }
        serial.push((sys::monotonic_ns() - t0) as f64);
        let t0 = sys::monotonic_ns();
        let mut kids = Vec::new();
        let mut err = None;
        for j in 0..jobs {
            match par::fork_report(j as u64, iters, &output, &sink) {
                Ok(k) => kids.push(k),
                Err(e) => {
                    err = Some(e);
                    break;
                }
            }
        }
        for k in kids {
            if let Err(e) = k.wait() {
                err = err.or(Some(e));
            }
        }
        if let Some(e) = err {
            anyhow::bail!("fan-out: {e}");
        }
        forked.push((sys::monotonic_ns() - t0) as f64);
    }
    let js = jobs.to_string();
    let l = |mode: &str| labels(&[("mode", mode), ("jobs", &js)]);
    let mut out = out_fanout(jobs, cpu_ms, bytes, rate, serial, forked, l);
    watch.finish(&mut out, "fan-out", Labels::new());
    Ok(out)
}

fn out_fanout(
    jobs: usize,
    cpu_ms: f64,
    bytes: usize,
    rate: u64,
    serial: Vec<f64>,
    forked: Vec<f64>,
    l: impl Fn(&str) -> Labels,
) -> WorkerOutput {
    let mut out = WorkerOutput::default();
    let sp = speedups(&serial, &forked);
    out.push("wall_ns", Unit::Ns, l("serial"), serial);
    out.push("wall_ns", Unit::Ns, l("forked"), forked);
    out.push("speedup", Unit::Ratio, l("forked"), sp);
    let sink_ns = bytes as f64 / rate as f64 * 1e9;
    let none = Labels::new();
    out.reading("sink_ns_per_job", Unit::Ns, none.clone(), sink_ns);
    out.reading("cpu_ns_per_job", Unit::Ns, none.clone(), cpu_ms * 1e6);
    out.reading("jobs", Unit::Count, none.clone(), jobs as f64);
    out.reading(
        "cpus",
        Unit::Count,
        none,
        sys::allowed_cpus().map(|c| c.len()).unwrap_or(0) as f64,
    );
    out
}

fn analyze_fanout(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    let findings = fanout_findings(r);
    a.findings.extend(findings);
    a
}

fn fanout_findings(r: &ExperimentResult) -> Vec<String> {
    let mut out = Vec::new();
    let (Some(s), Some(f), Some(sp)) = (
        r.find("wall_ns", &[("mode", "serial")]),
        r.find("wall_ns", &[("mode", "forked")]),
        r.find("speedup", &[("mode", "forked")]),
    ) else {
        return out;
    };
    let cpus = r.reading("cpus", &[]).unwrap_or(0.0);
    let jobs = r.reading("jobs", &[]).unwrap_or(0.0);
    let sink = r.reading("sink_ns_per_job", &[]).unwrap_or(0.0);
    let cpu = r.reading("cpu_ns_per_job", &[]).unwrap_or(0.0);
    // The fan-out can finish no sooner than one report's sink time after the
    // CPU work, which the CPUs share.
    let ideal = sink + cpu * (jobs / cpus.max(1.0)).max(1.0);
    let sp = sp.summary.median;
    out.push(format!(
        "{jobs:.0} reports, each {} of CPU work and {} waiting on its sink: serially {}, one forked child per report {} — {sp:.2}x{}; \
         the best possible here is about {} (one sink's time after the shared CPU work)",
        hms(cpu),
        hms(sink),
        hms(s.summary.median),
        hms(f.summary.median),
        if cpus > 0.0 && sp > cpus {
            format!(
                ", more than the {cpus:.0} CPUs could give, because the children spend most of their time waiting on their sinks, not computing"
            )
        } else {
            String::new()
        },
        hms(ideal)
    ));
    out
}

// ------------------------------------------------------------- summary

/// The best speedup of each variant within the CPUs there are.
fn speedup_headline(e: &ExperimentResult) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exact_sum_matches_a_direct_one() {
        for n in [0u64, 1, 10006, 10007, 10008, 123_457] {
            let direct: u128 = (0..n).map(|i| ((i * 7919) % 10007) as u128).sum();
            assert_eq!(exact_sum_k(n), direct, "n={n}");
        }
    }

    #[test]
    fn fill_writes_the_formula() {
        let mut v = vec![0.0; 30_000];
        fill(&mut v);
        assert!(v.iter().enumerate().all(|(i, &x)| x == value(i)));
    }

    #[test]
    fn split_covers_everything_once() {
        for (n, w) in [(10, 3), (2, 5), (0, 2), (100, 1), (7, 7)] {
            let r = split(n, w);
            assert_eq!(r.len(), w);
            assert_eq!(r[0].start, 0);
            assert_eq!(r.last().unwrap().end, n);
            for p in r.windows(2) {
                assert_eq!(p[0].end, p[1].start);
                assert!(p[0].len().abs_diff(p[1].len()) <= 1);
            }
        }
    }

    #[test]
    fn the_tolerance_catches_one_lost_element() {
        for n in [1_000u64, SEED_N, 155_256_000, 3_000_000_000] {
            assert!(tolerance(n) >= 1e-12);
            assert!(tolerance(n) * 5.0 < 1.0 / n as f64, "n={n}");
        }
    }

    #[test]
    fn every_variant_agrees_with_serial() {
        let n = 200_003usize;
        let xs: Vec<f64> = (0..n).map(value).collect();
        let pools = Pools::new(&[1, 2, 3, 5]).unwrap();
        let serial = sum_by(&xs, Variant::Serial, 1, &pools).unwrap();
        assert!(rel_diff(serial / n as f64, exact_average(n as u64)) < tolerance(n as u64));
        for v in [Variant::Fork, Variant::Threads, Variant::Pool] {
            for w in [1, 2, 3, 5] {
                let s = sum_by(&xs, v, w, &pools).unwrap();
                assert!(
                    rel_diff(s, serial) <= tolerance(n as u64),
                    "{v:?} {w}: {s} vs {serial}"
                );
            }
        }
    }

    use crate::experiments::testing::{metric, result};

    #[test]
    fn the_forktime_finding_names_what_dominates() {
        let mut ms = Vec::new();
        for (thp, fork, first, reap) in [("off", 30e6, 180e6, 30e6), ("on", 0.6e6, 100e6, 0.04e6)] {
            let base = [("n", "55256000"), ("workers", "2"), ("thp", thp)];
            let with = |extra: (&'static str, &'static str)| {
                let mut v = base.to_vec();
                v.push(extra);
                v
            };
            ms.push(metric("fork_call_ns", &base, &[fork]));
            ms.push(metric("child_pass_ns", &with(("pass", "first")), &[first]));
            ms.push(metric("child_pass_ns", &with(("pass", "second")), &[100e6]));
            ms.push(metric("parent_pass_ns", &with(("pass", "first")), &[100e6]));
            ms.push(metric("reap_ns", &base, &[reap]));
            ms.push(metric("total_ns", &base, &[250e6]));
        }
        let f = forktime_findings(&result(ms));
        assert_eq!(f.len(), 3, "{f:?}");
        assert!(
            f[0].contains("first pass over the pages it inherited"),
            "{}",
            f[0]
        );
        assert!(f[1].contains("the fork() call itself"), "{}", f[1]);
        assert!(f[2].contains("huge pages"), "{}", f[2]);
    }

    #[test]
    fn the_program_finding_applies_amdahl() {
        let (n, t) = (("n", "55256000"), ("thp", "default"));
        let r = result(vec![
            metric("whole_ns", &[("variant", "serial"), n, t], &[400e6]),
            metric("fill_ns", &[n, t], &[300e6]),
            metric(
                "average_ns",
                &[("variant", "serial"), ("phase", "average"), n, t],
                &[100e6],
            ),
            metric(
                "speedup",
                &[("variant", "fork"), ("workers", "2"), n, t],
                &[1.1],
            ),
        ]);
        let f = program_findings(&r);
        // serial fraction 75%: at most 1/(0.75 + 0.125) = 1.14x on 2 CPUs
        assert!(f[0].contains("75%") && f[0].contains("1.14x"), "{}", f[0]);
        assert!(f[1].contains("1.10x"), "{}", f[1]);
    }

    #[test]
    fn the_median_speedup_is_the_ratio_of_medians() {
        let serial = [100.0, 90.0, 400.0];
        let v = [50.0, 45.0, 60.0];
        let sp = speedups(&serial, &v);
        assert_eq!(median(&sp), median(&serial) / median(&v));
        assert_eq!(sp[0], 2.0);
    }

    #[test]
    fn a_mismatch_is_an_error() {
        let mut worst = 0.0;
        assert!(check_against_serial("x", 1.0, 1.0, 100, &mut worst).is_ok());
        let e = check_against_serial("x", 0.5, 1.0, 100, &mut worst).unwrap_err();
        assert!(e.to_string().contains("differs"), "{e}");
        assert_eq!(worst, 0.5);
    }
}
