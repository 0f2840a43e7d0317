//! What the machine is: the hardware, kernel and configuration facts that
//! shape every figure tasklab reports.
//!
//! Thread and process costs depend heavily on things outside the program:
//! CPU model and frequency, virtualisation (VM exits make page faults and
//! context switches dearer), speculative-execution mitigations (they tax
//! every kernel entry), transparent huge pages, the clock source (a non-TSC
//! clock makes timing itself slow), preemption model and resource limits.
//! `tasklab env` prints this and every results file records it, so figures
//! from different machines can be compared honestly.
//!
//! Everything is read from `/proc` and `/sys` below a configurable root so
//! the parsing can be tested against a fake tree. Facts that need syscalls
//! (rlimits, affinity, `uname`) or measurement are filled in by the caller.

pub mod cmdline;
pub mod damon;
mod facts;
pub mod fingerprint;
pub mod hardware;
mod idle;
pub mod label;
mod mitigations;
mod probe;
pub use damon::Damon;
pub use facts::{
    cpu_quota_now, cpuidle_at, idle_poll_plan, rss_counting, throttling_now, Facts, IdlePollPlan,
    RssCounting, Throttling,
};
pub use fingerprint::Fingerprint;
pub use hardware::Hardware;
pub use mitigations::{active_mitigations, mitigations_active_text};
use mitigations::{mitigations_summary, read_mitigations};
#[cfg(test)]
use mitigations::{vuln_state, VulnState};
pub use probe::probe;

use std::fs;
use std::path::{Component, Path, PathBuf};

/// The environment a measurement ran in.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct Env {
    pub hostname: String,
    /// First "model name" in /proc/cpuinfo, or "unknown".
    pub cpu_model: String,
    /// Number of CPUs in /sys/devices/system/cpu/online.
    pub cpus_online: usize,
    /// CPUs this process may run on; filled by the caller.
    pub cpus_allowed: Vec<usize>,
    /// Nominal frequency: from the model name ("@ 3.40GHz"), else cpufreq's
    /// cpuinfo_max_freq.
    pub stated_mhz: Option<f64>,
    /// First "cpu MHz" in /proc/cpuinfo (a snapshot, often stale in VMs).
    pub cpuinfo_mhz: Option<f64>,
    /// Measured by the caller; None here.
    pub measured_mhz: Option<f64>,
    pub governor: Option<String>,
    /// Kernel release; supplied by the caller (from `uname`).
    pub kernel: String,
    pub arch: String,
    /// Hypervisor name, "unknown hypervisor", or None on bare metal.
    pub virtualization: Option<String>,
    /// Container runtime hint, or None when none was found.
    pub container: Option<String>,
    pub thp_enabled: Option<String>,
    pub thp_defrag: Option<String>,
    /// (vulnerability name, kernel's status text), sorted by name.
    pub mitigations: Vec<(String, String)>,
    pub clocksource: Option<String>,
    /// cpuinfo flags include both constant_tsc and nonstop_tsc.
    pub tsc_invariant: bool,
    pub preempt: Option<String>,
    /// 0 when unknown.
    pub mem_total_bytes: u64,
    /// 0 when unknown.
    pub mem_available_bytes: u64,
    pub limits: Limits,
    /// Idle states, PCID, balloon, steal, cmdline, seccomp, cgroup CPU
    /// limits, NUMA, mTHP, the RSS-counting regime, namespaces (schema 2;
    /// absent from older files).
    #[serde(default)]
    pub facts: Facts,
    /// The machine's fingerprint, of the fields above (`probe` fills it;
    /// absent from older files: `Fingerprint::of` computes it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<Fingerprint>,
    /// Microcode, cores, threads per core, caches, boost, the machine id's
    /// hash (absent from older files: unknown).
    #[serde(default)]
    pub hardware: Hardware,
    /// The run's label (`run --label`; the hostname made a label by
    /// default); absent from older files, whose label is their hostname.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// `run --redact`: the hostname, the machine id and every path under a
    /// home folder were taken out of the file.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub redacted: bool,
}

