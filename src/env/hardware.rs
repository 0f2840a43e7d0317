//! The hardware facts a fleet's runs are told apart by, beyond the CPU
//! model and the CPUs online: the microcode, the cores and threads per
//! core, the caches, turbo/boost, and a hash of the machine id (never the
//! id itself). Read below the same configurable root as the rest of `env`.

use super::{cpuinfo_field, parse_cpu_list, Root};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// How many hex digits of the machine id's hash are kept (64 bits).
pub const MACHINE_HASH_DIGITS: usize = 16;

/// What the machine id's hash is salted with: tasklab's hash of an id is
/// tasklab's own, and matches no other program's hash of the same id
/// (machine-id(5) asks for an application-specific derivation).
const MACHINE_SALT: &str = "tasklab machine-id v1\n";

/// The hardware facts (schema 2, added later: absent from older files).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Hardware {
    /// The first [`MACHINE_HASH_DIGITS`] hex digits of SHA-256 of
    /// [`MACHINE_SALT`] and `/etc/machine-id`: the same machine gives the
    /// same hash, and the id cannot be read back from it.
    pub machine_id_hash: Option<String>,
    /// The CPU's microcode revision ("0xf0").
    pub microcode: Option<String>,
    /// Physical cores online (distinct package and core ids).
    pub cores: Option<usize>,
    /// Hardware threads per core (CPU 0's siblings).
    pub threads_per_core: Option<usize>,
    /// CPU 0's level 1 data, level 2 and level 3 caches, in bytes.
    pub l1d_bytes: Option<u64>,
    pub l2_bytes: Option<u64>,
    pub l3_bytes: Option<u64>,
    /// Turbo/boost on (cpufreq `boost`, or intel_pstate's `no_turbo`
    /// inverted); None when neither file is there.
    pub boost: Option<bool>,
}

impl Hardware {
    pub(super) fn read(fs: &Root, cpuinfo: &str) -> Hardware {
        let cpu = "/sys/devices/system/cpu";
        let (cores, threads_per_core) = topology(fs);
        let cache = |level: u64| cache_bytes(fs, level);
        Hardware {
            machine_id_hash: ["/etc/machine-id", "/var/lib/dbus/machine-id"]
                .iter()
                .find_map(|p| fs.read_trim(p))
                .and_then(|id| machine_id_hash(&id)),
            microcode: cpuinfo_field(cpuinfo, "microcode")
                .map(str::to_string)
                .or_else(|| fs.read_trim(&format!("{cpu}/cpu0/microcode/version"))),
            cores,
            threads_per_core,
            l1d_bytes: cache(1),
            l2_bytes: cache(2),
            l3_bytes: cache(3),
            boost: fs
                .read_u64(&format!("{cpu}/cpufreq/boost"))
                .map(|b| b != 0)
                .or_else(|| {
                    fs.read_u64(&format!("{cpu}/intel_pstate/no_turbo"))
                        .map(|n| n == 0)
                }),
        }
    }

    /// Lines "key: value" for humans.
    pub fn describe(&self) -> Vec<(String, String)> {
        let unknown = || "unknown".to_string();
        let n = |v: Option<usize>| v.map_or_else(unknown, |n| n.to_string());
        let size = |v: Option<u64>| v.map_or_else(unknown, crate::units::fmt_size_approx);
        vec![
            (
                "topology".into(),
                format!(
                    "{} cores, {} per core; caches L1d {}, L2 {}, L3 {}",
                    n(self.cores),
                    match self.threads_per_core {
                        Some(1) => "1 thread".to_string(),
                        t => format!("{} threads", n(t)),
                    },
                    size(self.l1d_bytes),
                    size(self.l2_bytes),
                    size(self.l3_bytes)
                ),
            ),
            (
                "microcode".into(),
                self.microcode.clone().unwrap_or_else(unknown),
            ),
            (
                "boost".into(),
                self.boost
                    .map_or_else(unknown, |b| if b { "on" } else { "off" }.into()),
            ),
            (
                "machine id".into(),
                self.machine_id_hash
                    .as_ref()
                    .map_or_else(unknown, |h| format!("hash {h}")),
            ),
        ]
    }
}

/// The salted, shortened hash of a machine id; None for an empty or
/// uninitialised one (systemd writes "uninitialized" before first boot).
pub fn machine_id_hash(id: &str) -> Option<String> {
    let id = id.trim();
    if id.is_empty() || id == "uninitialized" {
        return None;
    }
    let digest = Sha256::digest(format!("{MACHINE_SALT}{id}").as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    Some(hex[..MACHINE_HASH_DIGITS].to_string())
}

/// (cores, threads per core): the distinct (package, core) ids of the
/// online CPUs, and CPU 0's siblings (or CPUs over cores).
fn topology(fs: &Root) -> (Option<usize>, Option<usize>) {
    let cpu = "/sys/devices/system/cpu";
    let online = fs
        .read(&format!("{cpu}/online"))
        .and_then(|s| parse_cpu_list(&s).ok())
        .unwrap_or_default();
    let mut ids: Vec<(u64, u64)> = online
        .iter()
        .filter_map(|n| {
            let t = format!("{cpu}/cpu{n}/topology");
            Some((
                fs.read_u64(&format!("{t}/physical_package_id"))
                    .unwrap_or(0),
                fs.read_u64(&format!("{t}/core_id"))?,
            ))
        })
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let cores = (!ids.is_empty()).then_some(ids.len());
    let siblings = ["core_cpus_list", "thread_siblings_list"]
        .iter()
        .find_map(|f| fs.read(&format!("{cpu}/cpu0/topology/{f}")))
        .and_then(|s| parse_cpu_list(&s).ok())
        .map(|v| v.len())
        .filter(|&n| n > 0);
    let per_core = siblings.or_else(|| {
        let c = cores?;
        online.len().is_multiple_of(c).then(|| online.len() / c)
    });
    (cores, per_core)
}

/// The size of CPU 0's cache at `level` (its data or unified cache), from
/// /sys/devices/system/cpu/cpu0/cache/indexN.
fn cache_bytes(fs: &Root, level: u64) -> Option<u64> {
    (0..16).find_map(|i| {
        let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{i}");
        let ty = fs.read_trim(&format!("{dir}/type"))?;
        if fs.read_u64(&format!("{dir}/level"))? != level || ty == "Instruction" {
            return None;
        }
        parse_cache_size(&fs.read_trim(&format!("{dir}/size"))?)
    })
}

/// A cache `size` file: "48K", "2048K", "32M" (or a bare count of bytes).
pub fn parse_cache_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (num, mult) = match s.chars().last()? {
        'K' | 'k' => (&s[..s.len() - 1], 1u64 << 10),
        'M' | 'm' => (&s[..s.len() - 1], 1 << 20),
        'G' | 'g' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.trim().parse::<u64>().ok()?.checked_mul(mult)
}

#[cfg(test)]
#[path = "hardware_tests.rs"]
mod tests;
