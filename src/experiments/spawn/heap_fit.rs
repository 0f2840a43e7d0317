//! How creation grows with the heap, decided from intervals. The per-page
//! cost comes from the two largest heaps, where the page tables dominate;
//! the smaller heaps are shown as residuals from that line, not folded into
//! one least-squares fit whose R² five points of unequal leverage would make
//! look better than it is.

use super::engine::LIFECYCLE_NS;
use super::table;
use crate::experiments::prelude::*;
use crate::metric::key::{CALL, HEAP_BYTES, METHOD, THP};
use crate::stats::contrast::{self, Interval};
use crate::stats::Summary;
use crate::units::fmt_interval;

/// One method's lifecycle series over the heaps, smallest heap first: the
/// warm series of the heaps as the system backs them (no `call=first`).
pub fn by_heap<'a>(r: &'a ExperimentResult, method: &str, thp: &str) -> Vec<(u64, &'a Summary)> {
    let mut v: Vec<(u64, &Summary)> = r
        .metrics_named(&LIFECYCLE_NS)
        .filter(|m| warm_line(m, method, thp))
        .filter_map(|m| Some((m.label_num(HEAP_BYTES)?, &m.summary)))
        .collect();
    v.sort_by_key(|p| p.0);
    v
}

/// Every point of `method`'s warm line at `thp`, flagged ones included, by
/// heap size: for the Summary's basic figures, which are quoted with their
/// flag rather than dropped.
pub fn all_by_heap<'a>(
    r: &'a ExperimentResult,
    method: &str,
    thp: &str,
) -> Vec<(u64, &'a crate::results::Metric)> {
    let mut v: Vec<(u64, &crate::results::Metric)> = r
        .metrics
        .iter()
        .filter(|m| m.name == LIFECYCLE_NS.name && warm_line(m, method, thp))
        .filter_map(|m| Some((m.label_num(HEAP_BYTES)?, m)))
        .collect();
    v.sort_by_key(|p| p.0);
    v
}

/// Whether `m` is a point of `method`'s warm line at `thp` (not a first call).
pub(super) fn warm_line(m: &crate::results::Metric, method: &str, thp: &str) -> bool {
    m.label(METHOD) == Some(method) && m.label(THP) == Some(thp) && m.label(CALL).is_none()
}

/// The settled points of [`by_heap`] when they still span every heap the
/// method was measured at (its smallest and largest heaps settled), else
/// none: a trend from the smallest to the largest heap must not be read
/// off two middle points because the ends did not settle.
pub fn spanning<'a>(r: &'a ExperimentResult, method: &str, thp: &str) -> Vec<(u64, &'a Summary)> {
    let measured: Vec<u64> = r
        .metrics
        .iter()
        .filter(|m| m.name == LIFECYCLE_NS.name && warm_line(m, method, thp))
        .filter_map(|m| m.label_num(HEAP_BYTES))
        .collect();
    let pts = by_heap(r, method, thp);
    let ends = (measured.iter().min(), measured.iter().max());
    match (pts.first(), pts.last(), ends) {
        (Some(a), Some(b), (Some(&lo), Some(&hi))) if a.0 == lo && b.0 == hi => pts,
        _ => Vec::new(),
    }
}

/// ns per 4 KiB page of heap between two heap points, with the interval that
/// their two intervals allow.
pub struct PerPage {
    pub ns: f64,
    pub lo: f64,
    pub hi: f64,
}

impl PerPage {
    /// "2.73 µs [2.43 µs, 10.3 µs]", signed as measured: a difference per
    /// unit, written as every difference is.
    pub fn text(&self) -> String {
        Difference {
            d: self.ns,
            lo: self.lo,
            hi: self.hi,
            unit: Unit::Ns,
            weak: None,
        }
        .text()
    }
}

const PAGE: f64 = 4096.0;

pub fn per_page(a: (u64, &Summary), b: (u64, &Summary)) -> Option<PerPage> {
    per_unit(a.1, b.1, (b.0 as f64 - a.0 as f64) / PAGE)
}

