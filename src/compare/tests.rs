use super::render::render_at;
use super::*;
use crate::results::{Better, Labels, Unit};
use crate::stats;

/// A series with a tight interval around `median`, of experiment `exp`.
fn series_of(exp: &str, metric: &str, unit: Unit, better: Better, median: f64) -> Series {
    let rounds: Vec<Vec<f64>> = (0..8)
        .map(|r| {
            (0..20)
                .map(|i| median * (1.0 + 0.001 * ((i + r) % 5) as f64))
                .collect()
        })
        .collect();
    Series::of_runs(exp, metric, Labels::new(), (unit, better), &[rounds]).unwrap()
}

fn series(metric: &str, unit: Unit, better: Better, median: f64) -> Series {
    series_of("test.x", metric, unit, better, median)
}

/// A side of `series`, one run, with no status, THP setting or drift.
fn side_of(series: Vec<Series>) -> Side {
    Side {
        series,
        status: vec![],
        thp: vec![],
        drift: None,
        canary_ns: None,
        memory_canary_ln: None,
        syscall_canary_ln: None,
        runs: 1,
        quick: false,
        busy: None,
        partial: vec![],
    }
}

/// The comparison of `rows` between a.json and b.json, at ±5%, with no
/// environment difference, status or canary.
fn comparison(rows: Vec<Row>) -> Comparison {
    let mdes: Vec<f64> = rows
        .iter()
        .map(|r| r.mde)
        .filter(|m| m.is_finite())
        .collect();
    Comparison {
        env_differences: vec![],
        base_files: vec!["a.json".into()],
        new_files: vec!["b.json".into()],
        base_status: vec![],
        new_status: vec![],
        only_in_base: 0,
        only_in_new: 0,
        missing: None,
        threshold_pct: 5.0,
        base_runs: 1,
        new_runs: 1,
        common_mode: None,
        relative: false,
        see_10pct: mdes.iter().filter(|m| **m <= 10.0).count(),
        with_mde: mdes.len(),
        median_mde: stats::median(&mdes),
        rows,
        base_drift_pct: None,
        new_drift_pct: None,
        base_canary_ns: None,
        new_canary_ns: None,
        noise: None,
        summary: vec![],
        discoveries: Default::default(),
        strict: false,
        noise_bases: vec![],
        median_run_noise_pct: None,
        memory_canary: None,
        machine_canary: None,
        setting: next::Setting {
            runs: 1,
            ..Default::default()
        },
        why: vec![],
    }
}

/// The text at a width no line reaches, so a phrase stays on one line.
fn render(c: &Comparison, all: bool) -> String {
    render_at(c, all, 10_000)
}

fn row(b: &Series, n: &Series, threshold: f64) -> Row {
    verdict::row(
        (b, n),
        threshold,
        &next::Setting {
            runs: 1,
            ..Default::default()
        },
        1.0,
        true,
        (stats::noise::FLOOR, stats::noise::Basis::Floor),
        (0.0, 0.0),
    )
}

fn verdict_of(unit: Unit, better: Better, base: f64, new: f64) -> Verdict {
    let b = side_of(vec![series("m", unit, better, base)]);
    let n = side_of(vec![series("m", unit, better, new)]);
    compare(&b, &n, 0.05, 1.0)[0].verdict
}

