//! `run --why` in the worker: cpu-clock samples of the worker and its
//! children (`sys::perf`), taken only inside the timed windows of the
//! series an experiment names ([`Scope`]), their kernel call chains
//! counted per series as raw addresses. The parent names the addresses
//! (`measure::attribution`), once per run, from /proc/kallsyms.
//!
//! Sampling is CPU-wide where the kernel allows it (an event per CPU that
//! samples every task there, the samples of other processes dropped by
//! [`Tree`]), since then the kernel does nothing for it at a context switch
//! or a fork; else per task, inherited by the children ([`choose`]).
//!
//! A window is what the sampler times: the recorded calls of
//! `sampler::events_cpu` and `sampler::per_op_cpu` (warm-ups are not
//! sampled), while a [`Scope`] says which series they are. The events are
//! switched on once, as the worker starts, before its setup (an ioctl per
//! CPU, outside any timed call), and stay on until the worker finishes:
//! the clock's first sample comes a whole period after it is switched on,
//! so switched on at the first window (as before session 23) it sampled
//! none of the windows that fit in the worker's first period (spawn.cow's
//! writes with no child, 2 ms in all, came first and got no sample at 99
//! Hz); switched on before the setup, the samples fall at a phase the
//! windows do not set;
//! each window is stamped on `CLOCK_MONOTONIC` as it opens and closes, the
//! clock the samples carry, and only the samples stamped inside it are
//! kept ([`within`]). The rings are drained as a window opens (what came
//! before it dropped, its fork and exit records read) and as it closes.
//! The kernel's fork and exit records, which place a reaped child's
//! samples, are not asked for while a [`Scope::threads`] lives: a series
//! that starts threads only does not pay for them. Where the worker can
//! have a cgroup of its own (`sys::cgroup`: cgroup v2, the perf_event
//! controller on it, Linux 5.7's `PERF_SAMPLE_CGROUP`), no record is
//! asked for at all: the worker moves itself into its cgroup as sampling
//! starts, its children are born there, and a sample is kept when it
//! carries that cgroup ([`keep_group`]); each fork and exit then costs
//! nothing for sampling (the records cost a fork+reap at 0 B about 1.3%,
//! docs/WHY.md).

use crate::results::Labels;
use crate::sys::perf::{CpuClock, Drained, Mode, Sample};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// The sampling a job asks its worker for.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct WhyJob {
    /// Samples per second of CPU time of each sampled task.
    pub rate_hz: u64,
    /// The mode the run chose ([`choose`]), every worker alike.
    pub mode: Mode,
    /// CPU-wide, the worker's tree is told by a cgroup of its own, not by
    /// fork and exit records ([`WhyPlan::cgroup`]).
    #[serde(default)]
    pub cgroup: bool,
}

/// The default rate. Each sample is a timer interrupt, and on a VM the
/// interrupt itself is the cost, whatever the event asks for (a call chain
/// or none, a ring or none): 18 to 24 µs taken from a spinning task, and
/// about 95 µs from a fork of a 1 GiB heap in the page-table copy, on the
/// 2-vCPU KVM guest of docs/WHY.md ("What a sample costs", "Where fork's
/// cost went"). At 250 Hz that fork paid +2% to +2.7%, past the 2% the
/// sampling may cost; at 99 Hz it paid nothing told apart from none
/// (session 23). 99 rather than 100: a period that is no multiple of the
/// tick's (4 ms at `CONFIG_HZ=250`, 10 ms at 100) keeps the samples from
/// falling in step with it, `perf record -F 99`'s reason. `--why-rate`
/// raises it where a window is too short to sample, at the cost the run
/// measures.
pub const DEFAULT_RATE_HZ: u64 = 99;
/// The rates `--why-rate` takes: below 10 Hz a round holds too few
/// samples to share out; above 10 kHz the sampling costs more than it
/// tells (each sample is an interrupt and a call-chain walk).
pub const RATE_RANGE: std::ops::RangeInclusive<u64> = 10..=10_000;
// The default is a rate `--why-rate` takes (checked when it is built).
const _: () =
    assert!(DEFAULT_RATE_HZ >= *RATE_RANGE.start() && DEFAULT_RATE_HZ <= *RATE_RANGE.end());
/// Ring pages of all CPUs together (4 KiB each): 2 MiB, so 1 MiB a CPU on
/// two, which holds about three seconds of samples at 1 kHz with 30-frame
/// chains (twelve at the default rate), more than any window between two
/// drains; on many CPUs each
/// ring is smaller (at least 64 KiB), and a sample a full ring drops is
/// counted (`lost`).
const RING_PAGES: usize = 512;

