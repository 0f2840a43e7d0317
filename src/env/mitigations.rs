//! Speculative-execution mitigations, read from the whole text of each
//! /sys/devices/system/cpu/vulnerabilities/* file: which run (and so tax
//! every kernel entry), in full or in part, and which CPUs stay vulnerable.

use super::Root;
use std::fs;

pub(super) fn read_mitigations(fs: &Root) -> Vec<(String, String)> {
    let Ok(dir) = fs::read_dir(fs.path("/sys/devices/system/cpu/vulnerabilities")) else {
        return Vec::new();
    };
    let mut out: Vec<(String, String)> = dir
        .flatten()
        .filter_map(|entry| {
            let text = fs::read_to_string(entry.path()).ok()?;
            Some((
                entry.file_name().to_string_lossy().into_owned(),
                text.trim().to_string(),
            ))
        })
        .collect();
    out.sort();
    out
}

#[derive(Debug, PartialEq)]
pub(super) enum VulnState {
    NotAffected,
    Mitigated,
    /// "Vulnerable: Safe RET, no microcode": the kernel still calls the CPU
    /// vulnerable, but a mitigation it names runs on every kernel entry.
    PartlyMitigated,
    /// "Mitigation: Speculative Store Bypass disabled via prctl" (or "via
    /// prctl and seccomp"): it runs only for the tasks that ask for it, so
    /// it taxes no kernel entry of ours.
    OptIn,
    Vulnerable,
    Other,
}

/// Classifies a vulnerabilities/* status line, reading all of it.
/// "Mitigation: ...; SMT vulnerable" counts as mitigated: the kernel did
/// what it can. "Vulnerable: X, no microcode" with X a mechanism (Safe RET,
/// Clear CPU buffers attempted, eIBRS, retpolines) is partly mitigated: X
/// runs and costs time; "Vulnerable", "Vulnerable: No microcode" and
/// "Vulnerable: Microcode, no safe RET" name nothing that runs.
pub(super) fn vuln_state(status: &str) -> VulnState {
    // itlb_multihit prefixes its status with "KVM: ".
    let s = status.trim();
    let s = s.strip_prefix("KVM:").map_or(s, str::trim);
    let lower = s.to_ascii_lowercase();
    if lower.starts_with("not affected") {
        VulnState::NotAffected
    } else if lower.starts_with("mitigation") && lower.contains("via prctl") {
        VulnState::OptIn
    } else if lower.starts_with("mitigation") {
        VulnState::Mitigated
    } else if let Some(rest) = lower.strip_prefix("vulnerable") {
        let first = rest
            .trim_start_matches([':', ' '])
            .split([',', ';'])
            .next()
            .unwrap_or("")
            .trim();
        let names_nothing = first.is_empty()
            || first.starts_with("no ")
            || first == "microcode"
            || first == "smt vulnerable";
        if names_nothing {
            VulnState::Vulnerable
        } else {
            VulnState::PartlyMitigated
        }
    } else if lower.contains("vulnerable") {
        VulnState::Vulnerable
    } else {
        VulnState::Other
    }
}

/// The vulnerabilities with a mitigation running for every task (in full or
/// in part), by name, and how many of them are partial. One a task must ask
/// for (`prctl`) is not running for ours.
pub fn active_mitigations(m: &[(String, String)]) -> (Vec<&str>, usize) {
    let mut names = Vec::new();
    let mut partial = 0;
    for (name, status) in m {
        match vuln_state(status) {
            VulnState::Mitigated => names.push(name.as_str()),
            VulnState::PartlyMitigated => {
                names.push(name.as_str());
                partial += 1;
            }
            _ => {}
        }
    }
    (names, partial)
}

/// The seed table's words for [`active_mitigations`]: "3 CPU vulnerability
/// mitigations active here (1 of them partial; each kernel entry pays for
/// some)".
pub fn mitigations_active_text(active: usize, partial: usize) -> String {
    let what = if active == 1 {
        "mitigation"
    } else {
        "mitigations"
    };
    let part = match partial {
        0 => String::new(),
        n => format!("{n} of them partial; "),
    };
    format!("{active} CPU vulnerability {what} active here ({part}each kernel entry pays for some)")
}

/// One line, e.g. "1 vulnerable (retbleed), 9 mitigated, 1 mitigated only
/// for tasks that ask (prctl: spec_store_bypass), 12 not affected";
/// a partly mitigated one is named with its status ("1 partly mitigated
/// (spec_rstack_overflow: Vulnerable: Safe RET, no microcode)").
pub(super) fn mitigations_summary(m: &[(String, String)]) -> String {
    if m.is_empty() {
        return "not reported".to_string();
    }
    let mut vulnerable = Vec::new();
    let mut partly = Vec::new();
    let mut opt_in = Vec::new();
    let (mut mitigated, mut unaffected, mut other) = (0, 0, 0);
    for (name, status) in m {
        match vuln_state(status) {
            VulnState::Vulnerable => vulnerable.push(name.as_str()),
            VulnState::PartlyMitigated => partly.push(format!("{name}: {}", status.trim())),
            VulnState::Mitigated => mitigated += 1,
            VulnState::OptIn => opt_in.push(name.as_str()),
            VulnState::NotAffected => unaffected += 1,
            VulnState::Other => other += 1,
        }
    }
    let mut parts = Vec::new();
    if vulnerable.is_empty() {
        parts.push("0 vulnerable".to_string());
    } else {
        parts.push(format!(
            "{} vulnerable ({})",
            vulnerable.len(),
            vulnerable.join(", ")
        ));
    }
    if !partly.is_empty() {
        parts.push(format!(
            "{} partly mitigated ({})",
            partly.len(),
            partly.join("; ")
        ));
    }
    parts.push(format!("{mitigated} mitigated"));
    if !opt_in.is_empty() {
        parts.push(format!(
            "{} mitigated only for tasks that ask (prctl: {})",
            opt_in.len(),
            opt_in.join(", ")
        ));
    }
    parts.push(format!("{unaffected} not affected"));
    if other > 0 {
        parts.push(format!("{other} other"));
    }
    parts.join(", ")
}
