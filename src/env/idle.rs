//! How the CPUs idle, and what this boot allows to change it: the cpuidle
//! driver, governor and states, the haltpoll governor's polling limit,
//! whether this process could write the knobs `--idle-poll` sets (probed
//! with access(2), nothing written), and what `--idle-poll` would set.
//! Read below the same configurable root as the rest of `env`.

use super::Root;
use crate::sys::proc::may_write;
use crate::sys::sysfs_knob::Knob;
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::Path;

/// The haltpoll governor's polling limit.
const POLL_NS: &str = "/sys/module/haltpoll/parameters/guest_halt_poll_ns";

/// The polling limit `--idle-poll` gives the haltpoll governor: the
/// module's own default, 200 µs.
pub const IDLE_POLL_NS: u64 = 200_000;

/// What `tasklab run --idle-poll` changes to make idle CPUs poll, and how
/// it says so; no knobs when the machine polls already.
#[derive(Clone, Debug, PartialEq)]
pub struct IdlePollPlan {
    pub knobs: Vec<Knob>,
    pub how: String,
}

/// The run-time settings that make an idle CPU poll here, read below
/// `root`: the haltpoll governor's `guest_halt_poll_ns`, else every idle
/// state but POLL disabled on every CPU; Err(why none can) otherwise.
pub fn idle_poll_plan(root: &Path) -> Result<IdlePollPlan, String> {
    let fs = Root { root };
    let cmdline = fs.read("/proc/cmdline").unwrap_or_default();
    let none = |how: String| {
        Ok(IdlePollPlan {
            knobs: Vec::new(),
            how,
        })
    };
    if cmdline.split_whitespace().any(|a| a == "idle=poll") {
        return none(
            "idle CPUs poll already (idle=poll on the kernel command line): nothing changed".into(),
        );
    }
    let governor = fs.read_trim("/sys/devices/system/cpu/cpuidle/current_governor");
    if governor.as_deref() == Some("haltpoll") && fs.exists(POLL_NS) {
        return match fs.read_u64(POLL_NS) {
            Some(0) => Ok(IdlePollPlan {
                knobs: vec![Knob {
                    path: POLL_NS.into(),
                    value: IDLE_POLL_NS.to_string(),
                }],
                how: format!(
                    "guest_halt_poll_ns set from 0 to {IDLE_POLL_NS} for this run: the haltpoll governor polls up to 200 µs before it halts"
                ),
            }),
            Some(ns) => none(format!(
                "idle CPUs poll already (guest_halt_poll_ns={ns}): nothing changed"
            )),
            None => Err(format!("{POLL_NS} cannot be read")),
        };
    }
    let cpu_dir = "/sys/devices/system/cpu";
    let mut cpus: Vec<usize> = fs::read_dir(fs.path(cpu_dir))
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.file_name().to_str()?.strip_prefix("cpu")?.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    cpus.sort_unstable();
    let mut knobs = Vec::new();
    let mut polls = false;
    let mut names = Vec::new();
    for cpu in cpus {
        for k in 0.. {
            let dir = format!("{cpu_dir}/cpu{cpu}/cpuidle/state{k}");
            let Some(name) = fs.read_trim(&format!("{dir}/name")) else {
                break;
            };
            if name == "POLL" {
                polls = true;
                continue;
            }
            if fs.read_u64(&format!("{dir}/disable")) == Some(0) {
                if !names.contains(&name) {
                    names.push(name);
                }
                knobs.push(Knob {
                    path: format!("{dir}/disable"),
                    value: "1".into(),
                });
            }
        }
    }
    if !polls {
        return Err(
            "no POLL idle state and no haltpoll governor: only idle=poll on the kernel command line (a reboot) makes an idle CPU poll here".into(),
        );
    }
    if knobs.is_empty() {
        return none("every idle state but POLL is disabled already: nothing changed".into());
    }
    Ok(IdlePollPlan {
        how: format!(
            "idle states {} disabled on every CPU for this run: an idle CPU polls (state POLL)",
            names.join(", ")
        ),
        knobs,
    })
}

/// How the CPUs idle.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CpuIdle {
    pub driver: Option<String>,
    pub governor: Option<String>,
    /// CPU 0's idle states, shallowest first.
    pub states: Vec<IdleState>,
    /// The haltpoll governor's polling limit (`guest_halt_poll_ns`), when
    /// the module is loaded.
    pub haltpoll_poll_ns: Option<u64>,
    /// Whether this process could write `guest_halt_poll_ns` when the run
    /// began (access(2) with W_OK: nothing is written). None where the file
    /// is absent, or in a file from before this probe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_ns_writable: Option<bool>,
    /// Whether this process could write every idle state's `disable` on
    /// every CPU when the run began (access(2) with W_OK: nothing is
    /// written). None where there is no idle state, or in a file from
    /// before this probe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_writable: Option<bool>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IdleState {
    pub name: String,
    /// The driver's declared exit latency, µs.
    pub exit_latency_us: u64,
    pub disabled: bool,
}

