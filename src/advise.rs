//! `tasklab advise`: a workload described on the command line, plus the costs
//! measured in a results file (or in a fresh quick run), give per concurrency
//! model the share of one CPU spent on overhead and the memory, each estimate
//! naming the measured figure it came from.
//!
//! Two halves, so the arithmetic is testable without measuring:
//! [`costs_from`] picks the figures out of a [`RunResults`]; [`advise`] is a
//! pure function of a [`Workload`] and those [`Costs`].

use crate::cli::AdviseArgs;
use crate::error::UsageError;
use crate::report::table::case;
use crate::results::{ExperimentResult, Metric, RunResults, RunStatus, Unit};
use crate::stats::linear_fit;
use crate::units::{
    fmt_count, fmt_figure, fmt_ns, fmt_share, fmt_short_size, fmt_size, fmt_value, group_digits,
    parse_duration, parse_number, parse_size, snap,
};
use comfy_table::{presets::UTF8_BORDERS_ONLY, Cell, CellAlignment, ContentArrangement, Table};
use serde::Serialize;
use std::process::ExitCode;
use std::time::Instant;

/// Bounds past which a workload figure is refused as absurd.
pub const MAX_RATE: f64 = 1e9;
pub const MAX_LIFETIME_S: f64 = 86_400.0;
pub const MAX_HEAP: u64 = 1 << 50;
pub const MAX_SWITCHES: f64 = 1e9;
pub const MAX_CONCURRENT: f64 = 1e9;
pub const MAX_STACK: u64 = 1 << 30;

/// The experiments advise reads, for messages and the fresh run.
pub const NEEDED: &[&str] = &[
    "spawn.heap",
    "switch.pingpong",
    "switch.userspace",
    "memory.threads",
];

// ---------------------------------------------------------------- workload

/// What the user's program does, validated.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Workload {
    /// Tasks started per second.
    pub rate_per_s: f64,
    /// Each task's lifetime, in seconds.
    pub lifetime_s: f64,
    /// The parent's heap (its memory image), in bytes.
    pub heap_bytes: u64,
    /// Context switches per second across the workload (blocking hand-offs).
    pub switches_per_s: f64,
    /// Tasks alive at once.
    pub concurrent: u64,
    /// False when `concurrent` is rate x lifetime (Little's law).
    pub concurrent_given: bool,
    /// Bytes of stack each task really uses.
    pub stack_bytes: u64,
}

impl Workload {
    /// Parses and checks the command line's figures; the message says what
    /// is wrong and what the bound is.
    pub fn parse(
        rate: &str,
        lifetime: &str,
        heap: &str,
        switches: &str,
        concurrent: Option<&str>,
        stack: &str,
    ) -> Result<Workload, String> {
        let rate_per_s = parse_number("--rate", rate)?;
        if rate_per_s == 0.0 {
            return Err("--rate: 0 tasks per second leaves nothing to advise on; give the rate tasks start at (e.g. 2000 or 1.5k)".into());
        }
        if rate_per_s > MAX_RATE {
            return Err(format!(
                "--rate: {rate} is above {} tasks per second (one per nanosecond), beyond any machine",
                group_digits(MAX_RATE as i64)
            ));
        }
        let lifetime_s = parse_duration("--lifetime", lifetime)?;
        if lifetime_s == 0.0 {
            return Err(
                "--lifetime: a task lives for some time; give it with a unit (e.g. 20ms)".into(),
            );
        }
        if lifetime_s > MAX_LIFETIME_S {
            return Err(format!(
                "--lifetime: {lifetime} is above one day (86400 s); a task that long is a service, not a task"
            ));
        }
        let heap_bytes = parse_size(heap).map_err(|e| format!("--heap: '{heap}': {e}"))?;
        if heap_bytes > MAX_HEAP {
            return Err(format!(
                "--heap: {heap} is above 1 PiB ({} TiB), more memory than any machine holds",
                MAX_HEAP >> 40
            ));
        }
        let switches_per_s = parse_number("--switches", switches)?;
        if switches_per_s > MAX_SWITCHES {
            return Err(format!(
                "--switches: {switches} is above {} switches per second (one per nanosecond); a switch costs far more",
                group_digits(MAX_SWITCHES as i64)
            ));
        }
        let stack_bytes = parse_size(stack).map_err(|e| format!("--stack: '{stack}': {e}"))?;
        if stack_bytes == 0 {
            return Err(
                "--stack: a task uses some stack (or state); give its size (e.g. 16K)".into(),
            );
        }
        if stack_bytes > MAX_STACK {
            return Err(format!(
                "--stack: {stack} is above {} per task",
                fmt_size(MAX_STACK)
            ));
        }
        let little = snap(rate_per_s * lifetime_s);
        let (concurrent, concurrent_given) = match concurrent {
            Some(text) => {
                let n = parse_number("--concurrent", text)?;
                if n < 1.0 {
                    return Err(format!(
                        "--concurrent: {text}: at least one task is alive while tasks run"
                    ));
                }
                if n.fract() != 0.0 {
                    return Err(format!(
                        "--concurrent: {text} is not a whole number of tasks"
                    ));
                }
                if n > MAX_CONCURRENT {
                    return Err(format!(
                        "--concurrent: {text} is above {} tasks alive at once",
                        group_digits(MAX_CONCURRENT as i64)
                    ));
                }
                (n as u64, true)
            }
            None => {
                if little > MAX_CONCURRENT {
                    return Err(format!(
                        "--rate x --lifetime = {} tasks alive at once, above {}: lower the rate or the lifetime",
                        group_digits(little.round() as i64),
                        group_digits(MAX_CONCURRENT as i64)
                    ));
                }
                (little.ceil().max(1.0) as u64, false)
            }
        };
        Ok(Workload {
            rate_per_s,
            lifetime_s,
            heap_bytes,
            switches_per_s,
            concurrent,
            concurrent_given,
            stack_bytes,
        })
    }

    pub fn from_args(a: &AdviseArgs) -> Result<Workload, String> {
        Workload::parse(
            &a.rate,
            &a.lifetime,
            &a.heap,
            &a.switches,
            a.concurrent.as_deref(),
            &a.stack,
        )
    }

    /// Tasks alive at once by Little's law: rate x lifetime, without float
    /// error near a whole number.
    pub fn little(&self) -> f64 {
        snap(self.rate_per_s * self.lifetime_s)
    }

    pub fn describe(&self) -> String {
        format!(
            "{} tasks/s, each alive {} → {} alive at once{}; heap {}; {} switches/s; {} of stack each",
            fmt_count(self.rate_per_s),
            fmt_ns(self.lifetime_s * 1e9),
            group_digits(self.concurrent as i64),
            if self.concurrent_given {
                " (given)"
            } else {
                " (rate x lifetime)"
            },
            fmt_size(self.heap_bytes),
            fmt_count(self.switches_per_s),
            fmt_size(self.stack_bytes)
        )
    }
}

// ------------------------------------------------------------------- costs

/// One measured figure, named so a reader can find it in the results file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Figure {
    pub experiment: String,
    pub metric: String,
    /// The labels that pick the series, `method=fork thp=off`.
    pub labels: String,
    pub value: f64,
    pub unit: Unit,
    /// How the value was obtained when it is not a median taken as is
    /// (interpolated, extrapolated, a stand-in).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub how: Option<String>,
    /// Another figure standing in for one that is not measured (`~`).
    pub stand_in: bool,
    /// The cheapest case measured, so the real cost is higher (`≥`).
    pub floor: bool,
}

impl Figure {
    fn from_metric(experiment: &str, m: &Metric) -> Figure {
        Figure {
            experiment: experiment.into(),
            metric: m.name.clone(),
            labels: case(m),
            value: m.summary.median,
            unit: m.unit,
            how: None,
            stand_in: false,
            floor: false,
        }
    }

    fn with_how(mut self, how: impl Into<String>) -> Figure {
        self.how = Some(how.into());
        self
    }

    /// `≥ `, `~` or nothing, for a table cell.
    pub fn mark(&self) -> &'static str {
        mark(self.stand_in, self.floor)
    }

    /// `spawn.heap lifecycle_ns method=fork thp=off = 400 µs (how)`.
    pub fn describe(&self) -> String {
        let mut s = format!(
            "{} {}{}{} = {}",
            self.experiment,
            self.metric,
            if self.labels.is_empty() { "" } else { " " },
            self.labels,
            fmt_figure(self.value, self.unit)
        );
        if let Some(h) = &self.how {
            s.push_str(&format!(" ({h})"));
        }
        s
    }
}

/// `~` for a stand-in, `≥ ` for a floor.
fn mark(stand_in: bool, floor: bool) -> &'static str {
    if stand_in {
        "~"
    } else if floor {
        "≥ "
    } else {
        ""
    }
}

/// Past this many times the largest measured heap, an extrapolated figure
/// gets a note saying so.
pub const FAR_BEYOND: f64 = 4.0;
/// A curve is extrapolated past its largest heap only when a straight line
/// fits it at least this well (and rises); otherwise it is held flat.
pub const MIN_R2: f64 = 0.9;

