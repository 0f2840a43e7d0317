//! A futex word: the two tasks take turns on one word and sleep in
//! `FUTEX_WAIT` while it is not theirs. Private between threads; shared
//! (the word in a `MAP_SHARED` page) between processes.

use super::{Ends, Handoff, PingEnd, PongEnd, Turn, PING, PONG, STOP};
use crate::measure::sampler::{per_op, Budget};
use crate::sys::{self, SharedPage};
use std::io;
use std::sync::Arc;

#[derive(Debug)]
pub struct Futex;

/// Either end: the turn, and whether the futex is a shared one.
struct End {
    turn: Arc<Turn>,
    shared: bool,
}

impl Handoff for Futex {
    fn ends(&self, processes: bool) -> io::Result<Ends> {
        let turn = Turn::new()?;
        let ping = End {
            turn: turn.clone(),
            shared: processes,
        };
        let pong = End {
            turn,
            shared: processes,
        };
        Ok((Box::new(ping), Box::new(pong)))
    }

    /// An uncontended FUTEX_WAKE and a FUTEX_WAIT that returns at once.
    fn baseline(&self, b: &Budget, loop_ns: f64, processes: bool) -> io::Result<Vec<f64>> {
        let page = SharedPage::new()?;
        let w = page.i32(0);
        Ok(per_op(b, loop_ns, || {
            let _ = sys::futex_wake(w, 1, processes);
            let _ = sys::futex_wait(w, 1, processes); // the word is 0: returns at once
        }))
    }
}

impl PingEnd for End {
    #[inline]
    fn round_trip(&mut self, v: u32) -> io::Result<()> {
        self.turn.give(v);
        sys::futex_wake(self.turn.word(), 1, self.shared)?;
        while !self.turn.is(PING) {
            sys::futex_wait(self.turn.word(), PONG, self.shared)?;
        }
        Ok(())
    }

    fn stop(&mut self) -> io::Result<()> {
        self.turn.give(STOP);
        sys::futex_wake(self.turn.word(), 1, self.shared).map(drop)
    }
}

impl PongEnd for End {
    fn serve(self: Box<Self>, work: &mut dyn FnMut(u32)) -> io::Result<()> {
        loop {
            while !self.turn.is(PONG) {
                sys::futex_wait(self.turn.word(), PING, self.shared)?;
            }
            let v = self.turn.message();
            if v == STOP {
                return Ok(());
            }
            work(v);
            self.turn.give_back();
            sys::futex_wake(self.turn.word(), 1, self.shared)?;
        }
    }
}
