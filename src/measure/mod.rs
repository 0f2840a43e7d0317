//! The measurement core every experiment stands on: the clock and its
//! calibrated overhead, the sampler that sizes iterations to a time budget,
//! pinning, /proc readings, and the worker protocol that runs each
//! experiment in a fresh process.

pub mod procfs;
pub mod sampler;
pub mod scratch;
pub mod timer;
pub mod worker;
