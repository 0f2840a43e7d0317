//! sched_yield: the two tasks take turns on a word and yield the CPU while
//! it is not theirs. A yielding task stays runnable, so this hands over only
//! on one CPU (on two, both would spin).

use super::{Ends, Handoff, PingEnd, PongEnd, Turn, PING, PONG, STOP};
use crate::measure::sampler::{per_op, Budget};
use crate::sys;
use std::io;
use std::sync::Arc;

#[derive(Debug)]
pub struct Yield;

/// Either end: the turn.
struct End(Arc<Turn>);

impl Handoff for Yield {
    fn ends(&self, _processes: bool) -> io::Result<Ends> {
        let turn = Turn::new()?;
        Ok((Box::new(End(turn.clone())), Box::new(End(turn))))
    }

    /// sched_yield with nothing else runnable on the CPU.
    fn baseline(&self, b: &Budget, loop_ns: f64, _processes: bool) -> io::Result<Vec<f64>> {
        Ok(per_op(b, loop_ns, sys::sched_yield))
    }

    fn blocks(&self) -> bool {
        false
    }
}

impl PingEnd for End {
    #[inline]
    fn round_trip(&mut self, v: u32) -> io::Result<()> {
        self.0.give(v);
        while !self.0.is(PING) {
            sys::sched_yield();
        }
        Ok(())
    }

    fn stop(&mut self) -> io::Result<()> {
        self.0.give(STOP);
        Ok(())
    }
}

impl PongEnd for End {
    fn serve(self: Box<Self>, work: &mut dyn FnMut(u32)) -> io::Result<()> {
        loop {
            while !self.0.is(PONG) {
                sys::sched_yield();
            }
            let v = self.0.message();
            if v == STOP {
                return Ok(());
            }
            work(v);
            self.0.give_back();
        }
    }
}
