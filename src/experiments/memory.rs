//! Memory of tasks: what a thread costs to keep, and what `clone` shares.
//!
//! Reproduces Bendersky's "Memory usage of threads" (`002_…`, to the end):
//! the malloc-then-touch demo (VM 416,128 kB; RSS 4,780 → 410,916 kB),
//! 10,000 blocked threads (~80 GiB virtual, ~80 MiB resident; 400 KiB of
//! stack touched each → ~2.6 GiB, not 4 GiB, which the seed's footnote blames
//! on approximate RSS accounting: checked here against the exact count of
//! `/proc/self/smaps_rollup`), the most threads one process may start, and
//! the clone article's (`000_…`) sharing demonstrations: clone-vm-sample
//! (`tasklab demo clone-vm [vm]`) and a verified `CLONE_*` sharing matrix.

use super::prelude::*;
use crate::env::Limits;
use crate::measure::procfs;
use crate::results::NamedFit;
use crate::sys::memory as smem;
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

// --------------------------------------------------------- shared helpers

/// The memory figures of this process (and the kernel's stacks) at a moment.
#[derive(Clone, Copy, Debug, Default)]
struct Snap {
    vm_size: f64,
    vm_rss: f64,
    vm_pte: f64,
    rss_exact: f64,
    kernel_stack: f64,
    threads: f64,
}

impl Snap {
    fn now() -> anyhow::Result<Snap> {
        let need = |what: &str, v: Option<u64>| {
            v.map(|x| x as f64)
                .ok_or_else(|| anyhow::anyhow!("cannot read {what} from /proc"))
        };
        Ok(Snap {
            vm_size: need("VmSize", procfs::status_kib("VmSize"))?,
            vm_rss: need("VmRSS", procfs::status_kib("VmRSS"))?,
            vm_pte: need("VmPTE", procfs::status_kib("VmPTE"))?,
            rss_exact: need("Rss (smaps_rollup)", procfs::smaps_rollup_kib("Rss"))?,
            kernel_stack: need("KernelStack", procfs::meminfo_kib("KernelStack"))?,
            threads: std::fs::read_to_string("/proc/self/status")
                .ok()
                .and_then(|t| {
                    t.lines()
                        .find_map(|l| l.strip_prefix("Threads:"))
                        .and_then(|v| v.trim().parse().ok())
                })
                .unwrap_or(0.0),
        })
    }
}

fn median(r: &ExperimentResult, name: &str, with: &[(&str, &str)]) -> Option<f64> {
    r.find(name, with).map(|m| m.summary.median)
}

fn kib(v: f64) -> String {
    fmt_value(v, Unit::Kib)
}

fn bytes(v: f64) -> String {
    fmt_size(v.max(0.0) as u64)
}

/// Memory the machine can give a run now: MemAvailable, capped by a cgroup
/// memory limit when there is one.
fn usable_memory(env: &Env) -> u64 {
    let avail = crate::env::mem_available_bytes().unwrap_or(env.mem_available_bytes);
    env.limits.cgroup_memory_max.map_or(avail, |c| avail.min(c))
}

// ------------------------------------------------------------------ limits

/// What bounds the threads one process may still start, each bound as a
/// number of further threads with the reason.
#[derive(Clone, Debug)]
pub struct LimitInputs {
    pub limits: Limits,
    /// Tasks (threads) on the whole system now (/proc/loadavg).
    pub tasks_now: Option<u64>,
    /// Of them, those with a pid below 300 (boot-time kernel threads): the
    /// kernel never hands out those pids again.
    pub tasks_low_pids: u64,
    /// Mappings of this process now (/proc/self/maps lines).
    pub own_maps: Option<u64>,
    /// Threads of this process now.
    pub own_threads: u64,
    /// This process's virtual size now, bytes.
    pub vm_size: u64,
    /// The stack each new thread gets, bytes.
    pub stack: u64,
    pub root: bool,
    pub mem_available: Option<u64>,
}

/// Lowest user-space address range on x86-64/aarch64 with 4-level tables.
const USER_ADDRESS_SPACE: u64 = 128 << 40;
/// What one blocked thread needs at the least, besides its stack's virtual
/// range: a kernel stack (16 KiB), a few resident pages of user stack, TLS
/// and page tables. Used only to bound counts before anything starts.
const THREAD_FLOOR_BYTES: u64 = 32 << 10;

/// The kernel's RESERVED_PIDS: allocation wraps around to this pid.
const RESERVED_PIDS: u64 = 300;

