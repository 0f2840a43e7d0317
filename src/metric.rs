//! What a series is, declared once beside the code that pushes it: its
//! name, unit, which way is better, what kind of quantity it is and a line
//! about it. Every writer (`WorkerOutput::push`, `reading`) and every
//! reader inside the house (`ExperimentResult::find`, `median`, `settled`,
//! advise, predict, the charts, the seed table) takes the declaration, so a
//! rename is one edit and a reader the compiler checks. Names as strings
//! stay only where a foreign file is read (`compare`, `report` of an older
//! results file).

use crate::units::{Better, Unit};
use serde::Serialize;

/// One series (or reading) an experiment measures.
#[derive(Debug, PartialEq)]
pub struct MetricSpec {
    /// The series' name in the results file: what and in which unit.
    pub name: &'static str,
    pub unit: Unit,
    pub better: Direction,
    pub kind: Kind,
    /// What it is, in a line (`tasklab list --json`).
    pub about: &'static str,
    /// Whether its figure can be below zero: a difference (a growth, a
    /// time less a baseline, a slope per thread) can; a time, a size, a
    /// count or a rate cannot (the default). An interval is kept as its
    /// estimator gives it (issue 39); where a bound of a figure that cannot
    /// be negative comes out below zero, the report says so in words
    /// (`units::bounds_below_zero`) rather than print it.
    pub signed: bool,
}

/// Which way a series is better.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Direction {
    /// The same for every series of the metric.
    Always(Better),
    /// Depends on one label: a control series beside the figure (a write
    /// with no child beside the copy-on-write one) is `Neither`.
    ByLabel {
        key: &'static str,
        cases: &'static [(&'static str, Better)],
        otherwise: Better,
    },
}

/// What kind of quantity a series is, for picking the likely causes of a
/// difference from a seed's figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Creation and address-space work: fork, exec, page faults.
    Creation,
    /// A hand-off between tasks, which may wake another CPU.
    HandOff,
    /// A plain memory copy.
    Copy,
    /// Memory kept: sizes, resident sets.
    Memory,
    /// Anything else: timers, ratios, counts, CPU time.
    Other,
}

impl MetricSpec {
    /// A series whose direction never depends on its labels.
    pub const fn new(
        name: &'static str,
        unit: Unit,
        better: Better,
        kind: Kind,
        about: &'static str,
    ) -> MetricSpec {
        MetricSpec {
            name,
            unit,
            better: Direction::Always(better),
            kind,
            about,
            signed: false,
        }
    }

    /// The same series, declared as one whose figure can be below zero (a
    /// difference: the field `signed`).
    pub const fn signed(self) -> MetricSpec {
        MetricSpec {
            signed: true,
            ..self
        }
    }

    /// Whether its figure can never be below zero (not declared `signed`).
    pub fn never_negative(&self) -> bool {
        !self.signed
    }

    /// Which way the series labelled `label` (a lookup of one key) is better.
    pub fn better_with<'a>(&self, label: impl Fn(&str) -> Option<&'a str>) -> Better {
        match self.better {
            Direction::Always(b) => b,
            Direction::ByLabel {
                key,
                cases,
                otherwise,
            } => label(key)
                .and_then(|v| cases.iter().find(|(c, _)| *c == v))
                .map_or(otherwise, |(_, b)| *b),
        }
    }

    /// The direction in words, for `tasklab list`: `lower`, or
    /// `lower (child=none: neither)` where a label changes it.
    pub fn direction_words(&self) -> String {
        match self.better {
            Direction::Always(b) => b.word().to_string(),
            Direction::ByLabel {
                key,
                cases,
                otherwise,
            } => {
                let cases: Vec<String> = cases
                    .iter()
                    .map(|(v, b)| format!("{key}={v}: {}", b.word()))
                    .collect();
                format!("{} ({})", otherwise.word(), cases.join(", "))
            }
        }
    }
}

/// What names a series for a reader: its declaration. A name read from a
/// foreign file is no declaration: `ExperimentResult::find_named` takes it.
pub trait SeriesName {
    fn series_name(&self) -> &str;
}

impl SeriesName for MetricSpec {
    fn series_name(&self) -> &str {
        self.name
    }
}

/// A label key every reader spells the same way.
pub type LabelKey = &'static str;

/// The label keys read on more than one floor (experiments, advise,
/// predict, the report): declared once, like the series. A key one
/// experiment group alone reads is declared in that group.
pub mod key {
    use crate::metric::LabelKey;

    /// The creation method or hand-off mechanism (a method table's row).
    pub const METHOD: LabelKey = "method";
    /// A variant of an experiment (a variant table's row).
    pub const VARIANT: LabelKey = "variant";
    /// Transparent huge pages for the measured memory.
    pub const THP: LabelKey = "thp";
    /// The parent's touched heap in words (`64 MiB`), and in exact bytes.
    pub const HEAP: LabelKey = "heap";
    pub const HEAP_BYTES: LabelKey = "heap_bytes";
    /// Where the two ends of a hand-off ran (a placement table's row).
    pub const PLACEMENT: LabelKey = "placement";
    /// `first`: the first creation in a fresh process (a cold call).
    pub const CALL: LabelKey = "call";
    /// Workers, threads and counts a point was measured with.
    pub const WORKERS: LabelKey = "workers";
    pub const THREADS: LabelKey = "threads";
    pub const N: LabelKey = "n";
    /// A size in words (`64 KiB`), and in exact bytes.
    pub const SIZE: LabelKey = "size";
    pub const BYTES: LabelKey = "bytes";
    /// Page size of the measured memory (`4k`, `thp`), and the share of it written.
    pub const PAGES: LabelKey = "pages";
    pub const WRITES: LabelKey = "writes";
    /// Whether a child was alive while the parent wrote (copy-on-write).
    pub const CHILD: LabelKey = "child";
}

#[cfg(test)]
#[path = "metric_tests.rs"]
mod tests;
