//! A std `Mutex` + `Condvar`, as seed 002's condition-variable sample: the
//! turn and the message under the mutex, each side waiting on the condition
//! variable until it is its turn. Threads only: a std mutex does not cross a
//! fork.

use super::{Ends, Handoff, PingEnd, PongEnd, PING, PONG, STOP};
use crate::measure::sampler::{per_op, Budget};
use crate::sys;
use std::hint::black_box;
use std::io;
use std::sync::atomic::AtomicI32;
use std::sync::{Arc, Condvar as StdCondvar, Mutex};

#[derive(Debug)]
pub struct Condvar;

/// What both ends share: (whose turn, the message), and the condition.
struct Shared {
    state: Mutex<(i32, u32)>,
    cv: StdCondvar,
}

/// Either end.
struct End(Arc<Shared>);

fn poisoned<T>(_: T) -> io::Error {
    io::Error::other("partner thread panicked holding the lock")
}

impl Handoff for Condvar {
    fn ends(&self, processes: bool) -> io::Result<Ends> {
        if processes {
            return Err(io::Error::other(
                "a Mutex + Condvar cannot be shared with a forked process",
            ));
        }
        let shared = Arc::new(Shared {
            state: Mutex::new((PING, 0)),
            cv: StdCondvar::new(),
        });
        Ok((Box::new(End(shared.clone())), Box::new(End(shared))))
    }

    /// What one side's calls cost per switch with no switch, as the
    /// futex methods' baseline is: lock, notify_one with no waiter (std's
    /// notify_one makes its FUTEX_WAKE whether or not a thread waits),
    /// unlock, the FUTEX_WAIT a `wait` makes, returning at once (the word
    /// has moved on, as when the partner answered first), and the relock
    /// and unlock `wait` does around it. Without the wait this measured
    /// half the calls.
    fn baseline(&self, b: &Budget, loop_ns: f64, _processes: bool) -> io::Result<Vec<f64>> {
        let state = Mutex::new((0i32, 0u32));
        let cv = StdCondvar::new();
        let word = AtomicI32::new(0);
        Ok(per_op(b, loop_ns, || {
            if let Ok(mut g) = state.lock() {
                g.0 = black_box(g.0 + 1);
                cv.notify_one();
            }
            let _ = sys::futex_wait(&word, 1, false); // the word is 0: returns at once
            if let Ok(g) = state.lock() {
                black_box(g.1);
            }
        }))
    }
}

impl PingEnd for End {
    #[inline]
    fn round_trip(&mut self, v: u32) -> io::Result<()> {
        let s = &*self.0;
        let mut g = s.state.lock().map_err(poisoned)?;
        *g = (PONG, v);
        s.cv.notify_one();
        while g.0 != PING {
            g = s.cv.wait(g).map_err(poisoned)?;
        }
        Ok(())
    }

    fn stop(&mut self) -> io::Result<()> {
        let s = &*self.0;
        let mut g = s.state.lock().map_err(poisoned)?;
        *g = (PONG, STOP);
        s.cv.notify_one();
        Ok(())
    }
}

impl PongEnd for End {
    fn serve(self: Box<Self>, work: &mut dyn FnMut(u32)) -> io::Result<()> {
        let s = &*self.0;
        let mut g = s.state.lock().map_err(poisoned)?;
        loop {
            while g.0 != PONG {
                g = s.cv.wait(g).map_err(poisoned)?;
            }
            let v = g.1;
            if v == STOP {
                return Ok(());
            }
            work(v);
            g.0 = PING;
            s.cv.notify_one();
        }
    }
}
