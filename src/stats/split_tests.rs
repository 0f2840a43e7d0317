use super::*;

/// Every way to take k of the n values, counted one by one: the share whose
/// split is clean, as the permutation test defines it.
fn by_enumeration(values: &[f64], first: &[bool]) -> f64 {
    let n = values.len();
    let k = first.iter().filter(|f| **f).count();
    let (mut clean, mut all) = (0u64, 0u64);
    for mask in 0u32..(1 << n) {
        if mask.count_ones() as usize != k {
            continue;
        }
        all += 1;
        let pick: Vec<bool> = (0..n).map(|i| mask >> i & 1 == 1).collect();
        let of = |want: bool| {
            values
                .iter()
                .zip(&pick)
                .filter(move |(_, p)| **p == want)
                .map(|(v, _)| *v)
        };
        let (a_max, a_min) = (
            of(true).fold(f64::MIN, f64::max),
            of(true).fold(f64::MAX, f64::min),
        );
        let (b_max, b_min) = (
            of(false).fold(f64::MIN, f64::max),
            of(false).fold(f64::MAX, f64::min),
        );
        clean += u64::from(a_max < b_min || b_max < a_min);
    }
    clean as f64 / all as f64
}

#[test]
fn a_perfect_split_has_the_exact_p_of_its_sizes() {
    // 4 rounds against 4: 2 clean ways of C(8, 4) = 70.
    let v = [1.0, 2.0, 3.0, 4.0, 10.0, 11.0, 12.0, 13.0];
    let low = [true, true, true, true, false, false, false, false];
    assert_eq!(clean_split_p(&v, &low), Some(2.0 / 70.0));
    // the other way round, and shuffled: the same
    let high: Vec<bool> = low.iter().map(|l| !l).collect();
    assert_eq!(clean_split_p(&v, &high), Some(2.0 / 70.0));
    let w = [10.0, 1.0, 11.0, 2.0, 12.0, 3.0, 13.0, 4.0];
    let f = [false, true, false, true, false, true, false, true];
    assert_eq!(clean_split_p(&w, &f), Some(2.0 / 70.0));
    // 8 against 8: 2 of 12,870.
    let v: Vec<f64> = (0..16).map(f64::from).collect();
    let low: Vec<bool> = (0..16).map(|i| i < 8).collect();
    assert_eq!(clean_split_p(&v, &low), Some(2.0 / 12_870.0));
    // 4 against 2, the small splits a run of 6 rounds gives: 2 of 15.
    let v = [1.0, 2.0, 3.0, 4.0, 9.0, 8.0];
    let low = [true, true, true, true, false, false];
    assert_eq!(clean_split_p(&v, &low), Some(2.0 / 15.0));
}

#[test]
fn ties_and_unclean_splits_count_as_the_definition_says() {
    // each mode's rounds alike: only the four lows apart from the two
    // highs is clean (the four highest include a low), 1 of 15
    let v = [27.0, 27.0, 27.0, 27.0, 198.0, 198.0];
    let low = [true, true, true, true, false, false];
    assert_eq!(clean_split_p(&v, &low), Some(1.0 / 15.0));
    // a tie across the groups: not clean, p = 1
    let v = [1.0, 2.0, 3.0, 5.0, 5.0, 6.0];
    assert_eq!(clean_split_p(&v, &low), Some(1.0));
    // mixed: p = 1
    let v = [1.0, 9.0, 3.0, 4.0, 2.0, 8.0];
    assert_eq!(clean_split_p(&v, &low), Some(1.0));
    // nothing to split
    assert_eq!(clean_split_p(&v, &[true; 6]), None);
    assert_eq!(clean_split_p(&v, &[true, false]), None);
    assert_eq!(clean_split_p(&[f64::NAN, 1.0], &[true, false]), None);
}

#[test]
fn the_closed_form_agrees_with_counting_every_split() {
    // Small inputs with ties, every group size, both clean and not.
    let sets: [&[f64]; 4] = [
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
        &[1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 3.0, 4.0],
        &[5.0, 5.0, 5.0, 5.0, 5.0],
        &[0.3, 0.1, 0.9, 0.9, 0.2, 0.7, 0.4, 0.4, 0.8, 0.5],
    ];
    for v in sets {
        let n = v.len();
        for mask in 1u32..(1 << n) - 1 {
            let first: Vec<bool> = (0..n).map(|i| mask >> i & 1 == 1).collect();
            let p = clean_split_p(v, &first).unwrap();
            // a clean split's p is the share of clean ones; an unclean one's is 1
            let of = |want: bool| {
                v.iter()
                    .zip(&first)
                    .filter(move |(_, f)| **f == want)
                    .map(|(x, _)| *x)
            };
            let max = |w| of(w).fold(f64::MIN, f64::max);
            let min = |w| of(w).fold(f64::MAX, f64::min);
            let observed_clean = max(true) < min(false) || max(false) < min(true);
            let expect = if observed_clean {
                by_enumeration(v, &first)
            } else {
                1.0
            };
            assert!(
                (p - expect).abs() < 1e-12,
                "{v:?} {first:?}: {p} against {expect}"
            );
        }
    }
}

#[test]
fn choose_is_exact() {
    assert_eq!(choose(8, 4), 70.0);
    assert_eq!(choose(16, 8), 12_870.0);
    assert_eq!(choose(6, 2), 15.0);
    assert_eq!(choose(30, 15), 155_117_520.0);
    assert_eq!(choose(5, 0), 1.0);
}
