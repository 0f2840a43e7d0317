//! How far an interrupted run came: the job it stopped at, kept as numbers
//! (`RunResults::interrupted`), and said in words when shown.

use super::{RunResults, Status};
use serde::{Deserialize, Serialize};

/// Where a run was stopped (a signal, or the reader of its stdout gone).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interruption {
    /// The jobs done when it stopped, of all it planned.
    pub job: usize,
    pub jobs: usize,
}

/// The words version 2 and older wrote for an interruption, only among
/// the warnings: where such a file is read, they are taken back as numbers.
const OLD_WORDS: &str = "interrupted at job ";

impl Interruption {
    /// What the run had: "interrupted at job 15 of 48: 2 of 5 experiments
    /// have figures from their complete rounds (partial, marked); 3 had too
    /// few rounds complete".
    pub fn words(&self, r: &RunResults) -> String {
        let n = r.experiments.len();
        let count = |f: &dyn Fn(&super::ExperimentResult) -> bool| {
            r.experiments.iter().filter(|e| f(e)).count()
        };
        let kept = count(&|e| e.interrupted.is_some());
        let cut = count(&|e| e.status == Status::Failed && e.interrupted.is_none());
        let whole = count(&|e| e.status == Status::Ok && e.interrupted.is_none());
        let mut parts = Vec::new();
        if whole > 0 {
            parts.push(format!("{whole} of {n} experiments ran every round"));
        }
        if kept > 0 {
            parts.push(format!(
                "{kept} of {n} have figures from their complete rounds only (marked partial)"
            ));
        }
        if cut > 0 {
            parts.push(format!(
                "{cut} of {n} had too few rounds complete for figures"
            ));
        }
        format!(
            "{OLD_WORDS}{} of {}: {}",
            self.job,
            self.jobs,
            parts.join("; ")
        )
    }

    /// The interruption a file of schema version 2 or older recorded only
    /// in words, among its warnings ("interrupted at job 15 of 48: …"):
    /// this program's own former format, read back once, when loaded.
    pub fn from_old_warnings(warnings: &[String]) -> Option<Interruption> {
        warnings.iter().rev().find_map(|w| {
            let (job, rest) = w.strip_prefix(OLD_WORDS)?.split_once(" of ")?;
            let jobs = rest.split(':').next()?;
            Some(Interruption {
                job: job.parse().ok()?,
                jobs: jobs.parse().ok()?,
            })
        })
    }
}