/// Ok(how) when an idle CPU here polls for work instead of halting, so
/// a wake-up needs no interrupt; Err(why not): from the kernel command
/// line's parameters and how the CPUs idle ([`super::Facts::polling_idle`]).
/// `hypervisor` is the environment's record of virtualisation (None on
/// bare metal): only under one does a HLT exit to a host.
pub(super) fn polling_idle(
    cmdline: Option<&str>,
    cpuidle: Option<&CpuIdle>,
    hypervisor: Option<&str>,
) -> Result<String, String> {
    let cmdline = cmdline.unwrap_or("");
    if cmdline.split_whitespace().any(|a| a == "idle=poll") {
        return Ok("idle=poll on the kernel command line".into());
    }
    let reboot = || {
        Err(format!(
            "no cpuidle driver, so no idle state to disable: an idle CPU runs HLT{}; only idle=poll (or cpuidle_haltpoll.force=1) on the kernel command line makes it poll, a reboot",
            hlt_exit(hypervisor)
        ))
    };
    let Some(ci) = cpuidle else {
        return reboot();
    };
    let Some(driver) = ci.driver.as_deref().filter(|d| *d != "none") else {
        return reboot();
    };
    let governor = ci.governor.as_deref().unwrap_or("none");
    if governor == "haltpoll" {
        return match ci.haltpoll_poll_ns {
            Some(0) => Err(format!(
                "the {driver} cpuidle driver runs the haltpoll governor with guest_halt_poll_ns=0: it never polls ({})",
                poll_ns_change(ci.poll_ns_writable)
            )),
            Some(ns) => Ok(format!(
                "the haltpoll governor polls up to {} before it halts",
                crate::units::fmt_ns(ns as f64)
            )),
            None => Err("the haltpoll governor's polling limit cannot be read".into()),
        };
    }
    // What --idle-poll can do on this boot (`idle_poll_plan`): disable
    // every state but POLL, when there is a POLL state to fall back on.
    let poll_state = ci.states.iter().any(|s| s.name == "POLL");
    let deeper: Vec<&str> = ci
        .states
        .iter()
        .filter(|s| s.name != "POLL" && !s.disabled)
        .map(|s| s.name.as_str())
        .collect();
    if poll_state && deeper.is_empty() {
        return Ok(format!(
            "cpuidle driver {driver} has every state but POLL disabled"
        ));
    }
    let change = if poll_state {
        disable_change(ci.disable_writable, &deeper.join(", "))
    } else if ci.states.is_empty() {
        "it has no idle states, so none to disable: only idle=poll on the kernel command line makes it poll, a reboot".to_string()
    } else {
        "there is no POLL state to fall back on: only idle=poll on the kernel command line makes it poll, a reboot".to_string()
    };
    Err(format!(
        "cpuidle driver {driver} with governor {governor} halts an idle CPU, and idle=poll is not on the kernel command line ({change})"
    ))
}

/// What a HLT does beyond halting the CPU, by the environment's record of
/// virtualisation: under a hypervisor it exits to the host; on bare metal
/// (none recorded) nothing is said of an exit, since there is none.
fn hlt_exit(hypervisor: Option<&str>) -> String {
    hypervisor.map_or(String::new(), |v| {
        format!(", which exits to the host (virtualisation: {v})")
    })
}

/// The cpuidle driver, governor and states in a line.
pub(super) fn cpuidle_words(cpuidle: Option<&CpuIdle>) -> String {
    match cpuidle {
        None => "no cpuidle driver".to_string(),
        Some(ci) => {
            let states: Vec<String> = ci
                .states
                .iter()
                .map(|s| {
                    format!(
                        "{} (exit {} µs{})",
                        s.name,
                        s.exit_latency_us,
                        if s.disabled { ", disabled" } else { "" }
                    )
                })
                .collect();
            let mut v = format!(
                "driver {}, governor {}; states {}",
                ci.driver.as_deref().unwrap_or("none"),
                ci.governor.as_deref().unwrap_or("none"),
                if states.is_empty() {
                    "none".into()
                } else {
                    states.join(", ")
                }
            );
            // The haltpoll module's limit is in force only under its
            // governor; under menu or ladder it does nothing.
            match (ci.haltpoll_poll_ns, ci.governor.as_deref()) {
                (Some(ns), Some("haltpoll")) => {
                    v.push_str(&format!("; haltpoll guest_halt_poll_ns={ns}"))
                }
                (Some(ns), g) => v.push_str(&format!(
                    "; the haltpoll module's guest_halt_poll_ns={ns} is not in force under the {} governor",
                    g.unwrap_or("none")
                )),
                (None, _) => {}
            }
            v
        }
    }
}