/// ns per unit from `a` to `b`, `units` apart (pages, mappings,
/// descriptors): the medians' difference with the interval of the
/// difference (`stats::contrast`, the rule every finding uses), per unit.
pub fn per_unit(a: &Summary, b: &Summary, units: f64) -> Option<PerPage> {
    let d = crate::stats::contrast::difference(b, a);
    (units > 0.0).then(|| PerPage {
        ns: d.value / units,
        lo: d.lo / units,
        hi: d.hi / units,
    })
}

/// Which way a method goes from the smallest heap to the largest, decided
/// by the interval of the ratio of the two ends (`stats::contrast`): two
/// ends whose own intervals overlap a little can still be told apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trend {
    /// The interval of the ratio includes 1.
    Flat,
    /// Lower at the largest heap: not the heap's doing.
    Lower,
    Grows,
}

/// The trend of a method's points; None with fewer than two.
pub fn trend(points: &[(u64, &Summary)]) -> Option<Trend> {
    let (&(_, from), &(_, to)) = (points.first()?, points.last()?);
    if points.len() < 2 {
        return None;
    }
    Some(match order(to, from) {
        Order::Overlap => Trend::Flat,
        Order::Below => Trend::Lower,
        Order::Above => Trend::Grows,
    })
}

/// What a method does as the heap grows, in one sentence.
pub fn growth(method: &str, points: &[(u64, &Summary)]) -> Option<String> {
    let t = trend(points)?;
    let (&(from_b, from), &(to_b, to)) = (points.first()?, points.last()?);
    let (from_h, to_h) = (fmt_size(from_b), fmt_size(to_b));
    if t == Trend::Flat {
        return Some(format!(
            "{method} shows no growth its intervals can tell apart: {} at {from_h}, {} at {to_h} (the interval of their ratio includes 1)",
            figure(from, Unit::Ns),
            figure(to, Unit::Ns)
        ));
    }
    if t == Trend::Lower {
        return Some(format!(
            "{method} does not grow with the heap: {} at {from_h}, lower at {to_h} ({}); the difference is not the heap's",
            figure(from, Unit::Ns),
            figure(to, Unit::Ns)
        ));
    }
    let mut s = format!(
        "{method} grows with the heap: {} at {from_h}, {} at {to_h}",
        figure(from, Unit::Ns),
        figure(to, Unit::Ns)
    );
    let n = points.len();
    if n >= 3 {
        if let Some(p) = per_page(points[n - 2], points[n - 1]) {
            s.push_str(&format!(
                "; between the two largest heaps it costs {} per 4 KiB page",
                p.text()
            ));
            let (x0, y0) = (points[n - 1].0 as f64, points[n - 1].1.median);
            let residuals: Vec<String> = points[..n - 2]
                .iter()
                .map(|&(b, m)| {
                    let predicted = y0 - (x0 - b as f64) / PAGE * p.ns;
                    format!("{} {}", fmt_size(b), signed_ns(m.median - predicted))
                })
                .collect();
            s.push_str(&format!(
                "; the smaller heaps sit off that line by {} (measured minus the line)",
                residuals.join(", ")
            ));
        }
    }
    Some(s)
}

/// A difference with its sign, never clamped.
pub fn signed_ns(ns: f64) -> String {
    fmt_delta(ns, Unit::Ns)
}

/// How much a method's cost went up from its smallest heap to its largest,
/// with its interval (`stats::contrast`): None unless its line spans every
/// heap it was measured at ([`spanning`]) with positive figures.
pub fn growth_ratio(points: &[(u64, &Summary)]) -> Option<(u64, u64, Interval)> {
    let (&(from_b, from), &(to_b, to)) = (points.first()?, points.last()?);
    (points.len() >= 2)
        .then(|| contrast::ratio(to, from))
        .flatten()
        .map(|r| (from_b, to_b, r))
}

/// "1.05x [1.01x, 1.09x]": a growth as the advice quotes it.
fn growth_words(r: &Interval) -> String {
    format!(
        "{} {}",
        fmt_ratio(r.value),
        fmt_interval(&fmt_ratio(r.lo), &fmt_ratio(r.hi))
    )
}

