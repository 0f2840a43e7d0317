use super::*;
use crate::measure::protocol::labels;

const MS: f64 = 1e6;

/// An attributed series from rounds of (samples, user, [(function, self
/// samples)]), its shares left empty (the diff reads the rounds).
type Round<'a> = (u64, u64, &'a [(&'a str, u64)]);

fn attributed(rounds: &[Round]) -> Attribution {
    let mut names: Vec<&str> = rounds
        .iter()
        .flat_map(|(_, _, f)| f.iter().map(|x| x.0))
        .collect();
    names.sort_unstable();
    names.dedup();
    Attribution::of_rounds(
        labels(&[("method", "fork")]),
        PerRound {
            round: (0..rounds.len()).collect(),
            samples: rounds.iter().map(|r| r.0).collect(),
            user: rounds.iter().map(|r| r.1).collect(),
            functions: names
                .iter()
                .map(|n| {
                    let per = rounds
                        .iter()
                        .map(|(_, _, f)| f.iter().find(|x| x.0 == *n).map_or(0, |x| x.1))
                        .collect();
                    (n.to_string(), per)
                })
                .collect(),
        },
    )
}

fn close(x: f64, y: f64) -> bool {
    (x - y).abs() < 1e-6 * y.abs().max(1.0)
}

/// A part's change and its interval, in ms.
fn exactly(p: &Part, ms: f64) {
    assert!(close(p.change_ns, ms * MS), "{p:?}");
    assert!(close(p.lo_ns, ms * MS), "{p:?}");
    assert!(close(p.hi_ns, ms * MS), "{p:?}");
}

fn found<'a>(d: &'a WhyDiff, f: &str) -> &'a Part {
    d.functions.iter().find(|p| p.what == f).unwrap()
}

// A: a 10 ms fork, 80% of its samples copying page tables. B: a 4 ms
// fork with huge pages, 30% copying PTEs and 50% copying PMDs.
const A_ROUND: Round = (100, 10, &[("copy_page_range", 80), ("clear_page_erms", 10)]);
const B_ROUND: Round = (
    100,
    10,
    &[
        ("copy_page_range", 30),
        ("copy_huge_pmd", 50),
        ("clear_page_erms", 10),
    ],
);

fn check_thp(d: &WhyDiff) {
    exactly(&d.total, -6.0);
    exactly(&d.user, -0.6);
    exactly(&d.kernel, -5.4);
    // The largest changes first: 8 -> 1.2 ms, then 0 -> 2 ms.
    assert_eq!(d.functions.len(), 2);
    assert_eq!(d.functions[0].what, "copy_page_range");
    exactly(&d.functions[0], -6.8);
    assert!(close(d.functions[0].base_share, 0.8));
    assert!(close(d.functions[0].new_share, 0.3));
    assert!(close(d.functions[0].share_change, -0.5));
    assert_eq!(d.functions[0].share_order(), Order::Below);
    assert_eq!(d.functions[0].time_order(), Order::Below);
    // Absent from A's record, which names every kernel sample: 0 there.
    exactly(found(d, "copy_huge_pmd"), 2.0);
    assert_eq!(found(d, "copy_huge_pmd").time_order(), Order::Above);
    // The kernel's time in neither: clear_page_erms, 1 -> 0.4 ms.
    assert_eq!(d.other.what, OTHER);
    exactly(&d.other, -0.6);
}

#[test]
fn paired_rounds_give_exact_function_changes() {
    let (a, b) = (attributed(&[A_ROUND; 4]), attributed(&[B_ROUND; 4]));
    let d = diff(
        &[Run {
            attribution: &a,
            figures: vec![10.0 * MS; 4],
        }],
        &[Run {
            attribution: &b,
            figures: vec![4.0 * MS; 4],
        }],
        Design::Paired,
        2,
        7,
    )
    .unwrap();
    check_thp(&d);
    assert_eq!((d.base_samples, d.new_samples), (400, 400));
}

#[test]
fn separate_runs_give_exact_function_changes() {
    let (a, b) = (attributed(&[A_ROUND; 5]), attributed(&[B_ROUND; 4]));
    let d = diff(
        &[Run {
            attribution: &a,
            figures: vec![10.0 * MS; 5],
        }],
        &[Run {
            attribution: &b,
            figures: vec![4.0 * MS; 4],
        }],
        Design::Independent { tau: 0.0 },
        2,
        7,
    )
    .unwrap();
    check_thp(&d);
    assert_eq!((d.base_rounds, d.new_rounds), (5, 4));
}

