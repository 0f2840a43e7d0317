//! `compare` and `ab` on attributed runs: for each row that changed (a
//! time, its verdict regressed, improved or changed), which functions'
//! time changed, from `measure::why_diff` by the rule of the tool's
//! verdicts (`compare`: two separate runs; `ab`: the pairs of rounds), or
//! why no difference of attributions is shown.

use super::{fit, Comparison, Row};
use crate::measure::why_diff::{self, Design, Part, Run, WhyDiff};
use crate::results::{Labels, RunResults};
use crate::stats::contrast::Order;
use crate::stats::Verdict;
use crate::units::{fmt_num, fmt_share, Unit};
use serde::Serialize;

/// The functions named per changed row.
pub const TOP: usize = 3;

/// A changed row's difference of attributions, or why there is none.
#[derive(Debug, Clone, Serialize)]
pub struct WhyRow {
    /// The row's index in the comparison's rows.
    pub row: usize,
    /// The labels of the sampled windows that time it (every series
    /// pushed with them shares its functions' shares).
    pub windows: Labels,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<WhyDiff>,
    /// Why no difference of attributions is shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub none: Option<String>,
}

/// A side's runs of a row's series: the attributed ones, and how many of
/// the runs that measured it were not.
fn side_runs<'a>(runs: &'a [RunResults], r: &Row) -> (Vec<Run<'a>>, usize) {
    let mut out = (Vec::new(), 0);
    for run in runs {
        let Some(e) = run.measured(&r.experiment) else {
            continue;
        };
        let Some(m) = e
            .metrics
            .iter()
            .find(|m| m.name == r.metric && m.labels == r.labels)
        else {
            continue;
        };
        match crate::report::why::covering(e, &r.labels) {
            Some(a) => out.0.push(Run {
                attribution: a,
                figures: m
                    .round_samples()
                    .iter()
                    .map(|r| crate::stats::median(r).unwrap_or(f64::NAN))
                    .collect(),
            }),
            None => out.1 += 1,
        }
    }
    out
}

/// Whether a row changed and is a time: what a difference of
/// attributions shares out.
fn wanted(r: &Row) -> bool {
    r.unit == Unit::Ns
        && matches!(
            r.verdict,
            Verdict::Regressed | Verdict::Improved | Verdict::Changed
        )
}

/// Each changed row's difference of attributions between `base` and `new`
/// (`names`: what the sides are called, "base" and "new" or "A" and "B"),
/// by `design`, or why there is none; rows neither side attributed are
/// left out.
pub fn rows(
    (base, new): (&[RunResults], &[RunResults]),
    rows: &[Row],
    design: impl Fn(&Row) -> Design,
    names: (&str, &str),
) -> Vec<WhyRow> {
    rows.iter()
        .enumerate()
        .filter(|(_, r)| wanted(r))
        .filter_map(|(i, r)| {
            let (b, b_off) = side_runs(base, r);
            let (n, n_off) = side_runs(new, r);
            let unsampled = |side: &str, runs: &[Run], off: usize| match (runs.len(), off) {
                (_, 0) => None,
                (0, _) => Some(format!("{side} was not sampled (--why)")),
                (k, off) => Some(format!("{side} was sampled in {k} of its {} runs", k + off)),
            };
            let why_not = match (unsampled(names.0, &b, b_off), unsampled(names.1, &n, n_off)) {
                (None, None) => None,
                (Some(_), Some(_)) if b.is_empty() && n.is_empty() => return None,
                (x, y) => Some(
                    [x, y]
                        .into_iter()
                        .flatten()
                        .collect::<Vec<_>>()
                        .join(" and "),
                ),
            };
            let seed = crate::stats::seed_for(&format!(
                "why/{}/{}/{:?}",
                r.experiment, r.metric, r.labels
            ));
            let found = match why_not {
                Some(w) => Err(format!("{w}: no difference of attributions")),
                None => why_diff::diff(&b, &n, design(r), TOP, seed),
            };
            let windows = n
                .first()
                .or(b.first())
                .map_or_else(Labels::new, |x| x.attribution.labels.clone());
            let (diff, none) = match found {
                Ok(d) => (Some(d), None),
                Err(e) => (None, Some(e)),
            };
            Some(WhyRow {
                row: i,
                windows,
                diff,
                none,
            })
        })
        .collect()
}

/// `compare`'s: two separate sides, each row's run-to-run noise in its
/// parts' intervals.
pub fn of_runs(base: &[RunResults], new: &[RunResults], rows: &[Row]) -> Vec<WhyRow> {
    self::rows(
        (base, new),
        rows,
        |r| Design::Independent {
            tau: r.run_noise_pct / 100.0,
        },
        ("base", "new"),
    )
}

/// A change of time with its interval, one scale for the three: "-6.80 ms
/// [-6.90, -6.70]".
fn time_change(v: f64, lo: f64, hi: f64) -> String {
    let top = v.abs().max(lo.abs()).max(hi.abs());
    let (scale, unit) = if top >= 1e9 {
        (1e9, "s")
    } else if top >= 1e6 {
        (1e6, "ms")
    } else if top >= 1e3 {
        (1e3, "µs")
    } else {
        (1.0, "ns")
    };
    let decimals = match top / scale {
        x if x >= 100.0 => 0,
        x if x >= 10.0 => 1,
        _ => 2,
    };
    let f = |x: f64| {
        let s = fmt_num(x / scale, decimals);
        if s.starts_with('-') || s.chars().all(|c| c == '0' || c == '.') {
            s
        } else {
            format!("+{s}")
        }
    };
    format!("{} {unit} [{}, {}]", f(v), f(lo), f(hi))
}

