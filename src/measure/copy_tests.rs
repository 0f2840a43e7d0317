use super::*;

#[test]
fn a_copy_gives_positive_samples_for_both_layouts() {
    let b = Budget {
        seconds: 0.002,
        min_samples: 3,
        max_samples: 10,
    };
    for shift in [0, 16] {
        let v = copy_samples(&b, 0.0, 64 << 10, shift);
        assert!(v.len() >= 3 && v.iter().all(|x| *x > 0.0), "{v:?}");
    }
}
