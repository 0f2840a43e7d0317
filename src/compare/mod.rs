//! `tasklab compare BASE.json… [--vs NEW.json…]`: what changed between runs.
//!
//! The environments first (a kernel, CPU, THP mode or hypervisor change
//! explains more than any single figure), each side's busy, partial or
//! failed state, how far the machine's speed moved (a fact, never a veto),
//! and the common-mode line when the whole machine moved. Then, per series
//! present on both sides, the ratio of medians NEW/BASE with a 95% interval
//! from both sides' round-aware intervals (several files on a side are runs,
//! a level of the interval). A series is regressed or improved only when the
//! whole interval lies beyond the threshold the user asked (never raised) in
//! the direction its experiment declares; unchanged only when it lies wholly
//! within it; inconclusive otherwise, with the reason and the next step.
//! Every row carries its minimum detectable change. The exit status is 1
//! only for a regression.

pub mod common;
pub mod family;
pub mod fit;
pub mod gate;
pub mod memory;
pub mod next;
pub mod noise;
pub mod pool;
pub mod render;
pub mod verdict;
pub mod why;

use crate::error::UsageError;
use crate::results::RunResults;
use crate::stats::Verdict;
use common::CommonMode;
pub use memory::{memory_state, MachineCanary, MemoryCanary};
use pool::{Series, Side};
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
pub use verdict::{Reason, Row};

#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// (what, base, new)
    pub env_differences: Vec<(String, String, String)>,
    pub base_files: Vec<String>,
    pub new_files: Vec<String>,
    /// Partial runs, failed experiments, busy machines on each side.
    pub base_status: Vec<String>,
    pub new_status: Vec<String>,
    pub rows: Vec<Row>,
    pub only_in_base: usize,
    pub only_in_new: usize,
    /// What one side lacks of the other, in one line, when it lacks
    /// anything ([`missing`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing: Option<String>,
    /// The threshold asked for (`--threshold`), which every verdict uses.
    pub threshold_pct: f64,
    /// The files (runs) on each side.
    pub base_runs: usize,
    pub new_runs: usize,
    /// How the whole new side moved against the base, where enough series
    /// are shared to tell ([`common::estimate`]).
    pub common_mode: Option<CommonMode>,
    /// The verdicts are given with the common factor divided out.
    pub relative: bool,
    /// How many rows could see a change of 10% (`mde` at most 10), of the
    /// rows with an `mde`; and the median `mde` in percent.
    pub see_10pct: usize,
    pub with_mde: usize,
    pub median_mde: Option<f64>,
    /// How far the machine's speed moved within each side, in percent (the
    /// canary's 10th to 90th percentile over its rounds): a fact.
    pub base_drift_pct: Option<f64>,
    pub new_drift_pct: Option<f64>,
    /// Each side's canary median (a bare system call, ns): the machine's own
    /// speed. Shown, never used to judge: a kernel that slows system calls
    /// moves it as much as a slower host does.
    pub base_canary_ns: Option<f64>,
    pub new_canary_ns: Option<f64>,
    /// The calibrated noise the intervals were widened by, when a noise
    /// file matched (`--noise`, or the cache's for the base's machine).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub noise: Option<NoiseUse>,
    /// The Summary's quantities the new side measured that both sides
    /// share, in the Summary's order: each name and its row's index.
    pub summary: Vec<SummaryRow>,
    /// What the false discovery rate across families did.
    pub discoveries: family::Discoveries,
    /// `--strict`: an isolated regression fails the exit status too.
    pub strict: bool,
    /// What each family's run-to-run noise rests on: (basis, families), the
    /// most common first; and the median noise over families, in percent.
    pub noise_bases: Vec<(crate::stats::noise::Basis, usize)>,
    pub median_run_noise_pct: Option<f64>,
    /// The host's memory state in the rows: the memory canary on each side
    /// and what its shift added to the memory-heavy rows (null when a side
    /// lacks the canary).
    pub memory_canary: Option<MemoryCanary>,
    /// The machine's speed in the rows: the system call's canary on each
    /// side and what its shift added to the rows of the experiments whose
    /// rounds follow it (null when a side lacks the canary).
    pub machine_canary: Option<MachineCanary>,
    /// What the sides allow as next steps (runs, profile, busy machine).
    #[serde(skip)]
    pub setting: next::Setting,
    /// Each changed row's difference of attributions (`--why` runs).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub why: Vec<why::WhyRow>,
}

