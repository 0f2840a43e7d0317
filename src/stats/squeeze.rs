//! Empirical-Bayes moderation of variances (Smyth 2004, limma's
//! `fitFDist` and `squeezeVar`): many series' sample variances, each on a
//! few degrees of freedom, steady each other through a prior fitted to all
//! of them on the log scale, so that neither the widest few series nor two
//! degrees of freedom decide one series' figure.
//!
//! The model: a series' true variance σ² is drawn from a scaled inverse χ²
//! with scale s0² and d0 degrees of freedom (the prior), and its sample
//! variance s² on d degrees of freedom is σ² χ²_d / d. Then
//! `e = ln s² − ψ(d/2) + ln(d/2)` has mean `ln s0² − ψ(d0/2) + ln(d0/2)` and
//! variance `ψ'(d/2) + ψ'(d0/2)` (ψ the digamma function, ψ' the trigamma):
//! the mean and variance of the family's `e` give s0² and d0 (the method of
//! moments on the log scale), and each series' posterior variance is
//!
//!   s̃² = (d0 · s0² + d · s²) / (d0 + d).
//!
//! When the family's `e` vary no more than their own degrees of freedom
//! explain, d0 is infinite: every series takes s0², the family's figure.

/// The prior a family's variances were drawn from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prior {
    /// Its scale s0² (the family's typical variance).
    pub s2: f64,
    /// Its degrees of freedom d0 (how alike the family's variances are:
    /// infinite when they differ by no more than chance).
    pub df: f64,
}

/// The prior of `vars`, each a sample variance and its degrees of freedom
/// (those not finite, below 0 or on no degrees of freedom are left out).
/// As limma: variances below 1e-5 of their median are raised to it (a
/// variance of exactly 0 has no logarithm). None with no variance left;
/// with one, that variance on 0 degrees of freedom (no spread to estimate
/// d0 from: each series keeps its own).
pub fn fit_prior(vars: &[(f64, f64)]) -> Option<Prior> {
    let kept: Vec<(f64, f64)> = vars
        .iter()
        .copied()
        .filter(|(s2, d)| s2.is_finite() && *s2 > -1e-15 && d.is_finite() && *d > 1e-15)
        .map(|(s2, d)| (s2.max(0.0), d))
        .collect();
    let n = kept.len();
    if n == 0 {
        return None;
    }
    let values: Vec<f64> = kept.iter().map(|k| k.0).collect();
    let mut mid = super::median(&values)?;
    if mid <= 0.0 {
        mid = 1.0;
    }
    let e: Vec<f64> = kept
        .iter()
        .map(|&(s2, d)| s2.max(1e-5 * mid).ln() - digamma(d / 2.0) + (d / 2.0).ln())
        .collect();
    let mean = e.iter().sum::<f64>() / n as f64;
    if n < 2 {
        return Some(Prior {
            s2: mean.exp(),
            df: 0.0,
        });
    }
    let var = e.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64
        - kept.iter().map(|k| trigamma(k.1 / 2.0)).sum::<f64>() / n as f64;
    if var > 0.0 {
        let df = 2.0 * trigamma_inverse(var);
        Some(Prior {
            s2: (mean + digamma(df / 2.0) - (df / 2.0).ln()).exp(),
            df,
        })
    } else {
        Some(Prior {
            s2: mean.exp(),
            df: f64::INFINITY,
        })
    }
}

/// A series' posterior variance: its sample variance `s2` on `df` degrees
/// of freedom combined with the prior; the prior's scale for a series on
/// no degrees of freedom (or an infinite prior).
pub fn posterior(s2: f64, df: f64, prior: Prior) -> f64 {
    let own = df.is_finite() && df > 0.0 && s2.is_finite();
    if !own || prior.df.is_infinite() {
        return prior.s2;
    }
    (prior.df * prior.s2 + df * s2) / (prior.df + df)
}

/// The digamma function ψ(x), x > 0: the recurrence up to 6, then its
/// asymptotic series (error below 1e-12).
pub fn digamma(x: f64) -> f64 {
    let (mut x, mut r) = (x, 0.0);
    while x < 6.0 {
        r -= 1.0 / x;
        x += 1.0;
    }
    let f = 1.0 / (x * x);
    r + x.ln()
        - 0.5 / x
        - f * (1.0 / 12.0 - f * (1.0 / 120.0 - f * (1.0 / 252.0 - f * (1.0 / 240.0 - f / 132.0))))
}

/// The trigamma function ψ'(x), x > 0.
pub fn trigamma(x: f64) -> f64 {
    let (mut x, mut r) = (x, 0.0);
    while x < 6.0 {
        r += 1.0 / (x * x);
        x += 1.0;
    }
    let f = 1.0 / (x * x);
    r + 1.0 / x + f / 2.0 + f / x * (1.0 / 6.0 - f * (1.0 / 30.0 - f * (1.0 / 42.0 - f / 30.0)))
}

/// The tetragamma function ψ''(x), x > 0.
fn tetragamma(x: f64) -> f64 {
    let (mut x, mut r) = (x, 0.0);
    while x < 6.0 {
        r -= 2.0 / (x * x * x);
        x += 1.0;
    }
    let f = 1.0 / (x * x);
    r - f - f / x - f * f * (0.5 - f * (1.0 / 6.0 - f * (1.0 / 6.0 - f * 0.3)))
}

/// The y > 0 with ψ'(y) = x (limma's `trigammaInverse`: Newton's method
/// from 0.5 + 1/x).
pub fn trigamma_inverse(x: f64) -> f64 {
    if x > 1e7 {
        return 1.0 / x.sqrt();
    }
    if x < 1e-6 {
        return 1.0 / x;
    }
    let mut y = 0.5 + 1.0 / x;
    for _ in 0..50 {
        let tri = trigamma(y);
        let step = tri * (1.0 - tri / x) / tetragamma(y);
        y += step;
        if -step / y < 1e-8 {
            break;
        }
    }
    y
}

#[cfg(test)]
#[path = "squeeze_tests.rs"]
mod tests;
