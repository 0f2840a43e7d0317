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

/// Run 3 of a default run on a slow host (thp=default, n=55256000): the
/// serial whole 735 ms [549 ms, 1.60 s], the fill 517 ms [427 ms, 742 ms],
/// the average 237 ms [148 ms, 683 ms]; fork's speedup `fork` [0.76x,
/// 1.77x] (1.23x in that run), threads 1.22x [0.98x, 1.46x]. The bound's
/// point is 1.19x.
fn slow_host_run3(fork: f64) -> ExperimentResult {
    use crate::experiments::testing::settled;
    let (n, t) = (("n", "55256000"), ("thp", "default"));
    result(vec![
        settled(
            "whole_ns",
            &[("variant", "serial"), n, t],
            735.4e6,
            549.1e6,
            1601e6,
        ),
        settled("fill_ns", &[n, t], 517.1e6, 427.4e6, 742.5e6),
        settled(
            "average_ns",
            &[("variant", "serial"), ("phase", "average"), n, t],
            237.0e6,
            147.8e6,
            682.9e6,
        ),
        settled(
            "speedup",
            &[("variant", "fork"), ("workers", "2"), n, t],
            fork,
            0.7643,
            1.7721,
        ),
        settled(
            "speedup",
            &[("variant", "threads"), ("workers", "2"), n, t],
            1.2219,
            0.9832,
            1.4614,
        ),
    ])
}

/// [`slow_host_run3`] as measured: the bound's point (1.19x) is below both
/// measured speedups: never "at most" it; its interval is quoted. The
/// parts' sum (754 ms) is more than the whole's median: "measured apart"
/// (issue 39).
#[test]
fn a_bound_the_measured_speedups_pass_is_not_called_at_most() {
    let r = slow_host_run3(1.2308);
    let f = &findings(&r)[0];
    assert!(!f.contains("at most"), "{f}");
    // The least serial end, (549 - 683) / 549 ms, is below 0%: that end of
    // the bound is not held at 2.00x on 2 CPUs, it has none (issue 39).
    assert!(
        f.contains(
            "the serial fraction (the whole less the average, over the whole) is 68% [-24%, 91%]"
        ),
        "{f}"
    );
    assert!(f.contains("about 1.19x [1.05x, no bound]"), "{f}");
    assert!(!f.contains("2.00x"), "{f}");
    assert!(
        f.contains(
            "the serial fraction's interval reaches below 0%, where Amdahl's law gives no bound"
        ),
        "{f}"
    );
    assert!(
        f.contains("reach past the bound's point estimate, within noise"),
        "{f}"
    );
    assert!(f.contains("; measured apart, mapping and filling"), "{f}");
}

/// [`slow_host_run3`] with fork's speedup below the bound's point.
#[test]
fn only_the_speedups_past_the_bound_are_said_to_reach_past_it() {
    let r = slow_host_run3(1.10);
    let f = &findings(&r)[0];
    // fork's 1.10x is below the bound's 1.19x: only threads reaches past
    // it, and the sentence names it alone (run 1 of session 20 said "the
    // measured speedups reach past" of 1.13x and 1.15x against 1.14x).
    assert!(
        f.contains(
            "; threads with 2 workers reaches past the bound's point estimate, within noise"
        ),
        "{f}"
    );
    assert!(!f.contains("fork with 2 workers reach"), "{f}");
}

/// Run 1 (thp=default): the serial whole 947 ms [528 ms, 1.71 s], the fill
/// 639 ms [363 ms, 1.14 s], the average 339 ms [160 ms, 614 ms]: their sum,
/// 978 ms, is more than the whole, so they are "measured apart", not parts
/// "of which" it consists (issue 39). A whole of 985 ms [970 ms, 1.0 s]
/// holds them; a speedup below the bound keeps "at most".
#[test]
fn parts_larger_than_the_whole_are_measured_apart() {
    use crate::experiments::testing::settled;
    let (n, t) = (("n", "55256000"), ("thp", "default"));
    let r = |whole: f64, whole_lo: f64, whole_hi: f64| {
        result(vec![
            settled(
                "whole_ns",
                &[("variant", "serial"), n, t],
                whole,
                whole_lo,
                whole_hi,
            ),
            settled("fill_ns", &[n, t], 638.7e6, 362.8e6, 1136e6),
            settled(
                "average_ns",
                &[("variant", "serial"), ("phase", "average"), n, t],
                339.0e6,
                160.3e6,
                614.1e6,
            ),
            settled(
                "speedup",
                &[("variant", "fork"), ("workers", "2"), n, t],
                1.1032,
                0.9601,
                1.2903,
            ),
        ])
    };
    let run1 = &findings(&r(947.0e6, 527.8e6, 1707e6))[0];
    assert!(!run1.contains("of which"), "{run1}");
    assert!(
        run1.contains("takes 947 ms serially; measured apart, mapping and filling 421.6 MiB takes 639 ms and the average 339 ms"),
        "{run1}"
    );
    // The least serial end, (528 - 614) / 528 ms, is below 0%: "at most"
    // holds by the medians only, and says so (issue 39).
    assert!(
        run1.contains("at most, by the medians, 1.22x [1.05x, no bound]"),
        "{run1}"
    );
    let holds = &findings(&r(985e6, 970e6, 1000e6))[0];
    assert!(
        holds.contains("985 ms serially, of which mapping and filling"),
        "{holds}"
    );
}

