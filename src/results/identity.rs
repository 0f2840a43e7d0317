//! Who a run is and on what: its label, its unique id, the build that made
//! it, and the machine facts a fleet's runs are told apart by (the
//! matrix's "what differs", the OpenMetrics labels). A file that lacks a
//! fact says "unknown".

use super::RunResults;
use crate::env::fingerprint::Fingerprint;
use serde::{Deserialize, Serialize};
use std::io::Read;

/// What a fact is when the file does not record it.
pub const UNKNOWN: &str = "unknown";

/// The tasklab build that made a file: what `--version` prints.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Build {
    /// `git rev-parse --short=12 HEAD` when built, "-dirty" when the tree
    /// differed from it; "unknown" outside a git checkout.
    pub commit: String,
    /// 16 hex digits naming the build: the commit, a dirty tree's changes,
    /// the version, the profile, the target and the compiler (build.rs).
    pub build_id: String,
    /// Cargo's profile and the target ("release x86_64-unknown-linux-gnu").
    #[serde(default)]
    pub profile: String,
}

impl Build {
    /// This binary's build.
    pub fn this() -> Build {
        Build {
            commit: env!("TASKLAB_GIT_COMMIT").into(),
            build_id: env!("TASKLAB_BUILD_ID").into(),
            profile: env!("TASKLAB_BUILD_PROFILE").into(),
        }
    }
}

/// A fresh run id: 128 random bits from the kernel (`/dev/urandom`), in
/// hex; failing that, a hash of the time, the pid and a counter.
pub fn new_run_id() -> String {
    let mut b = [0u8; 16];
    let random = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut b));
    if random.is_err() {
        use sha2::{Digest, Sha256};
        static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let seed = format!("{t} {} {n}", std::process::id());
        b.copy_from_slice(&Sha256::digest(seed.as_bytes())[..16]);
    }
    b.iter().map(|x| format!("{x:02x}")).collect()
}

impl RunResults {
    /// The run's label: `--label`, else the machine's hostname (made a
    /// label: letters, digits, `.`, `_`, `-`).
    pub fn label(&self) -> String {
        self.env.label()
    }

    /// The run's unique id; None in files from before it was recorded.
    pub fn run_id(&self) -> Option<String> {
        self.run_id.clone()
    }

    /// The facts that tell machines and their configurations apart, name
    /// and value, in a fixed order (the CPU, memory, the kernel, the
    /// hypervisor and idling, the memory and CPU settings, the cgroup's
    /// limits, the machine, then tasklab); "unknown" where the file has
    /// none. The label, the run id and the start time are not facts: they
    /// differ between any two runs.
    pub fn identity_facts(&self) -> Vec<(&'static str, String)> {
        let e = &self.env;
        let h = &e.hardware;
        let f = Fingerprint::of(e);
        let or = |v: Option<String>| v.unwrap_or_else(|| UNKNOWN.into());
        let num = |v: Option<u64>| or(v.map(|n| n.to_string()));
        let idle = e.facts.cpuidle.as_ref();
        let mut v = vec![
            ("cpu_model", f.cpu_model.clone()),
            ("microcode", or(h.microcode.clone())),
            ("cpus_online", f.cpus_online.to_string()),
            ("cores", num(h.cores.map(|n| n as u64))),
            (
                "threads_per_core",
                num(h.threads_per_core.map(|n| n as u64)),
            ),
            ("l1d_bytes", num(h.l1d_bytes)),
            ("l2_bytes", num(h.l2_bytes)),
            ("l3_bytes", num(h.l3_bytes)),
            (
                "memory_bytes",
                num(Some(e.mem_total_bytes).filter(|&b| b > 0)),
            ),
            ("arch", f.arch.clone()),
            ("kernel", f.kernel.clone()),
            (
                "cmdline",
                or(e.facts
                    .cmdline
                    .as_deref()
                    .map(crate::env::cmdline::allowlisted)),
            ),
            ("virtualization", f.virtualization.clone()),
            (
                "idle_driver",
                or(idle.map(|i| i.driver.clone().unwrap_or_else(|| "none".into()))),
            ),
            (
                "haltpoll_ns",
                or(idle.map(|i| {
                    i.haltpoll_poll_ns
                        .map_or("not loaded".into(), |n| n.to_string())
                })),
            ),
            ("thp_enabled", f.thp_enabled.clone()),
            ("thp_defrag", f.thp_defrag.clone()),
            (
                "mitigations",
                if e.mitigations.is_empty() {
                    UNKNOWN.into()
                } else {
                    let names = crate::env::active_mitigations(&e.mitigations).0;
                    if names.is_empty() {
                        "none".into()
                    } else {
                        names.join(",")
                    }
                },
            ),
            ("governor", or(e.governor.clone())),
            (
                "boost",
                or(h.boost.map(|b| if b { "on" } else { "off" }.into())),
            ),
            (
                "cgroup_cpus",
                or(e.facts.cgroup.cpu_quota_cpus.map(|q| format!("{q:.2}"))),
            ),
            ("cgroup_memory_bytes", num(e.limits.cgroup_memory_max)),
            (
                "machine_id_hash",
                if e.redacted {
                    crate::env::label::REDACTED.into()
                } else {
                    or(h.machine_id_hash.clone())
                },
            ),
            ("tool_version", self.tool_version.clone()),
            ("build", or(self.build.as_ref().map(|b| b.commit.clone()))),
            ("schema_version", self.schema_version.to_string()),
        ];
        v.push(("fingerprint", f.hash));
        v
    }

    /// The hardware class: runs of one class (the same CPU model and
    /// number of CPUs) may be compared as the same hardware.
    pub fn hardware_class(&self) -> String {
        format!("{} × {}", self.env.cpu_model.trim(), self.env.cpus_online)
    }

    /// When `self` and `other` were made by different builds of tasklab
    /// (another commit, or the same commit built otherwise): the row
    /// `compare` prints among the environment's differences, ("tasklab
    /// build", this build, that build); None when they were made by the
    /// same, or either file does not say.
    pub fn build_difference(&self, other: &RunResults) -> Option<(String, String, String)> {
        let (a, b) = (self.build.as_ref()?, other.build.as_ref()?);
        if a.build_id == b.build_id && a.commit == b.commit {
            return None;
        }
        let side = |r: &RunResults, b: &Build| {
            format!(
                "{} (commit {}, build {})",
                r.tool_version, b.commit, b.build_id
            )
        };
        Some(("tasklab build".into(), side(self, a), side(other, b)))
    }
}

#[cfg(test)]
#[path = "identity_tests.rs"]
mod tests;
