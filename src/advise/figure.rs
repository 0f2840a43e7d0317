//! A measured figure as advise quotes it ([`Figure`]: where it comes from,
//! how it was obtained), and a figure measured against the parent's heap
//! ([`Curve`]: interpolated between the measured heaps, extrapolated past
//! the largest only when the rise is real).

use crate::results::case;
use crate::results::{Metric, Unit};
use crate::stats::linear_fit;
use crate::units::{fmt_figure, fmt_size, fmt_value};
use serde::Serialize;

/// One measured figure, named so a reader can find it in the results file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Figure {
    pub experiment: String,
    pub metric: String,
    /// The labels that pick the series, `method=fork thp=off`.
    pub labels: String,
    pub value: f64,
    pub unit: Unit,
    /// How the value was obtained when it is not a median taken as is
    /// (interpolated, extrapolated, a stand-in).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub how: Option<String>,
    /// Another figure standing in for one that is not measured (`~`).
    pub stand_in: bool,
    /// The cheapest case measured, so the real cost is higher (`≥`).
    pub floor: bool,
}

impl Figure {
    pub fn from_metric(experiment: &str, m: &Metric) -> Figure {
        Figure {
            experiment: experiment.into(),
            metric: m.name.clone(),
            labels: case(m),
            value: m.summary.median,
            unit: m.unit,
            how: None,
            stand_in: false,
            floor: false,
        }
    }

    pub fn with_how(mut self, how: impl Into<String>) -> Figure {
        self.how = Some(how.into());
        self
    }

    /// `≥ `, `~` or nothing, for a table cell.
    pub fn mark(&self) -> &'static str {
        mark(self.stand_in, self.floor)
    }

    /// `spawn.heap lifecycle_ns method=fork thp=off = 400 µs (how)`.
    pub fn describe(&self) -> String {
        let mut s = format!(
            "{} {}{}{} = {}",
            self.experiment,
            self.metric,
            if self.labels.is_empty() { "" } else { " " },
            self.labels,
            fmt_figure(self.value, self.unit)
        );
        if let Some(h) = &self.how {
            s.push_str(&format!(" ({h})"));
        }
        s
    }
}

/// `~` for a stand-in, `≥ ` for a floor.
pub fn mark(stand_in: bool, floor: bool) -> &'static str {
    if stand_in {
        "~"
    } else if floor {
        "≥ "
    } else {
        ""
    }
}

/// Past this many times the largest measured heap, an extrapolated figure
/// gets a note saying so.
pub const FAR_BEYOND: f64 = 4.0;
/// A curve is extrapolated past its largest heap only when a straight line
/// fits it at least this well (and rises); otherwise it is held flat.
pub const MIN_R2: f64 = 0.9;

/// A figure measured at several parent heap sizes (spawn.heap).
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    pub experiment: String,
    pub metric: String,
    pub labels: String,
    pub unit: Unit,
    /// (heap bytes, value), sorted by heap, one value per heap; never empty.
    pub points: Vec<(u64, f64)>,
    /// Set when the figure was not measured against the heap (a stand-in
    /// from another experiment): says so, and the value is held flat.
    pub stand_in: Option<String>,
}

impl Curve {
    pub fn new(
        experiment: &str,
        metric: &str,
        labels: &str,
        unit: Unit,
        mut points: Vec<(u64, f64)>,
    ) -> Option<Curve> {
        points.retain(|p| p.1.is_finite());
        points.sort_by_key(|p| p.0);
        points.dedup_by_key(|p| p.0);
        (!points.is_empty()).then(|| Curve {
            experiment: experiment.into(),
            metric: metric.into(),
            labels: labels.into(),
            unit,
            points,
            stand_in: None,
        })
    }

    fn show(&self, (heap, v): (u64, f64)) -> String {
        format!("heap {}: {}", fmt_size(heap), fmt_figure(v, self.unit))
    }

    /// The largest measured heap.
    pub fn largest(&self) -> u64 {
        self.points.last().expect("never empty").0
    }

    /// How many times the largest measured heap `heap` is, when that is more
    /// than [`FAR_BEYOND`] (infinite when only heap 0 was measured).
    pub fn far_beyond(&self, heap: u64) -> Option<f64> {
        if self.stand_in.is_some() {
            return None;
        }
        let largest = self.largest();
        if heap <= largest {
            return None;
        }
        let r = if largest == 0 {
            f64::INFINITY
        } else {
            heap as f64 / largest as f64
        };
        (r > FAR_BEYOND).then_some(r)
    }

