use super::*;

#[test]
fn auto_colours_only_a_terminal_without_no_color() {
    assert!(decide(Choice::Auto, false, false, true));
    assert!(!decide(Choice::Auto, true, false, true));
    assert!(!decide(Choice::Auto, false, true, true));
    assert!(!decide(Choice::Auto, false, false, false));
    assert!(decide(Choice::Always, true, true, false));
    assert!(!decide(Choice::Never, false, false, true));
}

#[test]
fn strip_removes_every_escape_and_keeps_the_text() {
    let s = "\x1b[1m12.5 µs\x1b[0m and \x1b[31mregressed\x1b[0m";
    assert_eq!(strip(s), "12.5 µs and regressed");
    assert_eq!(strip("plain"), "plain");
}
