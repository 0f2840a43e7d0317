//! Issue 37 item 4: a memory-heavy row holds the host's memory state, a
//! family's sensitivity to the memory canary over its rounds times the
//! canary's shift between the sides. Built in the test: rounds whose
//! figure follows their canary at a known slope.

use super::*;
use crate::results::{Better, Labels, Unit};
use crate::stats::Verdict;

/// The known sensitivity: a figure that grows as the canary's square root.
const BETA: f64 = 0.5;

/// The canary of round `i`, in logs, about `level` (ns): it steps by
/// ±20% from round to round, as one 2 MiB block's first touch does.
fn canary(level: f64, i: usize) -> f64 {
    level.ln() + [0.0, 0.2, -0.15, 0.1, -0.2, 0.15, -0.05, 0.05][i % 8]
}

/// A memory-heavy series (spawn.heap's fork, better lower) of one run of
/// 8 rounds, its canary about `level` ns, its figure `scale` times what
/// the canary gives it; with its canary recorded or not.
fn series(level: f64, scale: f64, recorded: bool) -> Series {
    let rounds: Vec<Vec<f64>> = (0..8)
        .map(|r| {
            let at = 1000.0 * scale * (BETA * (canary(level, r) - 1200f64.ln())).exp();
            (0..20)
                .map(|i| at * (1.0 + 0.001 * ((i + r) % 5) as f64))
                .collect()
        })
        .collect();
    let mut s = Series::of_runs(
        "spawn.heap",
        "lifecycle_ns",
        Labels::new(),
        (Unit::Ns, Better::Lower),
        &[rounds],
    )
    .unwrap();
    if recorded {
        s.canary_ln = vec![(0..8).map(|r| canary(level, r)).collect()];
    }
    s
}

/// A side of one series of one run, with its run's memory canary.
fn side(s: Series, level: Option<f64>) -> Side {
    Side {
        series: vec![s],
        runs: 1,
        memory_canary_ln: level.map(f64::ln),
        ..Side::default()
    }
}

/// The row of `base` against `new` at ±5%.
fn row(base: &Side, new: &Side) -> Row {
    compare(base, new, 0.05, 1.0).remove(0)
}

#[test]
fn a_shift_the_canary_explains_widens_the_row() {
    // The host's fresh memory twice as dear on the new side: the figure
    // follows at its sensitivity, +41%, and nothing else changed.
    let base = side(series(1200.0, 1.0, true), Some(1200.0));
    let new = side(series(2400.0, 1.0, true), Some(2400.0));
    let r = row(&base, &new);
    // what the host's memory state adds: β·Δ, β recovered from the rounds
    let expected = BETA * 2f64.ln() * 100.0;
    assert!(
        (r.memory_noise_pct - expected).abs() < 0.1 * expected,
        "{} against {expected}",
        r.memory_noise_pct
    );
    assert_ne!(r.verdict, Verdict::Regressed, "{r:?}");
    assert!(r.z.abs() < 1.96, "{r:?}");
    // the change itself is as measured, never moved by the canary
    assert!(
        (r.change - (2f64.powf(BETA) - 1.0) * 100.0).abs() < 1.0,
        "{r:?}"
    );
    // Without the canary recorded, the same figures are called regressed:
    // that is what the row held before.
    let blind = row(
        &side(series(1200.0, 1.0, false), None),
        &side(series(2400.0, 1.0, false), None),
    );
    assert_eq!(blind.verdict, Verdict::Regressed, "{blind:?}");
    assert_eq!(blind.memory_noise_pct, 0.0);
    assert!((blind.change - r.change).abs() < 1e-9);
    // and the header says what the rows rest on
    let c = Comparison::of(
        (&base, vec!["a.json".into()]),
        (&new, vec!["b.json".into()]),
        1,
        vec![r],
        5.0,
    );
    let m = c.memory_canary.as_ref().unwrap();
    assert_eq!(m.rows, 1);
    assert!((m.new_ns / m.base_ns - 2.0).abs() < 1e-9);
    let line = render::run_noise_line(&Comparison {
        noise_bases: vec![(crate::stats::noise::Basis::Spread, 1)],
        ..c
    });
    assert!(
        line.contains("the memory canary (a first touch of fresh memory, per 4 KiB page) 1.20 µs base, 2.40 µs new (+100.0%)"),
        "{line}"
    );
    assert!(line.contains("widens 1 row by a median"), "{line}");
}