/// One of the Summary's quantities in a comparison: its name, as its
/// experiment declares it (`experiments::headline`), and the index of its
/// row.
#[derive(Debug, Clone, Serialize)]
pub struct SummaryRow {
    pub name: String,
    pub row: usize,
}

/// The Summary's quantities of `run` among `rows`, in the Summary's order
/// (a slope between two heaps is not a row: its two series are).
pub fn summary_rows(run: &RunResults, rows: &[Row]) -> Vec<SummaryRow> {
    crate::experiments::summary_quantities(run)
        .into_iter()
        .filter(|q| q.headline.slope.is_none())
        .filter_map(|q| {
            let h = q.headline;
            let row = rows.iter().position(|r| {
                r.experiment == q.experiment && r.metric == h.spec.name && r.labels == h.labels
            })?;
            Some(SummaryRow { name: h.name, row })
        })
        .collect()
}

/// What the header says of the noise file used.
#[derive(Debug, Clone, Serialize)]
pub struct NoiseUse {
    pub path: String,
    /// Found in the private cache, not named with `--noise`.
    pub from_cache: bool,
    pub fingerprint: String,
    /// The runs it was learned from, and when.
    pub runs: usize,
    pub created_unix_s: f64,
    /// The rows whose series it has a band for.
    pub rows: usize,
    /// How the new side's machine differs from the calibrated one (empty:
    /// the same machine).
    pub new_machine_differs: Vec<String>,
}

impl Comparison {
    /// What two sides (each with its files' names), the number of series
    /// they share and the rows give; no environment differences, common
    /// mode or noise file, which a caller that has them sets.
    pub fn of(
        (bs, bn): (&Side, Vec<String>),
        (ns, nn): (&Side, Vec<String>),
        shared: usize,
        rows: Vec<Row>,
        threshold_pct: f64,
    ) -> Comparison {
        let (see_10pct, with_mde, median_mde) = resolution(&rows);
        let (noise_bases, median_run_noise_pct) = bases(&rows);
        let memory_canary = MemoryCanary::of(bs, ns, &rows);
        let machine_canary = MachineCanary::of(bs, ns, &rows);
        Comparison {
            env_differences: Vec::new(),
            base_files: bn,
            new_files: nn,
            base_status: bs.status.clone(),
            new_status: ns.status.clone(),
            // A side holds each series once: what is not shared is its own.
            only_in_base: bs.series.len() - shared,
            only_in_new: ns.series.len() - shared,
            missing: missing(bs, ns, shared),
            threshold_pct,
            base_runs: bs.runs,
            new_runs: ns.runs,
            common_mode: None,
            relative: false,
            see_10pct,
            with_mde,
            median_mde,
            rows,
            base_drift_pct: bs.drift.map(|d| d * 100.0),
            new_drift_pct: ns.drift.map(|d| d * 100.0),
            base_canary_ns: bs.canary_ns,
            new_canary_ns: ns.canary_ns,
            noise: None,
            summary: Vec::new(),
            discoveries: family::Discoveries::default(),
            strict: false,
            noise_bases,
            median_run_noise_pct,
            memory_canary,
            machine_canary,
            setting: pool::setting(bs, ns),
            why: Vec::new(),
        }
    }

    /// The regressed rows, split: those consistent across the experiment's
    /// points, and the isolated ones.
    pub fn regressions(&self) -> (Vec<&Row>, Vec<&Row>) {
        self.rows
            .iter()
            .filter(|r| r.verdict == Verdict::Regressed)
            .partition(|r| r.consistent != Some(false))
    }

    /// Whether the exit status is 1 for a regression: a consistent one, or
    /// any with `--strict`.
    pub fn fails(&self) -> bool {
        let (consistent, isolated) = self.regressions();
        !consistent.is_empty() || (self.strict && !isolated.is_empty())
    }

    pub fn count(&self, v: Verdict) -> usize {
        self.rows.iter().filter(|r| r.verdict == v).count()
    }

