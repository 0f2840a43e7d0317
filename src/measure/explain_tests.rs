use super::*;
use crate::results::RoundTelemetry;

/// A wall-time series of the hand-off's kind.
const WALL: MetricSpec = MetricSpec::new(
    "hand_off_wall_ns",
    crate::units::Unit::Ns,
    crate::results::Better::Lower,
    crate::metric::Kind::HandOff,
    "one hand-off, wall time",
);

fn with(metrics: Vec<crate::results::Metric>) -> ExperimentResult {
    let mut r: ExperimentResult =
        serde_json::from_value(serde_json::json!({"name": "t", "group": "t",
            "summary": "", "reproduces": "", "status": "ok", "duration_s": 0.0,
            "params": {}, "metrics": [], "readings": [], "fits": [], "findings": [],
            "notes": []}))
        .unwrap();
    r.metrics = metrics;
    r
}

/// A series recorded in rounds, one figure per round (each a round's mean
/// of a recorded run, so the series' mean is the recorded mean), as the
/// recorded series were: not flagged.
fn by_round(name: &str, per_round: &[f64]) -> crate::results::Metric {
    let rounds: Vec<Vec<f64>> = per_round.iter().map(|x| vec![*x]).collect();
    let mut summary =
        crate::results::summarize_series("t", name, &Default::default(), &rounds).unwrap();
    summary.unstable = false;
    crate::results::Metric {
        name: name.into(),
        unit: crate::units::Unit::Ns,
        labels: Default::default(),
        summary,
        samples: per_round.to_vec(),
        rounds: vec![1; per_round.len()],
        detail: false,
        better: crate::results::Better::Lower,
        seed: None,
        point: None,
    }
}

/// The wall series and the CPU series beside it, by round.
fn wall_and_cpu(wall: &[f64], cpu: &[f64]) -> ExperimentResult {
    with(vec![
        by_round(WALL.name, wall),
        by_round(crate::measure::sampler::CPU_NS.name, cpu),
    ])
}

/// Session 20's first default run (/tmp/s20/run1), switch.pingpong's
/// futex round trip between two CPUs, by round: wall 51.9, 59.6 and 49.7
/// µs, CPU 31.3, 32.6 and 33.2 µs. Its note set the CPU time's median
/// (31.2 µs) against the wall time's median (50.0 µs): "37% idle". The
/// CPU time is a mean per call over each batch, so it is held against the
/// mean wall time of the same calls (53.7 µs): 40% idle, with the interval
/// the rounds' ratios give.
#[test]
fn an_idle_share_sets_the_mean_cpu_time_against_the_mean_wall_time() {
    let r = wall_and_cpu(&[51871.3, 59608.5, 49736.1], &[31319.6, 32611.5, 33156.9]);
    let s = cpu_of_wall(&r, "a futex round trip between two CPUs", &WALL, &[]).unwrap();
    assert!(
        s.starts_with("a futex round trip between two CPUs is 40% idle ["),
        "{s}"
    );
    assert!(
        s.contains(
            "a mean CPU time of 32.4 µs per call against a mean wall time of 53.7 µs over the same calls (both sides)"
        ),
        "{s}"
    );
    assert!(
        s.ends_with("the rest is time off the CPU, which this figure does not split"),
        "{s}"
    );
    assert!(!s.contains("50.0 µs") && !s.contains("31.2 µs"), "{s}");
    let (ratio, lo, hi) = cpu_wall_ratio(&r.metrics[1], &r.metrics[0]).unwrap();
    assert!(lo < ratio && ratio < hi && hi < 1.0, "{lo} {ratio} {hi}");
}

