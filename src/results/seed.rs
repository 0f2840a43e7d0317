//! A seed's published figure as the results file carries it beside ours:
//! its range, source, machine, statistic and protocol, and how ours stands
//! against it.

use super::{count_over_time, Unit};
use crate::metric::key;
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
    /// The seed's figure is a lower bound, not a value ("a simple memcpy
    /// of 2 MB takes over 60 us"): his figure is somewhere above `lo`, so
    /// ours is below his only where our whole interval lies below `lo` (by
    /// at most ours over `lo`), and otherwise neither above nor below it
    /// ([`SeedCompare::NotBelow`]): never a ratio to the bound as if it
    /// were his figure.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub lower_bound: bool,
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
    /// The seed's figure is a lower bound ([`SeedRef::lower_bound`]) and
    /// our interval reaches it or lies above it: his figure, somewhere
    /// above the bound, may be above or below ours.
    NotBelow,
    /// Not comparable, and why (another protocol, or a meaningless ratio).
    Unlike(String),
}

/// Ours against a seed figure: by its statistic, like for like.
impl super::Metric {
    /// Our figure by the seed's statistic: the mean against a mean, the
    /// minimum against a minimum, the median otherwise (of first calls when
    /// the seed timed single calls).
    pub fn seed_ours(&self) -> Option<f64> {
        let s = self.seed.as_ref()?;
        Some(match s.statistic {
            SeedStat::Mean => self.summary.mean,
            SeedStat::Min => self.summary.min,
            SeedStat::Median | SeedStat::Single | SeedStat::OneReading | SeedStat::Unstated => {
                self.summary.median
            }
            SeedStat::CountOverTime => count_over_time(&self.samples)?,
        })
    }

    /// Our figure's interval by the seed's statistic: the median's 95%
    /// interval for a median (or single calls, or one reading, each
    /// compared by our median);
    /// the figure itself for a mean or a minimum, which have none here.
    pub fn seed_ours_interval(&self) -> Option<(f64, f64)> {
        let s = self.seed.as_ref()?;
        let ours = self.seed_ours()?;
        Some(match s.statistic {
            SeedStat::Median | SeedStat::Single | SeedStat::OneReading | SeedStat::Unstated => {
                (self.summary.ci95_lo, self.summary.ci95_hi)
            }
            SeedStat::Mean | SeedStat::Min | SeedStat::CountOverTime => (ours, ours),
        })
    }

    /// Ours over the seed's figure (or the nearer edge of its range) with
    /// the interval ours allows: `(ratio, lo, hi)`, when they compare.
    pub fn seed_ratio_interval(&self) -> Option<(f64, f64, f64)> {
        let r = self.seed_ratio()?;
        let (slo, shi) = self.seed.as_ref()?.compared().ok()?;
        let ours = self.seed_ours()?;
        let edge = if ours > shi { shi } else { slo };
        let (lo, hi) = self.seed_ours_interval()?;
        Some((r, lo / edge, hi / edge))
    }

    /// Ours against the seed's, like for like: "within" its range when our
    /// interval reaches it (the same rule as every finding: no difference
    /// is stated that our interval cannot exclude), the ratio to its figure
    /// or to the nearer edge of its range, or why there is no ratio. Never
    /// a negative or a meaningless ratio. A seed's one reading has no
    /// interval of its own: ours is then only above or below it (a ratio)
    /// or neither (`Reaches`), never within it. A seed's lower bound
    /// ([`SeedRef::lower_bound`]): ours over the bound where our whole
    /// interval lies below it, else `NotBelow`.
    pub fn seed_compare(&self) -> Option<SeedCompare> {
        let s = self.seed.as_ref()?;
        let ours = self.seed_ours()?;
        if s.cold && self.label(key::CALL) != Some("first") {
            return Some(SeedCompare::Unlike(
                "the seed timed single cold calls; this series is warm".into(),
            ));
        }
        if !s.unlike.is_empty() {
            return Some(SeedCompare::Unlike(s.unlike.clone()));
        }
        let (slo, shi) = match s.compared() {
            Ok(f) => f,
            Err(why) => return Some(SeedCompare::Unlike(why)),
        };
        if !(ours.is_finite() && ours > 0.0 && slo > 0.0 && shi >= slo) {
            return Some(SeedCompare::Unlike(
                "no meaningful ratio (a zero or negative figure)".into(),
            ));
        }
        let (lo, hi) = self.seed_ours_interval().unwrap_or((ours, ours));
        if s.lower_bound {
            // His figure lies somewhere above `slo`: ours is below it only
            // where our whole interval is below the bound.
            return Some(if hi < slo {
                SeedCompare::Ratio(ours / slo)
            } else {
                SeedCompare::NotBelow
            });
        }
        Some(
            if (ours >= slo && ours <= shi) || (lo <= shi && hi >= slo) {
                if s.statistic.no_interval() {
                    SeedCompare::Reaches
                } else {
                    SeedCompare::Within
                }
            } else if ours > shi {
                SeedCompare::Ratio(ours / shi)
            } else {
                SeedCompare::Ratio(ours / slo)
            },
        )
    }