    /// How many inconclusive rows each reason holds, the most common first.
    pub fn inconclusive_reasons(&self) -> Vec<(Reason, usize)> {
        let mut out: Vec<(Reason, usize)> = Vec::new();
        for why in self.rows.iter().filter_map(Row::reason) {
            match out.iter_mut().find(|(w, _)| *w == why) {
                Some((_, n)) => *n += 1,
                None => out.push((why, 1)),
            }
        }
        out.sort_by_key(|r| std::cmp::Reverse(r.1));
        out
    }
}

/// The environment facts whose difference explains a difference of figures.
pub fn env_differences(base: &RunResults, new: &RunResults) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let (b, n) = (&base.env, &new.env);
    let mut diff = |what: &str, x: String, y: String| {
        if x != y {
            out.push((what.to_string(), x, y));
        }
    };
    let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "none".into());
    diff("kernel", b.kernel.clone(), n.kernel.clone());
    diff("CPU", b.cpu_model.clone(), n.cpu_model.clone());
    diff(
        "CPUs online",
        b.cpus_online.to_string(),
        n.cpus_online.to_string(),
    );
    diff(
        "virtualisation",
        opt(&b.virtualization),
        opt(&n.virtualization),
    );
    diff("container", opt(&b.container), opt(&n.container));
    diff("THP", opt(&b.thp_enabled), opt(&n.thp_enabled));
    diff("THP defrag", opt(&b.thp_defrag), opt(&n.thp_defrag));
    let mitigations = |e: &crate::env::Env| {
        e.mitigations
            .iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect::<Vec<_>>()
            .join("; ")
    };
    diff("mitigations", mitigations(b), mitigations(n));
    diff("clock source", opt(&b.clocksource), opt(&n.clocksource));
    diff("preemption", opt(&b.preempt), opt(&n.preempt));
    // A file from before DAMON was recorded says nothing of it.
    if let (Some(x), Some(y)) = (&b.facts.damon, &n.facts.damon) {
        diff("DAMON", x.words(), y.words());
    }
    if let (Some(x), Some(y)) = (&b.facts.page_reporting, &n.facts.page_reporting) {
        let known = x.min_free_ms.is_some() && y.min_free_ms.is_some();
        diff("page reporting", x.settings(known), y.settings(known));
    }
    diff("profile", base.profile.clone(), new.profile.clone());
    diff(
        "rounds",
        base.rounds.max(1).to_string(),
        new.rounds.max(1).to_string(),
    );
    let mhz = |x: f64| format!("{x:.0} MHz");
    if let (Some(x), Some(y)) = (base.calibration.measured_mhz, new.calibration.measured_mhz) {
        if (x / y - 1.0).abs() > 0.05 {
            diff("measured clock", mhz(x), mhz(y));
        }
    }
    out.extend(base.build_difference(new));
    out
}

#[cfg(test)]
#[path = "memory_tests.rs"]
mod memory_tests;

#[cfg(test)]
#[path = "memstate_tests.rs"]
mod memstate_tests;

