use super::*;

fn r() -> Redactor {
    Redactor::new(Some("build-box.example.org\n"), Some("/srv/users/alice/"))
}

#[test]
fn home_paths_are_taken_out() {
    let r = r();
    assert_eq!(
        r.text("built in /srv/users/alice/.cache/tasklab/go"),
        "built in ~/.cache/tasklab/go"
    );
    assert_eq!(r.text("/home/bob/x and /home/carol"), "~/x and ~");
    assert_eq!(r.text("(/root/.cache)"), "(~/.cache)");
    assert_eq!(r.text("TMPDIR=/root"), "TMPDIR=~");
    // Only a path's start: not /rootfs, not /mnt/home/x, not /srv/users/alice2.
    assert_eq!(r.text("/rootfs /mnt/home/x"), "/rootfs /mnt/home/x");
    assert_eq!(r.text("/srv/users/alice2/y"), "/srv/users/alice2/y");
    assert_eq!(r.text("/home/"), "/home/");
}

#[test]
fn the_hostname_is_taken_out_as_a_whole_word() {
    let r = r();
    assert_eq!(
        r.text("on build-box.example.org today"),
        "on redacted today"
    );
    assert_eq!(
        r.text("tasklab report: build-box"),
        "tasklab report: redacted"
    );
    assert_eq!(r.text("rebuild-box2"), "rebuild-box2");
    // Too common to take out.
    let l = Redactor::new(Some("localhost"), None);
    assert_eq!(l.text("localhost"), "localhost");
}

#[test]
fn every_string_of_a_value_is_redacted() {
    let v = serde_json::json!({"notes": ["see /home/bob/f"], "/root/k": {"h": "build-box"}});
    let out = r().value(&v).to_string();
    assert!(
        !out.contains("bob") && !out.contains("/root") && !out.contains("build-box"),
        "{out}"
    );
}

#[test]
fn text_for_a_run_that_is_not_redacted_is_the_text() {
    let env =
        crate::env::Env::read_from(std::path::Path::new("/nonexistent"), "k".into(), "a".into());
    assert_eq!(text_for(&env, "/home/bob"), "/home/bob");
}
