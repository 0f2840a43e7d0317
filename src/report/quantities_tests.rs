//! The one-quantity sentences open the same way in every run (issue 39
//! item 9): "the sources" agree, disagree, or are not compared.

use super::*;
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
