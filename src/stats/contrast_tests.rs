use super::*;
use crate::stats::summarize;

/// A figure with median `m` and 95% interval `[lo, hi]`.
fn fig(m: f64, lo: f64, hi: f64) -> Summary {
    let mut s = summarize(&[lo, m, m, m, hi, m, m]).unwrap();
    s.median = m;
    s.ci95_lo = lo;
    s.ci95_hi = hi;
    s.ci_covers_95 = true;
    s
}

#[test]
fn intervals_that_overlap_slightly_are_apart_when_the_ratio_excludes_1() {
    // [90, 110] and [106, 130]: the intervals overlap (the old rule said
    // "indistinguishable"), but a/b's interval lies wholly below 1
    let a = fig(100.0, 90.0, 110.0);
    let b = fig(118.0, 106.0, 130.0);
    assert!(a.ci95_hi > b.ci95_lo, "the intervals overlap");
    let r = ratio(&a, &b).unwrap();
    assert!(r.hi < 1.0, "{r:?}");
    assert_eq!(order(&a, &b), Order::Below);
    assert_eq!(order(&b, &a), Order::Above);
    // and the difference agrees, for the same figures taken as amounts
    let d = difference(&a, &b);
    assert!(d.hi < 0.0, "{d:?}");
    assert!(
        d.lo > a.ci95_lo - b.ci95_hi,
        "narrower than interval arithmetic"
    );
}

#[test]
fn equal_medians_are_never_apart() {
    for (a, b) in [
        (fig(100.0, 99.0, 101.0), fig(100.0, 50.0, 200.0)),
        (fig(100.0, 100.0, 100.0), fig(100.0, 100.0, 100.0)),
        (fig(-5.0, -6.0, -4.0), fig(-5.0, -5.5, -4.5)),
        (fig(0.0, -1.0, 1.0), fig(0.0, 0.0, 0.0)),
    ] {
        assert_eq!(order(&a, &b), Order::Overlap, "{a:?} {b:?}");
        assert_eq!(difference(&a, &b).against(0.0), Order::Overlap);
        if let Some(r) = ratio(&a, &b) {
            assert_eq!(r.against(1.0), Order::Overlap);
        }
    }
}

#[test]
fn a_ratio_is_asymmetric_and_reversing_it_inverts_its_interval() {
    let a = fig(200.0, 180.0, 260.0);
    let b = fig(100.0, 95.0, 104.0);
    let ab = ratio(&a, &b).unwrap();
    let ba = ratio(&b, &a).unwrap();
    assert!((ab.value - 2.0).abs() < 1e-12);
    assert!((ab.lo * ba.hi - 1.0).abs() < 1e-12, "{ab:?} {ba:?}");
    assert!((ab.hi * ba.lo - 1.0).abs() < 1e-12, "{ab:?} {ba:?}");
    // a's wide upper side widens the ratio's upper side more than its lower
    assert!(ab.hi / ab.value - 1.0 > 1.0 - ab.lo / ab.value);
}

#[test]
fn no_ratio_unless_both_figures_are_positive() {
    let a = fig(5.0, -1.0, 8.0);
    let b = fig(10.0, 9.0, 11.0);
    assert!(ratio(&a, &b).is_none());
    // decided on the difference instead
    assert_eq!(order(&a, &b), Order::Below);
    assert_eq!(order(&fig(-5.0, -6.0, -4.0), &b), Order::Below);
}

#[test]
fn stepped_figures_are_combined_end_to_end() {
    let mut a = fig(10.0, 9.0, 11.0);
    a.quantum = 1.0;
    let b = fig(12.0, 11.5, 12.5);
    let d = difference(&a, &b);
    assert_eq!((d.lo, d.hi), (9.0 - 12.5, 11.0 - 11.5));
    let r = ratio(&a, &b).unwrap();
    assert_eq!((r.lo, r.hi), (9.0 / 12.5, 11.0 / 11.5));
}

#[test]
fn the_ratio_half_width_is_the_larger_side() {
    let r = Interval {
        value: 2.0,
        lo: 1.0,
        hi: 3.0,
    };
    assert!((r.ratio_half_width() - 0.5).abs() < 1e-12);
    let none = Interval {
        value: 1.0,
        lo: -1.0,
        hi: 3.0,
    };
    assert!(none.ratio_half_width().is_infinite());
}

/// The quotient of two growths: a method that went 1.05x beside one that
/// went 80x grew less, told apart; two alike growths are not; a growth
/// with an end at zero has no quotient.
#[test]
fn the_quotient_of_two_growths_has_its_interval() {
    let g = |value: f64, lo: f64, hi: f64| Interval { value, lo, hi };
    let q = quotient(&g(1.05, 1.01, 1.09), &g(80.0, 76.0, 84.0)).unwrap();
    assert!((q.value - 1.05 / 80.0).abs() < 1e-12);
    assert!(q.lo < q.value && q.value < q.hi);
    assert_eq!(q.against(1.0), Order::Below);
    let q = quotient(&g(1.05, 1.01, 1.09), &g(1.04, 1.00, 1.08)).unwrap();
    assert_eq!(q.against(1.0), Order::Overlap);
    // Wider than either: the two half-widths add in quadrature.
    assert!(q.hi / q.value > 1.09 / 1.05);
    assert!(quotient(&g(1.0, 0.0, 2.0), &g(1.0, 0.9, 1.1)).is_none());
}
