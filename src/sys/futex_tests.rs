use super::*;
use std::sync::atomic::Ordering;

#[test]
fn futex_wait_returns_when_the_value_differs() {
    let w = AtomicI32::new(5);
    futex_wait(&w, 4, false).unwrap(); // EAGAIN, not a hang
    assert_eq!(futex_wake(&w, 1, false).unwrap(), 0);
    w.store(1, Ordering::SeqCst);
    futex_wait(&w, 0, true).unwrap();
}
