//! The idle path: whether an idle CPU polls, what this boot allows to
//! change it, and what `--idle-poll` sets.

use super::*;
use crate::env::idle::{CpuIdle, IdleState};

fn idle_state(name: &str) -> IdleState {
    IdleState {
        name: name.into(),
        exit_latency_us: 1,
        disabled: false,
    }
}

/// The idle path is a run-time setting only as far as this process could
/// write its knobs, probed when the run began (access(2), nothing
/// written): the environment row says what this boot allowed, and a file
/// from before the probe says it was not probed (issue 39).
#[test]
fn what_this_boot_allows_follows_the_probe_of_the_knobs() {
    let mut f = Facts {
        cpuidle: Some(CpuIdle {
            driver: Some("haltpoll".into()),
            governor: Some("haltpoll".into()),
            states: vec![idle_state("POLL"), idle_state("haltpoll idle")],
            haltpoll_poll_ns: Some(0),
            ..CpuIdle::default()
        }),
        ..Facts::default()
    };
    let why = |f: &Facts| f.polling_idle(None).unwrap_err();
    for governor in ["haltpoll", "menu"] {
        let ci = f.cpuidle.as_mut().unwrap();
        ci.governor = Some(governor.into());
        (ci.poll_ns_writable, ci.disable_writable) = (Some(true), Some(true));
        let yes = why(&f);
        assert!(
            !yes.contains("reboot") && !yes.contains("boot setting"),
            "{yes}"
        );
        assert!(
            yes.contains("writable by tasklab's process (probed with access(2), nothing written)")
                && yes.contains("`tasklab run --idle-poll`"),
            "{yes}"
        );
        let ci = f.cpuidle.as_mut().unwrap();
        (ci.poll_ns_writable, ci.disable_writable) = (Some(false), Some(false));
        let no = why(&f);
        assert!(
            no.contains("not")
                && no.contains("writable by tasklab's process (probed with access(2))"),
            "{no}"
        );
        assert!(no.contains("needs a user who may write"), "{no}");
        let ci = f.cpuidle.as_mut().unwrap();
        (ci.poll_ns_writable, ci.disable_writable) = (None, None);
        let unknown = why(&f);
        assert!(
            unknown.contains("was not probed when this file was written"),
            "{unknown}"
        );
        assert!(!unknown.contains("writable at run time"), "{unknown}");
    }
    // A driver with no idle states: none to disable, said so.
    let f = Facts {
        cpuidle: Some(CpuIdle {
            driver: Some("acpi_idle".into()),
            governor: Some("menu".into()),
            ..CpuIdle::default()
        }),
        ..Facts::default()
    };
    assert!(
        why(&f).contains("it has no idle states, so none to disable"),
        "{}",
        why(&f)
    );
}

/// The probe below a root: the haltpoll limit and every CPU's `disable`
/// files, each probed where it exists; none probed where none exists.
#[test]
fn the_knobs_are_probed_where_they_exist() {
    let t = haltpoll_root("0\n");
    for cpu in 0..2 {
        let d = format!("/sys/devices/system/cpu/cpu{cpu}/cpuidle");
        t.write(&format!("{d}/state0/name"), "POLL\n");
        t.write(&format!("{d}/state0/disable"), "0\n");
    }
    let ci = cpuidle_at(&t.0).expect("cpuidle");
    // The test's own files: this process may write them.
    assert_eq!(ci.poll_ns_writable, Some(true));
    assert_eq!(ci.disable_writable, Some(true));
    // The recorded boot with no cpuidle driver: a governor, no states, no
    // haltpoll module: nothing to probe, so nothing claimed.
    let t = TempRoot::new("idle-none");
    t.write("/sys/devices/system/cpu/cpuidle/current_driver", "none\n");
    t.write("/sys/devices/system/cpu/cpuidle/current_governor", "menu\n");
    let ci = cpuidle_at(&t.0).expect("a governor is read");
    assert_eq!(
        (ci.driver, ci.poll_ns_writable, ci.disable_writable),
        (None, None, None)
    );
}

/// The environment's row with no cpuidle driver says HLT "exits to the
/// host" only where the environment records virtualisation: on bare metal
/// a HLT exits to nothing. Built from an environment read from an empty
/// root (no cpuidle driver, as issue 39's boot recorded it), once with
/// the hypervisor issue 39's runs recorded and once with none.
#[test]
fn hlt_exits_to_the_host_only_under_a_recorded_hypervisor() {
    let mut e = Env::read_from(
        std::path::Path::new("/nonexistent-tasklab-root"),
        "6.18.44-test".into(),
        "x86_64".into(),
    );
    e.facts.cpuidle = Some(CpuIdle::default());
    let row = |e: &Env| {
        e.describe()
            .into_iter()
            .find(|(k, _)| k == "polling idle")
            .expect("the polling idle row")
            .1
    };
    e.virtualization = Some("kvm".into());
    let guest = row(&e);
    assert!(
        guest.contains("an idle CPU runs HLT, which exits to the host (virtualisation: kvm)"),
        "{guest}"
    );
    e.virtualization = None;
    let metal = row(&e);
    assert!(
        metal.contains("an idle CPU runs HLT; only idle=poll"),
        "{metal}"
    );
    assert!(
        !metal.contains("host") && !metal.contains("exit"),
        "{metal}"
    );
    // The same words from the facts alone, and with no cpuidle record at all.
    e.facts.cpuidle = None;
    assert!(!e.facts.polling_idle(None).unwrap_err().contains("host"));
    assert!(e
        .facts
        .polling_idle(Some("kvm"))
        .unwrap_err()
        .contains("which exits to the host (virtualisation: kvm)"));
}

