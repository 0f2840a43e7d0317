//! memory.threads' variants and what its figures say: per-thread claims over
//! the thread counts measured, with intervals; the small stack weighed on
//! resident memory and page tables both; the seed's 400 KiB arithmetic; the
//! kernel's own memory per 1,000 threads beside user RSS.

use super::RSS_GROWTH_KIB;
use crate::experiments::prelude::*;
use crate::measure::rss;
use crate::metric::key::{THREADS, VARIANT};
use crate::stats::rounds::Unsettled;

pub const DEFAULT: Choice = Choice::new("default", "threads with the default stack size");
pub const SMALL: Choice = Choice::new(
    "small",
    "threads with a small stack (pthread_attr_setstacksize)",
);
pub const TOUCH: Choice = Choice::new("touch", "threads that each touch part of their stack");

/// The variants: what `-p variants=` accepts, what `tasklab list` prints,
/// and what the rounds and the findings loop over.
pub const VARIANTS: &[Choice] = &[DEFAULT, SMALL, TOUCH];

/// The series of memory.threads, declared here, where both the worker
/// (threads.rs) and the findings read them.
const fn kib(name: &'static str, better: Better, about: &'static str) -> MetricSpec {
    MetricSpec::new(name, Unit::Kib, better, Kind::Memory, about)
}
pub const VM_SIZE_GROWTH_KIB: MetricSpec = kib(
    "vm_size_growth_kib",
    Better::Lower,
    "VmSize grown while the threads started: their stacks and guard pages",
)
.signed();
pub const RSS_EXACT_GROWTH_KIB: MetricSpec = kib(
    "rss_exact_growth_kib",
    Better::Lower,
    "smaps_rollup Rss grown while the threads started and touched their stacks: exact",
)
.signed();
pub const VIRT_PER_THREAD_KIB: MetricSpec = kib(
    "virt_per_thread_kib",
    Better::Lower,
    "address space (VmSize) one blocked thread reserves",
)
.signed();
pub const RSS_PER_THREAD_KIB: MetricSpec = kib(
    "rss_per_thread_kib",
    Better::Lower,
    "resident memory (VmRSS, the kernel's counters) one blocked thread keeps",
)
.signed();
pub const RSS_EXACT_PER_THREAD_KIB: MetricSpec = kib(
    "rss_exact_per_thread_kib",
    Better::Lower,
    "resident memory (smaps_rollup Rss, exact) one blocked thread keeps",
)
.signed();
pub const KERNEL_STACK_PER_THREAD_KIB: MetricSpec = kib(
    "kernel_stack_per_thread_kib",
    Better::Lower,
    "KernelStack (/proc/meminfo, system-wide) grown per thread started",
)
.signed();
/// `Neither`: read from system-wide counters (/proc/meminfo) that the slab
/// caches' reuse and other activity move between identical runs, so
/// `compare` reports a change of it and never gates on it.
pub const KERNEL_KIB_PER_1000_THREADS: MetricSpec = kib(
    "kernel_kib_per_1000_threads",
    Better::Neither,
    "the kernel's own memory (a /proc/meminfo field, system-wide) grown per 1,000 threads started",
)
.signed();
pub const PAGE_TABLES_PER_THREAD_BYTES: MetricSpec = MetricSpec::new(
    "page_tables_per_thread_bytes",
    Unit::Bytes,
    Better::Lower,
    Kind::Memory,
    "the process's page tables (VmPTE) grown per thread started",
)
.signed();
pub const CREATE_NS: MetricSpec = MetricSpec::new(
    "create_ns",
    Unit::Ns,
    Better::Lower,
    Kind::Creation,
    "starting all N threads, each blocked until all exist",
);
pub const CREATE_PER_THREAD_NS: MetricSpec = MetricSpec::new(
    "create_per_thread_ns",
    Unit::Ns,
    Better::Lower,
    Kind::Creation,
    "starting the N threads, per thread",
);
pub const READY_NS: MetricSpec = MetricSpec::new(
    "ready_ns",
    Unit::Ns,
    Better::Lower,
    Kind::HandOff,
    "from letting the threads go until every one has reached the gate and blocked again",
);
pub const TOUCH_ALL_NS: MetricSpec = MetricSpec::new(
    "touch_all_ns",
    Unit::Ns,
    Better::Lower,
    Kind::Creation,
    "from letting the threads go until every one has faulted in its touched stack and blocked",
);
pub const THREADS_SEEN: MetricSpec = MetricSpec::new(
    "threads_seen",
    Unit::Count,
    Better::Neither,
    Kind::Other,
    "threads the process gained by /proc/self/status while the crowd stood: a check of the count",
);