/// Limits that cap how many threads/processes/mappings a run can create.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct Limits {
    pub threads_max: Option<u64>,
    pub pid_max: Option<u64>,
    pub max_map_count: Option<u64>,
    /// Soft limit; None = unlimited. Filled by the caller.
    pub rlimit_nproc: Option<u64>,
    /// Soft limit in bytes; None = unlimited. Filled by the caller.
    pub rlimit_stack: Option<u64>,
    /// Soft limit in bytes; None = unlimited. Filled by the caller.
    pub rlimit_as: Option<u64>,
    /// Tightest cgroup pids.max (v2, or v1's pids hierarchy) on the path
    /// from this process's cgroup to the root; None = no limit found.
    pub cgroup_pids_max: Option<u64>,
    /// Tightest cgroup v2 memory.max likewise, or cgroup v1
    /// memory.limit_in_bytes where that is tighter; None = no limit found.
    pub cgroup_memory_max: Option<u64>,
}

impl Env {
    /// Reads everything from the real /proc and /sys. Never panics; missing files give None/"unknown".
    ///
    /// `root` is "/" normally; every absolute path is looked up below it so
    /// tests can point it at a directory of fake files. Caller-owned fields
    /// (`cpus_allowed`, `measured_mhz`, rlimits) are left empty/None.
    pub fn read_from(root: &Path, kernel_release: String, arch: String) -> Env {
        let fs = Root { root };
        let cpuinfo = fs.read("/proc/cpuinfo").unwrap_or_default();
        let meminfo = fs.read("/proc/meminfo").unwrap_or_default();
        let flags = cpuinfo_field(&cpuinfo, "flags").unwrap_or("");
        let has_flag = |f: &str| flags.split_whitespace().any(|x| x == f);

        let hostname = fs
            .read_trim("/proc/sys/kernel/hostname")
            .or_else(|| fs.read_trim("/etc/hostname"))
            .unwrap_or_else(|| "unknown".to_string());

        // "model name" is x86 (and some ARM); the others cover POWER/MIPS/ARM32.
        let cpu_model = ["model name", "cpu model", "cpu", "Hardware"]
            .iter()
            .find_map(|k| cpuinfo_field(&cpuinfo, k))
            .unwrap_or("unknown")
            .to_string();

        let cpus_online = fs
            .read("/sys/devices/system/cpu/online")
            .and_then(|s| parse_cpu_list(&s).ok())
            .map(|v| v.len())
            .filter(|&n| n > 0)
            .unwrap_or_else(|| {
                std::thread::available_parallelism()
                    .map(|n| n.get())
                    .unwrap_or(1)
            });

        let stated_mhz = stated_mhz_from_model(&cpu_model).or_else(|| {
            // cpufreq reports kHz.
            fs.read_u64("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")
                .filter(|&khz| khz > 0)
                .map(|khz| khz as f64 / 1000.0)
        });
        let cpuinfo_mhz = cpuinfo_field(&cpuinfo, "cpu MHz")
            .and_then(|s| s.parse::<f64>().ok())
            .filter(|m| m.is_finite() && *m > 0.0);

        let proc_version = fs.read("/proc/version").unwrap_or_default();
        let virtualization = read_virtualization(&fs, &proc_version, has_flag("hypervisor"));

        let preempt = read_preempt(&fs, &proc_version);

        let facts = Facts::read(&fs, flags, &kernel_release, cpus_online);
        Env {
            hostname,
            cpu_model,
            cpus_online,
            cpus_allowed: Vec::new(),
            stated_mhz,
            cpuinfo_mhz,
            measured_mhz: None,
            governor: fs.read_trim("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
            kernel: kernel_release,
            arch,
            virtualization,
            container: detect_container(&fs, &facts.own_namespaces),
            thp_enabled: fs
                .read("/sys/kernel/mm/transparent_hugepage/enabled")
                .and_then(|s| bracketed_choice(&s)),
            thp_defrag: fs
                .read("/sys/kernel/mm/transparent_hugepage/defrag")
                .and_then(|s| bracketed_choice(&s)),
            mitigations: read_mitigations(&fs),
            clocksource: fs
                .read_trim("/sys/devices/system/clocksource/clocksource0/current_clocksource"),
            tsc_invariant: has_flag("constant_tsc") && has_flag("nonstop_tsc"),
            preempt,
            mem_total_bytes: meminfo_bytes(&meminfo, "MemTotal").unwrap_or(0),
            mem_available_bytes: meminfo_bytes(&meminfo, "MemAvailable").unwrap_or(0),
            limits: read_limits(&fs),
            facts,
            fingerprint: None,
            hardware: Hardware::read(&fs, &cpuinfo),
            label: None,
            redacted: false,
        }
    }

    /// Lines "key: value" for humans, in a sensible order.
    pub fn describe(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = Vec::new();
        let mut push = |k: &str, v: String| out.push((k.to_string(), v));

        push("host", self.hostname.clone());
        push("label", self.label());

        let mut cpu = format!("{}, {} online", self.cpu_model, self.cpus_online);
        if !self.cpus_allowed.is_empty() {
            cpu.push_str(&format!(", allowed {}", cpu_list(&self.cpus_allowed)));
        }
        push("CPU", cpu);

        let mut freq = Vec::new();
        if let Some(m) = self.stated_mhz {
            freq.push(format!("stated {m:.0} MHz"));
        }
        if let Some(m) = self.cpuinfo_mhz {
            freq.push(format!("/proc/cpuinfo {m:.0} MHz"));
        }
        if let Some(m) = self.measured_mhz {
            freq.push(format!("measured {m:.0} MHz"));
        }
        if let Some(g) = &self.governor {
            freq.push(format!("governor {g}"));
        }
        push("frequency", join_or_unknown(freq, "; "));

        push("kernel", format!("{} ({})", self.kernel, self.arch));
        push(
            "virtualisation",
            self.virtualization
                .clone()
                .unwrap_or_else(|| "none detected".to_string()),
        );
        push(
            "container",
            self.container
                .clone()
                .unwrap_or_else(|| "none detected".to_string()),
        );
        push(
            "THP",
            format!(
                "enabled={} defrag={}",
                self.thp_enabled.as_deref().unwrap_or("unknown"),
                self.thp_defrag.as_deref().unwrap_or("unknown")
            ),
        );
        push("mitigations", mitigations_summary(&self.mitigations));

        let clock = match &self.clocksource {
            Some(cs) if self.tsc_invariant => format!("{cs} (invariant TSC)"),
            // Only worth flagging when the TSC is actually in use.
            Some(cs) if cs == "tsc" => format!("{cs} (TSC not invariant)"),
            Some(cs) => cs.clone(),
            None => "unknown".to_string(),
        };
        push("clock source", clock);
        push(
            "preemption",
            self.preempt
                .clone()
                .unwrap_or_else(|| "unknown".to_string()),
        );

        let mem = |b: u64| {
            if b == 0 {
                "unknown".to_string()
            } else {
                crate::units::fmt_size_approx(b)
            }
        };
        push(
            "memory",
            format!(
                "{} total, {} available",
                mem(self.mem_total_bytes),
                mem(self.mem_available_bytes)
            ),
        );

        push("limits", limits_words(&self.limits));
        out.extend(self.hardware.describe());
        out.extend(self.facts.describe(self.virtualization.as_deref()));
        out
    }
}

/// The limits in one line: the kernel's, the rlimits, the cgroup's.
fn limits_words(l: &Limits) -> String {
    let count = |v: Option<u64>| {
        v.map_or_else(
            || "unknown".to_string(),
            |n| crate::units::group_digits(n as i64),
        )
    };
    let rl_count = |v: Option<u64>| {
        v.map_or_else(
            || "unlimited".to_string(),
            |n| crate::units::group_digits(n as i64),
        )
    };
    let rl_bytes =
        |v: Option<u64>| v.map_or_else(|| "unlimited".to_string(), crate::units::fmt_size_approx);
    format!(
        "threads-max {}; pid_max {}; max_map_count {}; RLIMIT_NPROC {}; \
             RLIMIT_STACK {}; RLIMIT_AS {}; cgroup pids.max {}; cgroup memory.max {}",
        count(l.threads_max),
        count(l.pid_max),
        count(l.max_map_count),
        rl_count(l.rlimit_nproc),
        rl_bytes(l.rlimit_stack),
        rl_bytes(l.rlimit_as),
        rl_count(l.cgroup_pids_max),
        rl_bytes(l.cgroup_memory_max),
    )
}

/// MemAvailable from /proc/meminfo in bytes, read fresh each call (used to check sizes before running). None if unreadable.
pub fn mem_available_bytes() -> Option<u64> {
    crate::sys::procfs::meminfo_kib("MemAvailable").map(|kib| kib * 1024)
}

/// Formats a CPU list compactly: [0,1,2,5] -> "0-2,5".
pub fn cpu_list(cpus: &[usize]) -> String {
    let mut v = cpus.to_vec();
    v.sort_unstable();
    v.dedup();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let start = v[i];
        let mut end = start;
        while i + 1 < v.len() && v[i + 1] == end + 1 {
            i += 1;
            end = v[i];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    parts.join(",")
}

/// Largest CPU number accepted; guards against absurd ranges allocating
/// gigabytes (the kernel's own limit, NR_CPUS, is far below this).
const MAX_CPU: usize = 1 << 20;

/// Parses "0-2,5" -> [0,1,2,5]; Err(String) on malformed input.
///
/// The result is sorted and deduplicated. An empty (or all-whitespace)
/// string is an empty list, as the kernel writes for e.g. an empty
/// `/sys/devices/system/cpu/offline`.
pub fn parse_cpu_list(s: &str) -> Result<Vec<usize>, String> {
    let s = s.trim();
    if s.is_empty() {
        return Ok(Vec::new());
    }
    let num = |t: &str| -> Result<usize, String> {
        let n: usize = t
            .trim()
            .parse()
            .map_err(|_| format!("bad CPU number {t:?} in CPU list {s:?}"))?;
        if n > MAX_CPU {
            return Err(format!("CPU number {n} too large in CPU list {s:?}"));
        }
        Ok(n)
    };
    let mut out = Vec::new();
    for item in s.split(',') {
        match item.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (num(a)?, num(b)?);
                if a > b {
                    return Err(format!("reversed range {item:?} in CPU list {s:?}"));
                }
                out.extend(a..=b);
            }
            None => out.push(num(item)?),
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// Path lookups below a root directory.
struct Root<'a> {
    root: &'a Path,
}

impl Root<'_> {
    /// Absolute paths would replace the root in `join`, so strip the "/".
    fn path(&self, p: &str) -> PathBuf {
        self.root.join(p.trim_start_matches('/'))
    }
    fn read(&self, p: &str) -> Option<String> {
        fs::read_to_string(self.path(p)).ok()
    }
    fn read_trim(&self, p: &str) -> Option<String> {
        let s = self.read(p)?;
        let t = s.trim();
        (!t.is_empty()).then(|| t.to_string())
    }
    fn read_u64(&self, p: &str) -> Option<u64> {
        self.read(p)?.trim().parse().ok()
    }
    fn exists(&self, p: &str) -> bool {
        self.path(p).exists()
    }
}

/// Value of the first non-empty "key : value" line in /proc/cpuinfo.
fn cpuinfo_field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|line| {
        let (k, v) = line.split_once(':')?;
        let v = v.trim();
        (k.trim() == key && !v.is_empty()).then_some(v)
    })
}

