use super::*;

fn of(rounds: &[(u64, u64)]) -> PooledShare {
    pooled_share(rounds).expect("a share")
}

#[test]
fn the_share_is_the_pooled_ratio_and_rounds_with_more_samples_weigh_more() {
    let s = of(&[(1, 4), (9, 12)]);
    assert_eq!(s.share, 10.0 / 16.0);
    assert_eq!((s.rounds, s.samples), (2, 16));
    assert!(s.lo <= s.share && s.share <= s.hi, "{s:?}");
}

#[test]
fn a_small_share_of_rounds_with_few_samples_is_not_read_as_zero() {
    // 100 rounds of 4 samples, one sample of the function in every other
    // round: the median of the rounds' shares would be 0 or 0.25; pooled
    // it is 12.5%, and its interval holds it.
    let rounds: Vec<(u64, u64)> = (0..100).map(|i| (u64::from(i % 2 == 0), 4)).collect();
    let s = of(&rounds);
    assert_eq!(s.share, 0.125);
    assert!(s.lo > 0.0 && s.hi < 0.25, "{s:?}");
}

#[test]
fn the_shares_of_disjoint_parts_add_up_to_their_wholes() {
    let total = [10u64, 3, 7];
    let a = [4u64, 1, 2];
    let b = [5u64, 2, 5];
    let whole: Vec<(u64, u64)> = (0..3).map(|i| (a[i] + b[i], total[i])).collect();
    let part = |x: &[u64; 3]| of(&(0..3).map(|i| (x[i], total[i])).collect::<Vec<_>>()).share;
    assert!((part(&a) + part(&b) - of(&whole).share).abs() < 1e-12);
}

#[test]
fn the_interval_is_at_least_what_the_samples_alone_allow() {
    // Rounds that agree exactly still carry their samples' own error.
    let s = of(&[(2, 4), (2, 4), (2, 4)]);
    assert_eq!(s.share, 0.5);
    let (lo, hi) = wilson(0.5, 12.0);
    assert_eq!((s.lo, s.hi), (lo, hi));
    assert!(s.lo < 0.5 && s.hi > 0.5);
}

#[test]
fn rounds_that_disagree_widen_it_past_the_samples_error() {
    let agree = of(&[(50, 100), (50, 100), (50, 100), (50, 100)]);
    let disagree = of(&[(10, 100), (90, 100), (20, 100), (80, 100)]);
    assert_eq!(agree.share, disagree.share);
    assert!(
        disagree.hi - disagree.lo > 2.0 * (agree.hi - agree.lo),
        "{agree:?} {disagree:?}"
    );
}

#[test]
fn all_or_none_keeps_its_end_exactly_and_a_wilson_width_inside() {
    let none = of(&[(0, 5), (0, 6)]);
    assert_eq!((none.share, none.lo), (0.0, 0.0));
    assert!(none.hi > 0.0 && none.hi < 1.0);
    let all = of(&[(5, 5), (6, 6)]);
    assert_eq!((all.share, all.hi), (1.0, 1.0));
    assert!(all.lo > 0.0 && all.lo < 1.0);
}

#[test]
fn few_disagreeing_rounds_give_a_wide_interval_that_stays_a_share() {
    // Two rounds, one with the function and one without: t with one degree
    // of freedom, on the log-odds scale, reaches near 0 and 1, not past.
    let s = of(&[(3, 3), (0, 3)]);
    assert_eq!(s.share, 0.5);
    assert!(
        0.0 < s.lo && s.lo < 0.01 && 0.99 < s.hi && s.hi < 1.0,
        "{s:?}"
    );
    // A high share from few rounds: no bound past 1.
    let high = of(&[(8, 10), (9, 10), (10, 10), (10, 10), (10, 10)]);
    assert!(high.hi < 1.0 && high.lo < 0.94 - 0.05, "{high:?}");
}

#[test]
fn no_sample_or_a_count_past_its_samples_is_no_share() {
    assert_eq!(pooled_share(&[]), None);
    assert_eq!(pooled_share(&[(0, 0), (0, 0)]), None);
    assert_eq!(pooled_share(&[(5, 4)]), None);
    // A round with no sample is left out, not counted as a share of 0.
    assert_eq!(of(&[(2, 4), (0, 0)]).rounds, 1);
}

#[test]
fn one_round_has_the_samples_error_alone() {
    let s = of(&[(3, 10)]);
    assert_eq!((s.lo, s.hi), wilson(0.3, 10.0));
}
