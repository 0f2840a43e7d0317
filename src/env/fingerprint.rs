//! A machine's fingerprint: the facts that move every figure at once when
//! they change (the CPU, the kernel, the hypervisor, transparent huge pages,
//! the speculative-execution mitigations), as one stable record with a
//! short hash. Two results files with the same fingerprint come from the
//! same kind of machine in the same configuration: their run-to-run noise
//! is alike (`tasklab calibrate` keys its noise file by it), and a fleet's
//! machines can be grouped by it.
//!
//! What changes from boot to boot or minute to minute (the hostname, free
//! memory, the frequency read off /proc/cpuinfo) is left out: it would
//! make every run a machine of its own.

use super::Env;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// How many hex digits of the SHA-256 the short hash keeps (48 bits:
/// unique across any fleet a person compares).
pub const HASH_DIGITS: usize = 12;

/// The machine's fingerprint. The fields are the facts; `hash` is the
/// first [`HASH_DIGITS`] hex digits of the SHA-256 of their canonical text
/// ([`Fingerprint::canonical`]), so a file's hash can be checked against its
/// fields.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// The CPU model as /proc/cpuinfo names it.
    pub cpu_model: String,
    /// CPUs online: a VM resized to more vCPUs is another machine.
    pub cpus_online: usize,
    pub arch: String,
    /// The kernel release (`uname -r`).
    pub kernel: String,
    /// The hypervisor, "none" on bare metal.
    pub virtualization: String,
    /// THP's `enabled` and `defrag` settings ("unknown" when unread).
    pub thp_enabled: String,
    pub thp_defrag: String,
    /// Each vulnerability with the kernel's status text, sorted by name.
    pub mitigations: Vec<(String, String)>,
    /// The short hash of the fields above.
    pub hash: String,
}

impl Fingerprint {
    /// The fingerprint of the machine `env` describes.
    pub fn of(env: &Env) -> Fingerprint {
        let or = |v: &Option<String>, d: &str| v.clone().unwrap_or_else(|| d.to_string());
        let mut mitigations = env.mitigations.clone();
        mitigations.sort();
        let mut f = Fingerprint {
            cpu_model: env.cpu_model.trim().to_string(),
            cpus_online: env.cpus_online,
            arch: env.arch.clone(),
            kernel: env.kernel.clone(),
            virtualization: or(&env.virtualization, "none"),
            thp_enabled: or(&env.thp_enabled, "unknown"),
            thp_defrag: or(&env.thp_defrag, "unknown"),
            mitigations,
            hash: String::new(),
        };
        f.hash = f.computed_hash();
        f
    }

    /// The fields as one line each, `name=value`, in a fixed order: what
    /// the hash is taken of.
    pub fn canonical(&self) -> String {
        let mut s = format!(
            "cpu_model={}\ncpus_online={}\narch={}\nkernel={}\nvirtualization={}\nthp_enabled={}\nthp_defrag={}\n",
            self.cpu_model,
            self.cpus_online,
            self.arch,
            self.kernel,
            self.virtualization,
            self.thp_enabled,
            self.thp_defrag
        );
        for (k, v) in &self.mitigations {
            s.push_str(&format!("mitigation.{k}={v}\n"));
        }
        s
    }

    /// The hash the fields give (whatever `hash` says).
    pub fn computed_hash(&self) -> String {
        let digest = Sha256::digest(self.canonical().as_bytes());
        digest
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
            .chars()
            .take(HASH_DIGITS)
            .collect()
    }

    /// Whether `hash` is the hash of the fields (a file edited by hand, or
    /// damaged, fails).
    pub fn is_consistent(&self) -> bool {
        self.hash == self.computed_hash()
    }

    /// What differs between two fingerprints, as "what: this -> that",
    /// in the fields' order; empty when they are the same machine.
    pub fn differences(&self, other: &Fingerprint) -> Vec<String> {
        let mut out = Vec::new();
        let mut diff = |what: &str, a: String, b: String| {
            if a != b {
                out.push(format!("{what}: {a} -> {b}"));
            }
        };
        diff("CPU", self.cpu_model.clone(), other.cpu_model.clone());
        diff(
            "CPUs online",
            self.cpus_online.to_string(),
            other.cpus_online.to_string(),
        );
        diff("architecture", self.arch.clone(), other.arch.clone());
        diff("kernel", self.kernel.clone(), other.kernel.clone());
        diff(
            "virtualisation",
            self.virtualization.clone(),
            other.virtualization.clone(),
        );
        diff("THP", self.thp_enabled.clone(), other.thp_enabled.clone());
        diff(
            "THP defrag",
            self.thp_defrag.clone(),
            other.thp_defrag.clone(),
        );
        let text = |m: &[(String, String)]| {
            m.iter()
                .map(|(k, v)| format!("{k}: {v}"))
                .collect::<Vec<_>>()
                .join("; ")
        };
        if self.mitigations != other.mitigations {
            let changed: Vec<&str> = self
                .mitigations
                .iter()
                .chain(&other.mitigations)
                .filter(|x| !(self.mitigations.contains(x) && other.mitigations.contains(x)))
                .map(|(k, _)| k.as_str())
                .collect();
            let mut names = changed;
            names.sort_unstable();
            names.dedup();
            diff(
                &format!("mitigations ({})", names.join(", ")),
                text(&self.mitigations),
                text(&other.mitigations),
            );
        }
        if out.is_empty() && self.hash != other.hash {
            out.push(format!("hash: {} -> {}", self.hash, other.hash));
        }
        out
    }
}

impl Env {
    /// The machine's fingerprint, computed from the fields it is made of:
    /// an older file without the `fingerprint` field has one too, and a
    /// file whose fields were edited gets the fingerprint they say.
    pub fn machine_fingerprint(&self) -> Fingerprint {
        Fingerprint::of(self)
    }
}

#[cfg(test)]
#[path = "fingerprint_tests.rs"]
mod tests;
