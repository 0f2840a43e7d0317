use super::*;
use crate::experiments::testing::{metric, result};

fn at(threads: &str) -> [(&'static str, &str); 3] {
    [
        ("variant", DEFAULT.name),
        ("threads", threads),
        ("stack", "8 MiB"),
    ]
}

#[test]
fn the_variants_table_names_the_param_and_the_stacks() {
    assert_eq!(names(VARIANTS), ["default", "small", "touch"]);
    assert_eq!(stack_and_touch("default", 65_536, 409_600), (None, 0));
    assert_eq!(stack_and_touch("small", 65_536, 409_600), (Some(65_536), 0));
    assert_eq!(stack_and_touch("touch", 65_536, 409_600), (None, 409_600));
}

#[test]
fn the_headline_speaks_of_the_largest_count() {
    let r = result(vec![
        metric("virt_per_thread_kib", &at("500"), &[9_000.0]),
        metric("rss_exact_per_thread_kib", &at("500"), &[20.0]),
        metric("virt_per_thread_kib", &at("1000"), &[8_196.0]),
        metric("rss_exact_per_thread_kib", &at("1000"), &[12.0]),
        metric("kernel_stack_per_thread_kib", &at("1000"), &[16.0]),
    ]);
    assert_eq!(
        analyze(&r).headlines,
        [
            "a blocked thread with the 8 MiB default stack reserves 8,196 KiB of address space \
          but keeps 12 KiB resident, plus 16 KiB of kernel stack (1000 threads)"
        ]
    );
}

#[test]
fn resident_growth_on_a_line_is_a_per_thread_cost() {
    let r = result(
        [("500", 5_000.0), ("1000", 10_000.0), ("2000", 20_000.0)]
            .into_iter()
            .map(|(n, kib)| metric("rss_exact_growth_kib", &at(n), &[kib]))
            .collect(),
    );
    let a = analyze(&r);
    assert_eq!(a.fits.len(), 1);
    assert!(
        a.findings
            .iter()
            .any(|f| f.starts_with("each further thread adds 10 KiB default resident")),
        "{:?}",
        a.findings
    );
}
