//! Many rows at once: the false discovery rate of a comparison of ~850
//! series, controlled by families (an experiment at one point is a family:
//! its series share the rounds, the workers and the host's state).
//!
//! - **A family's p-value** is Simes' combination of its rows' p-values
//!   (valid under the positive dependence a family's rows have: one slow
//!   round moves them together).
//! - **The families** are selected by Benjamini–Hochberg at level q.
//! - **Within a selected family**, rows are selected by Benjamini–Hochberg
//!   at level q·S/M (S families selected of M): Benjamini and Bogomolov,
//!   "Selective inference on multiple families of hypotheses" (JRSS B,
//!   2014), which keeps the expected share of false discoveries among the
//!   selected families at q, averaged over them.

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// From this many degrees of freedom on (and for a df that is not finite),
/// Student's t is taken as the normal.
const NORMAL_FROM: f64 = 1000.0;

/// The one-sided p-value of a change `delta` (in logs) beyond `bound` (a
/// positive log threshold) in the direction of `delta`, with standard error
/// `se` and `df` degrees of freedom: the chance of a change at least this
/// far beyond the threshold if the true change sat exactly on it.
/// 1 when the change does not reach past the threshold at all; 0 for a
/// change beyond it with no error at all; NaN inputs give 1 (never a
/// discovery).
pub fn beyond(delta: f64, bound: f64, se: f64, df: f64) -> f64 {
    if !(delta.is_finite() && bound.is_finite() && se.is_finite() && se >= 0.0) {
        return 1.0;
    }
    let excess = delta.abs() - bound.max(0.0);
    if excess <= 0.0 {
        return 1.0;
    }
    if se == 0.0 {
        // an exact change (every pair the same ratio): beyond for certain
        return 0.0;
    }
    sf(excess / se, df)
}

/// P(T > t) for Student's t with `df` degrees of freedom (the normal from
/// [`NORMAL_FROM`] on, or for a df that is not finite or not positive).
pub fn sf(t: f64, df: f64) -> f64 {
    if df.is_finite() && df > 0.0 && df < NORMAL_FROM {
        if let Ok(d) = StudentsT::new(0.0, 1.0, df) {
            return d.sf(t);
        }
    }
    Normal::standard().sf(t)
}

/// The two-sided 97.5% quantile of Student's t at `df` degrees of freedom
/// (fractional df, as Welch's gives, allowed).
pub fn t975(df: f64) -> f64 {
    if df.is_finite() && df > 0.0 && df < NORMAL_FROM {
        if let Ok(d) = StudentsT::new(0.0, 1.0, df) {
            return d.inverse_cdf(0.975);
        }
    }
    super::Z95
}

/// Simes' combination of p-values: min over i of p(i)·m / i (sorted
/// ascending); 1 for none.
pub fn simes(p: &[f64]) -> f64 {
    let mut v: Vec<f64> = p.iter().map(|x| clean(*x)).collect();
    if v.is_empty() {
        return 1.0;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() as f64;
    v.iter()
        .enumerate()
        .map(|(i, x)| x * m / (i + 1) as f64)
        .fold(1.0, f64::min)
}

/// Benjamini–Hochberg at level `q`: which of `p` are discoveries (the
/// largest k with p(k) ≤ q·k/m, and every p at or below p(k)).
pub fn bh(p: &[f64], q: f64) -> Vec<bool> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| clean(p[a]).total_cmp(&clean(p[b])));
    let mut cut = None;
    for (k, &i) in order.iter().enumerate() {
        if clean(p[i]) <= q * (k + 1) as f64 / m as f64 {
            cut = Some(k);
        }
    }
    let mut out = vec![false; m];
    if let Some(k) = cut {
        for &i in &order[..=k] {
            out[i] = true;
        }
    }
    out
}

/// Benjamini–Bogomolov over `families` (each a list of row p-values) at
/// level `q`: for each family, whether it was selected, and which of its
/// rows are discoveries.
pub fn by_families(families: &[Vec<f64>], q: f64) -> Vec<(bool, Vec<bool>)> {
    let fp: Vec<f64> = families.iter().map(|f| simes(f)).collect();
    let selected = bh(&fp, q);
    let s = selected.iter().filter(|x| **x).count();
    let m = families.len().max(1);
    let inner = q * s as f64 / m as f64;
    families
        .iter()
        .zip(&selected)
        .map(|(f, &sel)| {
            if sel {
                (true, bh(f, inner))
            } else {
                (false, vec![false; f.len()])
            }
        })
        .collect()
}

/// A p-value as a probability: NaN and anything outside [0, 1] clamped to
/// the nearest end, NaN to 1 (never a discovery).
fn clean(p: f64) -> f64 {
    if p.is_nan() {
        1.0
    } else {
        p.clamp(0.0, 1.0)
    }
}

#[cfg(test)]
#[path = "fdr_tests.rs"]
mod tests;
