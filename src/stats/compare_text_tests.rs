use super::*;
use crate::stats::summarize;

/// A settled figure with a tight 95% interval around `m` (31 points).
fn tight(m: f64) -> Summary {
    let v: Vec<f64> = (0..31).map(|i| m + (i as f64 - 15.0) * m * 0.001).collect();
    summarize(&v).unwrap()
}

#[test]
fn separated_intervals_give_a_ratio() {
    let t = compare(
        "fork",
        &tight(200_000.0),
        "thread",
        &tight(25_000.0),
        Unit::Ns,
    );
    assert_eq!(t, "fork (200 µs) is 8.0x thread (25.0 µs)");
    let t = compare("a", &tight(1000.0), "b", &tight(2000.0), Unit::Ns);
    assert_eq!(t, "a (1.00 µs) is 0.50x b (2.00 µs)");
}

#[test]
fn overlapping_intervals_are_indistinguishable() {
    let a = summarize(&[90.0, 100.0, 110.0, 95.0, 105.0, 100.0, 99.0]).unwrap();
    let b = summarize(&[98.0, 108.0, 118.0, 103.0, 113.0, 108.0, 107.0]).unwrap();
    assert_eq!(order(&a, &b), Order::Overlap);
    let t = compare("a", &a, "b", &b, Unit::Ns);
    assert!(t.contains("is indistinguishable from b"), "{t}");
    assert!(t.ends_with("here"), "{t}");
    assert!(!t.contains('x'), "no ratio through noise: {t}");
    let d = difference(&a, &b, Unit::Ns);
    assert_eq!(d.sign(), Order::Overlap);
}

#[test]
fn a_negative_difference_stays_negative() {
    // "kept awake" was expected to be faster and was slower
    let awake = tight(12_200.0);
    let idle = tight(6_630.0);
    let d = difference(&idle, &awake, Unit::Ns);
    assert!(d.d < 0.0 && d.hi < 0.0);
    assert_eq!(d.sign(), Order::Below);
    let s = d.text();
    assert!(s.starts_with("-5.57 µs ["), "{s}");
    assert!(!s.contains("0.00"), "never clamped to zero: {s}");
    // no ratio from figures that are not both positive
    let neg = summarize(&[-300.0; 7]).unwrap();
    let t = compare("net", &neg, "base", &tight(100.0), Unit::Ns);
    assert!(t.contains("less than base"), "{t}");
    assert!(!t.contains("-3.0x") && !t.contains("x base"), "{t}");
}

#[test]
fn three_points_are_labelled_min_max_of_3() {
    let a = summarize(&[10.0, 12.0, 11.0]).unwrap();
    let f = figure(&a, Unit::Ns);
    assert_eq!(f, "11.0 ns [10.0 ns, 12.0 ns; min–max of 3, 75%]");
    let d = difference(&tight(100.0), &a, Unit::Ns);
    assert!(d.text().contains("from min–max of 3, 75%"), "{}", d.text());
    assert!(!d.text().contains("95%"), "{}", d.text());
}

#[test]
fn a_share_is_never_above_100_percent() {
    let gap = difference(&tight(3000.0), &tight(2800.0), Unit::Ns);
    let part = difference(&tight(1290.0), &tight(0.0), Unit::Ns);
    // the part (1.29 µs) exceeds the 200 ns gap
    assert_eq!(share(&part, &gap), Share::Exceeds);
    let t = share_text(&part, &gap);
    assert!(t.contains("do not add up"), "{t}");
    assert!(!t.contains('%'), "{t}");
    // a gap within noise gets no share at all
    let a = summarize(&[90.0, 100.0, 110.0, 95.0, 105.0, 100.0, 99.0]).unwrap();
    let b = summarize(&[91.0, 101.0, 111.0, 96.0, 106.0, 101.0, 100.0]).unwrap();
    let noisy_gap = difference(&b, &a, Unit::Ns);
    let small = difference(&tight(1.0), &tight(0.5), Unit::Ns);
    assert_eq!(share(&small, &noisy_gap), Share::GapWithinNoise);
    assert!(share_text(&small, &noisy_gap).contains("within noise"));
    // a real share
    let gap = difference(&tight(4000.0), &tight(2000.0), Unit::Ns);
    let part = difference(&tight(1500.0), &tight(1000.0), Unit::Ns);
    assert_eq!(share(&part, &gap), Share::Of(0.25));
    let t = share_text(&part, &gap);
    assert!(
        t.contains("; its share of the 2.00 µs") && t.ends_with(" gap: 25%"),
        "{t}"
    );
}

