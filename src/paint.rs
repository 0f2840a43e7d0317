//! Colour on the terminal, where it helps: a regression red, an
//! improvement green, the Summary's figures bold. Decided once per process
//! ([`init`]): `--color never`, a set `NO_COLOR` (no-color.org) or a stdout
//! that is not a terminal (a pipe, a file, CI's log) gives plain text;
//! `--color always` colours even then.
//!
//! Paint a piece of text after it has been fitted to the width: the escape
//! codes take no columns, and [`strip`] removes them.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};

/// When to colour, as `--color` says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Choice {
    /// Colour when stdout is a terminal and `NO_COLOR` is unset or empty.
    #[default]
    Auto,
    Always,
    Never,
}

static ON: AtomicBool = AtomicBool::new(false);

/// Decide for this process, from the choice, the environment and stdout.
pub fn init(choice: Choice) {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
    ON.store(
        decide(choice, no_color, dumb, std::io::stdout().is_terminal()),
        Ordering::Relaxed,
    );
}

/// The rule [`init`] applies.
pub fn decide(choice: Choice, no_color: bool, dumb_term: bool, stdout_tty: bool) -> bool {
    match choice {
        Choice::Always => true,
        Choice::Never => false,
        Choice::Auto => stdout_tty && !no_color && !dumb_term,
    }
}

/// Whether this process colours.
pub fn on() -> bool {
    ON.load(Ordering::Relaxed)
}

fn styled(style: anstyle::Style, s: &str) -> String {
    if on() && !s.is_empty() {
        format!("{}{s}{}", style.render(), style.render_reset())
    } else {
        s.to_string()
    }
}

/// Bold: the Summary's figures, a header.
pub fn bold(s: &str) -> String {
    styled(anstyle::Style::new().bold(), s)
}

/// Red: a regression.
pub fn bad(s: &str) -> String {
    styled(
        anstyle::Style::new().fg_color(Some(anstyle::AnsiColor::Red.into())),
        s,
    )
}

/// Green: an improvement.
pub fn good(s: &str) -> String {
    styled(
        anstyle::Style::new().fg_color(Some(anstyle::AnsiColor::Green.into())),
        s,
    )
}

/// Yellow: a warning, an imprecise or unsettled figure's mark.
pub fn warn(s: &str) -> String {
    styled(
        anstyle::Style::new().fg_color(Some(anstyle::AnsiColor::Yellow.into())),
        s,
    )
}

/// `s` with every SGR escape (`ESC [ ... m`) removed.
pub fn strip(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            chars.next();
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
#[path = "paint_tests.rs"]
mod tests;
