//! The facts that explain why two machines' figures differ, beyond the CPU
//! and the kernel: how a CPU idles (and so how dear waking it is), whether
//! the TLB keeps entries across switches (PCID), whether a balloon or free
//! page reporting takes memory back, whether DAMON drops idle memory
//! (`damon`), how much the hypervisor stole since
//! boot, the kernel command line, seccomp, cgroup limits and throttling,
//! NUMA nodes, the per-size THP settings, and how far the kernel's RSS
//! counters may lag. Read below the same configurable root as the rest of
//! `env`, so each parser is tested on fixture text.

use super::idle::read_cpuidle;
pub use super::idle::{cpuidle_at, idle_poll_plan, CpuIdle, IdlePollPlan};
use super::{bracketed_choice, cgroup_v1_path, cgroup_v2_path, Root};
use serde::{Deserialize, Serialize};
use std::fs;

/// The machine facts beyond [`super::Env`]'s first-generation fields.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Facts {
    pub cpuidle: Option<CpuIdle>,
    /// cpuinfo flags: process-context identifiers keep TLB entries across
    /// address-space switches; INVPCID flushes one of them.
    pub pcid: bool,
    pub invpcid: bool,
    /// A memory balloon or free page reporting, as found: "virtio_balloon
    /// (free page reporting)", "virtio_mem"; empty when none.
    pub balloon: Vec<String>,
    /// Free page reporting as this kernel runs it (None when it has none).
    pub page_reporting: Option<PageReporting>,
    /// DAMON's kdamonds and schemes (a `pageout` scheme drops idle page
    /// cache); None in files from before it was recorded.
    pub damon: Option<super::Damon>,
    /// Steal time of all CPUs since boot, and as a share of all CPUs' time
    /// since boot.
    pub steal_since_boot_ns: Option<u64>,
    pub steal_since_boot_share: Option<f64>,
    /// The kernel command line's allowlisted parameters with their values
    /// (`env::cmdline::ALLOWLIST`), never the whole line; files from before
    /// hold the whole line, and are cut down when shown.
    pub cmdline: Option<String>,
    /// "disabled", "strict" or "filter (N filters)".
    pub seccomp: Option<String>,
    pub cgroup: Cgroup,
    pub numa_nodes: Option<usize>,
    /// (size, setting) of every mTHP size: ("64kB", "never"), ...
    pub mthp: Vec<(String, String)>,
    pub rss_counting: Option<RssCounting>,
    /// Namespaces of this process that are not the host's initial ones.
    pub own_namespaces: Vec<String>,
}

/// Free page reporting: the guest tells the host which free blocks it may
/// take back, and touching one again costs a fault on the host too.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PageReporting {
    /// `page_reporting_order`: free blocks of 2^order pages and more are
    /// reported.
    pub order: u32,
    /// KiB reported since boot, where the kernel counts it (a
    /// `reported_kib` parameter, not upstream's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported_kib: Option<u64>,
    /// `min_free_ms`, where the kernel has it (not upstream's): 0 on this
    /// VM, where a run's own freed huge pages were reported within the run;
    /// 60000 held them back (docs/WHY.md, session 24).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_free_ms: Option<u64>,
}

impl PageReporting {
    /// Its settings in words, `min_free_ms` only when `with_min_free` (a
    /// file from before it was recorded says nothing of it).
    pub fn settings(&self, with_min_free: bool) -> String {
        match self.min_free_ms.filter(|_| with_min_free) {
            Some(ms) => format!("page_reporting_order {}, min_free_ms {ms}", self.order),
            None => format!("page_reporting_order {}", self.order),
        }
    }
}

/// cgroup facts: the version mounted and the CPU limit (memory and pids
/// limits are in [`super::Limits`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Cgroup {
    /// "v2", "v1" or "hybrid" (v1 controllers with a v2 hierarchy beside).
    pub version: Option<String>,
    /// CPUs' worth of time the CPU quota allows (quota / period); None = no
    /// quota found.
    pub cpu_quota_cpus: Option<f64>,
    /// Periods in which the cgroup was throttled, since it was created.
    pub nr_throttled: Option<u64>,
    /// Time the cgroup's tasks were held back by the quota, since it was
    /// created (v2 `throttled_usec`; v1 `throttled_time` / 1000).
    pub throttled_usec: Option<u64>,
}

/// The cgroup's throttling counters at one moment (`cpu.stat`): the run
/// takes them before and after, and each round before and after.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Throttling {
    pub nr_throttled: u64,
    pub throttled_usec: u64,
}

