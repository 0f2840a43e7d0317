use super::*;
use std::os::unix::fs::PermissionsExt;

fn set_mode(p: &Path, mode: u32) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn a_missing_private_folder_is_made_with_mode_0700() {
    let t = tempfile::tempdir().unwrap();
    let d = private_dir(&t.path().join("a/b"), Path::new("c/d")).unwrap();
    assert!(d.ends_with("a/b/c/d"));
    for p in [t.path().join("a"), t.path().join("a/b/c"), d.clone()] {
        let m = std::fs::symlink_metadata(&p).unwrap();
        assert!(m.is_dir());
        assert_eq!(m.mode() & 0o777, 0o700, "{}", p.display());
    }
    // A second look at the same folder finds it as it left it.
    assert_eq!(
        private_dir(&t.path().join("a/b"), Path::new("c/d")).unwrap(),
        d
    );
}

#[test]
fn a_root_reached_through_a_link_is_resolved() {
    let t = tempfile::tempdir().unwrap();
    std::fs::create_dir(t.path().join("real")).unwrap();
    std::os::unix::fs::symlink(t.path().join("real"), t.path().join("link")).unwrap();
    let d = private_dir(&t.path().join("link"), Path::new("x")).unwrap();
    assert_eq!(d, std::fs::canonicalize(t.path()).unwrap().join("real/x"));
}

#[test]
fn a_link_below_the_root_is_refused() {
    let t = tempfile::tempdir().unwrap();
    std::fs::create_dir(t.path().join("real")).unwrap();
    std::os::unix::fs::symlink(t.path().join("real"), t.path().join("x")).unwrap();
    let e = private_dir(t.path(), Path::new("x")).unwrap_err();
    assert!(e.contains("symbolic link"), "{e}");
}

#[test]
fn a_folder_others_can_write_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let x = t.path().join("x");
    std::fs::create_dir(&x).unwrap();
    set_mode(&x, 0o770);
    let e = private_dir(t.path(), Path::new("x")).unwrap_err();
    assert!(e.contains("group or by others"), "{e}");
    // Above the private folder too, unless it is sticky like /tmp.
    set_mode(&x, 0o777);
    let e = private_dir(&x, Path::new("y")).unwrap_err();
    assert!(e.contains("group or by others"), "{e}");
    set_mode(&x, 0o1777);
    private_dir(&x, Path::new("y")).unwrap();
}

#[test]
fn a_relative_or_climbing_path_is_refused() {
    let t = tempfile::tempdir().unwrap();
    assert!(private_dir(Path::new("rel"), Path::new("x")).is_err());
    assert!(private_dir(t.path(), Path::new("../x")).is_err());
}

#[test]
fn a_private_file_opens_and_others_are_refused() {
    let t = tempfile::tempdir().unwrap();
    let f = t.path().join("f");
    std::fs::write(&f, b"x").unwrap();
    set_mode(&f, 0o600);
    open_private_file(&f).unwrap();
    set_mode(&f, 0o620);
    let e = open_private_file(&f).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::PermissionDenied, "{e}");
    set_mode(&f, 0o600);
    let l = t.path().join("l");
    std::os::unix::fs::symlink(&f, &l).unwrap();
    let e = open_private_file(&l).unwrap_err();
    assert!(e.to_string().contains("symbolic link"), "{e}");
    let e = open_private_file(t.path()).unwrap_err();
    assert!(e.to_string().contains("not a regular file"), "{e}");
    let e = open_private_file(&t.path().join("none")).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::NotFound);
}

#[test]
fn a_link_of_another_user_on_the_way_is_refused() {
    if super::super::effective_uid() != 0 {
        eprintln!("skipped: needs root to give a link to another user");
        return;
    }
    let t = tempfile::tempdir().unwrap();
    std::fs::create_dir(t.path().join("real")).unwrap();
    let link = t.path().join("link");
    std::os::unix::fs::symlink(t.path().join("real"), &link).unwrap();
    // Root's own link is followed (and the resolved path used).
    assert_eq!(
        trusted_dir(&link).unwrap(),
        std::fs::canonicalize(t.path().join("real")).unwrap()
    );
    std::os::unix::fs::lchown(&link, Some(65534), Some(65534)).unwrap();
    let e = trusted_dir(&link).unwrap_err();
    assert!(e.contains("symbolic link owned by uid 65534"), "{e}");
    let e = trusted_dir(&link.join("sub")).unwrap_err();
    assert!(e.contains("symbolic link owned by uid 65534"), "{e}");
}