/// A boot with no cpuidle driver (`current_driver` none, no states, as
/// recorded `cpuidle {driver: null, states: []}`): idle is HLT and only the
/// kernel command line changes it, which the line says (issue 39 item 2).
#[test]
fn with_no_cpuidle_driver_polling_idle_needs_a_reboot_and_says_so() {
    for cpuidle in [
        None,
        Some(CpuIdle::default()),
        Some(CpuIdle {
            driver: Some("none".into()),
            ..CpuIdle::default()
        }),
    ] {
        let f = Facts {
            cpuidle,
            ..Facts::default()
        };
        let why = f.polling_idle(None).unwrap_err();
        assert!(
            why.contains("no cpuidle driver") && why.contains("HLT"),
            "{why}"
        );
        assert!(
            why.contains("reboot") && !why.contains("--idle-poll"),
            "{why}"
        );
    }
    // a driver without a POLL state to fall back on: no run-time knob either
    let f = Facts {
        cpuidle: Some(CpuIdle {
            driver: Some("acpi_idle".into()),
            governor: Some("menu".into()),
            states: vec![idle_state("C1")],
            haltpoll_poll_ns: None,
            ..CpuIdle::default()
        }),
        ..Facts::default()
    };
    let why = f.polling_idle(None).unwrap_err();
    assert!(
        why.contains("reboot") && !why.contains("--idle-poll"),
        "{why}"
    );
}

/// guest_halt_poll_ns does something only under the haltpoll governor: the
/// environment line says so under another (issue 39 item 5).
#[test]
fn the_haltpoll_limit_is_shown_in_force_only_under_its_governor() {
    let line = |governor: &str| {
        let f = Facts {
            cpuidle: Some(CpuIdle {
                driver: Some("haltpoll".into()),
                governor: Some(governor.into()),
                states: vec![idle_state("POLL"), idle_state("haltpoll idle")],
                haltpoll_poll_ns: Some(200_000),
                ..CpuIdle::default()
            }),
            ..Facts::default()
        };
        f.describe(Some("kvm"))
            .into_iter()
            .find(|(k, _)| k == "cpuidle")
            .unwrap()
            .1
    };
    assert!(line("haltpoll").ends_with("; haltpoll guest_halt_poll_ns=200000"));
    let menu = line("menu");
    assert!(
        menu.contains("not in force under the menu governor"),
        "{menu}"
    );
}

fn haltpoll_root(poll_ns: &str) -> TempRoot {
    let t = TempRoot::new("idlepoll");
    t.write("/proc/cmdline", "console=ttyS0\n");
    t.write(
        "/sys/devices/system/cpu/cpuidle/current_governor",
        "haltpoll\n",
    );
    t.write(
        "/sys/module/haltpoll/parameters/guest_halt_poll_ns",
        poll_ns,
    );
    t
}

#[test]
fn idle_poll_sets_the_haltpoll_limit_or_disables_the_halting_states() {
    let t = haltpoll_root("0\n");
    let p = idle_poll_plan(&t.0).unwrap();
    assert_eq!(
        p.knobs,
        [crate::sys::sysfs_knob::Knob {
            path: "/sys/module/haltpoll/parameters/guest_halt_poll_ns".into(),
            value: "200000".into()
        }]
    );
    assert!(p.how.contains("from 0 to 200000"), "{}", p.how);
    let t = haltpoll_root("50000\n");
    assert!(idle_poll_plan(&t.0).unwrap().knobs.is_empty());
    // The menu governor: every state but POLL disabled, on every CPU.
    let t = TempRoot::new("idlepoll-menu");
    t.write("/sys/devices/system/cpu/cpuidle/current_governor", "menu\n");
    for cpu in 0..2 {
        let d = format!("/sys/devices/system/cpu/cpu{cpu}/cpuidle");
        t.write(&format!("{d}/state0/name"), "POLL\n");
        t.write(&format!("{d}/state0/disable"), "0\n");
        t.write(&format!("{d}/state1/name"), "C1\n");
        t.write(&format!("{d}/state1/disable"), "0\n");
        t.write(&format!("{d}/state2/name"), "C6\n");
        t.write(&format!("{d}/state2/disable"), "1\n");
    }
    let p = idle_poll_plan(&t.0).unwrap();
    let paths: Vec<&str> = p.knobs.iter().map(|k| k.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "/sys/devices/system/cpu/cpu0/cpuidle/state1/disable",
            "/sys/devices/system/cpu/cpu1/cpuidle/state1/disable"
        ]
    );
    assert!(p.how.contains("C1"), "{}", p.how);
    // No POLL state and no haltpoll: nothing at run time can.
    let t = TempRoot::new("idlepoll-none");
    t.write("/sys/devices/system/cpu/cpu0/cpuidle/state0/name", "C1\n");
    t.write("/sys/devices/system/cpu/cpu0/cpuidle/state0/disable", "0\n");
    assert!(idle_poll_plan(&t.0)
        .unwrap_err()
        .contains("kernel command line"));
}
