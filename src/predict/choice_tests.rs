//! Which figures are the prediction: the replay where it was built, the
//! model where not, with why.

use super::model::{predict, Spread};
use super::range::Range;
use super::replay::{self, PredictedBy, Replay, Shares};
use super::tests::{process, with_cold};
use super::{hold_for_process, render, render_with, to_json};

/// A replay built, its figures far from the model's so that the text
/// shows which is which.
fn built() -> Replay {
    Replay {
        parent_return_ns: Range {
            median: 7.0e6,
            lo: 6.5e6,
            hi: 7.5e6,
        },
        single_fork_ns: Spread {
            p10: 6.0e6,
            p90: 9.0e6,
        },
        forks_ns: vec![7.0e6; 20],
        rounds: replay::ROUNDS,
        forks_per_round: replay::FORKS_PER_ROUND,
        pause_ms: replay::PAUSE_MS,
        process: Shares::default(),
        replayed: Shares::default(),
        pages: 1_000,
        blocks: 4,
        blocks_whole: 4,
        pages_not_placed: 0,
        build_ms: 10.0,
        run_noise: 0.01,
        process_run_noise: 0.0,
    }
}

#[test]
fn a_replay_built_is_the_prediction_and_the_model_stands_beside_it() {
    let proc_ = process(550);
    let p = predict(&with_cold(), &proc_, 10.0).unwrap();
    let cold = p.cold_fork.unwrap().parent_return_ns;
    let replayed: Result<Replay, String> = Ok(built());
    assert_eq!(replay::predicted_by(&replayed), (PredictedBy::Replay, None));
    let v = to_json(&proc_, &p, "a fixture", &replayed);
    assert_eq!(v["predicted_by"], "replay");
    assert!(v["predicted_by_why"].is_null(), "{v}");
    // The old fields kept: the model's prediction and the replay.
    assert_eq!(
        v["prediction"]["cold_fork"]["parent_return_ns"]["median"],
        cold.median
    );
    assert_eq!(v["replay"]["parent_return_ns"]["median"], 7.0e6);
    assert!(v["replay_skipped"].is_null(), "{v}");

    let text = render_with(&proc_, &p, "a fixture", &replayed);
    let headline = text
        .find("7.00 ms [6.50 ms, 7.50 ms], the median cold fork and its 95% interval across 5 rounds of 4: the prediction, from the process's layout replayed")
        .unwrap_or_else(|| panic!("{text}"));
    let model = text
        .find("the model, by its layout's shares")
        .unwrap_or_else(|| panic!("{text}"));
    let models_cold = text
        .find("the model's cold fork, after a 300 ms pause")
        .unwrap_or_else(|| panic!("{text}"));
    // The process first, the replay's figures next, the model's after them.
    assert!(text.starts_with("process "), "{text}");
    assert!(headline < model && model < models_cold, "{text}");
    assert!(
        text.contains("a single cold fork: 6.00 ms to 9.00 ms"),
        "{text}"
    );
    assert!(!text.contains("the model is the prediction"), "{text}");
    // The model's own text is all there, its cold fork named as the model's.
    let own = render(&proc_, &p, "a fixture");
    let named = own.replacen("a cold fork, after", "the model's cold fork, after", 1);
    let body = &named[named.find("fork() would return").unwrap()..];
    assert!(text.ends_with(body), "{text}\n--- the model's:\n{body}");
}

#[test]
fn without_a_replay_the_model_is_the_prediction_and_says_why() {
    let proc_ = process(550);
    let p = predict(&with_cold(), &proc_, 10.0).unwrap();
    let not_asked = replay::not_asked(proc_.rss_anon_kib * 1024);
    for why in [
        not_asked.as_str(),
        "its pages' physical frames are hidden from this user (no CAP_SYS_ADMIN) or none is present",
    ] {
        let replayed: Result<Replay, String> = Err(why.into());
        assert_eq!(
            replay::predicted_by(&replayed),
            (PredictedBy::Model, Some(why))
        );
        let v = to_json(&proc_, &p, "a fixture", &replayed);
        assert_eq!(v["predicted_by"], "model");
        assert_eq!(v["predicted_by_why"], why);
        assert_eq!(v["replay_skipped"], why);
        assert!(v["replay"].is_null(), "{v}");
        let text = render_with(&proc_, &p, "a fixture", &replayed);
        // The model's text as it was, and one line saying why it stands.
        assert!(text.starts_with(&render(&proc_, &p, "a fixture")), "{text}");
        assert!(
            text.ends_with(&format!(
                "  (the model is the prediction, the process's layout not replayed: {why})\n"
            )),
            "{text}"
        );
        assert!(!text.contains("the model's cold fork"), "{text}");
    }
}

#[test]
fn the_replay_is_held_for_the_process_by_the_model_s_cold_tau_else_its_warm_one() {
    let proc_ = process(550);
    let cold = predict(&with_cold(), &proc_, 10.0).unwrap();
    let mut replayed: Result<Replay, String> = Ok(built());
    hold_for_process(&mut replayed, &cold);
    let r = replayed.unwrap();
    let tau = cold.cold_fork.unwrap().run_noise;
    assert_eq!(r.process_run_noise, tau);
    // Wider, never moved: the prediction's interval holds the rounds' and
    // the process's run-to-run noise.
    let b = built().parent_return_ns;
    assert_eq!(r.parent_return_ns.median, b.median);
    assert!(r.parent_return_ns.lo <= b.lo && b.hi <= r.parent_return_ns.hi);
    // No cold figures in the model: its warm τ.
    let warm = predict(&super::tests::fixture(), &proc_, 10.0).unwrap();
    assert_eq!(warm.cold_fork, None);
    let mut replayed: Result<Replay, String> = Ok(built());
    hold_for_process(&mut replayed, &warm);
    assert_eq!(replayed.unwrap().process_run_noise, warm.run_noise);
    // No replay: nothing to hold.
    let mut none: Result<Replay, String> = Err(replay::not_asked(1 << 30));
    hold_for_process(&mut none, &cold);
    assert_eq!(none, Err(replay::not_asked(1 << 30)));
}

#[test]
fn not_asked_the_line_names_the_flag_and_what_the_replay_costs() {
    // Not built by default: the reason names `--replay` and the copy of
    // the process's anonymous memory it would take, that process's own.
    let proc_ = process(550);
    let p = predict(&with_cold(), &proc_, 10.0).unwrap();
    let why = replay::not_asked(proc_.rss_anon_kib * 1024);
    assert!(why.starts_with("not asked; `--replay` builds it"), "{why}");
    assert!(
        why.contains("a copy of its anonymous memory (1 GiB and 128 MiB of scratch,"),
        "{why}"
    );
    assert!(
        replay::not_asked(4 << 20).contains("(4 MiB and"),
        "{}",
        replay::not_asked(4 << 20)
    );
    let replayed: Result<Replay, String> = Err(why.clone());
    let text = render_with(&proc_, &p, "a fixture", &replayed);
    // One line, the last.
    let last = text.lines().last().unwrap();
    assert_eq!(
        last,
        format!("  (the model is the prediction, the process's layout not replayed: {why})")
    );
    assert_eq!(
        to_json(&proc_, &p, "a fixture", &replayed)["predicted_by_why"],
        why
    );
}