/// A /proc/meminfo entry in bytes ("MemTotal:  16384 kB").
fn meminfo_bytes(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|line| {
        let (k, v) = line.split_once(':')?;
        if k.trim() != key {
            return None;
        }
        let mut it = v.split_whitespace();
        let n: u64 = it.next()?.parse().ok()?;
        match it.next() {
            Some("kB") => n.checked_mul(1024),
            None => Some(n),
            Some(_) => None,
        }
    })
}

/// Nominal MHz from a model name such as "Intel(R) Core(TM) i7-6700 CPU @ 3.40GHz".
fn stated_mhz_from_model(model: &str) -> Option<f64> {
    let (_, after) = model.rsplit_once('@')?;
    let after = after.trim();
    let end = after
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(after.len());
    let value: f64 = after[..end].parse().ok()?;
    let unit = after[end..].trim().to_ascii_lowercase();
    let mhz = if unit.starts_with("ghz") {
        value * 1000.0
    } else if unit.starts_with("mhz") {
        value
    } else {
        return None;
    };
    // Round so "3.40GHz" is exactly 3400, not 3400.0000000000005.
    (mhz.is_finite() && mhz > 0.0).then(|| mhz.round())
}

/// The selected entry of a sysfs choice file: "always [madvise] never" ->
/// "madvise". The scheduler's debugfs preempt file marks it with parentheses
/// instead ("none voluntary (full)"). A lone word is taken as-is.
fn bracketed_choice(s: &str) -> Option<String> {
    for (open, close) in [('[', ']'), ('(', ')')] {
        if let Some(start) = s.find(open) {
            let rest = &s[start + open.len_utf8()..];
            if let Some(len) = rest.find(close) {
                let choice = rest[..len].trim();
                if !choice.is_empty() {
                    return Some(choice.to_string());
                }
            }
        }
    }
    let t = s.trim();
    let lone_word = !t.is_empty() && !t.contains(|c: char| c.is_whitespace() || "[]()".contains(c));
    lone_word.then(|| t.to_string())
}