/// One bound: (name, how many more threads, why).
pub type Bound = (&'static str, u64, String);

pub fn thread_bounds(i: &LimitInputs) -> Vec<Bound> {
    let l = &i.limits;
    let tasks = i.tasks_now.unwrap_or(0);
    let mut out: Vec<Bound> = Vec::new();
    if let Some(t) = l.threads_max {
        out.push((
            "threads-max",
            t.saturating_sub(tasks),
            format!("kernel.threads-max {t}, less the {tasks} tasks running on the system"),
        ));
    }
    if let Some(p) = l.pid_max {
        // Pids wrap around to RESERVED_PIDS (300), not to 1.
        let free = p
            .saturating_sub(RESERVED_PIDS)
            .saturating_sub(tasks.saturating_sub(i.tasks_low_pids));
        out.push((
            "pid_max",
            free,
            format!("kernel.pid_max {p}: every thread takes a pid; {tasks} are in use and pids below {RESERVED_PIDS} are never reused"),
        ));
    }
    if let Some(n) = l.rlimit_nproc {
        if i.root {
            // Not a bound: the kernel lets root (CAP_SYS_RESOURCE) past it.
        } else {
            out.push((
                "RLIMIT_NPROC",
                n.saturating_sub(i.own_threads),
                format!("ulimit -u {n} tasks for this user, less this process's {} threads (and the user's other tasks)", i.own_threads),
            ));
        }
    }
    if let Some(m) = l.max_map_count {
        let maps = i.own_maps.unwrap_or(0);
        out.push((
            "vm.max_map_count",
            m.saturating_sub(maps) / 2,
            format!("vm.max_map_count {m}, {maps} in use; each thread maps a stack and a guard page (2 maps)"),
        ));
    }
    // Every thread reserves its stack plus a guard page (never 0 bytes).
    let per = i.stack + crate::sys::PAGE as u64;
    let (space, what) = match l.rlimit_as {
        Some(a) => (a, "RLIMIT_AS"),
        None => (USER_ADDRESS_SPACE, "the 128 TiB user address space"),
    };
    out.push((
        "address space",
        space.saturating_sub(i.vm_size) / per,
        format!("{what} / ({} stack + guard page)", fmt_size(i.stack)),
    ));
    if let Some(c) = l.cgroup_pids_max {
        out.push((
            "cgroup pids.max",
            c.saturating_sub(i.own_threads),
            format!("cgroup pids.max {c}, less this process's threads"),
        ));
    }
    if let Some(m) = i.mem_available {
        out.push((
            "memory",
            m / THREAD_FLOOR_BYTES,
            format!(
                "{} available / about {} per blocked thread (kernel stack, resident stack pages, page tables)",
                fmt_size(m),
                fmt_size(THREAD_FLOOR_BYTES)
            ),
        ));
    }
    out
}

/// The binding bound: the smallest.
pub fn binding(bounds: &[Bound]) -> Option<&Bound> {
    bounds.iter().min_by_key(|b| b.1)
}

fn tasks_now() -> Option<u64> {
    let t = std::fs::read_to_string("/proc/loadavg").ok()?;
    t.split_whitespace().nth(3)?.split_once('/')?.1.parse().ok()
}

/// Processes (and kernel threads) whose pid is below RESERVED_PIDS.
fn tasks_low_pids() -> u64 {
    std::fs::read_dir("/proc").map_or(0, |d| {
        d.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u64>().ok())
            .filter(|&pid| pid < RESERVED_PIDS)
            .count() as u64
    })
}

fn own_maps() -> Option<u64> {
    Some(
        std::fs::read_to_string("/proc/self/maps")
            .ok()?
            .lines()
            .count() as u64,
    )
}

fn default_stack(env: &Env) -> u64 {
    smem::default_thread_stack()
        .map(|s| s as u64)
        .unwrap_or(env.limits.rlimit_stack.unwrap_or(8 << 20))
}

fn limit_inputs(env: &Env, stack: u64) -> LimitInputs {
    LimitInputs {
        limits: env.limits.clone(),
        tasks_now: tasks_now(),
        tasks_low_pids: tasks_low_pids(),
        own_maps: own_maps(),
        own_threads: Snap::now().map(|s| s.threads as u64).unwrap_or(1),
        vm_size: procfs::status_kib("VmSize").unwrap_or(0) * 1024,
        stack,
        root: smem::is_root(),
        mem_available: Some(usable_memory(env)),
    }
}

// ------------------------------------------------------- blocking threads

/// A door threads block at until it is opened, once.
#[derive(Default)]
struct Latch {
    open: Mutex<bool>,
    cv: Condvar,
}

