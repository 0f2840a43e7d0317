//! switch.wakeup's findings: each figure in words with its interval, a
//! difference only as the bound its interval supports, the kernel path each
//! hand-off took (RES/CAL), the directions apart and the timer sweep
//! (`wakeup_path.rs`, `wakeup_sweep.rs`).

use super::wakeup_idle::{idled, path_of, Idled};
use super::wakeup_parts::*;
use super::wakeup_path::{direction_findings, kept_awake_words, same_path_finding};
use super::wakeup_sweep::sweep_finding;
use crate::experiments::prelude::*;
use crate::measure::explain::contamination;
use crate::metric::key::VARIANT;

/// The one-way wake-up, where each CPU idled, kept awake, and on one CPU.
fn handoff_finding(r: &ExperimentResult) -> Option<String> {
    let cross = get(r, &WAKE_NS, Variant::CrossCpu)?;
    let how = match idled(r, Variant::CrossCpu) {
        Some(Idled::Uncounted) => format!(", {}", Idled::Uncounted.word()),
        Some(h) => format!(", the CPUs {} when idle", h.word()),
        None => ", the CPUs entering no idle state in most hand-offs".into(),
    };
    let mut s = format!(
        "a one-way futex wake-up to the other CPU (invariant TSC, from just before FUTEX_WAKE to the return from FUTEX_WAIT{how}) takes {}",
        fig(cross)
    );
    if let Some(awake) = get(r, &WAKE_NS, Variant::CrossCpuAwake) {
        s.push_str(&format!(
            "; with each CPU kept awake by a SCHED_IDLE spinner {}",
            fig(awake)
        ));
        s.push_str(&kept_awake_words(r, cross, awake));
    }
    if let Some(same) = get(r, &WAKE_NS, Variant::SameCpu) {
        s.push_str(&format!("; on one CPU {}", fig(same)));
        let words = (
            "the other CPU takes longer, by",
            "the other CPU is quicker, by",
        );
        s.push_str(&against(cross, same, words, Wrap::PerHandoff, false));
    }
    Some(s)
}

/// The waker's own call.
fn wake_call_finding(r: &ExperimentResult) -> Option<String> {
    let cross = get(r, &WAKE_CALL_NS, Variant::CrossCpu)?;
    let same = get(r, &WAKE_CALL_NS, Variant::SameCpu)?;
    let words = (
        "waking across CPUs costs the waker more, by",
        "waking across CPUs costs the waker less, by",
    );
    // On one CPU a call is timed only when the sleeper had not run before
    // it returned: the figure (and any bound on it) is of those calls.
    let subset = r
        .median(
            &TIMED_PCT,
            &[(VARIANT, Variant::SameCpu.name()), (OF, WAKE_CALL_NS.name)],
        )
        .filter(|pct| *pct < 90.0)
        .map_or(String::new(), |pct| {
            format!(" (of the {pct:.0}% of its calls timed there: those the sleeper did not run before)")
        });
    Some(format!(
        "the waker's FUTEX_WAKE call takes {} when the sleeper is on the other CPU, {} when it is on the same CPU{subset}{}",
        fig(cross),
        fig(same),
        against(cross, same, words, Wrap::Colon, true)
    ))
}

/// A timer: halt to run with no IPI. One subject in every run (issue 39
/// item 9): the CPU left without work against one kept awake, how the
/// first idled said in a parenthesis, the difference bounded or "not told
/// apart"; the cause (leaving the halt, or the polling loop) named only
/// where the CPU was seen to halt or poll.
///
/// A timer on a CPU left idle against one kept awake, each lateness
/// measured, their difference stated as the bound its interval supports.
/// The bound is never called what leaving idle costs outright: the
/// kept-awake timer is late too, for reasons nothing recorded explains
/// ([`kept_awake_lateness`]), so the bound is that cost only on the
/// assumption that whatever makes that timer late delays the idle CPU's
/// timer as much; the finding states the assumption plainly (issue 39).
fn timer_finding(r: &ExperimentResult) -> Option<String> {
    let idle = get(r, &TIMER_LATE_NS, Variant::TimerIdle)?;
    let awake = get(r, &TIMER_LATE_NS, Variant::TimerAwake)?;
    let idle_state = idled(r, Variant::TimerIdle);
    let how = match idle_state {
        Some(Idled::Halting) => "it halted",
        Some(Idled::Polling) => "it polled",
        Some(Idled::Uncounted) => "no cpuidle driver: HLT, not counted",
        None => "it entered no idle state in most wakes",
    };
    // What the bound would be of, were the assumption to hold; nothing
    // when the CPU entered no idle state (no idle exit to leave).
    let leaving = match idle_state {
        Some(Idled::Halting) => Some("leaving the halt (no IPI)"),
        Some(Idled::Polling) => Some("leaving the polling idle loop (no IPI)"),
        Some(Idled::Uncounted) => Some("leaving idle (no IPI)"),
        None => None,
    };
    let words = (
        "the timer on the CPU left idle fires later, by",
        "the timer on the kept-awake CPU fires later, by",
    );
    let later = !idle.unstable
        && !awake.unstable
        && diff(idle, awake, Unit::Ns).is_some_and(|d| d.lo > 0.0);
    let assumption = match leaving {
        Some(what) if later => format!(
            "; so the bound above is what {what} costs only on an assumption this run does not test: that whatever makes the kept-awake timer late delays the idle CPU's timer by as much"
        ),
        _ => String::new(),
    };
    Some(format!(
        "a timer fires {} late on a CPU left without work ({how}), {} late on one kept awake by a SCHED_IDLE spinner{}{}{assumption}",
        fig(idle),
        fig(awake),
        against(idle, awake, words, Wrap::Colon, true),
        kept_awake_lateness(r, awake)
    ))
}

