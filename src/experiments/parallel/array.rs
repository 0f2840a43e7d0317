//! The engine of seed 003 ("Linux Fu: An Odd Use For Fork()"): its array of
//! doubles, their exact average, and the ways of summing it (serial, forked
//! children, threads, a rayon pool), every one checked against serial.

use crate::sys::forkwork as par;
use rayon::prelude::*;

/// The seed's array size.
pub const SEED_N: u64 = 55_256_000;

/// Fills `xs` with the fill formula, `x_i = k_i / 10007` with `k_i = 7919·i
/// mod 10007`, stepping `k` instead of dividing (no 64-bit modulo per
/// element). Both are prime, so each run of 10007 consecutive `i` takes
/// every `k` once, which gives the exact sum in integers (see
/// [`exact_sum_k`]).
pub fn fill(xs: &mut [f64]) {
    let mut k = 0u64;
    for x in xs.iter_mut() {
        *x = k as f64 / 10007.0;
        k += 7919;
        if k >= 10007 {
            k -= 10007;
        }
    }
}

/// `Σ k_i` for `i < n`, exactly, in integers.
pub fn exact_sum_k(n: u64) -> u128 {
    let period = 10007u64;
    let full = n / period;
    let mut s = full as u128 * (period as u128 * (period as u128 - 1) / 2);
    for i in full * period..n {
        s += (i.wrapping_mul(7919) % period) as u128;
    }
    s
}

/// The exact average of the first `n` values (to f64 precision).
pub fn exact_average(n: u64) -> f64 {
    if n == 0 {
        return 0.0;
    }
    exact_sum_k(n) as f64 / 10007.0 / n as f64
}

/// How far a variant's average may stray from serial, relative.
///
/// A parallel sum adds the same numbers in another order, and floating-point
/// addition is not associative: every order rounds differently, so the
/// variants may disagree in the last bits. Each of the n additions rounds by
/// at most half an ulp of the running total; those errors behave like a random
/// walk, so the typical relative error of a sum grows like u·√n/3
/// (u = 2⁻⁵³ ≈ 1.1e-16): a few 1e-13 at the seed's n. We allow 8·u·√n,
/// floored at 1e-12: about 25 standard deviations of that walk, yet still
/// several times smaller than one element's share of the sum (1/n) up to
/// n = 3e9 (24 GB of doubles), so a lost, doubled or misplaced slice always
/// fails. (The rigorous worst case, (n-1)·u, would be too loose to see one
/// lost element.)
pub fn tolerance(n: u64) -> f64 {
    (8.0 * f64::EPSILON / 2.0 * (n as f64).sqrt()).max(1e-12)
}

/// Relative difference of `a` from `reference`.
pub fn rel_diff(a: f64, reference: f64) -> f64 {
    if reference == 0.0 {
        a.abs()
    } else {
        ((a - reference) / reference).abs()
    }
}

/// Splits `0..n` into `w` contiguous ranges whose sizes differ by at most one.
pub fn split(n: usize, w: usize) -> Vec<std::ops::Range<usize>> {
    let w = w.max(1);
    let (q, r) = (n / w, n % w);
    let mut out = Vec::with_capacity(w);
    let mut start = 0;
    for i in 0..w {
        let len = q + usize::from(i < r);
        out.push(start..start + len);
        start += len;
    }
    out
}

/// How an average is computed. Names, descriptions and the `variants`
/// parameter come from the table in [`super::variants`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Serial,
    /// The parent sums the first slice itself while W-1 forked children sum
    /// the others and send their partial sums through a pipe (the seed's
    /// scheme: it forked one child for two workers).
    Fork,
    /// The calling thread plus W-1 scoped threads, one slice each.
    Threads,
    /// A rayon pool of W threads, built before timing, stealing chunks.
    Pool,
}

/// Rayon pools by worker count, built outside every timed window: a pool is
/// long-lived by design, its start-up is not what a pool user pays per task.
pub struct Pools(Vec<(usize, rayon::ThreadPool)>);

impl Pools {
    pub fn new(workers: &[usize]) -> anyhow::Result<Pools> {
        let mut v = Vec::new();
        for &w in workers {
            let p = rayon::ThreadPoolBuilder::new().num_threads(w).build()?;
            v.push((w, p));
        }
        Ok(Pools(v))
    }

    fn get(&self, w: usize) -> &rayon::ThreadPool {
        &self
            .0
            .iter()
            .find(|(n, _)| *n == w)
            .expect("a pool per worker count")
            .1
    }
}

/// The sum of `xs` by `variant` with `w` workers.
pub fn sum_by(xs: &[f64], variant: Variant, w: usize, pools: &Pools) -> anyhow::Result<f64> {
    Ok(match variant {
        Variant::Serial => par::seed_sum(xs),
        Variant::Fork => {
            let ranges = split(xs.len(), w);
            let mut children = Vec::with_capacity(w);
            let mut err = None;
            for r in &ranges[1..] {
                match par::fork_sum(&xs[r.clone()], false) {
                    Ok(c) => children.push(c),
                    Err(e) => {
                        err = Some(e);
                        break;
                    }
                }
            }
            // Even after a failed fork, sum and reap what was started.
            let mut total = par::seed_sum(&xs[ranges[0].clone()]);
            for c in children {
                match c.collect() {
                    Ok(r) => total += r.sum,
                    Err(e) => err = err.or(Some(e)),
                }
            }
            if let Some(e) = err {
                anyhow::bail!("fork variant, {w} workers: {e}");
            }
            total
        }
        Variant::Threads => {
            let ranges = split(xs.len(), w);
            std::thread::scope(|s| {
                let handles: Vec<_> = ranges[1..]
                    .iter()
                    .map(|r| {
                        let part = &xs[r.clone()];
                        s.spawn(move || par::seed_sum(part))
                    })
                    .collect();
                let mut total = par::seed_sum(&xs[ranges[0].clone()]);
                for h in handles {
                    total += h
                        .join()
                        .map_err(|_| anyhow::anyhow!("a summing thread panicked"))?;
                }
                anyhow::Ok(total)
            })?
        }
        Variant::Pool => {
            // Chunks of 64 Ki doubles (512 KiB): small enough to balance
            // across W threads by stealing, large enough that the per-chunk
            // cost vanishes.
            let chunk = (xs.len() / (w * 16)).clamp(1, 1 << 16);
            pools
                .get(w)
                .install(|| xs.par_chunks(chunk).map(par::seed_sum).sum::<f64>())
        }
    })
}

/// Checks `avg` against the serial average: a mismatch is an error.
pub fn check_against_serial(
    what: &str,
    avg: f64,
    serial: f64,
    n: u64,
    worst: &mut f64,
) -> anyhow::Result<()> {
    let d = rel_diff(avg, serial);
    *worst = worst.max(d);
    if d > tolerance(n) {
        anyhow::bail!(
            "{what}: average {avg:.17} differs from the serial {serial:.17} by {d:.2e} (relative), \
             beyond the tolerance {:.1e}: a slice was lost, doubled or misread",
            tolerance(n)
        );
    }
    Ok(())
}

#[cfg(test)]
#[path = "array_tests.rs"]
mod tests;
