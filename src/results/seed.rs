//! A seed's published figure as the results file carries it beside ours:
//! its range, source, machine, statistic and protocol, and how ours stands
//! against it.

use super::Unit;
use serde::{Deserialize, Serialize};

/// A figure published in one of the seeds, for comparison only: never ours.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeedRef {
    /// Low and high end of what the seed reports (equal for a single value).
    pub lo: f64,
    pub hi: f64,
    pub unit: Unit,
    /// The seed file in `shared/seeds/`.
    pub source: String,
    pub hardware: String,
    /// How the seed measured it, where that differs from ours.
    pub method: String,
    /// The statistic the seed reports; ours is compared by the same one
    /// (schema 2; older files: the median).
    #[serde(default)]
    pub statistic: SeedStat,
    /// The seed timed single cold calls (the first in a fresh process), so
    /// only a series of first calls (`call=first`) compares with it.
    #[serde(default)]
    pub cold: bool,
    /// What the seed's range sweeps, when it is a sweep rather than a
    /// spread of repetitions ("the CPU frequency, 3.4 to 1.3 GHz"): ours
    /// "within" it means within the range he swept, nothing more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<String>,
    /// How the seed's protocol differs from ours where that, not the
    /// machine, is the likely cause of a gap (e.g. one timed region against
    /// a loop of warm calls); empty when the protocols match.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub protocol: String,
    /// The CPU clock, in MHz, the seed took `lo` and `hi` at, where it says
    /// (Sysel: 34 µs at 3,400 MHz, 94 µs at 1,300 MHz): the figure is then
    /// compared scaled to our clock ([`SeedRef::compared`]), never as
    /// published.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_mhz: Option<(f64, f64)>,
    /// Our CPU clock, in MHz, the figure is scaled to: the run's measured
    /// clock, set when the seed is paired with a run's series.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ours_mhz: Option<f64>,
    /// Why ours and the seed's are not the same quantity, where they are
    /// not (the worker's own baseline against the seed's small program):
    /// the row shows both and compares neither. Empty when they compare.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub unlike: String,
}

/// The statistic a seed figure is: what of ours it may be compared with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeedStat {
    /// The median of repetitions (or a figure read off a chart of them).
    #[default]
    Median,
    /// The mean of many repetitions.
    Mean,
    /// The fastest of many repetitions.
    Min,
    /// Single calls: one value or the range a few of them spanned.
    Single,
    /// One reading: what one run printed (Bendersky's malloc-memusage
    /// "output from a sample run", what top showed for his 10,000
    /// threads). It has no interval of its own, so ours (the median, with
    /// its 95% interval) is above or below it only where our whole
    /// interval is, and neither otherwise: never "within" it
    /// ([`SeedCompare::Reaches`]).
    OneReading,
    /// A count over the total time of one long run (iterations per second
    /// as iterations / elapsed): ours is all samples' count over all their
    /// time, the harmonic mean of the per-run rates (each run the same
    /// count), never the mean of the rates.
    CountOverTime,
    /// A figure whose statistic the seed does not state (Bendersky's
    /// memcpy: "Copying 64K ... takes 3 us", no count, no loop, no
    /// statistic). Ours, the median with its 95% interval, is above or
    /// below it only where that whole interval is, and neither otherwise:
    /// never "within" it ([`SeedCompare::Reaches`]), which would hold two
    /// statistics alike that the text does not say are.
    Unstated,
}

impl SeedStat {
    pub fn word(self) -> &'static str {
        match self {
            SeedStat::Median => "median",
            SeedStat::Mean => "mean",
            SeedStat::Min => "minimum",
            SeedStat::Single => "single calls",
            SeedStat::OneReading => "one reading",
            SeedStat::CountOverTime => "count over total time",
            SeedStat::Unstated => "statistic not stated",
        }
    }

    /// Whether the seed's figure has no interval or statistic ours can be
    /// held alike with (one reading, or a statistic not stated): ours, the
    /// median, is then above or below it only by its whole interval, and
    /// never "within" it.
    pub fn no_interval(self) -> bool {
        matches!(self, SeedStat::OneReading | SeedStat::Unstated)
    }
}