    /// The value at `heap`: measured there, else linear in heap bytes between
    /// the measured neighbours; below the smallest measured heap, clamped to
    /// it; past the largest, extrapolated from the largest with the
    /// least-squares slope over every measured heap when that line fits well
    /// (r² ≥ [`MIN_R2`]) and rises, else held at the largest heap's figure:
    /// noise is not growth.
    pub fn at(&self, heap: u64) -> Figure {
        let fig = |value: f64, how: String| Figure {
            experiment: self.experiment.clone(),
            metric: self.metric.clone(),
            labels: self.labels.clone(),
            value,
            unit: self.unit,
            how: Some(how),
            stand_in: self.stand_in.is_some(),
            floor: false,
        };
        let pts = &self.points;
        if let Some(why) = &self.stand_in {
            return fig(pts[0].1, why.clone());
        }
        if let Some(&(b, v)) = pts.iter().find(|p| p.0 == heap) {
            return fig(v, format!("measured at heap {}", fmt_size(b)));
        }
        let first = pts[0];
        if heap < first.0 {
            return fig(
                first.1,
                format!(
                    "clamped to the smallest measured heap, {}",
                    self.show(first)
                ),
            );
        }
        if let Some(w) = pts.windows(2).find(|w| w[0].0 < heap && heap < w[1].0) {
            let ((a, va), (b, vb)) = (w[0], w[1]);
            let v = va + (vb - va) * (heap - a) as f64 / (b - a) as f64;
            return fig(
                v,
                format!(
                    "interpolated in heap bytes between {} and {}",
                    self.show(w[0]),
                    self.show(w[1])
                ),
            );
        }
        let last = *pts.last().expect("never empty");
        let far = match self.far_beyond(heap) {
            Some(r) if r.is_finite() => {
                format!("; an extrapolation to {r:.0}x the largest measured heap")
            }
            Some(_) => "; an extrapolation from heap 0 alone".into(),
            None => String::new(),
        };
        let xs: Vec<f64> = pts.iter().map(|p| p.0 as f64).collect();
        let ys: Vec<f64> = pts.iter().map(|p| p.1).collect();
        let gib = (1u64 << 30) as f64;
        let rises =
            |n: usize| linear_fit(&xs[..n], &ys[..n]).filter(|f| f.slope > 0.0 && f.r2 >= MIN_R2);
        let n = pts.len();
        let Some(f) = linear_fit(&xs, &ys) else {
            return fig(
                last.1,
                format!(
                    "past the only measured heap, {}; held there: no growth with the heap was measured",
                    self.show(last)
                ),
            );
        };
        let fit = format!(
            "least-squares slope over {n} heaps {} per GiB, r² = {:.2}",
            fmt_value(f.slope * gib, self.unit),
            f.r2
        );
        if rises(n).is_none() {
            return fig(
                last.1,
                format!(
                    "past the largest measured heap, {}; held there: no growth with the heap was measured ({fit}; extrapolated only when rising with r² ≥ {MIN_R2})",
                    self.show(last)
                ),
            );
        }
        // The heaps are spread geometrically, so the largest one alone can
        // make a good-looking line out of noise: the rise must show without
        // it too.
        if n >= 3 && rises(n - 1).is_none() {
            return fig(
                last.1,
                format!(
                    "past the largest measured heap, {}; held there: the {fit} rests on that heap alone, the smaller heaps show no rise (noise, not growth)",
                    self.show(last)
                ),
            );
        }
        fig(
            last.1 + f.slope * (heap - last.0) as f64,
            format!(
                "extrapolated past the largest measured heap, {}, with the {fit}{far}",
                self.show(last)
            ),
        )
    }

    /// The note for a figure taken far past the largest measured heap.
    pub fn far_note(&self, what: &str, heap: u64) -> Option<String> {
        let r = self.far_beyond(heap)?;
        let times = if r.is_finite() {
            format!(
                "{r:.0}x the largest measured heap ({})",
                fmt_size(self.largest())
            )
        } else {
            "past heap 0, the only one measured".into()
        };
        Some(format!(
        "{what} at a {} heap is an extrapolation, {times}: measure it with `tasklab run spawn.heap -p spawn.heap.heap_sizes=0,{}`",
        fmt_size(heap),
        heap
    ))
    }
}
