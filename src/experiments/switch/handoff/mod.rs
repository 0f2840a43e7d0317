//! The ping-pong mechanisms of the switch group (seed 002's pipe and
//! condition variable, and beyond): one file per way two tasks hand a token
//! back and forth, as stress-ng has one function per method. Each is a
//! [`Handoff`]; a row of `methods::METHODS` points at it and `engine` drives
//! it, so a new mechanism is one file here and one row there.

pub mod condvar;
pub mod futex;
pub mod pipe;
pub mod yield_;

use crate::measure::sampler::Budget;
use crate::sys::SharedPage;
use std::fmt::Debug;
use std::io;
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::Arc;

/// A message asking the partner to record its switch counters and CPU
/// (`engine` sends it between batches, outside the timed window).
pub const MARK: u32 = u32::MAX - 1;
/// A message telling the partner to stop (no reply).
pub const STOP: u32 = u32::MAX;

/// One way for two tasks to hand a token back and forth. The engine asks for
/// a fresh pair of ends per series, keeps the [`PingEnd`] and moves the
/// [`PongEnd`] into the partner, a thread or a forked process.
pub trait Handoff: Debug + Sync {
    /// A fresh pair of ends; `processes` says the partner will be forked, so
    /// what the two share must cross a fork (a pipe, a `MAP_SHARED` page).
    fn ends(&self, processes: bool) -> io::Result<Ends>;

    /// Per switch, what the IPC costs when no switch happens: one task
    /// making both sides' calls, `per_op` samples net of `loop_ns`.
    fn baseline(&self, b: &Budget, loop_ns: f64, processes: bool) -> io::Result<Vec<f64>>;

    /// Whether a waiting task sleeps until it is woken. One that does not
    /// (it yields) stays runnable: on two CPUs the pair would spin, not
    /// switch, and its switches are not the block-and-wake switch path.
    fn blocks(&self) -> bool {
        true
    }
}

/// The measuring side's end and the partner's.
pub type Ends = (Box<dyn PingEnd>, Box<dyn PongEnd>);

/// The measuring side's end of a ping-pong.
pub trait PingEnd {
    /// Sends `v` and waits for it to come back: one round trip.
    fn round_trip(&mut self, v: u32) -> io::Result<()>;

    /// Sends [`STOP`]; the partner does not reply.
    fn stop(&mut self) -> io::Result<()>;
}

/// The partner's end: it echoes every message back.
pub trait PongEnd: Send {
    /// Echoes messages until [`STOP`] (or the measuring side is gone),
    /// calling `work` with each one before replying.
    fn serve(self: Box<Self>, work: &mut dyn FnMut(u32)) -> io::Result<()>;
}

/// Whose turn it is, and the message, for the mechanisms that hand over in
/// shared memory (futex, sched_yield). On a page of its own, `MAP_SHARED` so
/// that it crosses a fork; the word and the message are on different cache
/// lines (a `SharedPage`'s i32 and u64 slots are its two halves).
pub struct Turn(SharedPage);

/// The turn word's values: the partner's turn, the measuring side's.
pub const PONG: i32 = 1;
pub const PING: i32 = 2;

impl Turn {
    /// A fresh turn, the measuring side's.
    pub fn new() -> io::Result<Arc<Turn>> {
        let t = Turn(SharedPage::new()?);
        t.word().store(PING, Ordering::SeqCst);
        Ok(Arc::new(t))
    }

    /// The turn word, [`PING`] or [`PONG`]; a futex word too.
    pub fn word(&self) -> &AtomicI32 {
        self.0.i32(0)
    }

    fn msg(&self) -> &AtomicU64 {
        self.0.u64(0)
    }

    /// Whether it is `who`'s turn.
    #[inline]
    pub fn is(&self, who: i32) -> bool {
        self.word().load(Ordering::Acquire) == who
    }

    /// The measuring side leaves `v` and gives the partner its turn.
    #[inline]
    pub fn give(&self, v: u32) {
        self.msg().store(v as u64, Ordering::Relaxed);
        self.word().store(PONG, Ordering::Release);
    }

    /// The message the partner was given.
    #[inline]
    pub fn message(&self) -> u32 {
        self.msg().load(Ordering::Relaxed) as u32
    }

    /// The partner gives the turn back (its reply).
    #[inline]
    pub fn give_back(&self) {
        self.word().store(PING, Ordering::Release);
    }
}

#[cfg(test)]
mod tests;
