//! Why reading another process's /proc files was refused, in words that
//! name the real cause: another owner, a user namespace the process is not
//! in, root without CAP_SYS_PTRACE (as in most containers), /proc mounted
//! with hidepid, or a security module's profile. The files predict reads
//! (smaps_rollup, maps, fd/) need the kernel's ptrace read check
//! (PTRACE_MODE_READ), which Yama's ptrace_scope does not restrict: Yama
//! governs attaching, not reading, so it is never named as the cause.

use std::path::Path;

/// The overflow uid: how a uid with no mapping in this user namespace shows.
pub const OVERFLOW_UID: u32 = 65534;
/// CAP_SYS_PTRACE's bit in the capability sets.
const CAP_SYS_PTRACE: u32 = 19;

/// What the machine says about a refused read of process `pid`'s files.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    /// Our effective uid.
    pub euid: u32,
    /// The process's owner as /proc/PID shows it (mapped into our user
    /// namespace; [`OVERFLOW_UID`] when its uid has no mapping here).
    pub owner: Option<u32>,
    /// Whether CAP_SYS_PTRACE is in our effective set.
    pub cap_sys_ptrace: Option<bool>,
    /// /proc's `hidepid=` mount option, when it has one other than 0/off.
    pub hidepid: Option<String>,
    /// Whether we run in a user namespace other than the initial one (our
    /// uid_map is not the identity over every uid).
    pub user_namespace: bool,
    /// Our security module's confinement (an AppArmor profile, an SELinux
    /// context), when not unconfined.
    pub lsm: Option<String>,
    /// Yama's ptrace_scope, read to be ruled out.
    pub ptrace_scope: Option<u8>,
}

impl Facts {
    /// The facts about process `pid`, read from `root` ("/" but in tests).
    pub fn read(root: &Path, pid: u32) -> Facts {
        use std::os::unix::fs::MetadataExt;
        let text = |p: &str| std::fs::read_to_string(root.join(p)).ok();
        let status = text("proc/self/status").unwrap_or_default();
        Facts {
            euid: crate::sys::effective_uid(),
            owner: std::fs::metadata(root.join(format!("proc/{pid}")))
                .ok()
                .map(|m| m.uid()),
            cap_sys_ptrace: cap_eff(&status).map(|c| c >> CAP_SYS_PTRACE & 1 == 1),
            hidepid: text("proc/self/mounts").and_then(|m| hidepid(&m)),
            user_namespace: text("proc/self/uid_map").is_some_and(|m| !initial_uid_map(&m)),
            lsm: text("proc/self/attr/current").and_then(|c| confinement(&c)),
            ptrace_scope: text("proc/sys/kernel/yama/ptrace_scope")
                .and_then(|s| s.trim().parse().ok()),
        }
    }
}

/// The effective capability set of a /proc/PID/status text.
pub fn cap_eff(status: &str) -> Option<u64> {
    let hex = status.lines().find_map(|l| l.strip_prefix("CapEff:"))?;
    u64::from_str_radix(hex.trim(), 16).ok()
}

/// The `hidepid=` option of the proc file system mounted on /proc, when it
/// hides anything (not `0` or `off`).
pub fn hidepid(mounts: &str) -> Option<String> {
    let line = mounts.lines().find(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        f.get(1) == Some(&"/proc") && f.get(2) == Some(&"proc")
    })?;
    let opts = line.split_whitespace().nth(3)?;
    let v = opts.split(',').find_map(|o| o.strip_prefix("hidepid="))?;
    (!matches!(v, "0" | "off")).then(|| v.to_string())
}

/// Whether a uid_map is the initial user namespace's: every uid, as is.
pub fn initial_uid_map(map: &str) -> bool {
    let rows: Vec<Vec<&str>> = map
        .lines()
        .map(|l| l.split_whitespace().collect())
        .filter(|r: &Vec<&str>| !r.is_empty())
        .collect();
    rows.len() == 1 && rows[0] == ["0", "0", "4294967295"]
}

