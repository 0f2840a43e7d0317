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