/// A figure measured at several parent heap sizes (spawn.heap).
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    pub experiment: String,
    pub metric: String,
    pub labels: String,
    pub unit: Unit,
    /// (heap bytes, value), sorted by heap, one value per heap; never empty.
    pub points: Vec<(u64, f64)>,
    /// Set when the figure was not measured against the heap (a stand-in
    /// from another experiment): says so, and the value is held flat.
    pub stand_in: Option<String>,
}

impl Curve {
    pub fn new(
        experiment: &str,
        metric: &str,
        labels: &str,
        unit: Unit,
        mut points: Vec<(u64, f64)>,
    ) -> Option<Curve> {
        points.retain(|p| p.1.is_finite());
        points.sort_by_key(|p| p.0);
        points.dedup_by_key(|p| p.0);
        (!points.is_empty()).then(|| Curve {
            experiment: experiment.into(),
            metric: metric.into(),
            labels: labels.into(),
            unit,
            points,
            stand_in: None,
        })
    }

    fn show(&self, (heap, v): (u64, f64)) -> String {
        format!("heap {}: {}", fmt_size(heap), fmt_figure(v, self.unit))
    }

    /// The largest measured heap.
    pub fn largest(&self) -> u64 {
        self.points.last().expect("never empty").0
    }

    /// How many times the largest measured heap `heap` is, when that is more
    /// than [`FAR_BEYOND`] (infinite when only heap 0 was measured).
    pub fn far_beyond(&self, heap: u64) -> Option<f64> {
        if self.stand_in.is_some() {
            return None;
        }
        let largest = self.largest();
        if heap <= largest {
            return None;
        }
        let r = if largest == 0 {
            f64::INFINITY
        } else {
            heap as f64 / largest as f64
        };
        (r > FAR_BEYOND).then_some(r)
    }

    /// The value at `heap`: measured there, else linear in heap bytes between
    /// the measured neighbours; below the smallest measured heap, clamped to
    /// it; past the largest, extrapolated from the largest with the
    /// least-squares slope over every measured heap when that line fits well
    /// (r² ≥ [`MIN_R2`]) and rises, else held at the largest heap's figure:
    /// noise is not growth.
    pub fn at(&self, heap: u64) -> Figure {
        let fig = |value: f64, how: String| Figure {
            experiment: self.experiment.clone(),
            metric: self.metric.clone(),
            labels: self.labels.clone(),
            value,
            unit: self.unit,
            how: Some(how),
            stand_in: self.stand_in.is_some(),
            floor: false,
        };
        let pts = &self.points;
        if let Some(why) = &self.stand_in {
            return fig(pts[0].1, why.clone());
        }
        if let Some(&(b, v)) = pts.iter().find(|p| p.0 == heap) {
            return fig(v, format!("measured at heap {}", fmt_size(b)));
        }
        let first = pts[0];
        if heap < first.0 {
            return fig(
                first.1,
                format!(
                    "clamped to the smallest measured heap, {}",
                    self.show(first)
                ),
            );
        }
        if let Some(w) = pts.windows(2).find(|w| w[0].0 < heap && heap < w[1].0) {
            let ((a, va), (b, vb)) = (w[0], w[1]);
            let v = va + (vb - va) * (heap - a) as f64 / (b - a) as f64;
            return fig(
                v,
                format!(
                    "interpolated in heap bytes between {} and {}",
                    self.show(w[0]),
                    self.show(w[1])
                ),
            );
        }
        let last = *pts.last().expect("never empty");
        let far = match self.far_beyond(heap) {
            Some(r) if r.is_finite() => {
                format!("; an extrapolation to {r:.0}x the largest measured heap")
            }
            Some(_) => "; an extrapolation from heap 0 alone".into(),
            None => String::new(),
        };
        let xs: Vec<f64> = pts.iter().map(|p| p.0 as f64).collect();
        let ys: Vec<f64> = pts.iter().map(|p| p.1).collect();
        let gib = (1u64 << 30) as f64;
        let rises =
            |n: usize| linear_fit(&xs[..n], &ys[..n]).filter(|f| f.slope > 0.0 && f.r2 >= MIN_R2);
        let n = pts.len();
        let Some(f) = linear_fit(&xs, &ys) else {
            return fig(
                last.1,
                format!(
                    "past the only measured heap, {}; held there: no growth with the heap was measured",
                    self.show(last)
                ),
            );
        };
        let fit = format!(
            "least-squares slope over {n} heaps {} per GiB, r² = {:.2}",
            fmt_value(f.slope * gib, self.unit),
            f.r2
        );
        if rises(n).is_none() {
            return fig(
                last.1,
                format!(
                    "past the largest measured heap, {}; held there: no growth with the heap was measured ({fit}; extrapolated only when rising with r² ≥ {MIN_R2})",
                    self.show(last)
                ),
            );
        }
        // The heaps are spread geometrically, so the largest one alone can
        // make a good-looking line out of noise: the rise must show without
        // it too.
        if n >= 3 && rises(n - 1).is_none() {
            return fig(
                last.1,
                format!(
                    "past the largest measured heap, {}; held there: the {fit} rests on that heap alone, the smaller heaps show no rise (noise, not growth)",
                    self.show(last)
                ),
            );
        }
        fig(
            last.1 + f.slope * (heap - last.0) as f64,
            format!(
                "extrapolated past the largest measured heap, {}, with the {fit}{far}",
                self.show(last)
            ),
        )
    }
}

/// A figure advise read from the results file and could not use.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Rejected {
    /// Which of the [`Costs`] it was for (`fork`, `switch_threads`, ...).
    pub figure: &'static str,
    /// The figure and what is wrong with it.
    pub reason: String,
}

/// The measured costs advise needs; `None` where the results lack one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Costs {
    /// Where they come from, for "not measured in ..." messages.
    pub source: String,
    pub cpus: usize,
    /// Lifecycle (create, exit, reap or join) vs the parent's heap.
    pub fork: Option<Curve>,
    pub thread: Option<Curve>,
    pub spawn: Option<Curve>,
    /// fork + execve of the tiny static program posix_spawn starts: the
    /// like-for-like comparison for posix_spawn.
    pub fork_exec: Option<Curve>,
    /// vfork + execve where measured, else vfork alone (its labels say which).
    pub vfork: Option<Curve>,
    /// The parent's page tables (VmPTE, KiB) vs its heap: what a forked
    /// child copies.
    pub process_pte: Option<Curve>,
    /// One blocking hand-off's CPU cost (switch.pingpong): the same_cpu
    /// placement, else a cross-CPU one (an upper bound).
    pub switch_threads: Option<Figure>,
    pub switch_processes: Option<Figure>,
    /// The cross-CPU figures (unpinned, else two_cpus): a hand-off that
    /// wakes another CPU, shown as latency beside the CPU cost.
    pub switch_threads_cross_cpu: Option<Figure>,
    pub switch_processes_cross_cpu: Option<Figure>,
    /// One user-space switch (switch.userspace).
    pub switch_async: Option<Figure>,
    /// Per blocked thread (memory.threads, at the largest thread count):
    /// resident KiB, kernel stack KiB, page-table bytes.
    pub thread_rss: Option<Figure>,
    pub kernel_stack: Option<Figure>,
    pub thread_pte: Option<Figure>,
    /// Figures in the file that were not usable, and why.
    pub rejected: Vec<Rejected>,
}

impl Costs {
    /// True when not one figure advise uses is there.
    pub fn is_empty(&self) -> bool {
        self.fork.is_none()
            && self.thread.is_none()
            && self.spawn.is_none()
            && self.fork_exec.is_none()
            && self.vfork.is_none()
            && self.process_pte.is_none()
            && self.switch_threads.is_none()
            && self.switch_processes.is_none()
            && self.switch_async.is_none()
            && self.thread_rss.is_none()
            && self.kernel_stack.is_none()
            && self.thread_pte.is_none()
    }

    /// Whether the figure a [`Rejected::figure`] names is there after all
    /// (another reading of it was usable).
    fn has(&self, figure: &str) -> bool {
        match figure {
            "fork" => self.fork.is_some(),
            "thread" => self.thread.is_some(),
            "spawn" => self.spawn.is_some(),
            "fork_exec" => self.fork_exec.is_some(),
            "vfork" => self.vfork.is_some(),
            "process_pte" => self.process_pte.is_some(),
            "switch_threads" => self.switch_threads.is_some(),
            "switch_processes" => self.switch_processes.is_some(),
            "switch_async" => self.switch_async.is_some(),
            "thread_rss" => self.thread_rss.is_some(),
            "kernel_stack" => self.kernel_stack.is_some(),
            "thread_pte" => self.thread_pte.is_some(),
            _ => false,
        }
    }
}

/// What advise accepts for a figure: its unit and a plausible bound.
#[derive(Clone, Copy, Debug)]
struct Expect {
    unit: Unit,
    max: f64,
    max_text: &'static str,
}

const NS: Expect = Expect {
    unit: Unit::Ns,
    max: 3.6e12,
    max_text: "an hour",
};
const KIB: Expect = Expect {
    unit: Unit::Kib,
    max: (1u64 << 30) as f64,
    max_text: "1 TiB",
};
const BYTES: Expect = Expect {
    unit: Unit::Bytes,
    max: (1u64 << 40) as f64,
    max_text: "1 TiB",
};

