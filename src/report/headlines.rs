//! The Summary at the top of the report: the sentences each experiment
//! computed from its own figures (`headlines` in the results file), in
//! report order. A sentence whose figures the run lacks was never written.

use super::sentence::{capitalise, group_identifiers};
use crate::results::{ExperimentResult, RunResults, Status};

/// (experiment, sentence) in report order.
pub fn headlines(r: &RunResults) -> Vec<(&ExperimentResult, &str)> {
    r.experiments
        .iter()
        .filter(|e| e.status == Status::Ok)
        .flat_map(|e| e.headlines.iter().map(move |h| (e, h.as_str())))
        .collect()
}

/// The Summary's sentences as shown, each with the experiment it is of, in
/// report order.
pub fn sentences(r: &RunResults) -> Vec<(&str, String)> {
    headlines(r)
        .into_iter()
        .map(|(e, s)| {
            let known = group_identifiers(r, &e.group);
            (e.name.as_str(), capitalise(s, &known))
        })
        .collect()
}
