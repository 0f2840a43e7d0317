//! The matrix from labelled runs: its columns grouped by hardware class,
//! the baseline first; one row per quantity, each cell the run's median
//! with its interval and, beside the baseline, the ratio with compare's
//! verdict and `mde` (the same `compare::compare` on the two runs); what
//! differs between the runs; and, for runs of one fingerprint, their
//! history in time.

use super::inputs::Input;
use super::rows::{self, Pick};
use crate::cli::Threshold;
use crate::compare::{self, pool, Row};
use crate::results::{Labels, RunResults, Unit};
use crate::stats::Verdict;
use serde::Serialize;
use std::collections::HashMap;

/// compare's default threshold: a verdict needs the whole interval beyond
/// ±5%.
pub const THRESHOLD: Threshold = Threshold::DEFAULT;

#[derive(Clone, Debug, Serialize)]
pub struct Column {
    pub label: String,
    pub source: String,
    pub class: String,
    /// The class's letter, A first (the baseline's).
    pub class_mark: char,
    pub started_unix_s: f64,
    pub run_id: Option<String>,
}

/// A cell's change against the baseline, as compare judges it.
#[derive(Clone, Debug, Serialize)]
pub struct Versus {
    /// NEW/BASE and its 95% interval.
    pub ratio: f64,
    pub lo: f64,
    pub hi: f64,
    pub verdict: Verdict,
    /// The smallest change it could have called, percent.
    pub mde_pct: f64,
    /// Why it is inconclusive, in a few words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
    /// The two runs are of different hardware classes.
    pub cross_class: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct Cell {
    pub median: f64,
    pub lo: f64,
    pub hi: f64,
    /// "!" flagged, "~" noisy, "" precise.
    pub mark: &'static str,
    /// None in the baseline's column and for a derived figure (a slope).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vs: Option<Versus>,
}

#[derive(Clone, Debug, Serialize)]
pub struct MatrixRow {
    #[serde(flatten)]
    pub pick: Pick,
    pub unit: Unit,
    /// One per column; None where that run did not measure it.
    pub cells: Vec<Option<Cell>>,
}

/// One fact that differs, its values with the columns that have each.
#[derive(Clone, Debug, Serialize)]
pub struct Differs {
    pub fact: String,
    pub values: Vec<(String, Vec<String>)>,
}

/// One step of a fingerprint's history: from one run to the next in time.
#[derive(Clone, Debug, Serialize)]
pub struct Step {
    pub from: String,
    pub to: String,
    /// Per matrix row: its change (None where either lacks it or it is
    /// derived).
    pub changes: Vec<Option<Versus>>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Matrix {
    pub schema: &'static str,
    pub threshold_pct: f64,
    pub baseline: String,
    pub columns: Vec<Column>,
    pub rows: Vec<MatrixRow>,
    /// The facts every run shares.
    pub same: Vec<(String, String)>,
    pub differs: Vec<Differs>,
    /// Per fingerprint with two runs or more, its steps in time.
    pub history: Vec<Vec<Step>>,
    pub notes: Vec<String>,
}

/// Builds the matrix; `baseline` a label of `inputs` (checked before).
pub fn build(inputs: &[Input], baseline: usize, all: bool) -> Matrix {
    // Columns: the baseline's class first, the classes in order of first
    // appearance, the baseline first in its class.
    let mut classes: Vec<String> = vec![inputs[baseline].run.hardware_class()];
    for i in inputs {
        let c = i.run.hardware_class();
        if !classes.contains(&c) {
            classes.push(c);
        }
    }
    let mut order: Vec<usize> = Vec::new();
    for c in &classes {
        if *c == classes[0] {
            order.push(baseline);
        }
        order.extend(
            (0..inputs.len()).filter(|&i| i != baseline && inputs[i].run.hardware_class() == *c),
        );
    }
    let runs: Vec<&RunResults> = order.iter().map(|&i| &inputs[i].run).collect();
    let columns: Vec<Column> = order
        .iter()
        .map(|&i| {
            let r = &inputs[i].run;
            let class = r.hardware_class();
            let k = classes.iter().position(|c| *c == class).unwrap_or(0);
            Column {
                label: inputs[i].label.clone(),
                source: inputs[i].source.clone(),
                class,
                class_mark: (b'A' + (k % 26) as u8) as char,
                started_unix_s: r.started_unix_s,
                run_id: r.run_id(),
            }
        })
        .collect();
    let picks = picks(&runs, all);
    let sides: Vec<pool::Side> = runs
        .iter()
        .zip(&columns)
        .map(|(r, c)| pool::side(std::slice::from_ref(*r), std::slice::from_ref(&c.label)))
        .collect();
    let judged = |b: usize, n: usize| {
        index(compare::compare(
            &sides[b],
            &sides[n],
            THRESHOLD.fraction(),
            1.0,
        ))
    };
    let against: Vec<Option<HashMap<Key, Row>>> = (0..runs.len())
        .map(|n| (n != 0).then(|| judged(0, n)))
        .collect();
    let rows = picks
        .into_iter()
        .filter_map(|p| {
            let unit = runs.iter().find_map(|r| p.find(r)).map(|m| m.unit)?;
            let cells = (0..runs.len())
                .map(|n| {
                    let vs = against[n]
                        .as_ref()
                        .and_then(|rows| versus(rows, &p, columns[0].class != columns[n].class));
                    cell(runs[n], &p, vs)
                })
                .collect();
            Some(MatrixRow {
                pick: p,
                unit,
                cells,
            })
        })
        .collect::<Vec<_>>();
    let (same, differs) = differences(&runs, &columns);
    let history = history(&runs, &columns, &rows, &judged);
    Matrix {
        schema: "tasklab-matrix",
        threshold_pct: THRESHOLD.pct(),
        baseline: columns[0].label.clone(),
        columns,
        rows,
        same,
        differs,
        history,
        notes: Vec::new(),
    }
}

/// The rows: the Summary's quantities as the baseline picks them (then
/// those only a later run has), and with `all` every shared series.
fn picks(runs: &[&RunResults], all: bool) -> Vec<Pick> {
    let mut v: Vec<Pick> = Vec::new();
    for r in runs {
        for p in rows::summary_picks(r) {
            if !v.iter().any(|q| q.name == p.name || same_series(q, &p)) {
                v.push(p);
            }
        }
    }
    if all {
        let more = rows::shared_picks(runs, &v);
        v.extend(more);
    }
    v
}

fn same_series(a: &Pick, b: &Pick) -> bool {
    a.experiment == b.experiment
        && a.metric == b.metric
        && a.labels == b.labels
        && a.slope_from == b.slope_from
}

type Key = (String, String, Labels);

fn index(rows: Vec<Row>) -> HashMap<Key, Row> {
    rows.into_iter()
        .map(|r| {
            (
                (r.experiment.clone(), r.metric.clone(), r.labels.clone()),
                r,
            )
        })
        .collect()
}

fn versus(rows: &HashMap<Key, Row>, p: &Pick, cross_class: bool) -> Option<Versus> {
    if p.slope_from.is_some() {
        return None;
    }
    let r = rows.get(&(p.experiment.clone(), p.metric.clone(), p.labels.clone()))?;
    Some(Versus {
        ratio: 1.0 + r.change / 100.0,
        lo: 1.0 + r.ci_lo / 100.0,
        hi: 1.0 + r.ci_hi / 100.0,
        verdict: r.verdict,
        mde_pct: r.mde,
        reason: r.reason().map(|x| x.short()),
        cross_class,
    })
}

/// A run's figure for a row ([`Pick::figure`]), with its comparison.
fn cell(r: &RunResults, p: &Pick, vs: Option<Versus>) -> Option<Cell> {
    let f = p.figure(r)?;
    Some(Cell {
        median: f.median,
        lo: f.lo,
        hi: f.hi,
        mark: f.mark,
        // A derived figure (a slope) is shown without a verdict.
        vs: if p.slope_from.is_some() { None } else { vs },
    })
}

/// The identity facts every run shares, and those that differ with the
/// columns of each value. The fingerprint's hash is named only when it is
/// all that differs (it sums up the others).
fn differences(runs: &[&RunResults], cols: &[Column]) -> (Vec<(String, String)>, Vec<Differs>) {
    let facts: Vec<Vec<(&'static str, String)>> = runs.iter().map(|r| r.identity_facts()).collect();
    let mut same = Vec::new();
    let mut differs = Vec::new();
    for (k, (name, first)) in facts[0].iter().enumerate() {
        let mut values: Vec<(String, Vec<String>)> = Vec::new();
        for (f, c) in facts.iter().zip(cols) {
            let v = f
                .get(k)
                .map_or(crate::results::UNKNOWN.to_string(), |x| x.1.clone());
            match values.iter_mut().find(|x| x.0 == v) {
                Some(x) => x.1.push(c.label.clone()),
                None => values.push((v, vec![c.label.clone()])),
            }
        }
        if values.len() == 1 {
            same.push((name.to_string(), first.clone()));
        } else {
            differs.push(Differs {
                fact: name.to_string(),
                values,
            });
        }
    }
    if differs.len() > 1 {
        differs.retain(|d| d.fact != "fingerprint");
    }
    (same, differs)
}

/// Runs of one fingerprint (the same identity facts) in time order, each
/// compared with the one before it.
fn history(
    runs: &[&RunResults],
    cols: &[Column],
    rows: &[MatrixRow],
    judged: &dyn Fn(usize, usize) -> HashMap<Key, Row>,
) -> Vec<Vec<Step>> {
    // (the fingerprint's facts, its runs)
    type Facts = Vec<(&'static str, String)>;
    let mut groups: Vec<(Facts, Vec<usize>)> = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        // One machine in one configuration, whichever tasklab measured it:
        // an upgrade of tasklab is a step of the history, not a new one.
        let f: Facts = r
            .identity_facts()
            .into_iter()
            .filter(|(k, _)| !matches!(*k, "build" | "tool_version" | "schema_version"))
            .collect();
        match groups.iter_mut().find(|g| g.0 == f) {
            Some(g) => g.1.push(i),
            None => groups.push((f, vec![i])),
        }
    }
    groups
        .into_iter()
        .filter(|g| g.1.len() > 1)
        .map(|(_, mut idx)| {
            idx.sort_by(|&a, &b| runs[a].started_unix_s.total_cmp(&runs[b].started_unix_s));
            idx.windows(2)
                .map(|w| {
                    let j = judged(w[0], w[1]);
                    Step {
                        from: cols[w[0]].label.clone(),
                        to: cols[w[1]].label.clone(),
                        changes: rows.iter().map(|r| versus(&j, &r.pick, false)).collect(),
                    }
                })
                .collect()
        })
        .collect()
}
