//! Pipes (seed 002's ping-pong, `perf bench sched pipe`): 4 bytes out on one
//! pipe and back on another; a task waits blocked in `read`.

use super::{Ends, Handoff, PingEnd, PongEnd, STOP};
use crate::measure::sampler::{per_op, Budget};
use crate::sys;
use std::fs::File;
use std::io::{self, Read, Write};

#[derive(Debug)]
pub struct Pipe;

struct Ping {
    w: File,
    r: File,
}

struct Pong {
    r: File,
    w: File,
}

impl Handoff for Pipe {
    fn ends(&self, _processes: bool) -> io::Result<Ends> {
        let (r1, w1) = sys::pipe(false)?;
        let (r2, w2) = sys::pipe(false)?;
        let ping = Ping {
            w: File::from(w1),
            r: File::from(r2),
        };
        let pong = Pong {
            r: File::from(r1),
            w: File::from(w2),
        };
        Ok((Box::new(ping), Box::new(pong)))
    }

    /// One write and one read of 4 bytes on one pipe.
    fn baseline(&self, b: &Budget, loop_ns: f64, _processes: bool) -> io::Result<Vec<f64>> {
        let (r, w) = sys::pipe(false)?;
        let (mut r, mut w) = (File::from(r), File::from(w));
        let mut failed = None;
        let v = per_op(b, loop_ns, || {
            let mut buf = [0u8; 4];
            if let Err(e) = w
                .write_all(&[1, 2, 3, 4])
                .and_then(|_| r.read_exact(&mut buf))
            {
                failed = Some(e);
            }
        });
        match failed {
            Some(e) => Err(e),
            None => Ok(v),
        }
    }
}

impl PingEnd for Ping {
    #[inline]
    fn round_trip(&mut self, v: u32) -> io::Result<()> {
        self.w.write_all(&v.to_ne_bytes())?;
        let mut buf = [0u8; 4];
        self.r.read_exact(&mut buf)
    }

    fn stop(&mut self) -> io::Result<()> {
        self.w.write_all(&STOP.to_ne_bytes())
    }
}

impl PongEnd for Pong {
    fn serve(mut self: Box<Self>, work: &mut dyn FnMut(u32)) -> io::Result<()> {
        loop {
            let mut buf = [0u8; 4];
            match self.r.read_exact(&mut buf) {
                Ok(()) => {}
                // the measuring side closed its end without a STOP
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(()),
                Err(e) => return Err(e),
            }
            let v = u32::from_ne_bytes(buf);
            if v == STOP {
                return Ok(());
            }
            work(v);
            self.w.write_all(&buf)?;
        }
    }
}
