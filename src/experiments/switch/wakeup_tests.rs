use super::*;
use crate::experiments::testing::{result, settled, unsettled};

fn wake(seq: i32, before: u64, after: u64, woken: i32) -> WakeStamp {
    WakeStamp {
        seq,
        before,
        after,
        woken,
    }
}

fn ret(seq: i32, waited_from: u64, returned: u64, cpu: u32) -> ReturnStamp {
    ReturnStamp {
        seq,
        waited_from,
        returned,
        cpu,
    }
}

#[test]
fn stamps_pair_by_turn_and_only_a_sleeping_wakee_is_timed() {
    let wakes = [
        wake(1, 1_000, 1_300, 1),    // timed: 1,000 → 5,000
        wake(3, 10_000, 10_200, 0),  // woke nobody: not asleep
        wake(5, 20_000, 20_100, 1),  // the wakee began to wait after the stamp
        wake(7, 30_000, 30_400, 1),  // returned on the wrong CPU
        wake(9, 40_000, 40_900, 1),  // timed
        wake(11, 50_000, 50_100, 1), // no return recorded: not a hand-off
    ];
    let returns = [
        ret(1, 500, 5_000, 1),
        ret(3, 9_000, 10_500, 1),
        ret(5, 20_050, 20_600, 1),
        ret(7, 29_000, 31_000, 0),
        ret(9, 39_000, 40_700, 1),
    ];
    let p = pair_up(&wakes, &returns, 1, false);
    assert_eq!(p.handoffs, 5);
    assert_eq!(p.wake_cycles, [4_000, 700]);
    assert_eq!(p.call_cycles, [300, 900]);
    assert_eq!((p.not_asleep, p.wrong_cpu, p.preempted), (2, 1, 0));
    // On one CPU, a wakee that ran before the call returned (40,700 <
    // 40,900) leaves the call untimed: it holds the wakee's run.
    let same = pair_up(&wakes, &returns, 1, true);
    assert_eq!(same.wake_cycles, [4_000, 700]);
    assert_eq!(same.call_cycles, [300]);
    assert_eq!(same.preempted, 1);
}

#[test]
fn batches_give_their_medians() {
    let v: Vec<f64> = (1..=10).map(f64::from).collect();
    // [1..4] → 2.5, [5..8] → 6.5, [9, 10] is half a batch → 9.5.
    assert_eq!(batch_medians(&v, 4), [2.5, 6.5, 9.5]);
    // A last batch under half is dropped.
    assert_eq!(batch_medians(&v[..9], 4), [2.5, 6.5]);
    assert!(batch_medians(&[], 4).is_empty());
}

