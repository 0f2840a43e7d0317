use super::*;
use crate::experiments::testing::{metric, result};

#[test]
fn the_program_finding_applies_amdahl() {
    let (n, t) = (("n", "55256000"), ("thp", "default"));
    let r = result(vec![
        metric("whole_ns", &[("variant", "serial"), n, t], &[400e6]),
        metric("fill_ns", &[n, t], &[300e6]),
        metric(
            "average_ns",
            &[("variant", "serial"), ("phase", "average"), n, t],
            &[100e6],
        ),
        metric(
            "speedup",
            &[("variant", "fork"), ("workers", "2"), n, t],
            &[1.1],
        ),
    ]);
    let f = findings(&r);
    // serial fraction 75%: at most 1/(0.75 + 0.125) = 1.14x on 2 CPUs
    assert!(f[0].contains("75%") && f[0].contains("1.14x"), "{}", f[0]);
    assert!(f[1].contains("1.10x"), "{}", f[1]);
}

#[test]
fn the_first_touch_of_a_huge_page_fill_is_apart_from_the_median() {
    use crate::experiments::testing::near;
    let (n, t) = (("n", "55256000"), ("thp", "on"));
    let r = result(vec![
        near(
            "first_fill_ns",
            &[n, t, ("phase", "first map+fill")],
            400e6,
            5.0,
        ),
        near("fill_ns", &[n, t, ("phase", "map+fill")], 115e6, 5.0),
    ]);
    assert!(findings(&r).iter().all(|f| !f.contains("first map+fill")));
    let f = super::first_fills(&r).join("\n");
    assert!(
        f.contains("n=55256000, thp=on: a worker's first map+fill, its first touch of fresh memory, is reported apart from the median of the later ones: the first (400 ms) is 3.5x the later fills (115 ms)"),
        "{f}"
    );
}

#[test]
fn the_whole_program_headline_states_its_page_size() {
    use crate::experiments::testing::{near, unsettled};
    let n = ("n", "55256000");
    let sp = |t: &'static str, m: f64| {
        near(
            "speedup",
            &[("variant", "fork"), ("workers", "2"), n, ("thp", t)],
            m,
            2.0,
        )
    };
    let a = analyze(&result(vec![sp("default", 1.01), sp("on", 1.25)]));
    assert_eq!(a.headlines.len(), 1);
    let h = &a.headlines[0];
    assert!(h.contains("whole program"), "{h}");
    // 1.01x ±2%: its interval holds 1x, and the sentence says so
    assert!(
        h.contains("1.01x (not told apart from serial) with thp=default"),
        "{h}"
    );
    assert!(h.contains("1.25x with thp=on"), "{h}");
    // a figure the rounds cannot bound says so
    let a = analyze(&result(vec![
        sp("default", 1.01),
        crate::experiments::testing::settled(
            "speedup",
            &[("variant", "fork"), ("workers", "2"), n, ("thp", "on")],
            1.71,
            -0.5,
            4.0,
        ),
    ]));
    let h = &a.headlines[0];
    // its median keeps the subject; its interval is not quoted as a result
    assert!(!h.contains("4.00x") && !h.contains('['), "{h}");
    assert!(
        h.contains(
            "1.71x ~ (its interval bounds nothing: the rounds disagree too much) with thp=on"
        ),
        "{h}"
    );
    // an unsettled series keeps its subject, quoted with its mark
    let a = analyze(&result(vec![unsettled(sp("default", 1.01))]));
    assert!(
        a.headlines[0].contains("1.01x ±2.0% ! (two modes: "),
        "{:?}",
        a.headlines
    );
}

#[test]
fn a_speedup_is_called_a_gain_only_when_its_interval_is_above_one() {
    let s = |v: &[f64]| crate::stats::summarize(v).unwrap();
    let many = |x: f64| (0..12).map(|i| x + 0.001 * i as f64).collect::<Vec<_>>();
    assert!(super::gain(&s(&many(1.3))).starts_with("gains 1.31x"));
    let slower = super::gain(&s(&many(0.86)));
    assert!(slower.starts_with("runs slower, 0.8"), "{slower}");
    let wide = s(&[0.6, 0.9, 1.1, 1.4, 0.7, 1.3]);
    assert!(
        super::gain(&wide).contains("not told apart from no gain"),
        "{}",
        super::gain(&wide)
    );
}
