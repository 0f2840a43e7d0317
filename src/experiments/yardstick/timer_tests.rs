use super::analyze;
use crate::experiments::testing::{metric, result};

#[test]
fn the_clock_read_is_put_against_rdtsc() {
    let m = |clock, ns: f64| metric("call_ns", &[("clock", clock)], &[ns, ns, ns]);
    let fast = analyze(&result(vec![m("monotonic", 20.0), m("rdtsc", 10.0)]));
    assert_eq!(fast.findings.len(), 1);
    assert!(
        fast.findings[0].contains("(2.0x an rdtsc"),
        "{:?}",
        fast.findings
    );
    assert!(fast.findings[0].ends_with("without entering the kernel"));
    let slow = analyze(&result(vec![m("monotonic", 500.0), m("rdtsc", 10.0)]));
    assert!(slow.findings[0].contains("may not be vDSO-readable"));
    assert!(analyze(&result(vec![m("monotonic", 20.0)]))
        .findings
        .is_empty());
}

fn attributed(kernel: (f64, f64, f64)) -> crate::results::why::Attribution {
    use crate::results::why::{Attribution, FunctionShare, Share};
    let s = |(share, lo, hi): (f64, f64, f64)| Share { share, lo, hi };
    Attribution {
        labels: crate::measure::protocol::labels(&[("clock", "monotonic")]),
        rounds: 4,
        samples: 200,
        lost: 0,
        user: s((1.0 - kernel.0, 1.0 - kernel.2, 1.0 - kernel.1)),
        kernel: s(kernel),
        functions: vec![FunctionShare {
            function: "read_hpet".into(),
            self_share: s(kernel),
            total: s(kernel),
        }],
        folded: vec![],
        per_round: None,
        overhead: vec![],
    }
}

#[test]
fn a_measured_kernel_share_replaces_the_guess_from_the_reads_cost() {
    let m = |clock, ns: f64| metric("call_ns", &[("clock", clock)], &[ns, ns, ns]);
    // Fast, and measured in user space.
    let mut r = result(vec![m("monotonic", 20.0), m("rdtsc", 10.0)]);
    r.why.push(attributed((0.0, 0.0, 0.02)));
    let f = &analyze(&r).findings[0];
    assert!(
        f.ends_with("measured in user space, the vDSO's read: 0.000% [0.000%, 2.00%] of its sampled CPU time in the kernel (--why: 200 samples in 4 rounds)"),
        "{f}"
    );
    // Fast, yet measured in the kernel: the measurement, not the guess.
    let mut r = result(vec![m("monotonic", 60.0), m("rdtsc", 10.0)]);
    r.why.push(attributed((0.8, 0.7, 0.9)));
    let f = &analyze(&r).findings[0];
    assert!(!f.contains("without entering the kernel"), "{f}");
    assert!(
        f.contains("measured in the kernel, not the vDSO: 80.0% [70.0%, 90.0%] of its sampled CPU time there, most in read_hpet 80.0% [70.0%, 90.0%]"),
        "{f}"
    );
    // An interval across the line: neither claimed.
    let mut r = result(vec![m("monotonic", 20.0), m("rdtsc", 10.0)]);
    r.why.push(attributed((0.03, 0.0, 0.3)));
    let f = &analyze(&r).findings[0];
    assert!(f.contains("where it is served not told apart"), "{f}");
}

#[test]
fn the_seeds_region_is_set_against_the_next_one_and_the_warm_read() {
    let region = |clock, call, ns: f64| {
        metric(
            "region_ns",
            &[("clock", clock), ("call", call)],
            &[ns, ns * 1.01, ns * 0.99],
        )
    };
    let warm = |clock, ns: f64| metric("call_ns", &[("clock", clock)], &[ns, ns, ns]);
    let a = analyze(&result(vec![
        warm("realtime", 19.0),
        region("realtime", "first", 60.0),
        region("realtime", "second", 24.0),
        region("instant", "first", 40.0),
        region("instant", "second", 40.0),
    ]));
    let rt = a
        .findings
        .iter()
        .find(|f| f.contains("CLOCK_REALTIME"))
        .expect("a realtime region finding");
    assert!(rt.contains("the first 2.5x"), "{rt}");
    assert!(rt.contains("a read in a warm loop costs 19.0 ns ["), "{rt}");
    let inst = a
        .findings
        .iter()
        .find(|f| f.contains("Instant::now"))
        .expect("an Instant region finding");
    assert!(inst.contains("(not told apart here)"), "{inst}");
    assert!(
        !inst.contains("warm loop"),
        "no warm read of instant: {inst}"
    );
    // No region measured: no region finding.
    let none = analyze(&result(vec![warm("realtime", 19.0)]));
    assert!(none.findings.iter().all(|f| !f.contains("empty region")));
}

#[test]
fn the_region_probe_answers_each_seed_clock_and_refuses_others() {
    for clock in ["realtime", "instant"] {
        let answer = super::region_probe(&serde_json::json!(clock)).expect("a clock of the seed's");
        assert!(
            matches!(answer, crate::measure::probe::Answer::Measured(_)),
            "{clock}: {answer:?}"
        );
    }
    assert!(super::region_probe(&serde_json::json!("sundial")).is_err());
}
