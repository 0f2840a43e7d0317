use super::*;
use crate::results::why::{Attribution, PerRound};
use crate::results::Labels;

fn fixture() -> RunResults {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-results.json");
    RunResults::read(&path).expect("the fixture reads")
}

/// The fixture's fork at 1 GiB (every round of lifecycle_ns).
fn fork_labels(r: &RunResults) -> Labels {
    r.measured("spawn.heap")
        .unwrap()
        .metrics
        .iter()
        .find(|m| {
            m.name == "lifecycle_ns"
                && m.labels.get("heap").map(String::as_str) == Some("1 GiB")
                && m.labels.get("method").map(String::as_str) == Some("fork")
                && !m.labels.contains_key("call")
        })
        .unwrap()
        .labels
        .clone()
}

/// The fixture, its fork at 1 GiB `scale` times as dear, attributed with
/// `copy` of every 100 samples a round in copy_page_range (the rest in
/// clear_page_erms) when `copy` is given.
fn run(scale: f64, copy: Option<u64>) -> RunResults {
    let mut r = fixture();
    let labels = fork_labels(&r);
    let e = r
        .experiments
        .iter_mut()
        .find(|e| e.name == "spawn.heap")
        .unwrap();
    // Two series the windows time: fork+reap and fork's return.
    let mut rounds = 0;
    for m in e
        .metrics
        .iter_mut()
        .filter(|m| ["lifecycle_ns", "parent_return_ns"].contains(&m.name.as_str()))
        .filter(|m| m.labels == labels)
    {
        m.samples.iter_mut().for_each(|x| *x *= scale);
        rounds = m.rounds.len();
    }
    if let Some(copy) = copy {
        e.why.push(Attribution::of_rounds(
            labels,
            PerRound {
                round: (0..rounds).collect(),
                samples: vec![100; rounds],
                user: vec![0; rounds],
                functions: vec![
                    ("copy_page_range".into(), vec![copy; rounds]),
                    ("clear_page_erms".into(), vec![100 - copy; rounds]),
                ],
            },
        ));
    }
    r
}

fn compared(base: RunResults, new: RunResults) -> Comparison {
    super::super::comparison(
        (&[base], vec!["a.json".into()]),
        (&[new], vec!["b.json".into()]),
        5.0,
        false,
        None,
    )
    .unwrap()
}

#[test]
fn a_changed_row_of_two_attributed_runs_names_the_functions_whose_time_changed() {
    let c = compared(run(1.0, Some(90)), run(0.25, Some(20)));
    assert_eq!(c.why.len(), 2, "{:?}", c.why);
    let w = c
        .why
        .iter()
        .find(|w| c.rows[w.row].metric == "lifecycle_ns")
        .unwrap();
    let r = &c.rows[w.row];
    assert_eq!(r.metric, "lifecycle_ns");
    assert_eq!(r.verdict, Verdict::Improved);
    let d = w.diff.as_ref().expect("a difference");
    let copy = &d.functions[0];
    assert_eq!(copy.what, "copy_page_range");
    assert_eq!(copy.time_order(), Order::Below, "{copy:?}");
    assert_eq!(copy.share_order(), Order::Below, "{copy:?}");
    assert!((copy.base_share - 0.9).abs() < 1e-9 && (copy.new_share - 0.2).abs() < 1e-9);
    // The user's part is zero on both sides: no change told apart.
    assert_eq!(d.user.time_order(), Order::Overlap);
    let text = super::super::render::render_at(&c, false, 400);
    assert!(text.contains("where the time changed"), "{text}");
    assert!(text.contains("copy_page_range -"), "{text}");
    assert!(text.contains("(share 90.0% -> 20.0%, fell)"), "{text}");
    assert!(text.contains("user space none on either side"), "{text}");
    // One entry for the windows, told for the Summary's row, the other
    // row they time by its change alone.
    assert_eq!(text.matches("copy_page_range -").count(), 1, "{text}");
    assert!(
        text.contains("the same windows time parent_return_ns -"),
        "{text}"
    );
    // Both functions named: no kernel time is left to "other functions".
    assert!(!text.contains("other functions"), "{text}");
    let json = serde_json::to_value(&c).unwrap();
    assert_eq!(
        json["why"][0]["diff"]["functions"][0]["what"],
        "copy_page_range"
    );
}

#[test]
fn one_side_unattributed_says_why_and_neither_says_nothing() {
    let c = compared(run(1.0, None), run(0.25, Some(20)));
    assert_eq!(c.why.len(), 2);
    assert!(c.why[0].diff.is_none());
    assert_eq!(
        c.why[0].none.as_deref(),
        Some("base was not sampled (--why): no difference of attributions")
    );
    let text = super::super::render::render_at(&c, false, 400);
    assert!(
        text.contains("base was not sampled (--why): no difference of attributions"),
        "{text}"
    );
    let c = compared(run(1.0, None), run(0.25, None));
    assert!(c.why.is_empty());
    let text = super::super::render::render_at(&c, false, 400);
    assert!(!text.contains("where the time changed"), "{text}");
    assert!(serde_json::to_value(&c).unwrap().get("why").is_none());
}

#[test]
fn too_few_samples_say_so() {
    let mut few = run(0.25, Some(20));
    let e = few
        .experiments
        .iter_mut()
        .find(|e| e.name == "spawn.heap")
        .unwrap();
    let p = e.why[0].per_round.as_mut().unwrap();
    p.samples.iter_mut().for_each(|s| *s = 5);
    p.functions = vec![("copy_page_range".into(), vec![5; p.samples.len()])];
    let c = compared(run(1.0, Some(90)), few);
    let why = c.why[0].none.as_deref().unwrap();
    assert!(why.starts_with("too few samples"), "{why}");
}

#[test]
fn a_change_in_time_reads_on_one_scale() {
    assert_eq!(
        time_change(-6.8e6, -6.9e6, -6.7e6),
        "-6.80 ms [-6.90, -6.70]"
    );
    assert_eq!(
        time_change(12.4e6, 10.8e6, 13.0e6),
        "+12.4 ms [+10.8, +13.0]"
    );
    assert_eq!(time_change(100.0, -200.0, 400.0), "+100 ns [-200, +400]");
}
