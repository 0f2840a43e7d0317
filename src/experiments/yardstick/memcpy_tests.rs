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
    assert_eq!(odd.findings.len(), 2, "{:?}", odd.findings);
    assert!(
        odd.findings[0]
            .starts_with("memcpy of 64 KiB: aligned 2.00 µs (32.8 GB/s), dst+16 9.00 µs"),
        "{}",
        odd.findings[0]
    );
    assert!(
        odd.findings[1].starts_with("odd but real: a 64 KiB memcpy")
            && odd.findings[1].contains("4x slower"),
        "{}",
        odd.findings[1]
    );
    let even = analyze(&result(vec![
        copy("aligned", 2000.0),
        copy("dst+16", 2500.0),
    ]));
    assert_eq!(even.findings.len(), 1, "{:?}", even.findings);
}
