//! The report's charts, drawn as SVG with plotters from a results file: the
//! seed's launch time vs memory image, writes after fork (copy-on-write)
//! against the share written, switch cost by mechanism and
//! placement, a cross-CPU hand-off part by part, the indirect cost vs working set, thread memory vs thread
//! count, and speedup vs workers. One file per chart, one row per chart in
//! `CHARTS`; a chart whose experiment is missing from the run (or did not
//! measure) is simply not drawn.

mod cow;
mod indirect;
mod launch_vs_heap;
mod speedup;
mod style;
mod switch_placement;
mod thread_memory;
mod wakeup;

#[cfg(test)]
mod tests;

use super::doc::Chart;
use crate::experiments;
use crate::results::{ExperimentResult, RunResults};

/// Draws one chart from its experiment's result: `None` when the result has
/// none of the figures the chart is made of.
pub type DrawFn = fn(&ExperimentResult) -> anyhow::Result<Option<Chart>>;

/// One chart of the report.
pub struct ChartSpec {
    /// The registered name of the experiment whose figures it draws.
    pub experiment: &'static str,
    /// Its file in the report folder, linked from report.md.
    pub file: &'static str,
    pub draw: DrawFn,
}

/// Every chart, in the order the report shows them within a group.
pub static CHARTS: &[ChartSpec] = &[
    ChartSpec {
        experiment: experiments::spawn::heap::EXPERIMENT.name,
        file: "chart-launch-vs-heap.svg",
        draw: launch_vs_heap::draw,
    },
    ChartSpec {
        experiment: experiments::spawn::cow::EXPERIMENT.name,
        file: "chart-cow.svg",
        draw: cow::draw,
    },
    ChartSpec {
        experiment: experiments::switch::pingpong::EXPERIMENT.name,
        file: "chart-switch-placement.svg",
        draw: switch_placement::draw,
    },
    ChartSpec {
        experiment: experiments::switch::wakeup::EXPERIMENT.name,
        file: "chart-switch-wakeup.svg",
        draw: wakeup::draw,
    },
    ChartSpec {
        experiment: experiments::switch::indirect::EXPERIMENT.name,
        file: "chart-switch-indirect.svg",
        draw: indirect::draw,
    },
    ChartSpec {
        experiment: experiments::memory::threads::EXPERIMENT.name,
        file: "chart-thread-memory.svg",
        draw: thread_memory::draw,
    },
    ChartSpec {
        experiment: experiments::parallel::average::EXPERIMENT.name,
        file: "chart-speedup.svg",
        draw: speedup::draw,
    },
];

/// Every chart this run has the figures for, with the group it belongs to
/// (its experiment's, as the results file records it).
pub fn all(r: &RunResults) -> Vec<(&str, Chart)> {
    let mut out = Vec::new();
    for spec in CHARTS {
        let Some(e) = r.measured(spec.experiment) else {
            continue;
        };
        match (spec.draw)(e) {
            Ok(Some(mut c)) => {
                c.file = spec.file.to_string();
                out.push((e.group.as_str(), c));
            }
            Ok(None) => {}
            // A drawing error is a bug, never a reason to lose the report.
            Err(e) => eprintln!("tasklab: a chart could not be drawn: {e:#}"),
        }
    }
    out
}
