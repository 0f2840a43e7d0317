use super::analyze;
use crate::experiments::testing::{metric, result};

fn copy(layout: &str, ns: f64) -> crate::results::Metric {
    metric(
        "copy_ns",
        &[("size", "64 KiB"), ("bytes", "65536"), ("layout", layout)],
        &[ns, ns, ns],
    )
}

#[test]
fn a_slow_shifted_copy_is_called_out_only_when_it_is_slow() {
    let odd = analyze(&result(vec![
        copy("aligned", 2000.0),
        copy("dst+16", 9000.0),
    ]));
    assert_eq!(odd.findings.len(), 3, "{:?}", odd.findings);
    assert!(odd.findings[0].starts_with("memcpy of 64 KiB (aligned)"));
    assert!(
        odd.findings[2].starts_with("odd but real: a 64 KiB memcpy")
            && odd.findings[2].contains("4x slower"),
        "{}",
        odd.findings[2]
    );
    let even = analyze(&result(vec![
        copy("aligned", 2000.0),
        copy("dst+16", 2500.0),
    ]));
    assert_eq!(even.findings.len(), 2, "{:?}", even.findings);
}
