use super::*;

fn point(cost_s: f64, rounds: usize, widths: &[f64]) -> Point {
    Point {
        cost_s,
        rounds,
        widths: widths.to_vec(),
    }
}

const T: f64 = 0.05;

#[test]
fn a_round_narrows_less_the_more_rounds_a_point_has() {
    // (Up to 30 rounds: past them the table's t gives way to z.)
    let steps: Vec<f64> = (2..=30).map(step).collect();
    assert!(steps.iter().all(|s| *s > 0.0), "{steps:?}");
    assert!(steps.windows(2).all(|w| w[0] >= w[1]), "{steps:?}");
    // From 3 rounds to 4: t(2)/√3 over t(3)/√4, about 0.45 in logs.
    assert!((step(3) - 0.445).abs() < 0.01, "{}", step(3));
    assert!(step(8) < 0.1);
}

#[test]
fn a_point_gains_only_down_to_the_target() {
    // Within the target: nothing to gain.
    assert_eq!(gain(&point(0.1, 3, &[0.01, 0.05]), T), 0.0);
    // Just above it: the gain stops at the target.
    let near = gain(&point(0.1, 3, &[0.051]), T);
    assert!((near - (0.051f64 / 0.05).ln()).abs() < 1e-12, "{near}");
    // Further above it: a whole step, for each series that far.
    let two = gain(&point(0.1, 3, &[0.10, 0.11, 0.01]), T);
    assert!((two - 2.0 * step(3)).abs() < 1e-12, "{two}");
    // A width not known counts for nothing.
    assert_eq!(gain(&point(0.1, 3, &[f64::NAN]), T), 0.0);
}

#[test]
fn a_series_that_cannot_reach_the_target_counts_a_tenth() {
    // From 3 rounds to 6 an interval narrows to 0.42 of itself: ±11% can
    // reach ±5% within them, ±30% cannot.
    assert!(within_reach(0.11, 3, T) && !within_reach(0.13, 3, T));
    assert!(!within_reach(0.30, 3, T));
    // From 20 rounds to 40, only to 0.66 of itself.
    assert!(within_reach(0.075, 20, T) && !within_reach(0.077, 20, T));
    let far = gain(&point(0.1, 3, &[0.30]), T);
    assert!((far - FAR * step(3)).abs() < 1e-12, "{far}");
    // Ten hopeless series are worth less than two that can get there.
    let hopeless = point(0.1, 3, &[0.30; 10]);
    let near = point(0.1, 3, &[0.08, 0.09]);
    assert!(gain(&near, T) > gain(&hopeless, T));
}

#[test]
fn the_next_rounds_go_where_a_second_buys_the_most() {
    let points = [
        // 0: wide, cheap, few rounds: the best buy
        point(0.1, 3, &[0.20, 0.15]),
        // 1: as wide, ten times dearer
        point(1.0, 3, &[0.20, 0.15]),
        // 2: within the target
        point(0.1, 3, &[0.02]),
        // 3: wide, cheap, but already many rounds
        point(0.1, 30, &[0.20]),
        // 4: at the most rounds
        point(0.1, 100, &[0.40]),
    ];
    // Time for a short pass only: the best buy first, and a second point
    // so that no point runs twice in a row (the dear one does not fit).
    let p = pass(&points, T, 0.5, 100);
    assert_eq!(p, vec![0, 3], "{p:?}");
    // A long time left: every point worth a round gets one, best first;
    // none within the target or at the most rounds.
    let p = pass(&points, T, 100.0, 100);
    assert_eq!(p, vec![0, 1, 3], "{p:?}");
    // With a little more time, the second best is the dear one.
    assert_eq!(pass(&points, T, 1.2, 100), vec![0, 1]);
    // No time, or nothing to narrow: an empty pass ends the rounds.
    assert!(pass(&points, T, 0.05, 100).is_empty());
    assert!(pass(&[point(0.1, 3, &[0.01])], T, 60.0, 100).is_empty());
}

