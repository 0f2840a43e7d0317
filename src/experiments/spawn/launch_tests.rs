use super::findings;
use crate::experiments::testing::{metric, result};

#[test]
fn the_seed_protocol_quotes_means_and_minimums_and_the_seed() {
    let r = result(vec![
        metric(
            "parent_return_ns",
            &[("method", "fork")],
            &[60e3, 61e3, 62e3, 63e3],
        ),
        metric(
            "parent_return_ns",
            &[("method", "pthread_create")],
            &[15e3, 16e3, 17e3, 18e3],
        ),
    ]);
    let f = findings(&r);
    assert!(f[0].contains("(mean)"), "{}", f[0]);
    assert!(f[0].contains("fork against a thread 3.7x"), "{}", f[0]);
    assert!(
        f[0].contains("fastest launches took 60.0 µs and 15.0 µs"),
        "{}",
        f[0]
    );
}

#[test]
fn the_seed_figure_pairs_with_the_parent_return_mean_never_the_lifecycle() {
    use crate::experiments::spawn::launch::EXPERIMENT;
    for s in EXPERIMENT.seeds {
        assert_eq!(s.metric, "parent_return_ns");
        assert_eq!(s.statistic, crate::results::SeedStat::Mean);
    }
}

#[test]
fn both_subjects_stay_when_a_figure_did_not_settle() {
    let mut r = result(vec![
        metric(
            "parent_return_ns",
            &[("method", "fork")],
            &[60e3, 61e3, 62e3, 263e3],
        ),
        metric(
            "parent_return_ns",
            &[("method", "pthread_create")],
            &[15e3, 16e3, 17e3, 18e3],
        ),
    ]);
    r.metrics[0].summary.unstable = true;
    let f = findings(&r);
    assert_eq!(f.len(), 2, "{f:#?}");
    assert!(
        f[0].contains("fork against a thread not told apart here (a figure did not settle)"),
        "{}",
        f[0]
    );
    assert!(f[0].contains(" !"), "{}", f[0]);
    assert!(
        f[1].starts_with("the seed's mean against the median: fork "),
        "{}",
        f[1]
    );
    assert!(f[1].contains(", a thread "), "{}", f[1]);
}