impl Latch {
    fn wait(&self) {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        while !*open {
            open = self.cv.wait(open).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn open(&self) {
        *self.open.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.cv.notify_all();
    }
}

/// Where started threads wait: each waits for `go` (so creating them is
/// timed alone), touches its stack, arrives, then blocks until released.
#[derive(Default)]
struct Gate {
    go: Latch,
    arrived: AtomicUsize,
    released: Latch,
}

impl Gate {
    fn run(&self, touch: usize) {
        self.go.wait();
        if touch > 0 {
            touch_stack(touch);
        }
        self.arrived.fetch_add(1, Ordering::AcqRel);
        self.released.wait();
    }

    /// Waits until `n` threads have arrived, at most `limit`.
    fn all_arrived(&self, n: usize, limit: Duration) -> bool {
        let t0 = Instant::now();
        while self.arrived.load(Ordering::Acquire) < n {
            if t0.elapsed() > limit {
                return false;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        true
    }

    fn release(&self) {
        self.go.open();
        self.released.open();
    }
}

/// Uses `bytes` of the calling thread's stack: 16 KiB frames, each written
/// once per page, nested until `bytes` are covered.
fn touch_stack(bytes: usize) {
    const FRAME: usize = 16 << 10;
    #[inline(never)]
    fn frame(depth: usize) {
        if depth == 0 {
            return;
        }
        let mut buf = [0u8; FRAME];
        for i in (0..FRAME).step_by(crate::sys::PAGE) {
            buf[i] = depth as u8;
        }
        black_box(&mut buf);
        frame(depth - 1);
        // Used after the call, so the frame cannot be reused by a tail call.
        black_box(&buf);
    }
    frame(bytes.div_ceil(FRAME));
}

/// Threads started and blocked on a gate; joined (after release) on drop,
/// so none is ever left behind, whatever fails in between.
struct Crowd {
    gate: Arc<Gate>,
    threads: Vec<smem::RawThread>,
}

impl Crowd {
    fn with_capacity(n: usize) -> Crowd {
        Crowd {
            gate: Arc::new(Gate::default()),
            threads: Vec::with_capacity(n),
        }
    }

    /// Starts one more blocked thread that first touches `touch` bytes of its
    /// stack.
    fn spawn(&mut self, stack: Option<usize>, touch: usize) -> std::io::Result<()> {
        let g = Arc::clone(&self.gate);
        let t = smem::spawn_pthread(stack, Box::new(move || g.run(touch)))?;
        self.threads.push(t);
        Ok(())
    }

    fn len(&self) -> usize {
        self.threads.len()
    }
}

impl Drop for Crowd {
    fn drop(&mut self) {
        self.gate.release();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

// ------------------------------------------------------------------ malloc

pub static MALLOC: Experiment = Experiment {
    name: "memory.malloc",
    summary:
        "malloc then touch: VmSize and VmRSS at start, after malloc, after writing every element",
    reproduces: "Bendersky's malloc-memusage: VM 416,128 kB; RSS 4,780 → 410,916 kB",
    params: &[
        ParamSpec {
            name: "size",
            help: "bytes to malloc and then touch (the seed: 100 Mi ints = 400 MiB)",
            kind: ParamKind::Size {
                min: 1 << 20,
                max: 1 << 40,
            },
            quick: "400M",
            thorough: "400M",
        },
        ParamSpec {
            name: "reps",
            help: "malloc-touch-free rounds (one sample each)",
            kind: ParamKind::Count { min: 1, max: 1000 },
            quick: "3",
            thorough: "20",
        },
    ],
    seeds: &[
        SeedFigure {
            metric: "vm_size_kib",
            labels: &[("stage", "after_malloc"), ("size", "400 MiB")],
            lo: 416_128.0,
            hi: 416_128.0,
            unit: Unit::Kib,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method:
                "a tiny C program: VmSize from /proc/self/status; tasklab's own image is larger",
        },
        SeedFigure {
            metric: "rss_kib",
            labels: &[("stage", "start"), ("size", "400 MiB")],
            lo: 4_780.0,
            hi: 4_780.0,
            unit: Unit::Kib,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "ru_maxrss of a tiny C program at start; tasklab's own image is larger",
        },
        SeedFigure {
            metric: "rss_kib",
            labels: &[("stage", "after_touch"), ("size", "400 MiB")],
            lo: 410_916.0,
            hi: 410_916.0,
            unit: Unit::Kib,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "ru_maxrss after writing every int",
        },
        SeedFigure {
            metric: "vm_growth_kib",
            labels: &[("stage", "after_malloc"), ("size", "400 MiB")],
            lo: 409_604.0,
            hi: 409_604.0,
            unit: Unit::Kib,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "416,128 − 6,524 kB: vm size after malloc less at start",
        },
        SeedFigure {
            metric: "rss_growth_kib",
            labels: &[("stage", "after_touch"), ("size", "400 MiB")],
            lo: 406_136.0,
            hi: 406_136.0,
            unit: Unit::Kib,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "410,916 − 4,780 kB: max RSS after touch less at start",
        },
    ],
    hidden: false,
    supported: always_supported,
    points: malloc_points,
    measure: measure_malloc,
    analyze: analyze_malloc,
    ..Experiment::DEFAULT
};

fn malloc_points(ctx: &PlanCtx) -> Result<Points, String> {
    let mut pts = Points::default();
    let mut size = ctx.params.int("size");
    let usable = usable_memory(ctx.env);
    let limit = usable / 2;
    if size > limit {
        let msg = format!(
            "size {} does not fit: {} is available and half must stay free (largest allowed here: {})",
            fmt_size(size),
            fmt_size(usable),
            fmt_size(limit)
        );
        if ctx.user_set.iter().any(|n| n == "size") {
            return Err(msg);
        }
        size = limit & !((1 << 20) - 1);
        pts.notes
            .push(format!("{msg}; clamped to {}", fmt_size(size)));
    }
    pts.points.push(serde_json::json!({ "size": size }));
    Ok(pts)
}

fn measure_malloc(job: &Job) -> anyhow::Result<WorkerOutput> {
    let size = job.point["size"].as_u64().unwrap_or(400 << 20) as usize;
    let n = size / 4;
    let reps = job.params.int("reps") as usize;
    let size_name = fmt_size(size as u64);
    let mut out = WorkerOutput::default();
    let stages = ["start", "after_malloc", "after_touch"];
    let mut vm = [Vec::new(), Vec::new(), Vec::new()];
    let mut rss = [Vec::new(), Vec::new(), Vec::new()];
    let mut exact = [Vec::new(), Vec::new(), Vec::new()];
    for rep in 0..reps {
        let mut snaps = [Snap::default(); 3];
        let mut maxrss = [0u64; 3];
        snaps[0] = Snap::now()?;
        maxrss[0] = crate::sys::max_rss_kib()?;
        // malloc(N * sizeof(int)): reserved, not yet touched.
        let mut m: Vec<u32> = Vec::with_capacity(n);
        snaps[1] = Snap::now()?;
        maxrss[1] = crate::sys::max_rss_kib()?;
        // for (i = 0; i < N; ++i) m[i] = i;
        m.extend(0..n as u32);
        black_box(&mut m);
        snaps[2] = Snap::now()?;
        maxrss[2] = crate::sys::max_rss_kib()?;
        drop(m);
        for (k, s) in snaps.iter().enumerate() {
            vm[k].push(s.vm_size);
            rss[k].push(s.vm_rss);
            exact[k].push(s.rss_exact);
        }
        if rep == 0 {
            // ru_maxrss is a peak: only the first round's is the seed's figure.
            for (k, stage) in stages.iter().enumerate() {
                out.reading(
                    "max_rss_kib",
                    Unit::Kib,
                    labels(&[("stage", stage), ("size", &size_name)]),
                    maxrss[k] as f64,
                );
            }
        }
    }
    for (k, stage) in stages.iter().enumerate() {
        let l = labels(&[("stage", stage), ("size", &size_name)]);
        out.push("vm_size_kib", Unit::Kib, l.clone(), vm[k].clone());
        out.push("rss_kib", Unit::Kib, l.clone(), rss[k].clone());
        out.push_detail("rss_exact_kib", Unit::Kib, l.clone(), exact[k].clone());
        if k > 0 {
            let d = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x - y).collect();
            out.push("vm_growth_kib", Unit::Kib, l.clone(), d(&vm[k], &vm[0]));
            out.push("rss_growth_kib", Unit::Kib, l, d(&rss[k], &rss[0]));
        }
    }
    Ok(out)
}

fn analyze_malloc(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    let Some(size) = r
        .metrics
        .first()
        .and_then(|m| m.label("size"))
        .map(str::to_string)
    else {
        return a;
    };
    let mut f = Vec::new();
    let g = |name: &str, stage: &str| median(r, name, &[("stage", stage)]);
    if let (Some(vm_m), Some(rss_m), Some(vm_t), Some(rss_t)) = (
        g("vm_growth_kib", "after_malloc"),
        g("rss_growth_kib", "after_malloc"),
        g("vm_growth_kib", "after_touch"),
        g("rss_growth_kib", "after_touch"),
    ) {
        let bytes_n = crate::units::parse_size(&size).unwrap_or(1) as f64 / 1024.0;
        f.push(format!(
            "malloc of {size} grew VmSize by {} but VmRSS by only {}; writing every element then added {} of resident memory ({:.0}% of the size) and {} of VmSize: memory is virtual until touched (seed: VM 416,128 kB throughout, RSS 4,780 → 410,916 kB)",
            kib(vm_m),
            kib(rss_m),
            kib(rss_t),
            100.0 * rss_t / bytes_n.max(1.0),
            kib((vm_t - vm_m).max(0.0))
        ));
    }
    let maxrss = |stage: &str| r.reading("max_rss_kib", &[("stage", stage)]);
    if let (Some(a), Some(b), Some(c)) = (
        maxrss("start"),
        maxrss("after_malloc"),
        maxrss("after_touch"),
    ) {
        f.push(format!(
            "the seed's \"max RSS\" (getrusage ru_maxrss, first round): started {}, after malloc {}, after touch {}",
            kib(a),
            kib(b),
            kib(c)
        ));
    }
    if let (Some(a), Some(b)) = (
        g("rss_kib", "after_touch"),
        g("rss_exact_kib", "after_touch"),
    ) {
        f.push(format!(
            "after the touch VmRSS reads {} and the exact count (smaps_rollup Rss) {}: {:.2}% apart",
            kib(a),
            kib(b),
            100.0 * (a - b).abs() / b.max(1.0)
        ));
    }
    a.findings.extend(f);
    a
}

// ----------------------------------------------------------------- threads

const VARIANTS: &[Choice] = &[
    Choice::new("default", "threads with the default stack size"),
    Choice::new(
        "small",
        "threads with a small stack (pthread_attr_setstacksize)",
    ),
    Choice::new("touch", "threads that each touch part of their stack"),
];

pub static THREADS: Experiment = Experiment {
    name: "memory.threads",
    merge: Merge::Pool,
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
        ParamSpec {
            name: "rounds",
            help: "independent rounds per variant, each in a fresh worker",
            kind: ParamKind::Count { min: 1, max: 100 },
            quick: "3",
            thorough: "3",
        },
    ],
    seeds: &[
        SeedFigure {
            metric: "vm_size_growth_kib",
            labels: &[("variant", "default"), ("threads", "10000")],
            lo: 80.0 * 1024.0 * 1024.0,
            hi: 80.0 * 1024.0 * 1024.0,
            unit: Unit::Kib,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "~80 GiB virtual seen in top/htop for 10,000 threads",
        },
        SeedFigure {
            metric: "rss_growth_kib",
            labels: &[("variant", "default"), ("threads", "10000")],
            lo: 80.0 * 1024.0,
            hi: 80.0 * 1024.0,
            unit: Unit::Kib,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "~80 MiB resident seen in top/htop for 10,000 threads (the whole process)",
        },
        SeedFigure {
            metric: "rss_growth_kib",
            labels: &[("variant", "touch"), ("threads", "10000"), ("touch", "400 KiB")],
            lo: 2.6 * 1024.0 * 1024.0,
            hi: 2.6 * 1024.0 * 1024.0,
            unit: Unit::Kib,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "total RSS with 400 KiB of stack used by each of 10,000 threads (\"around 2.6 GiB\")",
        },
        SeedFigure {
            metric: "virt_per_thread_kib",
            labels: &[("variant", "default")],
            lo: 8_388.6,
            hi: 8_388.6,
            unit: Unit::Kib,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "~80 GiB / 10,000 threads",
        },
        SeedFigure {
            metric: "rss_per_thread_kib",
            labels: &[("variant", "default")],
            lo: 8.192,
            hi: 8.192,
            unit: Unit::Kib,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "~80 MiB / 10,000 threads (whole-process RSS, so an upper bound)",
        },
        SeedFigure {
            metric: "rss_per_thread_kib",
            labels: &[("variant", "touch"), ("touch", "400 KiB")],
            lo: 272.6,
            hi: 272.6,
            unit: Unit::Kib,
            source: SEED_SWITCH,
            hardware: BENDERSKY_HW,
            method: "~2.6 GiB / 10,000 threads",
        },
    ],
    hidden: false,
    supported: always_supported,
    points: threads_points,
    measure: measure_threads,
    analyze: analyze_threads,
    ..Experiment::DEFAULT
};

/// Resident memory one thread of `variant` is expected to need, at most.
fn thread_resident_estimate(touch: u64) -> u64 {
    touch + THREAD_FLOOR_BYTES
}

fn threads_points(ctx: &PlanCtx) -> Result<Points, String> {
    let mut pts = Points::default();
    let set = |n: &str| ctx.user_set.iter().any(|u| u == n);
    let variants = ctx.params.names("variants");
    let counts = ctx.params.list("threads");
    let mut n = counts.iter().copied().max().unwrap_or(1);
    let small = ctx.params.int("small_stack");
    let mut touch = ctx.params.int("touch");
    let stack = default_stack(ctx.env);
    let min_stack = smem::min_thread_stack() as u64;
    if small < min_stack {
        return Err(format!(
            "small_stack {} is below PTHREAD_STACK_MIN ({}) here",
            fmt_size(small),
            fmt_size(min_stack)
        ));
    }
    let touching = variants.iter().any(|v| v == "touch");
    // The touch must fit the default stack with room for the thread's frames.
    let room = stack.saturating_sub(64 << 10);
    if touching && touch > room {
        let msg = format!(
            "touch {} does not fit the default thread stack of {} (at most {})",
            fmt_size(touch),
            fmt_size(stack),
            fmt_size(room)
        );
        if set("touch") {
            return Err(msg);
        }
        touch = room;
        pts.notes
            .push(format!("{msg}; clamped to {}", fmt_size(touch)));
    }
    // Limits: leave a tenth of the binding bound (and 100 threads) to others.
    let bounds = thread_bounds(&limit_inputs(ctx.env, stack.max(small)));
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
    let usable = usable_memory(ctx.env);
    let per = thread_resident_estimate(if touching { touch } else { 0 });
    let fits = (usable / 2) / per;
    if n > fits {
        let msg = format!(
            "{n} threads x {} resident each (touch {} + about {} of kernel stack and page tables) needs {}, but only {} is available and half must stay free (at most {fits} threads)",
            fmt_size(per),
            fmt_size(if touching { touch } else { 0 }),
            fmt_size(THREAD_FLOOR_BYTES),
            fmt_size(n * per),
            fmt_size(usable),
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
            for round in 0..ctx.params.int("rounds") {
                let (stack_bytes, t) = match v.as_str() {
                    "small" => (Some(small), 0),
                    "touch" => (None, touch),
                    _ => (None, 0),
                };
                pts.points.push(serde_json::json!({
                    "variant": v, "round": round, "threads": count,
                    "stack": stack_bytes, "touch": t, "default_stack": stack,
                }));
            }
        }
    }
    Ok(pts)
}

fn measure_threads(job: &Job) -> anyhow::Result<WorkerOutput> {
    let p = &job.point;
    let variant = p["variant"].as_str().unwrap_or("default").to_string();
    let n = p["threads"].as_u64().unwrap_or(1) as usize;
    let stack = p["stack"].as_u64().map(|s| s as usize);
    let touch = p["touch"].as_u64().unwrap_or(0) as usize;
    let default_stack = p["default_stack"].as_u64().unwrap_or(8 << 20);
    let mut out = WorkerOutput::default();

    let mut crowd = Crowd::with_capacity(n);
    let before = Snap::now()?;
    let t0 = crate::sys::monotonic_ns();
    let mut refused = None;
    for _ in 0..n {
        if let Err(e) = crowd.spawn(stack, touch) {
            refused = Some(e);
            break;
        }
    }
    let t1 = crate::sys::monotonic_ns();
    let created_ns = (t1 - t0) as f64;
    let started = crowd.len();
    crowd.gate.go.open();
    if !crowd.gate.all_arrived(started, Duration::from_secs(120)) {
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
    let stack_name = fmt_size(stack.map_or(default_stack, |s| s as u64));
    let started_name = started.to_string();
    let mut base = vec![
        ("variant", variant.as_str()),
        ("threads", started_name.as_str()),
        ("stack", stack_name.as_str()),
    ];
    let touch_name = fmt_size(touch as u64);
    if touch > 0 {
        base.push(("touch", touch_name.as_str()));
    }
    let l = labels(&base);
    let d = |f: fn(&Snap) -> f64| f(&after) - f(&before);
    let one = |v: f64| vec![v];
    out.push(
        "vm_size_growth_kib",
        Unit::Kib,
        l.clone(),
        one(d(|s| s.vm_size)),
    );
    out.push("rss_growth_kib", Unit::Kib, l.clone(), one(d(|s| s.vm_rss)));
    out.push(
        "rss_exact_growth_kib",
        Unit::Kib,
        l.clone(),
        one(d(|s| s.rss_exact)),
    );
    out.push(
        "virt_per_thread_kib",
        Unit::Kib,
        l.clone(),
        one(d(|s| s.vm_size) / per),
    );
    out.push(
        "rss_per_thread_kib",
        Unit::Kib,
        l.clone(),
        one(d(|s| s.vm_rss) / per),
    );
    out.push(
        "rss_exact_per_thread_kib",
        Unit::Kib,
        l.clone(),
        one(d(|s| s.rss_exact) / per),
    );
    out.push(
        "kernel_stack_per_thread_kib",
        Unit::Kib,
        l.clone(),
        one(d(|s| s.kernel_stack) / per),
    );
    out.push_detail(
        "page_tables_per_thread_bytes",
        Unit::Bytes,
        l.clone(),
        one(d(|s| s.vm_pte) * 1024.0 / per),
    );
    out.push("create_ns", Unit::Ns, l.clone(), one(created_ns));
    out.push_detail(
        "create_per_thread_ns",
        Unit::Ns,
        l.clone(),
        one(created_ns / per),
    );
    if touch > 0 {
        out.push("touch_all_ns", Unit::Ns, l.clone(), one(ready_ns));
    } else {
        out.push_detail("ready_ns", Unit::Ns, l.clone(), one(ready_ns));
    }
    out.push_detail(
        "threads_seen",
        Unit::Count,
        l,
        one(after.threads - before.threads),
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

fn analyze_threads(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    let fits = thread_growth_fits(r);
    let mut f = Vec::new();
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
        median(r, name, &[("variant", variant), ("threads", at(variant))])
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
    if let (Some(vm), Some(rss), Some(virt), Some(res)) = (
        v("vm_size_growth_kib", "default"),
        v("rss_growth_kib", "default"),
        v("virt_per_thread_kib", "default"),
        v("rss_per_thread_kib", "default"),
    ) {
        let n: f64 = label("default", "threads").parse().unwrap_or(1.0);
        f.push(format!(
            "{} threads with the default {} stack: VmSize +{} ({} per thread: the stack and its guard page), VmRSS +{} ({} per thread): stacks are virtual until used. Scaled to the seed's 10,000: {} virtual, {} resident (seed: ~80 GiB, ~80 MiB)",
            label("default", "threads"),
            label("default", "stack"),
            bytes(vm * 1024.0),
            kib(virt),
            bytes(rss * 1024.0),
            kib(res),
            bytes(vm * 1024.0 * 10_000.0 / n.max(1.0)),
            bytes(rss * 1024.0 * 10_000.0 / n.max(1.0)),
        ));
    }
    if let (Some(virt), Some(res)) = (
        v("virt_per_thread_kib", "small"),
        v("rss_per_thread_kib", "small"),
    ) {
        f.push(format!(
            "with a {} stack (pthread_attr_setstacksize) a thread reserves {} of address space and keeps {} resident{}",
            label("small", "stack"),
            kib(virt),
            kib(res),
            v("rss_per_thread_kib", "default")
                .map(|d| format!(" (default stack: {} resident): a smaller stack saves address space, not memory", kib(d)))
                .unwrap_or_default()
        ));
    }
    if let (Some(rss), Some(exact), Some(rss_tot)) = (
        v("rss_per_thread_kib", "touch"),
        v("rss_exact_per_thread_kib", "touch"),
        v("rss_growth_kib", "touch"),
    ) {
        let touch = label("touch", "touch");
        let touch_kib = crate::units::parse_size(&touch).unwrap_or(0) as f64 / 1024.0;
        let gap = 100.0 * (exact - rss) / exact.max(1e-9);
        let verdict = if gap.abs() < 2.0 {
            "On this kernel VmRSS agrees with the exact count (smaps_rollup walks the page tables), so the resident cost is what was touched. The seed's shortfall fits its footnote: kernels before 6.2 kept each thread's RSS changes in a private cache flushed only every 64 page faults (SPLIT_RSS_COUNTING). Its gap, 4 GiB - 2.6 GiB over 10,000 threads, is about 147 KiB (37 pages) per thread: the faults of each thread's 100-page touch after its last flush, held back while the thread blocks. The threads did use 400 KiB each; VmRSS under-reported it".to_string()
        } else {
            format!(
                "VmRSS is {gap:.1}% {} the exact count: the kernel's RSS counters are approximate here, as the seed's footnote says; smaps_rollup (a walk of the page tables) is the right figure.",
                if gap > 0.0 { "below" } else { "above" }
            )
        };
        f.push(format!(
            "touching {touch} of stack in each of {} threads: VmRSS +{} per thread, exact (smaps_rollup Rss) +{} per thread, {:.0}% of the touched size; total VmRSS +{} (the seed's 10,000 x 400 KiB gave ~2.6 GiB, not 4 GiB). {verdict}",
            label("touch", "threads"),
            kib(rss),
            kib(exact),
            100.0 * exact / touch_kib.max(1e-9),
            bytes(rss_tot * 1024.0),
        ));
    }
    if let Some(k) = v("kernel_stack_per_thread_kib", "default") {
        let pte = v("page_tables_per_thread_bytes", "default").unwrap_or(0.0);
        f.push(format!(
            "outside VmRSS each thread also costs the kernel {} of kernel stack (KernelStack, system-wide, so other activity adds noise) and {} of page tables",
            kib(k),
            bytes(pte)
        ));
    }
    if let (Some(c), Some(per)) = (
        v("create_ns", "default"),
        v("create_per_thread_ns", "default"),
    ) {
        f.push(format!(
            "creating {} threads took {} ({} each, the threads blocked until all exist)",
            label("default", "threads"),
            fmt_ns(c),
            fmt_ns(per)
        ));
    }
    if let Some(t) = v("touch_all_ns", "touch") {
        let n: f64 = label("touch", "threads").parse().unwrap_or(1.0);
        f.push(format!(
            "faulting in {} of stack in each of {} threads took {} ({} per thread, on {} CPUs' worth of page faults)",
            label("touch", "touch"),
            label("touch", "threads"),
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
                    kib(x.fit.slope),
                    x.labels.get("variant").map_or("?", |v| v.as_str())
                ))
                .collect::<Vec<_>>()
                .join(", "),
            first.fit.n,
            lines.iter().map(|x| x.fit.r2).fold(1.0, f64::min)
        ));
    }
    a.findings.extend(f);
    a.fits.extend(fits);
    a.headlines.extend(thread_memory_headline(r));
    a
}

// ------------------------------------------------------------------ limits

pub static LIMITS: Experiment = Experiment {
    name: "memory.limits",
    summary: "the most threads one process may start here, from every limit, naming the binding one; opt-in probe",
    reproduces: "Bendersky: \"the maximal number of threads the OS lets one process start is about 32K\"",
    params: &[
        ParamSpec {
            name: "probe",
            help: "also start threads (default stack) until the first refusal, then join them all; may briefly exhaust pids for the whole machine",
            kind: ParamKind::Bool,
            quick: "false",
            thorough: "false",
        },
        ParamSpec {
            name: "probe_ceiling",
            help: "the probe stops after this many threads",
            kind: ParamKind::Count { min: 1, max: 4_194_304 },
            quick: "40000",
            thorough: "40000",
        },
    ],
    seeds: &[SeedFigure {
        metric: "max_threads",
        labels: &[("source", "probe")],
        lo: 32_000.0,
        hi: 32_768.0,
        unit: Unit::Count,
        source: SEED_SWITCH,
        hardware: BENDERSKY_HW,
        method: "\"about 32K\" on the seed's machine, found by starting threads",
    }],
    hidden: false,
    supported: always_supported,
    points: limits_points,
    measure: measure_limits,
    analyze: analyze_limits,
    ..Experiment::DEFAULT
};

fn limits_points(ctx: &PlanCtx) -> Result<Points, String> {
    let mut pts = Points::default();
    let mut ceiling = ctx.params.int("probe_ceiling");
    let probe = ctx.params.flag("probe");
    let usable = usable_memory(ctx.env);
    let fits = (usable / 2) / THREAD_FLOOR_BYTES;
    if probe && ceiling > fits {
        let msg = format!(
            "probe_ceiling {ceiling} threads x about {} each needs more than half of the {} available (at most {fits})",
            fmt_size(THREAD_FLOOR_BYTES),
            fmt_size(usable)
        );
        if ctx.user_set.iter().any(|n| n == "probe_ceiling") {
            return Err(msg);
        }
        ceiling = fits;
        pts.notes.push(format!("{msg}; clamped to {ceiling}"));
    }
    pts.points
        .push(serde_json::json!({ "probe": probe, "ceiling": ceiling }));
    Ok(pts)
}

fn measure_limits(job: &Job) -> anyhow::Result<WorkerOutput> {
    let mut out = WorkerOutput::default();
    let env = crate::env::probe();
    let stack = default_stack(&env);
    let inputs = limit_inputs(&env, stack);
    let bounds = thread_bounds(&inputs);
    for (name, most, why) in &bounds {
        out.reading(
            "thread_bound",
            Unit::Count,
            labels(&[("source", name), ("why", why)]),
            *most as f64,
        );
    }
    if let Some((name, most, _)) = binding(&bounds) {
        out.push(
            "max_threads",
            Unit::Count,
            labels(&[("source", "computed"), ("binding", name)]),
            vec![*most as f64],
        );
    }
    if inputs.root && env.limits.rlimit_nproc.is_some() {
        out.notes.push(
            "running as root: RLIMIT_NPROC is not enforced (CAP_SYS_RESOURCE), so it is no bound here"
                .into(),
        );
    }
    if job.point["probe"].as_bool().unwrap_or(false) {
        let ceiling = job.point["ceiling"].as_u64().unwrap_or(1) as usize;
        let (started, stop, secs) = probe(ceiling);
        out.push(
            "max_threads",
            Unit::Count,
            labels(&[("source", "probe"), ("stopped_by", &stop)]),
            vec![started as f64],
        );
        out.reading(
            "probe_seconds",
            Unit::Count,
            labels(&[("stopped_by", &stop)]),
            secs,
        );
    }
    Ok(out)
}

/// Starts default-stack threads until one is refused, the ceiling is reached
/// or 60 s pass; joins them all (the Crowd's drop). Returns how many started
/// and what stopped it.
fn probe(ceiling: usize) -> (usize, String, f64) {
    let t0 = Instant::now();
    let mut crowd = Crowd::with_capacity(ceiling.min(1 << 20));
    crowd.gate.go.open();
    let mut stop = format!("ceiling {ceiling}");
    while crowd.len() < ceiling {
        if let Err(e) = crowd.spawn(None, 0) {
            stop = errno_text(&e);
            break;
        }
        if t0.elapsed() > Duration::from_secs(60) {
            stop = "the 60 s time limit".into();
            break;
        }
    }
    let started = crowd.len();
    drop(crowd);
    (started, stop, t0.elapsed().as_secs_f64())
}

/// "EAGAIN (Resource temporarily unavailable)" for the errors pthread_create
/// gives, so the report names the errno the man page documents.
fn errno_text(e: &std::io::Error) -> String {
    let name = match e.raw_os_error() {
        Some(libc::EAGAIN) => "EAGAIN",
        Some(libc::ENOMEM) => "ENOMEM",
        Some(libc::EPERM) => "EPERM",
        Some(libc::EINVAL) => "EINVAL",
        _ => return e.to_string(),
    };
    let text = e.to_string();
    let text = text.split(" (os error").next().unwrap_or(&text);
    format!("{name} ({text})")
}

fn analyze_limits(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    let mut bounds: Vec<&Reading> = r
        .readings
        .iter()
        .filter(|x| x.name == "thread_bound")
        .collect();
    bounds.sort_by(|a, b| a.value.total_cmp(&b.value));
    let mut f = Vec::new();
    if let Some(b) = bounds.first() {
        let others: Vec<String> = bounds[1..]
            .iter()
            .map(|x| {
                format!(
                    "{} {}",
                    x.labels.get("source").map_or("?", String::as_str),
                    group_digits(x.value as i64)
                )
            })
            .collect();
        f.push(format!(
            "this process may start at most about {} more threads: {} binds ({}); the other bounds: {}",
            group_digits(b.value as i64),
            b.labels.get("source").map_or("?", String::as_str),
            b.labels.get("why").map_or("", String::as_str),
            others.join(", ")
        ));
    }
    if let Some(m) = r.find("max_threads", &[("source", "probe")]) {
        let stop = m.label("stopped_by").unwrap_or("?").to_string();
        let computed = median(r, "max_threads", &[("source", "computed")]);
        let why = if stop.starts_with("EAGAIN") {
            ": pthread_create's answer when a task limit (pid_max, threads-max, RLIMIT_NPROC, cgroup pids.max) is reached or the stack cannot be mapped (address space, vm.max_map_count)"
        } else {
            ""
        };
        f.push(format!(
            "the probe started {} threads{} and was stopped by {stop}{why}; every thread was joined",
            group_digits(m.summary.median as i64),
            computed
                .map(|c| format!(
                    " (computed bound: {})",
                    group_digits(c as i64)
                ))
                .unwrap_or_default()
        ));
    }
    a.findings.extend(f);
    a
}

// ----------------------------------------------------------------- sharing

/// The rows of the sharing matrix: a name and the CLONE_* flags.
pub const SHARE_ROWS: &[(&str, libc::c_int)] = &[
    ("none", 0),
    ("CLONE_VM", libc::CLONE_VM),
    ("CLONE_FILES", libc::CLONE_FILES),
    ("CLONE_FS", libc::CLONE_FS),
    ("CLONE_SIGHAND", libc::CLONE_VM | libc::CLONE_SIGHAND),
    (
        "CLONE_THREAD",
        libc::CLONE_VM | libc::CLONE_SIGHAND | libc::CLONE_THREAD,
    ),
    (
        "pthread_create",
        libc::CLONE_VM
            | libc::CLONE_FS
            | libc::CLONE_FILES
            | libc::CLONE_SYSVSEM
            | libc::CLONE_SIGHAND
            | libc::CLONE_THREAD,
    ),
];

/// The aspects a child changes, with the flag clone(2) says shares each.
pub const ASPECTS: &[(&str, libc::c_int)] = &[
    ("memory", libc::CLONE_VM),
    ("fd_open", libc::CLONE_FILES),
    ("fd_close", libc::CLONE_FILES),
    ("cwd", libc::CLONE_FS),
    ("signal", libc::CLONE_SIGHAND),
    ("tgid", libc::CLONE_THREAD),
];

fn aspect(s: &smem::Sharing, name: &str) -> bool {
    match name {
        "memory" => s.memory,
        "fd_open" => s.fd_open,
        "fd_close" => s.fd_close,
        "cwd" => s.cwd,
        "signal" => s.signal,
        _ => s.same_tgid,
    }
}

/// What clone(2) documents: the aspect is shared when its flag is set.
pub fn documented(flags: libc::c_int, aspect_flag: libc::c_int) -> bool {
    flags & aspect_flag != 0
}

pub static SHARING: Experiment = Experiment {
    name: "memory.sharing",
    summary: "which changes a clone()d child makes the parent sees, per CLONE_* flag: memory, fds, cwd, signals, tgid",
    reproduces: "Bendersky's clone-vm-sample (the CLONE_VM row) and the flags it names: CLONE_FILES, CLONE_SIGHAND, CLONE_THREAD",
    params: &[ParamSpec {
        name: "reps",
        help: "times each row is observed (must agree every time)",
        kind: ParamKind::Count { min: 1, max: 1000 },
        quick: "3",
        thorough: "20",
    }],
    seeds: &[],
    hidden: false,
    supported: always_supported,
    points: single_point,
    measure: measure_sharing,
    analyze: analyze_sharing,
    ..Experiment::DEFAULT
};

fn measure_sharing(job: &Job) -> anyhow::Result<WorkerOutput> {
    let mut out = WorkerOutput::default();
    let cwd = std::env::current_dir()?;
    let elsewhere = if cwd == std::path::Path::new("/") {
        std::env::temp_dir()
    } else {
        "/".into()
    };
    let elsewhere = std::ffi::CString::new(elsewhere.as_os_str().as_encoded_bytes())?;
    let reps = job.params.int("reps") as usize;
    for (row, flags) in SHARE_ROWS {
        let mut seen: Vec<smem::Sharing> = Vec::new();
        for _ in 0..reps {
            seen.push(
                smem::observe_sharing(*flags, &elsewhere)
                    .map_err(|e| anyhow::anyhow!("{row}: {e}"))?,
            );
        }
        if seen.iter().any(|s| *s != seen[0]) {
            out.notes.push(format!(
                "{row}: the {reps} observations disagree; the first is reported"
            ));
        }
        for (name, _) in ASPECTS {
            out.reading(
                "shared",
                Unit::Count,
                labels(&[("flag", row), ("aspect", name)]),
                if aspect(&seen[0], name) { 1.0 } else { 0.0 },
            );
        }
    }
    if std::env::current_dir()? != cwd {
        anyhow::bail!("the working directory was not restored");
    }
    Ok(out)
}

fn analyze_sharing(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    let mut f = Vec::new();
    let mut mismatches = Vec::new();
    let width = SHARE_ROWS.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
    for (row, flags) in SHARE_ROWS {
        let mut cells = Vec::new();
        for (name, aflag) in ASPECTS {
            let Some(v) = r.reading("shared", &[("flag", row), ("aspect", name)]) else {
                continue;
            };
            let shared = v > 0.5;
            let word = match (*name, shared) {
                ("tgid", true) => "same",
                ("tgid", false) => "differs",
                (_, true) => "shared",
                (_, false) => "copied",
            };
            cells.push(format!("{name} {word}"));
            if shared != documented(*flags, *aflag) {
                mismatches.push(format!("{row}/{name}"));
            }
        }
        if !cells.is_empty() {
            f.push(format!("{row:<width$}  {}", cells.join(" · ")));
        }
    }
    if f.is_empty() {
        return a;
    }
    f.push(if mismatches.is_empty() {
        "verified on this machine: each flag shares exactly what clone(2) says and nothing else; without CLONE_VM the child's write stays in its copy (the seed's clone-vm-sample, `tasklab demo clone-vm [vm]`), and only CLONE_THREAD gives the child the parent's pid".to_string()
    } else {
        format!(
            "these cells differ from what clone(2) documents: {}",
            mismatches.join(", ")
        )
    });
    a.findings.extend(f);
    a
}

// ------------------------------------------------------------- summary

/// What a blocked thread with the default stack reserves and keeps.
fn thread_memory_headline(e: &ExperimentResult) -> Option<String> {
    // The largest thread count measured for the default stack.
    let virt = e
        .metrics_named("virt_per_thread_kib")
        .filter(|m| m.label("variant") == Some("default"))
        .max_by_key(|m| m.label_num("threads").unwrap_or(0))?;
    let n = virt.label("threads")?;
    let stack = virt.label("stack").unwrap_or("default");
    let at = [("variant", "default"), ("threads", n)];
    let res = e
        .median("rss_exact_per_thread_kib", &at)
        .or(e.median("rss_per_thread_kib", &at))?;
    let kernel = e.median("kernel_stack_per_thread_kib", &at);
    Some(format!(
        "a blocked thread with the {stack} default stack reserves {} of address space but keeps {} resident{} ({n} threads)",
        fmt_value(virt.summary.median, Unit::Kib),
        fmt_value(res, Unit::Kib),
        kernel
            .map(|k| format!(", plus {} of kernel stack", fmt_value(k, Unit::Kib)))
            .unwrap_or_default()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs() -> LimitInputs {
        LimitInputs {
            limits: Limits {
                threads_max: Some(192_730),
                pid_max: Some(32_768),
                max_map_count: Some(65_530),
                rlimit_nproc: Some(96_365),
                rlimit_stack: Some(8 << 20),
                rlimit_as: None,
                cgroup_pids_max: None,
                cgroup_memory_max: None,
            },
            tasks_now: Some(116),
            tasks_low_pids: 16,
            own_maps: Some(30),
            own_threads: 1,
            vm_size: 10 << 20,
            stack: 8 << 20,
            root: false,
            mem_available: Some(24 << 30),
        }
    }

    #[test]
    fn pid_max_binds_on_a_default_machine() {
        let b = thread_bounds(&inputs());
        let (name, most, _) = binding(&b).unwrap();
        assert_eq!(*name, "pid_max");
        assert_eq!(*most, 32_768 - 300 - (116 - 16));
        let maps = b.iter().find(|x| x.0 == "vm.max_map_count").unwrap();
        assert_eq!(maps.1, (65_530 - 30) / 2);
    }

    #[test]
    fn root_is_not_bound_by_nproc_and_address_space_binds_with_rlimit_as() {
        let mut i = inputs();
        i.root = true;
        i.limits.rlimit_nproc = Some(10);
        assert!(thread_bounds(&i).iter().all(|b| b.0 != "RLIMIT_NPROC"));
        i.root = false;
        assert_eq!(binding(&thread_bounds(&i)).unwrap().0, "RLIMIT_NPROC");
        i.limits.rlimit_nproc = None;
        i.limits.rlimit_as = Some(1 << 30);
        let b = thread_bounds(&i);
        let (name, most, _) = binding(&b).unwrap();
        assert_eq!(*name, "address space");
        assert_eq!(*most, ((1u64 << 30) - (10 << 20)) / ((8 << 20) + 4096));
    }

    #[test]
    fn documented_sharing_follows_the_flag() {
        assert!(documented(libc::CLONE_VM, libc::CLONE_VM));
        assert!(!documented(0, libc::CLONE_VM));
        assert!(!documented(libc::CLONE_FILES, libc::CLONE_FS));
    }

    #[test]
    fn touching_the_stack_does_not_overflow_a_default_thread() {
        std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(|| touch_stack(400 << 10))
            .unwrap()
            .join()
            .unwrap();
    }
}