/// Why a value read from a results file cannot be used, or None when it can:
/// another unit than expected, not finite, negative, a time of zero, or past
/// a plausible bound.
fn unusable(value: f64, unit: Unit, want: Expect) -> Option<String> {
    let raw = |v: f64| {
        if v.abs() < 1e15 {
            format!("{v}")
        } else {
            format!("{v:e}")
        }
    };
    if unit != want.unit {
        Some(format!(
            "its unit is '{}' where '{}' is expected",
            unit.name(),
            want.unit.name()
        ))
    } else if !value.is_finite() {
        Some(format!("its median, {value}, is not a finite number"))
    } else if value < 0.0 {
        Some(format!(
            "its median, {} {}, is negative",
            raw(value),
            unit.name()
        ))
    } else if value == 0.0 && unit == Unit::Ns {
        Some("its median is 0 ns, not a measured time".into())
    } else if value > want.max {
        Some(format!(
            "its median, {} {}, is above {}: not a plausible figure",
            raw(value),
            unit.name(),
            want.max_text
        ))
    } else {
        None
    }
}

/// Picks the figures out of a results file, checking each; what fails a
/// check is left out, with the reason in [`Costs::rejected`].
struct Picker<'a> {
    r: &'a RunResults,
    source: &'a str,
    rejected: Vec<Rejected>,
}

impl<'a> Picker<'a> {
    fn exp(&self, name: &str) -> Option<&'a ExperimentResult> {
        self.r.experiments.iter().find(|e| e.name == name)
    }

    /// The metric's median, or None (and the reason kept) when unusable.
    fn check(
        &mut self,
        e: &ExperimentResult,
        m: &Metric,
        want: Expect,
        figure: &'static str,
    ) -> Option<Figure> {
        match unusable(m.summary.median, m.unit, want) {
            None => Some(Figure::from_metric(&e.name, m)),
            Some(why) => {
                self.rejected.push(Rejected {
                    figure,
                    reason: format!("{} {} {}: {why}", e.name, m.name, case(m)),
                });
                None
            }
        }
    }

    /// `metric` for `method` at every heap of spawn.heap (4 KiB pages).
    fn heap_curve(
        &mut self,
        e: &ExperimentResult,
        method: &str,
        figure: &'static str,
    ) -> Option<Curve> {
        let mut pts = Vec::new();
        for m in e
            .metrics_named("lifecycle_ns")
            .filter(|m| m.label("method") == Some(method) && thp_off(m.labels.get("thp")))
        {
            let Some(heap) = m.label("heap_bytes").and_then(|h| h.parse().ok()) else {
                continue;
            };
            if let Some(f) = self.check(e, m, NS, figure) {
                pts.push((heap, f.value));
            }
        }
        Curve::new(
            &e.name,
            "lifecycle_ns",
            &format!("method={method} thp=off"),
            Unit::Ns,
            pts,
        )
    }

    /// A lifecycle curve from spawn.heap, else spawn.methods' single figure
    /// standing in (held flat, and saying so).
    fn creation(&mut self, method: &str, figure: &'static str) -> Option<Curve> {
        let heap = self.exp("spawn.heap");
        if let Some(e) = heap {
            if let Some(c) = self.heap_curve(e, method, figure) {
                return Some(c);
            }
        }
        let absent = match heap {
            Some(_) => format!(
                "spawn.heap has no usable {method} figure in {}",
                self.source
            ),
            None => format!("spawn.heap is not in {}", self.source),
        };
        let e = self.exp("spawn.methods")?;
        let m = e.find("lifecycle_ns", &[("method", method)])?;
        let f = self.check(e, m, NS, figure)?;
        let mut c = Curve::new(&e.name, &m.name, &f.labels, m.unit, vec![(0, f.value)])?;
        c.stand_in = Some(format!(
            "{absent}: measured with the worker's own small memory image, not at your heap (run `tasklab run spawn.heap`)"
        ));
        Some(c)
    }

    /// VmPTE against the heap: the median of the readings at each heap.
    fn process_pte(&mut self) -> Option<Curve> {
        let e = self.exp("spawn.heap")?;
        let mut by_heap: std::collections::BTreeMap<u64, Vec<f64>> = Default::default();
        for r in e
            .readings
            .iter()
            .filter(|r| r.name == "vm_pte_kib" && thp_off(r.labels.get("thp")))
        {
            let Some(heap) = r.labels.get("heap_bytes").and_then(|h| h.parse().ok()) else {
                continue;
            };
            match unusable(r.value, r.unit, KIB) {
                None => by_heap.entry(heap).or_default().push(r.value),
                Some(why) => self.rejected.push(Rejected {
                    figure: "process_pte",
                    reason: format!(
                        "{} {} reading at heap {}: {why}",
                        e.name,
                        r.name,
                        fmt_size(heap)
                    ),
                }),
            }
        }
        let pts = by_heap
            .into_iter()
            .map(|(h, mut v)| (h, median(&mut v)))
            .collect();
        Curve::new(&e.name, "vm_pte_kib", "thp=off", Unit::Kib, pts)
    }

    /// A blocking hand-off's CPU cost: the same_cpu placement, where both
    /// tasks share one CPU and the time is the kernel's switch path, else a
    /// cross-CPU placement (an upper bound: it includes wake-up latency);
    /// with the cross-CPU figure beside it, as latency.
    fn switch(
        &mut self,
        methods: &[&str],
        figure: &'static str,
    ) -> (Option<Figure>, Option<Figure>) {
        let Some(e) = self.exp("switch.pingpong") else {
            return (None, None);
        };
        let placements = ["same_cpu", "unpinned", "two_cpus"];
        for place in placements {
            for method in methods {
                let Some(m) = e.find("switch_ns", &[("method", method), ("placement", place)])
                else {
                    continue;
                };
                let Some(f) = self.check(e, m, NS, figure) else {
                    continue;
                };
                let f = f.with_how(if place == "same_cpu" {
                    "same_cpu: both tasks on one CPU, so the time is CPU work, the kernel's switch path".to_string()
                } else {
                    format!(
                        "no usable same_cpu figure in {}: {place}, which includes waking the other CPU, so an upper bound",
                        self.source
                    )
                });
                let cross = ["unpinned", "two_cpus"]
                    .into_iter()
                    .filter(|p| *p != place)
                    .find_map(|p| {
                        let m = e.find("switch_ns", &[("method", method), ("placement", p)])?;
                        self.check(e, m, NS, figure)
                    })
                    .filter(|_| place == "same_cpu");
                return (Some(f), cross);
            }
        }
        (None, None)
    }

    /// A per-thread figure of memory.threads for the default stack (else the
    /// small one), at the largest thread count measured: the steadiest.
    fn per_thread(&mut self, metric: &str, want: Expect, figure: &'static str) -> Option<Figure> {
        let e = self.exp("memory.threads")?;
        // The default stack first: the `touch` variant's resident figure
        // includes the 400 KiB it touches on purpose.
        for v in ["default", "small"] {
            let mut ms: Vec<&Metric> = e
                .metrics_named(metric)
                .filter(|m| m.label("variant") == Some(v))
                .collect();
            ms.sort_by_key(|m| std::cmp::Reverse(m.label_num("threads")));
            for m in ms {
                if let Some(f) = self.check(e, m, want, figure) {
                    return Some(f);
                }
            }
        }
        None
    }
}

/// The median of `v` (not empty).
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Picks the figures advise needs out of a results file, checking each.
pub fn costs_from(r: &RunResults, source: &str) -> Costs {
    let cpus = if r.env.cpus_allowed.is_empty() {
        r.env.cpus_online
    } else {
        r.env.cpus_allowed.len()
    }
    .max(1);
    let mut p = Picker {
        r,
        source,
        rejected: Vec::new(),
    };
    let fork = p.creation("fork", "fork");
    let thread = p.creation("pthread_create", "thread");
    let spawn = p.creation("posix_spawn", "spawn");
    let heap = p.exp("spawn.heap");
    let fork_exec = heap.and_then(|e| p.heap_curve(e, "fork_exec_static", "fork_exec"));
    let vfork = heap.and_then(|e| {
        p.heap_curve(e, "vfork_exec_static", "vfork")
            .or_else(|| p.heap_curve(e, "vfork", "vfork"))
    });
    let process_pte = p.process_pte();
    let (switch_threads, switch_threads_cross_cpu) =
        p.switch(&["futex_threads", "pipe_threads"], "switch_threads");
    let (switch_processes, switch_processes_cross_cpu) =
        p.switch(&["futex_processes", "pipe_processes"], "switch_processes");
    let switch_async = p.exp("switch.userspace").and_then(|e| {
        ["async", "coroutine"].iter().find_map(|v| {
            let m = e.find("switch_ns", &[("variant", v)])?;
            p.check(e, m, NS, "switch_async")
        })
    });
    let thread_rss = p.per_thread("rss_per_thread_kib", KIB, "thread_rss");
    let kernel_stack = p.per_thread("kernel_stack_per_thread_kib", KIB, "kernel_stack");
    let thread_pte = p.per_thread("page_tables_per_thread_bytes", BYTES, "thread_pte");
    Costs {
        source: source.into(),
        cpus,
        fork,
        thread,
        spawn,
        fork_exec,
        vfork,
        process_pte,
        switch_threads,
        switch_processes,
        switch_threads_cross_cpu,
        switch_processes_cross_cpu,
        switch_async,
        thread_rss,
        kernel_stack,
        thread_pte,
        rejected: p.rejected,
    }
}

