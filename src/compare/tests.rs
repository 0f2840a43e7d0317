use super::*;
use crate::results::Better;

/// A series with a tight interval around `median`.
fn series(metric: &str, unit: Unit, better: Better, median: f64) -> Series {
    let rounds: Vec<Vec<f64>> = (0..3)
        .map(|r| {
            (0..20)
                .map(|i| median * (1.0 + 0.001 * ((i + r) % 5) as f64))
                .collect()
        })
        .collect();
    Series {
        experiment: "test.x".into(),
        metric: metric.into(),
        labels: Labels::new(),
        unit,
        better,
        summary: stats::summarize_rounds(&rounds, 1).unwrap(),
        canary: None,
        huge_kib: vec![],
    }
}

/// A side of `series`, with no status, THP setting or drift.
fn side_of(series: Vec<Series>) -> Side {
    Side {
        series,
        status: vec![],
        thp: vec![],
        drift: None,
        canary_ns: None,
    }
}

/// The comparison of `rows` between a.json and b.json, at ±5%, with no
/// environment difference, status or canary.
fn comparison(rows: Vec<Row>) -> Comparison {
    Comparison {
        env_differences: vec![],
        base_files: vec!["a.json".into()],
        new_files: vec!["b.json".into()],
        base_status: vec![],
        new_status: vec![],
        rows,
        only_in_base: 0,
        only_in_new: 0,
        threshold_pct: 5.0,
        noise_pct: 5.0,
        base_drift_pct: None,
        new_drift_pct: None,
        base_canary_ns: None,
        new_canary_ns: None,
    }
}

fn verdict_of(unit: Unit, better: Better, base: f64, new: f64) -> Verdict {
    let b = side_of(vec![series("m", unit, better, base)]);
    let n = side_of(vec![series("m", unit, better, new)]);
    compare(&b, &n, 0.05)[0].verdict
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
fn a_series_that_did_not_settle_is_inconclusive() {
    let b = series("m", Unit::Ns, Better::Lower, 100.0);
    let mut n = series("m", Unit::Ns, Better::Lower, 300.0);
    n.summary.unstable = true;
    let r = row(&b, &n, 0.05);
    assert_eq!(r.verdict, Verdict::Inconclusive);
    assert_eq!(r.reason, Some(Reason::Unsettled));
    assert!(r.why.unwrap().contains("new side"));
}

#[test]
fn every_inconclusive_row_says_why() {
    // A change that clears "no change" but straddles the threshold:
    // 100 -> 105 ns, each side's interval a fraction of a percent wide.
    let b = series("m", Unit::Ns, Better::Lower, 100.0);
    let n = series("m", Unit::Ns, Better::Lower, 105.0);
    let r = row(&b, &n, 0.05);
    assert_eq!(r.verdict, Verdict::Inconclusive);
    assert_eq!(r.reason, Some(Reason::WithinNoise));
    assert!(r.why.as_deref().unwrap().contains("±5.0%"), "{:?}", r.why);
    // A base of zero has no ratio.
    let zero = series("m", Unit::Count, Better::Neither, 0.0);
    let one = series("m", Unit::Count, Better::Neither, 1.0);
    let r = row(&zero, &one, 0.05);
    assert_eq!(r.verdict, Verdict::Inconclusive);
    assert_eq!(r.reason, Some(Reason::NoRatio));
    // Zero on both sides agrees, though it has no ratio.
    let r = row(&zero, &zero, 0.05);
    assert_eq!((r.verdict, r.reason), (Verdict::Unchanged, None));
    // A settled verdict carries no reason.
    let r = row(&b, &series("m", Unit::Ns, Better::Lower, 150.0), 0.05);
    assert_eq!((r.verdict, r.reason), (Verdict::Regressed, None));
    // The text counts them by reason, and --all names each row's.
    let c = comparison(compare(
        &side_of(vec![b.clone()]),
        &side_of(vec![n.clone()]),
        0.05,
    ));
    assert!(render(&c, false).contains("inconclusive: 1 within the noise"));
    assert!(render(&c, true).contains("inconclusive: within the noise"));
    let json = serde_json::to_value(&c.rows[0]).unwrap();
    assert_eq!(json["reason"], "within_noise");
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
        ..comparison(compare(&b, &n, 0.05))
    };
    let short = render(&c, false);
    assert!(short.contains("THP: madvise -> always"), "{short}");
    assert!(
        short.contains("new: new.json: an interrupted run"),
        "{short}"
    );
    let rows = |text: &str| text.lines().filter(|l| l.contains("test.x")).count();
    assert_eq!(rows(&short), 1, "{short}");
    assert!(short.contains("regressed │"), "{short}");
    assert!(short.contains("1 regressed, 0 improved, 0 changed, 1 unchanged"));
    assert_eq!(rows(&render(&c, true)), 2);
}