/// The stack each thread got, the stack it touched, and which
/// /proc/meminfo field a kernel figure is.
pub const STACK: LabelKey = "stack";
pub const TOUCHED: LabelKey = "touch";
pub const MEMINFO: LabelKey = "kind";
/// Which growth a fit is of: resident or virtual memory.
const WHAT: LabelKey = "what";
const RESIDENT: &str = "resident";

/// The seed's thread count, its touched-stack total (~2.6 GiB), and the
/// pages per thread a pre-6.2 kernel's per-thread RSS cache can hold back
/// (SPLIT_RSS_COUNTING flushes every 64 events).
const SEED_THREADS: f64 = 10_000.0;
const SEED_TOUCHED_TOTAL_KIB: f64 = 2.6 * 1024.0 * 1024.0;
const SPLIT_RSS_PAGES: f64 = 64.0;

/// The thread counts measured for `variant`, ascending.
fn counts(r: &ExperimentResult, variant: &str) -> Vec<u64> {
    let mut c: Vec<u64> = r
        .metrics
        .iter()
        .filter(|m| m.label(VARIANT) == Some(variant))
        .filter_map(|m| m.label_num(THREADS))
        .collect();
    c.sort_unstable();
    c.dedup();
    c
}

/// The largest thread count measured for `variant`, as its label.
fn most_threads(r: &ExperimentResult, variant: &str) -> String {
    counts(r, variant)
        .last()
        .map_or_else(|| "?".into(), u64::to_string)
}

/// The settled summaries of `metric` for `variant`, one per thread count.
fn per_count<'a>(
    r: &'a ExperimentResult,
    metric: &MetricSpec,
    variant: &'a str,
) -> Vec<&'a Summary> {
    counts(r, variant)
        .iter()
        .filter_map(|n| r.settled(metric, &[(VARIANT, variant), (THREADS, &n.to_string())]))
        .collect()
}

/// Whether the per-thread figures of `metric` at every count measured agree
/// with the largest count's within their intervals; None when fewer than
/// two counts have a settled figure.
fn agree(r: &ExperimentResult, metric: &MetricSpec, variant: &str) -> Option<bool> {
    let c = counts(r, variant);
    let all = per_count(r, metric, variant);
    let top = all.last()?;
    (all.len() >= 2)
        .then(|| all.len() == c.len() && all.iter().all(|s| order(s, top) == Order::Overlap))
}

/// Where a per-thread figure was read, one phrase in every run (issue 39
/// item 9): "at 2000 threads, of 500–2000 measured, the same at every
/// count within the intervals", the figures being the largest count's, and
/// whether the other counts agree with it: "the counts differ beyond their
/// intervals", "a count did not settle", or "the only count measured".
fn span(r: &ExperimentResult, metric: &MetricSpec, variant: &str) -> String {
    let c = counts(r, variant);
    let (Some(lo), Some(hi)) = (c.first(), c.last()) else {
        return "at ? threads".into();
    };
    if c.len() == 1 {
        return format!("at {hi} threads, the only count measured");
    }
    let settled = per_count(r, metric, variant).len() == c.len();
    let how = match agree(r, metric, variant) {
        Some(true) => "the same at every count within the intervals",
        _ if !settled => "a count did not settle, so they are not compared",
        _ => "the counts differ beyond their intervals",
    };
    format!("at {hi} threads, of {lo}–{hi} measured, {how}")
}

