//! tasklab completions SHELL and tasklab man: the shell completion scripts
//! (clap_complete) and the man pages (clap_mangen), both generated from the
//! clap definitions in `cli.rs`, so they name every command and flag there is.

use crate::cli::{Cli, ShellArg};
use crate::error::UsageError;
use crate::sys::safefile::{OutDir, Trust};
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
/// command (hidden ones aside) written into DIR, each through a fresh
/// temporary renamed into place (`safefile::OutDir`), as every file
/// tasklab writes.
pub fn man(out: Option<&Path>) -> anyhow::Result<ExitCode> {
    let Some(path) = out else {
        crate::error::out(&man_page()?)?;
        return Ok(ExitCode::SUCCESS);
    };
    let dir = OutDir::open(path, Trust::Explicit)
        .map_err(|e| UsageError(format!("--out {}: {e}", path.display())))?;
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    let mut pages = Vec::new();
    pages_of(cmd, &mut pages);
    for page in pages {
        let mut roff = Vec::new();
        page.render(&mut roff)?;
        dir.write(&page.get_filename(), &roff)
            .map_err(|e| anyhow::anyhow!("--out {}: cannot write there: {e}", path.display()))?;
    }
    eprintln!("man pages written to {}", path.display());
    Ok(ExitCode::SUCCESS)
}

/// The man pages of `cmd` and of each of its commands (hidden ones aside),
/// named as clap_mangen names them (tasklab.1, tasklab-run.1, ...).
fn pages_of(cmd: clap::Command, out: &mut Vec<clap_mangen::Man>) {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned() {
        pages_of(sub, out);
    }
    out.push(clap_mangen::Man::new(cmd));
}

#[cfg(test)]
#[path = "manpage_tests.rs"]
mod tests;
