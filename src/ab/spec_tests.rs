use super::*;

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn every_kind_parses_and_prints_as_written() {
    for t in [
        "param:ns=1050",
        "param:selftest.spin.ns=1050",
        "env:GLIBC_TUNABLES=glibc.malloc.arena_max=1",
        "sysfs:/sys/kernel/mm/transparent_hugepage/enabled=madvise",
        "cpus:0-1",
    ] {
        assert_eq!(Spec::parse(t).unwrap().text(), t);
    }
}

#[test]
fn a_bad_spec_is_refused_with_what_to_give() {
    for (t, says) in [
        ("ns=1050", "no kind"),
        ("thp:always", "unknown kind 'thp'"),
        ("param:=3", "takes param:NAME=VALUE"),
        ("param:ns", "takes param:NAME=VALUE"),
        ("env:1X=2", "not a variable name"),
        ("cpus:", "takes cpus:LIST"),
        ("sysfs:/sys/x", "takes sysfs:PATH=VALUE"),
    ] {
        let e = Spec::parse(t).unwrap_err().0;
        assert!(e.contains(says), "{t}: {e}");
    }
}

#[test]
fn the_sides_must_differ() {
    let e = sides(&strings(&["param:ns=1000"]), &strings(&["param:ns=1000"]))
        .unwrap_err()
        .0;
    assert!(e.contains("on both sides"), "{e}");
    let e = sides(&strings(&["cpus:0", "cpus:1"]), &strings(&["cpus:0-1"]))
        .unwrap_err()
        .0;
    assert!(e.contains("twice"), "{e}");
    let e = sides(&[], &strings(&["cpus:0"])).unwrap_err().0;
    assert!(e.contains("side A has no SPEC"), "{e}");
    assert!(sides(&strings(&["param:ns=1000"]), &strings(&["param:ns=1050"])).is_ok());
}

#[test]
fn a_loader_variable_names_only_files_no_other_user_could_write() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("lib.so");
    std::fs::write(&lib, b"x").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&lib, std::fs::Permissions::from_mode(0o666)).unwrap();
    let spec = Spec::parse(&format!("env:LD_PRELOAD={}", lib.display())).unwrap();
    let e = check_env(&[spec]).unwrap_err().0;
    assert!(e.contains("another user"), "{e}");
    std::fs::set_permissions(&lib, std::fs::Permissions::from_mode(0o644)).unwrap();
    let spec = Spec::parse(&format!("env:LD_PRELOAD={}", lib.display())).unwrap();
    // the temporary folder is sticky or private: the file passes
    assert!(check_env(&[spec]).is_ok());
}

#[test]
fn a_sysfs_path_must_stay_under_sys_or_proc_sys() {
    let root = tempfile::tempdir().unwrap();
    let sys = root.path().join("sys/kernel");
    std::fs::create_dir_all(&sys).unwrap();
    std::fs::write(sys.join("knob"), "1\n").unwrap();
    std::fs::create_dir_all(root.path().join("etc")).unwrap();
    std::fs::write(root.path().join("etc/passwd"), "x\n").unwrap();
    std::os::unix::fs::symlink(root.path().join("etc/passwd"), sys.join("link")).unwrap();
    let ok = Spec::parse("sysfs:/sys/kernel/knob=2").unwrap();
    assert_eq!(
        knobs(&[ok], root.path()).unwrap()[0].path,
        "/sys/kernel/knob"
    );
    for (t, says) in [
        (
            "sysfs:/etc/passwd=x",
            "only a path under /sys/ or /proc/sys/",
        ),
        ("sysfs:/sys/../etc/passwd=x", "only a path under"),
        ("sysfs:/sys/kernel/link=x", "outside /sys and /proc/sys"),
        ("sysfs:/sys/kernel/missing=x", "cannot resolve"),
    ] {
        let e = knobs(&[Spec::parse(t).unwrap()], root.path())
            .unwrap_err()
            .0;
        assert!(e.contains(says), "{t}: {e}");
    }
}
