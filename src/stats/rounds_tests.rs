use super::*;
use rand::rngs::Xoshiro256PlusPlus;

/// One run's rounds summarised.
fn summarize_rounds(rounds: &[Vec<f64>], seed: u64) -> Result<Summary, StatsError> {
    summarize_runs(&[rounds], seed)
}

/// A standard normal draw (Box–Muller).
fn normal(rng: &mut Xoshiro256PlusPlus) -> f64 {
    let u1: f64 = rng.random_range(f64::EPSILON..1.0);
    let u2: f64 = rng.random_range(0.0..1.0);
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// Rounds of a series whose true median is `truth`: each round shifted by
/// its own effect (sd `between`), samples spread by `within` around it, with
/// a symmetric within-round distribution so the population median is `truth`.
fn synthetic(
    rng: &mut Xoshiro256PlusPlus,
    truth: f64,
    rounds: usize,
    per_round: usize,
    between: f64,
    within: f64,
) -> Vec<Vec<f64>> {
    (0..rounds)
        .map(|_| {
            let shift = between * normal(rng);
            (0..per_round)
                .map(|_| truth + shift + within * normal(rng))
                .collect()
        })
        .collect()
}

/// How often each interval covers the truth over `trials` synthetic series
/// with round effects of sd `between` and samples of sd `within`.
fn coverage(rounds: usize, per_round: usize, between: f64, within_sd: f64) -> (f64, f64) {
    let trials = 200;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(42 + rounds as u64);
    let (mut hier, mut within) = (0, 0);
    for t in 0..trials {
        let data = synthetic(&mut rng, 1000.0, rounds, per_round, between, within_sd);
        let s = summarize_rounds(&data, t as u64).unwrap();
        if s.ci95_lo <= 1000.0 && 1000.0 <= s.ci95_hi {
            hier += 1;
        }
        if s.within_ci95_lo.unwrap() <= 1000.0 && 1000.0 <= s.within_ci95_hi.unwrap() {
            within += 1;
        }
    }
    (hier as f64 / trials as f64, within as f64 / trials as f64)
}

#[test]
fn the_rounds_interval_covers_the_true_median_and_the_within_interval_does_not() {
    // rounds that differ as much as samples do, and far more than they do
    for (rounds, between, within_sd) in [(3, 50.0, 100.0), (5, 50.0, 100.0), (3, 100.0, 10.0)] {
        let (hier, within) = coverage(rounds, 40, between, within_sd);
        assert!(hier >= 0.90, "{rounds} rounds: covers {hier:.3}");
        // the interval that takes samples for independent fails the same test
        assert!(
            within < 0.80,
            "{rounds} rounds: within-only covers {within:.3}"
        );
    }
    // and with no difference between rounds it still covers
    let (hier, _) = coverage(3, 10, 0.0, 100.0);
    assert!(hier >= 0.90, "covers {hier:.3}");
}

#[test]
fn with_no_between_round_variance_the_interval_is_not_absurdly_wide() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let data = synthetic(&mut rng, 1000.0, 5, 200, 0.0, 100.0);
    let s = summarize_rounds(&data, 1).unwrap();
    // the within interval of 1000 samples is about ±8; ours stays within 4x
    let within = s.within_ci95_hi.unwrap() - s.within_ci95_lo.unwrap();
    assert!(s.ci95_hi - s.ci95_lo < 4.0 * within, "{s:?}");
    assert!(!s.unstable);
}

#[test]
fn few_points_in_one_round_give_min_max_with_their_coverage() {
    let s = summarize_rounds(&[vec![10.0, 12.0, 11.0]], 1).unwrap();
    assert_eq!((s.ci95_lo, s.ci95_hi), (10.0, 12.0));
    assert!(!s.ci_covers_95);
    assert_eq!(s.interval, "min–max of 3, 75%");
    assert_eq!(s.rounds, 1);
}

#[test]
fn a_point_per_round_gives_a_t_interval_that_says_so() {
    let s = summarize_rounds(&[vec![10.0], vec![12.0], vec![11.0]], 1).unwrap();
    assert_eq!(s.median, 11.0);
    // positive figures: t over the logs, t(2) = 4.303, half-width in logs
    // 4.303 sd(ln 10, ln 12, ln 11) / sqrt(3), around ln 11
    let logs = [10f64.ln(), 12f64.ln(), 11f64.ln()];
    let mean = logs.iter().sum::<f64>() / 3.0;
    let sd = (logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / 2.0).sqrt();
    // the rounds' own: no run-to-run noise is added here
    let half = 4.303 * sd / 3f64.sqrt();
    assert!((s.ci95_hi - 11.0 * half.exp()).abs() < 1e-9, "{s:?}");
    assert!((s.ci95_lo - 11.0 * (-half).exp()).abs() < 1e-9, "{s:?}");
    assert!(s.ci_covers_95);
    assert_eq!(s.interval, "95% (t), 3 rounds of 1");
    assert_eq!(s.rounds, 3);
    assert_eq!(s.round_medians, vec![10.0, 12.0, 11.0]);
}

