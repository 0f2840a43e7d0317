//! The run's figures against its precision target, and what its time
//! budget bought: the Summary's last line.

use super::ExperimentResult;
use serde::{Deserialize, Serialize};

/// The run's figures against the precision target: the series better one
/// way that tables show (a count of what happened has no precision to
/// reach), how many reached the target, and the median half-width.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Precision {
    /// The target half-width of an interval over its median, in percent.
    pub target_pct: f64,
    pub series: usize,
    pub reached: usize,
    /// The median half-width over those series, in percent.
    pub median_half_width_pct: f64,
    /// Jobs run as adaptive rounds, beyond the profile's rounds.
    pub adaptive_jobs: usize,
    /// The run's time budget in seconds (`--budget`; None when `--rounds`
    /// fixed the rounds, and in files from before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_s: Option<f64>,
    /// Seconds from the first job to the end of the last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured_s: Option<f64>,
    /// Seconds the rounds every point must have took (the minimum rounds,
    /// the Summary's quantities' rounds) before the budget shared out more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub floor_s: Option<f64>,
    /// When the budget's rounds were to end, in seconds from the first job:
    /// the budget, or, for named experiments and no `--budget`, sooner (as
    /// long as the profile's rounds at every point take).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_s: Option<f64>,
    /// The fewest and the most rounds of the series counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<(usize, usize)>,
    /// The fewest and the most rounds of the Summary's quantities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary_rounds: Option<(usize, usize)>,
    /// When the budget did not hold the profile's rounds for every one of
    /// the Summary's quantities: those rounds (8 in the quick profile), and
    /// the seconds of measuring more they would have taken, at their
    /// points' median round costs. None when it held them, and in older
    /// files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary_short: Option<(usize, f64)>,
    /// The first touch of a 4 KiB page of fresh memory and of recycled
    /// memory, ns: the medians over every round's starting canary (the
    /// host's memory state, which sets how long memory-heavy rounds take).
    /// None without canaries and in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub touch_ns: Option<(f64, f64)>,
}

impl Precision {
    /// The precision of `experiments`' series against `target_pct`.
    pub fn of(
        experiments: &[ExperimentResult],
        target_pct: f64,
        adaptive_jobs: usize,
    ) -> Precision {
        let counted: Vec<(f64, usize)> = experiments
            .iter()
            .flat_map(|e| &e.metrics)
            .filter(|m| m.has_precision_target())
            .map(|m| (100.0 * m.summary.half_width(), m.summary.rounds))
            .filter(|(w, _)| w.is_finite())
            .collect();
        let widths: Vec<f64> = counted.iter().map(|c| c.0).collect();
        let rounds = counted.iter().map(|c| c.1);
        let canaries = || {
            experiments
                .iter()
                .flat_map(|e| &e.round_log)
                .map(|r| &r.telemetry.canary_start)
        };
        let fresh: Vec<f64> = canaries().filter_map(|c| c.fresh_page_ns).collect();
        let recycled: Vec<f64> = canaries().filter_map(|c| c.recycled_page_ns).collect();
        let median = |v: &[f64]| crate::stats::median(v).filter(|m| m.is_finite() && *m > 0.0);
        Precision {
            target_pct,
            series: widths.len(),
            reached: widths.iter().filter(|w| **w <= target_pct).count(),
            median_half_width_pct: crate::stats::median(&widths).unwrap_or(f64::NAN),
            adaptive_jobs,
            budget_s: None,
            measured_s: None,
            floor_s: None,
            deadline_s: None,
            rounds: rounds.clone().min().zip(rounds.max()),
            summary_rounds: None,
            summary_short: None,
            touch_ns: median(&fresh).zip(median(&recycled)),
        }
    }

