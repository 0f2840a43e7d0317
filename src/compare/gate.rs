//! The CI gates on how much a comparison judged, besides the exit 1 of a
//! regression (a consistent one; any with `--strict`):
//! `--fail-on-inconclusive` (any compared series inconclusive) and
//! `--min-verdicts PCT` (fewer than PCT% of the compared series got a
//! decided verdict: improved, regressed, changed or unchanged); and the
//! range of `--fdr`.

use super::Comparison;
use crate::cli::GateArgs;
use crate::error::UsageError;
use crate::stats::Verdict;

/// The gate's flags checked before anything is read or measured.
pub fn check(g: &GateArgs) -> Result<(), UsageError> {
    if !(g.fdr.is_finite() && g.fdr > 0.0 && g.fdr <= 50.0) {
        return Err(UsageError(format!(
            "--fdr takes a percentage above 0 and at most 50, not {}",
            g.fdr
        )));
    }
    match g.min_verdicts {
        Some(p) if !(p.is_finite() && (0.0..=100.0).contains(&p)) => Err(UsageError(format!(
            "--min-verdicts takes a percentage from 0 to 100, not {p}"
        ))),
        _ => Ok(()),
    }
}

/// Why the gate fails `c`, in one line; None when it passes.
pub fn failed(g: &GateArgs, c: &Comparison) -> Option<String> {
    let all = c.rows.len();
    let inconclusive = c.count(Verdict::Inconclusive);
    let decided = all - inconclusive;
    let reasons = || {
        c.inconclusive_reasons()
            .iter()
            .map(|(why, n)| format!("{n} {}", why.short()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if g.fail_on_inconclusive && inconclusive > 0 {
        return Some(format!(
            "gate failed (--fail-on-inconclusive): {inconclusive} of {all} compared series are inconclusive ({})",
            reasons()
        ));
    }
    let pct = g.min_verdicts?;
    let got = if all == 0 {
        0.0
    } else {
        100.0 * decided as f64 / all as f64
    };
    (got < pct).then(|| {
        format!(
            "gate failed (--min-verdicts {pct}): {decided} of {all} compared series ({got:.1}%) got a decided verdict, fewer than {pct}%; the others are inconclusive ({})",
            reasons()
        )
    })
}
