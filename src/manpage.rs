//! tasklab completions SHELL and tasklab man: the shell completion scripts
//! (clap_complete) and the man pages (clap_mangen), both generated from the
//! clap definitions in `cli.rs`, so they name every command and flag there is.

use crate::cli::{Cli, ShellArg};
use crate::error::UsageError;
use clap::CommandFactory;
use clap_complete::Shell;
use std::path::Path;
use std::process::ExitCode;

/// The completion script for `shell`, as text.
pub fn completion_script(shell: ShellArg) -> String {
    let shell = match shell {
        ShellArg::Bash => Shell::Bash,
        ShellArg::Zsh => Shell::Zsh,
        ShellArg::Fish => Shell::Fish,
        ShellArg::Elvish => Shell::Elvish,
        ShellArg::Powershell => Shell::PowerShell,
    };
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "tasklab", &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// tasklab's man page (section 1), in roff: every command and global flag.
pub fn man_page() -> std::io::Result<String> {
    let mut out = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut out)?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

pub fn completions(shell: ShellArg) -> anyhow::Result<ExitCode> {
    crate::error::out(&completion_script(shell))?;
    Ok(ExitCode::SUCCESS)
}

/// The man page to stdout, or, with `--out DIR`, tasklab.1 and a page per
/// command (hidden ones aside) written into DIR, which must be a folder.
pub fn man(out: Option<&Path>) -> anyhow::Result<ExitCode> {
    let Some(dir) = out else {
        crate::error::out(&man_page()?)?;
        return Ok(ExitCode::SUCCESS);
    };
    std::fs::create_dir_all(dir)
        .map_err(|e| UsageError(format!("--out {}: cannot create it: {e}", dir.display())))?;
    clap_mangen::generate_to(Cli::command(), dir)
        .map_err(|e| UsageError(format!("--out {}: cannot write there: {e}", dir.display())))?;
    eprintln!("man pages written to {}", dir.display());
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
#[path = "manpage_tests.rs"]
mod tests;