#[test]
fn every_unit_kind_takes_its_direction_from_the_declaration() {
    use Better::*;
    use Unit::*;
    // (unit, the declared direction, what a 30% rise is)
    let cases = [
        (Ns, Lower, Verdict::Regressed),
        (Bytes, Lower, Verdict::Regressed),
        (Kib, Lower, Verdict::Regressed),
        (PerSecond, Higher, Verdict::Improved),
        (Ratio, Higher, Verdict::Improved),
        (Ratio, Neither, Verdict::Changed),
        (Count, Neither, Verdict::Changed),
        (Mhz, Neither, Verdict::Changed),
        // a cost in ns declared better higher (a saving) rises: improved
        (Ns, Higher, Verdict::Improved),
    ];
    for (unit, better, rise) in cases {
        assert_eq!(
            verdict_of(unit, better, 100.0, 130.0),
            rise,
            "{unit:?} {better:?}"
        );
        let fall = match rise {
            Verdict::Regressed => Verdict::Improved,
            Verdict::Improved => Verdict::Regressed,
            v => v,
        };
        assert_eq!(
            verdict_of(unit, better, 130.0, 100.0),
            fall,
            "{unit:?} {better:?}"
        );
        assert_eq!(
            verdict_of(unit, better, 100.0, 100.0),
            Verdict::Unchanged,
            "{unit:?} {better:?}"
        );
    }
}

#[test]
fn a_speedup_that_fell_is_a_regression() {
    // the old compare called 1.30x -> 1.11x "improved"
    assert_eq!(
        verdict_of(Unit::Ratio, Better::Higher, 1.30, 1.11),
        Verdict::Regressed
    );
}

#[test]
fn a_flagged_series_is_inconclusive_with_the_flag_named() {
    let b = series("m", Unit::Ns, Better::Lower, 100.0);
    let mut n = series("m", Unit::Ns, Better::Lower, 300.0);
    n.flagged = Some("b.json: two modes: 530 ns and 680 ns, 40% / 60% of rounds".into());
    let r = row(&b, &n, 0.05);
    assert_eq!(r.verdict, Verdict::Inconclusive);
    assert_eq!(r.reason(), Some(Reason::Flagged));
    let i = r.inconclusive.unwrap();
    assert!(i.why.contains("two modes"));
    assert!(!i.next.is_empty());
}

#[test]
fn every_inconclusive_row_says_why_and_what_to_do() {
    // A change that clears "no change" but straddles the threshold:
    // 100 -> 105 ns, each side's interval a fraction of a percent wide.
    let b = series("m", Unit::Ns, Better::Lower, 100.0);
    let n = series("m", Unit::Ns, Better::Lower, 105.0);
    let r = row(&b, &n, 0.05);
    assert_eq!(r.verdict, Verdict::Inconclusive);
    assert_eq!(r.reason(), Some(Reason::NearThreshold));
    assert!(
        r.inconclusive
            .as_ref()
            .map(|i| i.why.as_str())
            .unwrap()
            .contains("±5%"),
        "{:?}",
        r.inconclusive
    );
    // the threshold, plus 1.96 standard errors of the two sides' run-to-run
    // floor (1% each): about 7.9%
    assert!(r.mde < 8.5, "{}", r.mde);
    // An interval too wide to tell: the next step says how to narrow it.
    let mut wide = series("m", Unit::Ns, Better::Lower, 110.0);
    // its rounds gave a standard error of 10% in logs: about ±20%
    wide.runs[0].se2 = 0.1f64.powi(2);
    let r = row(&b, &wide, 0.05);
    assert_eq!(r.reason(), Some(Reason::TooWide));
    assert!(r.mde > 20.0, "{}", r.mde);
    assert!(
        r.inconclusive
            .as_ref()
            .map(|i| i.next.as_str())
            .unwrap()
            .contains("--vs"),
        "{:?}",
        r.inconclusive
    );
    // A base of zero has no ratio.
    let zero = series("m", Unit::Count, Better::Neither, 0.0);
    let one = series("m", Unit::Count, Better::Neither, 1.0);
    let r = row(&zero, &one, 0.05);
    assert_eq!(r.verdict, Verdict::Inconclusive);
    assert_eq!(r.reason(), Some(Reason::NoRatio));
    // Zero on both sides agrees, though it has no ratio.
    let r = row(&zero, &zero, 0.05);
    assert_eq!((r.verdict, r.reason()), (Verdict::Unchanged, None));
    // A settled verdict carries no reason.
    let r = row(&b, &series("m", Unit::Ns, Better::Lower, 150.0), 0.05);
    assert_eq!((r.verdict, r.reason()), (Verdict::Regressed, None));
    // The text counts them by reason with the next step, and --all names
    // each row's; inconclusive rows do not fail the gate.
    let c = comparison(compare(
        &side_of(vec![b.clone()]),
        &side_of(vec![n.clone()]),
        0.05,
        1.0,
    ));
    assert_eq!(c.count(Verdict::Regressed), 0);
    let text = render(&c, false);
    assert!(text.contains("1 near the threshold (median mde "), "{text}");
    assert!(render(&c, true).contains("inconclusive: near the threshold"));
    let json = serde_json::to_value(&c.rows[0]).unwrap();
    assert_eq!(json["reason"], "near_threshold");
    assert!(json["mde"].as_f64().unwrap() > 5.0);
}

