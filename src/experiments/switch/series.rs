//! The series several switch experiments report, declared once: the
//! ping-pong engine's (switch.pingpong, switch.indirect, and
//! switch.userspace's kernel reference) and the ones switch.userspace and
//! switch.wakeup share with them. An experiment's own series sit in its file.

use crate::experiments::prelude::*;

/// One switch: a round trip / 2 (a round trip is two switches).
pub const SWITCH_NS: MetricSpec = MetricSpec::new(
    "switch_ns",
    Unit::Ns,
    Better::Lower,
    Kind::HandOff,
    "one switch between two tasks, taken as a round trip / 2",
);

/// One round trip: what `perf bench sched pipe` reports per op.
pub const ROUND_TRIP_NS: MetricSpec = MetricSpec::new(
    "round_trip_ns",
    Unit::Ns,
    Better::Lower,
    Kind::HandOff,
    "one round trip of the token, there and back (two hand-offs)",
);

/// Echo or ping-pong iterations per second.
pub const ITERATIONS_PER_S: MetricSpec = MetricSpec::new(
    "iterations_per_s",
    Unit::PerSecond,
    Better::Higher,
    Kind::HandOff,
    "round trips (echo iterations) per second",
);

/// Context switches per round trip, voluntary and involuntary together.
pub const SWITCHES_PER_ROUND_TRIP: MetricSpec = MetricSpec::new(
    "switches_per_round_trip",
    Unit::Count,
    Better::Neither,
    Kind::Other,
    "context switches per round trip (getrusage, both tasks): 2 is one each way",
);

/// Voluntary switches per round trip: a task blocking.
pub const VOLUNTARY_PER_ROUND_TRIP: MetricSpec = MetricSpec::new(
    "voluntary_per_round_trip",
    Unit::Count,
    Better::Neither,
    Kind::Other,
    "voluntary context switches per round trip (a task blocking), both tasks",
);

/// Involuntary switches per round trip: a preemption.
pub const INVOLUNTARY_PER_ROUND_TRIP: MetricSpec = MetricSpec::new(
    "involuntary_per_round_trip",
    Unit::Count,
    Better::Neither,
    Kind::Other,
    "involuntary context switches per round trip (a preemption), both tasks",
);

/// A reading: the share of batches that ended with both tasks on one CPU.
pub const SAME_CPU_FRACTION: MetricSpec = MetricSpec::new(
    "same_cpu_fraction",
    Unit::Ratio,
    Better::Neither,
    Kind::Other,
    "share of batches that ended with both tasks on the same CPU",
);

/// A reading: how many round trips one sample timed.
pub const ROUND_TRIPS_PER_SAMPLE: MetricSpec = MetricSpec::new(
    "round_trips_per_sample",
    Unit::Count,
    Better::Neither,
    Kind::Other,
    "round trips timed together as one sample (the batch size)",
);
