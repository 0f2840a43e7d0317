use super::*;

const TINY: Budget = Budget {
    seconds: 0.01,
    min_samples: 5,
    max_samples: 50,
};

#[test]
fn events_respects_the_sample_bounds() {
    let mut calls = 0;
    let v = events(&TINY, 3, || {
        calls += 1;
        Ok(calls)
    })
    .unwrap();
    assert!(v.len() >= 5 && v.len() <= 50);
    assert_eq!(calls, v.len() + 3, "warm-up calls are not recorded");
    // a slow event still gets the minimum number of samples
    let slow = events(&TINY, 1, || {
        std::thread::sleep(std::time::Duration::from_millis(3));
        Ok(())
    })
    .unwrap();
    assert_eq!(slow.len(), 5);
}

#[test]
fn events_count_the_cpu_time_of_their_calls() {
    let (v, cpu) = events_cpu(&TINY, 1, || {
        let t0 = sys::monotonic_ns();
        while sys::monotonic_ns() - t0 < 200_000 {
            std::hint::black_box(sys::bare_syscall());
        }
        Ok(())
    })
    .unwrap();
    assert!(!v.is_empty());
    // Each call kept this thread busy: some CPU time, user or system.
    assert!(cpu.ns > 0.0, "{cpu:?}");
}

#[test]
fn events_stops_at_the_first_error() {
    let mut calls = 0;
    let r = events(&TINY, 1, || {
        calls += 1;
        if calls > 4 {
            Err(io::Error::other("boom"))
        } else {
            Ok(())
        }
    });
    assert!(r.is_err());
}

#[test]
fn batches_grow_between_2x_and_10x_until_the_target() {
    assert_eq!(next_batch(1, 10.0, 1000.0, 1 << 40), Some(10));
    assert_eq!(next_batch(4, 900.0, 1000.0, 1 << 40), Some(8));
    assert_eq!(next_batch(4, 1000.0, 1000.0, 1 << 40), None);
    assert_eq!(next_batch(64, 1.0, 1000.0, 64), None);
    // each call costing 7 ns: the batch is the first size past 1000 ns
    let n = size_batch(1000.0, 1 << 40, |n| Ok::<_, ()>(n as f64 * 7.0)).unwrap();
    assert!(n as f64 * 7.0 >= 1000.0 && n <= 1000, "{n}");
}

#[test]
fn one_preempted_warm_up_batch_does_not_fix_the_batch_size() {
    // Calls of 7 ns; the first batch (1 call) is preempted and reads as
    // long as the target: the warm-up runs it again and grows past it.
    let mut calls = 0;
    let n = size_batch(1000.0, 1 << 40, |n| {
        calls += 1;
        Ok::<_, ()>(if calls == 1 { 5000.0 } else { n as f64 * 7.0 })
    })
    .unwrap();
    assert!(n as f64 * 7.0 >= 1000.0 && n <= 1000, "{n}");
    // A batch that reaches the target twice in a row is believed: a call
    // that really takes longer than the target is a batch of one.
    let mut runs = Vec::new();
    let n = size_batch(1000.0, 1 << 40, |n| {
        runs.push(n);
        Ok::<_, ()>(n as f64 * 3000.0)
    })
    .unwrap();
    assert_eq!((n, runs), (1, vec![1, 1]));
    // The size found is run twice: the faster decides, then it is kept.
    let mut w = Warmup::new(1000.0, 1 << 40);
    assert!(w.took(10.0) && w.n() == 10);
    assert!(w.took(1200.0) && w.n() == 10);
    assert!(!w.took(1100.0) && w.n() == 10);
}

#[test]
fn interleaving_visits_every_item_once_per_pass_in_shuffled_orders() {
    let items = ["a", "b", "c", "d", "e", "f"];
    let mut seen: Vec<&str> = Vec::new();
    let mut calls = 0;
    let got = interleave(&items, 3, 7, |x| {
        seen.push(x);
        calls += 1;
        Ok::<usize, ()>(calls)
    })
    .unwrap();
    assert_eq!(seen.len(), 18);
    for pass in seen.chunks(6) {
        let mut p = pass.to_vec();
        p.sort_unstable();
        assert_eq!(p, items.to_vec(), "every item once per pass");
    }
    // not one block per item: some pass is not in input order
    assert!(seen.chunks(6).any(|p| p != items));
    // what each item gave comes back in item order, its passes in order
    assert_eq!(got.len(), 6);
    for (i, calls) in got.iter().enumerate() {
        assert_eq!(calls.len(), 3);
        assert!(calls.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(seen[calls[0] - 1], items[i]);
    }
}

#[test]
fn a_split_budget_divides_time_and_samples() {
    let b = TINY.split(3);
    assert!((b.seconds - 0.01 / 3.0).abs() < 1e-12);
    assert_eq!((b.min_samples, b.max_samples), (2, 17));
    assert_eq!(TINY.split(100).min_samples, 1);
}

#[test]
fn per_op_gives_one_sample_per_batch() {
    let v = per_op(&TINY, 0.0, || {
        std::hint::black_box(1 + 1);
    });
    assert!(v.len() >= 30 && v.len() <= 50, "{}", v.len());
    assert!(v.iter().all(|x| x.is_finite() && *x >= 0.0));
}