#[test]
fn idle_state_entries_per_operation_from_two_readings() {
    let d = tempfile::tempdir().unwrap();
    let put = |cpu: usize, k: usize, name: &str, usage: u64| {
        let dir = d
            .path()
            .join(format!("sys/devices/system/cpu/cpu{cpu}/cpuidle/state{k}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("name"), format!("{name}\n")).unwrap();
        std::fs::write(dir.join("usage"), format!("{usage}\n")).unwrap();
    };
    for cpu in [0, 1] {
        put(cpu, 0, "POLL", 10);
        put(cpu, 1, "haltpoll idle", 1_000);
    }
    let before = idle_usage(d.path(), &[0, 1]);
    assert_eq!(before.len(), 4);
    assert_eq!(before[1], (0, "haltpoll idle".to_string(), 1_000));
    // 100 operations: CPU 0 halted 60 times, CPU 1 40 times and polled 20.
    put(0, 1, "haltpoll idle", 1_060);
    put(1, 1, "haltpoll idle", 1_040);
    put(1, 0, "POLL", 30);
    let after = idle_usage(d.path(), &[0, 1]);
    let per = idle_entries_per_op(&before, &after, 100);
    assert_eq!(
        per,
        [
            ("POLL".to_string(), 0.2),
            ("haltpoll idle".to_string(), 1.0)
        ]
    );
    // A counter that went backwards gives no figure for that CPU.
    put(0, 1, "haltpoll idle", 5);
    let back = idle_entries_per_op(&after, &idle_usage(d.path(), &[0, 1]), 100);
    assert_eq!(back[1], ("haltpoll idle".to_string(), 0.0));
    // No cpuidle folder: nothing read.
    assert!(idle_usage(d.path(), &[7]).is_empty());
}

#[test]
fn res_and_cal_are_summed_over_the_chosen_cpus() {
    let text = "           CPU0       CPU1       CPU2\n\
                  0:         44          0          0   IO-APIC   2-edge      timer\n\
                NMI:          0          0          0   Non-maskable interrupts\n\
                RES:      79196      64468         11   Rescheduling interrupts\n\
                CAL:       1200        300          5   Function call interrupts\n\
                TLB:          7          8          9   TLB shootdowns\n";
    assert_eq!(res_cal(text, &[0, 1]), Some([143_664, 1_500]));
    assert_eq!(res_cal(text, &[2]), Some([11, 5]));
    // a CPU with no column, or no rows: unknown, never zero
    assert_eq!(res_cal(text, &[9]), None);
    assert_eq!(res_cal("", &[0]), None);
}

fn summary(m: f64, lo: f64, hi: f64) -> Summary {
    settled("x", &[], m, lo, hi).summary
}

#[test]
fn a_difference_bounds_only_when_its_interval_excludes_zero() {
    let a = summary(10_000.0, 9_800.0, 10_300.0);
    let b = summary(6_000.0, 5_900.0, 6_100.0);
    let d = diff(&a, &b, Unit::Ns).unwrap();
    assert_eq!(d.d, 4_000.0);
    // 4,000 − √(200² + 100²) = 3,776.
    assert!((d.lo - (4_000.0 - 200f64.hypot(100.0))).abs() < 1e-9);
    assert!((d.hi - (4_000.0 + 300f64.hypot(100.0))).abs() < 1e-9);
    assert_eq!(
        bound(&d, "keeping it awake saves", "costs").as_deref(),
        Some("keeping it awake saves ≥ 3.78 µs")
    );
    let d = diff(&b, &a, Unit::Ns).unwrap();
    assert_eq!(
        bound(&d, "saves", "keeping it awake costs").as_deref(),
        Some("keeping it awake costs ≥ 3.78 µs")
    );
    let near = summary(9_900.0, 9_000.0, 11_000.0);
    let d = diff(&a, &near, Unit::Ns).unwrap();
    assert!(d.lo < 0.0 && d.hi > 0.0);
    assert_eq!(bound(&d, "saves", "costs"), None);
    // A flagged series supports no difference.
    let mut flagged = b.clone();
    flagged.unstable = true;
    assert!(diff(&a, &flagged, Unit::Ns).is_none());
    // Nor does one whose interval bounds nothing (it reaches zero).
    let wide = summary(400.0, 0.0, 90_000.0);
    assert!(diff(&a, &wide, Unit::Ns).is_none());
    assert!(diff(&wide, &b, Unit::Ns).is_none());
}

fn m(spec: &MetricSpec, v: Variant, med: f64, lo: f64, hi: f64) -> Metric {
    settled(spec.name, &[(VARIANT, v.name())], med, lo, hi)
}

fn count(spec: &MetricSpec, v: Variant, state: Option<&str>, med: f64) -> Metric {
    let mut pairs = vec![(VARIANT, v.name())];
    if let Some(s) = state {
        pairs.push((STATE, s));
    }
    settled(spec.name, &pairs, med, med, med)
}

/// A halting VM: the kept-awake hand-off is faster by a clear margin, the
/// timer's difference holds zero. The IPI counts are issue 39's recorded
/// runs': per hand-off to a halted CPU 0.98 CAL and 0.001 RES (the wake
/// list), to the kept-awake one 1.00 RES and no CAL (a remote enqueue).
fn fixture() -> ExperimentResult {
    use Variant::*;
    result(vec![
        m(&WAKE_NS, CrossCpu, 20_000.0, 19_000.0, 21_000.0),
        m(&WAKE_NS, CrossCpuAwake, 15_000.0, 14_500.0, 15_500.0),
        m(&WAKE_NS, SameCpu, 2_000.0, 1_900.0, 2_100.0),
        m(&WAKE_CALL_NS, CrossCpu, 8_000.0, 7_800.0, 8_200.0),
        m(&WAKE_CALL_NS, SameCpu, 800.0, 780.0, 820.0),
        m(&TIMER_LATE_NS, TimerIdle, 60_000.0, 50_000.0, 70_000.0),
        m(&TIMER_LATE_NS, TimerAwake, 55_000.0, 45_000.0, 65_000.0),
        settled(
            BARRIER_NS.name,
            &[(VARIANT, IpiRunning.name()), (PEER, "running")],
            11_000.0,
            10_500.0,
            11_500.0,
        ),
        settled(
            BARRIER_NS.name,
            &[(VARIANT, IpiBlocked.name()), (PEER, "blocked")],
            400.0,
            380.0,
            420.0,
        ),
        count(&RES_PER_OP, CrossCpu, None, 0.001),
        count(&CAL_PER_OP, CrossCpu, None, 0.98),
        count(&RES_PER_OP, CrossCpuAwake, None, 1.0),
        count(&CAL_PER_OP, CrossCpuAwake, None, 0.0),
        count(&IDLE_ENTRIES_PER_OP, CrossCpu, Some("POLL"), 0.0),
        count(&IDLE_ENTRIES_PER_OP, CrossCpu, Some("haltpoll idle"), 1.0),
        count(&IDLE_ENTRIES_PER_OP, TimerIdle, Some("POLL"), 0.0),
        count(&IDLE_ENTRIES_PER_OP, TimerIdle, Some("haltpoll idle"), 1.0),
        count(&RES_PER_OP, TimerIdle, None, 0.0),
        count(&CAL_PER_OP, TimerIdle, None, 0.0),
    ])
}

fn finding<'a>(a: &'a Analysis, head: &str) -> &'a str {
    a.findings
        .iter()
        .find(|f| f.starts_with(head))
        .unwrap_or_else(|| panic!("no finding starting '{head}': {:?}", a.findings))
}

