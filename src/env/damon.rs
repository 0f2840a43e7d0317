//! DAMON, the kernel's data access monitor, as a host fact: a kdamond with
//! a `pageout` scheme drops memory it saw idle for a while (on a guest
//! without swap: clean page cache), so a program run again after a pause
//! may read its pages from disk. Read from the sysfs interface
//! (/sys/kernel/mm/damon/admin) and DAMON's own modules (damon_reclaim,
//! damon_lru_sort, damon_stat) below the configurable root, so each case is
//! tested on a fixture tree. A file that is missing or cannot be read is
//! said so ("unknown"), never taken for "off".

use super::Root;
use serde::{Deserialize, Serialize};
use std::io::ErrorKind;

const ADMIN: &str = "/sys/kernel/mm/damon/admin";

/// DAMON as found: the sysfs interface's kdamonds and the modules.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Damon {
    pub sysfs: DamonSysfs,
    /// DAMON's built-in modules that are there, with whether each runs:
    /// ("damon_reclaim", true).
    #[serde(default)]
    pub modules: Vec<(String, bool)>,
}

/// What /sys/kernel/mm/damon/admin held.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DamonSysfs {
    /// The kernel has no DAMON sysfs interface (/sys/kernel/mm is there,
    /// its damon folder is not).
    Absent,
    /// Cannot tell, and why: sysfs is not there, or a file could not be
    /// read (the interface is root's, mode 0600).
    Unknown(String),
    /// The kdamonds (none: the interface is there, no kdamond configured).
    Kdamonds(Vec<Kdamond>),
}

/// One kdamond: "on" or "off" (None when its state could not be read),
/// and its monitoring contexts.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Kdamond {
    pub state: Option<String>,
    pub contexts: Vec<DamonContext>,
}

/// A monitoring context: what it monitors ("paddr": physical memory,
/// "vaddr"/"fvaddr": processes' address spaces), how often, and what it
/// does with the regions it finds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DamonContext {
    pub operations: Option<String>,
    pub sample_us: Option<u64>,
    pub aggr_us: Option<u64>,
    pub update_us: Option<u64>,
    pub schemes: Vec<DamonScheme>,
}

/// A DAMOS scheme: an action on the regions whose access pattern matches.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DamonScheme {
    /// "pageout", "lru_deprio", "stat", ...
    pub action: Option<String>,
    /// Accesses seen per aggregation interval (of aggr / sample samples).
    pub nr_accesses: Option<(u64, u64)>,
    /// How long a region kept its pattern, in aggregation intervals.
    pub age: Option<(u64, u64)>,
    /// At most these bytes, and this much CPU time in ms, per reset
    /// interval in ms (0: no limit).
    pub quota_bytes: Option<u64>,
    pub quota_ms: Option<u64>,
    pub quota_reset_ms: Option<u64>,
    /// The watermarks' metric ("none": the scheme is always active).
    pub watermarks: Option<String>,
    /// Filters in order: "reject anon", "allow unmapped", "reject not young".
    pub filters: Vec<String>,
}

/// A sysfs file's trimmed text: Ok(None) when it is not there, Err(why)
/// when it is there and cannot be read.
fn file(fs: &Root, p: &str) -> Result<Option<String>, String> {
    match std::fs::read_to_string(fs.path(p)) {
        Ok(s) => Ok(Some(s.trim().to_string())),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read {p}: {e}")),
    }
}

fn range(fs: &Root, dir: &str) -> Option<(u64, u64)> {
    Some((
        fs.read_u64(&format!("{dir}/min"))?,
        fs.read_u64(&format!("{dir}/max"))?,
    ))
}

/// The modules DAMON ships that run a kdamond of their own.
const MODULES: &[&str] = &["damon_reclaim", "damon_lru_sort", "damon_stat"];

/// DAMON as found below `fs`'s root.
pub(super) fn read_damon(fs: &Root) -> Damon {
    let modules = MODULES
        .iter()
        .filter_map(|m| {
            let on = fs.read_trim(&format!("/sys/module/{m}/parameters/enabled"))?;
            Some((m.to_string(), matches!(on.as_str(), "Y" | "y" | "1")))
        })
        .collect();
    Damon {
        sysfs: read_sysfs(fs),
        modules,
    }
}