/// A measured speedup whose interval lies above the bound's whole interval
/// is said to pass it beyond noise, never "within noise" and never under
/// "at most" (issue 39).
#[test]
fn a_speedup_beyond_the_bounds_interval_is_said_so() {
    use crate::experiments::testing::near;
    let (n, t) = (("n", "55256000"), ("thp", "default"));
    let r = result(vec![
        near("whole_ns", &[("variant", "serial"), n, t], 400e6, 1.0),
        near("fill_ns", &[n, t], 298e6, 1.0),
        near(
            "average_ns",
            &[("variant", "serial"), ("phase", "average"), n, t],
            100e6,
            1.0,
        ),
        near(
            "speedup",
            &[("variant", "fork"), ("workers", "2"), n, t],
            1.5,
            2.0,
        ),
    ]);
    let f = &findings(&r)[0];
    assert!(f.contains("about 1.14x ["), "{f}");
    assert!(!f.contains("at most"), "{f}");
    assert!(f.contains("beyond its interval"), "{f}");
    assert!(!f.contains("within noise"), "{f}");
    // 298 + 100 ms within [396 ms, 400 ms]: parts of the whole.
    assert!(f.contains("400 ms serially, of which"), "{f}");
}

/// The average alone longer than the whole, by the medians (each a series
/// of its own): a serial fraction below 0%, so Amdahl's law bounds nothing,
/// and no bound is held at the ideal (issue 39).
#[test]
fn a_serial_fraction_outside_0_to_100_percent_gives_no_bound() {
    use crate::experiments::testing::settled;
    let (n, t) = (("n", "55256000"), ("thp", "default"));
    let r = result(vec![
        settled(
            "whole_ns",
            &[("variant", "serial"), n, t],
            300e6,
            280e6,
            320e6,
        ),
        settled("fill_ns", &[n, t], 200e6, 190e6, 210e6),
        settled(
            "average_ns",
            &[("variant", "serial"), ("phase", "average"), n, t],
            330e6,
            320e6,
            340e6,
        ),
        settled(
            "speedup",
            &[("variant", "fork"), ("workers", "2"), n, t],
            1.1,
            1.0,
            1.2,
        ),
    ]);
    let f = &findings(&r)[0];
    assert!(
        f.contains("the serial fraction (the whole less the average, over the whole) is -10% ["),
        "{f}"
    );
    assert!(f.contains("Amdahl's law gives no bound here"), "{f}");
    assert!(!f.contains("at most") && !f.contains("2.00x"), "{f}");
}

/// The seed's speedup, 458 / 395 ms, is one ratio of two means; ours is a
/// ratio per round, and the seed table set the mean of those (1.10x in
/// /tmp/s18 run 1) against it, though the ratio of our means was 1.02x
/// (562 / 550 ms). Not the same statistic: the row says so and gives no
/// ratio; the whole_ns rows, mean against mean, still compare.
#[test]
fn the_seeds_speedup_is_not_set_against_a_mean_of_ratios() {
    let mut speedup = metric("speedup", SEED_FORK_2, &[1.0, 1.3, 1.0]);
    speedup.seed = EXPERIMENT.seed_for("speedup", &speedup.labels);
    assert!(speedup.seed.is_some());
    match speedup.seed_compare() {
        Some(crate::results::SeedCompare::Unlike(why)) => {
            assert!(why.contains("ratio of two means"), "{why}")
        }
        other => panic!("{other:?}"),
    }
    let mut whole = metric("whole_ns", SEED_FORK_2, &[550e6, 560e6, 540e6]);
    whole.seed = EXPERIMENT.seed_for("whole_ns", &whole.labels);
    assert!(matches!(
        whole.seed_compare(),
        Some(crate::results::SeedCompare::Ratio(_))
    ));
}