/// What each side lacks of the other, in one line: whole experiments, then
/// series of shared experiments (a partial experiment's failed points), and
/// how many series were compared of all either side has. None when both
/// sides hold the same series.
pub fn missing(base: &Side, new: &Side, shared: usize) -> Option<String> {
    let total = base.series.len() + new.series.len() - shared;
    if shared == total {
        return None;
    }
    let mut parts = Vec::new();
    for (lacker, has, l, h) in [("new", "base", new, base), ("base", "new", base, new)] {
        let keys: std::collections::HashSet<Key> = l.series.iter().map(key).collect();
        let exps: std::collections::HashSet<&str> =
            l.series.iter().map(|s| s.experiment.as_str()).collect();
        // Experiments `h` has series of and `l` lacks, in `h`'s order, with
        // how many series of each.
        let mut whole: Vec<(&str, usize)> = Vec::new();
        let mut some: Vec<(&str, usize)> = Vec::new();
        for s in h.series.iter().filter(|s| !keys.contains(&key(s))) {
            let list = if exps.contains(s.experiment.as_str()) {
                &mut some
            } else {
                &mut whole
            };
            match list.iter_mut().find(|(e, _)| *e == s.experiment) {
                Some((_, n)) => *n += 1,
                None => list.push((&s.experiment, 1)),
            }
        }
        let why = |e: &str| {
            l.partial
                .iter()
                .find(|(x, _)| x == e)
                .map_or(String::new(), |(_, w)| format!(" ({w})"))
        };
        let named = |list: &[(&str, usize)], series: bool| {
            list.iter()
                .map(|(e, n)| {
                    let count = if series {
                        format!("{n} series of ")
                    } else {
                        String::new()
                    };
                    format!("{count}{e}{}", why(e))
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut lacks = Vec::new();
        if !whole.is_empty() {
            let n = whole.len();
            let word = if n == 1 { "experiment" } else { "experiments" };
            lacks.push(format!("{n} {word} of {has}: {}", named(&whole, false)));
        }
        if !some.is_empty() {
            lacks.push(named(&some, true));
        }
        if !lacks.is_empty() {
            parts.push(format!("{lacker} lacks {}", lacks.join("; and ")));
        }
    }
    Some(format!(
        "{}; compared {shared} of {total} series",
        parts.join("; ")
    ))
}

/// A series' key: experiment, metric and labels.
type Key<'a> = (&'a str, &'a str, &'a crate::results::Labels);

fn key(s: &Series) -> Key<'_> {
    (&s.experiment, &s.metric, &s.labels)
}

/// The series both sides have, as (base, new) pairs in the new side's
/// order: one hash lookup each, so a comparison is linear in the series.
pub fn pairs<'a>(base: &'a Side, new: &'a Side) -> Vec<(&'a Series, &'a Series)> {
    let index: HashMap<Key, &Series> = base.series.iter().map(|b| (key(b), b)).collect();
    new.series
        .iter()
        .filter_map(|n| index.get(&key(n)).map(|b| (*b, n)))
        .collect()
}

/// Compares two sides at `threshold` (0.05 = 5%), never raised, with the
/// false discovery rate at the default level. With `factor` other than 1,
/// each directional series' change is given with that common move divided
/// out (`--relative`).
pub fn compare(base: &Side, new: &Side, threshold: f64, factor: f64) -> Vec<Row> {
    compare_at(base, new, threshold, factor, crate::cli::FDR_PCT / 100.0).0
}

/// [`compare`] with the false discovery rate at `q` (0.05 = 5%): the rows,
/// each regressed one marked consistent or isolated
/// (`family::consistency`), and what the rate did.
pub fn compare_at(
    base: &Side,
    new: &Side,
    threshold: f64,
    factor: f64,
    q: f64,
) -> (Vec<Row>, family::Discoveries) {
    // Different THP settings explain a huge-page difference: the
    // environment lines say so, and the verdict stands.
    let same_thp = base.thp == new.thp;
    let setting = pool::setting(base, new);
    let shared = pairs(base, new);
    let noise = family::noise_of(&shared);
    // The host's state: each family's sensitivity to each canary it holds
    // (the memory canary, the system call's), times the canary's shift
    // between the sides.
    let held: Vec<_> = family::Covariate::ALL
        .iter()
        .map(|&c| (family::sensitivities(&shared, c), c.shift(base, new)))
        .collect();
    let mut rows: Vec<Row> = shared
        .into_iter()
        .map(|p| {
            use crate::stats::noise::{self, FamilyNoise};
            let family = noise
                .get(&family::noise_key(p.1))
                .copied()
                .unwrap_or(FamilyNoise::PRIOR);
            // each series' own: its calibration moderated by its family's
            // (never wider than its spread gives without it), or the
            // family's share of its spread (both sides')
            let spread = match (family::spread_of(p.0), family::spread_of(p.1)) {
                (Some(a), Some(b)) => Some((a + b) / 2.0),
                (a, b) => a.or(b),
            };
            let tau = noise::series_noise(family, p.1.band.or(p.0.band), spread);
            // each covariate's term, in the order of `Covariate::ALL`
            // (sensitivities holds only the families that hold it)
            let terms: Vec<f64> = family::Covariate::ALL
                .iter()
                .zip(&held)
                .map(
                    |(c, (fams, shift))| match fams.get(&family::noise_key(p.1)) {
                        Some(s) if c.may_hold(p.0) && c.may_hold(p.1) => {
                            crate::stats::memstate::extra_variance(s, *shift)
                        }
                        _ => 0.0,
                    },
                )
                .collect();
            verdict::row(
                p,
                threshold,
                &setting,
                factor,
                same_thp,
                tau,
                (terms[0], terms[1]),
            )
        })
        .collect();
    let found = family::control(&mut rows, q);
    family::consistency(&mut rows, threshold);
    (rows, found)
}

