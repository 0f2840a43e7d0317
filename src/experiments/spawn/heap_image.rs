//! spawn.heap's image variant: fork+reap of the worker as it is, with M
//! extra one-page mappings (each written once, kept apart so the kernel
//! cannot merge them), and with F extra open descriptors (dups of
//! /dev/null). fork copies every mapping (VMA) and the descriptor table,
//! and the child's exit tears them down, so each adds a cost the page
//! tables (VmPTE) do not show. The slopes (ns per extra mapping, per extra
//! descriptor) are what `tasklab predict` prices a process's mappings and
//! descriptors with. Its own series names (`image_*`) keep it out of the
//! heap's fits and charts.

use super::engine::{Launch, Launcher};
use super::heap_fit::{per_unit, PerPage};
use super::table;
use crate::experiments::prelude::*;
use crate::measure::sampler::{events, interleave, Budget, PASSES};
use crate::metric::key::METHOD;
use crate::sys;
use crate::sys::procfs;
use std::fs::File;
use std::io;

/// fork's return to the parent and fork+reap, with the extras.
pub const IMAGE_PARENT_RETURN_NS: MetricSpec = MetricSpec::new(
    "image_parent_return_ns",
    Unit::Ns,
    Better::Lower,
    Kind::Creation,
    "fork's return to the parent, with no extra, extra one-page mappings or extra open descriptors",
);
pub const IMAGE_LIFECYCLE_NS: MetricSpec = MetricSpec::new(
    "image_lifecycle_ns",
    Unit::Ns,
    Better::Lower,
    Kind::Creation,
    "fork+reap, with no extra, extra one-page mappings or extra open descriptors",
);
/// The worker's own mappings and descriptors before any extra: the
/// baseline the slopes start from.
pub const IMAGE_WORKER_MAPPINGS: MetricSpec = MetricSpec::new(
    "image_worker_mappings",
    Unit::Count,
    Better::Neither,
    Kind::Memory,
    "the worker's own mappings before any extra is made",
);
pub const IMAGE_WORKER_FDS: MetricSpec = MetricSpec::new(
    "image_worker_fds",
    Unit::Count,
    Better::Neither,
    Kind::Memory,
    "the worker's own open descriptors before any extra is opened",
);

/// Which extra a series had (`none`, `mappings`, `fds`), and how many.
pub const EXTRA: LabelKey = "extra";
pub const COUNT: LabelKey = "count";

/// Mappings a worker may make of its own beyond those counted when the run
/// is planned (its threads' stacks, the launcher's pages).
const MAP_MARGIN: u64 = 1_000;
/// Descriptors a worker may hold beyond those of the planning process.
const FD_MARGIN: u64 = 64;

/// Why `want` extra mappings do not fit under `vm.max_map_count` in a
/// worker that maps about `have` of its own; None when they fit.
pub fn mappings_short(max_map_count: Option<u64>, have: u64, want: u64) -> Option<String> {
    let used = have + MAP_MARGIN;
    short_of(max_map_count, used, want, |max, room| {
        format!(
            "{want} extra mappings do not fit: vm.max_map_count is {max} and a worker maps about {used} of its own (largest allowed here: {room})"
        )
    })
}

/// `say(limit, room)` when `want` more do not fit in the room `limit`
/// leaves beside `used`; None when they fit or there is no limit.
fn short_of(
    limit: Option<u64>,
    used: u64,
    want: u64,
    say: impl FnOnce(u64, u64) -> String,
) -> Option<String> {
    let max = limit?;
    let room = max.saturating_sub(used);
    (want > room).then(|| say(max, room))
}

/// Why `want` extra descriptors do not fit under the soft RLIMIT_NOFILE
/// with `open` already open; None when they fit or there is no limit.
pub fn fds_short(soft_limit: Option<u64>, open: u64, want: u64) -> Option<String> {
    let used = open + FD_MARGIN;
    short_of(soft_limit, used, want, |max, room| {
        format!(
            "{want} extra descriptors do not fit: the open-files limit (RLIMIT_NOFILE, ulimit -n) is {max} and a worker holds about {used} of its own (largest allowed here: {room}); raise it with ulimit -n"
        )
    })
}

pub const EXTRA_MAPPINGS_PARAM: Param<u64> = Param::number(ParamSpec {
        name: "extra_mappings",
        help: "extra one-page private mappings (each written once, kept apart so none merge) for the image series",
        kind: ParamKind::Count { min: 1, max: 60_000 },
        quick: "1000",
        thorough: "2000",
    });