#[test]
fn only_changed_rows_are_shown_unless_all() {
    let b = side_of(vec![
        series("a", Unit::Ns, Better::Lower, 100.0),
        series("b", Unit::Ns, Better::Lower, 100.0),
    ]);
    let n = Side {
        status: vec!["new.json: an interrupted run (partial results)".into()],
        ..side_of(vec![
            series("a", Unit::Ns, Better::Lower, 100.0),
            series("b", Unit::Ns, Better::Lower, 200.0),
        ])
    };
    let c = Comparison {
        env_differences: vec![("THP".into(), "madvise".into(), "always".into())],
        new_status: n.status.clone(),
        ..comparison(compare(&b, &n, 0.05, 1.0))
    };
    let short = render(&c, false);
    assert!(short.contains("THP: madvise -> always"), "{short}");
    assert!(
        short.contains("new: new.json: an interrupted run"),
        "{short}"
    );
    let rows = |text: &str| text.lines().filter(|l| l.contains("test.x")).count();
    assert_eq!(rows(&short), 1, "{short}");
    assert!(
        short
            .lines()
            .any(|l| l.contains("test.x") && l.ends_with("regressed")),
        "{short}"
    );
    assert!(short.contains("1 regressed, 0 improved, 0 changed, 1 unchanged"));
    assert!(short.contains("could see a change of 10% or more in 2 of 2 series"));
    assert_eq!(rows(&render(&c, true)), 2);
}

#[test]
fn huge_pages_found_on_one_side_only_make_a_row_inconclusive_unless_thp_changed() {
    let mut b = series("m", Unit::Ns, Better::Lower, 450.0);
    let mut n = series("m", Unit::Ns, Better::Lower, 110.0);
    b.huge_kib = vec![0.0];
    n.huge_kib = vec![430_080.0];
    let side = |s: &Series, thp: &str| Side {
        thp: vec![thp.into()],
        ..side_of(vec![s.clone()])
    };
    let same = compare(&side(&b, "madvise"), &side(&n, "madvise"), 0.05, 1.0);
    assert_eq!(same[0].verdict, Verdict::Inconclusive);
    assert_eq!(same[0].reason(), Some(Reason::HugePages));
    assert!(same[0]
        .inconclusive
        .as_ref()
        .map(|i| i.why.as_str())
        .unwrap()
        .contains("huge pages"));
    // The THP setting itself changed: the difference is the change, judged.
    let changed = compare(&side(&b, "madvise"), &side(&n, "always"), 0.05, 1.0);
    assert_eq!(changed[0].verdict, Verdict::Improved);
}

