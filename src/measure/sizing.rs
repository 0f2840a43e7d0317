//! How much measuring a run does: the profile the user picked and what it
//! buys per series, with the user's `--timeout` folded in.

use serde::{Deserialize, Serialize};

/// The fewest rounds a series is measured in: two rounds cannot tell a
/// drift from a difference.
pub const MIN_ROUNDS: usize = 3;
/// The most rounds `--rounds` takes.
pub const MAX_ROUNDS: usize = 100;

/// What a run is sized for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// The whole suite in a budget of 75 s of measuring.
    Quick,
    /// Publication-grade: the seeds' 10,000 launches per point, more sizes.
    Thorough,
}

impl Profile {
    pub fn name(self) -> &'static str {
        match self {
            Profile::Quick => "quick",
            Profile::Thorough => "thorough",
        }
    }
}

/// How much measuring one run does, and how long a worker may take.
///
/// Every series is measured in independent rounds, each in a fresh worker:
/// `min_rounds` at every point, `rounds` at the points that carry the
/// Summary's quantities, then more where the run's time buys the most
/// precision (`run::budget`); the budget and the sample bounds are per
/// round. The profile splits its budget into rounds rather than growing:
/// more rounds with fewer samples each beat the reverse, because the
/// variance that matters lives between rounds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sizing {
    /// Independent rounds of the Summary's quantities (and, with
    /// `--rounds`, of every series), when the budget holds them.
    pub rounds: usize,
    /// Rounds the Summary's quantities get however slow the host: the rest
    /// up to `rounds` come first in the budget's time (`run::budget::top_up`),
    /// so that a slow host buys the Summary fewer rounds, not a longer run.
    pub summary_min_rounds: usize,
    /// Independent rounds every point gets first (at least [`MIN_ROUNDS`],
    /// at most `rounds`).
    pub min_rounds: usize,
    /// Seconds of measuring per series in one round.
    pub budget_s: f64,
    /// Samples per series in one round.
    pub min_samples: usize,
    pub max_samples: usize,
    /// A worker is killed after this many seconds: the profile's default or
    /// the user's `--timeout`.
    pub timeout_s: f64,
}

impl Sizing {
    /// The profile's defaults.
    pub fn of(profile: Profile) -> Sizing {
        match profile {
            // Eight rounds of 20 ms per series (was three of 50 ms), a single
            // sample allowed where one costs more: the spread between
            // rounds, not within them, sets the interval (t(7) is 2.36
            // where t(2) was 4.30), so the budget goes to rounds. Eight for
            // the Summary's quantities; three for the rest first, and the
            // run's time then goes where a round buys the most precision
            // per second (the suite's eight rounds everywhere took 75-140 s
            // on a 2-vCPU VM, the budget is 75). Five of the Summary's eight
            // come first: on a day the host's memory is slow (its rounds
            // 2-3.5x dearer) eight took the run to 136-177 s.
            Profile::Quick => Sizing {
                rounds: 8,
                summary_min_rounds: 5,
                min_rounds: MIN_ROUNDS,
                budget_s: 0.02,
                min_samples: 1,
                max_samples: 260,
                timeout_s: 120.0,
            },
            Profile::Thorough => Sizing {
                rounds: 16,
                summary_min_rounds: 16,
                min_rounds: 16,
                budget_s: 0.19,
                min_samples: 8,
                max_samples: 750,
                timeout_s: 1_800.0,
            },
        }
    }

    /// The same sizing with the user's number of rounds, when one was
    /// given: exactly that many for every series.
    pub fn with_rounds(self, rounds: Option<usize>) -> Sizing {
        match rounds {
            Some(n) => Sizing {
                rounds: n,
                min_rounds: n,
                summary_min_rounds: n,
                ..self
            },
            None => self,
        }
    }

    /// The same sizing with the user's time limit, when one was given.
    pub fn with_timeout(self, timeout_s: Option<f64>) -> Sizing {
        Sizing {
            timeout_s: timeout_s.unwrap_or(self.timeout_s),
            ..self
        }
    }
}
