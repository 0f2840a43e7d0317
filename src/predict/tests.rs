use super::model::*;
use super::*;

fn r(median: f64) -> Range {
    Range {
        median,
        lo: median * 0.9,
        hi: median * 1.1,
    }
}

/// Slopes as a run on some machine could give them.
fn fixture() -> Slopes {
    Slopes {
        fork: vec![(100.0, r(60e3)), (1_000.0, r(500e3)), (8_000.0, r(4e6))],
        cow_4k: vec![(1.0, r(2_000.0)), (10.0, r(1_500.0)), (100.0, r(1_000.0))],
        cow_thp: vec![],
    }
}

fn process(vm_pte_kib: u64) -> Process {
    Process {
        pid: 1,
        vm_pte_kib,
        rss_anon_kib: 1 << 20,
        ..Process::default()
    }
}

#[test]
fn predict_grows_with_vm_pte() {
    let s = fixture();
    let mut last = f64::NEG_INFINITY;
    for pte in [0, 500, 2_000, 4_000, 16_000] {
        let p = predict(&s, &process(pte), 10.0).unwrap();
        assert!(p.parent_return_ns.median > last, "{pte}: {p:?}");
        assert!(p.parent_return_ns.lo <= p.parent_return_ns.median);
        assert!(p.parent_return_ns.median <= p.parent_return_ns.hi);
        last = p.parent_return_ns.median;
    }
    assert!(!predict(&s, &process(4_000), 10.0).unwrap().extrapolated);
    assert!(predict(&s, &process(16_000), 10.0).unwrap().extrapolated);
}

#[test]
fn the_cow_cost_is_the_written_pages_at_the_rate_of_their_share() {
    let s = fixture();
    // 1 GiB of anonymous memory, 10% written: 26,214.4 pages at 1.5 µs.
    let p = predict(&s, &process(2_000), 10.0).unwrap();
    assert!((p.written_4k_pages - 26_214.4).abs() < 1e-6);
    assert!((p.cow_first_pass_ns.median - 26_214.4 * 1_500.0).abs() < 1e-3);
    // Between two shares measured, the rate is on the line between them.
    let p = predict(&s, &process(2_000), 55.0).unwrap();
    let rate = p.cow_first_pass_ns.median / p.written_4k_pages;
    assert!((rate - 1_250.0).abs() < 1e-6, "{rate}");
    // Huge pages with no huge-page figures are priced at the 4 KiB rate, and said to be.
    let mut huge = process(2_000);
    huge.anon_huge_kib = 512 << 10;
    let p = predict(&s, &huge, 10.0).unwrap();
    assert!(p.thp_at_4k_rate);
    assert!(p.written_thp_pages > 0.0 && p.written_4k_pages > 0.0);
    assert_eq!(
        predict(&s, &process(2_000), 0.0)
            .unwrap()
            .cow_first_pass_ns
            .median,
        0.0
    );
}

#[test]
fn slopes_that_cannot_predict_say_what_is_missing() {
    let mut s = fixture();
    s.cow_4k.clear();
    assert!(missing(&s).unwrap().contains("spawn.cow"));
    assert!(predict(&s, &process(10), 10.0).is_none());
    s.fork.truncate(1);
    assert!(missing(&s).unwrap().contains("spawn.heap"));
}

#[test]
fn a_pid_and_a_share_are_checked() {
    assert_eq!(parse_pid("42"), Ok(42));
    assert!(parse_pid("0").unwrap_err().contains("not a process id"));
    assert!(parse_pid("-3").is_err());
    assert!(parse_pid("abc").is_err());
    assert!(parse_pid("99999999999").is_err());
    assert_eq!(parse_share("10%"), Ok(10.0));
    assert_eq!(parse_share("0.5"), Ok(0.5));
    assert!(parse_share("101%").is_err());
    assert!(parse_share("ten").is_err());
}

#[test]
fn this_process_can_be_read_and_an_absent_one_cannot() {
    let me = read_process(std::process::id()).unwrap();
    assert!(me.vm_pte_kib > 0 && me.vmas > 0 && me.fds > 0);
    let gone = read_process(i32::MAX as u32).unwrap_err();
    assert!(gone.contains("no such process"), "{gone}");
    let text = render(&me, &predict(&fixture(), &me, 10.0).unwrap(), "a fixture");
    assert!(
        text.contains("fork() would return to the parent in"),
        "{text}"
    );
}

#[test]
fn a_process_that_is_not_ours_is_named_with_what_to_do() {
    let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
    let m = unreadable(1, "memory map (smaps_rollup)", &denied);
    assert!(m.starts_with("--pid 1: permission denied"), "{m}");
    assert!(m.contains("as the process's user, or as root"), "{m}");
}