/// The same run's switch.userspace, goroutines under the default
/// GOMAXPROCS, by round (8): its note read "keeps more than one CPU busy
/// (1.3 CPUs' worth)" from the medians, 382 ns of CPU for 305 ns wall.
/// The means, 383 ns and 345 ns, and the rounds' ratios (one of them
/// 0.77) do not tell it from one CPU kept busy; goroutines locked to OS
/// threads, neither.
#[test]
fn more_than_one_cpu_is_read_from_the_means_only_where_their_ratio_is_above_one() {
    let r = wall_and_cpu(
        &[302.1, 319.1, 308.2, 294.2, 308.5, 348.8, 562.5, 314.0],
        &[355.2, 369.7, 379.0, 360.7, 383.1, 398.9, 434.4, 379.3],
    );
    let s = cpu_of_wall(
        &r,
        "a goroutine round trip (default GOMAXPROCS)",
        &WALL,
        &[],
    )
    .unwrap();
    assert!(
        s.ends_with("not told apart from a CPU kept busy throughout"),
        "{s}"
    );
    assert!(s.contains("mean wall time of 344.7 ns"), "{s}");
    assert!(!s.contains("CPUs' worth"), "{s}");
    // Without the round whose ratio was 0.77, the rest are all above 1:
    // more than one CPU's worth, unpinned.
    let r = wall_and_cpu(
        &[302.1, 319.1, 308.2, 294.2, 308.5, 348.8, 314.0],
        &[355.2, 369.7, 379.0, 360.7, 383.1, 398.9, 379.3],
    );
    let s = cpu_of_wall(
        &r,
        "a goroutine round trip (default GOMAXPROCS)",
        &WALL,
        &[],
    )
    .unwrap();
    assert!(s.contains("keeps more than one CPU busy"), "{s}");
    assert!(s.contains("CPUs' worth ["), "{s}");
    let r = wall_and_cpu(
        &[
            6993.0, 7486.1, 6603.0, 6479.2, 7027.9, 6641.3, 11180.1, 6767.7,
        ],
        &[
            6890.9, 7430.5, 6666.1, 6504.0, 7136.6, 6673.4, 8193.4, 6819.4,
        ],
    );
    let s = cpu_of_wall(
        &r,
        "a round trip of goroutines locked to OS threads",
        &WALL,
        &[],
    )
    .unwrap();
    assert!(
        s.ends_with("not told apart from a CPU kept busy throughout"),
        "{s}"
    );
}

/// The same run's unpinned echo, by round (one run each): wall 69.8, 2.00
/// and 2.01 µs; CPU 51.6, 2.00 and 2.01 µs. The rounds' ratios (0.74, 1.0,
/// 1.0) hold 1: no idle share is read from the first round's. Where the
/// rounds' ratios disagree by more than a factor of ten, nothing is
/// compared; nor where the rounds do not pair.
#[test]
fn an_interval_that_bounds_nothing_compares_nothing() {
    let r = wall_and_cpu(&[69751.8, 1997.5, 2012.5], &[51619.6, 1997.6, 2013.0]);
    let s = cpu_of_wall(&r, "an unpinned echo iteration", &WALL, &[]).unwrap();
    assert!(
        s.ends_with("not told apart from a CPU kept busy throughout"),
        "{s}"
    );
    assert!(!s.contains("idle"), "{s}");
    let r = wall_and_cpu(&[49.5e3, 40e3, 60e3], &[35.8e3, 4e3, 59e3]);
    let s = cpu_of_wall(&r, "an unpinned echo iteration", &WALL, &[]).unwrap();
    assert!(s.contains(": not compared (the rounds' ratios"), "{s}");
    assert!(!s.contains("told apart"), "{s}");
    let r = with(vec![
        by_round(WALL.name, &[49.5e3, 40e3, 60e3]),
        by_round(crate::measure::sampler::CPU_NS.name, &[35.8e3, 40e3]),
    ]);
    let s = cpu_of_wall(&r, "an unpinned echo iteration", &WALL, &[]).unwrap();
    assert!(
        s.contains(": not compared (the rounds of the two do not pair"),
        "{s}"
    );
}