impl Throttling {
    /// What grew from `then` to `self` (a counter never shrinks; a reset
    /// cgroup reads as no growth).
    pub fn since(self, then: Throttling) -> Throttling {
        Throttling {
            nr_throttled: self.nr_throttled.saturating_sub(then.nr_throttled),
            throttled_usec: self.throttled_usec.saturating_sub(then.throttled_usec),
        }
    }

    /// How often and how long, in words: "1,018 times (60.1 s held back)",
    /// "once (12.0 ms held back)".
    pub fn words(self) -> String {
        let times = if self.nr_throttled == 1 {
            "once".to_string()
        } else {
            format!(
                "{} times",
                crate::units::group_digits(self.nr_throttled as i64)
            )
        };
        format!(
            "{times} ({} held back)",
            crate::units::fmt_ns(self.throttled_usec as f64 * 1000.0)
        )
    }
}

/// How the kernel counts RSS, and how far a figure read from it may lag.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RssCounting {
    pub regime: String,
    /// Pages the counter may lag, as a rule: "64 per thread", or the
    /// per-CPU bound for this machine.
    pub bound: String,
    /// The per-CPU bound in bytes (None for the per-thread regime, whose
    /// bound grows with the threads).
    pub bound_bytes: Option<u64>,
}

/// Initial namespaces' inode numbers (fixed in the kernel: PROC_*_INIT_INO).
const INIT_NS: &[(&str, u64)] = &[
    ("pid", 0xEFFF_FFFC),
    ("user", 0xEFFF_FFFD),
    ("uts", 0xEFFF_FFFE),
    ("ipc", 0xEFFF_FFFF),
    ("cgroup", 0xEFFF_FFFB),
    ("time", 0xEFFF_FFFA),
];

const PAGE: u64 = 4096;

impl Facts {
    pub(super) fn read(fs: &Root, flags: &str, kernel: &str, cpus: usize) -> Facts {
        let has = |f: &str| flags.split_whitespace().any(|x| x == f);
        // Only what shapes figures is kept: the line may hold secrets.
        let cmdline = fs
            .read_trim("/proc/cmdline")
            .map(|l| super::cmdline::allowlisted(&l));
        let steal = fs.read("/proc/stat").and_then(|s| steal_ticks(&s));
        let uptime_s: Option<f64> = fs
            .read("/proc/uptime")
            .and_then(|u| u.split_whitespace().next()?.parse().ok());
        let steal_since_boot_ns = steal.map(|t| t * 10_000_000);
        let steal_since_boot_share = match (steal_since_boot_ns, uptime_s) {
            (Some(s), Some(up)) if up > 0.0 && cpus > 0 => {
                Some(s as f64 / (up * 1e9 * cpus as f64))
            }
            _ => None,
        };
        Facts {
            cpuidle: read_cpuidle(fs),
            pcid: has("pcid"),
            invpcid: has("invpcid"),
            balloon: read_balloon(fs),
            page_reporting: fs
                .read_u64("/sys/module/page_reporting/parameters/page_reporting_order")
                .map(|order| PageReporting {
                    order: order as u32,
                    reported_kib: fs.read_u64("/sys/module/page_reporting/parameters/reported_kib"),
                    min_free_ms: fs.read_u64("/sys/module/page_reporting/parameters/min_free_ms"),
                }),
            damon: Some(super::damon::read_damon(fs)),
            steal_since_boot_ns,
            steal_since_boot_share,
            seccomp: fs.read("/proc/self/status").and_then(|s| seccomp_mode(&s)),
            cgroup: read_cgroup(fs),
            numa_nodes: fs
                .read("/sys/devices/system/node/online")
                .and_then(|s| super::parse_cpu_list(&s).ok())
                .map(|v| v.len())
                .filter(|&n| n > 0),
            mthp: read_mthp(fs),
            rss_counting: rss_counting(kernel, cpus),
            own_namespaces: own_namespaces(fs),
            cmdline,
        }
    }

    /// Ok(how) when an idle CPU here polls for work instead of halting, so
    /// a wake-up needs no interrupt; Err(why not), with what this boot
    /// allows to change it (`idle::polling_idle`). `hypervisor` is the
    /// environment's virtualisation (`Env::virtualization`, None on bare
    /// metal): a HLT is said to exit to the host only under one.
    pub fn polling_idle(&self, hypervisor: Option<&str>) -> Result<String, String> {
        super::idle::polling_idle(self.cmdline.as_deref(), self.cpuidle.as_ref(), hypervisor)
    }