#[test]
fn the_t_interval_of_a_positive_figure_stays_above_zero_and_of_a_signed_one_is_additive() {
    // three rounds of one first fork: 1.42, 0.84 and 0.77 ms
    let s = summarize_rounds(&[vec![1_424_689.0], vec![840_507.0], vec![772_817.0]], 1).unwrap();
    assert!(
        s.ci95_lo > 0.0 && s.ci95_lo < s.median && s.median < s.ci95_hi,
        "{s:?}"
    );
    // a figure that can be negative (a saving) keeps the additive interval
    let s = summarize_rounds(&[vec![-2.0], vec![1.0], vec![4.0]], 1).unwrap();
    assert!((s.ci95_hi - 1.0) - (1.0 - s.ci95_lo) < 1e-9, "{s:?}");
    assert!(s.ci95_lo < -2.0 && s.ci95_hi > 4.0, "{s:?}");
}

#[test]
fn the_t_interval_of_a_point_per_round_covers_the_truth() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let mut hit = 0;
    for t in 0..400 {
        let data = synthetic(&mut rng, 1000.0, 3, 1, 50.0, 100.0);
        let s = summarize_rounds(&data, t).unwrap();
        hit += (s.ci95_lo <= 1000.0 && 1000.0 <= s.ci95_hi) as usize;
    }
    assert!(hit as f64 / 400.0 >= 0.90, "{hit} of 400");
}

#[test]
fn two_modes_and_a_trend_are_flagged_and_named() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    // 4 of 10 rounds on a vCPU where the figure reads 530, 6 where it reads 680
    let mut data = synthetic(&mut rng, 680.0, 10, 50, 0.0, 10.0);
    for r in [1, 4, 5, 8] {
        for x in &mut data[r] {
            *x *= 530.0 / 680.0;
        }
    }
    let s = summarize_rounds(&data, 1).unwrap();
    assert!(s.unstable, "{s:?}");
    match s.unsettled {
        Some(Unsettled::TwoModes {
            low,
            high,
            low_share,
            ..
        }) => {
            assert!(
                (low - 530.0).abs() < 10.0 && (high - 680.0).abs() < 10.0,
                "{s:?}"
            );
            assert!((low_share - 0.4).abs() < 1e-9);
        }
        ref other => panic!("{other:?}"),
    }
    // a machine slowing down over the run, round after round
    let mut slowing = synthetic(&mut rng, 1000.0, 9, 50, 0.0, 5.0);
    for (i, r) in slowing.iter_mut().enumerate() {
        for x in r.iter_mut() {
            *x *= 1.0 + 0.04 * i as f64;
        }
    }
    let s = summarize_rounds(&slowing, 1).unwrap();
    assert!(
        matches!(s.unsettled, Some(Unsettled::Trend { first, last }) if last > 1.2 * first),
        "{s:?}"
    );
    // rounds that differ by chance, widely, in one mode: not flagged (more
    // rounds narrow the interval)
    for seed in 0..50 {
        let data = synthetic(&mut rng, 1000.0, 8, 30, 80.0, 20.0);
        let s = summarize_rounds(&data, seed).unwrap();
        assert!(!s.unstable, "{s:?}");
    }
    // two modes closer than 10%: within what the interval says
    let mut near = synthetic(&mut rng, 1000.0, 10, 50, 0.0, 1.0);
    for r in [0, 3, 6, 9] {
        for x in &mut near[r] {
            *x *= 1.05;
        }
    }
    assert!(!summarize_rounds(&near, 1).unwrap().unstable);
}