#[test]
fn the_threshold_is_never_raised_and_the_machines_speed_is_a_fact() {
    let side = |median: f64, drift: Option<f64>| Side {
        drift,
        ..side_of(vec![series("m", Unit::Ns, Better::Lower, median)])
    };
    // +8% with tight intervals is a regression at 5%, however much the
    // machine's canary moved within a side.
    for drift in [None, Some(0.10)] {
        assert_eq!(
            compare(&side(100.0, None), &side(108.0, drift), 0.05, 1.0)[0].verdict,
            Verdict::Regressed
        );
    }
    let c = Comparison {
        new_drift_pct: Some(10.0),
        base_canary_ns: Some(138.0),
        new_canary_ns: Some(151.0),
        ..comparison(compare(&side(100.0, None), &side(108.0, None), 0.05, 1.0))
    };
    let text = render(&c, false);
    assert!(
        text.contains("138.0 ns base, 151.0 ns new (+9.4% between the sides); within each side n/a base, ±10% new"),
        "{text}"
    );
    assert!(text.contains("threshold ±5%"), "{text}");
}

/// Sides of `k` experiments with three directional series each; the new
/// side's costs all `factor` times the base's, rates divided by it.
fn machine_moved(k: usize, factor: f64) -> (Side, Side) {
    let mut base = Vec::new();
    let mut new = Vec::new();
    for e in 0..k {
        let exp = format!("test.e{e}");
        for (m, better, v) in [
            ("a_ns", Better::Lower, 100.0),
            ("b_ns", Better::Lower, 2000.0),
        ] {
            base.push(series_of(&exp, m, Unit::Ns, better, v));
            new.push(series_of(&exp, m, Unit::Ns, better, v * factor));
        }
        base.push(series_of(
            &exp,
            "r_per_s",
            Unit::PerSecond,
            Better::Higher,
            1e6,
        ));
        new.push(series_of(
            &exp,
            "r_per_s",
            Unit::PerSecond,
            Better::Higher,
            1e6 / factor,
        ));
    }
    (side_of(base), side_of(new))
}

#[test]
fn a_common_move_of_the_whole_machine_is_said_in_one_line_and_relative_divides_it_out() {
    let (b, n) = machine_moved(5, 1.12);
    let shared = pairs(&b, &n);
    let cm = common::estimate(&shared, Some(1.11)).unwrap();
    assert!((cm.factor - 1.12).abs() < 0.01, "{cm:?}");
    assert_eq!((cm.series, cm.with_it), (15, 15));
    assert!(cm.worth_saying(0.05));
    assert!(cm
        .line(false)
        .contains("the whole new side is 12% slower: 15 of 15 series"));
    // As measured: every series regressed (costs up, rates down).
    let rows = compare(&b, &n, 0.05, 1.0);
    assert!(rows.iter().all(|r| r.verdict == Verdict::Regressed));
    // Relative: the common factor out, nothing moved.
    let rows = compare(&b, &n, 0.05, cm.factor);
    assert!(
        rows.iter().all(|r| r.verdict == Verdict::Unchanged),
        "{rows:?}"
    );
    // A steady machine: nothing to say.
    let (b, n) = machine_moved(5, 1.0);
    assert!(!common::estimate(&pairs(&b, &n), None)
        .unwrap()
        .worth_saying(0.05));
    // Too few series to estimate a factor from.
    let (b, n) = machine_moved(3, 1.2);
    assert!(common::estimate(&pairs(&b, &n), None).is_none());
}

#[test]
fn pairs_are_found_by_key_in_linear_time() {
    // 100k series on each side: one hash lookup each (a quadratic search
    // would take 10^10 comparisons here)
    let mk = |i: usize| {
        let mut s = series("m", Unit::Ns, Better::Lower, 100.0);
        s.labels.insert("i".into(), i.to_string());
        s
    };
    let one = mk(0);
    let many: Vec<Series> = (0..100_000)
        .map(|i| {
            let mut s = one.clone();
            s.labels.insert("i".into(), i.to_string());
            s
        })
        .collect();
    let b = side_of(many.clone());
    let mut n = side_of(many);
    n.series.reverse();
    let p = pairs(&b, &n);
    assert_eq!(p.len(), 100_000);
    assert!(p.iter().all(|(b, n)| b.labels == n.labels));
}
