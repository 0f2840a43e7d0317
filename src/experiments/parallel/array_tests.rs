use super::*;

/// The fill formula as written, element by element: what [`fill`] steps to.
fn value(i: usize) -> f64 {
    ((i as u64).wrapping_mul(7919) % 10007) as f64 / 10007.0
}

#[test]
fn the_exact_sum_matches_a_direct_one() {
    for n in [0u64, 1, 10006, 10007, 10008, 123_457] {
        let direct: u128 = (0..n).map(|i| ((i * 7919) % 10007) as u128).sum();
        assert_eq!(exact_sum_k(n), direct, "n={n}");
    }
}

#[test]
fn fill_writes_the_formula() {
    let mut v = vec![0.0; 30_000];
    fill(&mut v);
    assert!(v.iter().enumerate().all(|(i, &x)| x == value(i)));
}

#[test]
fn split_covers_everything_once() {
    for (n, w) in [(10, 3), (2, 5), (0, 2), (100, 1), (7, 7)] {
        let r = split(n, w);
        assert_eq!(r.len(), w);
        assert_eq!(r[0].start, 0);
        assert_eq!(r.last().unwrap().end, n);
        for p in r.windows(2) {
            assert_eq!(p[0].end, p[1].start);
            assert!(p[0].len().abs_diff(p[1].len()) <= 1);
        }
    }
}

#[test]
fn the_tolerance_catches_one_lost_element() {
    for n in [1_000u64, SEED_N, 155_256_000, 3_000_000_000] {
        assert!(tolerance(n) >= 1e-12);
        assert!(tolerance(n) * 5.0 < 1.0 / n as f64, "n={n}");
    }
}

#[test]
fn every_variant_agrees_with_serial() {
    let n = 200_003usize;
    let xs: Vec<f64> = (0..n).map(value).collect();
    let pools = Pools::new(&[1, 2, 3, 5]).unwrap();
    let serial = sum_by(&xs, Variant::Serial, 1, &pools).unwrap();
    assert!(rel_diff(serial / n as f64, exact_average(n as u64)) < tolerance(n as u64));
    for v in [Variant::Fork, Variant::Threads, Variant::Pool] {
        for w in [1, 2, 3, 5] {
            let s = sum_by(&xs, v, w, &pools).unwrap();
            assert!(
                rel_diff(s, serial) <= tolerance(n as u64),
                "{v:?} {w}: {s} vs {serial}"
            );
        }
    }
}

#[test]
fn a_mismatch_is_an_error() {
    let mut worst = 0.0;
    assert!(check_against_serial("x", 1.0, 1.0, 100, &mut worst).is_ok());
    let e = check_against_serial("x", 0.5, 1.0, 100, &mut worst).unwrap_err();
    assert!(e.to_string().contains("differs"), "{e}");
    assert_eq!(worst, 0.5);
}