#[test]
fn a_pass_takes_a_share_of_the_time_left_so_the_choice_is_made_again() {
    // Forty equal points: a pass with 10 s left takes 2.5 s of them.
    let points: Vec<Point> = (0..40).map(|_| point(0.25, 3, &[0.2])).collect();
    let p = pass(&points, T, 10.0, 100);
    assert_eq!(p.len(), 10, "{p:?}");
    let spent: f64 = p.iter().map(|&i| points[i].cost_s).sum();
    assert!(spent <= PASS_SHARE * 10.0 + 1e-9);
}

#[test]
fn a_round_of_many_wide_series_is_worth_its_cost() {
    // A point of many wide series costs more but buys more per round.
    let many = point(1.0, 3, &[0.2; 20]);
    let one = point(0.1, 3, &[0.2]);
    let p = pass(&[one.clone(), many.clone()], T, 4.0, 100);
    assert_eq!(p[0], 1, "twenty series for ten times the cost: {p:?}");
    let p = pass(&[one, point(1.0, 3, &[0.2; 5])], T, 4.0, 100);
    assert_eq!(p[0], 0, "five series for ten times the cost: {p:?}");
}

#[test]
fn a_pass_never_starts_with_the_point_the_last_one_ended_with() {
    let mut v = vec![7, 1, 2, 3];
    not_first(&mut v, Some(&7));
    assert_ne!(v[0], 7);
    assert_eq!(v.len(), 4);
    let mut one = vec![7];
    not_first(&mut one, Some(&7));
    assert_eq!(one, vec![7], "one point alone runs as it must");
    let mut other = vec![1, 7];
    not_first(&mut other, Some(&7));
    assert_eq!(other, vec![1, 7]);
}

#[test]
fn more_rounds_spread_over_the_queue_never_side_by_side() {
    for len in [0, 1, 2, 5, 17, 100] {
        for n in 1..8 {
            let picks: [fn(usize) -> usize; 3] = [|_| 0, |m| m - 1, |m| m / 2];
            for pick in picks {
                let at = spread(len, n, pick);
                assert_eq!(at.len(), n);
                // Valid positions in the queue as it grows, each after the last.
                for (k, &i) in at.iter().enumerate() {
                    assert!(i <= len + k, "len {len}, n {n}: {at:?}");
                }
                assert!(at.windows(2).all(|w| w[0] < w[1]), "{at:?}");
                // With jobs enough to put between, two are never adjacent.
                if len >= n {
                    assert!(at.windows(2).all(|w| w[1] > w[0] + 1), "{len} {n} {at:?}");
                }
            }
        }
    }
    // Spread over the whole queue, not bunched at its start.
    let at = spread(100, 5, |_| 0);
    assert_eq!(at, vec![0, 21, 42, 63, 84]);
}

#[test]
fn the_run_ends_at_the_budget_or_sooner_for_a_few_experiments() {
    // The default budget, the whole suite: its rounds would take longer.
    assert_eq!(deadline_s(70.0, false, 140.0), 70.0);
    // Named experiments, no --budget: as long as their rounds take.
    assert_eq!(deadline_s(70.0, false, 12.0), 12.0);
    // The user's budget is the user's, whatever the rounds would take.
    assert_eq!(deadline_s(30.0, true, 12.0), 30.0);
    assert_eq!(deadline_s(30.0, true, 140.0), 30.0);
}

#[test]
fn the_time_left_is_the_queue_or_the_budget_whichever_is_longer() {
    // Planned jobs take 20 s; the budget ends 50 s from now.
    assert_eq!(left_s(20.0, 10.0, Some(60.0)), 50.0);
    // The minimum rounds run past the budget: they set the time.
    assert_eq!(left_s(20.0, 55.0, Some(60.0)), 20.0);
    // Fixed rounds: the queue alone.
    assert_eq!(left_s(20.0, 10.0, None), 20.0);
    assert_eq!(left_s(0.0, 80.0, Some(60.0)), 0.0);
}

// ------------------------------------- the points of the Summary's quantities