#[test]
fn an_unchanged_canary_leaves_the_row_as_it_was() {
    let base = side(series(1200.0, 1.0, true), Some(1200.0));
    let new = side(series(1200.0, 1.03, true), Some(1200.0));
    let with = row(&base, &new);
    let without = row(
        &side(series(1200.0, 1.0, false), None),
        &side(series(1200.0, 1.03, false), None),
    );
    assert_eq!(with.memory_noise_pct, 0.0);
    assert_eq!(
        (with.z, with.ci_lo, with.ci_hi, with.mde, with.p),
        (
            without.z,
            without.ci_lo,
            without.ci_hi,
            without.mde,
            without.p
        )
    );
    assert_eq!(with.verdict, without.verdict);
    // nothing widened: the header has no memory line
    let c = Comparison::of(
        (&base, vec!["a.json".into()]),
        (&new, vec!["b.json".into()]),
        1,
        vec![with],
        5.0,
    );
    assert_eq!(c.memory_canary.as_ref().map(|m| m.rows), Some(0));
    assert!(!render::run_noise_line(&c).contains("memory canary"));
}

#[test]
fn a_regression_with_the_canary_unchanged_is_still_called() {
    let base = side(series(1200.0, 1.0, true), Some(1200.0));
    let new = side(series(1200.0, 1.25, true), Some(1200.0));
    let r = row(&base, &new);
    assert_eq!(r.verdict, Verdict::Regressed, "{r:?}");
    assert_eq!(r.memory_noise_pct, 0.0);
}

#[test]
fn a_series_that_touches_no_memory_holds_no_canary_term() {
    // the same figures under an experiment whose work touches no memory
    let rename = |mut s: Series| {
        s.experiment = "switch.pingpong".into();
        s
    };
    let base = side(rename(series(1200.0, 1.0, true)), Some(1200.0));
    let new = side(rename(series(2400.0, 1.0, true)), Some(2400.0));
    let r = row(&base, &new);
    assert_eq!(r.memory_noise_pct, 0.0);
    assert_eq!(r.verdict, Verdict::Regressed, "{r:?}");
}

// The system call's canary (the machine's speed), by the same construction:
// a family holds it when its experiment's rounds follow it.

/// The system call's canary of round `i`, in logs, about `level` (ns): it
/// steps by ±2% from round to round.
fn syscall(level: f64, i: usize) -> f64 {
    level.ln() + 0.1 * (canary(1.0, i) - 1f64.ln())
}

/// A series of `experiment` (better lower) of one run of 8 rounds whose
/// system call canary is about `level` ns, stepping as `syscall` does; its
/// figure follows the canary at slope `beta` when `follows`, else wobbles
/// by ±2% in a pattern the canary's steps do not explain; `scale` times
/// throughout.
fn machine_series(experiment: &str, level: f64, scale: f64, beta: f64, follows: bool) -> Series {
    let wobble = |r: usize| -> f64 { 0.02 * [1.0, 1.0, -1.0, -1.0, 1.0, 1.0, -1.0, -1.0][r % 8] };
    let rounds: Vec<Vec<f64>> = (0..8)
        .map(|r| {
            let x = syscall(level, r) - 75f64.ln();
            let at = 1000.0
                * scale
                * if follows {
                    (beta * x).exp()
                } else {
                    wobble(r).exp()
                };
            (0..20)
                .map(|i| at * (1.0 + 0.001 * ((i + r) % 5) as f64))
                .collect()
        })
        .collect();
    let mut s = Series::of_runs(
        experiment,
        "lifecycle_ns",
        Labels::new(),
        (Unit::Ns, Better::Lower),
        &[rounds],
    )
    .unwrap();
    s.syscall_ln = vec![(0..8).map(|r| syscall(level, r)).collect()];
    s
}

/// A side of one series of one run, with its run's system call canary.
fn machine_side(s: Series, level: f64) -> Side {
    Side {
        series: vec![s],
        runs: 1,
        syscall_canary_ln: Some(level.ln()),
        ..Side::default()
    }
}