/// The same run's spawn.methods fork+reap pinned to one CPU, by round:
/// wall 111, 137 and 110 µs (the median 99.4 µs), CPU 114, 129 and 113
/// µs. Against the mean wall time of the same calls it is no excess: not
/// told apart from a CPU kept busy. spawn.cold's first pthread_create+join,
/// wall 58.7, 57.3 and 63.8 µs, CPU 68.7, 66.8 and 75.0 µs: an excess in
/// every round, which a pinned series never reads as more than one CPU
/// busy, and whose cause the run does not record; unpinned, the same
/// figures are more than one CPU's worth.
#[test]
fn a_pinned_series_never_keeps_more_than_one_cpu_busy() {
    let r = wall_and_cpu(
        &[111424.3, 136660.6, 110083.7],
        &[113917.7, 128661.0, 112540.3],
    );
    let s = cpu_of_wall_pinned(&r, "a fork+reap pinned to one CPU", &WALL, &[]).unwrap();
    assert!(
        s.ends_with("not told apart from a CPU kept busy throughout"),
        "{s}"
    );
    assert!(!s.contains("excess"), "{s}");
    let r = wall_and_cpu(&[58701.1, 57258.6, 63802.0], &[68666.7, 66833.3, 75000.0]);
    let s = cpu_of_wall_pinned(
        &r,
        "a cold pthread_create+join (the first in a fresh process)",
        &WALL,
        &[],
    )
    .unwrap();
    assert!(!s.contains("more than one CPU"), "{s}");
    assert!(!s.contains("CPUs' worth"), "{s}");
    assert!(
        s.contains("what the excess is this run does not record"),
        "{s}"
    );
    assert!(s.contains("RUSAGE_SELF + RUSAGE_CHILDREN"), "{s}");
    assert!(
        s.contains("a mean CPU time of 70.2 µs per call against a mean wall time of 59.9 µs over the same calls (CPU time 1.17x ["),
        "{s}"
    );
    let s = cpu_of_wall(&r, "a pthread_create+join", &WALL, &[]).unwrap();
    assert!(s.contains("keeps more than one CPU busy"), "{s}");
}

#[test]
fn counts_per_operation_read_naturally() {
    assert_eq!(
        per_op_phrase(1.0, "reschedule IPI", "reschedule IPIs", "hand-off"),
        "1.0 reschedule IPI per hand-off"
    );
    assert_eq!(
        per_op_phrase(2.26, "park", "parks", "round trip"),
        "2.3 parks per round trip"
    );
    assert_eq!(per_op_phrase(0.021, "x", "xs", "call"), "0.02 xs per call");
    assert_eq!(
        per_op_phrase(-0.0001, "x", "xs", "call"),
        "0.00 xs per call"
    );
}

fn round(point: usize, steal_ns: f64, delay_ns: f64) -> RoundRecord {
    RoundRecord {
        point,
        round: 0,
        telemetry: RoundTelemetry {
            wall_ns: 1e9,
            steal_ns,
            run_delay_ns: delay_ns,
            cpu_steal_ns: vec![steal_ns / 2.0; 2],
            ..RoundTelemetry::default()
        },
    }
}

#[test]
fn steal_and_run_delay_are_named_only_above_their_thresholds() {
    let mut log = vec![round(0, 0.12e9, 0.0), round(1, 0.0, 0.0)];
    // 0.12 s of 2 × 1 s: 6%.
    assert_eq!(
        contamination(&log, Some(0)),
        vec!["steal was 6.0% of the CPUs' time: the hypervisor ran something else on these CPUs"]
    );
    assert!(contamination(&log, Some(1)).is_empty());
    log = vec![round(0, 0.0, 0.2e9)];
    assert!(contamination(&log, None)[0].contains("20%"));
    // Run delay may be the worker's own tasks: never "from outside".
    assert!(held_back(&log, None).is_empty());
    assert!(!contamination(&log, None)[0].contains("other work competed"));
    // An old file: no per-CPU figures, no steal share.
    log[0].telemetry.cpu_steal_ns.clear();
    assert_eq!(Totals::of(&log, None).steal_share(), None);
    // Throttling is named whenever the quota held a round back.
    assert!(contamination(&log, None)
        .iter()
        .all(|f| !f.contains("quota")));
    log[0].telemetry.nr_throttled = 2.0;
    log[0].telemetry.throttled_usec = 3000.0;
    assert!(contamination(&log, None)
        .iter()
        .any(|f| f.contains("throttled these rounds 2 times")));
}

