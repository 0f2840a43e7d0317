//! The workload `tasklab advise` is asked about: what the user's program
//! does, read from the command line and checked against absurd bounds.

use crate::cli::AdviseArgs;
use crate::units::{
    fmt_count, fmt_ns, fmt_size, group_digits, parse_duration, parse_number, parse_size, snap,
};
use serde::Serialize;

/// Bounds past which a workload figure is refused as absurd.
pub const MAX_RATE: f64 = 1e9;
pub const MAX_LIFETIME_S: f64 = 86_400.0;
pub const MAX_HEAP: u64 = 1 << 50;
pub const MAX_SWITCHES: f64 = 1e9;
pub const MAX_CONCURRENT: f64 = 1e9;
pub const MAX_STACK: u64 = 1 << 30;

/// What the user's program does, validated.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Workload {
    /// Tasks started per second.
    pub rate_per_s: f64,
    /// Each task's lifetime, in seconds.
    pub lifetime_s: f64,
    /// The parent's heap (its memory image), in bytes.
    pub heap_bytes: u64,
    /// Context switches per second across the workload (blocking hand-offs).
    pub switches_per_s: f64,
    /// Tasks alive at once.
    pub concurrent: u64,
    /// False when `concurrent` is rate x lifetime (Little's law).
    pub concurrent_given: bool,
    /// Bytes of stack each task really uses.
    pub stack_bytes: u64,
}

impl Workload {
    /// Parses and checks the command line's figures; the message says what
    /// is wrong and what the bound is.
    pub fn parse(
        rate: &str,
        lifetime: &str,
        heap: &str,
        switches: &str,
        concurrent: Option<&str>,
        stack: &str,
    ) -> Result<Workload, String> {
        let rate_per_s = parse_number("--rate", rate)?;
        if rate_per_s == 0.0 {
            return Err("--rate: 0 tasks per second leaves nothing to advise on; give the rate tasks start at (e.g. 2000 or 1.5k)".into());
        }
        if rate_per_s > MAX_RATE {
            return Err(format!(
                "--rate: {rate} is above {} tasks per second (one per nanosecond), beyond any machine",
                group_digits(MAX_RATE as i64)
            ));
        }
        let lifetime_s = parse_duration("--lifetime", lifetime)?;
        if lifetime_s == 0.0 {
            return Err(
                "--lifetime: a task lives for some time; give it with a unit (e.g. 20ms)".into(),
            );
        }
        if lifetime_s > MAX_LIFETIME_S {
            return Err(format!(
                "--lifetime: {lifetime} is above one day (86400 s); a task that long is a service, not a task"
            ));
        }
        let heap_bytes = parse_size(heap).map_err(|e| format!("--heap: '{heap}': {e}"))?;
        if heap_bytes > MAX_HEAP {
            return Err(format!(
                "--heap: {heap} is above 1 PiB ({} TiB), more memory than any machine holds",
                MAX_HEAP >> 40
            ));
        }
        let switches_per_s = parse_number("--switches", switches)?;
        if switches_per_s > MAX_SWITCHES {
            return Err(format!(
                "--switches: {switches} is above {} switches per second (one per nanosecond); a switch costs far more",
                group_digits(MAX_SWITCHES as i64)
            ));
        }
        let stack_bytes = parse_size(stack).map_err(|e| format!("--stack: '{stack}': {e}"))?;
        if stack_bytes == 0 {
            return Err(
                "--stack: a task uses some stack (or state); give its size (e.g. 16K)".into(),
            );
        }
        if stack_bytes > MAX_STACK {
            return Err(format!(
                "--stack: {stack} is above {} per task",
                fmt_size(MAX_STACK)
            ));
        }
        let little = snap(rate_per_s * lifetime_s);
        let (concurrent, concurrent_given) = match concurrent {
            Some(text) => {
                let n = parse_number("--concurrent", text)?;
                if n < 1.0 {
                    return Err(format!(
                        "--concurrent: {text}: at least one task is alive while tasks run"
                    ));
                }
                if n.fract() != 0.0 {
                    return Err(format!(
                        "--concurrent: {text} is not a whole number of tasks"
                    ));
                }
                if n > MAX_CONCURRENT {
                    return Err(format!(
                        "--concurrent: {text} is above {} tasks alive at once",
                        group_digits(MAX_CONCURRENT as i64)
                    ));
                }
                (n as u64, true)
            }
            None => {
                if little > MAX_CONCURRENT {
                    return Err(format!(
                        "--rate x --lifetime = {} tasks alive at once, above {}: lower the rate or the lifetime",
                        group_digits(little.round() as i64),
                        group_digits(MAX_CONCURRENT as i64)
                    ));
                }
                (little.ceil().max(1.0) as u64, false)
            }
        };
        Ok(Workload {
            rate_per_s,
            lifetime_s,
            heap_bytes,
            switches_per_s,
            concurrent,
            concurrent_given,
            stack_bytes,
        })
    }

    pub fn from_args(a: &AdviseArgs) -> Result<Workload, String> {
        Workload::parse(
            &a.rate,
            &a.lifetime,
            &a.heap,
            &a.switches,
            a.concurrent.as_deref(),
            &a.stack,
        )
    }

    /// Tasks alive at once by Little's law: rate x lifetime, without float
    /// error near a whole number.
    pub fn little(&self) -> f64 {
        snap(self.rate_per_s * self.lifetime_s)
    }

    pub fn describe(&self) -> String {
        format!(
            "{} tasks/s, each alive {} → {} alive at once{}; heap {}; {} switches/s; {} of stack each",
            fmt_count(self.rate_per_s),
            fmt_ns(self.lifetime_s * 1e9),
            group_digits(self.concurrent as i64),
            if self.concurrent_given {
                " (given)"
            } else {
                " (rate x lifetime)"
            },
            fmt_size(self.heap_bytes),
            fmt_count(self.switches_per_s),
            fmt_size(self.stack_bytes)
        )
    }
}
