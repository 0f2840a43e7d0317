use super::*;

#[test]
fn touching_the_stack_does_not_overflow_a_default_thread() {
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(|| touch_stack(400 << 10))
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn a_crowd_arrives_and_is_joined_on_drop() {
    let mut crowd = Crowd::with_capacity(4);
    for _ in 0..4 {
        crowd.spawn(None, 8 << 10).unwrap();
    }
    crowd.go();
    assert!(crowd.all_arrived(Duration::from_secs(60)));
    assert_eq!(crowd.len(), 4);
}