#[test]
fn a_change_that_straddles_zero_is_not_told_apart() {
    // copy_page_range's time moves +1, -1, +2, -2 ms across the pairs.
    let a = attributed(&[
        (100, 0, &[("copy_page_range", 50), ("f", 50)]),
        (100, 0, &[("copy_page_range", 50), ("f", 50)]),
        (100, 0, &[("copy_page_range", 50), ("f", 50)]),
        (100, 0, &[("copy_page_range", 50), ("f", 50)]),
    ]);
    let b = attributed(&[
        (100, 0, &[("copy_page_range", 60), ("f", 40)]),
        (100, 0, &[("copy_page_range", 40), ("f", 60)]),
        (100, 0, &[("copy_page_range", 70), ("f", 30)]),
        (100, 0, &[("copy_page_range", 30), ("f", 70)]),
    ]);
    fn runs(x: &Attribution) -> Vec<Run<'_>> {
        vec![Run {
            attribution: x,
            figures: vec![10.0 * MS; 4],
        }]
    }
    for design in [Design::Paired, Design::Independent { tau: 0.02 }] {
        let d = diff(&runs(&a), &runs(&b), design, 3, 1).unwrap();
        let p = found(&d, "copy_page_range");
        assert_eq!(p.time_order(), Order::Overlap, "{design:?} {p:?}");
        assert!(p.lo_ns < 0.0 && p.hi_ns > 0.0, "{p:?}");
        assert_eq!(p.share_order(), Order::Overlap);
        // Every share and its change within their bounds; the change's
        // interval as computed around it, never clamped (issue 39).
        for p in d.functions.iter().chain([&d.user, &d.kernel, &d.other]) {
            for s in [p.base_share, p.new_share] {
                assert!((0.0..=1.0).contains(&s), "{p:?}");
            }
            assert!((-1.0..=1.0).contains(&p.share_change), "{p:?}");
            assert!(
                p.share_lo <= p.share_change && p.share_change <= p.share_hi,
                "{p:?}"
            );
        }
    }
}

#[test]
fn a_function_one_side_cannot_tell_is_left_to_the_others() {
    // A's record leaves 20 kernel samples a round unnamed: a function it
    // does not name may be among them, so it is not compared.
    let (ra, rb): (Round, Round) = (
        (100, 0, &[("copy_page_range", 80)]),
        (100, 0, &[("copy_page_range", 50), ("copy_huge_pmd", 50)]),
    );
    let (a, b) = (attributed(&[ra; 3]), attributed(&[rb; 3]));
    let d = diff(
        &[Run {
            attribution: &a,
            figures: vec![10.0 * MS; 3],
        }],
        &[Run {
            attribution: &b,
            figures: vec![10.0 * MS; 3],
        }],
        Design::Paired,
        3,
        1,
    )
    .unwrap();
    let names: Vec<&str> = d.functions.iter().map(|p| p.what.as_str()).collect();
    assert_eq!(names, ["copy_page_range"]);
    exactly(&d.other, 3.0);
}

#[test]
fn no_difference_without_rounds_or_samples_says_why() {
    let a = attributed(&[A_ROUND; 4]);
    fn run(x: &Attribution, n: usize) -> Vec<Run<'_>> {
        vec![Run {
            attribution: x,
            figures: vec![MS; n],
        }]
    }
    let mut old = a.clone();
    old.per_round = None;
    let e = diff(&run(&old, 4), &run(&a, 4), Design::Paired, 3, 1).unwrap_err();
    assert!(
        e.contains("base's attribution holds no per-round counts"),
        "{e}"
    );
    let e = diff(&run(&a, 4), &run(&a, 3), Design::Paired, 3, 1).unwrap_err();
    assert!(
        e.contains("new's sampled rounds (4) are not its figure's rounds (3)"),
        "{e}"
    );
    let r: Round = (6, 0, &[("copy_page_range", 6)]);
    let few = attributed(&[r; 4]);
    let e = diff(&run(&a, 4), &run(&few, 4), Design::Paired, 3, 1).unwrap_err();
    assert!(e.contains("too few samples"), "{e}");
    assert!(e.contains("new 24 in 4"), "{e}");
}
