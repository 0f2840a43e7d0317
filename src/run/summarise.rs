//! An experiment's rounds made figures: each job's samples of a series
//! are one round of it, summarised over the rounds (`stats::rounds`), the
//! interval widened by the family's run-to-run noise; what more rounds
//! cannot fix is flagged, in a finding and a note.

use crate::experiments::Experiment;
use crate::measure::protocol::WorkerOutput;
use crate::results::{ExperimentResult, Labels, Metric, Reading, Unit};
use crate::stats;
use crate::units::fmt_value;

/// One series while its rounds come in.
struct Series {
    name: String,
    unit: Unit,
    labels: Labels,
    detail: bool,
    point: usize,
    /// (round, samples)
    rounds: Vec<(usize, Vec<f64>)>,
}

/// Turns the workers' raw series into metrics: each job's samples of a
/// series are one round of it; the summary's interval comes from the rounds.
/// Readings repeated by every round become their median; notes are kept
/// once each. `twins`, under `run --why`, are the sampled twins of those
/// rounds (`run::twin`): they give the attribution and the cost of
/// sampling, never a figure.
pub fn absorb(
    result: &mut ExperimentResult,
    exp: &Experiment,
    mut outputs: Vec<(usize, usize, WorkerOutput)>,
    mut twins: Vec<(usize, usize, WorkerOutput)>,
) {
    attribute_why(result, exp, &mut outputs, &mut twins);
    let mut series: Vec<Series> = Vec::new();
    let mut readings: Vec<(Reading, Vec<f64>)> = Vec::new();
    for (point, round, out) in outputs {
        if let Some(telemetry) = out.telemetry {
            result.round_log.push(crate::results::RoundRecord {
                point,
                round,
                telemetry,
            });
        }
        for s in out.series {
            let at = match series
                .iter()
                .position(|x| x.name == s.name && x.labels == s.labels)
            {
                Some(i) => i,
                None => {
                    series.push(Series {
                        name: s.name.clone(),
                        unit: s.unit.unwrap_or(Unit::Count),
                        labels: s.labels.clone(),
                        detail: s.detail,
                        point,
                        rounds: Vec::new(),
                    });
                    series.len() - 1
                }
            };
            let rounds = &mut series[at].rounds;
            match rounds.iter_mut().find(|(r, _)| *r == round) {
                Some((_, v)) => v.extend(s.samples),
                None => rounds.push((round, s.samples)),
            }
        }
        for r in out.readings {
            match readings
                .iter_mut()
                .find(|(x, _)| x.name == r.name && x.labels == r.labels)
            {
                Some((_, values)) => values.push(r.value),
                None => {
                    let v = r.value;
                    readings.push((r, vec![v]));
                }
            }
        }
        once_each(&mut result.notes, out.notes);
        once_each(&mut result.fewer_than_asked, out.fewer_than_asked);
    }
    for s in series {
        let ids: Vec<usize> = s.rounds.iter().map(|(r, _)| *r).collect();
        let rounds: Vec<Vec<f64>> = s.rounds.into_iter().map(|(_, v)| v).collect();
        let summary = match crate::results::summarize_series(exp.name, &s.name, &s.labels, &rounds)
        {
            Ok(sm) => sm,
            Err(e) => {
                result
                    .notes
                    .push(format!("{} {:?}: no summary ({e})", s.name, s.labels));
                continue;
            }
        };
        let mut summary = summary;
        let seed = exp.seed_for(&s.name, &s.labels);
        let better = exp.better_for(&s.name, &s.labels);
        let high_is_slow = better != crate::results::Better::Higher;
        explain_modes(
            &mut summary,
            &result.round_log,
            (s.point, &ids),
            high_is_slow,
            exp.memory_work,
        );
        result.metrics.push(Metric {
            name: s.name,
            unit: s.unit,
            labels: s.labels,
            summary,
            rounds: rounds.iter().map(Vec::len).collect(),
            samples: rounds.into_iter().flatten().collect(),
            detail: s.detail && seed.is_none(),
            better,
            seed,
            point: Some(s.point),
        });
    }
    with_run_noise(&mut result.metrics);
    for (mut r, values) in readings {
        r.value = stats::median(&values).unwrap_or(r.value);
        result.readings.push(r);
    }
}

/// Adds each of `more` to `kept` unless it is there already.
fn once_each(kept: &mut Vec<String>, more: impl IntoIterator<Item = String>) {
    for x in more {
        if !kept.contains(&x) {
            kept.push(x);
        }
    }
}

