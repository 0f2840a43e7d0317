//! A comparison's families: an experiment at one point (its series share
//! the rounds, the workers and the host's state while they ran). Per
//! family: the run-to-run noise its rows hold (`stats::noise::family_noise`),
//! the false discovery rate across families (`stats::fdr`), and, for a
//! regression, whether the same series moved the same way at the
//! experiment's other points (consistent) or at this point alone
//! (isolated).

use super::pool::Series;
use super::verdict::{Reason, Row};
use crate::results::Better;
use crate::stats::{fdr, memstate, noise, Verdict};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// The key a series' run-to-run noise is pooled by: its family and its
/// unit. The host's state over minutes moves a family's times together,
/// not its sizes or counts, so each unit is pooled on its own.
pub fn noise_key(s: &Series) -> (String, crate::units::Unit) {
    (s.family(), s.unit)
}

/// Each family's run-to-run noise per unit (`stats::noise::FamilyNoise`),
/// from the series both sides share.
pub fn noise_of(
    pairs: &[(&Series, &Series)],
) -> BTreeMap<(String, crate::units::Unit), noise::FamilyNoise> {
    #[derive(Default)]
    struct Acc {
        calibrated: Vec<noise::Calibrated>,
        between: Vec<(f64, f64, f64)>,
    }
    let mut fams: BTreeMap<(String, crate::units::Unit), Acc> = BTreeMap::new();
    for (b, n) in pairs {
        let acc = fams.entry(noise_key(n)).or_default();
        if let Some(c) = n.band.or(b.band) {
            acc.calibrated.push(c);
        }
        for s in [b, n] {
            let runs: Vec<(f64, f64)> = s.runs.iter().map(|r| (r.ln_median, r.se2)).collect();
            if let (Some((v, df)), Some(sp)) = (noise::between_runs(&runs), spread_of(s)) {
                acc.between.push((v, df, sp));
            }
        }
    }
    fams.into_iter()
        .map(|(k, a)| (k, noise::family_noise(&a.calibrated, &a.between)))
        .collect()
}

/// Whether a series' row may hold the host's memory state: a figure
/// better one way of an experiment whose timed work touches memory
/// (`Experiment::memory_work`).
pub fn memory_heavy(s: &Series) -> bool {
    matches!(s.better, Better::Lower | Better::Higher)
        && crate::experiments::find(&s.experiment).is_some_and(|e| e.memory_work)
}

/// A canary a family's rows may hold the host's state by
/// (`stats::memstate`): its rounds' readings in each series, its shift
/// between the sides, and which families hold it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Covariate {
    /// The first touch of fresh memory per 4 KiB page: the host's memory
    /// state. Held by the memory-heavy families ([`memory_heavy`]).
    FreshPage,
    /// A bare system call: the machine's speed. Held by the families of an
    /// experiment whose rounds follow it (`stats::memstate::follows`, the
    /// experiment's families pooled), in the runs compared, each at that
    /// pooled sensitivity: the one the rule tested.
    Syscall,
}

impl Covariate {
    /// Every covariate, in the order their terms are added.
    pub const ALL: [Covariate; 2] = [Covariate::FreshPage, Covariate::Syscall];

    /// A series' canary at each of its rounds, in logs, one list per run.
    fn rounds(self, s: &Series) -> &[Vec<f64>] {
        match self {
            Covariate::FreshPage => &s.canary_ln,
            Covariate::Syscall => &s.syscall_ln,
        }
    }

    /// The canary's shift from `base` to `new`, in logs (0 when a side
    /// lacks it).
    pub fn shift(self, base: &super::pool::Side, new: &super::pool::Side) -> f64 {
        let (b, n) = match self {
            Covariate::FreshPage => (base.memory_canary_ln, new.memory_canary_ln),
            Covariate::Syscall => (base.syscall_canary_ln, new.syscall_canary_ln),
        };
        n.zip(b).map_or(0.0, |(n, b)| n - b)
    }

    /// Whether a series' row may hold the canary at all: a figure better
    /// one way, of an experiment whose work touches memory for the memory
    /// canary.
    pub fn may_hold(self, s: &Series) -> bool {
        match self {
            Covariate::FreshPage => memory_heavy(s),
            Covariate::Syscall => matches!(s.better, Better::Lower | Better::Higher),
        }
    }

    /// Whether an experiment whose families pooled have the sensitivity
    /// `pooled` (None: not estimated) holds the canary: always for the
    /// memory canary (its families are declared), only when its rounds
    /// follow it for the system call's.
    fn held(self, pooled: Option<&memstate::Sensitivity>) -> bool {
        match self {
            Covariate::FreshPage => true,
            Covariate::Syscall => pooled.is_some_and(memstate::follows),
        }
    }

