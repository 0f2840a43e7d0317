use super::*;
use rand::rngs::Xoshiro256PlusPlus;

/// A standard normal draw (Box–Muller).
fn normal(rng: &mut Xoshiro256PlusPlus) -> f64 {
    let u1: f64 = rng.random_range(f64::EPSILON..1.0);
    let u2: f64 = rng.random_range(0.0..1.0);
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// `n` pairs of round medians, B = A·`ratio`, where the host's state moves
/// both rounds of a pair by a shared factor (sd `host` in logs) and each
/// round has its own noise (sd `own`).
fn pairs(
    rng: &mut Xoshiro256PlusPlus,
    n: usize,
    ratio: f64,
    host: f64,
    own: f64,
) -> (Vec<f64>, Vec<f64>) {
    (0..n)
        .map(|_| {
            let h = host * normal(rng);
            let a = (1000f64.ln() + h + own * normal(rng)).exp();
            let b = (1000f64.ln() + ratio.ln() + h + own * normal(rng)).exp();
            (a, b)
        })
        .unzip()
}

#[test]
fn the_blocks_run_a_b_b_a() {
    let order: String = (0..8).map(|b| block_side(b).name()).collect();
    assert_eq!(order, "ABBAABBA");
}

#[test]
fn equal_sides_give_a_ratio_of_one() {
    let a = [10.0, 11.0, 12.0, 9.0];
    let c = paired_change(&a, &a, 1).unwrap();
    assert_eq!((c.ratio, c.lo, c.hi), (1.0, 1.0, 1.0));
}

#[test]
fn too_few_or_unequal_pairs_give_nothing() {
    assert!(paired_change(&[1.0, 2.0], &[1.0, 2.0], 1).is_none());
    assert!(paired_change(&[1.0, 2.0, 3.0], &[1.0, 2.0], 1).is_none());
    assert!(paired_change(&[1.0, f64::NAN, 3.0], &[1.0, 2.0, 3.0], 1).is_none());
    assert!(paired_change(&[0.0, 0.0, 0.0], &[-1.0, 2.0, 3.0], 1).is_none());
}

#[test]
fn a_shared_drift_cancels_in_the_pairs() {
    // The host moves by ±30% between pairs, each round by ±1% of its own:
    // a 5% change is seen, with an interval far narrower than the drift.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let (a, b) = pairs(&mut rng, 8, 1.05, 0.3, 0.01);
    let c = paired_change(&a, &b, 7).unwrap();
    assert!(c.lo > 1.0 && c.hi < 1.10, "{c:?}");
}

#[test]
fn the_interval_covers_the_true_ratio_most_of_the_time() {
    // 400 comparisons of 8 pairs with a known ratio: a 95% interval must
    // hold it at least 90% of the time (deterministic: seeded).
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    let trials = 400;
    let held = (0..trials)
        .filter(|&t| {
            let (a, b) = pairs(&mut rng, 8, 1.10, 0.2, 0.03);
            let c = paired_change(&a, &b, t as u64).unwrap();
            c.lo <= 1.10 && 1.10 <= c.hi
        })
        .count();
    assert!(held * 100 >= trials * 90, "{held} of {trials}");
}

#[test]
fn a_figure_that_can_be_negative_is_compared_by_difference() {
    let a = [-1.0, 1.0, 0.0, 2.0];
    let b = [0.0, 2.0, 1.0, 3.0];
    let c = paired_change(&a, &b, 1).unwrap();
    // every pair moved up by 1, A's scale is 1: ratio 2, an exact interval
    assert!((c.ratio - 2.0).abs() < 1e-12, "{c:?}");
    assert!((c.lo - 2.0).abs() < 1e-12 && (c.hi - 2.0).abs() < 1e-12);
}

#[test]
fn a_paired_difference_is_the_mean_of_the_pairs_in_their_own_unit() {
    // The same difference in every pair, zeros included: exactly it.
    let d = paired_difference(&[0.0, 2.0, 4.0], &[3.0, 5.0, 7.0], 1).unwrap();
    assert_eq!((d.value, d.lo, d.hi), (3.0, 3.0, 3.0));
    // Differences of both signs: an interval that holds zero.
    let d = paired_difference(&[5.0; 4], &[6.0, 4.0, 7.0, 3.0], 1).unwrap();
    assert_eq!(d.value, 0.0);
    assert!(d.lo < 0.0 && d.hi > 0.0, "{d:?}");
    assert!(paired_difference(&[1.0, 2.0], &[1.0, 2.0], 1).is_none());
}
