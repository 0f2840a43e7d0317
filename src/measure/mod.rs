//! The measurement core every experiment stands on: the worker protocol and
//! its parameters, the profile's sizing, the clock and its calibrated
//! overhead, the sampler that sizes iterations to a time budget, fresh-process
//! probes and the run's private scratch folder.

pub mod attribution;
pub mod copy;
pub mod explain;
pub mod params;
pub mod probe;
pub mod protocol;
pub mod rss;
pub mod sampler;
pub mod scratch;
pub mod sizing;
pub mod telemetry;
pub mod timer;
pub mod why;
pub mod why_diff;
pub mod worker;

/// tasklab's own binary, for workers and probes to re-execute:
/// `/proc/self/exe`, which names the running program's file even after its
/// path was deleted or replaced (a rebuild during a run), so every worker
/// runs the very binary the run started with. Without /proc, the path.
pub fn self_exe() -> std::io::Result<std::path::PathBuf> {
    let proc_exe = std::path::Path::new("/proc/self/exe");
    if proc_exe.exists() {
        Ok(proc_exe.to_path_buf())
    } else {
        std::env::current_exe()
    }
}

/// A command that runs tasklab's own binary ([`self_exe`]) with a readable
/// argv[0]: the path the run was started from, or "tasklab".
pub fn self_command() -> std::io::Result<std::process::Command> {
    use std::os::unix::process::CommandExt;
    let mut cmd = std::process::Command::new(self_exe()?);
    let name = std::env::args_os()
        .next()
        .unwrap_or_else(|| "tasklab".into());
    cmd.arg0(name);
    Ok(cmd)
}

#[cfg(test)]
mod tests;
