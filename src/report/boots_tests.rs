//! One recorded run as each boot of this VM would have written it: with the
//! haltpoll cpuidle driver, as recorded, and with none, as issue 39's boot
//! recorded it (`cpuidle {driver: null, states: []}`: no idle-state
//! counters, idle is HLT). Every experiment's findings are derived anew by
//! this build from the run's series, and the whole report is rendered. The
//! boot without a driver never reads a missing counter as zero, never
//! offers a run-time switch it does not have, and the two reports differ
//! only where they speak of idle.

use crate::experiments::switch::wakeup::IDLE_ENTRIES_PER_OP;
use crate::results::{RunResults, Status};

fn recorded() -> RunResults {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-results.json");
    let mut r = RunResults::read(&path).expect("the fixture reads");
    crate::report::upgrade(&mut r);
    r
}

/// `r` as `boot` would have recorded it: the facts and series `boot`
/// changes, and every experiment's findings, headlines and notes derived
/// anew from them by this build. What the run added after its analysis
/// (the findings on series that did not settle) is kept.
fn as_boot(mut r: RunResults, boot: fn(&mut RunResults)) -> RunResults {
    let before = r.clone();
    boot(&mut r);
    for (x, was) in r.experiments.iter_mut().zip(&before.experiments) {
        let Some(reg) = crate::experiments::find(&x.name) else {
            continue;
        };
        if x.status != Status::Ok {
            continue;
        }
        let (old, new) = ((reg.analyze)(was), (reg.analyze)(x));
        let kept = x
            .findings
            .split_off(old.findings.len().min(x.findings.len()));
        x.findings = new.findings.into_iter().chain(kept).collect();
        x.headlines = new.headlines;
        if old.notes != new.notes {
            x.notes.retain(|n| !old.notes.contains(n));
            x.notes.extend(new.notes);
        }
    }
    r
}

fn as_recorded(_: &mut RunResults) {}

/// The boot without a cpuidle driver: no driver, governor or state, so no
/// idle-state counter in any series, and no haltpoll parameter on the
/// kernel command line (that boot's `cpuidle_haltpoll.force` was N).
fn without_driver(r: &mut RunResults) {
    r.env.facts.cpuidle = Some(Default::default());
    r.env.facts.cmdline = r.env.facts.cmdline.as_ref().map(|l| {
        l.split_whitespace()
            .filter(|p| !p.contains("haltpoll"))
            .collect::<Vec<_>>()
            .join(" ")
    });
    for x in &mut r.experiments {
        x.metrics.retain(|m| m.name != IDLE_ENTRIES_PER_OP.name);
    }
}

fn markdown(r: &RunResults) -> String {
    super::build(r).markdown("")
}

#[test]
fn a_boot_without_a_cpuidle_driver_is_reported_as_such_everywhere() {
    let md = markdown(&as_boot(recorded(), without_driver));
    // a missing counter is unknown, never zero (item 1)
    for zero in [
        "no idle state entered",
        "entering no idle state",
        "entered no idle state",
    ] {
        assert!(!md.contains(zero), "{zero}: {md}");
    }
    // no run-time switch offered where only a reboot changes idle (item 2)
    assert!(!md.contains("--idle-poll` changes"), "{md}");
    assert!(md.contains("no cpuidle driver"), "{md}");
    // the haltpoll governor's limit is not shown without the governor (item
    // 5); the notes the run wrote as it measured are the recorded boot's
    let env = &md[md.find("## Environment").expect("an environment section")..];
    assert!(!env.contains("guest_halt_poll_ns"), "{env}");
    assert!(env.contains("| cpuidle | driver none"), "{env}");
}

#[test]
fn the_two_boots_reports_differ_only_where_they_speak_of_idle() {
    let with = markdown(&as_boot(recorded(), as_recorded));
    let without = markdown(&as_boot(recorded(), without_driver));
    assert_ne!(with, without);
    // Line by line, in place: the same lines, and each pair that differs
    // speaks of idle on both sides (the fixture holds no idle counter, so
    // no series goes missing and no count of them changes).
    let (a, b): (Vec<&str>, Vec<&str>) = (with.lines().collect(), without.lines().collect());
    assert_eq!(a.len(), b.len());
    let idle = |l: &str| {
        let l = l.to_lowercase();
        l.contains("idle")
            || l.contains("hlt")
            || l.contains("haltpoll")
            || l.starts_with("| kernel parameters |")
    };
    let differing: Vec<(&str, &str)> = a
        .iter()
        .zip(&b)
        .filter(|(x, y)| x != y)
        .map(|(x, y)| (*x, *y))
        .collect();
    assert!(!differing.is_empty());
    for (x, y) in differing {
        assert!(
            idle(x) && idle(y),
            "a line that differs between the boots speaks of something else:\n{x}\n{y}"
        );
    }
}
