//! The one-quantity sentences open the same way in every run (issue 39
//! item 9): "the sources" agree, disagree, or are not compared.

use super::*;
use crate::experiments::testing::settled;
use crate::stats::rounds::Unsettled;

fn fixture() -> RunResults {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-results.json");
    RunResults::read(&path).expect("the fixture reads")
}

/// The sentence of the memcpy quantity, with `how` applied to every series
/// first.
fn memcpy_sentence(how: impl Fn(&mut Metric)) -> String {
    let mut r = fixture();
    for e in &mut r.experiments {
        e.metrics.iter_mut().for_each(&how);
    }
    let q = QUANTITIES
        .iter()
        .find(|q| q.name.starts_with("a memcpy of 64 KiB"))
        .expect("the memcpy quantity");
    let sources = found(&r, q);
    assert_eq!(sources.len(), 2, "both sources in the fixture");
    verdict(&sources)
}

#[test]
fn the_memcpy_quantity_opens_with_the_sources_whatever_settled() {
    let cases = [
        ("as measured", memcpy_sentence(|_| {})),
        (
            "flagged",
            memcpy_sentence(|m| {
                let s = &mut m.summary;
                s.unstable = true;
                s.unsettled = Some(Unsettled::TwoModes {
                    low: s.median * 0.8,
                    high: s.median * 1.2,
                    low_share: 0.5,
                    explained: None,
                });
            }),
        ),
        (
            "apart",
            memcpy_sentence(|m| {
                if m.name == "copy_ns" && m.summary.median < 600.0 {
                    let s = &mut m.summary;
                    for v in [&mut s.median, &mut s.ci95_lo, &mut s.ci95_hi] {
                        *v *= 0.5;
                    }
                }
            }),
        ),
        (
            "bounding nothing",
            memcpy_sentence(|m| {
                m.summary.ci95_lo = 0.0;
            }),
        ),
    ];
    for (what, s) in &cases {
        assert!(s.starts_with("the sources "), "{what}: {s}");
    }
    assert!(cases[0].1.contains("agree within their intervals"));
    assert!(cases[1].1.contains("not compared") && cases[1].1.contains("flagged"));
    assert!(cases[2].1.contains("disagree beyond their intervals"));
    assert!(cases[3].1.contains("not compared") && cases[3].1.contains("bounds nothing"));
}

/// The reviewer's run 3: the 64 KiB memcpy 1.39 µs [1.37 µs, 1.41 µs] in
/// yardstick.memcpy against 1.27 µs [1.21 µs, 1.36 µs] in switch.pingpong.
/// They disagree, and the sentence says so with what is known: not "the
/// context around it", which nothing measured (issue 39).
#[test]
fn sources_that_disagree_are_said_to_with_no_cause_guessed() {
    let pairs = [("size", "64 KiB"), ("layout", "aligned")];
    let yard = settled("copy_ns", &pairs, 1391.0, 1369.3, 1407.9);
    let ping = settled("copy_ns", &pairs, 1273.8, 1214.2, 1358.5);
    let v = verdict(&[("yardstick.memcpy", &yard), ("switch.pingpong", &ping)]);
    assert_eq!(
        v,
        "the sources disagree beyond their intervals (yardstick.memcpy 1.39 µs against switch.pingpong 1.27 µs): \
         the same operation, measured by different experiments, each in workers of its own; what sets them apart is not recorded"
    );
    assert!(!v.contains("context"), "{v}");
    // Intervals that overlap agree.
    let near = settled("copy_ns", &pairs, 1380.0, 1300.0, 1400.0);
    assert_eq!(
        verdict(&[("yardstick.memcpy", &yard), ("switch.pingpong", &near)]),
        "the sources agree within their intervals"
    );
}