/// 4 KiB pages: the `thp=off` series, or a file from before THP points.
fn thp_off(label: Option<&String>) -> bool {
    label.is_none_or(|t| t == "off")
}

// ------------------------------------------------------------------ advice

/// One concurrency model's estimate.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// `process`, `thread`, `pool`, `spawn` or `async`.
    pub model: &'static str,
    pub name: &'static str,
    /// What "creating" a task means in this model.
    pub create_what: &'static str,
    pub create_ns: Option<f64>,
    pub create_from: Option<Figure>,
    pub switch_ns: Option<f64>,
    pub switch_from: Option<Figure>,
    /// A hand-off that wakes another CPU: latency, shown, not costed.
    pub switch_cross_cpu: Option<Figure>,
    /// (rate x create + switches x switch) / 1e9: 0.1 is 10% of one CPU.
    pub cpu_share: Option<f64>,
    /// The same as a percentage of one CPU: 10.0 is 10%.
    pub cpu_percent: Option<f64>,
    /// True when the CPU figure rests on a stand-in for an unmeasured one.
    pub cpu_stand_in: bool,
    /// True when the CPU figure rests on a floor (the real one is higher).
    pub cpu_lower_bound: bool,
    /// False when the overhead alone needs more CPUs than the machine has.
    pub keeps_up: Option<bool>,
    pub memory_bytes: Option<f64>,
    pub memory_per_task_bytes: Option<f64>,
    /// The formula with its numbers.
    pub memory_basis: String,
    pub memory_from: Vec<Figure>,
    /// True when part of the memory is not measured (the figure is a floor).
    pub memory_lower_bound: bool,
    /// True when the memory is no measured figure at all, only the workload's
    /// own (tasks x --stack).
    pub memory_stand_in: bool,
    /// "X not measured in FILE (run `tasklab run E`)".
    pub missing: Vec<String>,
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Advice {
    pub results: String,
    pub cpus: usize,
    pub workload: Workload,
    pub notes: Vec<String>,
    pub models: Vec<Row>,
    pub recommendation: String,
}

/// Per-thread memory: (bytes, formula, figures used).
fn thread_memory(w: &Workload, c: &Costs) -> Option<(f64, String, Vec<Figure>)> {
    let (rss, ks, pt) = (
        c.thread_rss.as_ref()?,
        c.kernel_stack.as_ref()?,
        c.thread_pte.as_ref()?,
    );
    let stack = w.stack_bytes as f64;
    let resident = rss.value * 1024.0;
    let kernel = ks.value * 1024.0;
    let bytes = stack.max(resident) + kernel + pt.value;
    let basis = format!(
        "max(your stack {}, a blocked thread's resident {}) + kernel stack {} + page tables {}",
        fmt_short_size(stack),
        fmt_short_size(resident),
        fmt_short_size(kernel),
        fmt_short_size(pt.value)
    );
    Some((bytes, basis, vec![rss.clone(), ks.clone(), pt.clone()]))
}

struct Model {
    model: &'static str,
    name: &'static str,
    create_what: &'static str,
}

const MODELS: [Model; 5] = [
    Model {
        model: "process",
        name: "process per task (fork)",
        create_what: "fork + exit + reap",
    },
    Model {
        model: "thread",
        name: "thread per task",
        create_what: "pthread_create + exit + join",
    },
    Model {
        model: "pool",
        name: "thread pool",
        create_what: "a hand-off to a pool thread",
    },
    Model {
        model: "spawn",
        name: "posix_spawn per program",
        create_what: "posix_spawn of a tiny program + reap",
    },
    Model {
        model: "async",
        name: "async tasks",
        create_what: "spawning a task",
    },
];

/// The note for a figure taken far past the largest measured heap.
fn far_note(what: &str, k: &Curve, heap: u64) -> Option<String> {
    let r = k.far_beyond(heap)?;
    let times = if r.is_finite() {
        format!(
            "{r:.0}x the largest measured heap ({})",
            fmt_size(k.largest())
        )
    } else {
        "past heap 0, the only one measured".into()
    };
    Some(format!(
        "{what} at a {} heap is an extrapolation, {times}: measure it with `tasklab run spawn.heap -p spawn.heap.heap_sizes=0,{}`",
        fmt_size(heap),
        heap
    ))
}