impl SeedRef {
    pub fn mid(&self) -> f64 {
        (self.lo + self.hi) / 2.0
    }

    /// The seed's figure as ours is compared with it: as published, or,
    /// where the seed gives the CPU clock it ran at, scaled to ours (one
    /// value). Err says why there is none: a clock-bound figure and no
    /// clock of ours to scale it to.
    pub fn compared(&self) -> Result<(f64, f64), String> {
        match (self.clock_mhz, self.ours_mhz) {
            (None, _) => Ok((self.lo, self.hi)),
            (Some(at), Some(ours)) => {
                let v = scaled(self.lo, self.hi, at, ours);
                if v.is_finite() && v > 0.0 {
                    Ok((v, v))
                } else {
                    Err("the seed's clock scaling gives no positive figure at ours".into())
                }
            }
            (Some(_), None) => Err(
                "the seed's figure depends on the CPU clock it ran at, and this run recorded no clock of its own to scale it to".into(),
            ),
        }
    }

    /// How the seed's figure was scaled to our clock, in words, where it
    /// was: "34.0 µs at 3.4 GHz and 94.0 µs at 1.3 GHz, taken as linear in
    /// the clock period, give 31.4 µs at our 3,655 MHz".
    pub fn scaling_text(&self) -> Option<String> {
        let (at, ours) = (self.clock_mhz?, self.ours_mhz?);
        let (v, _) = self.compared().ok()?;
        let f = |x: f64| crate::units::fmt_value(x, self.unit);
        let ghz = |m: f64| format!("{} GHz", m / 1000.0);
        let from = if self.lo == self.hi || at.0 == at.1 {
            format!(
                "{} at {}, the same cycles at our {:.0} MHz",
                f(self.lo),
                ghz(at.0),
                ours
            )
        } else {
            format!(
                "{} at {} and {} at {}, taken as linear in the clock period, at our {:.0} MHz",
                f(self.lo),
                ghz(at.0),
                f(self.hi),
                ghz(at.1),
                ours
            )
        };
        Some(format!("scaled to our clock: {} (his {from})", f(v)))
    }
}

/// A figure taken at two clocks (`lo` at `at.0` MHz, `hi` at `at.1`),
/// at `ours` MHz: linear in the clock period through both ends; a single
/// clock (or a single figure) keeps its cycles, so time goes as 1/clock.
pub fn scaled(lo: f64, hi: f64, at: (f64, f64), ours: f64) -> f64 {
    let (p0, p1, p) = (1.0 / at.0, 1.0 / at.1, 1.0 / ours);
    if at.0 == at.1 || lo == hi {
        lo * at.0 / ours
    } else {
        lo + (hi - lo) * (p - p0) / (p1 - p0)
    }
}

/// Sets our clock on every seed figure of `metrics` (the run's measured
/// clock, in MHz), so a clock-bound seed figure is compared scaled to it.
pub fn set_clock(metrics: &mut [super::Metric], ours_mhz: Option<f64>) {
    for m in metrics {
        if let Some(s) = &mut m.seed {
            s.ours_mhz = ours_mhz.filter(|v| v.is_finite() && *v > 0.0);
        }
    }
}

/// How one of our figures stands against a seed's, like for like.
#[derive(Clone, Debug, PartialEq)]
pub enum SeedCompare {
    /// Ours lies inside the seed's range.
    Within,
    /// The seed's figure is one reading ([`SeedStat::OneReading`]) or of a
    /// statistic it does not state ([`SeedStat::Unstated`]), and our 95%
    /// interval reaches it: ours is neither above nor below it. Never
    /// "within": such a figure has no range or interval of its own, nor a
    /// statistic ours is the same as.
    Reaches,
    /// Ours over the seed's figure, or over the nearer edge of its range.
    Ratio(f64),
    /// Not comparable, and why (another protocol, or a meaningless ratio).
    Unlike(String),
}