/// A confinement worth naming from /proc/self/attr/current: None when
/// unconfined or empty.
pub fn confinement(current: &str) -> Option<String> {
    let c = current.trim_matches(|ch: char| ch == '\0' || ch.is_whitespace());
    (!c.is_empty() && !c.contains("unconfined")).then(|| c.to_string())
}

/// Whether hidepid hides other users' processes entirely (they seem not to
/// exist): 2 or `invisible`.
fn invisible(h: &str) -> bool {
    matches!(h, "2" | "invisible")
}

/// Why reading the `what` of process `pid` was refused, from `f`: the cause
/// and what to do, one sentence after "--pid PID: permission denied reading
/// its WHAT".
pub fn cause(pid: u32, what: &str, f: &Facts) -> String {
    let lead = format!("--pid {pid}: permission denied reading its {what}");
    let root = f.euid == 0;
    let hidden = f
        .hidepid
        .as_deref()
        .map(|h| {
            format!(
                " (/proc is mounted with hidepid={h}, which hides other users' processes' files)"
            )
        })
        .unwrap_or_default();
    let lsm = f
        .lsm
        .as_deref()
        .map(|l| format!("; this process also runs confined by the security module's profile {l}, which may forbid reading other processes"))
        .unwrap_or_default();
    match f.owner {
        Some(OVERFLOW_UID) if f.user_namespace => format!(
            "{lead}: it belongs to a user outside this user namespace (its owner shows as uid {OVERFLOW_UID}), as a process of the host does inside a container: {} here has no rights over it; run predict in the process's own namespace (on the host, for a host process){lsm}",
            if root { "root" } else { "no user" }
        ),
        Some(owner) if owner != f.euid && !root => format!(
            "{lead}: it belongs to uid {owner} and this is uid {}{hidden}: run predict as the process's user, or as root{lsm}",
            f.euid
        ),
        _ if root && f.cap_sys_ptrace == Some(false) => format!(
            "{lead}: this runs as root without CAP_SYS_PTRACE, as in most containers, and the kernel asks for it here (the process belongs to another user, or it is not dumpable: setuid, or marked with prctl PR_SET_DUMPABLE 0){}: run the container with --cap-add SYS_PTRACE, or predict from the host{lsm}",
            if f.user_namespace {
                " and root here is root of a user namespace only"
            } else {
                ""
            }
        ),
        _ if f.lsm.is_some() => format!(
            "{lead}: the security module's profile {} this process runs under forbids it (an AppArmor or SELinux policy, as a container runtime sets one): run predict unconfined (e.g. docker --security-opt apparmor=unconfined) or from the host",
            f.lsm.as_deref().unwrap_or("")
        ),
        Some(owner) if owner == f.euid && !root => format!(
            "{lead}: it is yours (uid {owner}) but not dumpable (setuid, or marked with prctl PR_SET_DUMPABLE 0): only root with CAP_SYS_PTRACE may read it{hidden}"
        ),
        _ => format!(
            "{lead}, though {} and nothing this tool can see forbids it (no hidepid, no security-module profile){}: a seccomp filter or another security module may; run predict as the process's user, or as root on the host",
            if root { "this runs as root with CAP_SYS_PTRACE" } else { "the process is yours" },
            f.ptrace_scope
                .map(|s| format!("; Yama's ptrace_scope {s} limits attaching, not reading, so it is not the cause"))
                .unwrap_or_default()
        ),
    }
}

/// Why process `pid` was not found: gone, or hidden by hidepid.
pub fn not_found(pid: u32, f: &Facts) -> String {
    match f.hidepid.as_deref().filter(|h| invisible(h)) {
        Some(h) if f.euid != 0 => format!(
            "--pid {pid}: no such process here, or one of another user's that /proc hides (it is mounted with hidepid={h}): `ps -p {pid}` shows only what you may see; run predict as the process's user, or as root"
        ),
        _ => format!("--pid {pid}: no such process (it may have exited); `ps -p {pid}` checks"),
    }
}

#[cfg(test)]
#[path = "denied_tests.rs"]
mod tests;