/// The advice for a process with a large heap that starts programs, with
/// fixed subjects (issue 39 item 9): posix_spawn, vfork and fork+exec, each
/// with how much its cost went up from the smallest heap to the largest.
/// A method is advised over fork+exec when fork+exec grows and the method
/// grows less: the interval of the quotient of their growths lies below 1
/// (`contrast::quotient`). Session 20's runs decided on whether each
/// method grew at all, so a vfork 5% dearer at 1 GiB, its interval just
/// clear of 1 in one run and not in the next, dropped in and out of an
/// advice it belongs in either way (fork+exec grew 80x).
pub fn advice(r: &ExperimentResult, base: &str) -> Option<String> {
    let measured = |m: &str| !all_by_heap(r, m, base).is_empty();
    let (exec, spawn, vfork) = (
        table::FORK_EXEC_STATIC.name(),
        table::POSIX_SPAWN.name(),
        table::VFORK.name(),
    );
    if !measured(exec) || !measured(spawn) {
        return None;
    }
    let grew = |m: &str| growth_ratio(&spanning(r, m, base));
    // The heaps the sentence's growths span: fork+exec's (else
    // posix_spawn's); a method measured over other heaps says its own.
    let ends = grew(exec).or_else(|| grew(spawn)).map(|(a, b, _)| (a, b));
    let words = |m: &str| {
        if !measured(m) {
            return "not measured".to_string();
        }
        match grew(m) {
            Some((a, b, g)) if Some((a, b)) == ends => growth_words(&g),
            Some((a, b, g)) => format!(
                "{} (from {} to {})",
                growth_words(&g),
                fmt_size(a),
                fmt_size(b)
            ),
            None => "not told apart (an end did not settle)".to_string(),
        }
    };
    let span = ends
        .map(|(a, b)| format!(" at {} over its cost at {}", fmt_size(b), fmt_size(a)))
        .unwrap_or_else(|| " at the largest heap over its cost at the smallest".to_string());
    let exec_grows = grew(exec).filter(|(_, _, g)| g.against(1.0) == Order::Above);
    // Two growths are set against each other only over the same heaps.
    let less = |m: &str| match (grew(m), exec_grows) {
        (Some((a, b, g)), Some((ea, eb, e))) if (a, b) == (ea, eb) => {
            contrast::quotient(&g, &e).is_some_and(|q| q.against(1.0) == Order::Below)
        }
        _ => false,
    };
    let use_ = if less(spawn) {
        let or_vfork = if less(vfork) { " or vfork" } else { "" };
        format!("use posix_spawn{or_vfork}: each grows less than fork+exec (the interval of the quotient of the two growths lies below 1), which pays for copying the page tables first")
    } else {
        "no method is told apart as the cheaper one with a large heap here".to_string()
    };
    Some(format!(
        "advice for a process with a large heap that must start programs: its cost{span}: posix_spawn {}, vfork {}, fork+exec {}; {use_}",
        words(spawn),
        words(vfork),
        words(exec),
    ))
}

/// Every method's trend in one sentence, each method with its own verdict
/// (fixed subjects, issue 39 item 9): its figures at the smallest and the
/// largest heap, then whether it grows (each method's sentence is in the
/// notes).
pub fn trends(r: &ExperimentResult, methods: &[String], base: &str) -> Option<String> {
    let mut parts = Vec::new();
    for m in methods {
        let all = all_by_heap(r, m, base);
        let (Some(&(from_b, from)), Some(&(to_b, to))) = (all.first(), all.last()) else {
            continue;
        };
        let (from, to) = (&from.summary, &to.summary);
        let verdict = match trend(&spanning(r, m, base)) {
            Some(Trend::Grows) => "grows",
            Some(Trend::Flat) => "no growth told apart",
            Some(Trend::Lower) => "lower at the largest heap, not the heap's doing",
            None => "not told apart: an end did not settle",
        };
        parts.push(format!(
            "{m} {}{} at {} → {}{} at {} ({verdict})",
            fmt_ns(from.median),
            from.spaced_mark(),
            fmt_size(from_b),
            fmt_ns(to.median),
            to.spaced_mark(),
            fmt_size(to_b)
        ));
    }
    (!parts.is_empty()).then(|| {
        format!(
            "launch+reap against the heap, smallest to largest (grows: the interval of the ratio of the two ends excludes 1): {}",
            parts.join("; ")
        )
    })
}