/// Why a series was measured under different conditions on the two sides
/// although the THP setting is the same: the kernel found huge pages for
/// one side's memory and not for the other's (fragmentation, not the code).
pub(crate) fn huge_pages_differ(b: &Series, n: &Series) -> Option<String> {
    let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
    let (x, y) = (mean(&b.huge_kib)?, mean(&n.huge_kib)?);
    let apart = (x - y).abs() > (0.1 * x.max(y)).max(4096.0);
    apart.then(|| {
        format!(
            "measured under other conditions: {} of its memory on huge pages in base, {} in new, with the same THP setting (the kernel found huge pages for one and not the other)",
            crate::units::fmt_size((x * 1024.0) as u64),
            crate::units::fmt_size((y * 1024.0) as u64)
        )
    })
}

/// What `tasklab compare` was asked.
pub struct Args<'a> {
    /// `compare A.json B.json`, or the base files with `--vs`.
    pub files: &'a [PathBuf],
    pub vs: &'a [PathBuf],
    /// `--threshold`, in range by its type.
    pub threshold: crate::cli::Threshold,
    pub json: bool,
    pub all: bool,
    /// Verdicts with the common factor divided out.
    pub relative: bool,
    /// A noise file (`tasklab calibrate`) to widen the intervals by.
    pub noise: Option<&'a Path>,
    /// Use no noise file, not even the cache's.
    pub no_noise: bool,
    /// `--baseline NAME`: the baseline against `files` (at most one; default the latest run).
    pub baseline: Option<&'a str>,
    /// `--fail-on-inconclusive`, `--min-verdicts`, `--strict`, `--fdr`.
    pub gate: crate::cli::GateArgs,
}

/// The A/B results file's side, as `compare` reads it: `FILE:a` or
/// `FILE:b` names a side of an A/B file.
fn split_side(path: &Path) -> Option<(PathBuf, crate::stats::paired::Side)> {
    let s = path.to_str()?;
    let (file, side) = s.rsplit_once(':')?;
    let side = match side {
        "a" | "A" => crate::stats::paired::Side::A,
        "b" | "B" => crate::stats::paired::Side::B,
        _ => return None,
    };
    Some((PathBuf::from(file), side))
}

/// Reads a results file for `compare`: a plain run as it is, one side of an
/// A/B file when the path names it (`FILE:a`); an A/B file without a side
/// is refused with how to name one.
pub fn read_for_compare(path: &Path) -> anyhow::Result<RunResults> {
    if !path.exists() {
        if let Some((file, side)) = split_side(path) {
            let r = RunResults::read(&file)?;
            if r.ab.is_none() {
                return Err(UsageError(format!(
                    "{}: not an A/B file, so it has no side {}",
                    file.display(),
                    side.name()
                ))
                .into());
            }
            return Ok(r.side(side));
        }
    }
    plain(path, RunResults::read(path)?)
}

/// `r`, read from `path`, when it is a plain run; an A/B file without a
/// side is refused with how to name one.
fn plain(path: &Path, r: RunResults) -> anyhow::Result<RunResults> {
    if r.ab.is_some() {
        return Err(UsageError(format!(
            "{} holds both sides of an A/B run: name one, {}:a or {}:b",
            path.display(),
            path.display(),
            path.display()
        ))
        .into());
    }
    Ok(r)
}

