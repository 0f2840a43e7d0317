//! Whether a clean split of rounds could be chance: an exact permutation
//! test. A record read in each round (a canary, a share of memory in
//! order) "splits the rounds as their two modes do" when every value of one
//! mode's rounds lies below every value of the other's. With no link
//! between the record and the modes, each of the C(n, k) ways to choose
//! which k of the n rounds form the first mode is equally likely, and only
//! the few that put the k lowest (or the k highest) values together are
//! that clean; so chance alone gives a clean split of 4 rounds against 2
//! with p = 2/15 (13%), and of 8 against 8 with p = 2/12,870.

/// The exact two-sided p-value of the split of `values` by `first` (the
/// rounds of one group: `first[i]` for `values[i]`) being clean, every value
/// of one group below every value of the other: the share of the C(n, k)
/// ways to take k of the n values (k, the first group's size) whose split
/// is that clean, either way round. Ties count against cleanness (a clean
/// split is strict), so tied values make fewer clean splits, never more. 1
/// when the split itself is not clean (every split is at least that
/// extreme); None when a group is empty, the lengths differ or a value is
/// not a number.
pub fn clean_split_p(values: &[f64], first: &[bool]) -> Option<f64> {
    let n = values.len();
    let k = first.iter().filter(|f| **f).count();
    if first.len() != n || k == 0 || k == n || values.iter().any(|v| v.is_nan()) {
        return None;
    }
    let side = |want: bool| values.iter().zip(first).filter(move |(_, f)| **f == want);
    let max = |want: bool| {
        side(want)
            .map(|(v, _)| *v)
            .fold(f64::NEG_INFINITY, f64::max)
    };
    let min = |want: bool| side(want).map(|(v, _)| *v).fold(f64::INFINITY, f64::min);
    if !(max(true) < min(false) || max(false) < min(true)) {
        return Some(1.0);
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    // The k lowest values apart from the rest, and the k highest.
    let clean = usize::from(v[k - 1] < v[k]) + usize::from(v[n - k - 1] < v[n - k]);
    Some(clean as f64 / choose(n, k))
}

/// The ways to choose `k` of `n`, as a float (exact to 2^53).
pub fn choose(n: usize, k: usize) -> f64 {
    let k = k.min(n - k);
    (0..k)
        .fold(1.0, |c, i| c * (n - i) as f64 / (i + 1) as f64)
        .round()
}

#[cfg(test)]
#[path = "split_tests.rs"]
mod tests;