fn read_sysfs(fs: &Root) -> DamonSysfs {
    let n = match file(fs, &format!("{ADMIN}/kdamonds/nr_kdamonds")) {
        Err(why) => return DamonSysfs::Unknown(why),
        Ok(None) if fs.exists("/sys/kernel/mm") && !fs.exists(ADMIN) => return DamonSysfs::Absent,
        Ok(None) => return DamonSysfs::Unknown(format!("no {ADMIN}/kdamonds/nr_kdamonds")),
        Ok(Some(n)) => match n.parse::<usize>() {
            Ok(n) => n,
            Err(_) => return DamonSysfs::Unknown(format!("nr_kdamonds reads {n:?}")),
        },
    };
    DamonSysfs::Kdamonds(
        (0..n.min(64))
            .map(|i| read_kdamond(fs, &format!("{ADMIN}/kdamonds/{i}")))
            .collect(),
    )
}

fn read_kdamond(fs: &Root, dir: &str) -> Kdamond {
    let n = fs
        .read_u64(&format!("{dir}/contexts/nr_contexts"))
        .unwrap_or(0);
    Kdamond {
        state: fs.read_trim(&format!("{dir}/state")),
        contexts: (0..n.min(64))
            .map(|i| read_context(fs, &format!("{dir}/contexts/{i}")))
            .collect(),
    }
}

fn read_context(fs: &Root, dir: &str) -> DamonContext {
    let iv = format!("{dir}/monitoring_attrs/intervals");
    let n = fs
        .read_u64(&format!("{dir}/schemes/nr_schemes"))
        .unwrap_or(0);
    DamonContext {
        operations: fs.read_trim(&format!("{dir}/operations")),
        sample_us: fs.read_u64(&format!("{iv}/sample_us")),
        aggr_us: fs.read_u64(&format!("{iv}/aggr_us")),
        update_us: fs.read_u64(&format!("{iv}/update_us")),
        schemes: (0..n.min(64))
            .map(|i| read_scheme(fs, &format!("{dir}/schemes/{i}")))
            .collect(),
    }
}

fn read_scheme(fs: &Root, dir: &str) -> DamonScheme {
    let q = format!("{dir}/quotas");
    let p = format!("{dir}/access_pattern");
    DamonScheme {
        action: fs.read_trim(&format!("{dir}/action")),
        nr_accesses: range(fs, &format!("{p}/nr_accesses")),
        age: range(fs, &format!("{p}/age")),
        quota_bytes: fs.read_u64(&format!("{q}/bytes")),
        quota_ms: fs.read_u64(&format!("{q}/ms")),
        quota_reset_ms: fs.read_u64(&format!("{q}/reset_interval_ms")),
        watermarks: fs.read_trim(&format!("{dir}/watermarks/metric")),
        // `filters` is the older folder; 6.14 on also has core_ and
        // ops_filters, which the kernel applies in that order.
        filters: ["core_filters", "ops_filters", "filters"]
            .iter()
            .flat_map(|d| read_filters(fs, &format!("{dir}/{d}")))
            .collect(),
    }
}

fn read_filters(fs: &Root, dir: &str) -> Vec<String> {
    let n = fs.read_u64(&format!("{dir}/nr_filters")).unwrap_or(0);
    (0..n.min(64))
        .filter_map(|i| {
            let f = format!("{dir}/{i}");
            let kind = fs.read_trim(&format!("{f}/type"))?;
            // Before 6.14 every filter rejected what it matched.
            let allow = fs
                .read_trim(&format!("{f}/allow"))
                .is_some_and(|a| a == "Y");
            let matching = fs
                .read_trim(&format!("{f}/matching"))
                .is_none_or(|m| m == "Y");
            let what = match kind.as_str() {
                "memcg" => format!("memcg {}", fs.read_trim(&format!("{f}/memcg_path"))?),
                _ => kind,
            };
            Some(format!(
                "{} {}{what}",
                if allow { "allow" } else { "reject" },
                if matching { "" } else { "not " }
            ))
        })
        .collect()
}

