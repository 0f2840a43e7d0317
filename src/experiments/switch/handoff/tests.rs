use super::*;
use crate::experiments::switch::methods::METHODS;

const TINY: Budget = Budget {
    seconds: 0.01,
    min_samples: 3,
    max_samples: 20,
};

/// Runs `pong` on a thread, recording what its work saw, while `f` drives
/// `ping`; returns what the partner saw and how its serve ended.
fn with_partner(
    (mut ping, pong): Ends,
    f: impl FnOnce(&mut dyn PingEnd),
) -> (Vec<u32>, io::Result<()>) {
    let h = std::thread::spawn(move || {
        let mut seen = Vec::new();
        let r = pong.serve(&mut |v| seen.push(v));
        (seen, r)
    });
    f(ping.as_mut());
    drop(ping);
    h.join().unwrap()
}

#[test]
fn every_mechanism_echoes_until_stop_and_hands_each_message_to_the_work() {
    // Threads on any CPUs: sched_yield spins there, but still hands over.
    for m in METHODS.iter().filter(|m| !m.processes) {
        let (seen, served) = with_partner(m.handoff.ends(false).unwrap(), |ping| {
            for v in [0, 1, MARK, 0xffff] {
                ping.round_trip(v).unwrap();
            }
            ping.stop().unwrap();
        });
        assert!(served.is_ok(), "{}: {served:?}", m.name());
        // STOP ends the partner without reaching its work
        assert_eq!(seen, [0, 1, MARK, 0xffff], "{}", m.name());
    }
}

#[test]
fn a_pipe_partner_stops_when_the_measuring_side_is_gone() {
    // No STOP sent: the dropped end is an end of file.
    let (seen, served) = with_partner(pipe::Pipe.ends(false).unwrap(), |ping| {
        ping.round_trip(5).unwrap();
    });
    assert!(served.is_ok(), "{served:?}");
    assert_eq!(seen, [5]);
}

#[test]
fn a_condvar_is_not_offered_to_a_forked_partner() {
    assert!(condvar::Condvar.ends(true).is_err());
    assert!(METHODS
        .iter()
        .all(|m| !(m.processes && format!("{:?}", m.handoff) == "Condvar")));
}

#[test]
fn every_baseline_gives_samples() {
    for m in METHODS {
        let v = m.handoff.baseline(&TINY, 0.0, m.processes).unwrap();
        assert!(!v.is_empty(), "{}", m.name());
        assert!(v.iter().all(|x| x.is_finite()), "{}: {v:?}", m.name());
    }
}

#[test]
fn only_a_yielding_task_stays_runnable() {
    let non_blocking: Vec<String> = [
        &pipe::Pipe as &dyn Handoff,
        &futex::Futex,
        &condvar::Condvar,
        &yield_::Yield,
    ]
    .iter()
    .filter(|h| !h.blocks())
    .map(|h| format!("{h:?}"))
    .collect();
    assert_eq!(non_blocking, ["Yield"]);
}

#[test]
fn a_turn_starts_as_the_measuring_sides_and_carries_the_message() {
    let t = Turn::new().unwrap();
    assert!(t.is(PING) && !t.is(PONG));
    t.give(42);
    assert!(t.is(PONG));
    assert_eq!(t.message(), 42);
    t.give_back();
    assert!(t.is(PING));
}

/// The condvar's baseline is the futex methods' kind: what one side's calls
/// cost per switch with no switch, the wait included (it measured lock +
/// notify + unlock only, half the calls a side makes).
#[test]
fn the_condvar_baseline_makes_the_wake_and_the_wait_as_the_futex_ones_do() {
    use crate::experiments::switch::methods::{CONDVAR, FUTEX_THREADS};
    for m in [CONDVAR, FUTEX_THREADS] {
        assert!(m.baseline.contains("FUTEX_WAKE"), "{}", m.baseline);
        assert!(
            m.baseline.contains("a FUTEX_WAIT that returns at once"),
            "{}",
            m.baseline
        );
    }
}
