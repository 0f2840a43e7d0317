//! The error types the exit status depends on, and the one way commands
//! write their answer to standard output.

/// Bad input: the message says what is valid; the exit status is 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// `Err(UsageError(msg))` as an `anyhow` error.
pub fn usage<T>(msg: impl Into<String>) -> anyhow::Result<T> {
    Err(UsageError(msg.into()).into())
}

/// Whether `e` (or anything it wraps) is the user's mistake.
pub fn is_usage(e: &anyhow::Error) -> bool {
    e.downcast_ref::<UsageError>().is_some()
}

/// Standard output could not take the answer (a full disk, a closed file):
/// exit status 1 with the reason, never a panic. A closed pipe is not this:
/// every command but a run ends on SIGPIPE with 141, as Unix tools do.
#[derive(Debug)]
pub struct OutputError(pub std::io::Error);

impl std::fmt::Display for OutputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot write to standard output: {}", self.0)
    }
}

impl std::error::Error for OutputError {}

/// Writes `text` to standard output and flushes it, an error as
/// [`OutputError`] (`println!` panics instead).
pub fn out(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    o.write_all(text.as_bytes())
        .and_then(|_| o.flush())
        .map_err(|e| OutputError(e).into())
}
