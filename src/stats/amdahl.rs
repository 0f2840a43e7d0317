//! The serial fraction of Amdahl's law fitted to every measured speedup,
//! not read off one point.
//!
//! Amdahl's law, `1/S = f + (1 - f)/p`, rearranges to
//! `1/S - 1/p = f·(1 - 1/p)`: a line through the origin in
//! `x = 1 - 1/p`, `y = 1/S - 1/p`, whose slope is the serial fraction `f`.
//! Each point's Karp-Flatt value is `y/x`; the fit is their weighted mean,
//! `f = Σ wᵢxᵢyᵢ / Σ wᵢxᵢ²`, weighted least squares with
//! `wᵢ = 1 / (width of the point's interval in 1/S)²`, so a tight point
//! counts more than a loose one.
//!
//! The interval of `f` comes from the points' interval ends: the same fit
//! (same weights) of every point's low end gives the high end of `f`, of
//! every high end the low end (`y` falls as `S` rises, and the fit is
//! linear in `y`). When each point's interval holds its true speedup, and
//! the speedups follow Amdahl's law, the true `f` lies in it.

/// One measured speedup with its interval, on `workers` workers. Workers
/// beyond the CPUs cannot add speed: the caller passes the workers that
/// could run at once (`min(workers, CPUs)`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpeedupPoint {
    pub workers: f64,
    pub speedup: f64,
    pub lo: f64,
    pub hi: f64,
}

/// The fitted serial fraction with its interval. Not clamped: below zero
/// means superlinear speedup, above one a slowdown.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SerialFit {
    pub fraction: f64,
    pub lo: f64,
    pub hi: f64,
    /// The points the fit used (those on more than one worker).
    pub points: usize,
}

/// Weighted least squares of `1/S - 1/p` against `1 - 1/p` through the
/// origin (module docs). Points on one worker or fewer, or with a speedup,
/// or an interval end, that is not a finite positive number, are left out;
/// None when none is left. A point whose interval has no width weighs as
/// much as the tightest point that has one; when none has, all weigh the same.
pub fn fit_serial_fraction(points: &[SpeedupPoint]) -> Option<SerialFit> {
    let ok = |v: f64| v.is_finite() && v > 0.0;
    let used: Vec<&SpeedupPoint> = points
        .iter()
        .filter(|p| p.workers.is_finite() && p.workers > 1.0)
        .filter(|p| ok(p.speedup) && ok(p.lo) && ok(p.hi))
        .collect();
    if used.is_empty() {
        return None;
    }
    // Each point's interval width in 1/S.
    let widths: Vec<f64> = used
        .iter()
        .map(|p| (1.0 / p.lo.min(p.hi) - 1.0 / p.lo.max(p.hi)).abs())
        .collect();
    let tightest = widths
        .iter()
        .copied()
        .filter(|w| *w > 0.0)
        .fold(f64::INFINITY, f64::min);
    let weights: Vec<f64> = widths
        .iter()
        .map(|&w| {
            if tightest.is_infinite() {
                1.0
            } else {
                1.0 / w.max(tightest).powi(2)
            }
        })
        .collect();
    let fit = |speedup: &dyn Fn(&SpeedupPoint) -> f64| -> f64 {
        let (mut sxy, mut sxx) = (0.0, 0.0);
        for (p, w) in used.iter().zip(&weights) {
            let x = 1.0 - 1.0 / p.workers;
            let y = 1.0 / speedup(p) - 1.0 / p.workers;
            sxy += w * x * y;
            sxx += w * x * x;
        }
        sxy / sxx
    };
    let fraction = fit(&|p| p.speedup);
    let lo = fit(&|p| p.lo.max(p.hi));
    let hi = fit(&|p| p.lo.min(p.hi));
    [fraction, lo, hi]
        .iter()
        .all(|v| v.is_finite())
        .then_some(SerialFit {
            fraction,
            lo,
            hi,
            points: used.len(),
        })
}

/// Whether a fitted serial fraction can be read as one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// The fraction and its whole interval lie within 0–100%.
    Fraction,
    /// The fraction lies within 0–100%, but its interval reaches beyond:
    /// the points do not bound it.
    Unbounded,
    /// The fraction itself is above 100% (the speedups fall below what any
    /// serial part could give: a slowdown) or below 0% (superlinear): the
    /// law does not hold for these points, and it is no fraction.
    DoesNotHold,
}

impl SerialFit {
    /// What the fit may be read as. Never clamped: an estimate of 103.8%
    /// is not "100%", it says the law does not fit.
    pub fn reading(&self) -> Reading {
        let within = |v: f64| (0.0..=1.0).contains(&v);
        if !within(self.fraction) {
            Reading::DoesNotHold
        } else if within(self.lo) && within(self.hi) {
            Reading::Fraction
        } else {
            Reading::Unbounded
        }
    }
}

#[cfg(test)]
#[path = "amdahl_tests.rs"]
mod tests;