/// A run's `--why`: the rate, the mode, and why sampling is refused here
/// if it is.
#[derive(Clone, Debug, PartialEq)]
pub struct WhyPlan {
    pub rate_hz: u64,
    pub refused: Option<String>,
    pub mode: Mode,
    /// Why the mode is per task, where CPU-wide sampling was refused.
    pub per_task_why: Option<String>,
    /// CPU-wide, whether the worker's tree is told by a cgroup of its own
    /// (else by the kernel's fork and exit records).
    pub cgroup: bool,
    /// Why by the records, where CPU-wide sampling could not use a cgroup.
    pub records_why: Option<String>,
}

impl WhyPlan {
    /// At `rate_hz`, checked against this machine ([`probe`]).
    pub fn here(rate_hz: u64) -> WhyPlan {
        let (mode, per_task_why, refused) = match probe() {
            Ok((mode, why)) => (mode, why, None),
            Err(no) => (Mode::PerTask, None, Some(no)),
        };
        let (cgroup, records_why) = match (mode, &refused) {
            (Mode::CpuWide, None) => {
                crate::sys::cgroup::sweep();
                match probe_cgroup() {
                    Ok(()) => (true, None),
                    Err(why) => (false, Some(why)),
                }
            }
            _ => (false, None),
        };
        WhyPlan {
            rate_hz,
            refused,
            mode,
            per_task_why,
            cgroup,
            records_why,
        }
    }

    /// What each job asks its worker for: nothing when refused.
    pub fn job(&self) -> Option<WhyJob> {
        self.refused.is_none().then_some(WhyJob {
            rate_hz: self.rate_hz,
            mode: self.mode,
            cgroup: self.cgroup,
        })
    }

    /// What the results file records of it.
    pub fn record(&self) -> crate::results::why::WhyRecord {
        crate::results::why::WhyRecord {
            event: "cpu-clock".into(),
            rate_hz: self.rate_hz,
            unavailable: self.refused.clone(),
            mode: self.refused.is_none().then(|| mode_name(self.mode).into()),
            per_task_why: self.per_task_why.clone(),
            tasks: (self.refused.is_none() && self.mode == Mode::CpuWide)
                .then(|| tasks_name(self.cgroup).into()),
            records_why: self.records_why.clone(),
        }
    }
}

/// How the results file names a mode.
pub fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::CpuWide => "cpu-wide",
        Mode::PerTask => "per-task",
    }
}

/// How the results file names the way a CPU-wide run told the worker's
/// tasks: by a cgroup of its own, or by the kernel's records.
pub fn tasks_name(cgroup: bool) -> &'static str {
    match cgroup {
        true => "cgroup",
        false => "records",
    }
}

/// The samples of the worker's cgroup (`id`): the worker and every task
/// started in it since it moved there, whatever their pids, alive or gone.
pub fn keep_group(samples: Vec<Sample>, id: u64) -> Vec<Sample> {
    samples.into_iter().filter(|s| s.cgroup == id).collect()
}

/// The processes a CPU-wide event's samples are kept for: the worker
/// (`root`) and its descendants. A process is in the tree when its parent
/// is: the parent from a fork record (a child started while sampling was
/// on, kept after it was reaped, until an exit record says it ended), else
/// from /proc (a child started before, alive at the drain). Verdicts are
/// kept for one drain only: a pid is reused once the kernel's pids wrap
/// (pid_max can be 32768), and a reaped stranger's pid may be a child's in
/// the next window.
#[derive(Debug)]
pub struct Tree {
    root: u32,
    parents: HashMap<u32, u32>,
    known: HashMap<u32, bool>,
}

impl Tree {
    pub fn new(root: u32) -> Tree {
        Tree {
            root,
            parents: HashMap::new(),
            known: HashMap::new(),
        }
    }

    /// Notes the children that fork records name, before the samples of
    /// the same drain are judged.
    pub fn forks(&mut self, forks: &[(u32, u32)]) {
        for &(child, parent) in forks {
            self.parents.insert(child, parent);
            self.known.remove(&child);
        }
    }