pub const EXTRA_FDS_PARAM: Param<u64> = Param::number(ParamSpec {
        name: "extra_fds",
        help: "extra open descriptors (dups of /dev/null) for the image series; must fit under the open-files limit (ulimit -n)",
        kind: ParamKind::Count { min: 1, max: 1_000_000 },
        quick: "1000",
        thorough: "1000",
    });

/// The extra mappings and descriptors of the image point, if any extra
/// fits. Checked against this machine's limits before anything is measured:
/// a count the user set that does not fit is an error, a default one is
/// dropped with a note.
pub fn extras(ctx: &PlanCtx, notes: &mut Vec<String>) -> Result<Option<(u64, u64)>, String> {
    let mut fit = |param: &Param<u64>, short: Option<String>, want: u64| match short {
        None => Ok(want),
        Some(why) if ctx.set_by_user(param) => Err(why),
        Some(why) => {
            notes.push(format!("{why}; that series was dropped"));
            Ok(0)
        }
    };
    let want_maps = ctx.params.get(&EXTRA_MAPPINGS_PARAM);
    let have_maps = procfs::self_maps().unwrap_or(0);
    let maps = fit(
        &EXTRA_MAPPINGS_PARAM,
        mappings_short(ctx.env.limits.max_map_count, have_maps, want_maps),
        want_maps,
    )?;
    let want_fds = ctx.params.get(&EXTRA_FDS_PARAM);
    let soft = sys::rlimit(sys::Resource::Nofile).ok().and_then(|l| l.0);
    let open = procfs::fds_of(std::process::id()).unwrap_or(0);
    let fds = fit(&EXTRA_FDS_PARAM, fds_short(soft, open, want_fds), want_fds)?;
    Ok((maps > 0 || fds > 0).then_some((maps, fds)))
}

/// What one series adds to the worker.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Extra {
    None,
    Mappings(u64),
    Fds(u64),
}

impl Extra {
    fn kind(&self) -> &'static str {
        match self {
            Extra::None => "none",
            Extra::Mappings(_) => "mappings",
            Extra::Fds(_) => "fds",
        }
    }

    fn count(&self) -> u64 {
        match self {
            Extra::None => 0,
            Extra::Mappings(n) | Extra::Fds(n) => *n,
        }
    }

    /// Makes the extras; they last as long as what is returned.
    fn make(&self) -> io::Result<(Option<sys::ScatteredPages>, Vec<File>)> {
        match *self {
            Extra::None => Ok((None, Vec::new())),
            Extra::Mappings(n) => Ok((Some(sys::ScatteredPages::new(n as usize)?), Vec::new())),
            Extra::Fds(n) => {
                let first = File::open("/dev/null")?;
                let mut files = Vec::with_capacity(n as usize);
                for _ in 1..n {
                    files.push(first.try_clone()?);
                }
                files.push(first);
                Ok((None, files))
            }
        }
    }
}

/// fork+reap with no extra, with the extra mappings and with the extra
/// descriptors, taking turns a share of the budget at a time; each turn
/// makes its extras and drops them after.
pub fn measure(job: &Job, mappings: u64, fds: u64) -> anyhow::Result<WorkerOutput> {
    let l = Launcher::new(job.scratch.as_deref(), job.timer_overhead_ns)?;
    let fork = &table::FORK;
    let mut out = WorkerOutput::default();
    // One CPU, as the heap points: a child never pays for waking the other.
    let allowed = sys::allowed_cpus()?;
    sys::pin_current_thread(&allowed[..1.min(allowed.len())])?;
    if let Some(maps) = procfs::self_maps() {
        out.reading(&IMAGE_WORKER_MAPPINGS, Labels::new(), maps as f64);
    }
    if let Ok(fds) = procfs::fds_of(std::process::id()) {
        out.reading(&IMAGE_WORKER_FDS, Labels::new(), fds as f64);
    }
    let mut items = vec![Extra::None];
    if mappings > 0 {
        items.push(Extra::Mappings(mappings));
    }
    if fds > 0 {
        items.push(Extra::Fds(fds));
    }
    let share = Budget::from_job(job).split(PASSES);
    let measured = interleave(&items, PASSES, job.seed, |x| {
        let what = || format!("fork with {} extra {}", x.count(), x.kind());
        let _held = x.make().map_err(|e| anyhow::anyhow!("{}: {e}", what()))?;
        events(&share, 2, || l.launch(fork)).map_err(|e| anyhow::anyhow!("{}: {e}", what()))
    })?;
    for (x, passes) in items.iter().zip(measured) {
        let launches = passes.concat();
        let with = labels(&[
            (METHOD, table::FORK.name()),
            (EXTRA, x.kind()),
            (COUNT, &x.count().to_string()),
        ]);
        let col = |f: fn(&Launch) -> f64| launches.iter().map(f).collect::<Vec<f64>>();
        out.push(
            &IMAGE_PARENT_RETURN_NS,
            with.clone(),
            col(|x| x.parent_return_ns),
        );
        out.push(&IMAGE_LIFECYCLE_NS, with, col(|x| x.lifecycle_ns));
    }
    Ok(out)
}