/// The hypervisor the machine runs under, if any (by DMI, the
/// hypervisor's type, the CPU's flag), or WSL.
fn read_virtualization(fs: &Root, proc_version: &str, hypervisor_flag: bool) -> Option<String> {
    let vendor = fs.read_trim("/sys/class/dmi/id/sys_vendor");
    let product = fs.read_trim("/sys/class/dmi/id/product_name");
    let hv_type = fs.read_trim("/sys/hypervisor/type");
    let wsl = proc_version.to_ascii_lowercase().contains("microsoft");
    classify_virt(
        vendor.as_deref().unwrap_or(""),
        product.as_deref().unwrap_or(""),
        hv_type.as_deref().unwrap_or(""),
        hypervisor_flag,
        wsl,
    )
}

/// The kernel's preemption model: the debugfs switch, else the version
/// string and the command line.
fn read_preempt(fs: &Root, proc_version: &str) -> Option<String> {
    fs.read("/sys/kernel/debug/sched/preempt")
        .and_then(|s| bracketed_choice(&s))
        .or_else(|| {
            let version = fs
                .read("/proc/sys/kernel/version")
                .filter(|v| !v.trim().is_empty())
                .unwrap_or_else(|| proc_version.to_string());
            let cmdline = fs.read("/proc/cmdline").unwrap_or_default();
            preempt_from_version(&version, &cmdline)
        })
}

