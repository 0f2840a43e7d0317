use super::*;
use crate::stats::median;

#[test]
fn the_median_speedup_is_the_ratio_of_medians() {
    let serial = [100.0, 90.0, 400.0];
    let v = [50.0, 45.0, 60.0];
    let sp = speedups(&serial, &v);
    assert_eq!(
        median(&sp).unwrap(),
        median(&serial).unwrap() / median(&v).unwrap()
    );
    assert_eq!(sp[0], 2.0);
}

/// A speedup not above 1 beyond its interval says so in the Summary
/// (issue 39 item 10); a flagged one draws no conclusion.
#[test]
fn a_speedup_below_or_around_one_is_worded_as_such() {
    let at = |median: f64, lo: f64, hi: f64| {
        let mut s = crate::stats::summarize(&[median]).unwrap();
        (s.median, s.ci95_lo, s.ci95_hi, s.min, s.max) = (median, lo, hi, lo, hi);
        s.noisy = false;
        s
    };
    assert!(speedup_quoted(&at(0.80, 0.78, 0.82)).ends_with("(slower than serially)"));
    assert!(speedup_quoted(&at(1.01, 0.98, 1.04)).ends_with("(not told apart from serial)"));
    let fast = speedup_quoted(&at(1.90, 1.85, 1.95));
    assert!(!fast.contains('('), "{fast}");
    let mut flagged = at(0.80, 0.78, 0.82);
    flagged.unstable = true;
    assert!(!speedup_quoted(&flagged).contains("slower"));
}

/// Other programs' CPU time is said once per point, from its reading (the
/// median over the point's rounds), never once per round: session 20's
/// run 3 gave "n=55256000" three notes with three different figures.
#[test]
fn contention_is_noted_once_per_point_from_its_median() {
    use crate::experiments::testing::result;
    let mut r = result(vec![]);
    let at = |pairs: &[(&str, &str)], v: f64| Reading::of(&OTHERS_CPUS, labels(pairs), v);
    r.readings
        .push(at(&[("n", "55256000"), ("thp", "on")], 0.742));
    r.readings
        .push(at(&[("n", "55256000"), ("thp", "off")], 0.075));
    r.readings.push(at(&[], 1.206));
    let notes = contention_notes(&r, "fan-out");
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(
        notes[0].starts_with("n=55256000 thp=on: other programs kept 0.74 CPUs busy on average (the median over its rounds)"),
        "{notes:?}"
    );
    assert!(
        notes[1].starts_with("fan-out: other programs kept 1.21 CPUs"),
        "{notes:?}"
    );
}
