use super::*;

const MOUNTINFO: &str = "\
22 1 0:21 / / rw,relatime - ext4 /dev/vda rw
30 22 0:26 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
31 30 0:27 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
40 30 0:35 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
";

#[test]
fn a_hybrid_hosts_v2_cgroup_is_found_below_its_mount() {
    let own = "4:memory:/sandbox/x\n1:cpu:/\n0::/work/a b\n";
    assert_eq!(
        locate(MOUNTINFO, own),
        Ok(PathBuf::from("/sys/fs/cgroup/unified/work/a b"))
    );
    assert_eq!(
        locate(MOUNTINFO, "0::/\n"),
        Ok(PathBuf::from("/sys/fs/cgroup/unified"))
    );
}

#[test]
fn perf_event_on_v1_or_no_v2_is_refused_in_words() {
    let v1 = "5:perf_event:/\n0::/\n";
    assert!(locate(MOUNTINFO, v1).unwrap_err().contains("perf_event"));
    let none = "4:memory:/\n";
    assert!(locate(MOUNTINFO, none).unwrap_err().contains("v2"));
    let unmounted = "22 1 0:21 / / rw - ext4 /dev/vda rw\n";
    assert!(locate(unmounted, "0::/\n").unwrap_err().contains("cgroup2"));
    // A bind mount of a sub-tree is not the hierarchy's root.
    let sub = "40 30 0:35 /x /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
    assert!(locate(sub, "0::/\n").is_err());
    assert!(locate(MOUNTINFO, "0::/../other\n").is_err());
}

#[test]
fn mountinfo_escapes_are_undone() {
    assert_eq!(unescape(r"/mnt/cg\040two"), "/mnt/cg two");
    assert_eq!(unescape(r"/a\\b"), r"/a\\b");
    let info = "40 30 0:35 / /mnt/c\\040g rw - cgroup2 cgroup2 rw\n";
    assert_eq!(locate(info, "0::/\n"), Ok(PathBuf::from("/mnt/c g")));
}

/// A parent that hands controllers down would give the worker's cgroup
/// its own memory and CPU accounting: refused, in words; none handed, made.
#[test]
fn a_parent_handing_controllers_down_is_refused() {
    let home = Path::new("/sys/fs/cgroup");
    assert!(hands_none(home, "").is_ok());
    assert!(hands_none(home, "\n").is_ok());
    let why = hands_none(home, "cpu memory\n").unwrap_err();
    assert!(why.contains("(cpu memory)"), "{why}");
}

/// The sweep removes a worker's cgroup only when its pid is gone: never a
/// live run's (being made, or its probe), never another name.
#[test]
fn only_a_gone_pids_cgroup_is_swept() {
    let alive = |pid: &str| pid == "42";
    assert!(stale("tasklab-why-7", alive));
    assert!(stale("tasklab-why-7-probe", alive));
    assert!(!stale("tasklab-why-42", alive));
    assert!(!stale("tasklab-why-42-probe", alive));
    assert!(!stale("tasklab-why-", alive));
    assert!(!stale("user.slice", alive));
}
