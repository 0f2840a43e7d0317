//! A run's label (`run --label NAME`, default the hostname) and what
//! `run --redact` takes out of the environment it records.
//!
//! A label names a run in titles, in a fleet's matrix, in file names and
//! in OpenMetrics label values, so it is kept to what is safe in all of
//! them: 1 to [`MAX_LABEL`] letters, digits, `.`, `_` and `-`.

use super::Env;
use crate::error::UsageError;

/// The longest label.
pub const MAX_LABEL: usize = 64;

/// The label of a redacted run that was given none.
pub const REDACTED: &str = "redacted";

/// Whether `c` may be in a label.
fn allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')
}

/// Whether `name` is safe as a file name and an OpenMetrics label value:
/// 1 to `max` letters, digits, `.`, `_` or `-`, not starting with `.` (so
/// never `.`, `..` or a hidden file). Labels and baseline names keep it.
pub fn is_safe_name(name: &str, max: usize) -> bool {
    !name.is_empty()
        && name.chars().count() <= max
        && !name.starts_with('.')
        && name.chars().all(allowed)
}

/// `label` as given, or why it cannot be one (one line).
pub fn check_label(label: &str) -> Result<String, UsageError> {
    if label.is_empty() {
        return Err(UsageError(
            "--label is empty: give a name of 1 to 64 letters, digits, '.', '_' or '-'".into(),
        ));
    }
    if label.chars().count() > MAX_LABEL {
        return Err(UsageError(format!(
            "--label is {} characters long; at most {MAX_LABEL} are allowed",
            label.chars().count()
        )));
    }
    if let Some(bad) = label.chars().find(|c| !allowed(*c)) {
        return Err(UsageError(format!(
            "--label {label:?} holds {bad:?}: only letters, digits, '.', '_' and '-' are allowed (the label is used in file names and OpenMetrics labels)"
        )));
    }
    if label.starts_with('.') {
        return Err(UsageError(format!(
            "--label {label:?} starts with '.': a label is also a file name, and '.', '..' and hidden names are not"
        )));
    }
    debug_assert!(is_safe_name(label, MAX_LABEL));
    Ok(label.to_string())
}

/// A hostname made a valid label: each other character becomes `-`, cut
/// to [`MAX_LABEL`]; "unknown" when nothing is left.
pub fn sanitise(host: &str) -> String {
    let s: String = host
        .trim()
        .chars()
        .map(|c| if allowed(c) { c } else { '-' })
        .take(MAX_LABEL)
        .collect();
    if s.is_empty() {
        "unknown".into()
    } else {
        s
    }
}

impl Env {
    /// Records the run's label (`--label`, checked; else the hostname made
    /// a label, or "redacted" when redacting) and, with `redact`, takes out
    /// the hostname and the machine id. Called before anything is measured:
    /// a bad label is a usage error.
    pub fn set_label(&mut self, label: Option<&str>, redact: bool) -> Result<(), UsageError> {
        let label = match label {
            Some(l) => check_label(l)?,
            None if redact => REDACTED.into(),
            None => sanitise(&self.hostname),
        };
        self.label = Some(label);
        if redact {
            self.hostname = REDACTED.into();
            self.hardware.machine_id_hash = None;
            self.redacted = true;
        }
        Ok(())
    }

    /// The run's label: the one recorded, else (an older file) the
    /// hostname made a label.
    pub fn label(&self) -> String {
        self.label
            .clone()
            .unwrap_or_else(|| sanitise(&self.hostname))
    }
}

#[cfg(test)]
#[path = "label_tests.rs"]
mod tests;