/// Names the hypervisor from DMI strings and the cpuinfo "hypervisor" flag.
fn classify_virt(
    vendor: &str,
    product: &str,
    hv_type: &str,
    hypervisor_flag: bool,
    wsl_kernel: bool,
) -> Option<String> {
    let v = vendor.to_ascii_lowercase();
    let p = product.to_ascii_lowercase();
    let either = |needle: &str| v.contains(needle) || p.contains(needle);
    let name = if either("kvm") {
        "kvm"
    } else if either("qemu") || either("bochs") {
        "qemu"
    } else if either("vmware") {
        "vmware"
    } else if either("innotek") || either("virtualbox") {
        "oracle"
    } else if either("parallels") {
        "parallels"
    } else if either("xen") || hv_type.eq_ignore_ascii_case("xen") {
        "xen"
    } else if v.contains("microsoft") && p.contains("virtual machine") {
        // Checked with the product: Microsoft also sells bare-metal Surfaces.
        "microsoft"
    } else if v.contains("google") && p.contains("compute engine") {
        "google"
    } else if v.contains("amazon") && hypervisor_flag {
        // Amazon's *.metal instances carry the same vendor without a hypervisor.
        "amazon"
    } else if p.contains("openstack") {
        "openstack"
    } else if !hv_type.is_empty() {
        return Some(hv_type.to_string());
    } else if hypervisor_flag && wsl_kernel {
        // WSL2 runs on Hyper-V but exposes no DMI.
        "microsoft"
    } else if hypervisor_flag {
        "unknown hypervisor"
    } else {
        return None;
    };
    Some(name.to_string())
}

