use super::*;

fn assert_unique(names: &[&str]) {
    for (i, n) in names.iter().enumerate() {
        assert!(!names[..i].contains(n), "{n} twice");
    }
}

#[test]
fn the_choice_columns_are_the_rows_in_order() {
    let rows: Vec<Choice> = METHODS.iter().map(|m| m.choice).collect();
    assert_eq!(METHOD_CHOICES, rows.as_slice());
    let rows: Vec<Choice> = PLACEMENTS.iter().map(|p| p.choice).collect();
    assert_eq!(PLACEMENT_CHOICES, rows.as_slice());
    let rows: Vec<Choice> = VARIANTS.iter().map(|v| v.choice).collect();
    assert_eq!(VARIANT_CHOICES, rows.as_slice());
}

#[test]
fn names_are_unique_and_found_by_name() {
    for table in [METHOD_CHOICES, PLACEMENT_CHOICES, VARIANT_CHOICES] {
        assert_unique(&names(table));
    }
    for m in METHODS {
        assert_eq!(find(METHODS, m.name()).map(Method::name), Some(m.name()));
    }
    for p in PLACEMENTS {
        assert_eq!(find(PLACEMENTS, p.name()).map(|p| p.name()), Some(p.name()));
    }
    for v in VARIANTS {
        assert_eq!(find(VARIANTS, v.name()).map(|v| v.name()), Some(v.name()));
    }
    assert!(find(METHODS, "nope").is_none());
}

#[test]
fn the_names_are_the_published_ones() {
    // `-p` values and result labels: renaming one breaks saved commands and
    // comparisons with older results.
    assert_eq!(
        names(METHOD_CHOICES),
        [
            "pipe_threads",
            "pipe_processes",
            "futex_threads",
            "futex_processes",
            "condvar",
            "sched_yield"
        ]
    );
    assert_eq!(
        names(PLACEMENT_CHOICES),
        ["same_cpu", "two_cpus", "two_cpus_awake", "unpinned"]
    );
    assert_eq!(
        names(VARIANT_CHOICES),
        [
            "coroutine",
            "async",
            "kernel_pipe",
            "go_default",
            "go_maxprocs1",
            "go_locked"
        ]
    );
}

#[test]
fn only_yielding_is_kept_to_one_cpu_and_only_go_needs_a_toolchain() {
    let one: Vec<&str> = METHODS
        .iter()
        .filter(|m| m.same_cpu_only())
        .map(Method::name)
        .collect();
    assert_eq!(one, ["sched_yield"]);
    for v in VARIANTS {
        assert_eq!(
            matches!(v.switch, UserSwitch::Go(_)),
            !v.choice.needs.is_empty(),
            "{}",
            v.name()
        );
    }
    let two: Vec<&str> = PLACEMENTS
        .iter()
        .filter(|p| p.two_cpus())
        .map(|p| p.name())
        .collect();
    assert_eq!(two, ["two_cpus", "two_cpus_awake"]);
}
