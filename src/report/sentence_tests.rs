use super::*;

#[test]
fn identifiers_stay_as_written() {
    let known: BTreeSet<&str> = ["none", "pipe_threads"].into_iter().collect();
    for s in [
        "pthread_create: the first call",
        "clone_vfork stays flat",
        "none            memory copied",
        "pipe_threads: on two CPUs",
        "n=55256000: the serial average",
        "memcpy of 64 KiB",
        "fork grows with the heap",
        "sched_yield hands over",
        "CLONE_VM        memory shared",
    ] {
        assert_eq!(capitalise(s, &known), s);
    }
}

#[test]
fn prose_opens_with_a_capital() {
    let known = BTreeSet::new();
    assert_eq!(
        capitalise("a bare system call costs", &known),
        "A bare system call costs"
    );
    assert_eq!(capitalise("outside VmRSS", &known), "Outside VmRSS");
    assert_eq!(capitalise("", &known), "");
}