#[test]
fn each_figure_is_named_for_what_it_measured_and_nothing_goes_to_the_summary() {
    let a = analyze(&fixture());
    assert!(a.headlines.is_empty(), "{:?}", a.headlines);
    let w = finding(&a, "a one-way futex wake-up to the other CPU");
    assert!(w.contains("the CPUs halting when idle"), "{w}");
    // The kept-awake control took another kernel path: no bound compares
    // the two (issue 39 item 6).
    assert!(
        w.contains("another kernel path: the halted peer is woken through the wake list and a function-call IPI (CAL), the running one through a remote enqueue and a reschedule IPI (RES)")
            && w.contains("bounds nothing about leaving idle")
            && !w.contains("keeping the peer awake"),
        "{w}"
    );
    assert!(w.contains("the other CPU takes longer, by ≥"), "{w}");
    let c = finding(&a, "the waker's FUTEX_WAKE call takes 8.00 µs");
    assert!(c.contains("costs the waker more, by ≥"), "{c}");
    let t = finding(&a, "a timer fires");
    assert!(t.contains("on a CPU left without work (it halted)"), "{t}");
    // The timer's difference holds zero: no bound, the interval instead.
    assert!(
        t.contains("indistinguishable here") && !t.contains("≥"),
        "{t}"
    );
    let i = finding(&a, "a synchronous IPI round trip to a running CPU");
    assert!(i.contains("the round trip adds ≥"), "{i}");
    assert!(i.contains("not a part of the hand-off"), "{i}");
    let p = finding(&a, "the path each took");
    assert!(
        p.contains("cross-CPU hand-off: 0.00 RES per hand-off and 1.0 CAL per hand-off")
            && p.contains("kept-awake hand-off: 1.0 RES per hand-off")
            && p.contains("haltpoll idle 1.0 entry per hand-off")
            && !p.contains("POLL"),
        "{p}"
    );
    // No part derived by subtraction under the old stacking model.
    let all = a.findings.join("\n");
    for gone in ["residual", "largest part", "idle exit", "coherence floor"] {
        assert!(!all.contains(gone), "{gone}: {all}");
    }
    assert!(a.readings.is_empty());
}

#[test]
fn overlapping_or_flagged_figures_state_no_bound() {
    let mut r = fixture();
    for x in r.metrics.iter_mut() {
        if x.name == WAKE_NS.name && x.label(VARIANT) == Some(Variant::CrossCpuAwake.name()) {
            *x = m(
                &WAKE_NS,
                Variant::CrossCpuAwake,
                19_500.0,
                18_000.0,
                21_000.0,
            );
        }
        if x.name == WAKE_CALL_NS.name && x.label(VARIANT) == Some(Variant::SameCpu.name()) {
            *x = unsettled(x.clone());
        }
    }
    let a = analyze(&r);
    let w = finding(&a, "a one-way futex wake-up to the other CPU");
    assert!(!w.contains("spinners it takes longer"), "{w}");
    let c = finding(&a, "the waker's FUTEX_WAKE call");
    assert!(c.contains('!') && !c.contains("≥"), "{c}");
}

