//! `run --why`'s record: where each attributed series spent its time, as
//! shares of the cpu-clock samples taken inside its timed windows, each
//! with a 95% interval across rounds (`measure::attribution` computes it).

use super::Labels;
use serde::{Deserialize, Serialize};

/// A share of a series' samples (0 to 1): pooled over its rounds (every
/// round's count over every round's samples) with its 95% interval
/// (`stats::share`). Files written before session 23 hold the median of
/// the rounds' shares under `median`; it is read as the share.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Share {
    #[serde(alias = "median")]
    pub share: f64,
    pub lo: f64,
    pub hi: f64,
}

/// One kernel function's shares: its own samples (the sampled address in
/// it) and every sample it is on the call chain of.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FunctionShare {
    pub function: String,
    #[serde(rename = "self")]
    pub self_share: Share,
    pub total: Share,
}

/// Where the timed windows of the series with `labels` spent their CPU time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Attribution {
    /// The labels of the series the windows timed (every series the
    /// experiment pushes with them).
    pub labels: Labels,
    /// Rounds with at least one sample.
    pub rounds: usize,
    pub samples: u64,
    /// Samples the kernel dropped (a full ring); none in a sound record.
    #[serde(default)]
    pub lost: u64,
    pub user: Share,
    pub kernel: Share,
    /// The top kernel functions by self share, then by total share.
    pub functions: Vec<FunctionShare>,
    /// The stacks folded (root first, `;` between frames, user time as
    /// `[user]`), pooled over the rounds, the heaviest first, at most
    /// [`FOLDED_KEPT`] of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub folded: Vec<(String, u64)>,
    /// Each round's counts, for a comparison that decomposes a change of
    /// the series' figures by function (`measure::why_diff`); absent in
    /// files from before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_round: Option<PerRound>,
    /// What sampling cost each series these windows timed: its sampled
    /// rounds against its unsampled twins (`run::twin`). Empty where no
    /// round had a twin (an A/B run, or a results file older than it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overhead: Vec<Overhead>,
}

impl Attribution {
    /// An attribution that holds only per-round counts (its summarised
    /// shares left empty): its rounds and samples read off `per_round`.
    /// What the tests of the attribution's differences build.
    #[cfg(test)]
    pub fn of_rounds(labels: Labels, per_round: PerRound) -> Attribution {
        Attribution {
            labels,
            rounds: per_round.round.len(),
            samples: per_round.samples.iter().sum(),
            lost: 0,
            user: Share::default(),
            kernel: Share::default(),
            functions: vec![],
            folded: vec![],
            overhead: vec![],
            per_round: Some(per_round),
        }
    }

    /// Whether these windows timed the series with `labels`: it carries
    /// every one of the attribution's labels.
    pub fn covers(&self, labels: &Labels) -> bool {
        self.labels.iter().all(|(k, v)| labels.get(k) == Some(v))
    }

    /// The sampling cost measured for the series `metric` at `labels`.
    pub fn overhead_of(&self, metric: &str, labels: &Labels) -> Option<&Overhead> {
        self.overhead
            .iter()
            .find(|o| o.metric == metric && &o.labels == labels)
    }
}

/// What sampling cost one series: the change from its unsampled rounds to
/// their sampled twins, each pair two rounds that ran next to each other
/// (`stats::paired`: the geometric mean of the pairs' ratios, its 95%
/// interval resampled over the pairs), as `tasklab ab` judges a change.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Overhead {
    pub metric: String,
    pub labels: Labels,
    /// Pairs of rounds it rests on.
    pub pairs: usize,
    /// Sampled over unsampled: 1.02 is 2% dearer with sampling.
    pub ratio: f64,
    pub lo: f64,
    pub hi: f64,
}

/// An attributed series' samples round by round, its rounds in the order
/// the series keeps them (`Metric::round_samples`: the order they ran), a
/// round with no sample included, so that round `i` here is round `i` of
/// every series the windows timed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PerRound {
    /// The jobs' round numbers.
    pub round: Vec<usize>,
    /// Each round's samples, and those in user space among them.
    pub samples: Vec<u64>,
    pub user: Vec<u64>,
    /// The kernel functions with the most self samples pooled over the
    /// rounds (at most [`ROUND_FUNCTIONS_KEPT`]), each with its self samples
    /// in every round. A round whose kernel samples these do not all hold
    /// had samples in a function left out.
    pub functions: Vec<(String, Vec<u64>)>,
}

/// The most functions [`PerRound`] keeps per series.
pub const ROUND_FUNCTIONS_KEPT: usize = 32;

/// The most folded stacks kept per series.
pub const FOLDED_KEPT: usize = 400;

/// The sampling of a `--why` run: what was sampled and how often, or why
/// it could not be.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WhyRecord {
    /// The event sampled ("cpu-clock").
    pub event: String,
    pub rate_hz: u64,
    /// Why nothing was attributed, naming the setting to change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
    /// Which tasks the events sampled: "cpu-wide" (every task on each
    /// CPU, this run's kept) or "per-task" (inherited events); absent
    /// when refused, and in files from before both were tried.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// Why per-task, where CPU-wide sampling was refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_task_why: Option<String>,
    /// CPU-wide, how the worker's tasks were told from the others':
    /// "cgroup" (a cgroup of the worker's own, carried by each sample) or
    /// "records" (the kernel's fork and exit records); absent per task,
    /// when refused, and in files from before the cgroup was tried.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<String>,
    /// Why by the records, where the cgroup could not be used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub records_why: Option<String>,
}
