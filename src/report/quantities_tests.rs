use super::verdict;
use crate::experiments::testing::settled;

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
        "they disagree beyond their intervals (yardstick.memcpy 1.39 µs against switch.pingpong 1.27 µs): \
         the same operation, measured by different experiments, each in workers of its own; what sets them apart is not recorded"
    );
    assert!(!v.contains("context"), "{v}");
    // Intervals that overlap agree.
    let near = settled("copy_ns", &pairs, 1380.0, 1300.0, 1400.0);
    assert_eq!(
        verdict(&[("yardstick.memcpy", &yard), ("switch.pingpong", &near)]),
        "they agree within their intervals"
    );
}
