use super::*;

fn inputs() -> LimitInputs {
    LimitInputs {
        limits: Limits {
            threads_max: Some(192_730),
            pid_max: Some(32_768),
            max_map_count: Some(65_530),
            rlimit_nproc: Some(96_365),
            rlimit_stack: Some(8 << 20),
            rlimit_as: None,
            cgroup_pids_max: None,
            cgroup_memory_max: None,
        },
        tasks_now: Some(116),
        tasks_low_pids: 16,
        own_maps: Some(30),
        own_threads: 1,
        vm_size_bytes: 10 << 20,
        stack_bytes: 8 << 20,
        root: false,
        mem_available_bytes: Some(24 << 30),
    }
}

#[test]
fn pid_max_binds_on_a_default_machine() {
    let b = thread_bounds(&inputs());
    let (name, most, _) = binding(&b).unwrap();
    assert_eq!(*name, "pid_max");
    assert_eq!(*most, 32_768 - 300 - (116 - 16));
    let maps = b.iter().find(|x| x.0 == "vm.max_map_count").unwrap();
    assert_eq!(maps.1, (65_530 - 30) / 2);
}

#[test]
fn root_is_not_bound_by_nproc_and_address_space_binds_with_rlimit_as() {
    let mut i = inputs();
    i.root = true;
    i.limits.rlimit_nproc = Some(10);
    assert!(thread_bounds(&i).iter().all(|b| b.0 != "RLIMIT_NPROC"));
    i.root = false;
    assert_eq!(binding(&thread_bounds(&i)).unwrap().0, "RLIMIT_NPROC");
    i.limits.rlimit_nproc = None;
    i.limits.rlimit_as = Some(1 << 30);
    let b = thread_bounds(&i);
    let (name, most, _) = binding(&b).unwrap();
    assert_eq!(*name, "address space");
    assert_eq!(*most, ((1u64 << 30) - (10 << 20)) / ((8 << 20) + 4096));
}

#[test]
fn every_reason_groups_its_digits() {
    let b = thread_bounds(&inputs());
    let why = |name: &str| b.iter().find(|x| x.0 == name).unwrap().2.clone();
    assert!(
        why("pid_max").starts_with("kernel.pid_max 32,768:"),
        "{}",
        why("pid_max")
    );
    assert!(why("vm.max_map_count").starts_with("vm.max_map_count 65,530,"));
    assert!(why("threads-max").starts_with("kernel.threads-max 192,730,"));
    assert!(why("RLIMIT_NPROC").starts_with("ulimit -u 96,365 "));
    for (_, _, w) in &b {
        assert!(
            !w.split(|c: char| !c.is_ascii_digit()).any(|d| d.len() > 4),
            "a long number without grouping: {w}"
        );
    }
}