/// A share is quoted as computed, never clamped to 100%, and a share
/// above 100% is not quoted at all: the words say the part does not add
/// up to the gap (issue 39).
#[test]
fn a_share_above_100_percent_is_never_quoted() {
    let gap = difference(&tight(4000.0), &tight(2000.0), Unit::Ns);
    let part = difference(&tight(3990.0), &tight(2000.0), Unit::Ns);
    // 1.99 of 2.00 µs: quoted as it is (rounded, never clamped)
    let t = share_words(Share::Of(0.995), &part, &gap);
    assert!(
        t.contains("share of the 2.00 µs [2.00 µs, 2.00 µs] gap: 100%") || t.ends_with("gap: 100%"),
        "{t}"
    );
    let t = share_words(Share::Of(0.5), &part, &gap);
    assert!(t.ends_with("gap: 50%"), "{t}");
    for over in [1.000_001, 1.2, 7.5] {
        let t = share_words(Share::Of(over), &part, &gap);
        assert!(!t.contains('%'), "{over}: {t}");
        assert!(
            t.contains("not quoted, the part is larger than the gap: the parts do not add up"),
            "{t}"
        );
    }
}

/// parallel.average's reap against the fork gap in a default run (issue 39):
/// 803 µs [535 µs, 1.69 ms] of a 2.70 ms [340 µs, 4.93 ms] gap is "30%"
/// by the medians, but the share's interval runs to 1.69 / 0.34 = 497%.
#[test]
fn a_share_whose_interval_reaches_past_the_gap_is_not_quoted() {
    let gap = Difference {
        d: 2.70e6,
        lo: 340e3,
        hi: 4.93e6,
        unit: Unit::Ns,
        weak: None,
    };
    let part = Difference {
        d: 803e3,
        lo: 535e3,
        hi: 1.69e6,
        unit: Unit::Ns,
        weak: None,
    };
    assert_eq!(share(&part, &gap), Share::Unbounded);
    let t = share_text(&part, &gap);
    assert!(
        t.contains("gap: not quoted, the part's interval reaches past"),
        "{t}"
    );
    assert!(!t.contains('%'), "{t}");
    // The same part inside a gap whose lower end clears it: quoted.
    let gap = Difference { lo: 1.8e6, ..gap };
    assert!(matches!(share(&part, &gap), Share::Of(f) if (f - 803.0 / 2700.0).abs() < 1e-9));
}

#[test]
fn nothing_prints_minus_zero() {
    assert_eq!(fmt_signed(-0.0, Unit::Ns), "0.00 ns");
    // A tiny time is no zero: it keeps two digits and its sign (a slope
    // per page of 0.0006 ns read "0.00 ns [0.00 ns, 0.00 ns]").
    assert_eq!(fmt_signed(-0.001, Unit::Ns), "-0.0010 ns");
    assert_eq!(fmt_signed(-5.0, Unit::Ns), "-5.00 ns");
    assert_eq!(fmt_ratio(1.001), "1.001x");
    assert_eq!(fmt_ratio(8.13), "8.1x");
}

/// The fixture's switch.wakeup res_per_op with the peer running (a
/// count per hand-off): median 0, 95% interval [-0.000296, 0.00189]. Its
/// lower bound is below zero, and the figure says so: never "[0.00, …]",
/// which would read as an interval that stops at zero.
#[test]
fn a_bound_below_zero_keeps_its_minus_when_it_rounds_to_zero() {
    let s = fig(
        0.0,
        -0.000_295_683_027_794_204_64,
        0.001_885_786_101_172_594_1,
    );
    let t = figure(&s, Unit::Count);
    assert_eq!(t, "0 [-0.0003, 0.00]", "{t}");
    assert_eq!(fmt_bound(-0.04, Unit::Percent), "-0.04%");
    // A time keeps two digits of its own below 0.01 ns (units::fmt_ns).
    assert_eq!(fmt_bound(-0.004, Unit::Ns), "-0.0040 ns");
    assert_eq!(fmt_bound(-0.3, Unit::PerSecond), "-0.3/s");
    assert_eq!(fmt_bound(-0.004, Unit::Kib), "-0.004 KiB");
    // A bound that shows its digits, or is not below zero, is as before.
    assert_eq!(fmt_bound(-5.0, Unit::Ns), "-5.00 ns");
    assert_eq!(fmt_bound(-0.0, Unit::Ns), "0.00 ns");
    assert_eq!(fmt_bound(0.001, Unit::Count), "0.00");
    // A difference's interval, the same.
    let d = Difference {
        d: 0.01,
        lo: -0.002,
        hi: 0.02,
        unit: Unit::Count,
        weak: None,
    };
    assert_eq!(d.text(), "0.01 [-0.002, 0.02]");
}