/// `run --why`: each sampled series' call chains named and shared out
/// over its rounds (`measure::attribution`).
fn attribute_why(
    result: &mut ExperimentResult,
    exp: &Experiment,
    outputs: &mut [(usize, usize, WorkerOutput)],
    twins: &mut [(usize, usize, WorkerOutput)],
) {
    use crate::measure::attribution::{attribute, overheads, Symbols};
    // A sampled round's notes are its unsampled twin's, but for sampling's
    // own failure.
    let failed = outputs
        .iter()
        .chain(twins.iter())
        .map(|(_, _, o)| &o.why_failed);
    once_each(&mut result.notes, failed.flatten().cloned());
    let why: Vec<(usize, crate::measure::why::RawStacks)> = outputs
        .iter_mut()
        .chain(twins.iter_mut())
        .flat_map(|(_, round, out)| {
            let round = *round;
            std::mem::take(&mut out.why)
                .into_iter()
                .map(move |w| (round, w))
        })
        .collect();
    if why.is_empty() {
        return;
    }
    let symbols = Symbols::of_this_kernel();
    if symbols.is_empty() {
        result.notes.push(
            "--why: /proc/kallsyms shows no addresses (kernel.kptr_restrict): \
             kernel functions named by address"
                .into(),
        );
    }
    let seed = stats::seed_for(&format!("{}/why", exp.name));
    result.why = attribute(&why, symbols);
    result.why_unsampled = overheads(&mut result.why, outputs, twins, seed);
}

/// Widens each series' interval by its run-to-run noise: a share of its
/// own round-to-round spread, never less than the floor
/// (`stats::noise::one_run_tau`). The interval then speaks of the next
/// run's median, and `compare` builds its own from `se_ln` and the noise
/// it measures.
fn with_run_noise(metrics: &mut [Metric]) {
    for m in metrics.iter_mut() {
        let tau = stats::noise::one_run_tau(&m.summary.round_medians);
        // A percentage's bound past 100 is kept as computed (issue 39): the
        // report says it passes 100% rather than quote it as a share.
        stats::rounds::widen_by_run_noise(&mut m.summary, tau);
    }
}

/// Adds to a series flagged for two modes what its rounds' own records say
/// sets the modes apart, when they do (`explain::mode_covariate`).
fn explain_modes(
    s: &mut crate::stats::Summary,
    log: &[crate::results::RoundRecord],
    (point, ids): (usize, &[usize]),
    high_is_slow: bool,
    memory_work: bool,
) {
    let Some(stats::rounds::Unsettled::TwoModes {
        low,
        high,
        explained,
        ..
    }) = &mut s.unsettled
    else {
        return;
    };
    let cut = (*low * *high).sqrt();
    let low_mode: Vec<bool> = s.round_medians.iter().map(|m| *m < cut).collect();
    let records: Option<Vec<&crate::results::RoundTelemetry>> = ids
        .iter()
        .map(|id| {
            log.iter()
                .find(|r| r.point == point && r.round == *id)
                .map(|r| &r.telemetry)
        })
        .collect();
    if let Some(records) = records {
        *explained = crate::measure::explain::mode_covariate(
            &low_mode,
            &records,
            |x| fmt_value(x, Unit::Ns),
            high_is_slow,
            memory_work,
        );
    }
}

/// Series named in the note on what was flagged, at most.
const UNSETTLED_LISTED: usize = 12;

/// The series flagged for what more rounds cannot fix (a trend over the
/// run, two modes): a short finding (how many, the first of them, and that
/// no other finding rests on them) and a note that names each flag.
pub(super) fn unsettled(r: &ExperimentResult) -> Option<(String, String)> {
    let bad: Vec<(String, String)> = r
        .metrics
        .iter()
        .filter(|m| m.summary.unstable)
        .map(|m| {
            let name = format!("{} {}", m.name, crate::results::case(m));
            let why = m
                .summary
                .unsettled
                .as_ref()
                .map_or_else(|| "its rounds disagree".to_string(), |u| u.words(m.unit));
            let said = format!("{name}: {why}");
            (name, said)
        })
        .collect();
    let (first, first_said) = bad.first()?;
    let n = bad.len();
    let mut finding = if n == 1 {
        format!("flagged here: {first_said}; its median and interval are in the table, and no finding rests on it")
    } else {
        format!("flagged here: {n} series, {first} the first (a trend over the run or two modes: the notes name each); their medians and intervals are in the table, and no finding rests on them")
    };
    // What held the experiment's workers back that can unsettle a figure:
    // steal, throttling (run delay is often the worker's own tasks). Over
    // all its rounds: a series does not know which of them were its own.
    let seen = crate::measure::explain::held_back(&r.round_log, None);
    if !seen.is_empty() {
        finding.push_str(&format!(
            "; over this experiment's rounds, {}",
            seen.join("; ")
        ));
    }
    let shown: Vec<&str> = bad
        .iter()
        .take(UNSETTLED_LISTED)
        .map(|b| b.1.as_str())
        .collect();
    let more = n.saturating_sub(shown.len());
    let list = format!(
        "flagged: {}{}",
        shown.join("; "),
        if more > 0 {
            format!("; and {more} more series (results.json has them, flagged unstable)")
        } else {
            String::new()
        }
    );
    Some((finding, list))
}