/// Microseconds as a whole number of the largest unit that keeps it
/// exact: "500 ms", "60 s", "1500 µs".
fn dur(us: u64) -> String {
    match us {
        0 => "0 s".into(),
        _ if us.is_multiple_of(1_000_000) => format!("{} s", us / 1_000_000),
        _ if us.is_multiple_of(1_000) => format!("{} ms", us / 1_000),
        _ => format!("{us} µs"),
    }
}

impl DamonScheme {
    fn words(&self, ctx: &DamonContext) -> String {
        let mut s = self
            .action
            .clone()
            .unwrap_or_else(|| "unknown action".into());
        if let Some((lo, hi)) = self.age {
            let aggr = ctx.aggr_us.unwrap_or(0);
            let upto = if hi >= u64::from(u32::MAX) {
                String::new()
            } else {
                format!(" to {}", dur(hi.saturating_mul(aggr)))
            };
            s += &format!(
                " of regions idle {}{upto} ({lo} aggregations)",
                dur(lo.saturating_mul(aggr))
            );
        }
        if let Some((lo, hi)) = self.nr_accesses {
            let of = match (ctx.sample_us, ctx.aggr_us) {
                (Some(sample), Some(aggr)) if sample > 0 => format!(" of {}", aggr / sample),
                _ => String::new(),
            };
            s += &format!(", {lo}..{hi}{of} samples accessed");
        }
        let limits: Vec<String> = [
            self.quota_bytes
                .filter(|&b| b > 0)
                .map(crate::units::fmt_size),
            self.quota_ms
                .filter(|&m| m > 0)
                .map(|m| dur(m.saturating_mul(1000))),
        ]
        .into_iter()
        .flatten()
        .collect();
        s += &if limits.is_empty() {
            ", no quota".to_string()
        } else {
            format!(
                ", quota {} per {}",
                limits.join(" and "),
                self.quota_reset_ms
                    .map_or("?".into(), |ms| dur(ms.saturating_mul(1000)))
            )
        };
        if let Some(w) = self.watermarks.as_deref().filter(|w| *w != "none") {
            s += &format!(", active by watermarks of {w}");
        }
        if !self.filters.is_empty() {
            s += &format!(", filters: {}", self.filters.join(", "));
        }
        s
    }
}

impl Kdamond {
    fn words(&self, i: usize) -> String {
        let contexts: Vec<String> = self
            .contexts
            .iter()
            .map(|c| {
                let mut s = c.operations.clone().unwrap_or_else(|| "unknown".into());
                if let (Some(sample), Some(aggr)) = (c.sample_us, c.aggr_us) {
                    s += &format!(" (sampling {}, aggregation {})", dur(sample), dur(aggr));
                }
                for sc in &c.schemes {
                    s += &format!("; {}", sc.words(c));
                }
                s
            })
            .collect();
        format!(
            "kdamond {i} {}: {}",
            self.state.as_deref().unwrap_or("state unknown"),
            if contexts.is_empty() {
                "no context".into()
            } else {
                contexts.join(" | ")
            }
        )
    }
}

impl Damon {
    /// The line `env` prints and compare compares.
    pub fn words(&self) -> String {
        let mut parts = match &self.sysfs {
            DamonSysfs::Absent => Vec::new(),
            DamonSysfs::Unknown(why) => vec![format!("unknown ({why})")],
            DamonSysfs::Kdamonds(k) if k.is_empty() => vec!["no kdamond".to_string()],
            DamonSysfs::Kdamonds(k) => k.iter().enumerate().map(|(i, k)| k.words(i)).collect(),
        };
        parts.extend(
            self.modules
                .iter()
                .map(|(m, on)| format!("{m} {}", if *on { "on" } else { "off" })),
        );
        if parts.is_empty() {
            "no DAMON".into()
        } else {
            parts.join("; ")
        }
    }
}

#[cfg(test)]
#[path = "damon_tests.rs"]
mod tests;