/// Per variant, how resident and virtual memory grow with the thread
/// count: the slope is the cost of one more thread.
fn thread_growth_fits(r: &ExperimentResult) -> Vec<NamedFit> {
    let mut fits = Vec::new();
    for variant in names(VARIANTS) {
        for (metric, what) in [
            (&RSS_EXACT_GROWTH_KIB, RESIDENT),
            (&VM_SIZE_GROWTH_KIB, "virtual"),
        ] {
            let pts: Vec<(f64, f64)> = r
                .metrics_named(metric)
                .filter(|m| m.label(VARIANT) == Some(variant))
                .filter_map(|m| Some((m.label_num(THREADS)? as f64, m.summary.median)))
                .collect();
            if pts.len() < 3 {
                continue;
            }
            let (xs, ys): (Vec<f64>, Vec<f64>) = pts.into_iter().unzip();
            if let Some(fit) = crate::stats::linear_fit(&xs, &ys) {
                fits.push(NamedFit {
                    name: format!("{variant} {what} KiB vs threads"),
                    labels: labels(&[(VARIANT, variant), (WHAT, what)]),
                    x_unit: "thread".into(),
                    y_unit: "KiB".into(),
                    fit,
                });
            }
        }
    }
    fits
}

pub fn analyze(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    let fits = thread_growth_fits(r);
    let most: Vec<(&str, String)> = names(VARIANTS)
        .into_iter()
        .map(|v| (v, most_threads(r, v)))
        .collect();
    let at = |variant: &str| {
        most.iter()
            .find(|m| m.0 == variant)
            .map_or("?", |m| m.1.as_str())
    };
    // The findings quote the largest count measured for each variant,
    // settled or not: every finding keeps its subject, a flagged figure
    // quoted with its mark and nothing drawn from it (issue 39 item 9).
    let s = |spec: &MetricSpec, variant: &str| {
        r.find(spec, &[(VARIANT, variant), (THREADS, at(variant))])
            .map(|m| &m.summary)
    };
    let label = |variant: &str, key: &str| {
        r.find(&CREATE_NS, &[(VARIANT, variant), (THREADS, at(variant))])
            .and_then(|m| m.label(key))
            .unwrap_or("?")
            .to_string()
    };
    let default = DEFAULT.name;
    // The bound of one VmRSS reading at the quoted count: a growth is two
    // readings, a per-thread figure that divided by the threads.
    let bound = |variant: &str| rss::bound(r, &[(VARIANT, variant), (THREADS, at(variant))]);
    let pm = |variant: &str, per_thread: bool| {
        let n: f64 = at(variant).parse().unwrap_or(1.0);
        rss::pm(bound(variant), 2.0, if per_thread { n } else { 1.0 })
    };
    a.notes.extend(rss::note(r));
    // Fewer threads than asked (a limit lowered the count, or a thread was
    // refused): said first, and nothing is scaled beyond what was measured.
    let short = fewer_than_asked(r, at(DEFAULT.name));
    let f = &mut a.findings;
    f.extend(short.clone());
    if let (Some(vm), Some(rss), Some(virt), Some(res)) = (
        s(&VM_SIZE_GROWTH_KIB, default),
        s(&RSS_GROWTH_KIB, default),
        s(&VIRT_PER_THREAD_KIB, default),
        s(&RSS_PER_THREAD_KIB, default),
    ) {
        let n: f64 = at(default).parse().unwrap_or(1.0);
        let scale = |kib: f64| fmt_value(kib * 1024.0 * SEED_THREADS / n.max(1.0), Unit::Bytes);
        let scaled = if short.is_some() {
            "Not scaled to the seed's 10,000: fewer threads than asked were measured".to_string()
        } else if vm.unstable || rss.unstable {
            "Not scaled to the seed's 10,000: a figure did not settle".to_string()
        } else {
            format!(
                "Scaled to the seed's 10,000: {} virtual, {} resident (seed: ~80 GiB, ~80 MiB)",
                scale(vm.median),
                scale(rss.median)
            )
        };
        f.push(format!(
            "{n} threads with the default {} stack: VmSize +{}, VmRSS +{}{}. Per thread, {}: {} of address space (the stack and its guard page) and {}{} resident ({}): stacks are virtual until used. {scaled}",
            label(default, STACK),
            bytes(vm),
            bytes(rss),
            pm(default, false),
            span(r, &VIRT_PER_THREAD_KIB, default),
            shown(virt, Unit::Kib),
            shown(res, Unit::Kib),
            pm(default, true),
            span(r, &RSS_PER_THREAD_KIB, default),
            n = at(default),
        ));
    }
    f.extend(small_stack(r, &s, &label, &pm));
    let mut footnote = None;
    if let Some((t, n)) = touched(r, &s, &label, &pm) {
        f.push(t);
        footnote = Some(n);
    }
    f.extend(kernel_memory(r, at(default)));
    f.extend(times(r, &s, &label, (at(default), at(TOUCH.name))));
    // How the figures hold across counts is the method's check: a note.
    a.notes.extend(footnote);
    a.notes.extend(growth(r, &fits));
    a.notes
        .extend(super::threads_why::paths(r, &names(VARIANTS)));
    a.fits.extend(fits);
    a.headlines.extend(thread_memory_headline(r));
    a
}