#[test]
fn the_run_noise_widens_an_interval_in_quadrature_and_is_recorded() {
    let wide: Vec<Vec<f64>> = (0..8)
        .map(|r| {
            (0..20)
                .map(|i| 100.0 * (0.95 + 0.005 * ((i + r) % 20) as f64))
                .collect()
        })
        .collect();
    let half_of = |s: &Summary| ((s.ci95_hi / s.median).ln() + (s.median / s.ci95_lo).ln()) / 2.0;
    let s = summarize_rounds(&wide, 1).unwrap();
    assert_eq!(s.run_noise, None);
    let mut w = s.clone();
    widen_by_run_noise(&mut w, 0.02);
    assert_eq!(w.run_noise, Some(0.02));
    assert!(half_of(&w) >= crate::stats::Z95 * 0.02 * 0.999, "{w:?}");
    assert!(half_of(&w) > half_of(&s));
    // nothing, or not a number: nothing moves
    for tau in [0.0, f64::NAN] {
        let mut x = s.clone();
        widen_by_run_noise(&mut x, tau);
        assert_eq!((x.ci95_lo, x.ci95_hi), (s.ci95_lo, s.ci95_hi));
    }
    // two runs are a level of the bootstrap
    let two = summarize_runs(&[&wide[..]; 2], 1).unwrap();
    assert!(two.interval.starts_with("95%, 2 runs"), "{two:?}");
}

/// The cluster bootstrap's standard error is the rounds' spread over
/// sqrt(R), not twice the noise within them: rounds whose medians agree
/// exactly give a standard error far below the samples' spread.
#[test]
fn the_standard_error_comes_from_the_rounds_not_again_from_their_samples() {
    let same: Vec<Vec<f64>> = (0..8)
        .map(|_| (0..21).map(|i| 90.0 + i as f64).collect())
        .collect();
    let s = summarize_rounds(&same, 1).unwrap();
    // every round's samples are 90..110: each round's median is 100, so
    // every replicate's median is 100
    assert!(s.se_ln.unwrap() < 1e-9, "{s:?}");
    let moving: Vec<Vec<f64>> = (0..8)
        .map(|r| {
            (0..21)
                .map(|i| (90.0 + i as f64) * (1.0 + 0.02 * (r % 2) as f64))
                .collect()
        })
        .collect();
    let m = summarize_rounds(&moving, 1).unwrap();
    assert!(m.se_ln.unwrap() > 0.003, "{m:?}");
}

#[test]
fn a_clock_read_in_steps_is_not_two_modes() {
    // round medians on two ticks of a 10 ns clock, 60 and 70 ns: one mode
    // read at its resolution
    let medians = [60.0, 70.0, 60.0, 60.0, 70.0, 60.0, 70.0, 60.0];
    assert!(
        unsettled(&medians).is_some(),
        "without the step, it looks like two"
    );
    assert_eq!(unsettled_in_steps(&medians, 10.0 / 63.0), None);
}

#[test]
fn the_flag_is_rare_on_one_mode_at_eight_rounds() {
    // one mode, round effects of 8% (this machine's spread between rounds):
    // at most 1% of series flagged
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    let mut flagged = 0;
    for _ in 0..2000 {
        let medians: Vec<f64> = (0..8)
            .map(|_| 1000.0 * (0.08 * normal(&mut rng)).exp())
            .collect();
        flagged += unsettled(&medians).is_some() as usize;
    }
    assert!(flagged <= 20, "{flagged} of 2000");
}

#[test]
fn the_rounds_interval_covers_at_eight_and_sixteen_rounds_and_stays_inside_the_data() {
    for rounds in [8, 16] {
        for (between, within_sd) in [(50.0, 100.0), (100.0, 10.0), (0.0, 100.0)] {
            let (hier, _) = coverage(rounds, 20, between, within_sd);
            // The rounds' part alone (the run-to-run noise every published
            // interval adds is not in it); a median bootstrapped from few
            // clusters covers a little under 95% when the rounds do not
            // differ at all.
            assert!(
                hier >= 0.90,
                "{rounds} rounds {between}/{within_sd}: covers {hier:.3}"
            );
        }
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(rounds as u64);
        for t in 0..50 {
            let data = synthetic(&mut rng, 1000.0, rounds, 10, 100.0, 10.0);
            let s = summarize_rounds(&data, t).unwrap();
            assert!(s.min <= s.ci95_lo && s.ci95_hi <= s.max, "{s:?}");
        }
    }
}

#[test]
fn the_same_rounds_and_seed_give_the_same_interval() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
    let data = synthetic(&mut rng, 50.0, 4, 20, 5.0, 5.0);
    assert_eq!(
        summarize_rounds(&data, 11).unwrap(),
        summarize_rounds(&data, 11).unwrap()
    );
}

#[test]
fn the_widening_shrinks_towards_one_with_more_rounds() {
    assert!(small_rounds_factor(3) > 2.5);
    assert!(small_rounds_factor(10) < 1.3);
    assert!(small_rounds_factor(100) < 1.05);
    assert_eq!(small_rounds_factor(1), 1.0);
}

