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

/// Session 18's first default run: switch.pingpong's 64 KiB memcpy fell in
/// two modes over its 7 rounds (1.25 µs and 1.41 µs, 71% / 29%) and was
/// flagged; yardstick.memcpy's 3 rounds (1.40 µs each) were not, as the
/// rule reads modes only in 6 rounds or more. The same rule for both: the
/// sentence says why one is flagged and the other is not.
#[test]
fn a_source_too_short_to_flag_is_said_so_beside_a_flagged_one() {
    let pairs = [("size", "64 KiB"), ("layout", "aligned")];
    let mut yard = settled("copy_ns", &pairs, 1399.6, 1382.0, 1414.0);
    yard.summary.round_medians = vec![1399.3, 1400.8, 1396.2];
    let mut ping = settled("copy_ns", &pairs, 1257.0, 1199.0, 1446.0);
    ping.summary.round_medians = vec![1237.0, 1393.0, 1256.0, 1261.0, 1418.0, 1253.0, 1234.0];
    ping.summary.unstable = true;
    ping.summary.unsettled = crate::stats::rounds::unsettled(&ping.summary.round_medians);
    assert!(
        matches!(ping.summary.unsettled, Some(Unsettled::TwoModes { .. })),
        "the recorded rounds fall in two modes: {:?}",
        ping.summary.unsettled
    );
    // The rule itself: the memcpy's 3 rounds can never be flagged.
    assert_eq!(
        crate::stats::rounds::unsettled(&yard.summary.round_medians),
        None
    );
    let v = verdict(&[("yardstick.memcpy", &yard), ("switch.pingpong", &ping)]);
    assert!(
        v.starts_with("the sources are not compared: switch.pingpong (layout=aligned size=64 KiB) is flagged here (two modes: "),
        "{v}"
    );
    assert!(
        v.ends_with("so no agreement is claimed; yardstick.memcpy (layout=aligned size=64 KiB) is not flagged, but the rule reads a trend or two modes only in 6 rounds or more and it has 3 (their medians 1.40 µs, 1.40 µs and 1.40 µs, all nearer the high mode, 1.41 µs)"),
        "{v}"
    );
    // Enough rounds of its own: nothing said of it.
    yard.summary.round_medians = vec![1399.3; 6];
    let v = verdict(&[("yardstick.memcpy", &yard), ("switch.pingpong", &ping)]);
    assert!(v.ends_with("so no agreement is claimed"), "{v}");
}
