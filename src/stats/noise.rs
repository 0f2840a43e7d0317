//! Run-to-run noise: what the machine does between runs that one run's
//! rounds cannot see. A series' band learned from several runs on one
//! machine (`tasklab calibrate`), as the half-width of a 95% band in logs;
//! else a share of the series' own round-to-round spread (a run is a few
//! more minutes of the same host: [`SPREAD_SHARE`]), the share measured by
//! the runs a side when there are several; never below [`FLOOR`]
//! (`family_noise`, `series_noise`), which every interval holds.
//!
//! The estimator, for a series measured in N runs (run j: R_j rounds):
//!
//! 1. each run's figure in logs, m_j = ln(median of its samples), and the
//!    standard error that run's own rounds give it, se_j, as compare gives
//!    it (the cluster bootstrap of its rounds; `from_figures`);
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
//! rounds interval already holds the runs.
//!
//! compare does not take a series' band as it is: three runs give V on two
//! degrees of freedom. It moderates V by the family's (`stats::squeeze`,
//! an empirical-Bayes prior fitted to the family's V on the log scale),
//! takes W off, and never goes wider than the series' own spread gives
//! without the calibration (`series_noise`). A series with a figure that is
//! not positive in every round (a saving that can be negative) gets no
//! estimate, and takes its family's.

use super::rounds::t975;
use super::squeeze::{self, Prior};
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

/// The noise of a series from each run's figure: its log median and the
/// squared standard error its own rounds give it (`tasklab calibrate` takes
/// the one `compare` gives the run, its rounds' cluster bootstrap, so that
/// what is taken off is what compare's rows already hold). None with fewer
/// than two runs or a figure not finite.
pub fn from_figures(figures: &[(f64, f64)]) -> Option<RunNoise> {
    let n = figures.len();
    if n < 2
        || figures
            .iter()
            .any(|(m, se2)| !(m.is_finite() && se2.is_finite() && *se2 >= 0.0))
    {
        return None;
    }
    let m: Vec<f64> = figures.iter().map(|f| f.0).collect();
    let v = variance(&m);
    let w = figures.iter().map(|f| f.1).sum::<f64>() / n as f64;
    let between = (v - w).max(0.0).sqrt();
    Some(RunNoise {
        band: t975(n - 1) * between,
        spread: v.sqrt(),
        within: w.sqrt(),
        runs: n,
    })
}

impl RunNoise {
    /// What compare moderates: the runs' variance, the part their rounds
    /// explain, and the degrees of freedom (runs - 1). None from fewer than
    /// two runs or figures not finite.
    pub fn calibrated(&self) -> Option<Calibrated> {
        (self.runs >= 2 && self.spread.is_finite() && self.within.is_finite()).then(|| Calibrated {
            total: self.spread * self.spread,
            within: self.within * self.within,
            df: (self.runs - 1) as f64,
        })
    }
}

/// A series' calibration as compare uses it: the variance of its runs'
/// log medians (V, on `df` degrees of freedom) and the part of it their own
/// rounds explain (W, the mean of their squared standard errors).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Calibrated {
    pub total: f64,
    pub within: f64,
    pub df: f64,
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

/// The least run-to-run standard deviation, in logs, any series is given
/// (0.5%), in quadrature with what its spread gives: what the spread can
/// miss, because one run's rounds are minutes apart at most and a few
/// runs see few host states.
pub const FLOOR: f64 = 0.005;

/// A run's offset, as a share of the series' round-to-round spread (the
/// standard deviation of its rounds' log medians): the standard deviation
/// between runs a series is given when no calibration and no runs a side
/// measure it, `sqrt(FLOOR² + SPREAD_SHARE² · spread²)`.
///
/// Chosen on the A/A pairs of session 14 (five default runs plain and five
/// under bench/noisy.sh, docs/REPEATABILITY.md "Session 15"): a family's
/// drift (its early rounds against its late ones) put every series of a
/// family at one figure, too wide for most (median |z| 0.36-0.50 where the
/// drift rose above the floor) and too narrow for the rest (|z| > 1.96 in
/// 6-16% where it did not); each series' own spread gave the pairs' |z|
/// nearly the shape of a normal's. With 0.375, median |z| 0.58 and 0.60,
/// |z| > 1.96 in 6.4% and 4.9% of rows (plain, noisy); 0.30 gave 8.2% and
/// 6.5%, 0.45 gave 4.9% and 3.6%. Held against fresh runs in the same
/// document.
pub const SPREAD_SHARE: f64 = 0.375;