/// The two times, one sentence: creating the default variant's threads,
/// and faulting in the touched variant's stacks.
fn times(
    r: &ExperimentResult,
    s: &Get,
    label: &Label,
    (at_default, at_touch): (&str, &str),
) -> Option<String> {
    let (default, touch) = (DEFAULT.name, TOUCH.name);
    let mut times = Vec::new();
    if let (Some(c), Some(per)) = (s(&CREATE_NS, default), s(&CREATE_PER_THREAD_NS, default)) {
        times.push(format!(
            "creating {} threads took {} ({} each, the threads blocked until all exist)",
            at_default,
            shown(c, Unit::Ns),
            shown(per, Unit::Ns)
        ));
    }
    if let Some(t) = s(&TOUCH_ALL_NS, touch) {
        let n: f64 = at_touch.parse().unwrap_or(1.0);
        let per = if t.unstable {
            "unstable: no per-thread time drawn".to_string()
        } else {
            format!("{} per thread", fmt_ns(t.median / n.max(1.0)))
        };
        // The time is the wall time of all threads faulting at once: per
        // thread it is no CPU cost, and no CPU count is claimed. Under
        // `run --why` the faults' share is measured, not assumed.
        let how = match super::threads_why::faults(r, touch, at_touch) {
            Some(measured) => format!("wall time, the threads faulting at once; {measured}"),
            None => "wall time, the threads faulting at once".to_string(),
        };
        times.push(format!(
            "faulting in {} of stack in each of {} threads took {} ({per}, {how})",
            label(touch, TOUCHED),
            at_touch,
            shown(t, Unit::Ns),
        ));
    }
    (!times.is_empty()).then(|| times.join("; "))
}

/// When the most threads measured (`measured`, of the default variant) is
/// below the most the run asked for: a finding that says so, with the
/// limit the plan or the worker named.
fn fewer_than_asked(r: &ExperimentResult, measured: &str) -> Option<String> {
    let asked = r
        .params
        .get("threads")?
        .as_array()?
        .iter()
        .filter_map(|v| v.as_u64())
        .max()?;
    let got: u64 = measured.parse().ok()?;
    if got >= asked {
        return None;
    }
    // The plan's clamp or the worker's refusal.
    let why = r.fewer_than_asked.first();
    Some(format!(
        "fewer threads than asked: at most {} measured of the {} asked{}; every figure here is for the counts measured, and none is scaled beyond them",
        group_digits(got as i64),
        group_digits(asked as i64),
        why.map_or(String::new(), |w| format!(" ({w})"))
    ))
}

type Get<'a> = dyn Fn(&MetricSpec, &str) -> Option<&'a Summary> + 'a;
type Label<'a> = dyn Fn(&str, &str) -> String + 'a;
/// The RSS bound of a variant's quoted figure: per thread, or in total.
type Pm<'a> = dyn Fn(&str, bool) -> String + 'a;