#[test]
fn a_widened_interval_is_kept_as_its_estimator_gives_it() {
    // A time whose third round ran at a third of the others: the widened
    // bootstrap interval stays above zero (it is widened by factors).
    let fast = |x: f64| (0..40).map(|i| x + i as f64).collect::<Vec<f64>>();
    let s = summarize_rounds(&[fast(300.0), fast(310.0), fast(100.0)], 1).unwrap();
    assert!(s.ci95_lo > 0.0 && s.ci95_lo < s.median, "{s:?}");
    // A count that is often 0 (its median 0, read in steps of 1): the
    // interval is what its estimator gives, half a step either side of the
    // bootstrap's [0, 0], its lower end below zero kept as computed, never
    // raised to zero (issue 39: the report says it in words).
    let zeros = |hits: usize| {
        (0..40)
            .map(|i| (i < hits) as u8 as f64)
            .collect::<Vec<f64>>()
    };
    let s = summarize_rounds(&[zeros(2), zeros(30), zeros(0)], 1).unwrap();
    assert_eq!((s.median, s.quantum), (0.0, 1.0), "{s:?}");
    assert_eq!(s.ci95_lo, -0.5, "{s:?}");
    // A figure that can be negative keeps the additive widening.
    let signed = |x: f64| (0..40).map(|i| x + i as f64).collect::<Vec<f64>>();
    let s = summarize_rounds(&[signed(-30.0), signed(-25.0), signed(10.0)], 1).unwrap();
    assert!(s.min < 0.0 && s.ci95_lo < s.min, "{s:?}");
}

#[test]
fn samples_read_in_steps_are_known_to_half_a_step() {
    // a join read off a clock that ticks in 10 ns steps
    let steps = |levels: &[(f64, usize)]| -> Vec<f64> {
        levels
            .iter()
            .flat_map(|&(v, n)| std::iter::repeat_n(v, n))
            .collect()
    };
    let mut sorted = steps(&[(55.9, 30), (56.9, 3), (65.9, 40), (66.9, 2), (75.9, 10)]);
    sorted.sort_by(f64::total_cmp);
    // the odd value a nanosecond off (rounding) is not the step
    assert!((quantum(&sorted) - 10.0).abs() < 1e-9);
    assert_eq!(quantum(&[7.0; 40]), 0.0, "a figure that never varies");
    // continuous figures have no step
    let smooth: Vec<f64> = (0..80).map(|i| 100.0 + i as f64 * 0.37).collect();
    assert_eq!(quantum(&smooth), 0.0);
    // two runs whose medians sit one step apart: their intervals meet, so
    // the change between them is not told apart from none
    let base = summarize_rounds(&vec![steps(&[(55.9, 50), (65.9, 30)]); 3], 1).unwrap();
    let new = summarize_rounds(&vec![steps(&[(55.9, 30), (65.9, 50)]); 3], 2).unwrap();
    assert_eq!((base.median, new.median), (55.9, 65.9));
    let c = crate::stats::change(&base, &new).unwrap();
    assert!(c.lo <= 1.0 && 1.0 <= c.hi, "{c:?} {base:?} {new:?}");
}

/// An interval widened by the run-to-run noise holds the one given, keeps
/// its median, adds the noise in quadrature on each side in logs (by the
/// same share of the median where an end is not positive), and is left as
/// it is by no noise.
#[test]
fn widen_ends_holds_the_interval_given_and_adds_the_noise_in_quadrature() {
    let z = crate::stats::Z95;
    for (m, lo, hi, positive) in [
        (100.0, 90.0, 120.0, true),
        (100.0, 99.0, 101.0, true),
        (100.0, -20.0, 150.0, false),
        (-10.0, -30.0, 5.0, false),
    ] {
        assert_eq!(widen_ends(m, lo, hi, 0.0, positive), (lo, hi));
        assert_eq!(widen_ends(m, lo, hi, f64::NAN, positive), (lo, hi));
        let mut last = (lo, hi);
        for tau in [0.005, 0.05, 0.5] {
            let (a, b) = widen_ends(m, lo, hi, tau, positive);
            assert!(a <= last.0 && last.1 <= b && a <= m && m <= b, "{m} {tau}");
            if positive {
                let want_hi = (hi / m).ln().hypot(z * tau);
                assert!(((b / m).ln() - want_hi).abs() < 1e-12);
                let want_lo = (m / lo).ln().hypot(z * tau);
                assert!(((m / a).ln() - want_lo).abs() < 1e-12);
            } else {
                assert!((b - m - (hi - m).hypot(z * tau * m.abs())).abs() < 1e-9);
            }
            last = (a, b);
        }
    }
}