/// Whether this process runs in a container: its own pid or user
/// namespace says so, and the marks runtimes leave behind name it. When the
/// namespace links are readable and all are the host's, a `/.dockerenv`
/// (left by an image built with Docker, as in a Firecracker VM's root file
/// system) is not taken for a container.
fn detect_container(fs: &Root, own_namespaces: &[String]) -> Option<String> {
    let ns_readable = fs::read_link(fs.path("/proc/self/ns/pid")).is_ok();
    let isolated = own_namespaces.iter().any(|n| n == "pid" || n == "user");
    if ns_readable && !isolated {
        // cgroup paths still show a container that shares the host's pid
        // namespace (--pid=host) only through its runtime's names.
        let own = fs.read("/proc/self/cgroup").unwrap_or_default();
        return cgroup_container_hint(&own).map(|n| format!("{n} (host pid namespace)"));
    }
    let hint = marks(fs);
    if isolated {
        let ns = own_namespaces.join(", ");
        return Some(hint.map_or_else(
            || format!("container (own {ns} namespace)"),
            |h| format!("{h} (own {ns} namespace)"),
        ));
    }
    hint
}

/// The marks container runtimes leave behind.
fn marks(fs: &Root) -> Option<String> {
    if fs.exists("/.dockerenv") {
        return Some("docker".into());
    }
    if fs.exists("/run/.containerenv") {
        return Some("podman".into());
    }
    // systemd-nspawn, LXC, podman etc. set `container=` for pid 1. Usually
    // unreadable unless root or in a user namespace we own; ignore failure.
    if let Ok(environ) = fs::read(fs.path("/proc/1/environ")) {
        let value = environ
            .split(|&b| b == 0)
            .find_map(|var| var.strip_prefix(b"container="))
            .map(|v| String::from_utf8_lossy(v).trim().to_string());
        if let Some(v) = value.filter(|v| !v.is_empty()) {
            return Some(v);
        }
    }
    let cgroup = fs.read("/proc/1/cgroup").unwrap_or_default();
    let own = fs.read("/proc/self/cgroup").unwrap_or_default();
    cgroup_container_hint(&cgroup)
        .or_else(|| cgroup_container_hint(&own))
        .map(str::to_string)
}

/// Container hint from a cgroup path listing (cgroup v1 or v2 without a
/// cgroup namespace shows the host-side path).
fn cgroup_container_hint(cgroup: &str) -> Option<&'static str> {
    let c = cgroup.to_ascii_lowercase();
    // kubepods first: Kubernetes paths often also contain "docker".
    [
        ("kubepods", "kubernetes"),
        ("docker", "docker"),
        ("libpod", "podman"),
        ("lxc", "lxc"),
    ]
    .into_iter()
    .find(|(needle, _)| c.contains(needle))
    .map(|(_, name)| name)
}

/// Preemption model from the kernel version string ("#1 SMP PREEMPT_DYNAMIC
/// ..."), which records the build-time choice.
fn preempt_from_version(version: &str, cmdline: &str) -> Option<String> {
    if version.trim().is_empty() {
        return None;
    }
    let toks: Vec<&str> = version.split_whitespace().collect();
    let model = ["PREEMPT_RT", "PREEMPT_DYNAMIC", "PREEMPT_LAZY", "PREEMPT"]
        .into_iter()
        .find(|m| toks.contains(m));
    match model {
        // With PREEMPT_DYNAMIC the live mode is only visible in debugfs, but
        // a boot-time override on the command line tells us.
        Some("PREEMPT_DYNAMIC") => Some(
            match cmdline
                .split_whitespace()
                .find_map(|a| a.strip_prefix("preempt="))
            {
                Some(mode) => format!("PREEMPT_DYNAMIC (preempt={mode})"),
                None => "PREEMPT_DYNAMIC".to_string(),
            },
        ),
        Some(m) => Some(m.to_string()),
        // The version string names only preemptible builds.
        None => Some("none or voluntary".to_string()),
    }
}

