//! A finding or a headline as the report prints it: its first letter in
//! upper case, unless it opens with an identifier, which stays as written
//! ("pthread_create", "clone_vfork", "none", "n=55256000", never
//! "Pthread_create").

use crate::results::{ExperimentResult, RunResults};
use std::collections::BTreeSet;

/// Names of functions and calls the findings open with that carry no mark
/// of an identifier (no `_`, digit or `=`).
const CALLS: &[&str] = &[
    "clone", "condvar", "exec", "execve", "fork", "futex", "getppid", "madvise", "malloc",
    "memcpy", "mmap", "vfork",
];

/// The identifiers an experiment's sentences may open with: every label
/// value of its series and readings, and its metric names.
pub fn identifiers(x: &ExperimentResult) -> BTreeSet<&str> {
    let labels = x
        .metrics
        .iter()
        .flat_map(|m| m.labels.values())
        .chain(x.readings.iter().flat_map(|r| r.labels.values()));
    labels
        .map(String::as_str)
        .chain(x.metrics.iter().map(|m| m.name.as_str()))
        .collect()
}

/// The identifiers of every experiment of `group`: a headline is known by
/// its group.
pub fn group_identifiers<'a>(r: &'a RunResults, group: &str) -> BTreeSet<&'a str> {
    r.experiments
        .iter()
        .filter(|x| x.group == group)
        .flat_map(identifiers)
        .collect()
}

/// Whether `word` is written as code: it has a mark no English word has,
/// or it is one of `known` or of the calls above.
fn is_identifier(word: &str, known: &BTreeSet<&str>) -> bool {
    word.chars()
        .any(|c| c == '_' || c == '=' || c == '.' || c == '(' || c.is_ascii_digit())
        || word.chars().skip(1).any(char::is_uppercase)
        || known.contains(word)
        || CALLS.contains(&word)
}

/// `s` with its first letter in upper case, unless its first word is an
/// identifier.
pub fn capitalise(s: &str, known: &BTreeSet<&str>) -> String {
    let word = s
        .split(|c: char| c.is_whitespace() || c == ':' || c == ',' || c == ';')
        .next()
        .unwrap_or("");
    if is_identifier(word, known) {
        return s.to_string();
    }
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
#[path = "sentence_tests.rs"]
mod tests;