/// How much the prior share ([`SPREAD_SHARE`]) weighs against the share
/// the runs a side measure, in degrees of freedom.
const PRIOR_DF: f64 = 2.0;

/// What a family's run-to-run noise rests on.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// `tasklab calibrate`'s runs of this machine (the series' own
    /// variance between runs, moderated by its family's: `stats::squeeze`),
    /// never wider than the series' own spread gives without them.
    Calibrated,
    /// The runs each side holds: their spread measures the share of each
    /// series' round-to-round spread a run's offset has.
    Runs,
    /// Each series' own round-to-round spread, times [`SPREAD_SHARE`].
    Spread,
    /// Nothing measured it above the floor: the floor ([`FLOOR`]).
    Floor,
    /// None is added: pairs of rounds inside one run (`ab`) cancel it.
    Paired,
}

impl Basis {
    pub fn words(self) -> &'static str {
        match self {
            Basis::Calibrated => {
                "this machine's calibration (never wider than the series' own spread gives)"
            }
            Basis::Runs => "the spread of the runs on each side",
            Basis::Spread => "each series' own spread over its rounds",
            Basis::Floor => "the floor",
            Basis::Paired => "none: pairs of rounds inside one run cancel it",
        }
    }
}

/// The variance of a series' rounds, in logs: of their log medians when
/// every one is positive, else of the medians over the absolute median of
/// them (a saving that can be negative). None for fewer than two rounds or
/// a figure that is not finite.
pub fn spread2(medians: &[f64]) -> Option<f64> {
    if medians.len() < 2 || medians.iter().any(|m| !m.is_finite()) {
        return None;
    }
    if medians.iter().all(|m| *m > 0.0) {
        let logs: Vec<f64> = medians.iter().map(|m| m.ln()).collect();
        return Some(variance(&logs));
    }
    let mid = super::median(medians)?.abs();
    (mid > 0.0).then(|| variance(medians) / (mid * mid))
}

/// One series' runs on one side, as the between-run estimate needs them:
/// each run's log median and its squared standard error. The variance
/// between runs beyond their rounds' (V - W, may be below zero) and its
/// degrees of freedom.
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

/// What a family's series share of their run-to-run noise.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FamilyNoise {
    /// A calibration: the prior its series' variances between runs were
    /// drawn from (`squeeze::fit_prior` of their runs' variances), the
    /// mean part of them their rounds explain (for a series the calibration
    /// lacks), and the family's noise without the calibration (its share²
    /// and basis), which no series' calibrated figure exceeds.
    Calibrated {
        prior: Prior,
        within: f64,
        without: (f64, Basis),
    },
    /// The share² of each series' spread² a run's offset has, and whether
    /// runs a side measured it ([`Basis::Runs`]) or it is the prior
    /// ([`Basis::Spread`]).
    Share(f64, Basis),
}

impl FamilyNoise {
    /// What a family has with nothing measured: [`SPREAD_SHARE`] of each
    /// series' spread.
    pub const PRIOR: FamilyNoise = FamilyNoise::Share(SPREAD_SHARE * SPREAD_SHARE, Basis::Spread);
}