    /// Ours over the seed's figure (or the nearer edge of its range), when
    /// the two compare like for like and ours lies outside the range.
    pub fn seed_ratio(&self) -> Option<f64> {
        match self.seed_compare()? {
            SeedCompare::Ratio(r) => Some(r),
            _ => None,
        }
    }

    /// The comparison in a few words: "within" (for a sweep, "within the
    /// range swept"; "indistinguishable" for a single figure), "1.93x",
    /// "1.93x [1.52x, 2.41x]" when our figure is imprecise or the seed's is
    /// one reading (ours is above or below a reading only by our
    /// interval), "neither above nor below" a reading our interval
    /// reaches, "not compared"; against a lower bound, "not below his lower
    /// bound" or "below his lower bound: at most 0.52x"; with our figure's
    /// mark (`~`, `!`).
    pub fn seed_compare_text(&self) -> String {
        let sm = &self.summary;
        let mark = if sm.unstable {
            " !"
        } else if sm.noisy {
            " ~"
        } else {
            ""
        };
        let single = self
            .seed
            .as_ref()
            .is_some_and(|s| s.compared().is_ok_and(|(lo, hi)| lo == hi));
        let reading = self
            .seed
            .as_ref()
            .is_some_and(|s| s.statistic.no_interval());
        let bound = self.seed.as_ref().is_some_and(|s| s.lower_bound);
        let text = match self.seed_compare() {
            None => return String::new(),
            Some(SeedCompare::Reaches) => "neither above nor below".into(),
            Some(SeedCompare::NotBelow) => "not below his lower bound".into(),
            Some(SeedCompare::Within) => match self.seed.as_ref().and_then(|s| s.sweep.as_ref()) {
                _ if single => "indistinguishable".into(),
                Some(_) => "within the range swept".into(),
                None => "within".into(),
            },
            // Below a lower bound: his figure is above the bound, so ours is
            // at most (ours' upper end) over the bound times his.
            Some(SeedCompare::Ratio(_)) if bound => match self.seed_ratio_interval() {
                Some((_, _, hi)) if hi.is_finite() => {
                    format!("below his lower bound: at most {hi:.2}x")
                }
                _ => "below his lower bound".into(),
            },
            Some(SeedCompare::Ratio(r)) => match self.seed_ratio_interval() {
                // An interval that rounds to one figure ("1.50x [1.50x,
                // 1.50x]") says nothing the ratio does not.
                Some((_, lo, hi))
                    if (reading || crate::stats::compare_text::imprecise(sm))
                        && format!("{lo:.2}") != format!("{hi:.2}")
                        && lo < hi
                        && lo.is_finite()
                        && hi.is_finite() =>
                {
                    format!(
                        "{r:.2}x {}",
                        crate::units::fmt_interval(&format!("{lo:.2}x"), &format!("{hi:.2}x"))
                    )
                }
                _ => format!("{r:.2}x"),
            },
            Some(SeedCompare::Unlike(_)) => return "not compared".into(),
        };
        format!("{text}{mark}")
    }
}
