use super::*;

/// Root in a container: no CAP_SYS_PTRACE, confined by docker-default.
fn container_root() -> Facts {
    Facts {
        euid: 0,
        owner: Some(0),
        cap_sys_ptrace: Some(false),
        hidepid: None,
        user_namespace: false,
        lsm: None,
        ptrace_scope: Some(1),
    }
}

#[test]
fn another_users_process_says_whose_it_is_and_what_to_do() {
    let f = Facts {
        euid: 1000,
        owner: Some(0),
        cap_sys_ptrace: Some(false),
        ..Facts::default()
    };
    let m = cause(1, "memory map (smaps_rollup)", &f);
    assert!(m.starts_with("--pid 1: permission denied reading its memory map (smaps_rollup): it belongs to uid 0 and this is uid 1000"), "{m}");
    assert!(m.contains("as the process's user, or as root"), "{m}");
    let hidden = cause(
        1,
        "mappings",
        &Facts {
            hidepid: Some("1".into()),
            ..f
        },
    );
    assert!(hidden.contains("hidepid=1"), "{hidden}");
}

#[test]
fn root_without_cap_sys_ptrace_is_named_not_ownership() {
    let m = cause(1, "memory map (smaps_rollup)", &container_root());
    assert!(m.contains("root without CAP_SYS_PTRACE"), "{m}");
    assert!(m.contains("--cap-add SYS_PTRACE"), "{m}");
    assert!(!m.contains("as the process's user"), "{m}");
    // Yama restricts attaching, not reading: never the cause.
    assert!(!m.contains("Yama"), "{m}");
}

#[test]
fn a_process_outside_the_user_namespace_is_named_so() {
    let f = Facts {
        owner: Some(OVERFLOW_UID),
        user_namespace: true,
        cap_sys_ptrace: Some(true),
        ..container_root()
    };
    let m = cause(1, "file descriptors (fd)", &f);
    assert!(m.contains("outside this user namespace"), "{m}");
    assert!(m.contains("uid 65534"), "{m}");
}

#[test]
fn a_security_module_profile_is_named_when_root_has_the_capability() {
    let f = Facts {
        cap_sys_ptrace: Some(true),
        lsm: Some("docker-default (enforce)".into()),
        ..container_root()
    };
    let m = cause(1, "mappings (maps)", &f);
    assert!(m.contains("profile docker-default (enforce)"), "{m}");
    assert!(m.contains("apparmor=unconfined"), "{m}");
    // With nothing seen to forbid it, it says so, and rules Yama out.
    let none = cause(1, "mappings (maps)", &Facts { lsm: None, ..f });
    assert!(
        none.contains("nothing this tool can see forbids it"),
        "{none}"
    );
    assert!(none.contains("limits attaching, not reading"), "{none}");
}

#[test]
fn the_facts_are_parsed_from_proc_texts() {
    assert_eq!(
        cap_eff("Name:\tx\nCapEff:\t000001fffeffffff\n"),
        Some(0x1fffeffffff)
    );
    assert_eq!(
        cap_eff("CapEff:\t00000000a80425fb\n").map(|c| c >> CAP_SYS_PTRACE & 1),
        Some(0)
    );
    let mounts =
        "sysfs /sys sysfs rw 0 0\nproc /proc proc rw,nosuid,relatime,hidepid=invisible 0 0\n";
    assert_eq!(hidepid(mounts).as_deref(), Some("invisible"));
    assert_eq!(hidepid("proc /proc proc rw,hidepid=0 0 0\n"), None);
    assert_eq!(hidepid("proc /proc proc rw,relatime 0 0\n"), None);
    assert!(initial_uid_map("         0          0 4294967295\n"));
    assert!(!initial_uid_map("         0     100000      65536\n"));
    assert_eq!(confinement("unconfined\n"), None);
    assert_eq!(
        confinement("docker-default (enforce)\n").as_deref(),
        Some("docker-default (enforce)")
    );
    assert_eq!(confinement("\0"), None);
}

#[test]
fn a_process_hidden_by_hidepid_is_not_called_gone() {
    let f = Facts {
        euid: 1000,
        hidepid: Some("2".into()),
        ..Facts::default()
    };
    assert!(not_found(1, &f).contains("hidepid=2"));
    assert!(not_found(1, &Facts::default()).contains("no such process (it may have exited)"));
}

#[test]
fn the_facts_of_this_process_about_itself_read_without_error() {
    let me = std::process::id();
    let f = Facts::read(Path::new("/"), me);
    assert_eq!(f.owner, Some(f.euid), "{f:?}");
    assert!(f.cap_sys_ptrace.is_some(), "{f:?}");
}
