use super::*;

#[test]
fn bh_finds_the_largest_k_under_the_line() {
    // m = 5, q = 5%: the line is 0.01, 0.02, 0.03, 0.04, 0.05
    let p = [0.030, 0.001, 0.5, 0.011, 0.9];
    // sorted: 0.001 (≤0.01), 0.011 (≤0.02), 0.030 (≤0.03), 0.5, 0.9
    assert_eq!(bh(&p, 0.05), vec![true, true, false, true, false]);
    // a p above its own line is still a discovery when a larger k passes
    let p = [0.015, 0.016];
    assert_eq!(bh(&p, 0.05), vec![true, true]);
    assert_eq!(bh(&[], 0.05), Vec::<bool>::new());
    assert_eq!(bh(&[f64::NAN, 0.2], 0.05), vec![false, false]);
}

#[test]
fn simes_is_the_smallest_scaled_p() {
    assert!((simes(&[0.04, 0.5, 0.01]) - 0.03).abs() < 1e-12);
    assert_eq!(simes(&[]), 1.0);
    assert_eq!(simes(&[0.3]), 0.3);
}

#[test]
fn beyond_is_one_inside_the_threshold_and_small_far_beyond_it() {
    let b = 1.05f64.ln();
    assert_eq!(beyond(0.02, b, 0.01, 20.0), 1.0);
    assert_eq!(beyond(-0.02, b, 0.01, 20.0), 1.0);
    let far = beyond(3f64.ln(), b, 0.01, 20.0);
    assert!(far < 1e-10, "{far}");
    // symmetric in the direction
    assert_eq!(beyond(0.2, b, 0.05, 10.0), beyond(-0.2, b, 0.05, 10.0));
    // a wider standard error gives a larger p
    assert!(beyond(0.2, b, 0.1, 10.0) > beyond(0.2, b, 0.05, 10.0));
    assert_eq!(beyond(f64::NAN, b, 0.1, 10.0), 1.0);
    // an exact change beyond the threshold is beyond for certain
    assert_eq!(beyond(0.2, b, 0.0, 10.0), 0.0);
    assert_eq!(beyond(0.01, b, 0.0, 10.0), 1.0);
}

#[test]
fn the_t_quantile_matches_the_table() {
    assert!((t975(7.0) - 2.365).abs() < 1e-3);
    assert!((t975(1e9) - 1.960).abs() < 1e-3);
    assert!((sf(1.96, f64::INFINITY) - 0.025).abs() < 1e-3);
}

#[test]
fn families_share_one_level_and_a_null_family_is_never_selected() {
    // one family with a strong change, 99 with none
    let mut fams = vec![vec![1e-8, 0.5, 0.6]];
    fams.extend((0..99).map(|_| vec![0.4, 0.7, 1.0]));
    let out = by_families(&fams, 0.05);
    assert!(out[0].0);
    assert_eq!(out[0].1, vec![true, false, false]);
    assert!(out[1..]
        .iter()
        .all(|(sel, rows)| !sel && rows.iter().all(|r| !r)));
}

/// Under the null (every p uniform), the share of runs with any discovery
/// across 200 families stays near q: a deterministic stream stands in for
/// uniform p-values.
#[test]
fn under_the_null_false_discoveries_are_rare() {
    let mut x: u64 = 12345;
    let mut uniform = || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((x >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    };
    let trials = 400;
    let mut any = 0;
    for _ in 0..trials {
        let fams: Vec<Vec<f64>> = (0..200)
            .map(|_| (0..4).map(|_| uniform()).collect())
            .collect();
        if by_families(&fams, 0.05).iter().any(|(s, _)| *s) {
            any += 1;
        }
    }
    // Under the global null BH's family-wise error is q (5%): allow 2x
    assert!(any <= trials / 10, "{any} of {trials}");
}
