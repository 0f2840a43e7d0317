//! `run --why` in the parent: the workers' raw call chains named from
//! /proc/kallsyms, folded per series, and shared out per round, each share
//! with a 95% interval across rounds (`stats::rounds`: the rounds are the
//! unit, as for every other figure).
//!
//! A share is of the series' samples in its timed windows: user space and
//! the kernel add up to 1; a function's self share counts the samples whose
//! sampled address is in it (the self shares of all functions add up to the
//! kernel's share), its total share the samples it is anywhere on the
//! chain of (once per sample, however often it recurs), so no share is
//! above 1; an interval's bound, widened by the rounds' spread, may pass
//! 0 or 1 and is kept as computed.

use super::protocol::WorkerOutput;
use super::why::RawStacks;
use crate::results::why::{
    Attribution, FunctionShare, Overhead, PerRound, Share, FOLDED_KEPT, ROUND_FUNCTIONS_KEPT,
};
use crate::results::Labels;
use std::collections::{BTreeMap, HashMap};

/// The functions shown per series: the top ones by self share and the top
/// ones by total share, this many of each.
pub const TOP: usize = 8;
/// What a user-space sample folds to.
pub const USER_FRAME: &str = "[user]";

/// The kernel's text symbols, sorted by address.
pub struct Symbols {
    by_address: Vec<(u64, String)>,
}

impl Symbols {
    /// From the text of /proc/kallsyms ("ADDRESS TYPE NAME [MODULE]"): the
    /// text symbols (t, T, w, W), a module's named "name [module]".
    /// All-zero addresses (hidden by `kptr_restrict`) leave it empty.
    pub fn parse(text: &str) -> Symbols {
        let mut by_address: Vec<(u64, String)> = text
            .lines()
            .filter_map(|l| {
                let mut f = l.split_whitespace();
                let addr = u64::from_str_radix(f.next()?, 16).ok()?;
                let kind = f.next()?;
                let name = f.next()?;
                if addr == 0 || !matches!(kind, "t" | "T" | "w" | "W") {
                    return None;
                }
                Some((addr, name.to_string()))
            })
            .collect();
        by_address.sort();
        Symbols { by_address }
    }

    /// This machine's, read once per process.
    pub fn of_this_kernel() -> &'static Symbols {
        static SYMBOLS: std::sync::OnceLock<Symbols> = std::sync::OnceLock::new();
        SYMBOLS.get_or_init(|| {
            Symbols::parse(&crate::sys::procfs::kallsyms_text().unwrap_or_default())
        })
    }

    pub fn is_empty(&self) -> bool {
        self.by_address.is_empty()
    }

    /// The function `ip` is in: the symbol at the greatest address at or
    /// below it; its address in hex when none is.
    pub fn name(&self, ip: u64) -> String {
        let at = self.by_address.partition_point(|(a, _)| *a <= ip);
        match at.checked_sub(1) {
            Some(i) => self.by_address[i].1.clone(),
            None => format!("{ip:#x}"),
        }
    }
}

/// One round of one series, folded: names root first.
struct Folded {
    user: u64,
    total: u64,
    /// (frames root first, samples)
    kernel: Vec<(Vec<String>, u64)>,
}

fn fold(raw: &RawStacks, symbols: &Symbols) -> Folded {
    let kernel: Vec<(Vec<String>, u64)> = raw
        .kernel
        .iter()
        .map(|(ips, n)| (ips.iter().rev().map(|ip| symbols.name(*ip)).collect(), *n))
        .collect();
    let total = raw.user + kernel.iter().map(|(_, n)| n).sum::<u64>();
    Folded {
        user: raw.user,
        total,
        kernel,
    }
}