#[test]
fn a_polling_machine_is_named_as_such() {
    let mut r = fixture();
    for x in r.metrics.iter_mut() {
        if x.name == IDLE_ENTRIES_PER_OP.name {
            let polls = x.label(STATE) == Some("POLL");
            x.summary.median = if polls { 1.0 } else { 0.0 };
        }
    }
    let a = analyze(&r);
    assert!(finding(&a, "a one-way futex wake-up").contains("the CPUs polling when idle"));
    let t = finding(&a, "a timer fires");
    assert!(t.contains("(it polled)") && !t.contains("halt"), "{t}");
}

/// A boot with no cpuidle driver records no idle-state counters: the
/// findings say idle is HLT and not counted, never that no idle state was
/// entered (issue 39 item 1).
#[test]
fn with_no_cpuidle_driver_a_missing_counter_is_unknown_not_zero() {
    let mut r = fixture();
    r.metrics.retain(|x| x.name != IDLE_ENTRIES_PER_OP.name);
    let a = analyze(&r);
    let all = a.findings.join("\n") + &a.notes.join("\n");
    assert!(!all.contains("no idle state"), "{all}");
    let w = finding(&a, "a one-way futex wake-up");
    assert!(w.contains("no cpuidle driver: HLT, not counted"), "{w}");
    let t = finding(&a, "a timer fires");
    assert!(
        t.contains("no cpuidle driver") && !t.contains("halted"),
        "{t}"
    );
}

/// A same-CPU wake call is timed only when the sleeper had not run yet:
/// the finding says which share its figure rests on (issue 39 item 12).
#[test]
fn the_same_cpu_wake_call_names_the_share_it_rests_on() {
    let mut r = fixture();
    r.metrics.push(settled(
        TIMED_PCT.name,
        &[(VARIANT, Variant::SameCpu.name()), (OF, WAKE_CALL_NS.name)],
        16.4,
        16.0,
        17.0,
    ));
    let a = analyze(&r);
    let f = finding(&a, "the waker's FUTEX_WAKE call");
    assert!(f.contains("of the 16% of its calls timed there"), "{f}");
    // all timed: nothing to say
    let f = finding(&analyze(&fixture()), "the waker's FUTEX_WAKE call").to_string();
    assert!(!f.contains("calls timed"), "{f}");
}

/// On a busy machine the "halted" hand-off takes the control's path by
/// itself (its peer's CPU runs something): the counts show RES for both,
/// and the two compare as one path, in words that name no halt.
#[test]
fn one_path_by_the_counts_is_compared_without_a_halt_in_the_words() {
    let mut r = fixture();
    for x in r.metrics.iter_mut() {
        if x.label(VARIANT) == Some(Variant::CrossCpu.name()) {
            if x.name == RES_PER_OP.name {
                x.summary.median = 1.0;
            } else if x.name == CAL_PER_OP.name {
                x.summary.median = 0.0;
            }
        }
    }
    let a = analyze(&r);
    let w = finding(&a, "a one-way futex wake-up to the other CPU");
    assert!(
        w.contains("both by a remote enqueue and a reschedule IPI (RES) (without the spinners it takes longer, by ≥ 3.88 µs per hand-off)")
            && !w.contains("another kernel path"),
        "{w}"
    );
}