    /// The cpuidle driver, governor and states in a line.
    fn cpuidle_words(&self) -> String {
        super::idle::cpuidle_words(self.cpuidle.as_ref())
    }

    /// The cgroup's version, CPU quota and throttling in a line.
    fn cgroup_words(&self) -> String {
        let c = &self.cgroup;
        format!(
            "{}; CPU quota {}; throttled periods {}",
            c.version.as_deref().unwrap_or("not mounted"),
            c.cpu_quota_cpus
                .map_or("none".into(), |q| format!("{q:.2} CPUs")),
            c.nr_throttled.map_or("unknown".into(), |n| format!(
                "{}{} since the cgroup was made",
                crate::units::group_digits(n as i64),
                c.throttled_usec.map_or(String::new(), |us| format!(
                    " ({} held back)",
                    crate::units::fmt_ns(us as f64 * 1000.0)
                ))
            ))
        )
    }

    /// Lines "key: value" for humans; `hypervisor` as for
    /// [`Facts::polling_idle`].
    pub fn describe(&self, hypervisor: Option<&str>) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut push = |k: &str, v: String| out.push((k.to_string(), v));
        push("cpuidle", self.cpuidle_words());
        push(
            "polling idle",
            match self.polling_idle(hypervisor) {
                Ok(how) => format!("yes: {how}"),
                Err(why) => format!("no: {why}"),
            },
        );
        push(
            "PCID",
            format!(
                "pcid {}, invpcid {}",
                yes_no(self.pcid),
                yes_no(self.invpcid)
            ),
        );
        push(
            "balloon",
            if self.balloon.is_empty() {
                "none found".into()
            } else {
                self.balloon.join(", ")
            },
        );
        if let Some(r) = &self.page_reporting {
            let reported = r.reported_kib.map_or(String::new(), |k| {
                format!("; {} reported since boot", crate::units::fmt_size(k * 1024))
            });
            push(
                "page reporting",
                format!(
                    "free blocks of {} and more ({}){reported}",
                    crate::units::fmt_size(crate::sys::PAGE as u64 * (1u64 << r.order.min(40))),
                    r.settings(true)
                ),
            );
        }
        if let Some(d) = &self.damon {
            push("DAMON", d.words());
        }
        push(
            "boot steal",
            match (self.steal_since_boot_ns, self.steal_since_boot_share) {
                (Some(ns), Some(share)) => format!(
                    "{} ({} of all CPUs' time)",
                    crate::units::fmt_ns(ns as f64),
                    pct(share)
                ),
                (Some(ns), None) => crate::units::fmt_ns(ns as f64),
                _ => "unknown".into(),
            },
        );
        push(
            "seccomp",
            self.seccomp.clone().unwrap_or_else(|| "unknown".into()),
        );
        push("cgroup", self.cgroup_words());
        push(
            "NUMA nodes",
            self.numa_nodes.map_or("unknown".into(), |n| n.to_string()),
        );
        push(
            "mTHP",
            if self.mthp.is_empty() {
                "no per-size settings".into()
            } else {
                self.mthp
                    .iter()
                    .map(|(s, v)| format!("{s} {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            },
        );
        push(
            "RSS counting",
            self.rss_counting.as_ref().map_or("unknown".into(), |r| {
                format!("{}: may lag {}", r.regime, r.bound)
            }),
        );
        push(
            "namespaces",
            if self.own_namespaces.is_empty() {
                "the host's (initial) ones".into()
            } else {
                format!("own {}", self.own_namespaces.join(", "))
            },
        );
        push(
            "kernel parameters",
            match self.cmdline.as_deref().map(super::cmdline::allowlisted) {
                None => "unknown".into(),
                Some(p) if p.is_empty() => "none of those that shape figures".into(),
                Some(p) => p,
            },
        );
        out
    }
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// A share as a percentage with sensible digits.
fn pct(share: f64) -> String {
    let p = share * 100.0;
    if p >= 10.0 {
        format!("{p:.0}%")
    } else {
        format!("{p:.2}%")
    }
}

/// The steal ticks of /proc/stat's `cpu` line.
pub(super) fn steal_ticks(stat: &str) -> Option<u64> {
    stat.lines()
        .find(|l| l.starts_with("cpu "))?
        .split_whitespace()
        .nth(8)?
        .parse()
        .ok()
}

/// virtio device id 5 is the balloon; its feature bit 5 is free page
/// reporting (VIRTIO_BALLOON_F_REPORTING). virtio_mem and Hyper-V's and
/// VMware's balloons are named by their drivers.
fn read_balloon(fs: &Root) -> Vec<String> {
    let mut out = Vec::new();
    if let Ok(dir) = fs::read_dir(fs.path("/sys/bus/virtio/devices")) {
        let mut devs: Vec<_> = dir.flatten().map(|e| e.path()).collect();
        devs.sort();
        for d in devs {
            let id = fs::read_to_string(d.join("device")).unwrap_or_default();
            if id.trim() != "0x0005" {
                continue;
            }
            let feats = fs::read_to_string(d.join("features")).unwrap_or_default();
            out.push(if feature_bit(&feats, 5) {
                "virtio_balloon (free page reporting)".to_string()
            } else {
                "virtio_balloon".to_string()
            });
        }
    }
    for (driver, name) in [
        ("/sys/bus/virtio/drivers/virtio_mem", "virtio_mem driver"),
        ("/sys/bus/vmbus/drivers/hv_balloon", "hv_balloon"),
        ("/sys/bus/pci/drivers/vmw_balloon", "vmw_balloon"),
    ] {
        let bound = fs::read_dir(fs.path(driver)).is_ok_and(|d| {
            d.flatten().any(|e| {
                e.file_name().to_string_lossy().contains(':')
                    || e.file_name().to_string_lossy().starts_with("virtio")
            })
        });
        if bound {
            out.push(name.to_string());
        }
    }
    out
}

/// Bit `n` of a virtio `features` file: one '0'/'1' character per bit, bit
/// 0 first.
pub(super) fn feature_bit(features: &str, n: usize) -> bool {
    features.trim().as_bytes().get(n) == Some(&b'1')
}

/// The `Seccomp:` line of /proc/self/status.
pub(super) fn seccomp_mode(status: &str) -> Option<String> {
    let field = |k: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(k)?.strip_prefix(':').map(str::trim))
    };
    let filters = field("Seccomp_filters").and_then(|f| f.parse::<u64>().ok());
    Some(match field("Seccomp")? {
        "0" => "disabled".to_string(),
        "1" => "strict".to_string(),
        "2" => format!(
            "filter ({} filters)",
            filters.map_or("?".into(), |n| n.to_string())
        ),
        other => format!("mode {other}"),
    })
}

fn read_cgroup(fs: &Root) -> Cgroup {
    let self_cg = fs.read("/proc/self/cgroup").unwrap_or_default();
    let v2 = fs.exists("/sys/fs/cgroup/cgroup.controllers");
    let v1 = self_cg
        .lines()
        .any(|l| !l.starts_with("0::") && !l.trim().is_empty());
    let version = match (
        v1,
        v2 || fs.exists("/sys/fs/cgroup/unified/cgroup.controllers"),
    ) {
        (true, true) => Some("hybrid".to_string()),
        (true, false) => Some("v1".to_string()),
        (false, true) => Some("v2".to_string()),
        (false, false) => None,
    };
    let mut quota = None;
    let mut throttled = None;
    let mut throttled_usec = None;
    if v2 {
        if let Some(rel) = cgroup_v2_path(&self_cg) {
            let dir = format!("/sys/fs/cgroup/{}", rel.display());
            quota = rel.ancestors().find_map(|a| {
                cpu_max(&fs.read(&format!("/sys/fs/cgroup/{}/cpu.max", a.display()))?)
            });
            if let Some(stat) = fs.read(&format!("{dir}/cpu.stat")) {
                throttled = stat_field(&stat, "nr_throttled");
                throttled_usec = stat_field(&stat, "throttled_usec");
            }
        }
    } else if let Some(rel) = cgroup_v1_path(&self_cg, "cpu") {
        for base in ["/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"] {
            let dir = format!("{base}/{}", rel.display());
            let q: Option<i64> = fs
                .read_trim(&format!("{dir}/cpu.cfs_quota_us"))
                .and_then(|s| s.parse().ok());
            let p: Option<u64> = fs.read_u64(&format!("{dir}/cpu.cfs_period_us"));
            if let (Some(q), Some(p)) = (q, p) {
                quota = (q > 0 && p > 0).then(|| q as f64 / p as f64);
            }
            let stat = fs.read(&format!("{dir}/cpu.stat")).unwrap_or_default();
            if let Some(t) = stat_field(&stat, "nr_throttled") {
                throttled = Some(t);
                // v1 counts the time held back in ns.
                throttled_usec = stat_field(&stat, "throttled_time").map(|ns| ns / 1000);
                break;
            }
        }
    }
    Cgroup {
        version,
        cpu_quota_cpus: quota,
        nr_throttled: throttled,
        throttled_usec,
    }
}

/// cgroup v2 `cpu.max` ("max 100000" or "50000 100000") as CPUs.
pub(super) fn cpu_max(text: &str) -> Option<f64> {
    let mut it = text.split_whitespace();
    let q: f64 = it.next()?.parse().ok()?;
    let p: f64 = it.next()?.parse().ok()?;
    (p > 0.0).then(|| q / p)
}

/// `key value` in a cpu.stat text.
pub(super) fn stat_field(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(' ')?;
        (k == key).then(|| v.trim().parse().ok())?
    })
}

