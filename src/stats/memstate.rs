//! The host's state as a cause of a change between runs (issue 37 items 2
//! and 4): a canary covariate. A family (an experiment at one point) can
//! move as a whole between runs minutes apart when the host's state
//! moves, which no one run's rounds see. Every round records two canaries
//! at its start and end (`results::Canary`): the first touch of a fresh
//! block on 4 KiB pages (the host's memory: free page reporting makes
//! memory the guest gave back cost a fault on the host again) and a bare
//! system call (the machine's speed). For either canary:
//!
//! 1. within the runs, the family's sensitivity to the canary: over its
//!    rounds (the unit), the family's round effect (the mean over its
//!    series of each round's log median less the series' own mean over
//!    the run, a rate's sign turned so that up is dearer) regressed on the
//!    round's log canary less the run's mean of it, through the origin,
//!    pooled over every run of both sides: β with its standard error
//!    ([`sensitivity`]);
//! 2. between the sides, the canary's shift Δ, the difference of the
//!    sides' mean log canary (each run's median over all its rounds: a few
//!    hundred readings, precise to about 2%);
//! 3. the row's change could be the host's by β·Δ, and β is known only to
//!    its standard error: the change's variance gains (β² + se²)·Δ²
//!    ([`extra_variance`]), the expected square of β·Δ for a β drawn from
//!    its estimate.
//!
//! Which families hold which canary is a rule, not a list of names: the
//! memory canary, the families of an experiment whose timed work touches
//! memory (declared: `Experiment::memory_work`); the system call's, the
//! families of an experiment whose rounds follow it in the runs compared
//! ([`follows`]: the experiment's β, its families pooled, above twice its
//! standard error). docs/REPEATABILITY.md "Session 20" has the evidence
//! for both, and for not shrinking a family's β toward its experiment's.
//!
//! A canary that did not move adds nothing, whatever β: a regression with
//! the host's state unchanged is judged as before. The term widens, never
//! moves, the change: one round's canary is mostly its own noise (two
//! readings of a round differ nearly as much as rounds do), so β is
//! estimated over a narrow range and carried far beyond it when the host's
//! state moved between runs; a point correction β·Δ would rest on that
//! extrapolation (docs/REPEATABILITY.md "Session 19").

use serde::Serialize;

/// A family's (or an experiment's) sensitivity to a canary, in logs per
/// log.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Sensitivity {
    /// The slope of the family's round effect on the round's canary.
    pub beta: f64,
    /// Its standard error (rounds the unit).
    pub se: f64,
    /// The rounds it rests on.
    pub rounds: usize,
}

/// One run of a family: each round's log canary, and each directional
/// series' log round medians in the same order, a rate's negated (up is
/// dearer).
pub struct FamilyRun<'a> {
    pub canary: &'a [f64],
    pub series: Vec<&'a [f64]>,
}

/// The fewest degrees of freedom a sensitivity is given from: rounds less
/// one mean per run less the slope.
pub const MIN_DF: usize = 2;

/// The family's sensitivity from its runs (both sides'), or None when
/// fewer than [`MIN_DF`] degrees of freedom are left, the canary did not
/// vary within any run, or a figure is not finite. A run whose series do
/// not have a round median for each of its canary's rounds is left out.
pub fn sensitivity(runs: &[FamilyRun]) -> Option<Sensitivity> {
    let mut xy: Vec<(f64, f64)> = Vec::new();
    let mut used = 0;
    for run in runs {
        let n = run.canary.len();
        if n < 2
            || run.series.is_empty()
            || run.series.iter().any(|s| s.len() != n)
            || run.canary.iter().any(|x| !x.is_finite())
            || run
                .series
                .iter()
                .flat_map(|s| s.iter())
                .any(|y| !y.is_finite())
        {
            continue;
        }
        let mx = mean(run.canary);
        let means: Vec<f64> = run.series.iter().map(|s| mean(s)).collect();
        for i in 0..n {
            let y = run
                .series
                .iter()
                .zip(&means)
                .map(|(s, m)| s[i] - m)
                .sum::<f64>()
                / run.series.len() as f64;
            xy.push((run.canary[i] - mx, y));
        }
        used += 1;
    }
    let n = xy.len();
    let df = n.checked_sub(used + 1)?;
    let sxx: f64 = xy.iter().map(|(x, _)| x * x).sum();
    if df < MIN_DF || sxx.is_nan() || sxx <= 0.0 {
        return None;
    }
    let beta = xy.iter().map(|(x, y)| x * y).sum::<f64>() / sxx;
    let residual = xy.iter().map(|(x, y)| (y - beta * x).powi(2)).sum::<f64>() / df as f64;
    let se = (residual / sxx).sqrt();
    (beta.is_finite() && se.is_finite()).then_some(Sensitivity {
        beta,
        se,
        rounds: n,
    })
}

/// Whether rounds follow the canary: the sensitivity lies above twice its
/// standard error (one-sided, about 2.3% of the time by chance when the
/// rounds do not follow it). A rate's sign is turned before the fit, so a
/// figure that gets dearer as the canary does has β above 0.
pub fn follows(s: &Sensitivity) -> bool {
    s.beta > 2.0 * s.se
}

/// The variance, in logs squared, a change between two sides gains from
/// a canary shift `shift` (the difference of their mean log canary) for a
/// family of sensitivity `s`: (β² + se²)·Δ². 0 for a shift of 0 or not
/// finite.
pub fn extra_variance(s: &Sensitivity, shift: f64) -> f64 {
    if !shift.is_finite() {
        return 0.0;
    }
    (s.beta * s.beta + s.se * s.se) * shift * shift
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

#[cfg(test)]
#[path = "memstate_tests.rs"]
mod tests;
