use super::*;
use std::os::unix::fs::PermissionsExt;

#[test]
fn scratch_is_private_and_holds_the_helpers() {
    let s = Scratch::new().unwrap();
    let mode = std::fs::metadata(s.path()).unwrap().permissions().mode();
    assert_eq!(
        mode & 0o077,
        0,
        "scratch dir must not be readable by others"
    );
    let p = helper(s.path(), STATIC_NAME).unwrap();
    let out = std::process::Command::new(&p).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "hello, world\n");
    let path = s.path().to_path_buf();
    drop(s);
    assert!(!path.exists(), "scratch dir is removed at the end");
}

#[test]
fn a_scratch_dir_names_its_owner() {
    let parent = tempfile::tempdir().unwrap();
    let s = Scratch::new_in(parent.path()).unwrap();
    let name = s.path().file_name().unwrap().to_str().unwrap();
    assert!(is_scratch_name(name), "{name}");
    let owner = read_owner(&s.path().join(OWNER_FILE)).unwrap();
    assert_eq!(owner, Owner::me());
    assert!(!owner.is_dead(&sys::procfs::pid_namespace().unwrap()));
}

/// A pid that no process has: one of a child that was reaped.
fn dead_pid() -> i32 {
    let mut c = std::process::Command::new("true").spawn().unwrap();
    c.wait().unwrap();
    c.id() as i32
}

fn plant(parent: &Path, name: &str, owner: Option<&str>) -> PathBuf {
    let d = parent.join(name);
    std::fs::create_dir(&d).unwrap();
    std::fs::write(d.join("hello_static"), b"x").unwrap();
    if let Some(o) = owner {
        std::fs::write(d.join(OWNER_FILE), o).unwrap();
    }
    d
}

#[test]
fn only_the_scratch_dirs_of_dead_runs_are_removed() {
    let parent = tempfile::tempdir().unwrap();
    let p = parent.path();
    let ns = sys::procfs::pid_namespace().unwrap();
    let me = Owner::me();
    let dead = dead_pid();
    let stale = plant(p, "tasklab-dead01", Some(&format!("{dead} 5 {ns}\n")));
    let reused = plant(
        p,
        "tasklab-reuse1",
        Some(&format!("{} {} {ns}", me.pid, me.start_ticks + 1)),
    );
    let live = plant(p, "tasklab-alive1", Some(&me.to_line()));
    let other_ns = plant(p, "tasklab-ns0001", Some(&format!("{dead} 5 pid:[1]")));
    let no_owner = plant(p, "tasklab-nopid1", None);
    let garbled = plant(p, "tasklab-garbl1", Some("12 x"));
    let not_ours = plant(p, "tasklab-toolong", Some(&format!("{dead} 5 {ns}")));
    let file = p.join("tasklab-file01");
    std::fs::write(&file, format!("{dead} 5 {ns}")).unwrap();
    // a link to a stale directory is not followed, nor removed
    let target = plant(p, "elsewhere", Some(&format!("{dead} 5 {ns}")));
    let link = p.join("tasklab-link01");
    std::os::unix::fs::symlink(&target, &link).unwrap();

    let mut removed = remove_stale(p);
    removed.sort();
    let mut want = vec![stale.clone(), reused.clone()];
    want.sort();
    assert_eq!(removed, want);
    assert!(!stale.exists() && !reused.exists());
    for kept in [
        &live, &other_ns, &no_owner, &garbled, &not_ours, &file, &target,
    ] {
        assert!(kept.exists(), "{} was removed", kept.display());
    }
    assert!(link.symlink_metadata().is_ok());
}

#[test]
fn a_new_scratch_dir_clears_the_stale_ones() {
    let parent = tempfile::tempdir().unwrap();
    let ns = sys::procfs::pid_namespace().unwrap();
    let stale = plant(
        parent.path(),
        "tasklab-dead02",
        Some(&format!("{} 5 {ns}", dead_pid())),
    );
    let s = Scratch::new_in(parent.path()).unwrap();
    assert!(!stale.exists());
    assert!(s.path().exists());
}

#[test]
fn a_helper_is_refused_unless_its_folder_and_file_are_private() {
    let parent = tempfile::tempdir().unwrap();
    let s = Scratch::new_in(parent.path()).unwrap();
    if helper(s.path(), STATIC_NAME).is_err() {
        eprintln!("skipped: the tiny static program was not built");
        return;
    }
    let set = |p: &Path, mode: u32| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap()
    };
    // The scratch folder others can write (or rename entries in).
    set(s.path(), 0o770);
    let e = helper(s.path(), STATIC_NAME).unwrap_err().to_string();
    assert!(
        e.contains("is not run") && e.contains("group or by others"),
        "{e}"
    );
    set(s.path(), 0o700);
    // The folder above it writable by others, not sticky.
    set(parent.path(), 0o777);
    let e = helper(s.path(), STATIC_NAME).unwrap_err().to_string();
    assert!(e.contains("group or by others"), "{e}");
    set(parent.path(), 0o1777);
    helper(s.path(), STATIC_NAME).unwrap();
    set(parent.path(), 0o700);
    // The program writable by others, or swapped for a link.
    let p = s.path().join(STATIC_NAME);
    set(&p, 0o722);
    let e = helper(s.path(), STATIC_NAME).unwrap_err().to_string();
    assert!(e.contains("group or by others"), "{e}");
    std::fs::remove_file(&p).unwrap();
    std::os::unix::fs::symlink("/bin/true", &p).unwrap();
    let e = helper(s.path(), STATIC_NAME).unwrap_err().to_string();
    assert!(e.contains("symbolic link"), "{e}");
    // A scratch folder reached through a link is not the private one.
    let link = parent.path().join("link");
    std::os::unix::fs::symlink(s.path(), &link).unwrap();
    let e = helper(&link, DYNAMIC_NAME).unwrap_err().to_string();
    assert!(e.contains("symbolic link"), "{e}");
}

#[test]
fn a_temporary_folder_is_a_scratch_dir_without_helpers() {
    let s = Scratch::temporary().unwrap();
    let name = s.path().file_name().unwrap().to_str().unwrap();
    assert!(is_scratch_name(name), "{name}");
    assert!(read_owner(&s.path().join(OWNER_FILE)).is_some());
    assert!(!s.path().join(STATIC_NAME).exists());
    let mode = std::fs::metadata(s.path()).unwrap().permissions().mode();
    assert_eq!(mode & 0o077, 0);
}