/// Where TTWU_QUEUE could be turned off, the halted wake-up takes the
/// kept-awake control's path (its counts say so) and the two compare like
/// for like; a halted pass whose counts show another path is not compared
/// (issue 39 item 6).
#[test]
fn the_halted_wake_with_ttwu_queue_off_is_compared_only_on_one_path() {
    use Variant::*;
    let with = |res: f64, cal: f64| {
        let mut r = fixture();
        r.metrics.extend([
            m(&WAKE_NS, CrossCpuRemote, 18_000.0, 17_500.0, 18_500.0),
            count(&RES_PER_OP, CrossCpuRemote, None, res),
            count(&CAL_PER_OP, CrossCpuRemote, None, cal),
        ]);
        analyze(&r)
    };
    let a = with(1.0, 0.002);
    let f = finding(&a, "with TTWU_QUEUE off for its passes");
    // 18 − 15 µs, less √(0.5² + 0.5²) = 0.707 µs: ≥ 2.29 µs.
    assert!(
        f.contains("by a remote enqueue and a reschedule IPI (RES) as the kept-awake control")
            && f.contains("on one path, waking the halted peer costs more, by ≥ 2.29 µs"),
        "{f}"
    );
    let p = finding(&a, "the path each took");
    assert!(
        p.contains("hand-off with TTWU_QUEUE off: 1.0 RES per hand-off"),
        "{p}"
    );
    let f = with(0.0, 1.0);
    let f = finding(&f, "with TTWU_QUEUE off for its passes");
    assert!(f.ends_with("not compared") && !f.contains("≥"), "{f}");
    // Not measured (no root, no debugfs): no such finding.
    assert!(!analyze(&fixture())
        .findings
        .iter()
        .any(|f| f.starts_with("with TTWU_QUEUE off")));
}

fn dir(v: Variant, d: &str, med: f64, lo: f64, hi: f64) -> Metric {
    settled(
        WAKE_DIR_NS.name,
        &[(VARIANT, v.name()), (DIRECTION, d)],
        med,
        lo,
        hi,
    )
}

/// Each direction apart: a TSC offset between the CPUs shows as half the
/// difference of the two (issue 39 item 8).
#[test]
fn each_direction_is_reported_apart_with_the_tsc_offset_it_allows() {
    use Variant::*;
    let mut r = fixture();
    r.metrics.extend([
        dir(CrossCpu, A_TO_B, 21_000.0, 20_800.0, 21_200.0),
        dir(CrossCpu, B_TO_A, 19_000.0, 18_800.0, 19_200.0),
        // issue 39's run on this VM (haltpoll driver, busy): 20.2 µs
        // [20.0, 20.5] against 20.1 µs [19.9, 20.4]
        dir(CrossCpuAwake, A_TO_B, 20_200.0, 20_000.0, 20_500.0),
        dir(CrossCpuAwake, B_TO_A, 20_100.0, 19_900.0, 20_400.0),
    ]);
    let a = analyze(&r);
    let f = finding(&a, "each direction of the one-way wake-up apart");
    assert!(
        f.contains("cross_cpu A→B 21.0 µs [20.8 µs, 21.2 µs], B→A 19.0 µs"),
        "{f}"
    );
    // 2 µs − √(0.2² + 0.2²): ≥ 1.72 µs; half of 2 ± 0.283 µs.
    assert!(f.contains("A→B takes longer, by ≥ 1.72 µs"), "{f}");
    assert!(
        f.contains("B's TSC would be ahead of A's by +858.6 ns to +1.14 µs"),
        "{f}"
    );
    assert!(
        f.contains("cross_cpu_awake A→B 20.2 µs [20.0 µs, 20.5 µs], B→A 20.1 µs [19.9 µs, 20.4 µs] (not told apart") && f.contains("not told apart"),
        "{f}"
    );
    // A negative bound is written as every other negative figure is, with
    // a hyphen-minus ("-70.6 ns [-1.04 µs, 786.0 ns]" beside it), never
    // U+2212 ("−522.0 ns to +393.0 ns" in /tmp/s18 run 1).
    assert!(f.contains("ahead of A's by -"), "{f}");
    assert!(!f.contains("by −"), "{f}");
    // The pooled series stays as it was.
    assert!(finding(&a, "a one-way futex wake-up").contains("takes 20.0 µs"));
}

fn sweep(us: &str, med: f64, lo: f64, hi: f64) -> Metric {
    settled(TIMER_SWEEP_NS.name, &[(PERIOD_US, us)], med, lo, hi)
}