/// The small stack against the default: address space, resident memory
/// and page tables, each decided from its intervals.
fn small_stack(r: &ExperimentResult, s: &Get, label: &Label, pm: &Pm) -> Option<String> {
    let (small, default) = (SMALL.name, DEFAULT.name);
    let (virt, res) = (
        s(&VIRT_PER_THREAD_KIB, small)?,
        s(&RSS_PER_THREAD_KIB, small)?,
    );
    let mut text = format!(
        "with a {} stack (pthread_attr_setstacksize) a thread reserves {} of address space and keeps {}{} resident (VmRSS, {})",
        label(small, STACK),
        shown(virt, Unit::Kib),
        shown(res, Unit::Kib),
        pm(small, true),
        span(r, &RSS_PER_THREAD_KIB, small)
    );
    let Some(res_d) = s(&RSS_PER_THREAD_KIB, default) else {
        return Some(text);
    };
    let mut unsettled = res.unstable || res_d.unstable;
    let resident = order(res, res_d);
    text.push_str(&format!(
        "; resident: {}",
        compare_shown("small", res, "default", res_d, Unit::Kib)
    ));
    let pt = match (
        s(&PAGE_TABLES_PER_THREAD_BYTES, small),
        s(&PAGE_TABLES_PER_THREAD_BYTES, default),
    ) {
        (Some(p), Some(d)) => {
            text.push_str(&format!(
                "; page tables (VmPTE) per thread: {}",
                compare_shown("small", p, "default", d, Unit::Bytes)
            ));
            unsettled |= p.unstable || d.unstable;
            Some(order(p, d))
        }
        _ => None,
    };
    if unsettled {
        text.push_str(": what a smaller stack saves is not said, a figure did not settle");
        return Some(text);
    }
    let verdict = match (resident, pt) {
        (Order::Below, Some(Order::Below)) => {
            "a smaller stack saves address space, resident memory and page tables"
        }
        (Order::Below, _) => "a smaller stack saves address space and resident memory",
        (_, Some(Order::Below)) => {
            "a smaller stack saves address space and page tables (kernel memory), not resident user memory"
        }
        (_, Some(_)) => "a smaller stack saves address space, not memory: resident memory and page tables are no smaller here",
        (_, None) => "a smaller stack saves address space; resident memory is no smaller here (page tables not measured)",
    };
    text.push_str(&format!(": {verdict}"));
    Some(text)
}

/// The touched variant: VmRSS against the exact count, and the seed's
/// arithmetic (10,000 x the touched size, against its ~2.6 GiB).
/// The finding, and the seed's footnote weighed against its gap (a note).
fn touched(r: &ExperimentResult, s: &Get, label: &Label, pm: &Pm) -> Option<(String, String)> {
    let t = TOUCH.name;
    let (rss, exact, total) = (
        s(&RSS_PER_THREAD_KIB, t)?,
        s(&RSS_EXACT_PER_THREAD_KIB, t)?,
        s(&RSS_GROWTH_KIB, t)?,
    );
    let touched = label(t, TOUCHED);
    let touched_kib = crate::units::parse_size(&touched).unwrap_or(0) as f64 / 1024.0;
    let seed_total_kib = touched_kib * SEED_THREADS;
    // The seed's totals to two decimals: 10,000 x 400 KiB is 3.81 GiB.
    let gib = |v: f64| format!("{:.2} GiB", v / (1024.0 * 1024.0));
    let shortfall_kib = (seed_total_kib - SEED_TOUCHED_TOTAL_KIB) / SEED_THREADS;
    let pages = shortfall_kib / 4.0;
    let footnote = if pages <= 0.0 {
        "the seed saw no shortfall to explain".to_string()
    } else if pages <= SPLIT_RSS_PAGES {
        format!(
            "the seed's shortfall is consistent with its footnote: kernels before 6.2 kept each thread's RSS changes in a private cache flushed every 64 page faults (SPLIT_RSS_COUNTING), so up to 64 pages per thread can go uncounted while the thread blocks; its gap, {} − {} over 10,000 threads, is about {:.0} KiB ({pages:.0} pages) per thread, within that bound",
            gib(seed_total_kib),
            gib(SEED_TOUCHED_TOTAL_KIB),
            shortfall_kib
        )
    } else {
        format!(
            "the seed's gap, {} − {} over 10,000 threads, is about {pages:.0} pages per thread, more than the 64 a pre-6.2 kernel's per-thread RSS cache can hold back: its footnote does not explain it alone",
            gib(seed_total_kib),
            gib(SEED_TOUCHED_TOTAL_KIB)
        )
    };
    let verdict = match order(rss, exact) {
        _ if rss.unstable || exact.unstable => {
            "VmRSS against the exact count: not told apart here, a figure did not settle, so no conclusion is drawn".to_string()
        }
        Order::Overlap => format!(
            "On this kernel VmRSS is indistinguishable from the exact count (smaps_rollup walks the page tables): the threads did use {touched} each; the seed's VmRSS under-reported it (its footnote: see the notes)"
        ),
        o => format!(
            "VmRSS is {} the exact count here ({}): the kernel's RSS counters are approximate, as the seed's footnote says, and smaps_rollup (a walk of the page tables) is the figure to trust (the footnote: see the notes)",
            if o == Order::Below { "below" } else { "above" },
            difference(rss, exact, Unit::Kib).text()
        ),
    };
    let finding = format!(
        "touching {touched} of stack in each of {} threads: per thread ({}), VmRSS +{}{}, exact (smaps_rollup Rss) +{}, {}; total VmRSS +{}{}. The seed's 10,000 x {touched} is {}, and it saw ~2.6 GiB. {verdict}",
        label(t, THREADS),
        span(r, &RSS_EXACT_PER_THREAD_KIB, t),
        shown(rss, Unit::Kib),
        pm(t, true),
        shown(exact, Unit::Kib),
        if exact.unstable {
            "unstable: no share of the touched size drawn".to_string()
        } else {
            format!("{:.0}% of the touched size", 100.0 * exact.median / touched_kib.max(1e-9))
        },
        bytes(total),
        pm(t, false),
        gib(seed_total_kib),
    );
    Some((finding, footnote))
}

