use super::rounds_sentence;
use crate::results::{Precision, RunResults};

/// The fixture run with a time budget that gave its series 3 to 8 rounds,
/// and `adaptive` rounds bought for precision.
fn budgeted(adaptive: usize) -> RunResults {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-results.json");
    let mut r = RunResults::read(&path).expect("the fixture reads");
    let mut p = Precision::of(&r.experiments, 10.0, adaptive);
    p.budget_s = Some(600.0);
    p.rounds = Some((3, 8));
    r.precision = Some(p);
    r
}

#[test]
fn rounds_bought_for_precision_are_said_only_when_adaptive_rounds_ran() {
    // The reviewer's runs: 3 to 8 rounds, adaptive_jobs 0.
    let none = rounds_sentence(&budgeted(0));
    assert!(none.contains(": 3 at least"), "{none}");
    assert!(!none.contains("bought"), "{none}");
    let some = rounds_sentence(&budgeted(12));
    assert!(
        some.contains(", up to 8 where a round bought the most precision per second"),
        "{some}"
    );
}

/// The footnote counts, from the file, the series whose interval reaches
/// past their least or greatest sample, and says why (issue 39: 382 to 401
/// of 885 in the reviewer's three runs went unremarked).
#[test]
fn intervals_past_the_samples_are_counted_and_explained() {
    use super::past_the_samples;
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-results.json");
    let mut r = RunResults::read(&path).expect("the fixture reads");
    // The fixture: 3 rounds, no run noise recorded.
    let s = past_the_samples(&r).expect("the fixture has such intervals");
    assert_eq!(
        s,
        "524 of 853 series have an interval that reaches past their least or greatest sample: \
         524 with fewer than 8 rounds, whose interval is widened for its few rounds and not held within the samples."
    );
    // A series of 8 rounds held within its samples, then widened by the
    // run noise (run 1's system call: 80.2 ns, its samples 76.0-95.1 ns).
    let m = &mut r.experiments[1].metrics[0].summary;
    (m.min, m.median, m.max, m.rounds) = (76.0, 80.2, 95.1, 8);
    (m.ci95_lo, m.ci95_hi, m.run_noise) = (75.5, 81.0, Some(0.02));
    let s = past_the_samples(&r).expect("some");
    assert!(s.starts_with("525 of 853 series"), "{s}");
    assert!(
        s.contains(": 1 with 8 rounds or more, whose interval is held within the samples and then widened by the run-to-run noise (what one run's samples cannot show"),
        "{s}"
    );
    assert!(
        s.ends_with("; 524 with fewer than 8 rounds, whose interval is widened for its few rounds and not held within the samples."),
        "{s}"
    );
    // A series of fewer rounds that holds the run noise too: said once.
    let few = r
        .experiments
        .iter_mut()
        .flat_map(|x| x.metrics.iter_mut())
        .map(|m| &mut m.summary)
        .find(|s| s.rounds < 8 && s.ci95_lo < s.min)
        .expect("a series past its samples");
    few.run_noise = Some(0.01);
    let s = past_the_samples(&r).expect("some");
    assert!(
        s.ends_with("not held within the samples, and widened by that noise too."),
        "{s}"
    );
    assert_eq!(
        s.matches("what one run's samples cannot show").count(),
        1,
        "{s}"
    );
    // Every interval within its samples: nothing said.
    for x in &mut r.experiments {
        for m in &mut x.metrics {
            m.summary.ci95_lo = m.summary.min;
            m.summary.ci95_hi = m.summary.max;
        }
    }
    assert_eq!(past_the_samples(&r), None);
}

/// Issue 39: a percentage's interval in a table as computed, its bound past
/// 100% said so rather than printed as a share.
#[test]
fn a_percentage_bound_past_100_is_said_in_the_table() {
    use crate::experiments::testing::settled;
    let mut m = settled("timed_pct", &[("of", "wake_ns")], 97.0, 93.0, 101.5);
    m.unit = crate::results::Unit::Percent;
    let t = crate::report::table::interval_text(&m, true);
    assert!(
        t.starts_with("[93.0%, past 100%] (the share is estimated"),
        "{t}"
    );
    assert!(!t.contains("101"), "{t}");
    m.summary.ci95_hi = 99.0;
    assert!(crate::report::table::interval_text(&m, true).starts_with("[93.0%, 99.0%]"));
}

/// Issue 39: a count's interval as computed; a lower bound below zero is
/// said so in words for a series declared never negative, and printed as
/// computed for one declared signed (a growth) or not declared at all.
#[test]
fn a_bound_below_zero_is_said_only_for_a_figure_that_cannot_be_negative() {
    use crate::experiments::switch::wakeup::RES_PER_OP;
    use crate::report::table::{interval_text, never_negative};
    let mut m = crate::experiments::testing::settled(RES_PER_OP.name, &[], 0.0, -0.0003, 0.0019);
    m.unit = crate::results::Unit::Count;
    assert!(never_negative("switch.wakeup", &m));
    let t = interval_text(&m, never_negative("switch.wakeup", &m));
    assert!(
        t.starts_with("[below 0, 0.00] (the interval is estimated"),
        "{t}"
    );
    // a growth can shrink: its bound is a figure
    let growth = crate::experiments::memory::RSS_GROWTH_KIB;
    let mut g = crate::experiments::testing::settled(growth.name, &[], 4.0, -512.0, 2048.0);
    g.unit = crate::results::Unit::Kib;
    assert!(!never_negative("memory.malloc", &g));
    assert!(interval_text(&g, false).starts_with("[-512 KiB, 2,048 KiB]"));
    // a foreign file's series is not known to be never negative
    assert!(!never_negative("no.such", &m));
}