/// The timer sweep names the step its intervals tell apart, or says none
/// was seen (issue 39 item 7).
#[test]
fn the_timer_sweep_names_the_step_or_says_none_was_seen() {
    let mut r = fixture();
    r.metrics.extend([
        sweep("20", 9_000.0, 8_500.0, 9_500.0),
        sweep("200", 9_500.0, 8_800.0, 10_200.0),
        sweep("2000", 40_000.0, 38_000.0, 42_000.0),
        sweep("600", 10_000.0, 9_000.0, 11_000.0),
    ]);
    let a = analyze(&r);
    let f = finding(&a, "a timer on the idle CPU by its period");
    assert!(
        f.contains(
            "how late it fires at each period: 9.00 µs [8.50 µs, 9.50 µs] at 20.0 µs, 9.50 µs"
        ) && f.contains("40.0 µs [38.0 µs, 42.0 µs] at 2.00 ms"),
        "{f}"
    );
    assert!(
        f.contains("lateness steps up between 600 µs and 2.00 ms (by ≥ 27.8 µs"),
        "{f}"
    );
    // No neighbours told apart by a fifth: no step (the issue 39 run's
    // 200 µs 25.7 µs [22.7, 28.9] against 600 µs 36.4 µs [29.7, 42.0]
    // rises ≥ 3.24 µs, under a fifth of 25.7 µs); a flagged period is named.
    r.metrics.retain(|m| m.name != TIMER_SWEEP_NS.name);
    r.metrics.extend([
        sweep("20", 20_100.0, 19_500.0, 20_800.0),
        sweep("60", 22_800.0, 22_200.0, 23_400.0),
        sweep("200", 25_700.0, 22_700.0, 28_900.0),
        sweep("600", 36_400.0, 29_700.0, 42_000.0),
        unsettled(sweep("2000", 59_200.0, 28_600.0, 124_000.0)),
    ]);
    let f = finding(&analyze(&r), "a timer on the idle CPU by its period").to_string();
    assert!(
        f.ends_with("no step seen in the range (20.0 µs to 2.00 ms): no two neighbouring periods told apart upward by a fifth or more by their intervals (2.00 ms flagged: no step is told apart beside it)"),
        "{f}"
    );
}

/// What always holds on any machine: an absolute sleep never returns
/// early, and a cross-CPU hand-off pass times its wake-ups as positive
/// durations on the CPUs it was given.
#[test]
fn a_real_pass_times_positive_wake_ups_and_no_early_timer() {
    let cpus = sys::allowed_cpus().unwrap();
    if cpus.len() < 2 {
        return;
    }
    let b = Budget {
        seconds: 0.02,
        min_samples: 1,
        max_samples: 100,
    };
    let pair = (cpus[0], cpus[1]);
    let t = run_pass(Variant::TimerIdle, pair, None, 200_000, &b, 0.0).unwrap();
    assert!(t.ops > 0 && t.samples.iter().all(|&x| x >= 0.0));
    let t = run_pass(Variant::TimerSweep(50), pair, None, 0, &b, 0.0).unwrap();
    assert!(t.ops > 0 && t.samples.iter().all(|&x| x >= 0.0));
    let text = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    if tsc::invariant_tsc(&text).is_ok() {
        let rate = TscRate::measure(5);
        let p = run_pass(Variant::CrossCpu, pair, rate, 0, &b, 0.0).unwrap();
        assert!(p.ops as usize >= MIN_HANDOFFS, "{}", p.ops);
        assert!(p.samples.iter().all(|&x| x > 0.0), "{:?}", p.samples);
        let (w, c) = p.timed.unwrap();
        assert!((0.0..=100.0).contains(&w) && (0.0..=100.0).contains(&c));
    }
    sys::pin_current_thread(&cpus).unwrap();
}

