//! The matrix's rows: the Summary's quantities as each experiment declares
//! them (its `headlines`, `experiments::headline`: the same pick its
//! Summary sentence reads), so a row is the figure a reader of that run's
//! Summary saw. The picks are made on the baseline run (or, for a quantity
//! it lacks, the first run that has it); every column then shows the
//! series with exactly those labels. With `--all`, every series the runs
//! share follows.

use crate::experiments::headline::{self, Figure, Quantity};
use crate::results::{ExperimentResult, Labels, Metric, RunResults};
use serde::Serialize;

/// One row: a series by experiment, name and labels; or fork's growth per
/// 100 MiB of heap between two of its points (`slope_from`: the smaller
/// heap's labels, `labels` the larger's).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Pick {
    /// What the row is, in words.
    pub name: String,
    pub experiment: String,
    pub metric: String,
    pub labels: Labels,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slope_from: Option<Labels>,
    /// Bytes between the slope's two heaps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slope_bytes: Option<u64>,
}

impl Pick {
    fn of(name: impl Into<String>, e: &ExperimentResult, m: &Metric) -> Pick {
        Pick {
            name: name.into(),
            experiment: e.name.clone(),
            metric: m.name.clone(),
            labels: m.labels.clone(),
            slope_from: None,
            slope_bytes: None,
        }
    }

    /// The row of a Summary quantity.
    fn quantity(q: Quantity) -> Pick {
        let h = q.headline;
        Pick {
            name: h.name,
            experiment: q.experiment.to_string(),
            metric: h.spec.name.to_string(),
            labels: h.labels,
            slope_bytes: h.slope.as_ref().map(|s| s.bytes),
            slope_from: h.slope.map(|s| s.from),
        }
    }

    /// The run's figure for this row: its series' median and interval as
    /// its own report shows them, or the slope between two of its heap
    /// points (in ns per [`headline::SLOPE_PER`] bytes); None when `r`
    /// lacks it.
    pub fn figure(&self, r: &RunResults) -> Option<Figure> {
        let to = self.find(r)?;
        match (&self.slope_from, self.slope_bytes) {
            (Some(from), Some(bytes)) => {
                let e = r.measured(&self.experiment)?;
                Figure::slope(headline::series(e, &self.metric, from)?, to, bytes)
            }
            _ => Some(Figure::of(to)),
        }
    }

    /// The same series in another run (None: it was not measured there).
    pub fn find<'a>(&self, r: &'a RunResults) -> Option<&'a Metric> {
        headline::series(r.measured(&self.experiment)?, &self.metric, &self.labels)
    }
}

/// The Summary's quantities measured in `r`, in the Summary's order.
pub fn summary_picks(r: &RunResults) -> Vec<Pick> {
    crate::experiments::summary_quantities(r)
        .into_iter()
        .map(Pick::quantity)
        .collect()
}

/// Every series the first run has and at least one other run has too
/// (`--all`), in the first run's order, after the Summary's.
pub fn shared_picks(runs: &[&RunResults], already: &[Pick]) -> Vec<Pick> {
    let Some((first, rest)) = runs.split_first() else {
        return Vec::new();
    };
    let mut v = Vec::new();
    for e in first
        .experiments
        .iter()
        .filter(|e| e.status == crate::results::Status::Ok)
    {
        for m in &e.metrics {
            let p = Pick::of(
                format!("{} {} {}", e.name, m.name, crate::results::case(m))
                    .trim()
                    .to_string(),
                e,
                m,
            );
            let dup = already.iter().any(|a| {
                a.slope_from.is_none()
                    && a.experiment == p.experiment
                    && a.metric == p.metric
                    && a.labels == p.labels
            });
            if !dup && rest.iter().any(|r| p.find(r).is_some()) {
                v.push(p);
            }
        }
    }
    v
}