/// The arithmetic: every model's CPU share and memory for `w` from `c`.
pub fn advise(w: &Workload, c: &Costs) -> Advice {
    let n = w.concurrent as f64;
    let tasks = group_digits(w.concurrent as i64);
    // "X not measured in FILE (run ...)", or why the file's figure was not
    // usable.
    let missing = |figures: &[&str], what: &str, exp: &str| {
        let mut why: Vec<String> = c
            .rejected
            .iter()
            .filter(|r| figures.contains(&r.figure))
            .map(|r| r.reason.clone())
            .collect();
        if why.len() > 2 {
            let more = why.len() - 2;
            why.truncate(2);
            why.push(format!("and {more} more alike"));
        }
        if why.is_empty() {
            format!(
                "{what} not measured in {} (run `tasklab run {exp}`)",
                c.source
            )
        } else {
            format!(
                "{what} not usable in {}, so treated as not measured: {} (run `tasklab run {exp}`)",
                c.source,
                why.join("; ")
            )
        }
    };
    const THREAD_MEM: &[&str] = &["thread_rss", "kernel_stack", "thread_pte"];
    let thread_mem = thread_memory(w, c);
    let mut rows = Vec::new();

    for m in &MODELS {
        let mut miss = Vec::new();
        let mut notes = Vec::new();
        // Creation per task.
        let curve = match m.model {
            "process" => c.fork.as_ref(),
            "thread" => c.thread.as_ref(),
            "spawn" => c.spawn.as_ref(),
            _ => None,
        };
        let create: Option<Figure> = match m.model {
            "process" | "thread" | "spawn" => curve.map(|k| k.at(w.heap_bytes)),
            "pool" => c.switch_threads.clone().map(|f| {
                let how = format!(
                    "one wake of an idle pool thread per task: the CPU work of one hand-off (a wake on another CPU takes longer, as latency, not CPU){}",
                    f.how.as_deref().map(|h| format!("; {h}")).unwrap_or_default()
                );
                f.with_how(how)
            }),
            _ => c.switch_async.clone().map(|mut f| {
                f.stand_in = true;
                f.with_how("spawning a task is not measured: one user-space switch stands in")
            }),
        };
        if let Some(note) = curve.and_then(|k| far_note(m.create_what, k, w.heap_bytes)) {
            notes.push(note);
        }
        if create.is_none() {
            let (key, what, exp) = match m.model {
                "process" => ("fork", "fork creation", "spawn.heap"),
                "thread" => ("thread", "pthread_create creation", "spawn.heap"),
                "spawn" => ("spawn", "posix_spawn creation", "spawn.heap"),
                "pool" => (
                    "switch_threads",
                    "the hand-off (futex_threads switch)",
                    "switch.pingpong",
                ),
                _ => ("switch_async", "the user-space switch", "switch.userspace"),
            };
            miss.push(missing(&[key], what, exp));
        }
        // Switch.
        let (switch, switch_cross_cpu) = match m.model {
            "process" | "spawn" => (
                c.switch_processes.clone(),
                c.switch_processes_cross_cpu.clone(),
            ),
            "thread" | "pool" => (c.switch_threads.clone(), c.switch_threads_cross_cpu.clone()),
            _ => (c.switch_async.clone(), None),
        };
        if switch.is_none() && w.switches_per_s > 0.0 {
            let (key, what, exp) = match m.model {
                "process" | "spawn" => (
                    "switch_processes",
                    "the switch between processes",
                    "switch.pingpong",
                ),
                "thread" | "pool" => (
                    "switch_threads",
                    "the switch between threads",
                    "switch.pingpong",
                ),
                _ => ("switch_async", "the user-space switch", "switch.userspace"),
            };
            if !miss.iter().any(|x| x.contains(what)) {
                miss.push(missing(&[key], what, exp));
            }
        }
        let cpu_share = match (&create, &switch) {
            (Some(cr), Some(sw)) => {
                Some((w.rate_per_s * cr.value + w.switches_per_s * sw.value) / 1e9)
            }
            (Some(cr), None) if w.switches_per_s == 0.0 => Some(w.rate_per_s * cr.value / 1e9),
            _ => None,
        };
        let switched =
            |f: fn(&Figure) -> bool| w.switches_per_s > 0.0 && switch.as_ref().is_some_and(f);
        let cpu_stand_in = create.as_ref().is_some_and(|f| f.stand_in) || switched(|f| f.stand_in);
        let cpu_lower_bound = create.as_ref().is_some_and(|f| f.floor) || switched(|f| f.floor);
        let keeps_up = cpu_share.map(|s| s <= c.cpus as f64);
        if keeps_up == Some(false) {
            notes.push(format!(
                "cannot keep up: the overhead alone needs {:.1} CPUs and this machine has {}",
                cpu_share.unwrap_or(0.0),
                c.cpus
            ));
        }
        // Memory.
        let mut memory_from = Vec::new();
        let mut lower = false;
        let mut stand_in = false;
        let (memory_bytes, memory_basis) = match m.model {
            "thread" => match &thread_mem {
                Some((per, basis, figs)) => {
                    memory_from.extend(figs.iter().cloned());
                    (Some(n * per), format!("{tasks} tasks x ({basis})"))
                }
                None => {
                    miss.push(missing(THREAD_MEM, "thread memory", "memory.threads"));
                    (None, String::new())
                }
            },
            "process" => {
                // A forked child has no thread stack of its own to map: it
                // runs on its copy of the parent's, its own kernel stack, and
                // its own copy of the parent's page tables.
                let pte = c.process_pte.as_ref().map(|k| k.at(w.heap_bytes));
                if let Some(note) = c
                    .process_pte
                    .as_ref()
                    .and_then(|k| far_note("the page tables", k, w.heap_bytes))
                {
                    notes.push(note);
                }
                match (&c.kernel_stack, pte) {
                    (Some(ks), Some(pte)) => {
                        lower = true;
                        let stack = w.stack_bytes as f64;
                        let kernel = ks.value * 1024.0;
                        let own = pte.value * 1024.0;
                        memory_from.push(ks.clone());
                        memory_from.push(pte);
                        (
                            Some(n * (stack + kernel + own)),
                            format!(
                                "{tasks} tasks x (your stack {}, copied as the child writes it + kernel stack {} + its own copy of the parent's page tables {}); a floor: the other pages parent or child write after the fork are copied too (copy-on-write), not counted",
                                fmt_short_size(stack),
                                fmt_short_size(kernel),
                                fmt_short_size(own)
                            ),
                        )
                    }
                    (k, p) => {
                        if k.is_none() {
                            miss.push(missing(
                                &["kernel_stack"],
                                "the kernel stack per task",
                                "memory.threads",
                            ));
                        }
                        if p.is_none() {
                            miss.push(missing(
                                &["process_pte"],
                                "page tables at your heap (vm_pte_kib)",
                                "spawn.heap",
                            ));
                        }
                        (None, String::new())
                    }
                }
            }
            "pool" => match &thread_mem {
                Some((per, basis, figs)) => {
                    memory_from.extend(figs.iter().cloned());
                    let state = n * w.stack_bytes as f64;
                    (
                        Some(c.cpus as f64 * per + state),
                        format!(
                            "{} pool threads x ({basis}) + {tasks} tasks x {} of state",
                            c.cpus,
                            fmt_size(w.stack_bytes)
                        ),
                    )
                }
                None => {
                    miss.push(missing(THREAD_MEM, "thread memory", "memory.threads"));
                    (None, String::new())
                }
            },
            "spawn" => match &c.kernel_stack {
                Some(ks) => {
                    lower = true;
                    memory_from.push(ks.clone());
                    (
                        Some(n * ks.value * 1024.0),
                        format!(
                            "{tasks} tasks x kernel stack {} + the program's own image (code, data, stack, page tables): not measured, so this is a floor",
                            fmt_short_size(ks.value * 1024.0)
                        ),
                    )
                }
                None => {
                    miss.push(missing(
                        &["kernel_stack"],
                        "the kernel stack per task",
                        "memory.threads",
                    ));
                    (None, String::new())
                }
            },
            _ => {
                stand_in = true;
                (
                    Some(n * w.stack_bytes as f64),
                    format!(
                        "{tasks} tasks x {} of state: your --stack, by construction, not a measured figure; the runtime's own threads and allocator not counted",
                        fmt_size(w.stack_bytes)
                    ),
                )
            }
        };
        if m.model == "pool" && w.concurrent > c.cpus as u64 {
            notes.push(format!(
                "{} pool threads run {} tasks at a time; the other {} wait as state, so a task must not block its pool thread for its whole lifetime",
                c.cpus,
                c.cpus,
                group_digits(w.concurrent as i64 - c.cpus as i64)
            ));
        }
        rows.push(Row {
            model: m.model,
            name: m.name,
            create_what: m.create_what,
            create_ns: create.as_ref().map(|f| f.value),
            create_from: create,
            switch_ns: switch.as_ref().map(|f| f.value),
            switch_from: switch,
            switch_cross_cpu,
            cpu_share,
            cpu_percent: cpu_share.map(|x| x * 100.0),
            cpu_stand_in,
            cpu_lower_bound,
            keeps_up,
            memory_per_task_bytes: memory_bytes.map(|b| b / n),
            memory_bytes,
            memory_basis,
            memory_from,
            memory_lower_bound: lower,
            memory_stand_in: stand_in,
            missing: miss,
            notes,
        });
    }

    let mut notes = Vec::new();
    let little = w.little();
    if w.concurrent_given && (w.concurrent as f64) < little * (1.0 - 1e-9) {
        notes.push(format!(
            "--concurrent {tasks} is below rate x lifetime = {} (Little's law): that many tasks are alive on average at this rate, so tasks would have to queue or live shorter; the memory uses {tasks}",
            fmt_count(little),
        ));
    }
    for r in c.rejected.iter().filter(|r| c.has(r.figure)) {
        notes.push(format!("ignored in {}: {}", c.source, r.reason));
    }
    notes.push(
        "CPU overhead counts creating and switching tasks only, not their own work; a kernel switch is costed at its same-CPU figure, the CPU time of the kernel's switch path; a hand-off that wakes a task on another CPU takes longer (the cross-CPU figure in the basis), but the extra is wake-up latency, mostly idle time: it adds to response time, not to CPU load".into(),
    );
    let recommendation = recommend(w, c, &rows);
    Advice {
        results: c.source.clone(),
        cpus: c.cpus,
        workload: w.clone(),
        notes,
        models: rows,
        recommendation,
    }
}

/// A few sentences computed from the rows.
fn recommend(w: &Workload, c: &Costs, rows: &[Row]) -> String {
    let mut s = Vec::new();
    let row = |m: &str| rows.iter().find(|r| r.model == m);
    // posix_spawn starts programs: a different job, compared apart.
    let general = |r: &&Row| r.model != "spawn";
    let by = |a: f64, b: f64| a.total_cmp(&b);
    let cpu = |r: &Row, share: f64| {
        format!(
            "{}{}",
            mark(r.cpu_stand_in, r.cpu_lower_bound),
            fmt_share(share)
        )
    };
    // Why a CPU figure is marked, in words.
    let cpu_why = |r: &Row| -> String {
        let used = |f: &Option<Figure>| f.as_ref().filter(|f| f.stand_in || f.floor).cloned();
        match used(&r.create_from).or_else(|| used(&r.switch_from)) {
            Some(f) if f.stand_in => format!(
                " (~: {})",
                f.how.unwrap_or_else(|| "a stand-in figure".into())
            ),
            Some(_) => " (≥: part of it not measured, a floor)".into(),
            None => String::new(),
        }
    };
    let cheapest_cpu = rows
        .iter()
        .filter(general)
        .filter_map(|r| Some((r, r.cpu_share?)))
        .min_by(|a, b| by(a.1, b.1));
    if let Some((r, share)) = cheapest_cpu {
        let mut t = format!(
            "Least CPU: {}, at {} of one CPU{}",
            r.name,
            cpu(r, share),
            cpu_why(r)
        );
        if r.model == "async" {
            if let Some((k, ks)) = rows
                .iter()
                .filter(|r| matches!(r.model, "process" | "thread" | "pool"))
                .filter_map(|r| Some((r, r.cpu_share?)))
                .min_by(|a, b| by(a.1, b.1))
            {
                t.push_str(&format!(
                    "; if tasks must block in the kernel, {}, at {}",
                    k.name,
                    cpu(k, ks)
                ));
            }
        }
        s.push(t);
    }
    let mem = |r: &Row, b: f64| {
        format!(
            "{}{}",
            mark(r.memory_stand_in, r.memory_lower_bound),
            fmt_short_size(b)
        )
    };
    let cheapest_mem = rows
        .iter()
        .filter(general)
        .filter_map(|r| Some((r, r.memory_bytes?)))
        .min_by(|a, b| by(a.1, b.1));
    if let Some((r, b)) = cheapest_mem {
        let mut t = format!("least memory: {}, {}", r.name, mem(r, b));
        if r.memory_stand_in || r.memory_lower_bound {
            t.push_str(if r.memory_stand_in {
                " (~: tasks x your --stack, not measured)"
            } else {
                " (≥: a floor, part not measured)"
            });
            if let Some((k, kb)) = rows
                .iter()
                .filter(general)
                .filter(|r| !r.memory_stand_in && !r.memory_lower_bound)
                .filter_map(|r| Some((r, r.memory_bytes?)))
                .min_by(|a, b| by(a.1, b.1))
            {
                t.push_str(&format!(
                    ", of fully measured figures {}, {}",
                    k.name,
                    fmt_short_size(kb)
                ));
            }
        }
        s.push(t);
    }
    if let (Some(p), Some(t)) = (row("process"), row("thread")) {
        if let (Some(pc), Some(tc)) = (p.create_ns, t.create_ns) {
            if tc > 0.0 {
                let r = pc / tc;
                s.push(format!(
                    "at a {} heap a fork costs {}x a thread's creation ({} vs {})",
                    fmt_size(w.heap_bytes),
                    if r >= 100.0 {
                        format!("{r:.0}")
                    } else {
                        format!("{r:.1}")
                    },
                    fmt_ns(pc),
                    fmt_ns(tc)
                ));
            }
        }
    }
    let stuck: Vec<&str> = rows
        .iter()
        .filter(|r| r.keeps_up == Some(false))
        .map(|r| r.name)
        .collect();
    if !stuck.is_empty() {
        s.push(format!(
            "cannot keep up on {} CPUs: {}",
            c.cpus,
            stuck.join(", ")
        ));
    }
    if let Some(sc) = row("spawn").and_then(|r| r.create_ns) {
        // Like for like: fork + exec of the same tiny static program.
        let mut t = format!(
            "to start other programs, posix_spawn costs {} per start",
            fmt_ns(sc)
        );
        match c.fork_exec.as_ref().map(|k| k.at(w.heap_bytes)) {
            Some(fe) => t.push_str(&format!(
                " against {} for fork+exec of the same program (spawn.heap fork_exec_static)",
                fmt_ns(fe.value)
            )),
            None => t.push_str(&format!(
                " (fork+exec of the same program not measured in {})",
                c.source
            )),
        }
        if let Some(k) = &c.vfork {
            let v = k.at(w.heap_bytes);
            if k.labels.contains("vfork_exec_static") {
                t.push_str(&format!(" and {} for vfork+exec", fmt_ns(v.value)));
            } else {
                t.push_str(&format!(
                    "; vfork, which posix_spawn builds on, costs {} without the exec",
                    fmt_ns(v.value)
                ));
            }
        }
        t.push_str(&format!(" at a {} heap", fmt_size(w.heap_bytes)));
        s.push(t);
    }
    if s.is_empty() {
        return "Not enough measured figures to compare the models.".into();
    }
    let mut out = s.join("; ");
    out.push('.');
    out
}