    /// Whether a family holds its experiment's pooled sensitivity rather
    /// than its own: for the system call's canary, whose rule tests the
    /// experiment's (a family's own, from 3 to 13 rounds a run, can be
    /// wild where the experiment's is not: docs/REPEATABILITY.md
    /// "Session 20").
    fn pooled(self) -> bool {
        matches!(self, Covariate::Syscall)
    }
}

/// Each family's sensitivity to canary `cov` per unit
/// (`stats::memstate::sensitivity`), from the rounds of every run of both
/// sides: per run, the round medians of its series better one way (a
/// rate's negated, so that up is dearer) against the run's canary; for the
/// system call's canary, its experiment's, the families pooled. Only the
/// families that hold it ([`Covariate`]): an experiment whose rounds do not
/// follow the system call's canary gets no entry.
pub fn sensitivities(
    pairs: &[(&Series, &Series)],
    cov: Covariate,
) -> BTreeMap<(String, crate::units::Unit), memstate::Sensitivity> {
    // (family and unit, side, run) -> (the canary, each series' rounds)
    type Run = (Vec<f64>, Vec<Vec<f64>>);
    type Key = ((String, crate::units::Unit), usize, usize);
    let mut runs: BTreeMap<Key, Run> = BTreeMap::new();
    // each family's experiment
    let mut experiment: BTreeMap<(String, crate::units::Unit), String> = BTreeMap::new();
    for (b, n) in pairs
        .iter()
        .filter(|(b, n)| cov.may_hold(b) && cov.may_hold(n))
    {
        experiment
            .entry(noise_key(n))
            .or_insert_with(|| n.experiment.clone());
        for (side, s) in [b, n].into_iter().enumerate() {
            let sign = if s.better == Better::Higher {
                -1.0
            } else {
                1.0
            };
            for (k, (canary, rounds)) in cov.rounds(s).iter().zip(&s.rounds_ln).enumerate() {
                if canary.is_empty() || canary.len() != rounds.len() {
                    continue;
                }
                let run = runs
                    .entry((noise_key(n), side, k))
                    .or_insert_with(|| (canary.clone(), Vec::new()));
                if run.0 == *canary {
                    run.1.push(rounds.iter().map(|y| sign * y).collect());
                }
            }
        }
    }
    let fit = |runs: &[&Run]| {
        let runs: Vec<memstate::FamilyRun> = runs
            .iter()
            .map(|r| memstate::FamilyRun {
                canary: &r.0,
                series: r.1.iter().map(Vec::as_slice).collect(),
            })
            .collect();
        memstate::sensitivity(&runs)
    };
    let mut fams: BTreeMap<(String, crate::units::Unit), Vec<&Run>> = BTreeMap::new();
    for ((key, _, _), run) in &runs {
        fams.entry(key.clone()).or_default().push(run);
    }
    // Each experiment (per unit) with its families pooled: each family's
    // run a unit of its own, its mean taken out.
    let mut pooled: BTreeMap<(String, crate::units::Unit), Vec<&Run>> = BTreeMap::new();
    for (key, runs) in &fams {
        let e = experiment.get(key).cloned().unwrap_or_default();
        pooled.entry((e, key.1)).or_default().extend(runs);
    }
    let pooled: BTreeMap<(String, crate::units::Unit), Option<memstate::Sensitivity>> = pooled
        .iter()
        .map(|(k, runs)| (k.clone(), fit(runs)))
        .collect();
    fams.into_iter()
        .filter_map(|(key, runs)| {
            let e = experiment.get(&key).cloned().unwrap_or_default();
            let of_experiment = pooled.get(&(e, key.1)).copied().flatten();
            if !cov.held(of_experiment.as_ref()) {
                return None;
            }
            let s = if cov.pooled() {
                of_experiment?
            } else {
                fit(&runs)?
            };
            Some((key, s))
        })
        .collect()
}

/// A series' spread over its rounds (`stats::noise::spread2`), the mean
/// over its runs; None when no run has two rounds.
pub fn spread_of(s: &Series) -> Option<f64> {
    (!s.spread2.is_empty()).then(|| s.spread2.iter().sum::<f64>() / s.spread2.len() as f64)
}

/// What the false discovery rate did to a comparison.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Discoveries {
    /// The level asked (`--fdr`), in percent.
    pub q_pct: f64,
    /// Families compared, and those selected (holding a discovery).
    pub families: usize,
    pub selected: usize,
    /// Rows whose interval lay beyond the threshold on their own but that
    /// were not discoveries.
    pub not_discovered: usize,
}