use crate::experiments::switch::methods::{PIPE_THREADS, SAME_CPU, TWO_CPUS, TWO_CPUS_AWAKE};
use crate::experiments::switch::series::SWITCH_NS;
use crate::measure::protocol::RawSeries;
use crate::metric::key::{METHOD, PLACEMENT};

/// One round of switch.pingpong's `method` at `placement`.
fn switches(method: &str, placement: &str) -> RawSeries {
    RawSeries {
        name: SWITCH_NS.name.into(),
        unit: Some(Unit::Ns),
        labels: [
            (METHOD.to_string(), method.to_string()),
            (PLACEMENT.to_string(), placement.to_string()),
        ]
        .into(),
        samples: vec![2000.0, 2100.0, 1900.0],
        detail: false,
    }
}

fn round(point: usize, series: Vec<RawSeries>) -> (usize, usize, WorkerOutput) {
    (
        point,
        0,
        WorkerOutput {
            series,
            ..WorkerOutput::default()
        },
    )
}

#[test]
fn the_summary_quantities_points_are_found_by_their_labels() {
    let exp = crate::experiments::find("switch.pingpong").unwrap();
    let (pipe, other) = (PIPE_THREADS.name(), "futex_threads");
    // A point per placement, each measuring two methods; the Summary reads
    // pipe_threads on one CPU and across two.
    let outputs = vec![
        round(
            0,
            vec![
                switches(pipe, TWO_CPUS_AWAKE.name()),
                switches(other, TWO_CPUS_AWAKE.name()),
            ],
        ),
        round(
            1,
            vec![
                switches(pipe, TWO_CPUS.name()),
                switches(other, TWO_CPUS.name()),
            ],
        ),
        round(
            2,
            vec![
                switches(other, SAME_CPU.name()),
                switches(pipe, SAME_CPU.name()),
            ],
        ),
    ];
    assert_eq!(summary_points(exp, &outputs), vec![1, 2]);
    // An experiment the Summary reads nothing of: no point.
    let none = crate::experiments::find("switch.echo").unwrap();
    assert!(summary_points(none, &outputs).is_empty());
    // Nothing measured yet: nothing to pick.
    assert!(summary_points(exp, &[]).is_empty());
}

#[test]
fn a_summary_layer_takes_the_cheapest_points_that_fit() {
    // Everything fits: every point, cheapest first.
    assert_eq!(top_up(&[3.0, 1.0, 2.0], 10.0), vec![1, 2, 0]);
    // 1 + 2 fit in 4 s; the 3 s point would overrun, so it keeps its rounds.
    assert_eq!(top_up(&[3.0, 1.0, 2.0], 4.0), vec![1, 2]);
    // A dear point past the time left does not stop a cheaper one after it.
    assert_eq!(top_up(&[5.0, 0.5], 1.0), vec![1]);
    // Nothing fits, or nothing is left: an empty layer ends the top-up.
    assert!(top_up(&[3.0, 2.0], 1.0).is_empty());
    assert!(top_up(&[], 10.0).is_empty());
    // A cost not measured (NaN) is never chosen.
    assert_eq!(top_up(&[f64::NAN, 1.0], 10.0), vec![1]);
}

/// The Summary's points of session 20's final run 1 (fresh page 2.1 µs),
/// seconds a round each, cheapest first: the system call, fork at 0 B,
/// 2,000 threads' stacks, the same-CPU ping-pong, coroutines, fork at
/// 256 MiB, the cow
/// writes, the whole program with thp=on, the average, fork at 1 GiB, the
/// whole program with thp=default.
const SLOW: [f64; 11] = [
    0.03, 0.10, 0.18, 0.21, 0.31, 0.45, 0.91, 1.19, 1.57, 1.57, 2.33,
];