// ------------------------------------------------------------------ output

/// The human output: table, basis per model, notes, recommendation.
pub fn render(a: &Advice, header: &str) -> String {
    let mut s = format!("{header}\nworkload: {}\n", a.workload.describe());
    let mut t = Table::new();
    t.load_preset(UTF8_BORDERS_ONLY)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(vec![
            "model",
            "create / task",
            "switch",
            "CPU overhead",
            "memory",
            "per task",
        ]);
    let na = "not measured";
    for r in &a.models {
        let m = mark(r.cpu_stand_in, r.cpu_lower_bound);
        let cpu = match (r.cpu_share, r.keeps_up) {
            (Some(sh), Some(false)) => format!("{m}{} (cannot keep up)", fmt_share(sh)),
            (Some(sh), _) => format!("{m}{}", fmt_share(sh)),
            _ => na.into(),
        };
        let mem = mark(r.memory_stand_in, r.memory_lower_bound);
        let fig = |f: &Option<Figure>| {
            f.as_ref()
                .map_or(na.into(), |f| format!("{}{}", f.mark(), fmt_ns(f.value)))
        };
        t.add_row(vec![
            Cell::new(r.name),
            Cell::new(fig(&r.create_from)).set_alignment(CellAlignment::Right),
            Cell::new(fig(&r.switch_from)).set_alignment(CellAlignment::Right),
            Cell::new(cpu).set_alignment(CellAlignment::Right),
            Cell::new(
                r.memory_bytes
                    .map_or(na.into(), |b| format!("{mem}{}", fmt_short_size(b))),
            )
            .set_alignment(CellAlignment::Right),
            Cell::new(
                r.memory_per_task_bytes
                    .map_or(na.into(), |b| format!("{mem}{}", fmt_short_size(b))),
            )
            .set_alignment(CellAlignment::Right),
        ]);
    }
    s.push_str(&t.to_string());
    s.push_str(
        "\nCPU overhead = (tasks/s x create + switches/s x switch) / 1e9, as a share of one CPU\n",
    );
    let marked = a
        .models
        .iter()
        .any(|r| r.cpu_stand_in || r.cpu_lower_bound || r.memory_stand_in || r.memory_lower_bound);
    if marked {
        s.push_str(
            "~ another figure stands in for an unmeasured one; ≥ a floor, part not measured (see the basis)\n",
        );
    }
    s.push_str(&format!("\nbasis (medians from {}):\n", a.results));
    // The per-thread memory figures, once: every kernel model uses them.
    let thread_figs: Vec<&Figure> = a
        .models
        .iter()
        .find(|r| r.model == "thread")
        .map(|r| r.memory_from.iter().collect())
        .unwrap_or_default();
    if !thread_figs.is_empty() {
        s.push_str(&format!(
            "  per blocked thread: {}\n",
            thread_figs
                .iter()
                .map(|f| f.describe())
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    for r in &a.models {
        let mut parts = Vec::new();
        parts.push(match &r.create_from {
            Some(f) => format!("create ({}) = {}", r.create_what, f.describe()),
            None => format!("create ({}): not measured", r.create_what),
        });
        if let Some(f) = &r.switch_from {
            parts.push(format!("switch = {}", f.describe()));
        }
        if let Some(f) = &r.switch_cross_cpu {
            parts.push(format!(
                "a hand-off to another CPU = {} (latency, not CPU)",
                f.describe()
            ));
        }
        if !r.memory_basis.is_empty() {
            let own: Vec<String> = r
                .memory_from
                .iter()
                .filter(|f| !thread_figs.contains(f))
                .map(Figure::describe)
                .collect();
            let mut m = format!("memory = {}", r.memory_basis);
            if !own.is_empty() {
                m.push_str(&format!(" [{}]", own.join("; ")));
            }
            parts.push(m);
        }
        parts.extend(r.missing.iter().cloned());
        parts.extend(r.notes.iter().map(|n| format!("note: {n}")));
        s.push_str(&format!("  {}: {}\n", r.name, parts.join("; ")));
    }
    for n in &a.notes {
        s.push_str(&format!("note: {n}\n"));
    }
    s.push_str(&format!("\n{}\n", a.recommendation));
    s
}

/// The environment line, as every table heads it, with where the figures came from.
fn header(r: &RunResults, source: &str) -> String {
    format!(
        "{}\nfigures from {source} ({} profile)",
        crate::report::table::header(r),
        r.profile
    )
}

// --------------------------------------------------------------- command

pub fn run(args: &AdviseArgs) -> anyhow::Result<ExitCode> {
    let w = Workload::from_args(args).map_err(UsageError)?;
    let (results, source) = match &args.results {
        Some(p) => (
            RunResults::read(p).map_err(|e| UsageError(format!("{e:#}")))?,
            p.display().to_string(),
        ),
        None => {
            let r = fresh_run(&w)?;
            if r.status == RunStatus::Partial {
                eprintln!("advise: interrupted while measuring; nothing to advise on");
                return Ok(ExitCode::from(130));
            }
            (r, "a fresh quick run".to_string())
        }
    };
    let costs = costs_from(&results, &source);
    if costs.is_empty() {
        return Err(UsageError(format!(
            "{source} has none of the figures advise needs (from {}); run `tasklab run {}` and pass its results.json with --results",
            NEEDED.join(", "),
            NEEDED.join(" ")
        ))
        .into());
    }
    let advice = advise(&w, &costs);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&advice)?);
    } else {
        print!("{}", render(&advice, &header(&results, &source)));
    }
    Ok(ExitCode::SUCCESS)
}