fn read_limits(fs: &Root) -> Limits {
    let cgroup_dir = fs
        .read("/proc/self/cgroup")
        .and_then(|s| cgroup_v2_path(&s));
    let cg = |file: &str| {
        cgroup_dir
            .as_deref()
            .and_then(|dir| cgroup_limit(fs, dir, file))
    };
    Limits {
        threads_max: fs.read_u64("/proc/sys/kernel/threads-max"),
        pid_max: fs.read_u64("/proc/sys/kernel/pid_max"),
        max_map_count: fs.read_u64("/proc/sys/vm/max_map_count"),
        rlimit_nproc: None,
        rlimit_stack: None,
        rlimit_as: None,
        cgroup_pids_max: [cg("pids.max"), cgroup_v1_limit(fs, "pids", "pids.max")]
            .into_iter()
            .flatten()
            .min(),
        cgroup_memory_max: [
            cg("memory.max"),
            cgroup_v1_limit(fs, "memory", "memory.limit_in_bytes"),
        ]
        .into_iter()
        .flatten()
        .min(),
    }
}

/// Tightest cgroup v1 limit in `file` (`memory.limit_in_bytes`,
/// `pids.max`) on the path from this process's cgroup to the root of the
/// `controller` hierarchy (mounted at /sys/fs/cgroup/<controller>); None
/// when there is none, or no limit.
fn cgroup_v1_limit(fs: &Root, controller: &str, file: &str) -> Option<u64> {
    let rel = cgroup_v1_path(&fs.read("/proc/self/cgroup")?, controller)?;
    let base = fs.path("/sys/fs/cgroup").join(controller);
    rel.ancestors()
        .filter_map(|dir| fs::read_to_string(base.join(dir).join(file)).ok())
        .filter_map(|s| parse_cgroup_value(&s))
        // "No limit" reads as the largest page-aligned count (2^63 - 4096).
        .filter(|&v| v < 1 << 62)
        .min()
}

/// The path of a cgroup v1 hierarchy with `controller`, from
/// /proc/self/cgroup ("4:memory:/user.slice"), relative to its mount; None
/// if absent or if it escapes our cgroup namespace.
fn cgroup_v1_path(text: &str, controller: &str) -> Option<PathBuf> {
    let path = text.lines().find_map(|l| {
        let mut f = l.splitn(3, ':');
        let (_, ctrls, path) = (f.next()?, f.next()?, f.next()?);
        ctrls.split(',').any(|c| c == controller).then_some(path)
    })?;
    cgroup_v2_path(&format!("0::{path}"))
}

/// The cgroup v2 path from /proc/self/cgroup ("0::/user.slice/x.scope"),
/// relative to the cgroup mount. None if absent or if it escapes our cgroup
/// namespace ("/../..."), where the directory cannot be found.
fn cgroup_v2_path(text: &str) -> Option<PathBuf> {
    let path = text.lines().find_map(|l| l.strip_prefix("0::"))?.trim();
    let mut rel = PathBuf::new();
    for c in Path::new(path).components() {
        match c {
            Component::Normal(part) => rel.push(part),
            Component::RootDir | Component::CurDir => {}
            Component::ParentDir | Component::Prefix(_) => return None,
        }
    }
    Some(rel)
}

/// Tightest limit in `file` from the cgroup up to the root: a parent's limit
/// (e.g. systemd's TasksMax on user-1000.slice) applies to its children even
/// when the leaf says "max".
fn cgroup_limit(fs: &Root, rel: &Path, file: &str) -> Option<u64> {
    let base = fs.path("/sys/fs/cgroup");
    rel.ancestors()
        .filter_map(|dir| fs::read_to_string(base.join(dir).join(file)).ok())
        .filter_map(|s| parse_cgroup_value(&s))
        .min()
}

/// A cgroup limit file: a number or "max" (no limit, None).
fn parse_cgroup_value(s: &str) -> Option<u64> {
    s.trim().parse().ok()
}

fn join_or_unknown(parts: Vec<String>, sep: &str) -> String {
    if parts.is_empty() {
        "unknown".to_string()
    } else {
        parts.join(sep)
    }
}

#[cfg(test)]
mod tests;