#[test]
fn two_modes_are_explained_only_by_a_record_that_splits_them_as_they_split() {
    use crate::results::Canary;
    let round = |coherence: f64, syscall: f64| {
        let c = Canary {
            syscall_ns: syscall,
            coherence_ns: Some(coherence),
            ..Canary::default()
        };
        RoundTelemetry {
            canary_start: c.clone(),
            canary_end: c,
            ..RoundTelemetry::default()
        }
    };
    let ns = |x: f64| format!("{x:.0} ns");
    // the low mode's 8 rounds of 16 all had the vCPUs on one cache (27 ns)
    let low = EIGHT_AND_EIGHT;
    let recs = by_mode(&low, round(27.0, 120.0), round(198.0, 121.0));
    let refs: Vec<&RoundTelemetry> = recs.iter().collect();
    let why = mode_covariate(&low, &refs, ns, true, true).unwrap();
    assert!(
        why.starts_with(
            "the coherence floor between the CPUs read 27 ns in the low mode's rounds and 198 ns in the high mode's: where the rounds ran, or the host's state, sets them apart; "
        ),
        "{why}"
    );
    // 2 clean ways of 12,870 (the 8 lowest apart, or the 8 highest), for
    // each of the two records read (this telemetry has no memory canary)
    assert!(
        why.ends_with(
            "with p < 0.001 (2 of the 12,870 ways to split them, for each of the 2 records tried)"
        ),
        "{why}"
    );
    // a record that does not split them exactly explains nothing
    let mixed: Vec<RoundTelemetry> = low
        .iter()
        .enumerate()
        .map(|(i, l)| round(if *l != (i == 0) { 27.0 } else { 198.0 }, 120.0))
        .collect();
    let refs: Vec<&RoundTelemetry> = mixed.iter().collect();
    assert_eq!(mode_covariate(&low, &refs, ns, true, true), None);
    // the host's state: the canary slower in the high mode's rounds
    let host = by_mode(&low, round(27.0, 120.0), round(27.0, 180.0));
    let refs: Vec<&RoundTelemetry> = host.iter().collect();
    let why = mode_covariate(&low, &refs, ns, true, true).unwrap();
    assert!(
        why.starts_with("the canary (a bare system call) read 120 ns"),
        "{why}"
    );
}

/// Issue 39: a clean split of 6 rounds, 4 and 2, is what chance alone
/// gives often (1 of the 15 ways to split them, with each mode's rounds
/// alike, for each of the 2 records read: p = 0.13): the fact, its p, and
/// that it could be chance; no cause, and nothing said to set them apart.
#[test]
fn a_clean_split_chance_gives_often_names_no_cause() {
    use crate::results::Canary;
    let round = |coherence: f64| {
        let c = Canary {
            syscall_ns: 120.0,
            coherence_ns: Some(coherence),
            ..Canary::default()
        };
        RoundTelemetry {
            canary_start: c.clone(),
            canary_end: c,
            ..RoundTelemetry::default()
        }
    };
    let ns = |x: f64| format!("{x:.0} ns");
    let low = [true, false, true, false, true, true];
    let recs = by_mode(&low, round(27.0), round(198.0));
    let refs: Vec<&RoundTelemetry> = recs.iter().collect();
    let why = mode_covariate(&low, &refs, ns, true, true).unwrap();
    assert_eq!(
        why,
        "the coherence floor between the CPUs read 27 ns in the low mode's rounds and 198 ns in the high mode's, \
         but chance alone splits 6 rounds 4 and 2 this cleanly with p = 0.13 (1 of the 15 ways to split them, \
         for each of the 2 records tried): it could be chance, and no cause is named"
    );
    assert!(!why.contains("sets them apart"), "{why}");
    // 16 rounds split 8 and 8 the same way name it
    let recs = by_mode(&EIGHT_AND_EIGHT, round(27.0), round(198.0));
    let refs: Vec<&RoundTelemetry> = recs.iter().collect();
    let why = mode_covariate(&EIGHT_AND_EIGHT, &refs, ns, true, true).unwrap();
    assert!(
        why.contains("sets them apart") && !why.contains("could be chance"),
        "{why}"
    );
}

