//! The change of one series between two sides of a comparison, in logs, as
//! a model of where its figures come from: a run's log median is the
//! machine's figure, plus the run's offset (variance τ², the host's state
//! over minutes, which one run's rounds cannot see), plus its rounds' error
//! (se², from the rounds' cluster bootstrap). With N_b and N_n runs a side,
//!
//!   Δ = mean(new runs' log medians) − mean(base runs' log medians),
//!   SE² = mean(se²_b)/N_b + mean(se²_n)/N_n + τ² (1/N_b + 1/N_n),
//!
//! and Δ/SE is taken as Student's t with Welch's degrees of freedom for the
//! rounds' part (τ² counted as known: its uncertainty is what its floor
//! and its pooling over a family are for).

use super::fdr;

/// One run's figure of a series.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunFig {
    /// ln of the run's median.
    pub ln_median: f64,
    /// The squared standard error of `ln_median` from the run's rounds.
    pub se2: f64,
    /// The rounds it came from.
    pub rounds: usize,
}

/// The change between two sides, in logs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Diff {
    /// ln(new / base).
    pub delta: f64,
    /// Its standard error.
    pub se: f64,
    /// The degrees of freedom of `delta / se`.
    pub df: f64,
}

impl Diff {
    /// The 95% interval of the ratio new/base.
    pub fn ratio_interval(&self) -> (f64, f64, f64) {
        let h = fdr::t975(self.df) * self.se;
        (
            self.delta.exp(),
            (self.delta - h).exp(),
            (self.delta + h).exp(),
        )
    }

    /// The one-sided p-value of a change beyond the threshold (0.05 = 5%)
    /// in the direction measured: up beyond ln(1 + t), down beyond
    /// -ln(1 - t), the bounds the verdict's interval is held against.
    pub fn p_beyond(&self, threshold: f64) -> f64 {
        let t = threshold.max(0.0);
        let bound = if self.delta >= 0.0 {
            (1.0 + t).ln()
        } else {
            -(1.0 - t).max(f64::MIN_POSITIVE).ln()
        };
        fdr::beyond(self.delta, bound, self.se, self.df)
    }

    /// The smallest true change, as a fraction, this comparison calls 80%
    /// of the time (at the threshold `threshold`): the threshold plus the
    /// interval's half-width plus 0.84 standard errors (t's 80% quantile),
    /// about the threshold plus 1.43 half-widths.
    pub fn mde80(&self, threshold: f64) -> f64 {
        let h = (fdr::t975(self.df) + t80(self.df)) * self.se;
        ((1.0 + threshold.max(0.0)).ln() + h).exp() - 1.0
    }

    /// The change with `var` (logs squared, known: the host's memory state,
    /// `stats::memstate`) added to its variance; the degrees of freedom
    /// grow as the known part does.
    pub fn widened(self, var: f64) -> Diff {
        if !(var.is_finite() && var > 0.0) {
            return self;
        }
        let se2 = self.se * self.se;
        let grown = se2 + var;
        Diff {
            se: grown.sqrt(),
            df: self.df * (grown / se2).powi(2),
            ..self
        }
    }

    /// Moves the change by a factor `k` (the machine's common move divided
    /// out: `compare --relative`).
    pub fn scaled(self, k: f64) -> Diff {
        Diff {
            delta: self.delta + k.ln(),
            ..self
        }
    }
}

/// Student's t 80% quantile.
fn t80(df: f64) -> f64 {
    // the survival function's inverse: solve sf(x) = 0.2 by bisection on
    // [0, 2] (t's 80% quantile lies in [0.84, 1.38] from df = 1 on)
    let (mut lo, mut hi) = (0.0, 2.0);
    for _ in 0..50 {
        let mid = (lo + hi) / 2.0;
        if fdr::sf(mid, df) > 0.2 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

/// The change from `base` to `new` (each a side's runs) with run-to-run
/// noise `tau` (a standard deviation in logs); None when a side has no
/// run or a figure is not finite.
pub fn diff(base: &[RunFig], new: &[RunFig], tau: f64) -> Option<Diff> {
    let side = |runs: &[RunFig]| -> Option<(f64, f64, f64, f64)> {
        let n = runs.len() as f64;
        if runs.is_empty()
            || runs
                .iter()
                .any(|r| !(r.ln_median.is_finite() && r.se2.is_finite() && r.se2 >= 0.0))
        {
            return None;
        }
        let m = runs.iter().map(|r| r.ln_median).sum::<f64>() / n;
        let within = runs.iter().map(|r| r.se2).sum::<f64>() / n / n;
        let rounds: usize = runs.iter().map(|r| r.rounds).sum();
        let df = (rounds as f64 - n).max(1.0);
        Some((m, within, df, n))
    };
    let (mb, wb, db, nb) = side(base)?;
    let (mn, wn, dn, nn) = side(new)?;
    let tau2 = if tau.is_finite() { tau * tau } else { 0.0 };
    let se2 = wb + wn + tau2 * (1.0 / nb + 1.0 / nn);
    let denom = wb * wb / db + wn * wn / dn;
    let df = if denom > 0.0 {
        se2 * se2 / denom
    } else {
        f64::INFINITY
    };
    let se = se2.sqrt();
    (se > 0.0 && se.is_finite()).then_some(Diff {
        delta: mn - mb,
        se,
        df,
    })
}

#[cfg(test)]
#[path = "twoside_tests.rs"]
mod tests;
