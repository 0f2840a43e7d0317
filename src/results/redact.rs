//! `run --redact`: a results file, its reports, its exports and the
//! terminal without the hostname, the machine id or any path under a home
//! folder (`$HOME`, `/home/*`, `/root`), so a run can be shared as it is.
//!
//! The environment is redacted before anything is measured
//! (`Env::set_label`); every string of the results (a note naming the Go
//! helper's cache, a warning naming a folder) is redacted each time the
//! file is written, and the run redacts what it prints with [`text_for`].

use super::RunResults;
use crate::env::label::REDACTED;
use crate::env::Env;
use serde::{de::DeserializeOwned, Serialize};

/// What a home folder's path becomes.
pub const HOME: &str = "~";

/// The names and folders taken out of text.
#[derive(Clone, Debug, Default)]
pub struct Redactor {
    /// The hostname and its first label ("box" of "box.example.org").
    hosts: Vec<String>,
    /// `$HOME`, when it is a folder of its own (not `/`).
    homes: Vec<String>,
}

impl Redactor {
    /// Takes out `host` (whole words only) and the folder `home`, beside
    /// every `/home/NAME` and `/root`.
    pub fn new(host: Option<&str>, home: Option<&str>) -> Redactor {
        let mut hosts = Vec::new();
        if let Some(h) = host.map(str::trim).filter(|h| h.len() >= 2) {
            hosts.push(h.to_string());
            if let Some((short, _)) = h.split_once('.') {
                if short.len() >= 3 {
                    hosts.push(short.to_string());
                }
            }
        }
        hosts.retain(|h| !matches!(h.as_str(), "localhost" | "unknown" | REDACTED));
        let homes = home
            .map(|h| h.trim_end_matches('/'))
            .filter(|h| h.len() > 1 && h.starts_with('/'))
            .map(|h| vec![h.to_string()])
            .unwrap_or_default();
        Redactor { hosts, homes }
    }

    /// This machine's: its hostname now and `$HOME`.
    pub fn here() -> Redactor {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname").ok();
        let home = std::env::var("HOME").ok();
        Redactor::new(host.as_deref(), home.as_deref())
    }

    /// `s` without the home folders' paths (each becomes `~`) and the
    /// hostname (as a whole word, it becomes "redacted").
    pub fn text(&self, s: &str) -> String {
        let mut out = s.to_string();
        for h in &self.homes {
            out = replace_path(&out, h, false);
        }
        out = replace_path(&out, "/home/", true);
        out = replace_path(&out, "/root", false);
        for h in &self.hosts {
            out = replace_word(&out, h, REDACTED);
        }
        out
    }

    /// Every string of `v` (and every key) through [`Redactor::text`].
    pub fn value<T: Serialize + DeserializeOwned + Clone>(&self, v: &T) -> T {
        let Ok(mut json) = serde_json::to_value(v) else {
            return v.clone();
        };
        self.walk(&mut json);
        serde_json::from_value(json).unwrap_or_else(|_| v.clone())
    }

    fn walk(&self, v: &mut serde_json::Value) {
        use serde_json::Value;
        match v {
            Value::String(s) => *s = self.text(s),
            Value::Array(a) => a.iter_mut().for_each(|x| self.walk(x)),
            Value::Object(m) => {
                let old = std::mem::take(m);
                for (k, mut x) in old {
                    self.walk(&mut x);
                    m.insert(self.text(&k), x);
                }
            }
            _ => {}
        }
    }
}

/// Whether `c` continues a path's name.
fn path_char(c: char) -> bool {
    c.is_alphanumeric() || "._-+@".contains(c)
}

/// `s` with each path `prefix` made `~` where a path may start (the
/// text's start, or after a character no path holds). With `name` the
/// prefix ends in `/` and the folder name after it goes too (`/home/NAME`);
/// without, the prefix must end where a name ends (`/root`, not `/rootfs`).
fn replace_path(s: &str, prefix: &str, name: bool) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find(prefix) {
        let before = rest[..at].chars().next_back();
        let after = &rest[at + prefix.len()..];
        let starts = before.is_none_or(|c| !path_char(c) && c != '/');
        let next_is_name = after.chars().next().is_some_and(path_char);
        out.push_str(&rest[..at]);
        if starts && next_is_name == name {
            out.push_str(HOME);
            let skip = if name {
                after.find(|c: char| !path_char(c)).unwrap_or(after.len())
            } else {
                0
            };
            rest = &after[skip..];
        } else {
            out.push_str(prefix);
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// `s` with `word` replaced where it stands as a word of a name (not inside
/// a longer name of letters, digits and `-`).
fn replace_word(s: &str, word: &str, with: &str) -> String {
    let is_name = |c: char| c.is_alphanumeric() || c == '-' || c == '_';
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find(word) {
        let before = rest[..at].chars().next_back();
        let after = &rest[at + word.len()..];
        let whole = !before.is_some_and(is_name) && !after.chars().next().is_some_and(is_name);
        out.push_str(&rest[..at]);
        out.push_str(if whole { with } else { word });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// `s` as a run with `env` prints it: redacted when the run is.
pub fn text_for(env: &Env, s: &str) -> String {
    text_if(env.redacted, s)
}

/// `s`, redacted when `redacted` ([`Redactor::here`]).
pub fn text_if(redacted: bool, s: &str) -> String {
    if redacted {
        Redactor::here().text(s)
    } else {
        s.to_string()
    }
}

impl RunResults {
    /// The results as a redacted run shares them: every string through
    /// [`Redactor::text`], the hostname and machine id gone. A run that
    /// was not redacted is returned as it is.
    pub fn redacted(&self) -> RunResults {
        if !self.env.redacted {
            return self.clone();
        }
        let mut r = Redactor::here().value(self);
        r.env.hostname = REDACTED.into();
        r.env.hardware.machine_id_hash = None;
        r
    }
}

#[cfg(test)]
#[path = "redact_tests.rs"]
mod tests;