    /// In a sentence, what the run's time bought: "The 70 s budget bought
    /// ±3.1% median precision (312 of 371 series within ±5%, 3–24 rounds;
    /// the Summary's quantities 8–24 rounds)". When the rounds every point
    /// must have took longer than the budget, or the run ended before it
    /// (every series within the target, or a few experiments' rounds), it
    /// says so, and what the run recorded that held its rounds back
    /// (`busy`: the cgroup's throttling, the hypervisor's steal, other work);
    /// with the rounds fixed (`--rounds`), what they bought; in a file from
    /// before budgets, how many series reached the target.
    pub fn sentence(&self, busy: Option<&super::Busy>) -> String {
        let span = |(lo, hi): (usize, usize)| {
            if lo == hi {
                format!("{lo} rounds")
            } else {
                format!("{lo}–{hi} rounds")
            }
        };
        let within = format!(
            "{} of {} series ({:.0}%) within ±{}%{}{}",
            self.reached,
            self.series,
            100.0 * self.reached as f64 / self.series.max(1) as f64,
            self.target_pct,
            self.rounds
                .map_or(String::new(), |r| format!(", {}", span(r))),
            self.summary_rounds.map_or(String::new(), |r| format!(
                "; the Summary's quantities {}{}",
                span(r),
                self.short_words()
            ))
        );
        let bought = format!(
            "±{:.1}% median precision ({within})",
            self.median_half_width_pct
        );
        let secs = |s: f64| format!("{s:.0} s");
        let (Some(m), Some(f), true) = (self.measured_s, self.floor_s, self.series > 0) else {
            return self.old_sentence();
        };
        let Some(b) = self.budget_s else {
            return format!("{} of fixed rounds bought {bought}", secs(m));
        };
        let d = self.deadline_s.unwrap_or(b);
        if f > b {
            format!(
                "The rounds every series must have took {}, past the {} budget, and bought {bought}{}{}",
                secs(f),
                secs(b),
                held_back_words(busy),
                self.touch_words()
            )
        } else if m < 0.9 * d {
            format!(
                "{} of the {} budget bought {bought}: no more rounds were needed",
                secs(m),
                secs(d)
            )
        } else if d < b {
            format!(
                "{} bought {bought}: as long as the profile's rounds of every point take, under the {} budget",
                secs(m),
                secs(b)
            )
        } else {
            format!("The {} budget bought {bought}", secs(b))
        }
    }

    /// What the Summary's quantities' rounds would have taken where the
    /// budget did not hold them: ", 8 each would have taken about 23 s
    /// more (--budget 98)", that much past the run's end of measuring (or
    /// its budget's end, when later), in whole seconds up. Empty when it
    /// held them.
    fn short_words(&self) -> String {
        let Some((rounds, more_s)) = self.summary_short.filter(|s| s.1 >= 0.5) else {
            return String::new();
        };
        let end = self
            .measured_s
            .unwrap_or(0.0)
            .max(self.deadline_s.or(self.budget_s).unwrap_or(0.0));
        let budget = (end + more_s).ceil();
        format!(", {rounds} each would have taken about {more_s:.0} s more (--budget {budget:.0})")
    }

    /// Why memory-heavy rounds took what they took, for a run whose
    /// minimum rounds overran its budget: "; fresh memory took 2.2x as long
    /// to touch as recycled memory (…)". Empty without both canaries.
    fn touch_words(&self) -> String {
        let Some((fresh, recycled)) = self.touch_ns else {
            return String::new();
        };
        format!(
            ". A page of fresh memory took {:.1}x as long to touch as a recycled one ({} against {} per 4 KiB page, the medians of the rounds' canaries): memory the host must back again costs a fault on the host per page, and every memory-heavy round grows with it (docs/REPEATABILITY.md)",
            fresh / recycled,
            crate::units::fmt_ns(fresh),
            crate::units::fmt_ns(recycled)
        )
    }

    /// The sentence of a file from before budgets: "612 of 640 series
    /// (96%) are known to ±5% or better; the median interval is ±2.1%".
    fn old_sentence(&self) -> String {
        format!(
            "{} of {} series ({:.0}%) are known to ±{}% or better; the median interval is ±{:.1}%{}",
            self.reached,
            self.series,
            100.0 * self.reached as f64 / self.series.max(1) as f64,
            self.target_pct,
            self.median_half_width_pct,
            if self.adaptive_jobs > 0 {
                format!(" ({} adaptive rounds went to the widest)", self.adaptive_jobs)
            } else {
                String::new()
            }
        )
    }
}

/// What the run recorded that held its rounds back, for a run whose
/// minimum rounds overran its budget: ". While it ran, the cgroup's CPU
/// quota stalled it 1,018 times (60.1 s held back) and the hypervisor
/// stole 3.1% of the CPUs' time". The same records and levels as the run's warnings
/// (`Busy::TASKS`, `Busy::STEAL`); empty when none was seen, or not
/// recorded.
fn held_back_words(busy: Option<&super::Busy>) -> String {
    let Some(b) = busy else {
        return String::new();
    };
    let mut seen = Vec::new();
    if let Some(t) = b.throttled.filter(|t| t.nr_throttled > 0) {
        seen.push(format!("the cgroup's CPU quota stalled it {}", t.words()));
    }
    if b.steal_share >= super::Busy::STEAL {
        seen.push(format!(
            "the hypervisor stole {:.1}% of the CPUs' time",
            100.0 * b.steal_share
        ));
    }
    if b.during_other_runnable >= super::Busy::TASKS {
        seen.push("other work ran on its CPUs between its jobs (its warning says how much)".into());
    }
    match seen.as_slice() {
        [] => String::new(),
        [one] => format!(". While it ran, {one}"),
        [first @ .., last] => format!(". While it ran, {} and {last}", first.join(", ")),
    }
}

#[cfg(test)]
#[path = "precision_tests.rs"]
mod tests;
