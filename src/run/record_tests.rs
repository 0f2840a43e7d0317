use super::*;
use crate::results::{ExperimentResult, Status};

#[test]
fn an_interrupt_says_how_far_the_run_came_and_what_kept_figures() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-results.json");
    let mut r = RunResults::read(&path).expect("the fixture reads");
    let mut whole = ExperimentResult::default_named("a.whole");
    whole.status = Status::Ok;
    let mut kept = ExperimentResult::default_named("a.kept");
    kept.interrupted = Some("interrupted (SIGINT) with 2 of its 8 rounds complete".into());
    let mut cut = ExperimentResult::default_named("a.cut");
    cut.status = Status::Failed;
    r.experiments = vec![whole, kept, cut];
    let w = crate::results::Interruption { job: 15, jobs: 48 }.words(&r);
    assert!(w.starts_with("interrupted at job 15 of 48: "), "{w}");
    assert!(w.contains("1 of 3 experiments ran every round"), "{w}");
    assert!(
        w.contains("1 of 3 have figures from their complete rounds only"),
        "{w}"
    );
    assert!(w.contains("1 of 3 had too few rounds complete"), "{w}");
    assert!(r.experiments[1].partial());
    assert!(r.experiments[1]
        .partial_words()
        .unwrap()
        .contains("2 of its 8 rounds complete"));
}