/// A part in words: its change of time, or "not told apart" with the
/// interval that holds no change; with its shares for a function.
fn part_words(p: &Part, shares: bool) -> String {
    let none = [p.base_ns, p.new_ns, p.lo_ns, p.hi_ns]
        .iter()
        .all(|x| *x == 0.0);
    let time = match p.time_order() {
        Order::Overlap if none => format!("{} none on either side", p.what),
        Order::Overlap => format!(
            "{} not told apart ({})",
            p.what,
            time_change(p.change_ns, p.lo_ns, p.hi_ns)
        ),
        _ => format!("{} {}", p.what, time_change(p.change_ns, p.lo_ns, p.hi_ns)),
    };
    if !shares {
        return time;
    }
    let moved = match p.share_order() {
        Order::Below => "fell",
        Order::Above => "rose",
        Order::Overlap => "not told apart",
    };
    format!(
        "{time} (share {} -> {}, {moved})",
        fmt_share(p.base_share),
        fmt_share(p.new_share)
    )
}

/// A row's series in words, without the labels in `skip`.
fn named(r: &Row, skip: &Labels) -> String {
    let extra: Vec<String> = r
        .labels
        .iter()
        .filter(|(k, _)| !skip.contains_key(*k))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    [r.metric.clone(), extra.join(" ")]
        .into_iter()
        .filter(|x| !x.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// One windows' entry told in full: the lead row's change and its parts,
/// then the other rows the windows time by their change alone.
fn told(
    name: &str,
    d: &WhyDiff,
    rest: &[(&Row, &WhyRow)],
    windows: &Labels,
    width: usize,
) -> String {
    let mut s = String::new();
    let t = &d.total;
    let mut parts = vec![part_words(&d.kernel, false), part_words(&d.user, false)];
    parts.extend(d.functions.iter().map(|f| part_words(f, true)));
    let o = &d.other;
    if o.base_ns != 0.0 || o.new_ns != 0.0 {
        parts.push(part_words(o, false));
    }
    let head = format!(
        "{name}: {} ({} -> {} samples in {} -> {} rounds)",
        time_change(t.change_ns, t.lo_ns, t.hi_ns),
        d.base_samples,
        d.new_samples,
        d.base_rounds,
        d.new_rounds,
    );
    s.push_str(&fit::line(&head, width, "  ", "    "));
    s.push_str(&fit::line(&parts.join("; "), width, "    ", "      "));
    if !rest.is_empty() {
        let each: Vec<String> = rest
            .iter()
            .map(|(r, w)| match &w.diff {
                Some(d) => format!(
                    "{} {}",
                    named(r, windows),
                    time_change(d.total.change_ns, d.total.lo_ns, d.total.hi_ns)
                ),
                None => format!(
                    "{} ({})",
                    named(r, windows),
                    w.none.as_deref().unwrap_or("")
                ),
            })
            .collect();
        s.push_str(&fit::line(
            &format!(
                "the same windows time {}: the same shares (each one's parts in --json)",
                each.join(", ")
            ),
            width,
            "    ",
            "      ",
        ));
    }
    s
}

/// The changed rows' differences of attributions, fitted to `width`: one
/// entry per sampled windows (the rows they time share their functions'
/// shares), told for the Summary's row among them, else the row whose
/// labels are the windows' own, else the first; the other rows by their
/// change alone (`--json` has each one's parts). Empty when no row has one.
pub fn lines(c: &Comparison, width: usize) -> String {
    if c.why.is_empty() {
        return String::new();
    }
    let mut s = fit::line(
        "where the time changed (--why; each part's change in time per operation with its 95% \
         interval, a function's share of the samples on each side):",
        width,
        "",
        "  ",
    );
    let mut groups: Vec<Vec<&WhyRow>> = Vec::new();
    for w in &c.why {
        let same = |g: &Vec<&WhyRow>| {
            g[0].windows == w.windows
                && g[0].none == w.none
                && c.rows.get(g[0].row).map(|r| &r.experiment)
                    == c.rows.get(w.row).map(|r| &r.experiment)
        };
        match groups.iter_mut().find(|g| same(g)) {
            Some(g) => g.push(w),
            None => groups.push(vec![w]),
        }
    }
    for g in groups {
        let in_summary = |w: &&&WhyRow| c.summary.iter().any(|q| q.row == w.row);
        let own = |w: &&&WhyRow| c.rows.get(w.row).is_some_and(|r| r.labels == w.windows);
        let lead = *g
            .iter()
            .find(in_summary)
            .or(g.iter().find(own))
            .unwrap_or(&g[0]);
        let Some(r) = c.rows.get(lead.row) else {
            continue;
        };
        let name = [r.experiment.as_str(), r.metric.as_str(), r.case.as_str()]
            .iter()
            .filter(|x| !x.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join(" ");
        let rest: Vec<(&Row, &WhyRow)> = g
            .iter()
            .filter(|w| w.row != lead.row)
            .filter_map(|w| Some((c.rows.get(w.row)?, *w)))
            .collect();
        match (&lead.diff, &lead.none) {
            (Some(d), _) => s.push_str(&told(&name, d, &rest, &lead.windows, width)),
            (None, Some(why)) => {
                let also = if rest.is_empty() {
                    String::new()
                } else {
                    let names: Vec<String> =
                        rest.iter().map(|(r, _)| named(r, &lead.windows)).collect();
                    format!(" (and {})", names.join(", "))
                };
                s.push_str(&fit::line(
                    &format!("{name}{also}: {why}"),
                    width,
                    "  ",
                    "    ",
                ));
            }
            (None, None) => {}
        }
    }
    s
}

#[cfg(test)]
#[path = "why_tests.rs"]
mod tests;