/// Measures only what advise needs, quietly, into a temporary folder.
fn fresh_run(w: &Workload) -> anyhow::Result<RunResults> {
    let dir = tempfile::tempdir()?;
    let env = crate::env::probe();
    let available = crate::env::mem_available_bytes().unwrap_or(env.mem_available_bytes);
    let room = available.saturating_sub(crate::experiments::spawn::heap_margin(&env));
    let mut heaps: Vec<u64> = vec![0, 2 << 20, 64 << 20, 512 << 20];
    if w.heap_bytes <= 4 << 30 {
        heaps.push(w.heap_bytes);
    }
    heaps.retain(|&h| h <= room);
    heaps.sort_unstable();
    heaps.dedup();
    let heap_list: Vec<String> = heaps.iter().map(|h| h.to_string()).collect();
    eprintln!(
        "advise: no --results given, so measuring what it needs ({}; quick profile, heaps {}): this takes 10 to 30 seconds",
        NEEDED.join(", "),
        heaps
            .iter()
            .map(|&h| fmt_size(h))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let started = Instant::now();
    let args = crate::cli::RunArgs {
        names: NEEDED.iter().map(|s| s.to_string()).collect(),
        params: vec![
            format!("spawn.heap.heap_sizes={}", heap_list.join(",")),
            "spawn.heap.methods=fork,posix_spawn,pthread_create,fork_exec_static,vfork".into(),
            "spawn.heap.thp=false".into(),
            "switch.pingpong.methods=futex_threads,futex_processes".into(),
            "switch.pingpong.placements=same_cpu,unpinned".into(),
            "switch.userspace.variants=async,coroutine".into(),
            "memory.threads.variants=default".into(),
            "memory.threads.threads=1000".into(),
        ],
        out: dir.path().to_path_buf(),
        quiet: true,
        ..Default::default()
    };
    // A failed experiment still writes what it measured; advise then says
    // which figures are missing.
    crate::run::run(&args)?;
    let results = RunResults::read(&dir.path().join("results.json"))?;
    eprintln!(
        "advise: measured in {:.0} s (tasklab run {} keeps a full report)",
        started.elapsed().as_secs_f64(),
        NEEDED.join(" ")
    );
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fig(exp: &str, metric: &str, labels: &str, value: f64, unit: Unit) -> Figure {
        Figure {
            experiment: exp.into(),
            metric: metric.into(),
            labels: labels.into(),
            value,
            unit,
            how: None,
            stand_in: false,
            floor: false,
        }
    }

    fn flat(method: &str, ns: f64) -> Curve {
        Curve::new(
            "spawn.heap",
            "lifecycle_ns",
            &format!("method={method} thp=off"),
            Unit::Ns,
            vec![(0, ns), (1 << 30, ns)],
        )
        .unwrap()
    }

    /// Round figures: fork 100 µs at 0 growing to 1.1 ms at 1 GiB, thread
    /// 20 µs, posix_spawn 300 µs, same-CPU switches 2/3 µs (a cross-CPU
    /// hand-off 20 µs) and 200 ns.
    fn costs() -> Costs {
        Costs {
            source: "test.json".into(),
            cpus: 2,
            fork: Curve::new(
                "spawn.heap",
                "lifecycle_ns",
                "method=fork thp=off",
                Unit::Ns,
                vec![(0, 100_000.0), (1 << 30, 1_100_000.0)],
            ),
            thread: Some(flat("pthread_create", 20_000.0)),
            spawn: Some(flat("posix_spawn", 300_000.0)),
            process_pte: Curve::new(
                "spawn.heap",
                "vm_pte_kib",
                "thp=off",
                Unit::Kib,
                vec![(0, 64.0), (1 << 30, 2112.0)],
            ),
            switch_threads: Some(fig(
                "switch.pingpong",
                "switch_ns",
                "method=futex_threads placement=same_cpu",
                2_000.0,
                Unit::Ns,
            )),
            switch_threads_cross_cpu: Some(fig(
                "switch.pingpong",
                "switch_ns",
                "method=futex_threads placement=unpinned",
                20_000.0,
                Unit::Ns,
            )),
            switch_processes: Some(fig(
                "switch.pingpong",
                "switch_ns",
                "method=futex_processes placement=same_cpu",
                3_000.0,
                Unit::Ns,
            )),
            switch_async: Some(fig(
                "switch.userspace",
                "switch_ns",
                "variant=async",
                200.0,
                Unit::Ns,
            )),
            thread_rss: Some(fig(
                "memory.threads",
                "rss_per_thread_kib",
                "variant=default",
                8.0,
                Unit::Kib,
            )),
            kernel_stack: Some(fig(
                "memory.threads",
                "kernel_stack_per_thread_kib",
                "variant=default",
                16.0,
                Unit::Kib,
            )),
            thread_pte: Some(fig(
                "memory.threads",
                "page_tables_per_thread_bytes",
                "variant=default",
                4096.0,
                Unit::Bytes,
            )),
            ..Default::default()
        }
    }

    fn workload(rate: &str, heap: &str, switches: &str) -> Workload {
        Workload::parse(rate, "10ms", heap, switches, None, "16K").unwrap()
    }

    fn row<'a>(a: &'a Advice, m: &str) -> &'a Row {
        a.models.iter().find(|r| r.model == m).unwrap()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn a_thousand_forks_of_100_us_are_a_tenth_of_a_cpu() {
        let a = advise(&workload("1000", "0", "0"), &costs());
        let p = row(&a, "process");
        assert_eq!(p.create_ns, Some(100_000.0));
        assert!(close(p.cpu_share.unwrap(), 0.10));
        assert_eq!(fmt_share(p.cpu_share.unwrap()), "10.0%");
        assert_eq!(p.keeps_up, Some(true));
        // Threads: 1000 x 20 µs = 2%.
        assert!(close(row(&a, "thread").cpu_share.unwrap(), 0.02));
        // Pool: 1000 hand-offs x 2 µs = 0.2%.
        assert!(close(row(&a, "pool").cpu_share.unwrap(), 0.002));
        // Async: 1000 x 200 ns = 0.02%.
        assert!(close(row(&a, "async").cpu_share.unwrap(), 0.0002));
    }

    #[test]
    fn switches_add_their_cost() {
        let a = advise(&workload("1000", "0", "10k"), &costs());
        // 1000 x 100 µs + 10,000 x 3 µs = 0.13 s per second.
        assert!(close(row(&a, "process").cpu_share.unwrap(), 0.13));
        // 1000 x 20 µs + 10,000 x 2 µs = 0.04.
        assert!(close(row(&a, "thread").cpu_share.unwrap(), 0.04));
        // 1000 x 200 ns + 10,000 x 200 ns = 0.0022.
        assert!(close(row(&a, "async").cpu_share.unwrap(), 0.0022));
    }

    #[test]
    fn fork_is_interpolated_in_heap_bytes_and_extrapolated_past_the_largest() {
        let c = costs();
        let half = c.fork.as_ref().unwrap().at(512 << 20);
        assert!(close(half.value, 600_000.0), "{half:?}");
        assert!(half.how.as_deref().unwrap().contains("interpolated"));
        let exact = c.fork.as_ref().unwrap().at(1 << 30);
        assert_eq!(exact.value, 1_100_000.0);
        assert!(exact
            .how
            .as_deref()
            .unwrap()
            .contains("measured at heap 1 GiB"));
        // Two points: the least-squares slope is the segment's, 1 ms per GiB.
        let twice = c.fork.as_ref().unwrap().at(2 << 30);
        assert!(close(twice.value, 2_100_000.0), "{twice:?}");
        assert!(twice.how.as_deref().unwrap().contains("extrapolated"));
        // 1000 forks at 512 MiB: 600 µs each = 60% of a CPU.
        let a = advise(&workload("1000", "512M", "0"), &c);
        assert!(close(row(&a, "process").cpu_share.unwrap(), 0.6));
    }

    #[test]
    fn below_the_smallest_heap_the_figure_is_clamped_and_a_falling_curve_is_held() {
        let k = Curve::new(
            "x",
            "lifecycle_ns",
            "",
            Unit::Ns,
            vec![(2 << 20, 50.0), (4 << 20, 40.0)],
        )
        .unwrap();
        let f = k.at(0);
        assert_eq!(f.value, 50.0);
        assert!(f.how.unwrap().contains("clamped"));
        let f = k.at(1 << 30);
        assert_eq!(f.value, 40.0);
        assert!(f.how.unwrap().contains("held"));
    }

    #[test]
    fn memory_follows_the_formulas() {
        // 1000/s x 10 ms = 10 tasks; stack 16 KiB.
        let a = advise(&workload("1000", "0", "0"), &costs());
        assert_eq!(a.workload.concurrent, 10);
        let kib = 1024.0;
        // thread: max(16 KiB, 8 KiB) + 16 KiB + 4 KiB = 36 KiB.
        let thread = 36.0 * kib;
        assert!(close(
            row(&a, "thread").memory_bytes.unwrap(),
            10.0 * thread
        ));
        // process: a floor of your stack + kernel stack + 64 KiB of page
        // tables at heap 0; no thread stack's page tables, no resident figure.
        let p = row(&a, "process");
        assert!(close(
            p.memory_bytes.unwrap(),
            10.0 * (16.0 * kib + 16.0 * kib + 64.0 * kib)
        ));
        assert!(p.memory_lower_bound);
        assert!(p.memory_basis.contains("copy-on-write"));
        // pool: 2 threads + 10 x 16 KiB of state.
        assert!(close(
            row(&a, "pool").memory_bytes.unwrap(),
            2.0 * thread + 10.0 * 16.0 * kib
        ));
        // async: 10 x 16 KiB, by construction: a stand-in.
        let y = row(&a, "async");
        assert!(close(y.memory_bytes.unwrap(), 160.0 * kib));
        assert!(y.memory_stand_in && !y.memory_lower_bound);
        // posix_spawn: a floor of 10 kernel stacks.
        let s = row(&a, "spawn");
        assert!(s.memory_lower_bound);
        assert!(close(s.memory_bytes.unwrap(), 160.0 * kib));
        assert!(s.memory_basis.contains("not measured"));
        // A stack smaller than what a blocked thread keeps resident counts
        // the resident figure.
        let small = Workload::parse("1000", "10ms", "0", "0", None, "4K").unwrap();
        let a = advise(&small, &costs());
        assert!(close(
            row(&a, "thread").memory_bytes.unwrap(),
            10.0 * 28.0 * kib
        ));
    }

    #[test]
    fn a_model_that_cannot_keep_up_is_flagged() {
        // 100,000 forks/s x 100 µs = 10 CPUs of overhead on a 2-CPU machine.
        let a = advise(&workload("100k", "0", "0"), &costs());
        let p = row(&a, "process");
        assert!(close(p.cpu_share.unwrap(), 10.0));
        assert_eq!(p.keeps_up, Some(false));
        assert!(p.notes.iter().any(|n| n.contains("cannot keep up")));
        assert!(a.recommendation.contains("cannot keep up"));
        assert_eq!(row(&a, "thread").keeps_up, Some(true));
    }

    #[test]
    fn missing_figures_name_the_file_and_the_experiment_to_run() {
        let mut c = costs();
        c.thread_rss = None;
        c.switch_async = None;
        let a = advise(&workload("1000", "0", "100"), &c);
        let t = row(&a, "thread");
        assert_eq!(t.memory_bytes, None);
        assert!(t.missing.iter().any(|m| m.contains(
            "thread memory not measured in test.json (run `tasklab run memory.threads`)"
        )));
        // The CPU figure does not need the memory ones.
        assert!(t.cpu_share.is_some());
        let s = row(&a, "async");
        assert_eq!(s.cpu_share, None);
        assert!(s
            .missing
            .iter()
            .any(|m| m.contains("run `tasklab run switch.userspace`")));
        // With no switches asked for, a missing switch figure does not matter.
        let mut c = costs();
        c.switch_processes = None;
        let a = advise(&workload("1000", "0", "0"), &c);
        assert!(close(row(&a, "process").cpu_share.unwrap(), 0.1));
        assert!(Costs::default().is_empty());
        assert!(!costs().is_empty());
    }

    #[test]
    fn the_recommendation_names_the_cheapest() {
        let a = advise(&workload("1000", "0", "0"), &costs());
        assert!(
            a.recommendation.starts_with(
                "Least CPU: async tasks, at ~0.020% of one CPU (~: spawning a task is not measured"
            ),
            "{}",
            a.recommendation
        );
        assert!(a.recommendation.contains("thread pool, at 0.20%"));
        assert!(a
            .recommendation
            .contains("fork costs 5.0x a thread's creation"));
    }

    #[test]
    fn littles_law_sets_concurrency_and_a_smaller_given_figure_is_noted() {
        let w = Workload::parse("2000", "20ms", "0", "0", None, "16K").unwrap();
        assert_eq!(w.concurrent, 40);
        assert!(!w.concurrent_given);
        let w = Workload::parse("1", "1ms", "0", "0", None, "16K").unwrap();
        assert_eq!(w.concurrent, 1);
        // 10 x 0.7 is 7.000000000000001 in floats: still 7 tasks, not 8.
        let w = Workload::parse("10", "700ms", "0", "0", None, "16K").unwrap();
        assert_eq!(w.concurrent, 7);
        assert_eq!(w.little(), 7.0);
        let w = Workload::parse("10", "700ms", "0", "0", Some("7"), "16K").unwrap();
        assert!(!advise(&w, &costs())
            .notes
            .iter()
            .any(|n| n.contains("Little's law")));
        // A real fraction still rounds up.
        let w = Workload::parse("10", "750ms", "0", "0", None, "16K").unwrap();
        assert_eq!(w.concurrent, 8);
        let w = Workload::parse("2000", "20ms", "0", "0", Some("10"), "16K").unwrap();
        assert_eq!(w.concurrent, 10);
        let a = advise(&w, &costs());
        assert!(a.notes.iter().any(|n| n.contains("Little's law")));
        let w = Workload::parse("2000", "20ms", "0", "0", Some("100"), "16K").unwrap();
        assert!(!advise(&w, &costs())
            .notes
            .iter()
            .any(|n| n.contains("Little's law")));
    }

    #[test]
    fn units_parse() {
        assert_eq!(parse_number("r", "2000"), Ok(2000.0));
        assert_eq!(parse_number("r", "1.5k"), Ok(1500.0));
        assert_eq!(parse_number("r", "2M/s"), Ok(2e6));
        assert_eq!(parse_number("r", "10,000"), Ok(10_000.0));
        assert_eq!(parse_number("r", "1,234,567.5"), Ok(1_234_567.5));
        assert_eq!(parse_number("r", "12,500k"), Ok(12_500_000.0));
        for bad in ["1,5k", "1,0000", ",100", "1,", "1.000,5", "10,00"] {
            assert!(
                parse_number("r", bad)
                    .unwrap_err()
                    .contains("a comma may only separate groups of three digits"),
                "{bad}"
            );
        }
        assert!(parse_number("r", "-5").unwrap_err().contains("negative"));
        assert!(parse_number("r", "nan").unwrap_err().contains("finite"));
        assert!(parse_number("r", "lots")
            .unwrap_err()
            .contains("not a number"));
        assert!(close(parse_duration("l", "20ms").unwrap(), 0.02));
        assert!(close(parse_duration("l", "500us").unwrap(), 500e-6));
        assert!(close(parse_duration("l", "500µs").unwrap(), 500e-6));
        assert_eq!(parse_duration("l", "2s"), Ok(2.0));
        assert_eq!(parse_duration("l", "1h"), Ok(3600.0));
        assert!(parse_duration("l", "20")
            .unwrap_err()
            .contains("needs a unit"));
        assert!(parse_duration("l", "20 parsecs")
            .unwrap_err()
            .contains("unknown unit"));
        assert!(parse_duration("l", "-1ms")
            .unwrap_err()
            .contains("negative"));
    }

    #[test]
    fn absurd_workloads_are_refused_with_the_bound() {
        let p = |rate: &str, life: &str, heap: &str, sw: &str, conc: Option<&str>, st: &str| {
            Workload::parse(rate, life, heap, sw, conc, st).unwrap_err()
        };
        assert!(p("0", "1ms", "0", "0", None, "4K").contains("--rate"));
        assert!(p("2G", "1ms", "0", "0", None, "4K").contains("1,000,000,000"));
        assert!(p("1", "25h", "0", "0", None, "4K").contains("one day"));
        assert!(p("1", "0s", "0", "0", None, "4K").contains("--lifetime"));
        assert!(p("1", "1ms", "2048T", "0", None, "4K").contains("1 PiB"));
        assert!(p("1", "1ms", "2XB", "0", None, "4K").contains("--heap"));
        assert!(p("1", "1ms", "0", "2G", None, "4K").contains("--switches"));
        assert!(p("1", "1ms", "0", "0", Some("0"), "4K").contains("--concurrent"));
        assert!(p("1", "1ms", "0", "0", Some("1.5"), "4K").contains("whole"));
        assert!(p("1", "1ms", "0", "0", None, "0").contains("--stack"));
        assert!(p("1", "1ms", "0", "0", None, "2G").contains("--stack"));
        assert!(p("1G", "1h", "0", "0", None, "4K").contains("alive at once"));
    }

    #[test]
    fn a_noisy_flat_curve_is_held_flat_past_the_largest_heap() {
        // pthread_create in a real quick run: noise, with a high last point.
        let k = Curve::new(
            "spawn.heap",
            "lifecycle_ns",
            "method=pthread_create thp=off",
            Unit::Ns,
            vec![
                (0, 69_340.0),
                (2 << 20, 83_176.0),
                (64 << 20, 76_795.0),
                (512 << 20, 70_322.0),
                (4 << 30, 166_511.0),
            ],
        )
        .unwrap();
        let f = k.at(512 << 40);
        assert_eq!(f.value, 166_511.0, "{f:?}");
        let how = f.how.unwrap();
        assert!(
            how.contains("held there") && how.contains("rests on that heap alone"),
            "{how}"
        );
        // A strong rising line is extrapolated, and far past the largest
        // heap that is said.
        let fork = costs().fork.unwrap();
        let f = fork.at(8 << 30);
        assert!(close(f.value, 1_100_000.0 + 7.0 * 1_000_000.0));
        assert!(f.how.unwrap().contains("an extrapolation to 8x"));
        assert_eq!(fork.far_beyond(4 << 30), None);
        let a = advise(&workload("10", "8G", "0"), &costs());
        assert!(row(&a, "process")
            .notes
            .iter()
            .any(|n| n.contains("is an extrapolation, 8x the largest measured heap (1 GiB)")));
    }

    #[test]
    fn switches_cost_their_same_cpu_figure_with_the_cross_cpu_latency_shown() {
        let a = advise(&workload("1000", "0", "10k"), &costs());
        let p = row(&a, "pool");
        let cr = p.create_from.as_ref().unwrap();
        assert!(cr.labels.contains("placement=same_cpu"));
        assert!(cr.how.as_deref().unwrap().contains("latency, not CPU"));
        assert_eq!(
            p.switch_cross_cpu.as_ref().unwrap().labels,
            "method=futex_threads placement=unpinned"
        );
        assert!(!p.cpu_lower_bound);
        // The hand-off and every switch at the same-CPU 2 µs, never the 20 µs.
        assert!(close(
            p.cpu_share.unwrap(),
            (1000.0 + 10_000.0) * 2_000.0 / 1e9
        ));
    }

    #[test]
    fn unusable_figures_are_named_with_the_reason() {
        let want = |v: f64, u: Unit, e: Expect| unusable(v, u, e).unwrap_or_default();
        assert!(want(-100.0, Unit::Ns, NS).contains("-100 ns, is negative"));
        assert!(want(f64::INFINITY, Unit::Ns, NS).contains("not a finite number"));
        assert!(want(0.0, Unit::Ns, NS).contains("0 ns"));
        assert!(want(1e300, Unit::Ns, NS).contains("above an hour"));
        assert!(want(8.0, Unit::Kib, BYTES).contains("'KiB' where 'bytes' is expected"));
        assert_eq!(unusable(8.5, Unit::Kib, KIB), None);
        assert_eq!(unusable(0.0, Unit::Bytes, BYTES), None);
    }

    #[test]
    fn one_format_for_a_figure_and_its_formula() {
        let f = fig("memory.threads", "rss_per_thread_kib", "", 8.68, Unit::Kib);
        assert!(f.describe().ends_with("= 8.7 KiB"), "{}", f.describe());
        assert_eq!(fmt_short_size(8.68 * 1024.0), "8.7 KiB");
    }
}
