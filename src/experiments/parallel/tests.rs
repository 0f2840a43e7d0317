use super::*;
use crate::stats::median;

#[test]
fn the_median_speedup_is_the_ratio_of_medians() {
    let serial = [100.0, 90.0, 400.0];
    let v = [50.0, 45.0, 60.0];
    let sp = speedups(&serial, &v);
    assert_eq!(
        median(&sp).unwrap(),
        median(&serial).unwrap() / median(&v).unwrap()
    );
    assert_eq!(sp[0], 2.0);
}
