//! The A/B verdicts: per series, the change from side A to side B measured
//! by pairs of rounds that ran next to each other (`stats::paired`), judged
//! by `compare`'s rules (`compare::verdict::judged`), and the words.

use crate::compare::pool::{self, Series};
use crate::compare::{self, next::Setting, render, verdict::judged, Comparison};
use crate::report::AbDrawn;
use crate::results::ab::{specs_text, Spec};
use crate::results::{Labels, Metric, RunResults};
use crate::stats::paired::{paired_change, Side};
use crate::stats::Verdict;
use std::collections::HashMap;

type Key<'a> = (&'a str, &'a str, &'a Labels);

/// Each series of one side's results, by experiment, metric and labels.
fn index(r: &RunResults) -> HashMap<Key<'_>, &Metric> {
    r.experiments
        .iter()
        .flat_map(|e| {
            e.metrics
                .iter()
                .map(move |m| ((e.name.as_str(), m.name.as_str(), &m.labels), m))
        })
        .collect()
}

/// The median of each round of a series, in the order the rounds ran.
pub fn round_medians(m: &Metric) -> Vec<f64> {
    m.round_samples()
        .iter()
        .filter_map(|r| crate::stats::median(r))
        .collect()
}

/// Side A against side B of an A/B results file, at `threshold_pct`, the
/// false discovery rate across families held to `fdr_pct` (as in
/// `compare`: `compare::family::control`).
pub fn comparison(results: &RunResults, threshold_pct: f64, fdr_pct: f64) -> Comparison {
    let (ra, rb) = (results.side(Side::A), results.side(Side::B));
    let names = |_: Side, specs: &[Spec]| vec![specs_text(specs)];
    let (spec_a, spec_b) = results
        .ab
        .as_ref()
        .map_or((Vec::new(), Vec::new()), |ab| (ab.a.clone(), ab.b.clone()));
    let bs = pool::side(std::slice::from_ref(&ra), &names(Side::A, &spec_a));
    let ns = pool::side(std::slice::from_ref(&rb), &names(Side::B, &spec_b));
    let (ia, ib) = (index(&ra), index(&rb));
    let same_thp = !spec_a.iter().chain(&spec_b).any(Spec::sets_huge_pages);
    let threshold = threshold_pct / 100.0;
    let shared = compare::pairs(&bs, &ns);
    // One run: no runs per side to add, and its busy record is both sides'.
    let setting = Setting {
        ab: true,
        busy: bs.busy.iter().map(|w| format!("the run: {w}")).collect(),
        ..pool::setting(&bs, &ns)
    };
    let mut rows: Vec<_> = shared
        .iter()
        .map(|&(b, n)| {
            let key = (b.experiment.as_str(), b.metric.as_str(), &b.labels);
            let (ma, mb) = (round_medians(ia[&key]), round_medians(ib[&key]));
            let seed =
                crate::stats::seed_for(&format!("ab/{}/{}/{:?}", b.experiment, b.metric, b.labels));
            let change = paired_change(&ma, &mb, seed);
            // The pairs judge: a drift or two modes over the run moves both
            // rounds of a pair alike, so a plain run's flags do not hold the
            // verdict back here.
            let unflag = |s: &Series| Series {
                flagged: None,
                ..s.clone()
            };
            judged(
                (&unflag(b), &unflag(n)),
                change,
                threshold,
                &setting,
                same_thp,
            )
        })
        .collect();
    let discoveries = compare::family::control(&mut rows, fdr_pct / 100.0);
    // One file a side (runs 1), no environment difference (one machine,
    // one run), no common mode, and no calibrated band between runs: the
    // pairs give the interval inside one run.
    let why = compare::why::rows(
        (std::slice::from_ref(&ra), std::slice::from_ref(&rb)),
        &rows,
        |_| crate::measure::why_diff::Design::Paired,
        ("A", "B"),
    );
    Comparison {
        setting,
        discoveries,
        why,
        // the pairs cancel the host's drift: no run-to-run noise is added
        noise_bases: Vec::new(),
        median_run_noise_pct: None,
        memory_canary: None,
        machine_canary: None,
        ..Comparison::of(
            (&bs, names(Side::A, &spec_a)),
            (&ns, names(Side::B, &spec_b)),
            shared.len(),
            rows,
            threshold_pct,
        )
    }
}

/// The A/B verdicts in words, fitted to `width`: what each side set, how
/// the blocks ran, what the comparison could see, then `compare`'s table
/// and counts (base is side A, new side B).
pub fn render(results: &RunResults, c: &Comparison, all: bool, file: &str, width: usize) -> String {
    let blocks = results.ab.as_ref().map_or(0, |ab| ab.blocks);
    let mut s = format!(
        "A/B inside one run: {blocks} blocks in the order A B B A, each one round of every series in fresh workers; each verdict pairs the rounds of A and B that ran next to each other\nA (base): {}\nB (new):  {}\n",
        c.base_files.join(", "),
        c.new_files.join(", ")
    );
    for (side, status) in [("A", &c.base_status), ("B", &c.new_status)] {
        for st in status {
            s.push_str(&format!("{side}: {st}\n"));
        }
    }
    s.push_str(&format!(
        "resolution: could see a change of 10% or more in {} of {} series",
        c.see_10pct, c.with_mde
    ));
    if let Some(m) = c.median_mde {
        s.push_str(&format!("; median minimum detectable change {m:.1}%"));
    }
    s.push('\n');
    if let Some(m) = &c.missing {
        s.push_str(&format!("missing: {m}\n"));
    }
    let mut out = render::fitted(&s, width);
    // The table and counts before the results line.
    out.push_str(&render::body_at(c, all, width));
    out.push_str(&render::fitted(
        &format!("results: {file} (compare reads a side as {file}:a or {file}:b)\n"),
        width,
    ));
    out
}

/// The verdicts of an A/B run as the report shows them (plain, every
/// series, at the terminal's default width) and the series they call
/// changed, drawn from its results at the threshold they are judged at;
/// None when its run was interrupted. `results`: the results file as shown.
pub fn words(results: &RunResults, file: &std::path::Path) -> Option<AbDrawn> {
    let judged = results.ab.as_ref()?.judged?;
    let c = comparison(results, judged.threshold_pct, judged.fdr_pct);
    let changed = c
        .rows
        .iter()
        .filter(|r| {
            matches!(
                r.verdict,
                Verdict::Improved | Verdict::Regressed | Verdict::Changed
            )
        })
        .map(|r| (r.experiment.clone(), r.metric.clone(), r.labels.clone()))
        .collect();
    Some(AbDrawn {
        words: crate::paint::strip(&render(
            results,
            &c,
            true,
            &file.display().to_string(),
            crate::report::terse::DEFAULT_WIDTH,
        )),
        changed,
    })
}

#[cfg(test)]
#[path = "verdict_tests.rs"]
mod tests;
