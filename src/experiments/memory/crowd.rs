//! The thread crowd: threads started with a chosen stack, each touching part
//! of it, then blocked until released, as in Bendersky's 10,000 blocked
//! threads (`002_…`). Shared by memory.threads and memory.limits' probe.

use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// A door threads block at until it is opened, once.
#[derive(Default)]
struct Latch {
    open: Mutex<bool>,
    cv: Condvar,
}

impl Latch {
    fn wait(&self) {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        while !*open {
            open = self.cv.wait(open).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn open(&self) {
        *self.open.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.cv.notify_all();
    }
}

/// Where started threads wait: each waits for `go` (so creating them is
/// timed alone), touches its stack, arrives, then blocks until released.
#[derive(Default)]
struct Gate {
    go: Latch,
    arrived: AtomicUsize,
    released: Latch,
}

impl Gate {
    fn run(&self, touch_bytes: usize) {
        self.go.wait();
        if touch_bytes > 0 {
            touch_stack(touch_bytes);
        }
        self.arrived.fetch_add(1, Ordering::AcqRel);
        self.released.wait();
    }

    /// Waits until `n` threads have arrived, at most `limit`.
    fn all_arrived(&self, n: usize, limit: Duration) -> bool {
        let t0 = Instant::now();
        while self.arrived.load(Ordering::Acquire) < n {
            if t0.elapsed() > limit {
                return false;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        true
    }

    fn release(&self) {
        self.go.open();
        self.released.open();
    }
}

/// Uses `bytes` of the calling thread's stack: 16 KiB frames, each written
/// once per page, nested until `bytes` are covered.
pub(super) fn touch_stack(bytes: usize) {
    const FRAME_BYTES: usize = 16 << 10;
    #[inline(never)]
    fn frame(depth: usize) {
        if depth == 0 {
            return;
        }
        let mut buf = [0u8; FRAME_BYTES];
        for i in (0..FRAME_BYTES).step_by(crate::sys::PAGE) {
            buf[i] = depth as u8;
        }
        black_box(&mut buf);
        frame(depth - 1);
        // Used after the call, so the frame cannot be reused by a tail call.
        black_box(&buf);
    }
    frame(bytes.div_ceil(FRAME_BYTES));
}

/// Threads started and blocked on a gate; joined (after release) on drop,
/// so none is ever left behind, whatever fails in between.
pub(super) struct Crowd {
    gate: Arc<Gate>,
    threads: Vec<crate::sys::pthread::RawThread>,
}

impl Crowd {
    pub(super) fn with_capacity(n: usize) -> Crowd {
        Crowd {
            gate: Arc::new(Gate::default()),
            threads: Vec::with_capacity(n),
        }
    }

    /// Starts one more blocked thread (`stack_bytes`: None for the default
    /// stack) that, once let go, first touches `touch_bytes` of its stack.
    pub(super) fn spawn(
        &mut self,
        stack_bytes: Option<usize>,
        touch_bytes: usize,
    ) -> std::io::Result<()> {
        let g = Arc::clone(&self.gate);
        let t =
            crate::sys::pthread::spawn_pthread(stack_bytes, Box::new(move || g.run(touch_bytes)))?;
        self.threads.push(t);
        Ok(())
    }

    /// Lets the threads started so far, and any started later, go on to
    /// touch their stacks and arrive.
    pub(super) fn go(&self) {
        self.gate.go.open();
    }

    /// Waits until every started thread has arrived, at most `limit`.
    pub(super) fn all_arrived(&self, limit: Duration) -> bool {
        self.gate.all_arrived(self.len(), limit)
    }

    pub(super) fn len(&self) -> usize {
        self.threads.len()
    }
}

impl Drop for Crowd {
    fn drop(&mut self) {
        self.gate.release();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
#[path = "crowd_tests.rs"]
mod tests;
