//! `tasklab demo ...`: the seeds' demonstration programs, with the seeds'
//! output.

use crate::cli::Demo;
use crate::sys::share;
use std::io::Write;
use std::process::ExitCode;

pub fn run(d: &Demo) -> anyhow::Result<ExitCode> {
    match d {
        Demo::CloneVm { vm } => {
            // The child writes to fd 1 directly; nothing of ours may still
            // sit in the stdout buffer, or the lines would come out of order.
            std::io::stdout()
                .flush()
                .map_err(crate::error::OutputError)?;
            let (status, buf) = share::clone_vm_demo(vm.is_some())?;
            crate::error::out(&format!(
                "Child exited with status {status}. buf = \"{buf}\"\n"
            ))?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