/// A KiB figure in bytes as the findings print a total: "1.2 GiB" when it
/// settled, with its precision and mark ([`quoted`]) when it did not.
fn bytes(s: &Summary) -> String {
    if s.unstable {
        quoted(&scaled(s, 1024.0), Unit::Bytes)
    } else {
        fmt_value(s.median * 1024.0, Unit::Bytes)
    }
}

/// A figure's summary in another unit: every value of it times `k` (a
/// positive factor, so its order and its flags stay as they are).
fn scaled(s: &Summary, k: f64) -> Summary {
    let mut out = s.clone();
    for v in [
        &mut out.min,
        &mut out.max,
        &mut out.median,
        &mut out.mean,
        &mut out.p10,
        &mut out.p25,
        &mut out.p75,
        &mut out.p90,
        &mut out.p99,
        &mut out.stddev,
        &mut out.ci95_lo,
        &mut out.ci95_hi,
        &mut out.quantum,
    ] {
        *v *= k;
    }
    for v in out
        .within_ci95_lo
        .iter_mut()
        .chain(out.within_ci95_hi.iter_mut())
    {
        *v *= k;
    }
    for v in &mut out.round_medians {
        *v *= k;
    }
    // A flag's words quote the series' own figures: scaled with the rest,
    // so "6.68 KiB ! (two modes: ...)" names its modes per thread too, not
    // per 1,000 threads.
    match &mut out.unsettled {
        Some(Unsettled::TwoModes { low, high, .. }) => {
            *low *= k;
            *high *= k;
        }
        Some(Unsettled::Trend { first, last }) => {
            *first *= k;
            *last *= k;
        }
        None => {}
    }
    out
}

/// The resident slopes: the cost of one more thread, and whether the
/// per-thread figures agree across the counts measured. No R² for three
/// points.
fn growth(r: &ExperimentResult, fits: &[NamedFit]) -> Option<String> {
    let lines: Vec<String> = fits
        .iter()
        .filter(|x| x.labels.get(WHAT).is_some_and(|w| w == RESIDENT))
        .map(|x| {
            let v = x.labels.get(VARIANT).map_or("?", String::as_str);
            let c = counts(r, v);
            let verdict = match (agree(r, &RSS_EXACT_PER_THREAD_KIB, v), c.first(), c.last()) {
                (Some(true), Some(lo), Some(hi)) => {
                    format!(" (the per-thread figures agree within their intervals over {lo}–{hi} threads)")
                }
                (Some(false), _, Some(hi)) => format!(
                    " (the per-thread figures differ between counts, or a count did not settle, so they hold at {hi} threads)"
                ),
                _ => String::new(),
            };
            format!("{v} {}{verdict}", fmt_value(x.fit.slope, Unit::Kib))
        })
        .collect();
    let first = fits.first()?;
    (!lines.is_empty()).then(|| {
        format!(
            "each further thread adds, by the slope through {} thread counts: {}",
            first.fit.n,
            lines.join("; ")
        )
    })
}

/// The Summary's figures, picked by labels: a default-stack thread's
/// address space and exact resident memory at the largest count measured,
/// whatever their state.
struct Picks<'a> {
    /// The count, as its label.
    n: String,
    virt: Option<&'a Metric>,
    resident: Option<&'a Metric>,
}

fn picks(e: &ExperimentResult) -> Picks<'_> {
    let n = most_threads(e, DEFAULT.name);
    let at = [(VARIANT, DEFAULT.name), (THREADS, n.as_str())];
    Picks {
        virt: e.find(&VIRT_PER_THREAD_KIB, &at),
        resident: e.find(&RSS_EXACT_PER_THREAD_KIB, &at),
        n,
    }
}