#[test]
fn a_ratio_interval_below_zero_is_never_printed() {
    let mut s = summarize(&[1.0, 1.2, 1.4]).unwrap();
    s.ci95_lo = -8.83;
    s.ci95_hi = 11.24;
    let t = figure(&s, Unit::Ratio);
    assert!(!t.contains('-'), "{t}");
    assert!(t.contains("no usable interval"), "{t}");
}

#[test]
fn an_interval_spanning_more_than_an_order_of_magnitude_is_never_printed() {
    let mut s = summarize(&[1.0, 9.12, 40.0]).unwrap();
    s.median = 9.12;
    (s.ci95_lo, s.ci95_hi) = (0.51, 162.71);
    let t = figure(&s, Unit::Ratio);
    assert!(
        t.contains("no usable interval") && !t.contains("162"),
        "{t}"
    );
    // a wide one within a factor of 10 is printed
    (s.ci95_lo, s.ci95_hi) = (2.0, 19.0);
    assert!(
        figure(&s, Unit::Ratio).contains("[2.00x, 19.00x"),
        "{}",
        figure(&s, Unit::Ratio)
    );
}

#[test]
fn a_delta_keeps_its_sign_and_never_reads_plus_or_minus_zero() {
    assert_eq!(fmt_delta(12.0, Unit::Kib), "+12.0 KiB");
    assert_eq!(fmt_delta(-4.0, Unit::Kib), "-4.00 KiB");
    assert_eq!(fmt_delta(0.0, Unit::Kib), "0 KiB");
    assert_eq!(fmt_delta(-0.0001, Unit::Kib), fmt_delta(0.0001, Unit::Kib));
    assert_eq!(fmt_delta(-0.0001, Unit::Ns), "-0.00010 ns");
    assert_eq!(fmt_delta(1500.0, Unit::Ns), "+1.50 µs");
}

/// A figure with median `m` and 95% interval `[lo, hi]`.
fn fig(m: f64, lo: f64, hi: f64) -> Summary {
    let mut s = tight(m);
    s.ci95_lo = lo;
    s.ci95_hi = hi;
    s.noisy = (hi - lo) / 2.0 > 0.1 * m.abs();
    s
}

#[test]
fn slightly_overlapping_intervals_whose_difference_excludes_zero_are_apart() {
    // the old rule (do the two intervals overlap?) said "indistinguishable"
    let a = fig(100.0, 90.0, 110.0);
    let b = fig(118.0, 106.0, 130.0);
    assert!(a.ci95_hi > b.ci95_lo, "the two intervals overlap");
    assert!(apart(&a, &b) && apart(&b, &a));
    assert_eq!(order(&a, &b), Order::Below);
    let d = difference(&a, &b, Unit::Ns);
    assert_eq!(d.sign(), Order::Below, "{d:?}");
    let t = compare("a", &a, "b", &b, Unit::Ns);
    assert!(t.contains("0.85x"), "{t}");
    // a figure that is negative on one side: decided on the difference
    let n = fig(-10.0, -21.0, 1.0);
    let z = fig(12.0, 0.5, 23.0);
    assert!(n.ci95_hi > z.ci95_lo, "the two intervals overlap");
    assert!(apart(&n, &z));
}

#[test]
fn equal_medians_are_never_apart() {
    for (a, b) in [
        (fig(100.0, 99.9, 100.1), fig(100.0, 20.0, 500.0)),
        (fig(7.0, 7.0, 7.0), fig(7.0, 7.0, 7.0)),
        (fig(-3.0, -4.0, -2.0), fig(-3.0, -3.1, -2.9)),
    ] {
        assert!(!apart(&a, &b), "{a:?} {b:?}");
        assert_eq!(difference(&a, &b, Unit::Ns).sign(), Order::Overlap);
        assert!(compare("a", &a, "b", &b, Unit::Ns).contains("indistinguishable"));
    }
}

#[test]
fn an_imprecise_ratio_is_printed_with_its_interval() {
    let precise = compare("a", &tight(200.0), "b", &tight(100.0), Unit::Ns);
    assert_eq!(precise, "a (200.0 ns) is 2.0x b (100.0 ns)");
    let a = fig(200.0, 150.0, 260.0);
    let t = compare("a", &a, "b", &tight(100.0), Unit::Ns);
    assert!(t.contains("is 2.0x [1.5"), "{t}");
    assert!(versus(&a, &tight(100.0)).contains("(2.0x ["));
}