    /// Whether process `pid` is in the tree, a parent not named by a fork
    /// record asked of `parent_of` (None: not visible, so not known to be
    /// in it).
    pub fn holds(&mut self, pid: u32, parent_of: &mut impl FnMut(u32) -> Option<u32>) -> bool {
        let mut path = Vec::new();
        let mut at = pid;
        let verdict = loop {
            if at == self.root {
                break true;
            }
            if let Some(&v) = self.known.get(&at) {
                break v;
            }
            // The idle task, init, or a chain too long to be a worker's.
            if at <= 1 || path.len() >= 64 {
                break false;
            }
            path.push(at);
            match self.parents.get(&at).copied().or_else(|| parent_of(at)) {
                Some(p) if p != at => at = p,
                _ => break false,
            }
        };
        for p in path {
            self.known.insert(p, verdict);
        }
        verdict
    }

    /// The samples of a drain that belong to the tree: the drain's fork
    /// records noted first, its exit records after its samples are judged.
    pub fn keep(
        &mut self,
        d: Drained,
        mut parent_of: impl FnMut(u32) -> Option<u32>,
    ) -> Vec<Sample> {
        self.known.clear();
        self.forks(&d.forks);
        let kept = d
            .samples
            .into_iter()
            .filter(|s| self.holds(s.pid, &mut parent_of))
            .collect();
        for pid in &d.exits {
            self.parents.remove(pid);
        }
        kept
    }
}

/// One round's samples of the series with `labels`: user-space samples
/// counted, kernel ones by call chain (sampled address first).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RawStacks {
    pub labels: Labels,
    pub user: u64,
    pub lost: u64,
    pub kernel: Vec<(Vec<u64>, u64)>,
}

#[derive(Default)]
struct Counts {
    user: u64,
    lost: u64,
    kernel: HashMap<Vec<u64>, u64>,
}

struct Recorder {
    clock: CpuClock,
    /// The worker's tree, for a CPU-wide clock's samples told by records.
    tree: Option<Tree>,
    scope: Option<Labels>,
    /// When the open window opened (`sys::monotonic_ns`), if one is.
    open_at: Option<u64>,
    got: Vec<(Labels, Counts)>,
    /// The worker's own cgroup, for a CPU-wide clock's samples that carry
    /// theirs; left (the worker moved back) when the recorder drops, after
    /// the clock closed.
    group: Option<crate::sys::cgroup::Own>,
}

/// What a drain holds of a window stamped `open` to `close` (ns on
/// `CLOCK_MONOTONIC`, the clock the samples carry): the samples and the
/// lost records stamped in it, both ends included (a sample at either
/// instant was taken while the window was open as far as the clock can
/// tell); every fork and exit record, which say who the worker's tree is
/// whenever they came.
pub fn within(d: Drained, open: u64, close: u64) -> Drained {
    let inside = |t: u64| open <= t && t <= close;
    Drained {
        samples: d.samples.into_iter().filter(|s| inside(s.time)).collect(),
        lost: d.lost.into_iter().filter(|(t, _)| inside(*t)).collect(),
        ..d
    }
}

static RECORDER: Mutex<Option<Recorder>> = Mutex::new(None);
/// Whether [`RECORDER`] holds a recorder: checked before its mutex, so a
/// worker that does not sample (no `--why`, or an unsampled round) never
/// takes the lock at a timed batch.
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Whether this worker samples (a recorder started and not finished).
pub fn active() -> bool {
    ACTIVE.load(Ordering::Acquire)
}

fn with<R>(f: impl FnOnce(&mut Recorder) -> R) -> Option<R> {
    if !active() {
        return None;
    }
    let mut guard = RECORDER.lock().unwrap_or_else(|p| p.into_inner());
    guard.as_mut().map(f)
}

impl Recorder {
    /// Opens a window: what the rings hold from before dropped (their fork
    /// and exit records noted), then the window's start stamped.
    fn open(&mut self) {
        let before = Drained {
            samples: Vec::new(),
            lost: Vec::new(),
            ..self.clock.drain()
        };
        if let Some(t) = &mut self.tree {
            t.keep(before, crate::sys::procfs::parent_pid);
        }
        self.open_at = Some(crate::sys::monotonic_ns());
    }

    /// Closes the open window, if one is: its end stamped, and the samples
    /// stamped inside it counted to the scope.
    fn stop(&mut self) {
        let Some(open) = self.open_at.take() else {
            return;
        };
        let close = crate::sys::monotonic_ns();
        let d = within(self.clock.drain(), open, close);
        let lost = d.lost.iter().map(|(_, n)| n).sum::<u64>();
        let samples = match (&self.group, &mut self.tree) {
            (Some(g), _) => keep_group(d.samples, g.id()),
            (None, Some(t)) => t.keep(d, crate::sys::procfs::parent_pid),
            (None, None) => d.samples,
        };
        let Some(labels) = &self.scope else { return };
        let at = match self.got.iter().position(|(l, _)| l == labels) {
            Some(i) => i,
            None => {
                self.got.push((labels.clone(), Counts::default()));
                self.got.len() - 1
            }
        };
        let c = &mut self.got[at].1;
        c.lost += lost;
        for s in samples {
            if s.kernel {
                *c.kernel.entry(s.kernel_ips).or_default() += 1;
            } else {
                c.user += 1;
            }
        }
    }
}