/// Each series' attribution from its rounds' raw stacks (`(round, stacks)`
/// in any order), series in the order they first appear.
pub fn attribute(rounds: &[(usize, RawStacks)], symbols: &Symbols) -> Vec<Attribution> {
    let mut order: Vec<&crate::results::Labels> = Vec::new();
    for (_, r) in rounds {
        if !order.contains(&&r.labels) {
            order.push(&r.labels);
        }
    }
    order
        .into_iter()
        .filter_map(|labels| {
            // A series measured twice in a round (passes) is one round.
            let mut per_round: BTreeMap<usize, RawStacks> = BTreeMap::new();
            // The rounds in the order they first came, as a series keeps
            // its rounds (`run::summarise`).
            let mut came: Vec<usize> = Vec::new();
            for (round, r) in rounds.iter().filter(|(_, r)| &r.labels == labels) {
                if !came.contains(round) {
                    came.push(*round);
                }
                let e = per_round.entry(*round).or_insert_with(|| RawStacks {
                    labels: labels.clone(),
                    ..RawStacks::default()
                });
                e.user += r.user;
                e.lost += r.lost;
                e.kernel.extend(r.kernel.iter().cloned());
            }
            let folded: Vec<Folded> = per_round.values().map(|r| fold(r, symbols)).collect();
            let lost = per_round.values().map(|r| r.lost).sum();
            let ids: Vec<usize> = per_round.keys().copied().collect();
            let in_order: Vec<(usize, &Folded)> = came
                .iter()
                .filter_map(|id| Some((*id, &folded[ids.binary_search(id).ok()?])))
                .collect();
            let counts = round_counts(&in_order);
            series(labels, &folded, lost).map(|a| Attribution {
                per_round: Some(counts),
                ..a
            })
        })
        .collect()
}

/// A share across rounds, pooled (`stats::share`): every round's count over
/// every round's samples, its interval the wider of the samples' own
/// (Wilson's) and the rounds' spread (t on the log-odds scale): an
/// interval of a share by its form, never clamped (issue 39).
pub(crate) fn share(per_round: &[(u64, u64)]) -> Share {
    match crate::stats::share::pooled_share(per_round) {
        Some(s) => Share {
            share: s.share,
            lo: s.lo,
            hi: s.hi,
        },
        None => Share::default(),
    }
}

fn series(labels: &crate::results::Labels, rounds: &[Folded], lost: u64) -> Option<Attribution> {
    let rounds: Vec<&Folded> = rounds.iter().filter(|f| f.total > 0).collect();
    if rounds.is_empty() {
        return None;
    }
    // Per round: each function's self and total samples.
    let counted: Vec<Pair> = rounds
        .iter()
        .map(|f| {
            let (mut own, mut total) = (HashMap::new(), HashMap::new());
            for (frames, n) in &f.kernel {
                if let Some(leaf) = frames.last() {
                    *own.entry(leaf.as_str()).or_insert(0) += n;
                }
                let mut seen: Vec<&str> = frames.iter().map(String::as_str).collect();
                seen.sort_unstable();
                seen.dedup();
                for name in seen {
                    *total.entry(name).or_insert(0) += n;
                }
            }
            (own, total)
        })
        .collect();
    type Pair<'a> = (HashMap<&'a str, u64>, HashMap<&'a str, u64>);
    fn pooled<'a>(counted: &[Pair<'a>], total: bool) -> Vec<(&'a str, u64)> {
        let mut sum: HashMap<&str, u64> = HashMap::new();
        for c in counted {
            for (k, v) in if total { &c.1 } else { &c.0 } {
                *sum.entry(k).or_insert(0) += v;
            }
        }
        let mut v: Vec<(&str, u64)> = sum.into_iter().collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        v
    }
    let mut names: Vec<&str> = pooled(&counted, false)
        .into_iter()
        .take(TOP)
        .map(|x| x.0)
        .collect();
    for (n, _) in pooled(&counted, true).into_iter().take(TOP) {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    let of = |counts: &dyn Fn(usize) -> u64| -> Vec<(u64, u64)> {
        (0..rounds.len())
            .map(|i| (counts(i), rounds[i].total))
            .collect()
    };
    let functions = names
        .iter()
        .map(|name| FunctionShare {
            function: name.to_string(),
            self_share: share(&of(&|i| *counted[i].0.get(name).unwrap_or(&0))),
            total: share(&of(&|i| *counted[i].1.get(name).unwrap_or(&0))),
        })
        .collect();
    let samples: u64 = rounds.iter().map(|f| f.total).sum();
    Some(Attribution {
        labels: labels.clone(),
        rounds: rounds.len(),
        samples,
        lost,
        user: share(&of(&|i| rounds[i].user)),
        kernel: share(&of(&|i| rounds[i].total - rounds[i].user)),
        functions,
        folded: folded_lines(&rounds),
        per_round: None,
        overhead: Vec::new(),
    })
}