#[test]
fn a_side_whose_canary_moved_is_inconclusive() {
    let b = series("m", Unit::Ns, Better::Lower, 100.0);
    let mut n = series("m", Unit::Ns, Better::Lower, 300.0);
    n.canary = Some("new.json: its canary moved".into());
    let r = row(&b, &n, 0.05);
    assert_eq!(r.verdict, Verdict::Inconclusive);
    assert_eq!(r.reason, Some(Reason::CanaryMoved));
    assert!(r.why.unwrap().contains("canary"));
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
    let same = compare(&side(&b, "madvise"), &side(&n, "madvise"), 0.05);
    assert_eq!(same[0].verdict, Verdict::Inconclusive);
    assert_eq!(same[0].reason, Some(Reason::HugePages));
    assert!(same[0].why.as_deref().unwrap().contains("huge pages"));
    // The THP setting itself changed: the difference is the change, judged.
    let changed = compare(&side(&b, "madvise"), &side(&n, "always"), 0.05);
    assert_eq!(changed[0].verdict, Verdict::Improved);
}

#[test]
fn the_threshold_rises_to_the_machines_own_drift_and_says_so() {
    // A yardstick read 40 times that moved ±10% over the run.
    let moving: Vec<f64> = (0..40)
        .map(|i| 100.0 * (0.9 + 0.2 * (i % 11) as f64 / 10.0))
        .collect();
    let d = stats::drift(&moving).unwrap();
    assert!((0.08..0.11).contains(&d), "{d}");
    // A steady one leaves the asked threshold alone; too few readings say nothing.
    assert!(stats::drift(&[100.0; 40]).unwrap() < 1e-9);
    assert_eq!(stats::drift(&[100.0; 9]), None);
    let side = |median: f64, drift: Option<f64>| Side {
        drift,
        ..side_of(vec![series("m", Unit::Ns, Better::Lower, median)])
    };
    // +8%, with tight intervals: a regression at 5%, not on a machine that
    // itself moved ±10%; a halving still is one.
    assert_eq!(
        compare(&side(100.0, None), &side(108.0, None), 0.05)[0].verdict,
        Verdict::Regressed
    );
    let drifting = compare(&side(100.0, None), &side(108.0, Some(d)), 0.05);
    assert_ne!(drifting[0].verdict, Verdict::Regressed);
    assert_eq!(
        compare(&side(100.0, Some(d)), &side(200.0, None), 0.05)[0].verdict,
        Verdict::Regressed
    );
    assert!((noise(&side(1.0, Some(d)), &side(1.0, None), 0.05) - d).abs() < 1e-12);
    // A larger threshold asked for stays.
    assert_eq!(noise(&side(1.0, Some(d)), &side(1.0, None), 0.3), 0.3);
    let c = Comparison {
        noise_pct: d * 100.0,
        new_drift_pct: Some(d * 100.0),
        ..comparison(drifting)
    };
    let text = render(&c, false);
    assert!(text.contains("raised to the machine's own drift"), "{text}");
    assert!(text.contains("n/a base"), "{text}");
    assert!(!text.contains("canary (a bare"), "{text}");
    // Each side's canary median is shown, with how far it moved; it judges
    // nothing (the verdicts above are the same).
    let c = Comparison {
        base_canary_ns: Some(138.0),
        new_canary_ns: Some(151.0),
        ..c
    };
    let text = render(&c, false);
    assert!(
        text.contains("median: 138.0 ns base, 151.0 ns new (+9.4%)"),
        "{text}"
    );
}
