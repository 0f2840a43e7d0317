//! Run-to-run noise: what the machine does between runs that one run's
//! rounds cannot see. A series' band learned from several runs on one
//! machine (`tasklab calibrate`), as the half-width of a 95% band in logs;
//! one run's own drift (its early rounds against its late ones); and a
//! family's figure from the best of these, never below [`FLOOR`]
//! (`family_tau`), which every interval holds.
//!
//! The estimator, for a series measured in N runs (run j: R_j rounds):
//!
//! 1. each run's figure in logs, m_j = ln(median of its samples), and the
//!    standard error that run's own rounds give it, se_j = sd(ln of its
//!    round medians) / sqrt(R_j);
//! 2. the spread the runs show, V = the variance of the m_j (N - 1 in the
//!    denominator), and the part of it the rounds already explain,
//!    W = the mean of the se_j²;
//! 3. the variance between runs is what is left, s_b² = max(0, V - W)
//!    (the method of moments of a one-way random-effects model: a run's
//!    figure is the machine's, plus a run offset of variance s_b², plus its
//!    rounds' error);
//! 4. the band is t(0.975, N - 1) · s_b: a 95% band for one run's offset,
//!    widened for s_b being estimated from N runs (with 4 runs, 1.6 times
//!    what a known s_b would give).
//!
//! A series whose runs agree within their rounds gets a band of 0: its
//! rounds interval already holds the runs. A series with a figure that is
//! not positive in every round (a saving that can be negative) gets no
//! estimate, and takes its family's.

use super::rounds::t975;
use serde::{Deserialize, Serialize};

/// What the runs of one series showed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunNoise {
    /// The band: a 95% half-width in logs (0.02 = ±2%).
    pub band: f64,
    /// The standard deviation of the runs' figures in logs (sqrt V).
    pub spread: f64,
    /// The part of it the rounds explain, as a standard deviation
    /// (sqrt W).
    pub within: f64,
    /// The runs it was learned from.
    pub runs: usize,
}

/// The noise of a series from its `runs` (each a list of rounds, each
/// round its samples). None with fewer than two runs that each have two
/// rounds, or when a round's median is not positive.
pub fn estimate(runs: &[&[Vec<f64>]]) -> Option<RunNoise> {
    let mut m = Vec::new();
    let mut se2 = Vec::new();
    for run in runs {
        let rounds: Vec<&Vec<f64>> = run.iter().filter(|r| !r.is_empty()).collect();
        if rounds.len() < 2 {
            continue;
        }
        let medians: Vec<f64> = rounds.iter().filter_map(|r| super::median(r)).collect();
        if medians.iter().any(|x| !(x.is_finite() && *x > 0.0)) {
            return None;
        }
        let pooled: Vec<f64> = rounds.iter().flat_map(|r| r.iter().copied()).collect();
        let whole = super::median(&pooled)?;
        if !(whole.is_finite() && whole > 0.0) {
            return None;
        }
        let logs: Vec<f64> = medians.iter().map(|x| x.ln()).collect();
        m.push(whole.ln());
        se2.push(variance(&logs) / logs.len() as f64);
    }
    let n = m.len();
    if n < 2 {
        return None;
    }
    let v = variance(&m);
    let w = se2.iter().sum::<f64>() / n as f64;
    let between = (v - w).max(0.0).sqrt();
    Some(RunNoise {
        band: t975(n - 1) * between,
        spread: v.sqrt(),
        within: w.sqrt(),
        runs: n,
    })
}

/// The sample variance (N - 1 in the denominator); 0 for fewer than two.
fn variance(x: &[f64]) -> f64 {
    let n = x.len();
    if n < 2 {
        return 0.0;
    }
    let mean = x.iter().sum::<f64>() / n as f64;
    x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64
}

/// The least run-to-run standard deviation, in logs, any family is given
/// (0.5%): what the estimates below can miss, because one run's halves
/// are minutes apart at most and a few runs see few host states. Chosen on
/// A/A pairs of default runs on two host states (docs/REPEATABILITY.md,
/// "Run-to-run noise, measured"): with it, |z| of the pairs' differences
/// was above 1.96 in 3.2% (plain) and 3.0% (under bench/noisy.sh) of rows,
/// inside the 3-8% a calibrated 95% interval gives; with 1% in 2.0% and
/// 2.2% (too wide), with 0.25% in 4.3% and 3.7%.
pub const FLOOR: f64 = 0.005;

/// How much one experience of a family (its runs' drift, or a calibration)
/// weighs against another, in degrees of freedom: the drift's estimate
/// counts as two runs' worth when runs a side are there to combine it with,
/// a family's mean as four against a series' own calibrated figure.
const DRIFT_DF: f64 = 2.0;
const FAMILY_DF: f64 = 4.0;

/// What a family's run-to-run noise rests on.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// `tasklab calibrate`'s runs of this machine (the series' own band,
    /// shrunk toward its family's).
    Calibrated,
    /// The spread of the runs each side holds, with their drift.
    Runs,
    /// Each run's own drift: its early rounds against its late ones.
    Drift,
    /// Nothing measured it above the floor: the floor ([`FLOOR`]).
    Floor,
    /// None is added: pairs of rounds inside one run (`ab`) cancel it.
    Paired,
}

