//! One quantity, several experiments: each source beside the others, with
//! whether they agree within their intervals.

use super::doc::{Block, Table};
use super::table::{interval_text, never_negative};
use crate::experiments::quantities::{Quantity, QUANTITIES};
use crate::metric::key::CALL;
use crate::results::{case, Metric, RunResults};
use crate::stats::compare_text::bounds_nothing;
use crate::stats::rounds::{Unsettled, FLAG_ROUNDS};
use crate::units::fmt_value;

/// The sources of `q` this run measured, with their experiment.
fn found<'a>(r: &'a RunResults, q: &Quantity) -> Vec<(&'a str, &'a Metric)> {
    q.sources
        .iter()
        .filter_map(|s| {
            let e = r.measured(s.experiment)?;
            // A first call (`call=first`) is another quantity: it counts
            // only when the source names it.
            let m = e.metrics.iter().find(|m| {
                m.name == s.metric.name
                    && s.labels.iter().all(|(k, v)| m.label(k) == Some(*v))
                    && (m.label(CALL).is_none() || s.labels.iter().any(|(k, _)| *k == CALL))
            })?;
            Some((e.name.as_str(), m))
        })
        .collect()
}

/// Whether the sources agree, in a sentence that opens the same way in every
/// run (issue 39 item 9): "the sources agree within their intervals", "the
/// sources disagree beyond their intervals (…)", or "the sources are not
/// compared: …" when one is flagged or its interval bounds nothing.
pub fn verdict(sources: &[(&str, &Metric)]) -> String {
    if let Some((e, m)) = sources.iter().find(|(_, m)| m.summary.unstable) {
        let why = m
            .summary
            .unsettled
            .as_ref()
            .map(|u| format!(" ({})", u.words(m.unit)))
            .unwrap_or_default();
        let others: String = sources
            .iter()
            .filter_map(|(eo, o)| too_few_rounds(eo, o, m))
            .map(|t| format!("; {t}"))
            .collect();
        return format!(
            "the sources are not compared: {e} ({}) is flagged here{why}, so no agreement is claimed{others}",
            case(m)
        );
    }
    if let Some((e, m)) = sources
        .iter()
        .find(|(_, m)| bounds_nothing(&m.summary, m.unit))
    {
        return format!(
            "the sources are not compared: {e} ({}) has an interval that bounds nothing, so no agreement is claimed",
            case(m)
        );
    }
    let overlap = |a: &Metric, b: &Metric| {
        a.summary.ci95_lo <= b.summary.ci95_hi && b.summary.ci95_lo <= a.summary.ci95_hi
    };
    let mut apart = Vec::new();
    for (i, (ea, a)) in sources.iter().enumerate() {
        for (eb, b) in &sources[i + 1..] {
            if !overlap(a, b) {
                apart.push(format!(
                    "{ea} {} against {eb} {}",
                    fmt_value(a.summary.median, a.unit),
                    fmt_value(b.summary.median, b.unit)
                ));
            }
        }
    }
    // What sets two sources apart is not among what the run records: said
    // as such, no cause guessed (issue 39).
    if apart.is_empty() {
        "the sources agree within their intervals".into()
    } else {
        format!(
            "the sources disagree beyond their intervals ({}): the same operation, measured by different experiments, each in workers of its own; what sets them apart is not recorded",
            apart.join("; ")
        )
    }
}

/// Why a source `o` of experiment `e` is not flagged beside a flagged one
/// (`flagged`), when the flag's rule could not have flagged it: fewer rounds
/// than its test reads ([`FLAG_ROUNDS`]). The same rule holds for both;
/// the sentence gives the unflagged source's round medians, and, where the
/// flagged one fell in two modes, which mode each lies nearer (by ratio).
/// switch.pingpong's 64 KiB memcpy in 7 rounds fell in two modes (1.25 µs
/// and 1.41 µs) where yardstick.memcpy's 3 rounds (1.40 µs each) could not
/// be flagged at all (issue 39).
fn too_few_rounds(e: &str, o: &Metric, flagged: &Metric) -> Option<String> {
    let rounds = &o.summary.round_medians;
    if o.summary.unstable || rounds.is_empty() || rounds.len() >= FLAG_ROUNDS {
        return None;
    }
    let list = rounds
        .iter()
        .map(|v| fmt_value(*v, o.unit))
        .collect::<Vec<_>>();
    let list = match list.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => list.join(""),
    };
    let nearer = match flagged.summary.unsettled {
        Some(Unsettled::TwoModes { low, high, .. }) if low > 0.0 && high > 0.0 => {
            let high_side = |v: f64| v > 0.0 && (v / low).ln().abs() > (high / v).ln().abs();
            if rounds.iter().all(|v| high_side(*v)) {
                format!(", all nearer the high mode, {}", fmt_value(high, o.unit))
            } else if rounds.iter().all(|v| *v > 0.0 && !high_side(*v)) {
                format!(", all nearer the low mode, {}", fmt_value(low, o.unit))
            } else {
                ", some nearer each mode".to_string()
            }
        }
        _ => String::new(),
    };
    Some(format!(
        "{e} ({}) is not flagged, but the rule reads a trend or two modes only in {FLAG_ROUNDS} rounds or more and it has {} (their medians {list}{nearer})",
        case(o),
        rounds.len()
    ))
}

/// The report's blocks: one table of every shared quantity this run has at
/// least two sources of, and a sentence per quantity.
pub fn blocks(r: &RunResults) -> Vec<Block> {
    let mut rows = Vec::new();
    let mut sentences = Vec::new();
    for q in QUANTITIES {
        let sources = found(r, q);
        if sources.len() < 2 {
            continue;
        }
        for (e, m) in &sources {
            rows.push(vec![
                q.name.to_string(),
                format!("{e} {} {}", m.name, case(m)),
                fmt_value(m.summary.median, m.unit),
                interval_text(m, never_negative(e, m)),
            ]);
        }
        let mut name = q.name.to_string();
        name[..1].make_ascii_uppercase();
        sentences.push(format!("{name}: {}.", verdict(&sources)));
    }
    if rows.is_empty() {
        return vec![];
    }
    vec![
        Block::Table(Table {
            head: ["quantity", "measured by", "median", "95% interval"]
                .map(String::from)
                .to_vec(),
            rows,
            right: vec![2, 3],
        }),
        Block::Bullets(sentences),
    ]
}

#[cfg(test)]
#[path = "quantities_tests.rs"]
mod tests;
