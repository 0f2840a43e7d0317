//! What one side of an A/B run changes, as the user wrote it: an
//! experiment's parameter (`param:NAME=VALUE`), a variable in the workers'
//! environment (`env:NAME=VALUE`), a kernel setting (`sysfs:PATH=VALUE`, a
//! file under /sys or /proc/sys), or the CPUs the workers may use
//! (`cpus:LIST`). Everything is checked here, before anything is measured.

use crate::error::UsageError;
pub use crate::results::ab::{Spec, KINDS};
use std::path::Path;

/// Variables whose value names files the dynamic loader reads into every
/// worker: each file must be one no other user could have written.
const LOADER_VARS: &[&str] = &["LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT"];

fn bad(text: &str, why: impl std::fmt::Display) -> UsageError {
    UsageError(format!("ab: SPEC '{text}': {why}"))
}

/// Both sides, parsed and checked against each other: neither empty, no
/// SPEC given twice on a side, none the same on both, and the sides not
/// identical.
pub fn sides(a: &[String], b: &[String]) -> Result<(Vec<Spec>, Vec<Spec>), UsageError> {
    let parse = |v: &[String], side: &str| -> Result<Vec<Spec>, UsageError> {
        if v.is_empty() {
            return Err(UsageError(format!(
                "ab: side {side} has no SPEC: give --{} with {KINDS}",
                side.to_lowercase()
            )));
        }
        let specs = v
            .iter()
            .map(|t| Spec::parse(t))
            .collect::<Result<Vec<_>, _>>()?;
        for (i, s) in specs.iter().enumerate() {
            if specs[..i].iter().any(|o| o.target() == s.target()) {
                return Err(UsageError(format!(
                    "ab: side {side} sets {} twice: give it once",
                    s.target()
                )));
            }
        }
        Ok(specs)
    };
    let (sa, sb) = (parse(a, "A")?, parse(b, "B")?);
    if let Some(same) = sa.iter().find(|s| sb.contains(s)) {
        return Err(UsageError(format!(
            "ab: {} is on both sides: a SPEC that is the same for A and B changes nothing between them (put it in -p, or leave it out)",
            same.text()
        )));
    }
    Ok((sa, sb))
}

/// The environment variables a side sets, each checked: a loader variable
/// may name only files no other user could have written.
pub fn check_env(specs: &[Spec]) -> Result<Vec<(String, String)>, UsageError> {
    let mut out = Vec::new();
    for s in specs {
        let Spec::Env { name, value } = s else {
            continue;
        };
        let paths: Vec<&str> = if LOADER_VARS.contains(&name.as_str()) {
            value.split([':', ' ']).filter(|p| !p.is_empty()).collect()
        } else {
            // A value that names an existing file is checked the same way.
            Some(value.as_str())
                .filter(|v| v.starts_with('/') && Path::new(v).exists())
                .into_iter()
                .collect()
        };
        for p in paths {
            let path = Path::new(p);
            let check = if path.is_dir() {
                crate::sys::private::trusted_dir(path)
            } else {
                crate::sys::private::trusted_file(path)
            };
            if let Err(why) = check {
                return Err(bad(
                    &s.text(),
                    format!("{p} could have been written by another user: {why}"),
                ));
            }
        }
        out.push((name.clone(), value.clone()));
    }
    Ok(out)
}

/// The parameters a side sets, as `-p` takes them.
pub fn params(specs: &[Spec]) -> Vec<String> {
    specs
        .iter()
        .filter_map(|s| match s {
            Spec::Param { name, value } => Some(format!("{name}={value}")),
            _ => None,
        })
        .collect()
}

/// The CPU list a side pins its workers to, if it sets one.
pub fn cpus(specs: &[Spec]) -> Option<&str> {
    specs.iter().find_map(|s| match s {
        Spec::Cpus { list } => Some(list.as_str()),
        _ => None,
    })
}

/// Whether a side's workers sample: Some(true) for `why:cpu-clock`,
/// Some(false) for `why:off`, None when the side leaves it to `--why`.
pub fn why(specs: &[Spec]) -> Option<bool> {
    specs.iter().find_map(|s| match s {
        Spec::Why { event } => Some(event != "off"),
        _ => None,
    })
}

/// The kernel settings a side writes, each a file under /sys or /proc/sys
/// that resolves (links followed) to a file still under one of them.
pub fn knobs(specs: &[Spec], root: &Path) -> Result<Vec<crate::sys::sysfs_knob::Knob>, UsageError> {
    let mut out = Vec::new();
    for s in specs {
        let Spec::Sysfs { path, value } = s else {
            continue;
        };
        let resolved =
            crate::sys::sysfs_knob::resolve(root, path).map_err(|e| bad(&s.text(), e))?;
        out.push(crate::sys::sysfs_knob::Knob {
            path: resolved,
            value: value.clone(),
        });
    }
    Ok(out)
}

#[cfg(test)]
#[path = "spec_tests.rs"]
mod tests;
