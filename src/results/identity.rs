//! Who a run is and on what: its label, its unique id, and the machine
//! facts a fleet's runs are told apart by (the matrix's "what differs",
//! the OpenMetrics labels). A file that lacks a fact says "unknown".

use super::RunResults;
use crate::env::fingerprint::Fingerprint;

/// What a fact is when the file does not record it.
pub const UNKNOWN: &str = "unknown";

impl RunResults {
    /// The run's label: `--label`, else the machine's hostname.
    pub fn label(&self) -> String {
        self.env.hostname.clone()
    }

    /// The run's unique id; None in files from before it was recorded.
    pub fn run_id(&self) -> Option<String> {
        None
    }

    /// The facts that tell machines and their configurations apart, name
    /// and value, in a fixed order; "unknown" where the file has none.
    pub fn identity_facts(&self) -> Vec<(&'static str, String)> {
        let f = Fingerprint::of(&self.env);
        let mut v = vec![
            ("cpu_model", f.cpu_model.clone()),
            ("cpus_online", f.cpus_online.to_string()),
            ("arch", f.arch.clone()),
            ("kernel", f.kernel.clone()),
            ("virtualization", f.virtualization.clone()),
            ("thp_enabled", f.thp_enabled.clone()),
            ("thp_defrag", f.thp_defrag.clone()),
            (
                "governor",
                self.env.governor.clone().unwrap_or_else(|| UNKNOWN.into()),
            ),
            (
                "memory_bytes",
                match self.env.mem_total_bytes {
                    0 => UNKNOWN.into(),
                    b => b.to_string(),
                },
            ),
            ("tool_version", self.tool_version.clone()),
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
}
