//! A series' run-to-run noise, learned from several runs on one machine
//! (`tasklab calibrate`): what the machine does between runs that one run's
//! rounds cannot see, as the half-width of a 95% band in logs, the same
//! quantity as [`RUN_NOISE`](super::rounds::RUN_NOISE) but per series.
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
//! estimate, and keeps the default.

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

/// Widens the interval of `summary` so that each of its half-widths is at
/// least `band` (in logs, by factors, for a figure positive throughout; else
/// as that share of the median): the calibrated floor for one side of a
/// comparison, `band` divided by the square root of its runs by the caller.
/// An interval already wider is left as it is.
pub fn at_least(summary: &mut super::Summary, band: f64) {
    if !(band.is_finite() && band > 0.0) {
        return;
    }
    let s = summary;
    if s.median > 0.0 && s.ci95_lo > 0.0 {
        s.ci95_lo = s.ci95_lo.min(s.median * (-band).exp());
        s.ci95_hi = s.ci95_hi.max(s.median * band.exp());
    } else {
        let half = band * s.median.abs();
        s.ci95_lo = s.ci95_lo.min(s.median - half);
        s.ci95_hi = s.ci95_hi.max(s.median + half);
    }
}

#[cfg(test)]
#[path = "noise_tests.rs"]
mod tests;