/// Each round's samples, user-space ones and the self samples of the
/// functions with the most of them pooled ([`ROUND_FUNCTIONS_KEPT`]), the
/// rounds in the order given (a round with no sample kept).
fn round_counts(rounds: &[(usize, &Folded)]) -> PerRound {
    fn own(f: &Folded) -> HashMap<&str, u64> {
        let mut m: HashMap<&str, u64> = HashMap::new();
        for (frames, n) in &f.kernel {
            if let Some(leaf) = frames.last() {
                *m.entry(leaf.as_str()).or_insert(0) += n;
            }
        }
        m
    }
    let each: Vec<HashMap<&str, u64>> = rounds.iter().map(|(_, f)| own(f)).collect();
    let mut pooled: HashMap<&str, u64> = HashMap::new();
    for m in &each {
        for (k, v) in m {
            *pooled.entry(k).or_insert(0) += v;
        }
    }
    let mut names: Vec<(&str, u64)> = pooled.into_iter().collect();
    names.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    names.truncate(ROUND_FUNCTIONS_KEPT);
    PerRound {
        round: rounds.iter().map(|(id, _)| *id).collect(),
        samples: rounds.iter().map(|(_, f)| f.total).collect(),
        user: rounds.iter().map(|(_, f)| f.user).collect(),
        functions: names
            .into_iter()
            .map(|(name, _)| {
                let per: Vec<u64> = each.iter().map(|m| *m.get(name).unwrap_or(&0)).collect();
                (name.to_string(), per)
            })
            .collect(),
    }
}

/// The stacks pooled over the rounds, `a;b;c COUNT` form (root first),
/// the heaviest [`FOLDED_KEPT`].
fn folded_lines(rounds: &[&Folded]) -> Vec<(String, u64)> {
    let mut sum: HashMap<String, u64> = HashMap::new();
    for f in rounds {
        if f.user > 0 {
            *sum.entry(USER_FRAME.to_string()).or_insert(0) += f.user;
        }
        for (frames, n) in &f.kernel {
            *sum.entry(frames.join(";")).or_insert(0) += n;
        }
    }
    let mut v: Vec<(String, u64)> = sum.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v.truncate(FOLDED_KEPT);
    v
}

/// Rounds as `(point, round, what the worker sent)`.
pub type Rounds = [(usize, usize, WorkerOutput)];

/// Each series' median per round: (point, name, labels) -> round -> median
/// of its samples in that round.
fn round_medians(rounds: &Rounds) -> BTreeMap<(usize, &str, &Labels), BTreeMap<usize, f64>> {
    let mut samples: BTreeMap<(usize, &str, &Labels), BTreeMap<usize, Vec<f64>>> = BTreeMap::new();
    for (point, round, out) in rounds {
        for s in &out.series {
            samples
                .entry((*point, s.name.as_str(), &s.labels))
                .or_default()
                .entry(*round)
                .or_default()
                .extend(&s.samples);
        }
    }
    samples
        .into_iter()
        .map(|(k, by_round)| {
            let m = by_round
                .into_iter()
                .filter_map(|(r, v)| Some((r, crate::stats::median(&v)?)))
                .collect();
            (k, m)
        })
        .collect()
}

/// What sampling cost each series of the sampled rounds: its unsampled
/// rounds (`plain`) against their sampled twins (`sampled`), paired by
/// round (`stats::paired::paired_change`, as `tasklab ab` pairs its sides).
/// A series an attribution covers gets its cost there; the costs of the
/// others (windows sampled in every twin round that took no sample, holding
/// too little CPU time to catch one) are returned, since the events were on
/// in those rounds all the same. A series with fewer than
/// `stats::paired::MIN_PAIRS` pairs gets none.
pub fn overheads(
    attributions: &mut [Attribution],
    plain: &Rounds,
    sampled: &Rounds,
    seed: u64,
) -> Vec<Overhead> {
    let (a, b) = (round_medians(plain), round_medians(sampled));
    let mut unsampled = Vec::new();
    for ((point, name, labels), twins) in &b {
        let Some(own) = a.get(&(*point, *name, *labels)) else {
            continue;
        };
        let (xs, ys): (Vec<f64>, Vec<f64>) = twins
            .iter()
            .filter_map(|(r, y)| Some((*own.get(r)?, *y)))
            .unzip();
        let seed = crate::stats::seed_for(&format!("{seed}/{name}/{labels:?}"));
        let Some(c) = crate::stats::paired::paired_change(&xs, &ys, seed) else {
            continue;
        };
        let cost = Overhead {
            metric: name.to_string(),
            labels: (*labels).clone(),
            pairs: xs.len(),
            ratio: c.ratio,
            lo: c.lo,
            hi: c.hi,
        };
        match attributions.iter_mut().find(|x| x.covers(labels)) {
            Some(at) => at.overhead.push(cost),
            None => unsampled.push(cost),
        }
    }
    unsampled
}

#[cfg(test)]
#[path = "attribution_tests.rs"]
mod tests;
