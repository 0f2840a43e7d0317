use super::*;
use std::os::unix::fs::symlink;

#[test]
fn a_planted_link_is_replaced_not_followed() {
    let d = tempfile::tempdir().unwrap();
    let victim = d.path().join("victim");
    std::fs::write(&victim, b"precious").unwrap();
    let out = d.path().join("out");
    std::fs::create_dir(&out).unwrap();
    symlink(&victim, out.join("report.html")).unwrap();
    let o = OutDir::open(&out, Trust::Default).unwrap();
    o.write("report.html", b"new").unwrap();
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    let md = std::fs::symlink_metadata(out.join("report.html")).unwrap();
    assert!(md.file_type().is_file());
    assert_eq!(std::fs::read(out.join("report.html")).unwrap(), b"new");
    // only the one file: no temporary file left
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 1);
}

#[test]
fn a_default_folder_that_is_a_link_or_open_to_all_is_refused_unless_named() {
    let d = tempfile::tempdir().unwrap();
    let real = d.path().join("real");
    std::fs::create_dir(&real).unwrap();
    let link = d.path().join("link");
    symlink(&real, &link).unwrap();
    let e = OutDir::open(&link, Trust::Default).unwrap_err();
    assert!(e.contains("symbolic link") && e.contains("--out"), "{e}");
    assert!(OutDir::open(&link, Trust::Explicit).is_ok());
    std::fs::set_permissions(&real, Permissions::from_mode(0o777)).unwrap();
    let e = OutDir::open(&real, Trust::Default).unwrap_err();
    assert!(e.contains("every user"), "{e}");
    std::fs::set_permissions(&real, Permissions::from_mode(0o1777)).unwrap();
    assert!(
        OutDir::open(&real, Trust::Default).is_ok(),
        "sticky is fine"
    );
}

#[test]
fn the_temporary_files_of_a_killed_run_are_swept_and_nothing_else() {
    let d = tempfile::tempdir().unwrap();
    for name in [".report.html.aB3dE9.tmp", ".results.json.000000.tmp"] {
        std::fs::write(d.path().join(name), b"half").unwrap();
    }
    for name in ["notes.tmp", ".x.tmp", ".report.html.tmp", "report.html"] {
        std::fs::write(d.path().join(name), b"keep").unwrap();
    }
    let o = OutDir::open(d.path(), Trust::Default).unwrap();
    let t = o.temp("report.md").unwrap();
    assert!(is_temporary_name(
        t.path().file_name().unwrap().to_str().unwrap()
    ));
    drop(t);
    assert_eq!(o.sweep(), 2);
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 4);
}

#[test]
fn a_second_lock_on_a_folder_is_refused_while_the_first_is_held() {
    let d = tempfile::tempdir().unwrap();
    let a = OutDir::open(d.path(), Trust::Default).unwrap();
    a.lock().unwrap();
    let b = OutDir::open(d.path(), Trust::Default).unwrap();
    let e = b.lock().unwrap_err();
    assert!(e.contains("another tasklab"), "{e}");
    drop(a);
    b.lock().unwrap();
}

#[test]
fn file_destinations_are_checked_and_named() {
    let d = tempfile::tempdir().unwrap();
    let e = check_file_dest(d.path()).unwrap_err();
    assert!(e.contains("is a folder"), "{e}");
    let e = check_file_dest(&d.path().join("no/such.json")).unwrap_err();
    assert!(e.contains("does not exist"), "{e}");
    let e = check_file_dest(Path::new("/dev/null")).unwrap_err();
    assert!(e.contains("a device"), "{e}");
    check_file_dest(&d.path().join("r.json")).unwrap();
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    write_file(&d.path().join("r.json"), b"{}").unwrap();
    assert_eq!(std::fs::read(d.path().join("r.json")).unwrap(), b"{}");
}

#[test]
fn reading_refuses_what_is_not_a_small_regular_file() {
    let d = tempfile::tempdir().unwrap();
    let e = read_bounded(d.path(), 100).unwrap_err();
    assert!(e.contains("a folder"), "{e}");
    let e = read_bounded(Path::new("/dev/zero"), 100).unwrap_err();
    assert!(e.contains("a device"), "{e}");
    let f = d.path().join("big");
    std::fs::write(&f, [0u8; 101]).unwrap();
    let e = read_bounded(&f, 100).unwrap_err();
    assert!(e.contains("over"), "{e}");
    assert_eq!(read_bounded(&f, 101).unwrap().len(), 101);
}
