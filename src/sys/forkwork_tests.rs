use super::*;

#[test]
fn a_buffer_holds_what_is_written_and_starts_aligned() {
    let mut b = F64Buf::new(1000, Thp::Default).unwrap();
    assert!(b.as_slice().iter().all(|&x| x == 0.0));
    for (i, x) in b.as_mut_slice().iter_mut().enumerate() {
        *x = i as f64;
    }
    assert_eq!(seed_sum(b.as_slice()), 499_500.0);
    assert_eq!(b.as_slice().as_ptr() as usize % HUGE, 0);
    assert!(F64Buf::new(0, Thp::On).unwrap().as_slice().is_empty());
}

#[test]
fn a_forked_child_sends_back_its_partial_sum() {
    let v: Vec<f64> = (1..=100).map(f64::from).collect();
    let a = fork_sum(&v[..50], true).unwrap();
    let b = fork_sum(&v[50..], false).unwrap();
    let (ra, rb) = (a.collect().unwrap(), b.collect().unwrap());
    assert_eq!(ra.sum + rb.sum, 5050.0);
    assert_eq!(rb.second_pass_ns, 0);
    assert!(ra.start_ns > 0);
}

#[test]
fn the_slow_sink_takes_bytes_over_rate() {
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/null")
        .unwrap();
    let fd: OwnedFd = f.into();
    let sink = SlowSink {
        fd: std::os::fd::AsFd::as_fd(&fd),
        rate_bytes_per_s: 100_000,
        chunk: 1000,
    };
    let t0 = monotonic_ns();
    assert!(run_report(1, 10, &[b'x'; 2000], &sink));
    // 2000 bytes at 100 kB/s: at least 20 ms.
    assert!(monotonic_ns() - t0 >= 20_000_000);
    fork_report(1, 10, &[b'x'; 100], &sink)
        .unwrap()
        .wait()
        .unwrap();
}
