//! End-to-end runs of the spawn group on small parameters, asserting the
//! relations that always hold (never timings). A fork measured here runs
//! in a fresh worker, whose memory no other test changes.

mod common;
use common::*;

/// fork copies every mapping and the child's exit tears each down: with
/// 1,000 extra one-page mappings, fork returns and fork+reap ends later
/// than with none.
#[test]
fn forking_with_a_thousand_extra_mappings_is_slower_than_with_none() {
    let e = run_one(
        "spawn.heap",
        &[
            "heap_sizes=0",
            "methods=fork",
            "thp=false",
            "untouched=false",
            "extra_mappings=1000",
        ],
    );
    for name in ["image_lifecycle_ns", "image_parent_return_ns"] {
        let at = |extra, count| median(&e, name, &[("extra", extra), ("count", count)]);
        let (none, maps) = (at("none", "0"), at("mappings", "1000"));
        assert!(
            none < maps,
            "{name}: {none} ns with none, {maps} ns with 1,000"
        );
    }
    let worker = reading(&e, "image_worker_mappings", &[]);
    assert!(worker["value"].as_f64().unwrap() > 0.0, "{worker}");
}

/// The worker fork measures maps the shared libraries a minimal C program
/// maps and no others: the f64 math comes from inside the binary
/// (src/sys/math_symbols.rs), and, where gcc has a static unwinder, so does
/// the unwinder (build.rs). spawn.methods names any library beyond libc and
/// the loader in a note.
#[test]
fn the_worker_maps_no_shared_library_a_c_program_does_not() {
    let e = run_one("spawn.methods", &["methods=fork"]);
    let notes = notes(&e);
    assert!(
        !notes.contains("libm.so"),
        "the binary calls a C math function src/sys/math_symbols.rs does not define \
         (`nm -D --undefined-only` on it names it): {notes}"
    );
    if option_env!("TASKLAB_STATIC_UNWINDER").is_some() {
        assert!(!notes.contains("beyond the libc and loader"), "{notes}");
    }
    let maps = reading(&e, "worker_mappings", &[]);
    assert!(maps["value"].as_f64().unwrap() > 0.0, "{maps}");
}

/// The relation spawn.cow exists for: on a heap the parent touched, a
/// write while a forked child lives copies the page, so it faults once per
/// page at least and costs more than the same write with no child; parent
/// and child then hold a copy each. Medians over the chunks of writes: a
/// preemption lengthens a chunk or two, never most of them.
#[test]
fn a_cow_write_costs_more_than_the_same_write_with_no_child() {
    let e = run_one(
        "spawn.cow",
        &["heap=16M", "writes=100", "thp=false", "cycles=3"],
    );
    let at = |child| [("pages", "4k"), ("writes", "100%"), ("child", child)];
    let faults = samples(series(&e, "faults_per_page", &at("alive")));
    assert!(
        faults.iter().all(|f| *f >= 1.0),
        "a written page shared with a live child faults: faults per page, {}",
        spread(&faults)
    );
    let alone_faults = median(&e, "faults_per_page", &at("none"));
    assert!(
        alone_faults < median(&e, "faults_per_page", &at("alive")),
        "faults per page with no child {alone_faults}, with one: {}",
        spread(&faults)
    );
    let (cow, alone) = (
        median(&e, "write_ns", &at("alive")),
        median(&e, "write_ns", &at("none")),
    );
    assert!(
        cow > alone,
        "a write with a child alive {cow} ns per page, with none {alone} ns"
    );
    // Every page written gives parent and child a copy each: at least the
    // heap's size of extra memory (less a little for the kernel's rounding).
    let extra = samples(series(&e, "extra_kib", &[("writes", "100%")]));
    assert!(
        extra.iter().all(|k| *k > 0.9 * 16.0 * 1024.0),
        "extra memory after writing all of a 16 MiB heap, KiB: {}",
        spread(&extra)
    );
}

/// fork copies page tables only for touched pages: a heap mapped and never
/// written forks faster than the same heap touched, and has next to no
/// page tables. Warm forks (not the first call), medians over the rounds.
#[test]
fn an_untouched_heap_forks_faster_than_a_touched_one_of_the_same_size() {
    let e = run_one(
        "spawn.heap",
        &[
            "heap_sizes=256M",
            "methods=fork",
            "thp=false",
            "untouched=true",
        ],
    );
    let at = [("method", "fork"), ("heap", "256 MiB")];
    let touched = median_of(series_without(&e, "parent_return_ns", &at, &["call"]));
    let untouched = median(&e, "untouched_parent_return_ns", &at);
    assert!(
        untouched < touched,
        "fork of a 256 MiB heap: untouched {untouched} ns, touched {touched} ns"
    );
}

/// spawn.heap's heap is populated whole before any launch: the worker's
/// VmRSS holds at least the heap, and VmPTE at least its 4 KiB pages'
/// entries (8 bytes each), on 4 KiB pages (thp=system, madvise or never
/// here; a heap the system backs with huge pages needs fewer entries).
#[test]
fn a_populated_heap_is_resident_with_its_page_tables() {
    let e = run_one(
        "spawn.heap",
        &[
            "heap_sizes=64M",
            "methods=pthread_create",
            "thp=false",
            "untouched=false",
            "image=false",
        ],
    );
    let at = [("heap", "64 MiB")];
    let rss_kib = reading_value(&e, "vm_rss_kib", &at);
    assert!(
        rss_kib >= 64.0 * 1024.0,
        "VmRSS {rss_kib} KiB with a 64 MiB heap"
    );
    let thp =
        std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
    if !thp.contains("[always]") {
        let pte_kib = reading_value(&e, "vm_pte_kib", &at);
        assert!(
            pte_kib >= 64.0 * 1024.0 / 4.0 * 8.0 / 1024.0,
            "VmPTE {pte_kib} KiB with a 64 MiB heap on 4 KiB pages"
        );
    }
}
