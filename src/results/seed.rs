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
}

impl SeedStat {
    pub fn word(self) -> &'static str {
        match self {
            SeedStat::Median => "median",
            SeedStat::Mean => "mean",
            SeedStat::Min => "minimum",
            SeedStat::Single => "single calls",
        }
    }
}

impl SeedRef {
    pub fn mid(&self) -> f64 {
        (self.lo + self.hi) / 2.0
    }
}

/// How one of our figures stands against a seed's, like for like.
#[derive(Clone, Debug, PartialEq)]
pub enum SeedCompare {
    /// Ours lies inside the seed's range.
    Within,
    /// Ours over the seed's figure, or over the nearer edge of its range.
    Ratio(f64),
    /// Not comparable, and why (another protocol, or a meaningless ratio).
    Unlike(String),
}