impl Basis {
    pub fn words(self) -> &'static str {
        match self {
            Basis::Calibrated => "this machine's calibration",
            Basis::Runs => "the spread of the runs on each side",
            Basis::Drift => "each run's own drift (its early rounds against its late ones)",
            Basis::Floor => "the floor",
            Basis::Paired => "none: pairs of rounds inside one run cancel it",
        }
    }
}

/// How far one run's rounds drifted, in logs, beyond what their own spread
/// explains: the rounds' log medians in the order they ran, split into an
/// early and a late half, d = mean(late) - mean(early), less the variance
/// d has from the rounds' spread alone. Unbiased for the variance of the
/// drift between the halves (it may come out below zero; average before
/// taking the root). None with fewer than four rounds or a median that is
/// not positive.
pub fn drift_excess(medians_in_order: &[f64]) -> Option<f64> {
    let r = medians_in_order.len();
    if r < 4
        || medians_in_order
            .iter()
            .any(|m| !(m.is_finite() && *m > 0.0))
    {
        return None;
    }
    let logs: Vec<f64> = medians_in_order.iter().map(|m| m.ln()).collect();
    let (a, b) = logs.split_at(r / 2);
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let d = mean(b) - mean(a);
    Some(d * d - variance(a) / a.len() as f64 - variance(b) / b.len() as f64)
}

/// A family's run-to-run variance (in logs, squared) from its series'
/// drift excesses over every run measured: each half of a run taken as a
/// run of its own, the variance of a run's offset is half the drift's
/// (`max(0, mean / 2)`). None for no excesses.
pub fn tau2_from_drift(excesses: &[f64]) -> Option<f64> {
    let x: Vec<f64> = excesses.iter().copied().filter(|v| v.is_finite()).collect();
    (!x.is_empty()).then(|| (x.iter().sum::<f64>() / x.len() as f64 / 2.0).max(0.0))
}

/// One series' runs on one side, as the between-run estimate needs them:
/// each run's log median and its squared standard error.
pub fn between_runs(runs: &[(f64, f64)]) -> Option<(f64, f64)> {
    let n = runs.len();
    if n < 2
        || runs
            .iter()
            .any(|(m, se2)| !(m.is_finite() && se2.is_finite()))
    {
        return None;
    }
    let m: Vec<f64> = runs.iter().map(|r| r.0).collect();
    let w = runs.iter().map(|r| r.1).sum::<f64>() / n as f64;
    Some((variance(&m) - w, (n - 1) as f64))
}

/// A family's run-to-run standard deviation in logs, and what it rests on:
/// - series with a calibrated band (`calibrated`: each series' s_b² and
///   its runs' degrees of freedom): their mean, the family's figure (each
///   series then takes its own shrunk toward it: [`series_tau`]);
/// - else the between-run moments of the runs each side holds
///   (`between`: (V - W, df) per series and side), combined with the
///   drift's estimate weighted as [`DRIFT_DF`] degrees of freedom;
/// - else the drift alone;
///
/// and never less than [`FLOOR`].
pub fn family_tau(
    calibrated: &[(f64, f64)],
    between: &[(f64, f64)],
    drift: Option<f64>,
) -> (f64, Basis) {
    let floor = |t2: f64, basis: Basis| {
        let t = t2.max(0.0).sqrt();
        if t > FLOOR {
            (t, basis)
        } else {
            (FLOOR, Basis::Floor)
        }
    };
    if !calibrated.is_empty() {
        // The family's figure: its calibrated series' mean; each series
        // then takes its own band shrunk toward it (`series_tau`).
        let mean = calibrated.iter().map(|c| c.0).sum::<f64>() / calibrated.len() as f64;
        return floor(mean, Basis::Calibrated);
    }
    let df: f64 = between.iter().map(|b| b.1).sum();
    if df > 0.0 {
        let runs = between.iter().map(|(v, d)| v * d).sum::<f64>() / df;
        // The series' own moments average over the family first: one
        // series' between-run variance from two runs is a guess.
        let per_series = df / between.len() as f64;
        let t2 = match drift {
            Some(d) => (per_series * runs.max(0.0) + DRIFT_DF * d) / (per_series + DRIFT_DF),
            None => runs,
        };
        return floor(t2, Basis::Runs);
    }
    match drift {
        Some(d) => floor(d, Basis::Drift),
        None => (FLOOR, Basis::Floor),
    }
}

/// A series' own calibrated run-to-run variance `own` (and its degrees of
/// freedom) shrunk toward its family's standard deviation `family`, as a
/// standard deviation, never below [`FLOOR`]: one series' band from a few
/// runs is a guess its family's mean steadies.
pub fn series_tau((s2, df): (f64, f64), family: f64) -> f64 {
    let t2 = (df * s2 + FAMILY_DF * family * family) / (df + FAMILY_DF);
    t2.max(0.0).sqrt().max(FLOOR)
}

/// A calibrated band (`RunNoise::band`, learned from `runs` runs) as the
/// variance of a run's offset (in logs, squared) with its degrees of
/// freedom: the band is t(0.975, runs - 1) times the standard deviation.
pub fn band_variance(band: f64, runs: usize) -> Option<(f64, f64)> {
    (runs >= 2 && band.is_finite() && band >= 0.0).then(|| {
        let s = band / t975(runs - 1);
        (s * s, (runs - 1) as f64)
    })
}

#[cfg(test)]
#[path = "noise_tests.rs"]
mod tests;