/// Starts this worker's sampling, the events switched on now (their
/// samples outside a window dropped as the next one opens). An error says
/// why; the worker then measures without it.
pub fn start(job: &WhyJob) -> std::io::Result<()> {
    // The cgroup first, so that every task the worker starts is born in it.
    let group = match job.cgroup && job.mode == Mode::CpuWide {
        true => Some(crate::sys::cgroup::Own::enter()?),
        false => None,
    };
    let period = 1_000_000_000 / job.rate_hz.max(1);
    let mut clock = CpuClock::open(period, RING_PAGES, job.mode, group.is_some())?;
    clock.enable()?;
    let tree =
        (clock.mode() == Mode::CpuWide && group.is_none()).then(|| Tree::new(std::process::id()));
    *RECORDER.lock().unwrap_or_else(|p| p.into_inner()) = Some(Recorder {
        clock,
        tree,
        scope: None,
        open_at: None,
        got: Vec::new(),
        group,
    });
    ACTIVE.store(true, Ordering::Release);
    Ok(())
}

/// Ends the sampling and gives what each series' windows collected.
pub fn finish() -> Vec<RawStacks> {
    ACTIVE.store(false, Ordering::Release);
    let taken = RECORDER.lock().unwrap_or_else(|p| p.into_inner()).take();
    let Some(mut r) = taken else {
        return Vec::new();
    };
    r.stop();
    r.got
        .into_iter()
        .map(|(labels, c)| {
            let mut kernel: Vec<(Vec<u64>, u64)> = c.kernel.into_iter().collect();
            kernel.sort();
            RawStacks {
                labels,
                user: c.user,
                lost: c.lost,
                kernel,
            }
        })
        .collect()
}

/// While it lives, the windows timed are those of the series with these
/// labels (every series the experiment pushes with them).
pub struct Scope(());

impl Scope {
    /// The series' windows may start processes: the kernel's fork and exit
    /// records are asked for, which place a child's samples in the worker's
    /// tree after the child is gone.
    pub fn enter(labels: &Labels) -> Scope {
        Scope::enter_with(labels, true)
    }

    /// The series' windows start threads and no process: the fork and exit
    /// records, which the kernel writes for every task started (a few
    /// hundred ns of each thread create+join on a VM, docs/WHY.md), are not
    /// asked for while it lives; a thread's samples carry its process's pid.
    pub fn threads(labels: &Labels) -> Scope {
        Scope::enter_with(labels, false)
    }

    /// `processes`: the series' windows may start processes. A series whose
    /// records could not be switched on is not sampled (its children could
    /// not be placed).
    fn enter_with(labels: &Labels, processes: bool) -> Scope {
        with(|r| {
            r.stop();
            let asked = r.clock.task_records(processes);
            r.scope = (asked.is_ok() || !processes).then(|| labels.clone());
        });
        Scope(())
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        with(|r| {
            r.stop();
            r.scope = None;
            // Asked for again, as before any scope; a failure leaves them off
            // and the next scope that starts processes tries again.
            let _ = r.clock.task_records(true);
        });
    }
}

/// Files what the windows of the series `from` collected under `to`: for
/// an experiment whose series' labels are known only once its windows ran
/// (memory.threads: the threads that did start).
pub fn relabel(from: &Labels, to: &Labels) {
    with(|r| {
        r.stop();
        for (l, _) in r.got.iter_mut().filter(|(l, _)| l == from) {
            *l = to.clone();
        }
    });
}

/// A timed window: its samples kept while it lives, if this worker samples
/// and a [`Scope`] names the series; when it drops, the samples stamped
/// inside it counted to the scope. A window opened inside another (a timed
/// call inside a timed batch) leaves the outer one as it is.
pub struct Window {
    opened: bool,
}

impl Window {
    pub fn open() -> Window {
        let opened = with(|r| {
            let opens = r.scope.is_some() && r.open_at.is_none();
            if opens {
                r.open();
            }
            opens
        });
        Window {
            opened: opened.unwrap_or(false),
        }
    }
}

