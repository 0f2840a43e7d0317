use super::*;

#[test]
fn labels_are_checked() {
    for good in ["a", "web-01.eu_west", &"x".repeat(MAX_LABEL)] {
        assert_eq!(check_label(good).unwrap(), good);
    }
    for bad in [
        "",
        "a/b",
        "a b",
        "é",
        "a\"b",
        "a\nb",
        &"x".repeat(MAX_LABEL + 1),
    ] {
        let e = check_label(bad).unwrap_err().0;
        assert!(e.contains("--label") && !e.contains('\n'), "{bad:?}: {e}");
    }
}

#[test]
fn a_hostname_is_made_a_label() {
    assert_eq!(sanitise("box.example.org"), "box.example.org");
    assert_eq!(sanitise("my box/1"), "my-box-1");
    assert_eq!(sanitise(""), "unknown");
    assert_eq!(sanitise(&"h".repeat(100)).len(), MAX_LABEL);
    assert!(check_label(&sanitise("weird host \u{1F600}")).is_ok());
}

fn env() -> Env {
    let mut e = Env::read_from(std::path::Path::new("/nonexistent"), "k".into(), "a".into());
    e.hostname = "secret-host".into();
    e.hardware.machine_id_hash = Some("0123456789abcdef".into());
    e
}

#[test]
fn the_label_defaults_to_the_hostname_and_redact_takes_it_out() {
    let mut e = env();
    assert_eq!(e.label(), "secret-host");
    e.set_label(None, false).unwrap();
    assert_eq!(e.label.as_deref(), Some("secret-host"));
    assert!(!e.redacted);

    let mut e = env();
    e.set_label(None, true).unwrap();
    assert_eq!(e.label(), REDACTED);
    assert_eq!(e.hostname, REDACTED);
    assert_eq!(e.hardware.machine_id_hash, None);
    assert!(e.redacted);

    let mut e = env();
    e.set_label(Some("lab-7"), true).unwrap();
    assert_eq!(e.label(), "lab-7");
    assert!(e.set_label(Some("a/b"), false).is_err());
}