/// Issue 37: the rounds of a memory-heavy series' two modes told apart by
/// the memory canary, the host's (fresh memory dearer to touch) or the
/// guest's (free memory scattered), with the other records alike.
#[test]
fn two_modes_are_explained_by_the_memory_canary_when_it_splits_them() {
    let round = |fresh: f64, in_order: f64| canary_round(fresh, in_order, Some(1100.0));
    let ns = |x: f64| crate::units::fmt_value(x, crate::units::Unit::Ns);
    let low = EIGHT_AND_EIGHT;
    // the high mode's rounds drew memory the host had to back again
    let host = by_mode(&low, round(1200.0, 0.9), round(9800.0, 0.9));
    let refs: Vec<&RoundTelemetry> = host.iter().collect();
    let why = mode_covariate(&low, &refs, ns, true, true).unwrap();
    assert!(
        why.starts_with(
            "the rounds of the high mode found fresh memory dearer to touch (9.80 µs against 1.20 µs per 4 KiB page): the host's memory state"
        ),
        "{why}"
    );
    // the low mode's, the other way round (a rate: the low mode is slow)
    let flipped = by_mode(&low, round(9800.0, 0.9), round(1200.0, 0.9));
    let refs: Vec<&RoundTelemetry> = flipped.iter().collect();
    let why = mode_covariate(&low, &refs, ns, false, true).unwrap();
    assert!(
        why.starts_with("the rounds of the low mode found fresh memory dearer")
            && why.contains("the host's memory state"),
        "{why}"
    );
    // a time whose fast (low) mode had the dearer memory: the fact, no
    // cause (run 1's pthread_create, 53.6 µs and 155 µs: 8.39 µs against
    // 5.20 µs per page in the 53.6 µs mode's rounds)
    let why = mode_covariate(&low, &refs, ns, true, true).unwrap();
    assert!(
        why.starts_with("the rounds of the low mode found fresh memory dearer")
            && !why.contains("the host's memory state"),
        "{why}"
    );
    assert!(
        why.contains("the mode that is not the slow one: no cause is named"),
        "{why}"
    );
    // 10% apart is not named, though it splits them
    let near = by_mode(&low, round(1200.0, 0.9), round(1320.0, 0.9));
    let refs: Vec<&RoundTelemetry> = near.iter().collect();
    assert_eq!(mode_covariate(&low, &refs, ns, true, true), None);
    // the guest's free memory: scattered in the high mode's rounds
    let guest = by_mode(&low, round(1200.0, 0.85), round(1250.0, 0.05));
    let refs: Vec<&RoundTelemetry> = guest.iter().collect();
    let why = mode_covariate(&low, &refs, ns, true, true).unwrap();
    assert!(
        why.starts_with(
            "the rounds of the high mode found free memory more scattered (5.0% of fresh pages in physical order against 85%): the guest's free memory"
        ),
        "{why}"
    );
    // shares 10 points apart are not named
    let close = by_mode(&low, round(1200.0, 0.85), round(1200.0, 0.75));
    let refs: Vec<&RoundTelemetry> = close.iter().collect();
    assert_eq!(mode_covariate(&low, &refs, ns, true, true), None);
    // an older file, with no memory canary, explains nothing by it
    let old: Vec<RoundTelemetry> = low
        .iter()
        .map(|_| RoundTelemetry {
            canary_start: Canary {
                syscall_ns: 75.0,
                ..Canary::default()
            },
            ..RoundTelemetry::default()
        })
        .collect();
    let refs: Vec<&RoundTelemetry> = old.iter().collect();
    assert_eq!(mode_covariate(&low, &refs, ns, true, true), None);
}

/// Issue 39's read-through: a pipe ping-pong's two modes (1.02 µs and
/// 30.9 µs per switch, unpinned, /tmp/s18 run 1) fell on rounds that found
/// free memory more scattered, and the words named "a heap built of
/// scattered pages makes fork and exit walk scattered page records" as
/// the cause, though a ping-pong forks no heap. An experiment whose timed
/// work touches no fresh memory gets the fact and no cause.
#[test]
fn a_memory_record_names_no_cause_where_the_work_touches_no_memory() {
    let round = |fresh: f64, in_order: f64| canary_round(fresh, in_order, None);
    let ns = |x: f64| crate::units::fmt_value(x, crate::units::Unit::Ns);
    let low = EIGHT_AND_EIGHT;
    let guest = by_mode(&low, round(1200.0, 0.84), round(1250.0, 0.068));
    let refs: Vec<&RoundTelemetry> = guest.iter().collect();
    let ping = mode_covariate(&low, &refs, ns, true, false).unwrap();
    assert!(
        ping.starts_with("the rounds of the high mode found free memory more scattered (6.8% of fresh pages in physical order against 84%)"),
        "{ping}"
    );
    assert!(
        !ping.contains("fork and exit") && !ping.contains("the guest's free memory"),
        "{ping}"
    );
    assert!(
        ping.contains("neither touches fresh memory nor forks a heap: no cause is named"),
        "{ping}"
    );
    // the same rounds in a heap experiment name the cause
    let heap = mode_covariate(&low, &refs, ns, true, true).unwrap();
    assert!(heap.contains(": the guest's free memory"), "{heap}");
    // and the host's memory likewise
    let host = by_mode(&low, round(1200.0, 0.9), round(9800.0, 0.9));
    let refs: Vec<&RoundTelemetry> = host.iter().collect();
    let ping = mode_covariate(&low, &refs, ns, true, false).unwrap();
    assert!(
        !ping.contains("the host's memory state") && ping.contains("no cause is named"),
        "{ping}"
    );
}

