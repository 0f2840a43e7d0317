use super::analyze;
use crate::experiments::testing::{metric, result, unsettled};

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
        odd.findings[1].starts_with(HEAD) && odd.findings[1].contains("4x slower, odd but real: "),
        "{}",
        odd.findings[1]
    );
    // Close: the finding stays, with no slow path named.
    let even = analyze(&result(vec![
        copy("aligned", 2000.0),
        copy("dst+16", 2500.0),
    ]));
    assert_eq!(even.findings.len(), 2, "{:?}", even.findings);
    assert!(even.findings[1].starts_with(HEAD), "{}", even.findings[1]);
    assert!(
        !even.findings[1].contains("odd but real"),
        "{}",
        even.findings[1]
    );
}

const HEAD: &str = "a 64 KiB memcpy with the destination 16 bytes past the source's page offset (where two malloc'd neighbours land) against one page-aligned: ";

/// Issue 39 item 9: a flagged copy keeps every finding, quoted with its
/// mark, no rate and no verdict drawn from it.
#[test]
fn a_flagged_copy_keeps_its_findings_and_draws_nothing() {
    let settled = analyze(&result(vec![
        copy("aligned", 2000.0),
        copy("dst+16", 9000.0),
    ]));
    let flagged = analyze(&result(vec![
        copy("aligned", 2000.0),
        unsettled(copy("dst+16", 9000.0)),
    ]));
    assert_eq!(flagged.findings.len(), settled.findings.len());
    let heads = |f: &[String]| {
        f.iter()
            .map(|x| x.split(':').next().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(heads(&flagged.findings), heads(&settled.findings));
    let f = &flagged.findings;
    assert!(
        f[0].contains("dst+16 9.00 µs") && f[0].contains("! (two modes"),
        "{}",
        f[0]
    );
    assert!(f[0].contains("(unstable: no rate drawn)"), "{}", f[0]);
    assert!(f[1].starts_with(HEAD), "{}", f[1]);
    assert!(
        f[1].contains("not told apart here: a figure did not settle"),
        "{}",
        f[1]
    );
    assert!(
        !f[1].contains("odd but real") && !f[1].contains("slower"),
        "{}",
        f[1]
    );
}