/// What the run recorded of the kept-awake timer's own lateness: the timer
/// slack (1 ns, set by the sleeper), the IPIs counted per wake on its CPUs,
/// and that nothing tasklab records accounts for the rest (issue 39): no
/// cause is guessed.
fn kept_awake_lateness(r: &ExperimentResult, awake: &Summary) -> String {
    let med = |spec: &MetricSpec| r.median(spec, &[(VARIANT, Variant::TimerAwake.name())]);
    let ipis = match (med(&RES_PER_OP), med(&CAL_PER_OP)) {
        (Some(res), Some(cal)) if res + cal == 0.0 => format!(
            ", and the median round counted no IPI on its CPUs ({res:.2} RES and {cal:.2} CAL per wake)"
        ),
        (Some(res), Some(cal)) if res + cal < 0.05 => format!(
            ", and the median round counted fewer than one IPI in 20 wakes on its CPUs ({res:.2} RES and {cal:.2} CAL per wake)"
        ),
        (Some(res), Some(cal)) => format!(
            ", and {res:.2} RES and {cal:.2} CAL per wake were counted on its CPUs (how much of the lateness they make is not measured)"
        ),
        _ => String::new(),
    };
    format!(
        "; on the kept-awake CPU the sleep's timer slack was 1 ns{ipis}: what makes that timer fire {} late is not explained by what tasklab records",
        fmt_ns(awake.median)
    )
}

/// The membarrier figure, under its real name.
fn barrier_finding(r: &ExperimentResult) -> Option<String> {
    let run = get(r, &BARRIER_NS, Variant::IpiRunning)?;
    let mut s = format!(
        "a synchronous IPI round trip to a running CPU (membarrier, the peer thread spinning there) takes {}",
        fig(run)
    );
    if let Some(blk) = get(r, &BARRIER_NS, Variant::IpiBlocked) {
        s.push_str(&format!(", {} with the peer blocked (no IPI)", fig(blk)));
        let words = ("the round trip adds", "the round trip saves");
        s.push_str(&against(run, blk, words, Wrap::Colon, false));
    }
    s.push_str("; it is not a part of the hand-off, whose IPI is one-way and goes to a CPU that may have halted");
    Some(s)
}

/// The path each probe took.
fn paths_finding(r: &ExperimentResult) -> Option<String> {
    let paths: Vec<String> = [
        (Variant::CrossCpu, "cross-CPU hand-off", "hand-off"),
        (Variant::CrossCpuAwake, "kept-awake hand-off", "hand-off"),
        (
            Variant::CrossCpuRemote,
            "hand-off with TTWU_QUEUE off",
            "hand-off",
        ),
        (Variant::SameCpu, "one-CPU hand-off", "hand-off"),
        (Variant::TimerIdle, "timer on an idle CPU", "wake"),
    ]
    .iter()
    .filter_map(|&(v, what, per)| Some(format!("{what}: {}", path_of(r, v, per)?)))
    .collect();
    (!paths.is_empty()).then(|| {
        format!(
            "the path each took (counted on its CPUs, machine-wide): {}",
            paths.join("; ")
        )
    })
}

/// The hand-off variants whose probes were timed for fewer than 90% of
/// the hand-offs.
fn timed_notes(r: &ExperimentResult) -> Vec<String> {
    let mut notes = Vec::new();
    for v in [Variant::CrossCpu, Variant::CrossCpuAwake, Variant::SameCpu] {
        let pct = |of: &str| r.median(&TIMED_PCT, &[(VARIANT, v.name()), (OF, of)]);
        if let (Some(w), Some(c)) = (pct(WAKE_NS.name), pct(WAKE_CALL_NS.name)) {
            if w < 90.0 || c < 90.0 {
                notes.push(format!(
                    "{}: {w:.0}% of the hand-offs timed for the wake-up, {c:.0}% for the wake call (the others: the wakee was not asleep, ran on another CPU, or on one CPU ran before the call returned)",
                    v.name()
                ));
            }
        }
    }
    notes
}

pub(super) fn analyze(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    a.findings.extend(
        [
            handoff_finding(r),
            same_path_finding(r),
            wake_call_finding(r),
            timer_finding(r),
            sweep_finding(r),
            barrier_finding(r),
            paths_finding(r),
        ]
        .into_iter()
        .flatten(),
    );
    a.findings.extend(direction_findings(r));
    a.notes.extend(timed_notes(r));
    a.notes.extend(super::wakeup_why::paths(r));
    a.notes.extend(contamination(&r.round_log, None));
    a
}