/// A family's run-to-run noise from the best evidence it has:
/// - series with a calibration (`calibrated`): the prior of their runs'
///   variances, fitted on the log scale (`squeeze::fit_prior`), so that
///   neither the family's widest few series nor two degrees of freedom
///   decide a series' figure; with the family's noise without it beside;
/// - else the runs each side holds (`between`: per series and side, V - W,
///   its degrees of freedom and the series' spread²): the share of the
///   spread their variance between runs shows (pooled over the family,
///   weighted by degrees of freedom), combined with [`SPREAD_SHARE`] as a
///   prior worth [`PRIOR_DF`] degrees of freedom;
/// - else [`SPREAD_SHARE`].
pub fn family_noise(calibrated: &[Calibrated], between: &[(f64, f64, f64)]) -> FamilyNoise {
    let without = share_noise(between);
    let vars: Vec<(f64, f64)> = calibrated.iter().map(|c| (c.total, c.df)).collect();
    match squeeze::fit_prior(&vars) {
        Some(prior) => FamilyNoise::Calibrated {
            prior,
            within: calibrated.iter().map(|c| c.within).sum::<f64>() / calibrated.len() as f64,
            without,
        },
        None => FamilyNoise::Share(without.0, without.1),
    }
}

/// The share² of a family's spread its runs a side show, with its basis.
fn share_noise(between: &[(f64, f64, f64)]) -> (f64, Basis) {
    let prior = SPREAD_SHARE * SPREAD_SHARE;
    let df: f64 = between.iter().map(|b| b.1).sum();
    let spread: f64 = between.iter().map(|b| b.1 * b.2).sum();
    if df > 0.0 && spread > 0.0 {
        let share = (between.iter().map(|b| b.1 * b.0).sum::<f64>() / spread).max(0.0);
        // The series' own moments average over the family first: one
        // series' between-run variance from two runs is a guess.
        let per_series = df / between.len() as f64;
        let s2 = (per_series * share + PRIOR_DF * prior) / (per_series + PRIOR_DF);
        return (s2, Basis::Runs);
    }
    (prior, Basis::Spread)
}

/// One series' run-to-run standard deviation in logs and what it rests
/// on, from its family's noise, its own calibration (`own`) and its
/// spread² (the mean over both sides' runs): never below [`FLOOR`].
///
/// Calibrated, it is the variance between runs beyond their rounds, from
/// the series' runs' variance moderated by its family's prior
/// (`squeeze::posterior`) less the part their rounds explain, and never
/// more than the family's share of its spread gives without the
/// calibration: calibrations learned in another hour were about twice too
/// wide for the runs compared (docs/REPEATABILITY.md "Session 22").
pub fn series_noise(
    family: FamilyNoise,
    own: Option<Calibrated>,
    spread2: Option<f64>,
) -> (f64, Basis) {
    match family {
        FamilyNoise::Calibrated {
            prior,
            within,
            without,
        } => {
            let (total, w) = own.map_or((prior.s2, within), |o| {
                (squeeze::posterior(o.total, o.df, prior), o.within)
            });
            let tau = (total - w).max(0.0).sqrt().max(FLOOR);
            // Never wider than the series' own spread gives; with no
            // spread (no run had two rounds) there is nothing to cap by.
            let cap = spread2.map_or(f64::INFINITY, |_| {
                series_noise(FamilyNoise::Share(without.0, without.1), None, spread2).0
            });
            (tau.min(cap), Basis::Calibrated)
        }
        FamilyNoise::Share(share2, basis) => {
            let extra = share2 * spread2.unwrap_or(0.0);
            // (rounds that agree can leave a variance of 1e-30 in logs)
            if extra.is_finite() && extra > FLOOR * FLOOR * 1e-6 {
                ((FLOOR * FLOOR + extra).sqrt(), basis)
            } else {
                (FLOOR, Basis::Floor)
            }
        }
    }
}

/// One run's series, with no other run to learn from: its own spread times
/// [`SPREAD_SHARE`], in quadrature with [`FLOOR`].
pub fn one_run_tau(round_medians: &[f64]) -> f64 {
    series_noise(FamilyNoise::PRIOR, None, spread2(round_medians)).0
}

#[cfg(test)]
#[path = "noise_tests.rs"]
mod tests;
