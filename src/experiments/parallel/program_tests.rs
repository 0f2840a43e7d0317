use super::*;
use crate::experiments::testing::{metric, result};

#[test]
fn the_program_finding_applies_amdahl() {
    let (n, t) = (("n", "55256000"), ("thp", "default"));
    let r = result(vec![
        metric("whole_ns", &[("variant", "serial"), n, t], &[400e6]),
        metric("fill_ns", &[n, t], &[300e6]),
        metric(
            "average_ns",
            &[("variant", "serial"), ("phase", "average"), n, t],
            &[100e6],
        ),
        metric(
            "speedup",
            &[("variant", "fork"), ("workers", "2"), n, t],
            &[1.1],
        ),
    ]);
    let f = findings(&r);
    // serial fraction 75%: at most 1/(0.75 + 0.125) = 1.14x on 2 CPUs
    assert!(f[0].contains("75%") && f[0].contains("1.14x"), "{}", f[0]);
    assert!(f[1].contains("1.10x"), "{}", f[1]);
}

#[test]
fn the_first_touch_of_a_huge_page_fill_is_apart_from_the_median() {
    use crate::experiments::testing::near;
    let (n, t) = (("n", "55256000"), ("thp", "on"));
    let r = result(vec![
        near(
            "first_fill_ns",
            &[n, t, ("phase", "first map+fill")],
            400e6,
            5.0,
        ),
        near("fill_ns", &[n, t, ("phase", "map+fill")], 115e6, 5.0),
    ]);
    let f = findings(&r).join("\n");
    assert!(
        f.contains("n=55256000, thp=on: a worker's first map+fill, its first touch of fresh memory, is reported apart from the median of the later ones: the first (400 ms) is 3.5x the later fills (115 ms)"),
        "{f}"
    );
}
