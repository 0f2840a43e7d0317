use super::*;
use crate::results::Busy;

/// A run's record: 300 of 371 series within ±5%, the median ±3.1%.
fn record() -> Precision {
    Precision {
        target_pct: 5.0,
        series: 371,
        reached: 300,
        median_half_width_pct: 3.12,
        adaptive_jobs: 120,
        budget_s: Some(70.0),
        measured_s: Some(70.2),
        floor_s: Some(41.0),
        deadline_s: Some(70.0),
        rounds: Some((3, 24)),
        summary_rounds: Some((8, 24)),
        summary_short: None,
        touch_ns: None,
    }
}

#[test]
fn the_last_line_says_what_the_budget_bought() {
    assert_eq!(
        record().sentence(None),
        "The 70 s budget bought ±3.1% median precision (300 of 371 series (81%) within ±5%, 3–24 rounds; the Summary's quantities 8–24 rounds)"
    );
}

#[test]
fn minimum_rounds_past_the_budget_are_said_so() {
    let slow = Precision {
        measured_s: Some(83.0),
        floor_s: Some(83.0),
        summary_rounds: Some((8, 8)),
        ..record()
    };
    let s = slow.sentence(None);
    assert!(
        s.starts_with(
            "The rounds every series must have took 83 s, past the 70 s budget, and bought ±3.1%"
        ),
        "{s}"
    );
    assert!(s.ends_with("the Summary's quantities 8 rounds)"), "{s}");
    // With the rounds' canaries: how dear fresh memory was, as a fact.
    let canaries = Precision {
        touch_ns: Some((2_480.0, 1_150.0)),
        ..slow.clone()
    };
    let s = canaries.sentence(None);
    assert!(
        s.contains("the Summary's quantities 8 rounds). A page of fresh memory took 2.2x as long to touch as a recycled one (2.48 µs against 1.15 µs per 4 KiB page"),
        "{s}"
    );
    // Within the budget the canaries are not the run's story.
    assert!(!Precision {
        touch_ns: Some((2_480.0, 1_150.0)),
        ..record()
    }
    .sentence(None)
    .contains("fresh memory"));
    // What the run recorded that held its rounds back comes first: the
    // cgroup's quota, the hypervisor's steal, other work, at the levels the
    // run's warnings use.
    let held = Busy {
        throttled: Some(crate::env::Throttling {
            nr_throttled: 1_018,
            throttled_usec: 60_100_000,
        }),
        steal_share: 0.031,
        during_other_runnable: 0.2,
        ..Busy::default()
    };
    let s = canaries.sentence(Some(&held));
    assert!(
        s.contains("the Summary's quantities 8 rounds). While it ran, the cgroup's CPU quota stalled it 1,018 times (60.1 s held back) and the hypervisor stole 3.1% of the CPUs' time. A page of fresh memory"),
        "{s}"
    );
    let all = Busy {
        during_other_runnable: 1.5,
        ..held.clone()
    };
    assert!(canaries
        .sentence(Some(&all))
        .contains("(60.1 s held back), the hypervisor stole 3.1% of the CPUs' time and other work ran on its CPUs"));
    // Below those levels, or within the budget, nothing is said of them.
    let quiet = Busy {
        throttled: Some(crate::env::Throttling::default()),
        steal_share: 0.01,
        ..Busy::default()
    };
    assert_eq!(canaries.sentence(Some(&quiet)), canaries.sentence(None));
    assert_eq!(record().sentence(Some(&all)), record().sentence(None));
}

#[test]
fn a_run_that_ended_before_its_budget_says_why() {
    // Every series reached the target early.
    let done = Precision {
        measured_s: Some(30.0),
        reached: 371,
        ..record()
    };
    assert!(done.sentence(None).starts_with(
        "30 s of the 70 s budget bought ±3.1% median precision (371 of 371 series (100%)"
    ));
    assert!(done.sentence(None).contains("no more rounds were needed"));
    // Named experiments without --budget: their rounds' time.
    let named = Precision {
        measured_s: Some(12.0),
        floor_s: Some(12.3),
        deadline_s: Some(12.0),
        ..record()
    };
    assert!(
        named.sentence(None).starts_with("12 s bought ±3.1%")
            && named.sentence(None).ends_with(
                "as long as the profile's rounds of every point take, under the 70 s budget"
            ),
        "{}",
        named.sentence(None)
    );
}

#[test]
fn fixed_rounds_and_old_files_keep_their_own_words() {
    let fixed = Precision {
        budget_s: None,
        deadline_s: None,
        measured_s: Some(20.0),
        rounds: Some((4, 4)),
        summary_rounds: Some((4, 4)),
        ..record()
    };
    assert!(fixed
        .sentence(None)
        .starts_with("20 s of fixed rounds bought ±3.1% median precision (300 of 371 series (81%) within ±5%, 4 rounds"));
    let old = Precision {
        budget_s: None,
        measured_s: None,
        floor_s: None,
        deadline_s: None,
        rounds: None,
        summary_rounds: None,
        ..record()
    };
    assert_eq!(
        old.sentence(None),
        "300 of 371 series (81%) are known to ±5% or better; the median interval is ±3.1% (120 adaptive rounds went to the widest)"
    );
}

#[test]
fn a_budget_that_did_not_hold_the_summarys_rounds_says_what_would() {
    // Session 20's final run 1: the Summary's dearest points at 5 rounds,
    // its 8 rounds 22.6 s more at their points' costs.
    let short = Precision {
        measured_s: Some(75.0),
        deadline_s: Some(75.0),
        budget_s: Some(75.0),
        floor_s: Some(70.6),
        summary_rounds: Some((5, 7)),
        summary_short: Some((8, 22.6)),
        ..record()
    };
    let s = short.sentence(None);
    assert!(
        s.ends_with(
            "the Summary's quantities 5–7 rounds, 8 each would have taken about 23 s more (--budget 98))"
        ),
        "{s}"
    );
    // Held: nothing more is said.
    let held = Precision {
        summary_short: None,
        ..short.clone()
    };
    assert!(held
        .sentence(None)
        .ends_with("the Summary's quantities 5–7 rounds)"));
    // Under half a second short reads as held, never "0 s more".
    let hair = Precision {
        summary_short: Some((8, 0.3)),
        ..short
    };
    assert!(
        !hair.sentence(None).contains("would have taken"),
        "{}",
        hair.sentence(None)
    );
}