/// Every run the paths hold, with its name: a merged file (`tasklab
/// merge`) gives each of its runs, named "FILE (run i)".
fn read_all(paths: &[PathBuf]) -> anyhow::Result<(Vec<RunResults>, Vec<String>)> {
    let usage = |e: anyhow::Error| -> anyhow::Error { UsageError(format!("{e:#}")).into() };
    let mut runs = Vec::new();
    let mut names = Vec::new();
    for p in paths {
        if !p.exists() {
            // FILE:a or FILE:b, one side of an A/B file.
            runs.push(read_for_compare(p).map_err(usage)?);
            names.push(p.display().to_string());
            continue;
        }
        let (held, merged) = crate::results::merged::read_file(p).map_err(usage)?;
        if merged {
            for (i, r) in held.into_iter().enumerate() {
                if r.ab.is_some() {
                    return Err(UsageError(format!(
                        "{} (run {}) is an A/B run: compare takes plain runs from a merged file",
                        p.display(),
                        i + 1
                    ))
                    .into());
                }
                runs.push(r);
                names.push(format!("{} (run {})", p.display(), i + 1));
            }
        } else {
            for r in held {
                runs.push(plain(p, r).map_err(usage)?);
                names.push(p.display().to_string());
            }
        }
    }
    Ok((runs, names))
}

/// Two sides compared, with everything the header says.
pub fn comparison(
    (base, bn): (&[RunResults], Vec<String>),
    (new, nn): (&[RunResults], Vec<String>),
    threshold_pct: f64,
    relative: bool,
    noise: Option<&noise::Noise>,
) -> Result<Comparison, UsageError> {
    comparison_at(
        (base, bn),
        (new, nn),
        threshold_pct,
        relative,
        noise,
        crate::cli::FDR_PCT / 100.0,
    )
}

/// [`comparison`] with the false discovery rate at `q` (0.05 = 5%).
pub fn comparison_at(
    (base, bn): (&[RunResults], Vec<String>),
    (new, nn): (&[RunResults], Vec<String>),
    threshold_pct: f64,
    relative: bool,
    noise: Option<&noise::Noise>,
    q: f64,
) -> Result<Comparison, UsageError> {
    let bands =
        |e: &str, m: &str, l: &crate::results::Labels| noise.and_then(|n| n.calibrated(e, m, l));
    let bs = pool::side_with(base, &bn, &bands);
    let ns = pool::side_with(new, &nn, &bands);
    let shared = pairs(&bs, &ns);
    if shared.is_empty() {
        return Err(UsageError(format!(
            "{} and {} have no series in common: nothing to compare",
            bn.join(", "),
            nn.join(", ")
        )));
    }
    let canary = bs
        .canary_ns
        .zip(ns.canary_ns)
        .map(|(b, n)| n / b)
        .filter(|x| x.is_finite());
    let common_mode = common::estimate(&shared, canary);
    if relative && common_mode.is_none() {
        return Err(UsageError(format!(
            "--relative needs at least {} shared series that are better one way to estimate the machine's common move; these files share {}",
            common::MIN_SERIES,
            common::directional(&shared)
        )));
    }
    let factor = if relative {
        common_mode.map_or(1.0, |c| c.factor)
    } else {
        1.0
    };
    let (rows, discoveries) = compare_at(&bs, &ns, threshold_pct / 100.0, factor, q);
    let noise = noise.map(|n| NoiseUse {
        path: n.path.display().to_string(),
        from_cache: n.from_cache,
        fingerprint: n.file.fingerprint.hash.clone(),
        runs: n.file.runs,
        created_unix_s: n.file.created_unix_s,
        rows: rows
            .iter()
            .filter(|r| n.band(&r.experiment, &r.metric, &r.labels).is_some())
            .count(),
        new_machine_differs: n
            .file
            .fingerprint
            .differences(&new[0].env.machine_fingerprint()),
    });
    let summary = summary_rows(&new[0], &rows);
    Ok(Comparison {
        summary,
        env_differences: [env_differences(&base[0], &new[0]), memory_state(base, new)].concat(),
        common_mode,
        relative,
        noise,
        discoveries,
        why: why::of_runs(base, new, &rows),
        ..Comparison::of((&bs, bn), (&ns, nn), shared.len(), rows, threshold_pct)
    })
}