/// What one kind of extra adds to fork, from `metric`'s series with no
/// extra and with `kind` (mappings or fds), both settled.
pub struct Slope<'a> {
    pub count: u64,
    pub without: &'a Summary,
    pub with: &'a Summary,
    /// ns per extra one, with the interval the two series' intervals allow.
    pub per: PerPage,
}

pub fn slope<'a>(r: &'a ExperimentResult, metric: &MetricSpec, kind: &str) -> Option<Slope<'a>> {
    let without = r.settled(metric, &[(METHOD, table::FORK.name()), (EXTRA, "none")])?;
    let m = r.find(metric, &[(METHOD, table::FORK.name()), (EXTRA, kind)])?;
    if m.summary.unstable {
        return None;
    }
    let count = m.label_num(COUNT)?;
    Some(Slope {
        count,
        without,
        with: &m.summary,
        per: per_unit(without, &m.summary, count as f64)?,
    })
}

/// One finding for the extras, with fixed subjects (issue 39 item 9): each
/// kind measured, with what it adds to fork+reap and to fork's return, a
/// difference stated only when the intervals are apart, a figure that did
/// not settle quoted with its mark and told apart from nothing.
pub fn findings(r: &ExperimentResult) -> Vec<String> {
    let mut parts = Vec::new();
    // (count, with, without), settled or not.
    let sides = |metric: &MetricSpec, kind: &str| {
        let without = r.find(metric, &[(METHOD, table::FORK.name()), (EXTRA, "none")])?;
        let m = r.find(metric, &[(METHOD, table::FORK.name()), (EXTRA, kind)])?;
        Some((m.label_num(COUNT)?, &m.summary, &without.summary))
    };
    let clause = |metric: &MetricSpec, kind: &str, target: &str| {
        match sides(metric, kind) {
        None => format!("nothing measured to {target}"),
        Some((_, with, without)) if with.unstable || without.unstable => {
            format!("nothing told apart to {target} (a figure did not settle)")
        }
        Some(_) => match slope(r, metric, kind) {
            Some(s) if !apart(s.with, s.without) => {
                format!("nothing told apart to {target} (the intervals overlap)")
            }
            Some(s) if s.per.ns >= 0.0 && s.count > 0 => format!("{} to {target}", s.per.text()),
            Some(_) => format!(
                "nothing to {target} that copying could explain: it was faster with them, so something else changed between the series"
            ),
            None => format!("nothing told apart to {target} (no interval)"),
        },
    }
    };
    for (kind, one, many) in [
        ("mappings", "one-page mapping", "mappings"),
        ("fds", "open descriptor", "descriptors"),
    ] {
        let Some((count, with, without)) = sides(&IMAGE_LIFECYCLE_NS, kind) else {
            continue;
        };
        let n = group_digits(count as i64);
        parts.push(format!(
            "each extra {one} adds {} and {} (fork+reap {} with {n} extra {many}, {} without)",
            clause(&IMAGE_LIFECYCLE_NS, kind, "fork+reap"),
            clause(&IMAGE_PARENT_RETURN_NS, kind, "fork's return to the parent"),
            shown(with, Unit::Ns),
            shown(without, Unit::Ns)
        ));
    }
    if parts.is_empty() {
        return Vec::new();
    }
    vec![format!(
        "what extras add to fork, which copies every mapping and the descriptor table (the child's exit tears them down): {}",
        parts.join("; ")
    )]
}
