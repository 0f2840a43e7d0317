//! switch.wakeup's chart: each measured figure side by side, one bar each
//! with its 95% interval: the one-way wake-up (other CPU idle, kept awake,
//! one CPU), the waker's FUTEX_WAKE (other CPU, one CPU), a timer's
//! lateness (idle, kept awake), and the membarrier (an IPI round trip to a
//! running CPU, and with the peer blocked). Nothing is stacked: the figures
//! overlap in time and do not add. A flagged series is drawn hollow.

use super::style::{chart, color, entry, framed, mesh_style, plot, Mark, H};
use crate::experiments::switch::wakeup::{
    Variant, BARRIER_NS, TIMER_LATE_NS, WAKE_CALL_NS, WAKE_NS,
};
use crate::metric::key::VARIANT;
use crate::metric::MetricSpec;
use crate::report::doc::Chart;
use crate::results::ExperimentResult;
use crate::units::fmt_ns;
use plotters::prelude::*;

/// The bars, in order: series, variant, words.
const BARS: &[(&MetricSpec, Variant, &str)] = &[
    (&WAKE_NS, Variant::CrossCpu, "wake-up, other CPU idle"),
    (
        &WAKE_NS,
        Variant::CrossCpuAwake,
        "wake-up, other CPU kept awake",
    ),
    (&WAKE_NS, Variant::SameCpu, "wake-up, same CPU"),
    (
        &WAKE_CALL_NS,
        Variant::CrossCpu,
        "FUTEX_WAKE call, other CPU",
    ),
    (&WAKE_CALL_NS, Variant::SameCpu, "FUTEX_WAKE call, same CPU"),
    (
        &TIMER_LATE_NS,
        Variant::TimerIdle,
        "timer lateness, idle CPU",
    ),
    (
        &TIMER_LATE_NS,
        Variant::TimerAwake,
        "timer lateness, kept awake",
    ),
    (
        &BARRIER_NS,
        Variant::IpiRunning,
        "IPI round trip, running CPU",
    ),
    (&BARRIER_NS, Variant::IpiBlocked, "membarrier, peer blocked"),
];

/// One bar per measured figure, numbered; linear y.
pub(super) fn draw(e: &ExperimentResult) -> anyhow::Result<Option<Chart>> {
    let bars: Vec<(usize, &str, &crate::stats::Summary)> = BARS
        .iter()
        .enumerate()
        .filter_map(|(i, (spec, v, words))| {
            let m = e.find(*spec, &[(VARIANT, v.name())])?;
            Some((i, *words, &m.summary))
        })
        .collect();
    if !bars.iter().any(|b| b.2.median > 0.0 && !b.2.unstable) {
        return Ok(None);
    }
    let ymax = bars
        .iter()
        .map(|b| b.2.ci95_hi.max(b.2.median))
        .fold(0.0f64, f64::max)
        * 1.15;
    // A figure or a bound below zero (a one-way wake read across two CPUs'
    // time-stamp counters can be) is drawn as computed, never raised to
    // zero (issue 39): the axis reaches down to it.
    let ymin = bars
        .iter()
        .map(|b| b.2.ci95_lo.min(b.2.median))
        .fold(0.0f64, f64::min)
        * 1.15;
    let n = bars.len();
    let title = "Waking a thread on another CPU, figure by figure";
    let text = framed(title, H, |root| {
        let mut legend = Vec::new();
        let mut c = plot(root).build_cartesian_2d(0.5f64..n as f64 + 0.5, ymin..ymax)?;
        let number = |v: &f64| {
            let r = v.round();
            if (v - r).abs() < 1e-6 && r >= 1.0 && r as usize <= n {
                format!("{}", r as usize)
            } else {
                String::new()
            }
        };
        let mut mesh = c.configure_mesh();
        mesh.disable_x_mesh()
            .x_labels(n + 1)
            .x_label_formatter(&number)
            .x_desc("figure (see the legend)")
            .y_label_formatter(&|v| fmt_ns(*v))
            .y_desc("median, with its 95% interval");
        mesh_style(&mut mesh).draw()?;
        for (k, &(i, words, s)) in bars.iter().enumerate() {
            let x = (k + 1) as f64;
            let col = color(i);
            let style = if s.unstable {
                col.stroke_width(2)
            } else {
                col.filled()
            };
            c.draw_series([Rectangle::new(
                [(x - 0.35, 0.0), (x + 0.35, s.median)],
                style,
            )])?;
            c.draw_series([PathElement::new(
                vec![(x, s.ci95_lo), (x, s.ci95_hi)],
                BLACK.stroke_width(1),
            )])?;
            let flag = if s.unstable { ", flagged" } else { "" };
            legend.push(entry(
                format!("{} {words}: {}{flag}", k + 1, fmt_ns(s.median)),
                col,
                Mark::Bar,
            ));
        }
        legend.push(entry("95% interval", BLACK, Mark::Line));
        Ok(legend)
    })?;
    Ok(Some(chart(
        title,
        "Each bar is one measured figure, never a difference: the one-way futex wake-up by the invariant TSC (from just before FUTEX_WAKE to the return from FUTEX_WAIT) with the other CPU idle, kept awake by a SCHED_IDLE spinner, or on the same CPU; the waker's FUTEX_WAKE call alone; how late a timer fires on an idle CPU and on one kept awake (leaving idle with no IPI); and a membarrier with the peer running (a synchronous IPI round trip to a running CPU) and blocked (no IPI). They overlap in time and do not add. A hollow bar is a flagged series.",
        text,
    )))
}
