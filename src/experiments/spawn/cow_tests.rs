use super::*;
use crate::experiments::testing::{metric, result};

#[test]
fn the_written_pages_are_spread_evenly_and_counted_exactly() {
    assert!(written_pages(1000, 0).is_empty());
    assert_eq!(written_pages(1000, 100), (0..1000).collect::<Vec<_>>());
    let ten = written_pages(1000, 10);
    assert_eq!(ten.len(), 100);
    assert!(ten.windows(2).all(|w| w[1] - w[0] == 10), "{ten:?}");
    let one = written_pages(131_072, 1);
    assert_eq!(one.len(), 1310);
    assert!(one.iter().all(|&i| i < 131_072));
}

// The relation the experiment exists for, measured (a write while a forked
// child lives costs more than the same write with no child), is checked
// end to end in tests/spawn.rs, in a worker of its own: here other tests'
// threads fork this process and fault its pages meanwhile, which changes
// both the writes with no child and the fault counts.

fn write(pages: &str, pct: &str, child: &str, ns: f64) -> Metric {
    metric(
        "write_ns",
        &[
            ("pages", pages),
            ("heap", "512 MiB"),
            ("heap_bytes", "536870912"),
            ("writes", pct),
            ("child", child),
        ],
        &[ns * 0.98, ns, ns * 1.02, ns, ns * 0.99, ns * 1.01, ns],
    )
}

#[test]
fn a_difference_is_stated_only_when_the_intervals_separate() {
    let r = result(vec![
        write("4k", "10%", "alive", 1000.0),
        write("4k", "10%", "none", 50.0),
        write("4k", "50%", "alive", 1000.0),
        write("4k", "50%", "none", 1000.0),
    ]);
    let a = analyze(&r);
    let f = a
        .findings
        .iter()
        .find(|f| f.starts_with("4 KiB pages: with the child alive, writing 50%"))
        .expect("the largest share both were measured at");
    assert!(f.contains("indistinguishable here"), "{f}");
    let r = result(vec![
        write("4k", "10%", "alive", 1000.0),
        write("4k", "10%", "none", 50.0),
    ]);
    let a = analyze(&r);
    assert!(
        a.findings
            .iter()
            .any(|f| f.contains("20.0x the same write")),
        "{:?}",
        a.findings
    );
    assert_eq!(a.headlines.len(), 1);
}