#[test]
fn the_summary_quotes_an_imprecise_figure_with_its_half_width_and_mark() {
    assert_eq!(quoted(&tight(1000.0), Unit::Ns), "1.00 µs");
    let wide = fig(1000.0, 800.0, 1200.0);
    assert_eq!(quoted(&wide, Unit::Ns), "1.00 µs ±20% ~");
    let mut flagged = fig(1000.0, 950.0, 1050.0);
    flagged.unstable = true;
    assert_eq!(quoted(&flagged, Unit::Ns), "1.00 µs ±5.0% ! (flagged)");
    // an interval as wide as [0.31x, 2.59x] is not quoted as a result
    let speedup = fig(0.9, 0.31, 2.59);
    let q = quoted(&speedup, Unit::Ratio);
    assert!(q.contains("bounds nothing"), "{q}");
    assert!(!q.contains("0.31") && !q.contains("2.59"), "{q}");
}

#[test]
fn the_summary_quotes_a_ratio_with_its_half_width_when_imprecise() {
    let r = |value, lo, hi| Interval { value, lo, hi };
    assert_eq!(quote_ratio(&r(9.5, 9.2, 9.8), &[]).text(), "9.5x");
    assert_eq!(quote_ratio(&r(9.5, 8.0, 11.4), &[]).text(), "9.5x ±20%");
    let mut f = tight(1.0);
    f.unstable = true;
    assert!(quote_ratio(&r(9.5, 9.2, 9.8), &[&f])
        .text()
        .contains("±3.2% !"));
    assert!(quote_ratio(&r(0.9, 0.31, 2.59), &[])
        .text()
        .contains("bounds nothing"));
}

/// Session 18's copy-on-write Summary line said "its interval bounds
/// nothing" of each of its three figures. Quoted together, the figures
/// leave the words out and the sentence says them once; where one figure
/// bounds something, each keeps its own words (run 3's write with the
/// child alive, 11.7 µs [8.11 µs, 18.3 µs], beside the write with none,
/// 875.5 ns [217 ns, 9.45 µs]).
#[test]
fn an_unbounded_interval_is_said_once_per_sentence() {
    let b = "its interval bounds nothing: the rounds disagree too much";
    let cow = fig(9_640.0, 3_000.0, 31_000.0);
    let mut none = fig(304.1, 90.0, 1_200.0);
    none.unstable = true;
    let quotes = [
        quote(&cow, Unit::Ns),
        quote(&none, Unit::Ns),
        summary_ratio_quote(&cow, &none),
    ];
    assert!(quotes.iter().all(|q| q.text().contains(b)), "{quotes:?}");
    // Each alone, as quoted writes it.
    assert_eq!(quotes[0].text(), format!("9.64 µs ~ ({b})"));
    assert_eq!(quotes[0].text(), quoted(&cow, Unit::Ns));
    assert_eq!(quotes[1].text(), format!("304.1 ns ! (flagged; {b})"));
    assert_eq!(quotes[2].text(), summary_ratio(&cow, &none));
    let (q, end) = together(&quotes);
    assert_eq!(
        format!("costs {} instead of {} ({}){end}", q[0], q[1], q[2]),
        "costs 9.64 µs ~ instead of 304.1 ns ! (flagged) (no ratio stated); no interval here bounds anything: the rounds disagree too much"
    );
    // One figure that bounds something: every figure keeps its words.
    let alive = fig(11_745.8, 8_110.9, 18_318.8);
    let run3 = fig(875.5, 217.0, 9_451.7);
    let quotes = [quote(&alive, Unit::Ns), quote(&run3, Unit::Ns)];
    let (q, end) = together(&quotes);
    assert_eq!(end, "");
    assert_eq!(q[0], quoted(&alive, Unit::Ns));
    assert_eq!(q[1], format!("875.5 ns ~ ({b})"));
    // One figure alone is never "no interval here".
    let (q, end) = together(&quotes[1..]);
    assert_eq!((q[0].as_str(), end), (quotes[1].text().as_str(), ""));
}

/// Session 20's run 1: the Summary quoted "27.3x ! (a figure of it is
/// flagged; its interval bounds nothing …)" for the copy-on-write ratio,
/// while the finding on the same two figures said they cannot be
/// compared. A ratio whose interval bounds nothing is no longer given a
/// number; one that bounds something still is.
#[test]
fn a_ratio_whose_interval_bounds_nothing_states_no_number() {
    let b = "its interval bounds nothing: the rounds disagree too much";
    let mut cow = fig(4_000.0, 2_600.0, 5_400.0);
    cow.unstable = true;
    let none = fig(146.4, 10.0, 2_000.0);
    let r = summary_ratio(&cow, &none);
    assert_eq!(r, format!("{NO_RATIO} ({b})"));
    assert!(!r.contains("27.3"), "{r}");
    // Both bounded: the ratio is stated.
    let none = fig(146.4, 140.0, 153.0);
    let r = summary_ratio(&cow, &none);
    assert!(r.starts_with("27.3x"), "{r}");
}
