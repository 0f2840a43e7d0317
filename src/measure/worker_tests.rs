use super::*;

#[test]
fn the_stop_reason_names_the_signal() {
    let stop = StopFlag::new(0);
    assert_eq!(stopped_by(&stop), None);
    request_stop(&stop, libc::SIGTERM);
    // the first request wins
    request_stop(&stop, libc::SIGINT);
    assert_eq!(stopped_by(&stop), Some(libc::SIGTERM));
    assert_eq!(stop_reason(libc::SIGTERM), "interrupted (SIGTERM)");
    assert_eq!(stop_reason(libc::SIGINT), "interrupted (SIGINT)");
    assert_eq!(stop_reason(libc::SIGHUP), "interrupted (SIGHUP)");
    assert!(stop_reason(libc::SIGPIPE).contains("SIGPIPE"));
    assert!(!stop_reason(libc::SIGTERM).contains("Ctrl-C"));
}