/// Controls the false discovery rate across the families of `rows` at
/// `q` (0.05 = 5%): a row called improved, regressed or changed by its own
/// interval keeps its verdict only when it is a discovery
/// (`fdr::by_families`); else it becomes inconclusive, and says why.
pub fn control(rows: &mut [Row], q: f64) -> Discoveries {
    let mut index: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, r) in rows.iter().enumerate() {
        index.entry(r.family.as_str()).or_default().push(i);
    }
    let groups: Vec<Vec<usize>> = index.into_values().collect();
    let ps: Vec<Vec<f64>> = groups
        .iter()
        .map(|g| g.iter().map(|&i| rows[i].p).collect())
        .collect();
    let picked = fdr::by_families(&ps, q);
    let families = groups.len();
    let selected = picked.iter().filter(|(s, _)| *s).count();
    let mut not_discovered = 0;
    for (g, (_, found)) in groups.iter().zip(&picked) {
        for (&i, &found) in g.iter().zip(found) {
            let r = &mut rows[i];
            let called = matches!(
                r.verdict,
                Verdict::Improved | Verdict::Regressed | Verdict::Changed
            );
            if called && !found {
                not_discovered += 1;
                r.verdict = Verdict::Inconclusive;
                let narrow = (super::next::Narrow::NotWidth, f64::NAN);
                r.inconclusive = Some(super::verdict::Inconclusive {
                    reason: Reason::NotDiscovered,
                    why: format!(
                        "its interval lies beyond the threshold, but at p = {} it is not a discovery once the false discovery rate across {families} families is held to {:.0}% (an experiment at one point is a family)",
                        p_words(r.p),
                        q * 100.0
                    ),
                    next: super::next::step(
                        Reason::NotDiscovered,
                        narrow.0,
                        &Default::default(),
                        narrow.1,
                    ),
                    narrow,
                });
            }
        }
    }
    Discoveries {
        q_pct: q * 100.0,
        families,
        selected,
        not_discovered,
    }
}

/// A p-value in words: "0.003", "< 0.0001".
pub fn p_words(p: f64) -> String {
    if !p.is_finite() {
        "n/a".into()
    } else if p < 1e-4 {
        "< 0.0001".into()
    } else {
        format!("{p:.4}")
    }
}

/// The label keys of `rows`' experiment that name its point: each takes
/// one value within a family and more than one across them. Only rows
/// whose files record their point are read: without it, a key that names
/// a series (a clock, a method) cannot be told from one that names a point.
fn point_keys(rows: &[&Row]) -> BTreeSet<String> {
    let rows: Vec<&&Row> = rows.iter().filter(|r| r.point.is_some()).collect();
    let mut at: BTreeMap<&str, BTreeMap<&str, BTreeSet<&str>>> = BTreeMap::new();
    for r in rows {
        for (k, v) in &r.labels {
            at.entry(k.as_str())
                .or_default()
                .entry(r.family.as_str())
                .or_default()
                .insert(v.as_str());
        }
    }
    at.into_iter()
        .filter(|(_, by_family)| {
            let one_each = by_family.values().all(|v| v.len() == 1);
            let values: BTreeSet<&&str> = by_family.values().flatten().collect();
            one_each && values.len() > 1
        })
        .map(|(k, _)| k.to_string())
        .collect()
}

/// The point keys grouped into dimensions: keys that name one dimension
/// twice (a heap size in words and in bytes) co-vary one to one across the
/// families, and are freed together.
fn dimensions(rows: &[&Row], keys: &BTreeSet<String>) -> Vec<BTreeSet<String>> {
    // each family's value of each key
    let mut at: BTreeMap<&str, BTreeMap<&str, &str>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.point.is_some()) {
        for (k, v) in r.labels.iter().filter(|(k, _)| keys.contains(*k)) {
            at.entry(k.as_str())
                .or_default()
                .insert(r.family.as_str(), v.as_str());
        }
    }
    // one to one: the pairs of values seen are as many as each key's values
    let together = |a: &str, b: &str| {
        let (Some(x), Some(y)) = (at.get(a), at.get(b)) else {
            return false;
        };
        let pairs: BTreeSet<(&str, &str)> = x
            .iter()
            .filter_map(|(f, v)| y.get(f).map(|w| (*v, *w)))
            .collect();
        let xs: BTreeSet<&str> = pairs.iter().map(|p| p.0).collect();
        let ys: BTreeSet<&str> = pairs.iter().map(|p| p.1).collect();
        !pairs.is_empty() && pairs.len() == xs.len() && pairs.len() == ys.len()
    };
    let mut dims: Vec<BTreeSet<String>> = Vec::new();
    for k in keys {
        match dims.iter_mut().find(|d| d.iter().all(|j| together(j, k))) {
            Some(d) => {
                d.insert(k.clone());
            }
            None => dims.push(BTreeSet::from([k.clone()])),
        }
    }
    dims
}

