//! The Summary's quantities, declared once: each experiment's `headlines`
//! picks them from its result ([`Headline`]: the quantity in words, its
//! series and labels), and everything that shows a Summary quantity reads
//! that pick: the experiment's own Summary sentence, the matrix's rows
//! (`matrix/rows.rs`), the OpenMetrics `tasklab_summary_*` families, compare's
//! Summary rows and the run's budget (the points given the profile's rounds);
//! `experiments::summary_quantities` lists a run's, in the registry's order.
//! A pick reads labels only, never figures, so a flagged or imprecise series
//! keeps its place and the first rounds of a run already name the points.

use crate::metric::MetricSpec;
use crate::results::{ExperimentResult, Labels, Metric, Unit};

/// One of the Summary's quantities: a series of the experiment at these
/// labels, or (with `slope`) fork's growth per [`SLOPE_PER`] bytes of heap
/// from the series at `slope.from` to the one at `labels`.
#[derive(Clone, Debug, PartialEq)]
pub struct Headline {
    /// What the quantity is, in words ("a bare system call").
    pub name: String,
    pub spec: &'static MetricSpec,
    pub labels: Labels,
    pub slope: Option<Slope>,
}

/// A growth between two points of one series: from the smaller heap's
/// labels, over `bytes` of heap.
#[derive(Clone, Debug, PartialEq)]
pub struct Slope {
    pub from: Labels,
    pub bytes: u64,
}

/// Bytes a slope is given per: 100 MiB, as the Summary says it.
pub const SLOPE_PER: u64 = 100 << 20;

/// A quantity's figure in one run: the median, its 95% interval, its unit
/// and its mark ("!" flagged, "~" noisy, "" precise).
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    pub median: f64,
    pub lo: f64,
    pub hi: f64,
    pub unit: Unit,
    pub mark: &'static str,
}

impl Figure {
    /// A series' median and interval, as its own report shows them.
    pub fn of(m: &Metric) -> Figure {
        let s = &m.summary;
        Figure {
            median: s.median,
            lo: s.ci95_lo,
            hi: s.ci95_hi,
            unit: m.unit,
            mark: s.mark(),
        }
    }

    /// The growth from `from` to `to`, `bytes` of heap apart, per
    /// [`SLOPE_PER`] bytes: the difference of the medians with its interval
    /// (`stats::contrast`), flagged when either point is.
    pub fn slope(from: &Metric, to: &Metric, bytes: u64) -> Option<Figure> {
        let per = bytes as f64 / SLOPE_PER as f64;
        let d = crate::stats::contrast::difference(&to.summary, &from.summary);
        let flagged = from.summary.unstable || to.summary.unstable;
        (per > 0.0).then(|| Figure {
            median: d.value / per,
            lo: d.lo / per,
            hi: d.hi / per,
            unit: to.unit,
            mark: if flagged { "!" } else { "" },
        })
    }
}

impl Headline {
    /// The quantity `name`: the series `m` (of `spec`) at its labels.
    pub fn of(name: impl Into<String>, spec: &'static MetricSpec, m: &Metric) -> Headline {
        Headline {
            name: name.into(),
            spec,
            labels: m.labels.clone(),
            slope: None,
        }
    }

    /// The quantity as a growth from `from` to `to` over `bytes` of heap.
    pub fn sloped(mut self, from: &Metric, bytes: u64) -> Headline {
        self.slope = Some(Slope {
            from: from.labels.clone(),
            bytes,
        });
        self
    }

    /// The series the quantity is read from in `e` (for a slope, its
    /// larger heap's): None when `e` lacks it.
    pub fn find<'a>(&self, e: &'a ExperimentResult) -> Option<&'a Metric> {
        series(e, self.spec.name, &self.labels)
    }

    /// A slope's smaller heap's series in `e`; None for a plain quantity.
    pub fn find_from<'a>(&self, e: &'a ExperimentResult) -> Option<&'a Metric> {
        series(e, self.spec.name, &self.slope.as_ref()?.from)
    }

    /// The quantity's figure in `e`; None when `e` lacks it.
    pub fn figure(&self, e: &ExperimentResult) -> Option<Figure> {
        let to = self.find(e)?;
        match &self.slope {
            Some(s) => Figure::slope(self.find_from(e)?, to, s.bytes),
            None => Some(Figure::of(to)),
        }
    }
}

/// The series `name` with exactly `labels` in `e`.
pub fn series<'a>(e: &'a ExperimentResult, name: &str, labels: &Labels) -> Option<&'a Metric> {
    e.metrics
        .iter()
        .find(|m| m.name == name && m.labels == *labels)
}

/// A Summary quantity of a run: the experiment that declared it, and its
/// headline ([`crate::experiments::summary_quantities`] lists a run's).
#[derive(Clone, Debug, PartialEq)]
pub struct Quantity {
    pub experiment: &'static str,
    pub headline: Headline,
}

/// No Summary quantity: the default.
pub fn no_headlines(_: &ExperimentResult) -> Vec<Headline> {
    Vec::new()
}
