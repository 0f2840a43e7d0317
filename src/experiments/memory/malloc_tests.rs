use super::*;
use crate::experiments::testing::{metric, result};

#[test]
fn the_touch_not_the_malloc_makes_memory_resident() {
    let at = |stage| [("stage", stage), ("size", "400 MiB")];
    let r = result(vec![
        metric("vm_growth_kib", &at("after_malloc"), &[409_604.0]),
        metric("rss_growth_kib", &at("after_malloc"), &[100.0]),
        metric("vm_growth_kib", &at("after_touch"), &[409_604.0]),
        metric("rss_growth_kib", &at("after_touch"), &[409_600.0]),
    ]);
    let a = analyze(&r);
    assert_eq!(a.findings.len(), 1, "{a:?}");
    assert!(
        a.findings[0].starts_with(
            "malloc of 400 MiB grew VmSize by 409,604 KiB but VmRSS by only 100 KiB; \
             writing every element then added 409,600 KiB of resident memory (100% of the size) \
             and 0 KiB of VmSize"
        ),
        "{}",
        a.findings[0]
    );
}

#[test]
fn nothing_measured_nothing_found() {
    assert_eq!(analyze(&result(vec![])), Analysis::default());
}