#[test]
fn the_summary_gets_its_rounds_whenever_the_budget_holds_them() {
    let have = [5; 11];
    let need: f64 = SLOW.iter().map(|c| 3.0 * c).sum();
    for left in [need, need + 0.01, 2.0 * need] {
        let p = summary_plan(&SLOW, &have, 8, left);
        assert_eq!(p.rounds, vec![8; 11], "{left}");
        assert_eq!(p.short_s, 0.0);
        // The first layer is every point, cheapest first.
        assert_eq!(p.next, (0..11).collect::<Vec<_>>());
    }
    // Points with rounds of their own already count for what they lack.
    let mixed = [8, 7, 6, 5, 5, 5, 5, 5, 5, 5, 3];
    let need: f64 = SLOW
        .iter()
        .zip(mixed)
        .map(|(c, h)| (8 - h) as f64 * c)
        .sum();
    let p = summary_plan(&SLOW, &mixed, 8, need);
    assert_eq!(p.rounds, vec![8; 11]);
    assert_eq!(p.short_s, 0.0);
    assert!(!p.next.contains(&0), "a point at 8 gets none: {:?}", p.next);
}

#[test]
fn a_budget_short_of_the_summarys_rounds_says_by_how_much() {
    let have = [5; 11];
    // Session 20's final run 1 had 4.4 s left after its minimum rounds.
    let p = summary_plan(&SLOW, &have, 8, 4.4);
    let need: f64 = SLOW.iter().map(|c| 3.0 * c).sum();
    assert!(p.rounds.iter().any(|&r| r < 8));
    let spent: f64 = SLOW
        .iter()
        .zip(&p.rounds)
        .map(|(c, r)| (r - 5) as f64 * c)
        .sum();
    assert!(spent <= 4.4 + 1e-9, "{spent}");
    // What is short is exactly what the rounds not planned would cost.
    assert!((p.short_s - (need - spent)).abs() < 1e-9, "{p:?}");
    assert!(p.short_s > need - 4.4 - 1e-9);
    // Cheaper points never end with fewer rounds than dearer ones.
    assert!(p.rounds.windows(2).all(|w| w[0] >= w[1]), "{:?}", p.rounds);
    // Nothing left: nothing planned, everything short.
    let none = summary_plan(&SLOW, &have, 8, 0.0);
    assert_eq!(none.rounds, vec![5; 11]);
    assert!(none.next.is_empty());
    assert!((none.short_s - need).abs() < 1e-9);
}

#[test]
fn the_summary_plan_holds_on_any_costs() {
    // Relations that hold for any costs and time left: the rounds planned
    // fit in it, no point passes the profile's rounds, and the plan is
    // short exactly when some point is below them.
    use rand::{RngExt, SeedableRng};
    let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(37);
    for _ in 0..500 {
        let n = rng.random_range(1..14);
        let costs: Vec<f64> = (0..n).map(|_| rng.random_range(0.0..3.0)).collect();
        let have: Vec<usize> = (0..n).map(|_| rng.random_range(3..9)).collect();
        let left = rng.random_range(0.0..40.0);
        let p = summary_plan(&costs, &have, 8, left);
        let spent: f64 = costs
            .iter()
            .zip(have.iter().zip(&p.rounds))
            .map(|(c, (h, r))| (r - h) as f64 * c)
            .sum();
        let need: f64 = costs
            .iter()
            .zip(&have)
            .map(|(c, h)| 8usize.saturating_sub(*h) as f64 * c)
            .sum();
        assert!(spent <= left + 1e-6, "{costs:?} {have:?} {left} {p:?}");
        assert!(p
            .rounds
            .iter()
            .zip(&have)
            .all(|(r, h)| r >= h && *r <= 8.max(*h)));
        if need <= left {
            assert!(
                p.rounds.iter().zip(&have).all(|(r, h)| *r == 8.max(*h)),
                "{p:?}"
            );
        }
        assert_eq!(
            p.short_s > 0.0,
            p.rounds.iter().zip(&costs).any(|(r, c)| *r < 8 && *c > 0.0)
        );
        assert!((p.short_s - (need - spent)).abs() < 1e-6);
    }
}

#[test]
fn a_point_whose_cost_is_unknown_is_left_out_of_the_summary_plan() {
    let p = summary_plan(&[f64::NAN, 1.0], &[5, 5], 8, 10.0);
    assert_eq!(p.rounds, vec![5, 8]);
    assert_eq!(p.short_s, 0.0);
}
