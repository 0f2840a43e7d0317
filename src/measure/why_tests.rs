use super::*;

#[test]
fn a_refusal_names_the_setting_to_change() {
    let denied = std::io::Error::from_raw_os_error(libc::EACCES);
    let w = refusal_words(&denied, Some(2), false);
    assert!(w.contains("kernel.perf_event_paranoid is 2"), "{w}");
    assert!(w.contains("sysctl kernel.perf_event_paranoid=1"), "{w}");
    let w = refusal_words(&denied, Some(-1), true);
    assert!(w.contains("CAP_PERFMON"), "{w}");
    let missing = std::io::Error::from_raw_os_error(libc::ENOENT);
    assert!(refusal_words(&missing, None, true).contains("CONFIG_PERF_EVENTS"));
}

#[test]
fn no_scope_no_sampling_and_nothing_to_finish() {
    // No recorder started: windows and scopes are no-ops.
    drop(Window::open());
    let _s = Scope::enter(&crate::measure::protocol::labels(&[("method", "fork")]));
    assert!(finish().is_empty());
}

#[test]
fn without_a_recorder_nothing_is_active_and_nothing_recorded() {
    // The no-`--why` path: the flag says no recorder, so a window and a
    // scope never reach the recorder's lock, and nothing is kept.
    assert!(!active());
    let _s = Scope::enter(&crate::measure::protocol::labels(&[("call", "getppid")]));
    let w = Window::open();
    assert!(!w.opened);
    drop(w);
    assert!(!active());
    assert!(finish().is_empty());
}