/// The noise file to widen the intervals by: the one named (which must
/// be of the base files' machine), else the cache's for that machine
/// unless `--no-noise`; none when the base files come from several
/// machines and none was named.
pub fn noise_for(
    base: &[RunResults],
    named: Option<&Path>,
    no_noise: bool,
) -> Result<Option<noise::Noise>, UsageError> {
    let mut fps: Vec<crate::env::Fingerprint> =
        base.iter().map(|r| r.env.machine_fingerprint()).collect();
    fps.sort_by(|a, b| a.hash.cmp(&b.hash));
    fps.dedup_by(|a, b| a.hash == b.hash);
    match named {
        Some(path) => {
            let n = noise::read(path)?;
            if let [one] = &fps[..] {
                n.check_machine(one, "the base files")?;
            } else if let Some(other) = fps.iter().find(|f| f.hash != n.file.fingerprint.hash) {
                n.check_machine(other, "one of the base files")?;
            }
            Ok(Some(n))
        }
        None if no_noise => Ok(None),
        None => match &fps[..] {
            [one] => noise::from_cache(one),
            _ => Ok(None),
        },
    }
}

/// What the families' run-to-run noise rests on, by family and unit (each
/// counted once), and the median noise in percent.
pub fn bases(rows: &[Row]) -> (Vec<(crate::stats::noise::Basis, usize)>, Option<f64>) {
    // each family and unit once: the noise is pooled by both
    let mut seen = std::collections::BTreeMap::new();
    for r in rows {
        seen.entry((r.family.as_str(), r.unit))
            .or_insert((r.noise_basis, r.run_noise_pct));
    }
    let mut out: Vec<(crate::stats::noise::Basis, usize)> = Vec::new();
    for (b, _) in seen.values() {
        match out.iter_mut().find(|(x, _)| x == b) {
            Some((_, n)) => *n += 1,
            None => out.push((*b, 1)),
        }
    }
    out.sort_by_key(|x| std::cmp::Reverse(x.1));
    let pcts: Vec<f64> = seen
        .values()
        .map(|x| x.1)
        .filter(|x| x.is_finite())
        .collect();
    (out, crate::stats::median(&pcts))
}

/// What the rows could see: how many could see a change of 10% (`mde` at
/// most 10), of how many with an `mde`, and the median `mde` in percent.
pub fn resolution(rows: &[Row]) -> (usize, usize, Option<f64>) {
    let mdes: Vec<f64> = rows
        .iter()
        .map(|r| r.mde)
        .filter(|m| m.is_finite())
        .collect();
    (
        mdes.iter().filter(|m| **m <= 10.0).count(),
        mdes.len(),
        crate::stats::median(&mdes),
    )
}

/// The `compare` command. Exit status: 0 nothing regressed, 1 something
/// regressed beyond the threshold (for CI jobs), 2 bad input.
pub fn run(a: &Args) -> anyhow::Result<ExitCode> {
    gate::check(&a.gate)?;
    let pair = match a.baseline {
        Some(name) => crate::baseline::compare_files(name, a.files)?,
        None => Vec::new(),
    };
    let files = if a.baseline.is_some() { &pair } else { a.files };
    let (base_paths, new_paths): (&[PathBuf], &[PathBuf]) = if a.vs.is_empty() {
        match files {
            [b, n] => (std::slice::from_ref(b), std::slice::from_ref(n)),
            _ => {
                return Err(UsageError(
                    "compare takes two files (BASE.json NEW.json), or several per side: A1.json A2.json --vs B1.json B2.json".into(),
                )
                .into())
            }
        }
    } else {
        (a.files, a.vs)
    };
    let (base, base_names) = read_all(base_paths)?;
    let (new, new_names) = read_all(new_paths)?;
    let noise = noise_for(&base, a.noise, a.no_noise)?;
    let mut c = comparison_at(
        (&base, base_names),
        (&new, new_names),
        a.threshold.pct(),
        a.relative,
        noise.as_ref(),
        a.gate.fdr / 100.0,
    )?;
    c.strict = a.gate.strict;
    if a.json {
        crate::error::out(&format!("{}\n", serde_json::to_string_pretty(&c)?))?;
    } else {
        crate::error::out(&render::render(&c, a.all))?;
    }
    if let Some(why) = gate::failed(&a.gate, &c) {
        eprintln!("tasklab: {why}");
        return Ok(ExitCode::from(1));
    }
    Ok(if c.fails() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests;