/// What this boot allows of the haltpoll limit, by the probe of its file
/// (`writable`; None in a file from before the probe): never "writable at
/// run time" unless this process could write it (issue 39).
fn poll_ns_change(writable: Option<bool>) -> String {
    match writable {
        Some(true) => format!(
            "{POLL_NS} was writable by tasklab's process (probed with access(2), nothing written): `tasklab run --idle-poll` sets it for one run"
        ),
        Some(false) => format!(
            "{POLL_NS} was not writable by tasklab's process (probed with access(2)): `tasklab run --idle-poll` needs a user who may write it"
        ),
        None => format!(
            "whether {POLL_NS} was writable was not probed when this file was written"
        ),
    }
}

/// What this boot allows of the idle states' `disable` files, by their
/// probe (`writable`; None in a file from before it), to disable `deeper`.
fn disable_change(writable: Option<bool>, deeper: &str) -> String {
    match writable {
        Some(true) => format!(
            "every idle state's `disable` was writable by tasklab's process (probed with access(2), nothing written): `tasklab run --idle-poll` disables {deeper} for one run"
        ),
        Some(false) => format!(
            "the idle states' `disable` files were not all writable by tasklab's process (probed with access(2)): `tasklab run --idle-poll` needs a user who may write them to disable {deeper}"
        ),
        None => format!(
            "whether each idle state's `disable` was writable was not probed when this file was written; `tasklab run --idle-poll` disables {deeper} where they are"
        ),
    }
}

/// Every CPU's idle states' `disable` files below `fs`.
fn disable_files(fs: &Root) -> Vec<std::path::PathBuf> {
    let cpu_dir = "/sys/devices/system/cpu";
    let cpus: Vec<String> = fs::read_dir(fs.path(cpu_dir))
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.file_name().to_str().map(str::to_string))
                .filter(|n| {
                    n.strip_prefix("cpu")
                        .is_some_and(|k| k.parse::<usize>().is_ok())
                })
                .collect()
        })
        .unwrap_or_default();
    let mut files = Vec::new();
    for cpu in cpus {
        for k in 0.. {
            let file = format!("{cpu_dir}/{cpu}/cpuidle/state{k}/disable");
            if !fs.exists(&file) {
                break;
            }
            files.push(fs.path(&file));
        }
    }
    files
}

/// How the CPUs idle now, read below `root` (after `--idle-poll` changed it).
pub fn cpuidle_at(root: &Path) -> Option<CpuIdle> {
    read_cpuidle(&Root { root })
}

pub(super) fn read_cpuidle(fs: &Root) -> Option<CpuIdle> {
    let driver = fs.read_trim("/sys/devices/system/cpu/cpuidle/current_driver");
    let governor = fs
        .read_trim("/sys/devices/system/cpu/cpuidle/current_governor")
        .or_else(|| fs.read_trim("/sys/devices/system/cpu/cpuidle/current_governor_ro"));
    let mut states = Vec::new();
    for i in 0.. {
        let dir = format!("/sys/devices/system/cpu/cpu0/cpuidle/state{i}");
        let Some(name) = fs.read_trim(&format!("{dir}/name")) else {
            break;
        };
        states.push(IdleState {
            name,
            exit_latency_us: fs.read_u64(&format!("{dir}/latency")).unwrap_or(0),
            disabled: fs.read_u64(&format!("{dir}/disable")).unwrap_or(0) != 0,
        });
    }
    if driver.is_none() && governor.is_none() && states.is_empty() {
        return None;
    }
    let haltpoll_poll_ns = fs.read_u64(POLL_NS);
    // Probed, never written: whether this process may write the knobs
    // `--idle-poll` would set.
    let disables = disable_files(fs);
    Some(CpuIdle {
        driver: driver.filter(|d| d != "none"),
        governor,
        states,
        haltpoll_poll_ns,
        poll_ns_writable: haltpoll_poll_ns.map(|_| may_write(&fs.path(POLL_NS))),
        disable_writable: (!disables.is_empty()).then(|| disables.iter().all(|f| may_write(f))),
    })
}