#[test]
fn the_machine_term_is_nothing_when_the_system_call_canary_did_not_move() {
    let base = machine_side(machine_series("spawn.cold", 75.0, 1.0, 1.0, true), 75.0);
    let new = machine_side(machine_series("spawn.cold", 75.0, 1.25, 1.0, true), 75.0);
    let with = row(&base, &new);
    let mut blind = (base.clone(), new.clone());
    blind.0.syscall_canary_ln = None;
    blind.1.syscall_canary_ln = None;
    let without = row(&blind.0, &blind.1);
    assert_eq!(with.machine_noise_pct, 0.0);
    assert_eq!(
        format!("{:?}", (with.z, with.ci_lo, with.ci_hi, with.mde)),
        format!(
            "{:?}",
            (without.z, without.ci_lo, without.ci_hi, without.mde)
        )
    );
    // an injected ×1.25 is still called
    assert_eq!(with.verdict, Verdict::Regressed, "{with:?}");
}

#[test]
fn the_machine_term_grows_with_the_canary_shift() {
    // rounds that follow the machine at β = 1 (a figure as dear as the
    // machine is slow), the canary 2% and 4% slower on the new side
    let at = |shift: f64| {
        let base = machine_side(machine_series("spawn.cold", 75.0, 1.0, 1.0, true), 75.0);
        let new = machine_side(
            machine_series("spawn.cold", 75.0 * shift, 1.0, 1.0, true),
            75.0 * shift,
        );
        row(&base, &new)
    };
    let (two, four) = (at(1.02), at(1.04));
    for (r, shift) in [(&two, 1.02f64), (&four, 1.04)] {
        let expected = shift.ln() * 100.0;
        assert!(
            (r.machine_noise_pct - expected).abs() < 0.1 * expected,
            "{} against {expected}",
            r.machine_noise_pct
        );
        // the change is as measured, never moved by the canary
        assert!((r.change - (shift - 1.0) * 100.0).abs() < 0.5, "{r:?}");
        // and no memory term: the memory canary is not recorded
        assert_eq!(r.memory_noise_pct, 0.0);
    }
    assert!(four.machine_noise_pct > 1.9 * two.machine_noise_pct);
    // the header names the canary and the experiment it reached
    let base = machine_side(machine_series("spawn.cold", 75.0, 1.0, 1.0, true), 75.0);
    let new = machine_side(machine_series("spawn.cold", 78.0, 1.0, 1.0, true), 78.0);
    let c = Comparison::of(
        (&base, vec!["a.json".into()]),
        (&new, vec!["b.json".into()]),
        1,
        vec![four],
        5.0,
    );
    let m = c.machine_canary.as_ref().unwrap();
    assert_eq!(
        (m.rows, m.experiments.clone()),
        (1, vec!["spawn.cold".to_string()])
    );
    let line = render::run_noise_line(&Comparison {
        noise_bases: vec![(crate::stats::noise::Basis::Spread, 1)],
        ..c
    });
    assert!(
        line.contains("the system call's canary 75.0 ns base, 78.0 ns new (+4.0%)"),
        "{line}"
    );
    assert!(line.contains("(spawn.cold)"), "{line}");
}

#[test]
fn a_family_whose_rounds_do_not_follow_the_system_call_gets_nothing() {
    // the canary 4% slower on the new side, the figure 4% dearer, but its
    // rounds never followed the canary: no term, the row as it was
    let base = machine_side(machine_series("spawn.cold", 75.0, 1.0, 1.0, false), 75.0);
    let new = machine_side(machine_series("spawn.cold", 78.0, 1.04, 1.0, false), 78.0);
    let r = row(&base, &new);
    assert_eq!(r.machine_noise_pct, 0.0);
    let mut blind = (base, new);
    blind.0.syscall_canary_ln = None;
    blind.1.syscall_canary_ln = None;
    let without = row(&blind.0, &blind.1);
    assert_eq!(
        format!("{:?}", (r.z, r.ci_lo, r.ci_hi)),
        format!("{:?}", (without.z, without.ci_lo, without.ci_hi))
    );
}

#[test]
fn any_experiment_whose_rounds_follow_the_system_call_holds_it() {
    // the rule is the data, not the experiment's name or its memory work:
    // switch.pingpong touches no memory and still holds the machine's term
    let base = machine_side(
        machine_series("switch.pingpong", 75.0, 1.0, 1.0, true),
        75.0,
    );
    let new = machine_side(
        machine_series("switch.pingpong", 78.0, 1.0, 1.0, true),
        78.0,
    );
    let r = row(&base, &new);
    assert!(r.machine_noise_pct > 3.0, "{r:?}");
    assert_eq!(r.memory_noise_pct, 0.0);
}
