use super::*;
use crate::experiments::testing::{metric, result};

fn lifecycle(method: &str, heap_bytes: u64, thp: &str, ns: f64) -> Metric {
    metric(
        "lifecycle_ns",
        &[
            ("method", method),
            ("heap", &fmt_size(heap_bytes)),
            ("heap_bytes", &heap_bytes.to_string()),
            ("thp", thp),
        ],
        &[ns, ns, ns],
    )
}

#[test]
fn fork_is_compared_with_a_thread_at_the_smallest_heap_that_is_not_empty() {
    let mib = 1u64 << 20;
    let r = result(vec![
        lifecycle("fork", 0, "off", 50e3),
        lifecycle("fork", 2 * mib, "off", 60e3),
        lifecycle("fork", 100 * mib, "off", 160e3),
        lifecycle("fork", 100 * mib, "on", 70e3),
        lifecycle("pthread_create", 0, "off", 10e3),
        lifecycle("pthread_create", 2 * mib, "off", 10e3),
    ]);
    let s = fork_vs_thread(&r).unwrap();
    assert!(
        s.starts_with("fork is 6.0x slower than a thread at a 2 MiB heap"),
        "{s}"
    );
    assert!(s.contains("a thread does not grow"), "{s}");
    let a = analyze(&r);
    assert!(
        a.findings
            .iter()
            .any(|f| f.starts_with("at a 2 MiB heap fork costs 60.0 µs")),
        "{:?}",
        a.findings
    );
    assert!(
        a.findings
            .iter()
            .any(|f| f.starts_with("on transparent huge pages")),
        "{:?}",
        a.findings
    );
}

#[test]
fn posix_spawn_is_put_against_fork_exec_at_the_largest_heap() {
    let gib = 1u64 << 30;
    let r = result(vec![
        lifecycle("posix_spawn", 0, "off", 100e3),
        lifecycle("posix_spawn", gib, "off", 100e3),
        lifecycle("fork_exec_static", gib, "off", 3e6),
    ]);
    let s = program_start(&r).unwrap();
    assert!(
        s.starts_with("to start a program from a process with a 1 GiB heap"),
        "{s}"
    );
    assert!(s.contains("(30x)"), "{s}");
}

#[test]
fn only_methods_of_the_table_are_measured_on_huge_pages() {
    for name in THP_METHODS {
        assert!(table::method(name).is_some(), "{name}");
    }
}

#[test]
fn the_heap_room_is_the_tightest_of_memory_address_space_and_cgroup() {
    let gib = 1u64 << 30;
    let mut env = Env::read_from(
        std::path::Path::new("/nonexistent-root"),
        String::new(),
        String::new(),
    );
    env.mem_total_bytes = 16 * gib;
    let (room, why) = heap_room(&env, 8 * gib);
    assert!(room < 8 * gib && why.contains("available"), "{why}");
    env.limits.rlimit_as = Some(2 * gib);
    let (room, why) = heap_room(&env, 8 * gib);
    assert!(room < 2 * gib && why.contains("RLIMIT_AS"), "{why}");
    env.limits.cgroup_memory_max = Some(gib);
    let (room, why) = heap_room(&env, 8 * gib);
    assert!(room < gib && why.contains("cgroup"), "{why}");
}

/// Measured: fork copies page tables only for touched pages, so a heap
/// mapped and never written forks faster than the same heap touched.
#[test]
fn an_untouched_heap_forks_faster_than_a_touched_one_of_the_same_size() {
    let fork_ns = |_alive: &sys::Heap| {
        let mut v: Vec<f64> = (0..7)
            .map(|_| {
                let t0 = sys::monotonic_ns();
                let c = sys::forkwork::fork_exit().unwrap();
                let dt = (sys::monotonic_ns() - t0) as f64;
                c.wait().unwrap();
                dt
            })
            .collect();
        v.sort_by(f64::total_cmp);
        v[3]
    };
    let len = 256 << 20;
    let untouched = sys::Heap::untouched(len, sys::Thp::Off).unwrap();
    let untouched_ns = fork_ns(&untouched);
    drop(untouched);
    let touched = sys::Heap::touched(len, sys::Thp::Off).unwrap();
    let touched_ns = fork_ns(&touched);
    assert!(
        untouched_ns < touched_ns,
        "untouched {untouched_ns} ns, touched {touched_ns} ns"
    );
}

#[test]
fn the_untouched_heap_is_set_beside_the_touched_one_and_the_seed() {
    let gib = 1u64 << 30;
    let fork = |name: &str, heap_bytes: u64, ns: f64| {
        metric(
            name,
            &[
                ("method", "fork"),
                ("heap", &fmt_size(heap_bytes)),
                ("heap_bytes", &heap_bytes.to_string()),
                ("thp", BASE_THP),
            ],
            &[ns * 0.99, ns, ns * 1.01, ns, ns, ns * 1.02, ns * 0.98],
        )
    };
    let r = result(vec![
        fork("parent_return_ns", 4 * gib, 30e6),
        fork("untouched_parent_return_ns", 2 << 20, 90e3),
        fork("untouched_parent_return_ns", 4 * gib, 100e3),
    ]);
    let f = untouched::finding(&r, BASE_THP);
    assert_eq!(f.len(), 2, "{f:?}");
    assert!(f[0].starts_with("an untouched 4 GiB heap"), "{}", f[0]);
    assert!(f[0].contains("300.0x faster"), "{}", f[0]);
    assert!(f[1].contains("matches the touched heap"), "{}", f[1]);
}