/// This process's cgroup's throttling counters now, from the real /: the
/// run records their growth over the run and over each round. None when
/// the cgroup has no `cpu.stat` with `nr_throttled` (no CPU controller).
pub fn throttling_now() -> Option<Throttling> {
    let root = std::path::Path::new("/");
    throttling(&read_cgroup(&Root { root }))
}

/// This process's cgroup's CPU quota now, in CPUs (a worker reads it to
/// say what its parallel figures had); None without one.
pub fn cpu_quota_now() -> Option<f64> {
    let root = std::path::Path::new("/");
    read_cgroup(&Root { root }).cpu_quota_cpus
}

/// The counters of a cgroup's facts (a missing time reads as 0).
pub fn throttling(c: &Cgroup) -> Option<Throttling> {
    Some(Throttling {
        nr_throttled: c.nr_throttled?,
        throttled_usec: c.throttled_usec.unwrap_or(0),
    })
}

fn read_mthp(fs: &Root) -> Vec<(String, String)> {
    let Ok(dir) = fs::read_dir(fs.path("/sys/kernel/mm/transparent_hugepage")) else {
        return Vec::new();
    };
    let mut v: Vec<(u64, String, String)> = dir
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let size = name.strip_prefix("hugepages-")?.to_string();
            let kb: u64 = size.strip_suffix("kB")?.parse().ok()?;
            let setting = bracketed_choice(&fs::read_to_string(e.path().join("enabled")).ok()?)?;
            Some((kb, size, setting))
        })
        .collect();
    v.sort();
    v.into_iter().map(|(_, s, e)| (s, e)).collect()
}