impl Drop for Window {
    fn drop(&mut self) {
        if self.opened {
            with(Recorder::stop);
        }
    }
}

/// Whether a cpu-clock event of `mode` opens, maps and enables here.
fn try_mode(mode: Mode) -> std::io::Result<()> {
    let mut c = CpuClock::open(1_000_000, 8, mode, false)?;
    c.enable()?;
    c.disable()
}

/// The mode to sample in, from whether a CPU-wide event opens here
/// (`wide`) and, only if not, whether a per-task one does (`per_task`):
/// CPU-wide where it opens; else per task, with the CPU-wide refusal; else
/// the per-task refusal.
pub fn choose(
    wide: std::io::Result<()>,
    per_task: impl FnOnce() -> std::io::Result<()>,
) -> Result<(Mode, Option<std::io::Error>), std::io::Error> {
    match wide {
        Ok(()) => Ok((Mode::CpuWide, None)),
        Err(w) => per_task().map(|()| (Mode::PerTask, Some(w))),
    }
}

/// Whether a CPU-wide run's workers can tell their tasks by a cgroup of
/// their own: one can be made here (`sys::cgroup::usable`) and a CPU-wide
/// event's samples carry their cgroup; else why not, in words.
pub fn probe_cgroup() -> Result<(), String> {
    crate::sys::cgroup::usable()?;
    let tried = CpuClock::open(1_000_000, 8, Mode::CpuWide, true).and_then(|mut c| {
        c.enable()?;
        c.disable()
    });
    tried.map_err(|e| {
        format!(
            "this kernel's samples cannot carry their cgroup (PERF_SAMPLE_CGROUP, Linux 5.7): {e}"
        )
    })
}

/// Whether this process may sample itself with kernel call chains here,
/// and how: the mode and, when per task, why not CPU-wide; else why not at
/// all, naming the setting to change.
pub fn probe() -> Result<(Mode, Option<String>), String> {
    let paranoid = crate::sys::procfs::perf_event_paranoid();
    let root = crate::sys::effective_uid() == 0;
    match choose(try_mode(Mode::CpuWide), || try_mode(Mode::PerTask)) {
        Ok((mode, wide)) => Ok((mode, wide.map(|e| per_task_words(&e, paranoid)))),
        Err(e) => Err(refusal_words(&e, paranoid, root)),
    }
}

/// Why the sampling is per task: the CPU-wide event's refusal `e`, the
/// setting that allows it, and what per-task events cost.
pub fn per_task_words(e: &std::io::Error, paranoid: Option<i64>) -> String {
    let setting = match paranoid {
        Some(p) => format!("kernel.perf_event_paranoid is {p}"),
        None => "kernel.perf_event_paranoid cannot be read".into(),
    };
    format!(
        "sampled with per-task events, as CPU-wide sampling was refused ({e}; {setting}, and \
         CPU-wide events need it at 0 or below, or CAP_PERFMON, or root): the kernel switches \
         a sampled task's events out and in at each of its context switches and copies them \
         at each fork, which a figure made of context switches pays (see docs/WHY.md)"
    )
}

/// Why the kernel refused the event `e`, in words that name the setting.
pub fn refusal_words(e: &std::io::Error, paranoid: Option<i64>, root: bool) -> String {
    let setting = match paranoid {
        Some(p) => format!("kernel.perf_event_paranoid is {p}"),
        None => "kernel.perf_event_paranoid cannot be read".into(),
    };
    match e.raw_os_error() {
        Some(libc::EACCES) | Some(libc::EPERM) if root => format!(
            "sampling refused ({e}) although tasklab runs as root: a container without \
             CAP_PERFMON (or CAP_SYS_ADMIN), or a seccomp profile that blocks perf_event_open; \
             run it with --cap-add PERFMON (and a seccomp profile that allows the call)"
        ),
        Some(libc::EACCES) | Some(libc::EPERM) => format!(
            "sampling refused ({e}): {setting}; kernel call chains of your own processes need \
             it at 1 or below (sysctl kernel.perf_event_paranoid=1), or CAP_PERFMON, or root"
        ),
        Some(libc::ENOENT) | Some(libc::ENOSYS) | Some(libc::EOPNOTSUPP) | Some(libc::ENODEV) => {
            format!(
                "this kernel has no software cpu-clock event to sample ({e}): it needs \
                 CONFIG_PERF_EVENTS"
            )
        }
        _ => format!("sampling could not start: {e}"),
    }
}

#[cfg(test)]
#[path = "why_tests.rs"]
mod tests;
