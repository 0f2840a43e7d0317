use super::*;

#[test]
fn each_limit_too_low_for_a_run_is_named() {
    assert_eq!(Room::default().problem(), None);
    let low = |r: Room| r.problem().unwrap_or_default();
    let files = low(Room {
        nofile: Some(8),
        ..Room::default()
    });
    assert!(
        files.starts_with("RLIMIT_NOFILE allows 8 open files"),
        "{files}"
    );
    assert_eq!(
        Room {
            nofile: Some(MIN_NOFILE),
            ..Room::default()
        }
        .problem(),
        None
    );
    let tasks = low(Room {
        nproc: Some((50, 45)),
        ..Room::default()
    });
    assert!(
        tasks.contains("RLIMIT_NPROC allows this user 50 tasks and 45 are running, so 5 are free"),
        "{tasks}"
    );
    let pids = low(Room {
        pids: Some((20, 19)),
        ..Room::default()
    });
    assert!(
        pids.contains("pids.max allows 20 tasks and 19 are in it"),
        "{pids}"
    );
    // Room enough.
    assert_eq!(
        Room {
            nproc: Some((4096, 100)),
            pids: Some((1000, 10)),
            address_space: Some(1 << 30),
            nofile: Some(1024),
        }
        .problem(),
        None
    );
}

#[test]
fn the_cgroups_pids_are_read_from_its_own_folder() {
    let d = tempfile::tempdir().unwrap();
    let put = |p: &str, text: &str| {
        let path = d.path().join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    // v2: the unified line.
    put("proc/self/cgroup", "0::/user.slice/s.scope\n");
    put("sys/fs/cgroup/user.slice/s.scope/pids.max", "64\n");
    put("sys/fs/cgroup/user.slice/s.scope/pids.current", "9\n");
    assert_eq!(cgroup_pids(d.path()), Some((64, 9)));
    // No limit.
    put("sys/fs/cgroup/user.slice/s.scope/pids.max", "max\n");
    assert_eq!(cgroup_pids(d.path()), None);
    // v1: the pids hierarchy.
    put("proc/self/cgroup", "8:pids:/a\n4:memory:/b\n");
    put("sys/fs/cgroup/pids/a/pids.max", "30\n");
    put("sys/fs/cgroup/pids/a/pids.current", "2\n");
    assert_eq!(cgroup_pids(d.path()), Some((30, 2)));
}