/// The share of an experiment's points a regression must move the same
/// way at to be consistent (2/3).
pub const SAME_WAY: f64 = 2.0 / 3.0;

/// Marks each regressed row consistent or isolated. Along each of the
/// experiment's point dimensions in turn (a heap size, a THP setting: the
/// other point labels held where the row's are), the same series (the
/// same metric and labels but for the point's) is consistent when it
/// moved, in the median over those points, by at least the threshold the
/// way it regressed, and at least [`SAME_WAY`] of those points moved that
/// way (their change's interval excludes no change: a noisy point whose
/// estimate drifted did not move). A row consistent along any dimension is
/// consistent; isolated otherwise (one point jumped while its neighbours
/// held). Keys that name one dimension twice (a heap in words and in
/// bytes) are freed together. An experiment of one point is consistent
/// with itself, and so is a series measured at one of its points alone,
/// and a row from files that do not record its point (nothing to hold it
/// against).
pub fn consistency(rows: &mut [Row], threshold: f64) {
    let by_exp: BTreeMap<String, Vec<usize>> =
        rows.iter()
            .enumerate()
            .fold(BTreeMap::new(), |mut m, (i, r)| {
                m.entry(r.experiment.clone()).or_default().push(i);
                m
            });
    let t = threshold.max(0.0);
    for idx in by_exp.values() {
        let exp_rows: Vec<&Row> = idx.iter().map(|&i| &rows[i]).collect();
        let keys = point_keys(&exp_rows);
        let dims = dimensions(&exp_rows, &keys);
        // Each row's labels but the dimension `free`'s: its line along it.
        let line_of = |r: &Row, free: &BTreeSet<String>| -> (String, Vec<(String, String)>) {
            (
                r.metric.clone(),
                r.labels
                    .iter()
                    .filter(|(k, _)| !free.contains(*k))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            )
        };
        let mut marks = Vec::new();
        for &i in idx {
            let r = &rows[i];
            if r.verdict != Verdict::Regressed {
                continue;
            }
            if r.point.is_none() {
                marks.push((i, true));
                continue;
            }
            // worse is up for a cost, down for a rate: sign the changes so
            // that the regression's way is positive, against the bound the
            // verdict holds that way
            let up = r.change >= 0.0;
            let (way, bound) = if up {
                (1.0, (1.0 + t).ln())
            } else {
                (-1.0, -(1.0 - t).max(f64::MIN_POSITIVE).ln())
            };
            // (whether the line had two points or more, whether it holds)
            let lines: Vec<(bool, bool)> = dims
                .iter()
                .map(|free| {
                    let id = line_of(r, free);
                    // (the change the way it regressed, in logs; whether its
                    // interval excludes no change that way)
                    let moves: Vec<(f64, bool)> = idx
                        .iter()
                        .map(|&j| &rows[j])
                        .filter(|x| x.point.is_some() && line_of(x, free) == id)
                        .map(|x| {
                            let moved = if up { x.ci_lo > 0.0 } else { x.ci_hi < 0.0 };
                            (way * (1.0 + x.change / 100.0).ln(), moved)
                        })
                        .filter(|x| x.0.is_finite())
                        .collect();
                    let same = moves.iter().filter(|m| m.1).count();
                    let logs: Vec<f64> = moves.iter().map(|m| m.0).collect();
                    let median = crate::stats::median(&logs).unwrap_or(f64::NAN);
                    let holds = median >= bound && same as f64 >= SAME_WAY * logs.len() as f64;
                    (logs.len() >= 2, holds)
                })
                .collect();
            // A series measured at one point of its experiment alone (or an
            // experiment of one point) has nothing to be held against.
            let checked: Vec<bool> = lines.iter().filter(|l| l.0).map(|l| l.1).collect();
            let ok = checked.is_empty() || checked.iter().any(|h| *h);
            marks.push((i, ok));
        }
        for (i, ok) in marks {
            rows[i].consistent = Some(ok);
        }
    }
}

#[cfg(test)]
#[path = "family_tests.rs"]
mod tests;
