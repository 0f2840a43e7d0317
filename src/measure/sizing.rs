//! How much measuring a run does: the profile the user picked and what it
//! buys per series, with the user's `--timeout` folded in.

use serde::{Deserialize, Serialize};

/// What a run is sized for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// The whole suite in about a minute on 2 cores.
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
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sizing {
    /// Seconds of measuring per series.
    pub budget_s: f64,
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
            Profile::Quick => Sizing {
                budget_s: 0.15,
                min_samples: 5,
                max_samples: 2_000,
                timeout_s: 120.0,
            },
            Profile::Thorough => Sizing {
                budget_s: 3.0,
                min_samples: 100,
                max_samples: 10_000,
                timeout_s: 1_800.0,
            },
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
