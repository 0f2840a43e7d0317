//! The measurement core every experiment stands on: the worker protocol and
//! its parameters, the profile's sizing, the clock and its calibrated
//! overhead, the sampler that sizes iterations to a time budget, fresh-process
//! probes and the run's private scratch folder.

pub mod params;
pub mod probe;
pub mod protocol;
pub mod sampler;
pub mod scratch;
pub mod sizing;
pub mod telemetry;
pub mod timer;
pub mod worker;

/// tasklab's own binary, for workers and probes to re-execute.
pub fn self_exe() -> std::io::Result<std::path::PathBuf> {
    std::env::current_exe()
}