/// A round whose canaries (start and end alike) read `fresh` ns a fresh
/// page, `in_order` of it in physical order, and `recycled` ns a recycled
/// page when given.
fn canary_round(fresh: f64, in_order: f64, recycled: Option<f64>) -> RoundTelemetry {
    let c = crate::results::Canary {
        syscall_ns: 75.0,
        coherence_ns: Some(30.0),
        fresh_page_ns: Some(fresh),
        recycled_page_ns: recycled,
        fresh_in_order: Some(in_order),
        ..crate::results::Canary::default()
    };
    RoundTelemetry {
        canary_start: c.clone(),
        canary_end: c,
        ..RoundTelemetry::default()
    }
}

/// 16 rounds, 8 in each mode, interleaved: a clean split of them is one
/// chance alone gives 2 times in 12,870.
const EIGHT_AND_EIGHT: [bool; 16] = [
    true, false, true, false, true, true, false, true, false, false, true, false, true, false,
    true, false,
];

/// One round per entry of `low`: `lo` for the low mode's, `hi` for the
/// others.
fn by_mode(low: &[bool], lo: RoundTelemetry, hi: RoundTelemetry) -> Vec<RoundTelemetry> {
    low.iter()
        .map(|l| if *l { lo.clone() } else { hi.clone() })
        .collect()
}

/// Two rounds of spawn.heap's first point in session 20's first default
/// run (/tmp/s20/run1): round 0's memory canary read 1,508 ns a page at
/// its start and 6,395 ns at its end; round 7's 1,288 and 2,257 ns. A
/// round's canary is their geometric mean (3,105 and 1,705 ns), read so by
/// explain's covariate and by compare's memory term alike (its log), never
/// the arithmetic mean (3,951 and 1,773 ns) on one side and the geometric
/// on the other.
#[test]
fn a_rounds_memory_canary_is_one_geometric_mean_for_explain() {
    let canary = |fresh: f64| crate::results::Canary {
        syscall_ns: 75.0,
        fresh_page_ns: Some(fresh),
        ..crate::results::Canary::default()
    };
    let round = |start: f64, end: f64| RoundTelemetry {
        canary_start: canary(start),
        canary_end: canary(end),
        ..RoundTelemetry::default()
    };
    let (r0, r7) = (
        round(1508.037109375, 6394.884765625),
        round(1288.02734375, 2257.318359375),
    );
    let of = |t: &RoundTelemetry| {
        crate::results::Canary::fresh_page_of_round(&t.canary_start, &t.canary_end).unwrap()
    };
    assert!((of(&r0) - (1508.037109375f64 * 6394.884765625).sqrt()).abs() < 1e-9);
    assert!((of(&r0) - 3105.4).abs() < 0.1, "{}", of(&r0));
    assert!((of(&r7) - 1705.1).abs() < 0.1, "{}", of(&r7));
    // One reading of the two, or none: the one there is.
    let mut half = r0.clone();
    half.canary_end.fresh_page_ns = Some(f64::NAN);
    assert_eq!(of(&half), 1508.037109375);
    half.canary_start.fresh_page_ns = None;
    assert!(
        crate::results::Canary::fresh_page_of_round(&half.canary_start, &half.canary_end).is_none()
    );
    // explain: the two modes' medians in words are the geometric means.
    let low = EIGHT_AND_EIGHT;
    let rounds = by_mode(&low, r7.clone(), r0.clone());
    let refs: Vec<&RoundTelemetry> = rounds.iter().collect();
    let ns = |x: f64| crate::units::fmt_value(x, crate::units::Unit::Ns);
    let why = mode_covariate(&low, &refs, ns, true, true).unwrap();
    assert!(
        why.starts_with(
            "the rounds of the high mode found fresh memory dearer to touch (3.11 µs against 1.71 µs per 4 KiB page)"
        ),
        "{why}"
    );
    // compare reads the same rounds the same way: its test is in
    // compare/memory_tests.rs (a lower floor never calls compare).
}