/// The RSS-counting regime of kernel `release` ("6.8.0-45-generic"): before
/// 6.2 each thread batches up to 64 page-count changes before it adds them
/// to the process's counters; from 6.2 per-CPU counters are read without
/// summing, off by up to nr_cpus × max(32, 2 × nr_cpus) pages (about
/// nr_cpus² on large machines).
pub fn rss_counting(release: &str, cpus: usize) -> Option<RssCounting> {
    let mut nums = release
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<u64>().ok());
    let (major, minor) = (nums.next()??, nums.next()??);
    Some(if (major, minor) < (6, 2) {
        RssCounting {
            regime: "per-thread counters (before 6.2)".into(),
            bound: "up to 64 pages (256 KiB) per thread".into(),
            bound_bytes: None,
        }
    } else {
        let n = cpus.max(1) as u64;
        let pages = n * (2 * n).max(32);
        RssCounting {
            regime: "per-CPU counters (6.2 and later)".into(),
            bound: format!(
                "up to {} pages ({}) with {n} CPUs",
                crate::units::group_digits(pages as i64),
                crate::units::fmt_size_approx(pages * PAGE)
            ),
            bound_bytes: Some(pages * PAGE),
        }
    })
}

/// The namespaces of this process that are not the initial ones, from the
/// /proc/self/ns links ("pid:[4026531836]").
fn own_namespaces(fs: &Root) -> Vec<String> {
    INIT_NS
        .iter()
        .filter_map(|(name, init)| {
            let link = fs::read_link(fs.path(&format!("/proc/self/ns/{name}"))).ok()?;
            let ino = ns_inode(&link.to_string_lossy())?;
            (ino != *init).then(|| name.to_string())
        })
        .collect()
}

/// The inode of a namespace link's text "pid:[4026531836]".
pub(super) fn ns_inode(link: &str) -> Option<u64> {
    link.split_once(":[")?.1.strip_suffix(']')?.parse().ok()
}