/// The reviewer's run 1: a timer 21.5 µs [20.2 µs, 23.0 µs] late on a CPU
/// kept awake, with the slack at 1 ns and no IPI counted there. Nothing
/// tasklab records explains that lateness, and the finding says so rather
/// than leaving it unremarked or guessing a cause (issue 39).
#[test]
fn the_kept_awake_timers_lateness_is_said_to_be_unexplained() {
    use Variant::*;
    let mut r = fixture();
    r.metrics.retain(|x| x.name != TIMER_LATE_NS.name);
    r.metrics.extend([
        m(&TIMER_LATE_NS, TimerIdle, 32_703.5, 31_831.3, 35_937.2),
        m(&TIMER_LATE_NS, TimerAwake, 21_520.5, 20_230.9, 22_992.2),
        count(&RES_PER_OP, TimerAwake, None, 0.0),
        count(&CAL_PER_OP, TimerAwake, None, 0.0),
    ]);
    let a = analyze(&r);
    let t = finding(&a, "a timer fires");
    assert!(
        t.contains("; on the kept-awake CPU the sleep's timer slack was 1 ns, and the median round counted no IPI on its CPUs (0.00 RES and 0.00 CAL per wake): what makes that timer fire 21.5 µs late is not explained by what tasklab records;"),
        "{t}"
    );
    // A few IPIs counted there (run 3 of session 22: 0.02 RES per wake):
    // never "no IPI".
    let set_res = |r: &mut ExperimentResult, v: f64| {
        for x in r.metrics.iter_mut() {
            if x.name == RES_PER_OP.name && x.label(VARIANT) == Some(TimerAwake.name()) {
                x.summary.median = v;
            }
        }
    };
    set_res(&mut r, 0.02);
    let t = finding(&analyze(&r), "a timer fires").to_string();
    assert!(
        t.contains(", and the median round counted fewer than one IPI in 20 wakes on its CPUs (0.02 RES and 0.00 CAL per wake):"),
        "{t}"
    );
    // IPIs counted there: quoted, and how much they make is not claimed.
    set_res(&mut r, 0.5);
    let t = finding(&analyze(&r), "a timer fires").to_string();
    assert!(
        t.contains("0.50 RES and 0.00 CAL per wake were counted on its CPUs (how much of the lateness they make is not measured)"),
        "{t}"
    );
}

/// The reviewer's run 1: a timer 32.7 µs [31.8 µs, 35.9 µs] late on a
/// halted CPU, 21.5 µs [20.2 µs, 23.0 µs] on one kept awake. The finding
/// said "leaving the halt (no IPI) costs ≥ 9.47 µs", a bound taken against
/// a lateness it calls unexplained. The bound stays, as the difference of
/// two measured figures, and what it would be of is said only with the
/// assumption it rests on (issue 39).
#[test]
fn the_timer_bound_states_the_assumption_it_rests_on() {
    use Variant::*;
    let run1 = |idle: (f64, f64, f64)| {
        let mut r = fixture();
        r.metrics.retain(|x| x.name != TIMER_LATE_NS.name);
        r.metrics.extend([
            m(&TIMER_LATE_NS, TimerIdle, idle.0, idle.1, idle.2),
            m(&TIMER_LATE_NS, TimerAwake, 21_520.5, 20_230.9, 22_992.2),
            count(&RES_PER_OP, TimerAwake, None, 0.0),
            count(&CAL_PER_OP, TimerAwake, None, 0.0),
        ]);
        r
    };
    let r = run1((32_703.5, 31_831.3, 35_937.2));
    let t = finding(&analyze(&r), "a timer fires").to_string();
    assert!(!t.contains("costs ≥"), "{t}");
    assert!(
        t.contains("late on one kept awake by a SCHED_IDLE spinner: the timer on the CPU left idle fires later, by ≥ "),
        "{t}"
    );
    assert!(
        t.ends_with("is not explained by what tasklab records; so the bound above is what leaving the halt (no IPI) costs only on an assumption this run does not test: that whatever makes the kept-awake timer late delays the idle CPU's timer by as much"),
        "{t}"
    );
    // No cpuidle driver: HLT, not counted; the same assumption, of idle.
    let mut none = r.clone();
    none.metrics.retain(|x| x.name != IDLE_ENTRIES_PER_OP.name);
    let t = finding(&analyze(&none), "a timer fires").to_string();
    assert!(
        t.contains("so the bound above is what leaving idle (no IPI) costs only on an assumption"),
        "{t}"
    );
    // A CPU that entered no idle state: no idle exit is named at all.
    let mut busy = r.clone();
    for x in busy.metrics.iter_mut() {
        if x.name == IDLE_ENTRIES_PER_OP.name {
            x.summary.median = 0.0;
        }
    }
    let t = finding(&analyze(&busy), "a timer fires").to_string();
    assert!(t.contains("fires later, by ≥"), "{t}");
    assert!(!t.contains("leaving") && !t.contains("assumption"), "{t}");
    // Run 2's figures: the difference holds zero, so no bound and nothing
    // resting on one.
    let run2 = run1((25_013.3, 21_460.4, 51_332.5));
    let t = finding(&analyze(&run2), "a timer fires").to_string();
    assert!(t.contains("indistinguishable here"), "{t}");
    assert!(!t.contains('≥') && !t.contains("assumption"), "{t}");
}