/// The Summary's quantities: [`Picks`] in words.
pub fn headlines(e: &ExperimentResult) -> Vec<Headline> {
    let p = picks(e);
    [
        (p.virt, &VIRT_PER_THREAD_KIB, "a thread's address space"),
        (
            p.resident,
            &RSS_EXACT_PER_THREAD_KIB,
            "a thread's resident memory",
        ),
    ]
    .into_iter()
    .filter_map(|(m, spec, what)| Some(Headline::of(format!("{what} ({} threads)", p.n), spec, m?)))
    .collect()
}

/// The kernel's memory per thread beside the user memory, as the Summary
/// says it: the kernel stack (KernelStack), the page tables (the process's
/// own VmPTE) and the slab (Slab, system-wide), each quoted with its mark;
/// what a run did not measure is named as left out (issue 39 item 10).
fn kernel_per_thread(e: &ExperimentResult, at: &[(&str, &str)]) -> String {
    let summary = |spec: &MetricSpec, with: &[(&str, &str)]| e.find(spec, with).map(|m| &m.summary);
    let mut slab_at = at.to_vec();
    slab_at.push((MEMINFO, "Slab"));
    let parts = [
        (
            "kernel stack",
            summary(&KERNEL_STACK_PER_THREAD_KIB, at).cloned(),
        ),
        (
            "page tables (VmPTE)",
            summary(&PAGE_TABLES_PER_THREAD_BYTES, at).map(|s| scaled(s, 1.0 / 1024.0)),
        ),
        (
            "slab (Slab, system-wide)",
            summary(&KERNEL_KIB_PER_1000_THREADS, &slab_at).map(|s| scaled(s, 1.0 / 1000.0)),
        ),
    ];
    let have: Vec<String> = parts
        .iter()
        .filter_map(|(what, s)| Some(format!("{} of {what}", quoted(s.as_ref()?, Unit::Kib))))
        .collect();
    let missing: Vec<&str> = parts
        .iter()
        .filter(|(_, s)| s.is_none())
        .map(|(what, _)| what.split(" (").next().unwrap_or(what))
        .collect();
    let mut out = match have.len() {
        0 => String::new(),
        1 => format!(", plus {}", have[0]),
        k => format!(", plus {} and {}", have[..k - 1].join(", "), have[k - 1]),
    };
    if !missing.is_empty() && !have.is_empty() {
        out.push_str(&format!(
            " ({} not measured: left out)",
            missing.join(" and ")
        ));
    }
    out
}

/// What a blocked thread with the default stack reserves and keeps
/// ([`Picks`]; VmRSS's figure where the exact count is missing, and the
/// kernel's memory beside them: [`kernel_per_thread`]).
fn thread_memory_headline(e: &ExperimentResult) -> Option<String> {
    // One wording in every run: the figures at the largest count measured,
    // flagged or imprecise ones quoted with their mark.
    let p = picks(e);
    let n = p.n;
    let at = [(VARIANT, DEFAULT.name), (THREADS, n.as_str())];
    let virt = p.virt?;
    let stack = virt.label(STACK).unwrap_or("default");
    let (res, res_metric) = match p.resident {
        Some(m) => (&m.summary, &RSS_EXACT_PER_THREAD_KIB),
        None => (
            &e.find(&RSS_PER_THREAD_KIB, &at)?.summary,
            &RSS_PER_THREAD_KIB,
        ),
    };
    Some(format!(
        "a blocked thread with the {stack} default stack reserves {} of address space but keeps {}{} resident{} (at {n} threads{})",
        quoted(&virt.summary, Unit::Kib),
        quoted(res, Unit::Kib),
        // VmRSS (a file from before the exact count) carries its bound.
        if res_metric.name == RSS_PER_THREAD_KIB.name {
            rss::pm(rss::bound(e, &at), 2.0, n.parse().unwrap_or(1.0))
        } else {
            String::new()
        },
        kernel_per_thread(e, &at),
        if fewer_than_asked(e, &n).is_some() {
            ", fewer threads than asked"
        } else {
            ""
        },
    ))
}

#[path = "threads_kernel.rs"]
mod kernel;
use kernel::kernel_memory;
