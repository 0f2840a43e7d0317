//! The words of a comparison, decided from intervals: "A is 8.1x B" only when
//! the interval of the ratio excludes 1 (of the difference excludes 0:
//! [`super::contrast`], the one rule), otherwise "indistinguishable here"; a
//! difference "A − B = D [lo, hi]" that is never clamped, so a negative one
//! stays negative and turns the sentence; a share of a gap that is never
//! above 100% and never quoted when the gap itself is within noise.
//!
//! Every finding that compares two figures goes through here, so the rule
//! is the same everywhere (and `compare`'s, `stats::change`, is the same
//! helper's).

use super::contrast::{self, Interval};
use super::Summary;
use crate::units::{fmt_interval, fmt_ns, fmt_value, Unit};

pub use super::contrast::Order;

/// Where `a` lies against `b`: on the interval of their ratio (of their
/// difference when they are not both positive), not on whether their own
/// intervals overlap.
pub fn order(a: &Summary, b: &Summary) -> Order {
    contrast::order(a, b)
}

/// Whether `a` and `b` differ: only then may a finding state a difference
/// or a ratio between them. The interval of `a/b` excludes 1 (of `a − b`
/// excludes 0); two figures whose own intervals overlap a little can be
/// apart, equal medians never are.
pub fn apart(a: &Summary, b: &Summary) -> bool {
    order(a, b) != Order::Overlap
}

/// Beyond this half-width (±10%, the noisy mark's) a ratio is printed with
/// its interval.
pub const IMPRECISE: f64 = super::NOISY_CI_FRACTION;

/// `a/b` as the findings print it: "7.3x" when it is known to ±10% or
/// better, "7.3x [5.1x, 10.2x]" otherwise; None when either figure is not
/// positive (no ratio has an interval then).
pub fn ratio_text(a: &Summary, b: &Summary) -> Option<String> {
    contrast::ratio(a, b).map(|r| interval_ratio_text(&r))
}

/// A ratio with its interval when that is wider than ±10%.
pub fn interval_ratio_text(r: &Interval) -> String {
    if r.ratio_half_width() > IMPRECISE {
        format!(
            "{} {}",
            fmt_ratio(r.value),
            fmt_interval(&fmt_ratio(r.lo), &fmt_ratio(r.hi))
        )
    } else {
        fmt_ratio(r.value)
    }
}

/// Whether `s`'s interval bounds nothing: for a time, a rate or a ratio
/// (never negative) an interval that reaches zero, or whose ends are more
/// than [`UNUSABLE_SPAN`] apart (too few rounds that disagree too much:
/// a speedup "9.12x [0.51x, 162.71x]"), is said to be unusable rather
/// than printed.
pub fn bounds_nothing(s: &Summary, unit: Unit) -> bool {
    reaches_zero(s, unit)
        || (positive(unit) && s.median > 0.0 && s.ci95_hi / s.ci95_lo > UNUSABLE_SPAN)
}

/// Whether the interval of a figure that is never negative reaches zero or
/// below: it bounds nothing at all, and a table says so instead of printing
/// it (a table prints a wide interval as it is; a sentence does not quote
/// one: [`bounds_nothing`]).
pub fn reaches_zero(s: &Summary, unit: Unit) -> bool {
    positive(unit) && s.median > 0.0 && s.ci95_lo <= 0.0
}

/// Units whose figures are never negative: a time, a rate, a ratio.
fn positive(unit: Unit) -> bool {
    matches!(unit, Unit::Ns | Unit::Ratio | Unit::PerSecond)
}

/// The factor between an interval's ends beyond which it bounds nothing a
/// reader could use: an order of magnitude.
pub const UNUSABLE_SPAN: f64 = 10.0;

/// A value in its unit, with no "-0": a figure that rounds to zero is zero.
pub fn fmt_signed(v: f64, unit: Unit) -> String {
    let s = fmt_value(v, unit);
    match s.strip_prefix('-') {
        Some(rest) if !rest.chars().any(|c| ('1'..='9').contains(&c)) => rest.to_string(),
        _ => s,
    }
}

/// An interval's bound in its unit: as [`fmt_signed`] writes it, except
/// that a bound below zero that would round to zero keeps its minus and
/// the digits that show it ("-0.003x", "-0.0004", never "0.00x" or "0"):
/// whether an interval reaches below zero is what such a bound says.
pub fn fmt_bound(v: f64, unit: Unit) -> String {
    let s = fmt_signed(v, unit);
    let nonzero = |t: &str| t.chars().any(|c| ('1'..='9').contains(&c));
    if !(v < 0.0 && v.is_finite()) || nonzero(&s) {
        return s;
    }
    // The unit's suffix, as zero is written in it ("0.00 ns", "0/s", "0.0%").
    let zero = fmt_value(0.0, unit);
    let at = zero
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .unwrap_or(zero.len());
    let suffix = &zero[at..];
    // One significant digit, as many decimals as that takes.
    let text = (1..=12)
        .map(|d| format!("{:.*}", d, -v))
        .find(|t| nonzero(t))
        .unwrap_or_else(|| format!("{:e}", -v));
    format!("-{text}{suffix}")
}

/// A difference with its sign: "+12.0 KiB", "-4.00 KiB", "0 KiB" (the
/// minus as [`fmt_signed`] writes it; never "+0" or "-0").
pub fn fmt_delta(v: f64, unit: Unit) -> String {
    let s = fmt_signed(v, unit);
    if v > 0.0 && s.chars().any(|c| ('1'..='9').contains(&c)) {
        format!("+{s}")
    } else {
        s
    }
}

/// What an interval is when it is not a 95% one ("min–max of 3, 75%").
fn weak_label(s: &Summary) -> Option<String> {
    if s.ci_covers_95 {
        return None;
    }
    Some(if s.interval.is_empty() {
        let cover = 100.0 * (1.0 - 2.0 * 0.5f64.powi(s.n as i32));
        format!("min–max of {}, {cover:.0}%", s.n)
    } else {
        s.interval.clone()
    })
}

/// Whether an interval `[lo, hi]` around `m` (never negative) cannot tell
/// its figure from half or twice itself: then it bounds nothing the Summary
/// can state (a speedup "0.90x [0.31x, 2.59x]" cannot even say whether the
/// work got faster or slower).
pub fn half_or_double(m: f64, lo: f64, hi: f64) -> bool {
    m > 0.0 && (lo < m / 2.0 || hi > 2.0 * m)
}

/// Whether the Summary may state `s` as a result: its interval bounds
/// something, and, for a figure that is never negative, tells it from half
/// and from twice itself.
pub fn summary_bounds(s: &Summary, unit: Unit) -> bool {
    let doubtful = positive(unit) && half_or_double(s.median, s.ci95_lo, s.ci95_hi);
    !(bounds_nothing(s, unit) || doubtful)
}

/// Whether a figure is imprecise: it carries the noisy mark (`~`, a wide
/// spread or an interval wider than ±10%), or its interval is wider than
/// ±10% of its median.
pub fn imprecise(s: &Summary) -> bool {
    s.noisy || s.half_width() > IMPRECISE
}

/// "±12%": the half-width of a figure's interval over its median.
pub fn plus_minus(half_width: f64) -> String {
    let pct = 100.0 * half_width;
    if pct >= 10.0 {
        format!("±{pct:.0}%")
    } else {
        format!("±{pct:.1}%")
    }
}

/// The words a Summary figure ends with: its mark (`!` flagged, `~` noisy,
/// as in the tables), and in brackets why it is flagged and whether its
/// interval bounds nothing.
fn marked(mark: &str, why: Option<&str>, bounds: bool) -> String {
    let mut words: Vec<&str> = why.into_iter().collect();
    if !bounds {
        words.push(BOUNDS_NOTHING);
    }
    let mut s = String::new();
    if !mark.is_empty() {
        s.push(' ');
        s.push_str(mark);
    }
    if !words.is_empty() {
        s.push_str(&format!(" ({})", words.join("; ")));
    }
    s
}

/// What [`quoted`] adds to a figure whose interval bounds nothing.
const BOUNDS_NOTHING: &str = "its interval bounds nothing: the rounds disagree too much";

/// What ends a sentence of figures none of whose intervals bounds
/// anything ([`together`]), said once instead of beside each.
pub const NONE_BOUNDS: &str = "; no interval here bounds anything: the rounds disagree too much";

/// A figure as the Summary quotes it ([`quote`], [`quote_ratio`],
/// [`summary_ratio_quote`]), before it is written: its median (and
/// half-width), its mark, why it is flagged, whether its interval bounds
/// anything, and what follows it. A sentence of several figures writes
/// each with [`Quote::text`], or through [`together`].
#[derive(Clone, Debug, PartialEq)]
pub struct Quote {
    head: String,
    mark: &'static str,
    why: Option<String>,
    bounds: bool,
    tail: String,
}

impl Quote {
    /// A figure's words with nothing after them yet.
    fn new(head: String, mark: &'static str, why: Option<String>, bounds: bool) -> Quote {
        Quote {
            head,
            mark,
            why,
            bounds,
            tail: String::new(),
        }
    }

    /// The figure with its own words: "9.64 µs ~ (its interval bounds
    /// nothing: …)" where its interval bounds nothing.
    pub fn text(&self) -> String {
        self.written(self.bounds)
    }

    /// The figure without the words that its interval bounds nothing (the
    /// sentence says so once: [`together`]); its mark and why it is
    /// flagged stay.
    fn bare(&self) -> String {
        self.written(true)
    }

    fn written(&self, bounds: bool) -> String {
        format!(
            "{}{}{}",
            self.head,
            marked(self.mark, self.why.as_deref(), bounds),
            self.tail
        )
    }
}

/// The figures of one sentence, written: each with its own words
/// ([`Quote::text`]), so the words stay with the figures they are about;
/// or, where there are two or more and none bounds anything, each without
/// those words and [`NONE_BOUNDS`] to end the sentence (empty otherwise).
pub fn together(quotes: &[Quote]) -> (Vec<String>, &'static str) {
    if quotes.len() >= 2 && quotes.iter().all(|q| !q.bounds) {
        (quotes.iter().map(Quote::bare).collect(), NONE_BOUNDS)
    } else {
        (quotes.iter().map(Quote::text).collect(), "")
    }
}

/// A figure the Summary quotes whatever its state, so the basic figures
/// never drop out of a run's Summary and never read as settled when they
/// are not: the median alone when it is precise and settled; "156 µs ±12%
/// ~" when it is imprecise (the table's mark); "20.8 µs ±19% ! (two modes:
/// ...)" when it is flagged; and, when its interval bounds nothing the
/// Summary can state ([`summary_bounds`]), the median with the words that
/// say so, never the interval as if it were a result.
pub fn quoted(s: &Summary, unit: Unit) -> String {
    quote(s, unit).text()
}

/// [`quoted`], not yet written: for a sentence of several ([`together`]).
pub fn quote(s: &Summary, unit: Unit) -> Quote {
    let median = fmt_signed(s.median, unit);
    let (mark, why) = match (&s.unsettled, s.unstable) {
        (_, false) if s.noisy => ("~", None),
        (_, false) => ("", None),
        (Some(u), true) => ("!", Some(u.words(unit))),
        (None, true) => ("!", Some("flagged".to_string())),
    };
    let q = Quote::new;
    if !summary_bounds(s, unit) {
        return q(median, mark, why, false);
    }
    if s.unstable || imprecise(s) {
        q(
            format!("{median} {}", plus_minus(s.half_width())),
            mark,
            why,
            true,
        )
    } else {
        q(median, "", None, true)
    }
}

/// [`quoted`] for a ratio with its interval: "9.5x" when it is known to
/// ±10%, "9.5x ±14%" when not, with the marks of the figures it is made of
/// ("!" when one is flagged, "~" when one is noisy), and the words that it
/// bounds nothing when it cannot tell itself from half or twice itself;
/// written with [`Quote::text`], or with others through [`together`].
pub fn quote_ratio(r: &Interval, parts: &[&Summary]) -> Quote {
    let (mark, why) = if parts.iter().any(|s| s.unstable) {
        ("!", Some("a figure of it is flagged".to_string()))
    } else if parts.iter().any(|s| s.noisy) {
        ("~", None)
    } else {
        ("", None)
    };
    let text = fmt_ratio(r.value);
    let q = Quote::new;
    if r.lo.is_nan() || r.lo <= 0.0 || half_or_double(r.value, r.lo, r.hi) {
        return q(text, mark, why, false);
    }
    let hw = r.ratio_half_width();
    if hw > IMPRECISE || !mark.is_empty() {
        q(format!("{text} {}", plus_minus(hw)), mark, why, true)
    } else {
        q(text, "", None, true)
    }
}

/// The ratio `a/b` as the Summary quotes it, whatever its state, so the
/// subject stays: "9.5x" or "9.5x ±14% ~" ([`quote_ratio`]) when its
/// interval excludes 1; "1.04x ±8%, which holds 1: indistinguishable here"
/// when it does not; "no ratio" when a figure is not positive; and no
/// number at all when its interval bounds nothing ([`NO_RATIO`]): a ratio
/// that cannot tell itself from half or twice itself states no difference,
/// as a finding on the same figures says they cannot be compared.
pub fn summary_ratio(a: &Summary, b: &Summary) -> String {
    summary_ratio_quote(a, b).text()
}

/// What the Summary says in place of a ratio whose interval bounds nothing
/// ([`summary_ratio_quote`]); the words that it bounds nothing follow it.
pub const NO_RATIO: &str = "no ratio stated";

/// [`summary_ratio`], not yet written: for a sentence of several
/// ([`together`]). "No ratio" is a phrase that bounds nothing by its
/// interval, so a sentence with it keeps each figure's own words.
pub fn summary_ratio_quote(a: &Summary, b: &Summary) -> Quote {
    match contrast::ratio(a, b) {
        None => Quote {
            head: "no ratio: a figure or its interval is not above zero".into(),
            mark: "",
            why: None,
            bounds: true,
            tail: String::new(),
        },
        Some(r) if r.lo.is_nan() || r.lo <= 0.0 || half_or_double(r.value, r.lo, r.hi) => Quote {
            head: NO_RATIO.into(),
            mark: "",
            why: None,
            bounds: false,
            tail: String::new(),
        },
        Some(r) if r.against(1.0) == Order::Overlap => Quote {
            tail: ", which holds 1: indistinguishable here".into(),
            ..quote_ratio(&r, &[a, b])
        },
        Some(r) => quote_ratio(&r, &[a, b]),
    }
}

/// A finding's figure whatever its state, so that its subject stays:
/// [`figure`] (the median and its interval) when the series settled,
/// [`quoted`] (the median with its mark and why) when it is flagged.
pub fn shown(s: &Summary, unit: Unit) -> String {
    if s.unstable {
        quoted(s, unit)
    } else {
        figure(s, unit)
    }
}

/// A median with its interval: "2.59 µs [2.50 µs, 2.70 µs]", and what the
/// interval is when it is not a 95% one: "[…; min–max of 3, 75%]".
pub fn figure(s: &Summary, unit: Unit) -> String {
    if bounds_nothing(s, unit) {
        return format!(
            "{} (no usable interval: its rounds disagree too much to bound it)",
            fmt_signed(s.median, unit)
        );
    }
    let (lo, hi) = (fmt_bound(s.ci95_lo, unit), fmt_bound(s.ci95_hi, unit));
    match weak_label(s) {
        Some(l) => format!(
            "{} {}",
            fmt_signed(s.median, unit),
            fmt_interval(&lo, &format!("{hi}; {l}"))
        ),
        None => format!("{} {}", fmt_signed(s.median, unit), fmt_interval(&lo, &hi)),
    }
}

/// Two times side by side, for a list of comparisons in one sentence:
/// "47.9 µs vs 4.16 µs (11.5x)" when the ratio's interval excludes 1 (with
/// that interval when it is wider than ±10%), else "15.7 µs vs 19.2 µs
/// (indistinguishable here)".
pub fn versus(a: &Summary, b: &Summary) -> String {
    let verdict = if !apart(a, b) {
        "indistinguishable here".to_string()
    } else {
        ratio_text(a, b).unwrap_or_else(|| difference(a, b, Unit::Ns).text())
    };
    format!("{} vs {} ({verdict})", fmt_ns(a.median), fmt_ns(b.median))
}

/// A ratio as the findings print it: `8.1x`, `1.35x`, `1,405x`; a ratio that rounds
/// to 1 at two decimals gets a third, so a separated pair never reads 1.00x.
pub fn fmt_ratio(r: f64) -> String {
    let two = format!("{r:.2}x");
    if r >= 100.0 {
        format!("{}x", crate::units::group_digits(r.round() as i64))
    } else if r >= 2.0 {
        format!("{r:.1}x")
    } else if two == "1.00x" && r != 1.0 {
        format!("{r:.3}x")
    } else {
        two
    }
}

/// "fork (207 µs) is 8.1x pthread_create (25.5 µs)" when the ratio's
/// interval excludes 1 (with that interval when it is wider than ±10%);
/// "... is indistinguishable from ... here" when it holds 1. For figures
/// that are not both positive no ratio is meaningful: the difference is
/// given instead, decided on its own interval.
pub fn compare(a_name: &str, a: &Summary, b_name: &str, b: &Summary, unit: Unit) -> String {
    let fa = fmt_signed(a.median, unit);
    let fb = fmt_signed(b.median, unit);
    let o = order(a, b);
    if o == Order::Overlap {
        return format!("{a_name} ({fa}) is indistinguishable from {b_name} ({fb}) here");
    }
    if let Some(r) = ratio_text(a, b) {
        return format!("{a_name} ({fa}) is {r} {b_name} ({fb})");
    }
    let more = if o == Order::Above { "more" } else { "less" };
    format!(
        "{a_name} ({fa}) is {} {more} than {b_name} ({fb})",
        difference(a, b, unit).magnitude_text()
    )
}

/// [`compare`] whatever the figures' state, so that its subject stays
/// (issue 39 item 9): when either is flagged, or its interval bounds
/// nothing, "a_name (X !) is not told apart from b_name (Y) here: a figure
/// did not settle" (or "an interval bounds nothing"), each quoted with its
/// mark ([`quoted`]); else [`compare`].
pub fn compare_shown(a_name: &str, a: &Summary, b_name: &str, b: &Summary, unit: Unit) -> String {
    let why = if a.unstable || b.unstable {
        "a figure did not settle"
    } else if bounds_nothing(a, unit) || bounds_nothing(b, unit) {
        "an interval bounds nothing"
    } else {
        return compare(a_name, a, b_name, b, unit);
    };
    format!(
        "{a_name} ({}) is not told apart from {b_name} ({}) here: {why}",
        quoted(a, unit),
        quoted(b, unit)
    )
}

/// `a − b` with its 95% interval ([`contrast::difference`]: the half-widths
/// in quadrature, as independent errors). Never clamped.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    pub d: f64,
    pub lo: f64,
    pub hi: f64,
    pub unit: Unit,
    /// What the interval is built from when a side's is not a 95% one.
    pub weak: Option<String>,
}

/// `a − b`: the medians' difference with the interval of the difference.
pub fn difference(a: &Summary, b: &Summary, unit: Unit) -> Difference {
    let mut weak: Vec<String> = [a, b].iter().filter_map(|s| weak_label(s)).collect();
    weak.dedup();
    let i = contrast::difference(a, b);
    Difference {
        d: i.value,
        lo: i.lo,
        hi: i.hi,
        unit,
        weak: (!weak.is_empty()).then(|| weak.join(" and ")),
    }
}

/// A figure taken as an amount (its difference from nothing), to weigh it
/// against a gap: `[lo, hi]` is its own interval.
pub fn amount(s: &Summary, unit: Unit) -> Difference {
    Difference {
        d: s.median,
        lo: s.ci95_lo,
        hi: s.ci95_hi,
        unit,
        weak: weak_label(s),
    }
}

impl Difference {
    /// Where the difference lies against zero: `Overlap` when its interval
    /// holds zero (the difference is within noise).
    pub fn sign(&self) -> Order {
        self.interval().against(0.0)
    }

    fn interval(&self) -> Interval {
        Interval {
            value: self.d,
            lo: self.lo,
            hi: self.hi,
        }
    }

    /// Where this difference lies against another: on the interval of the
    /// two differences' difference (half-widths in quadrature).
    pub fn against(&self, other: &Difference) -> Order {
        let d = self.d - other.d;
        Interval {
            value: d,
            lo: d
                - (self.d - self.lo)
                    .max(0.0)
                    .hypot((other.hi - other.d).max(0.0)),
            hi: d
                + (self.hi - self.d)
                    .max(0.0)
                    .hypot((other.d - other.lo).max(0.0)),
        }
        .against(0.0)
    }

    /// "-5.68 µs [-6.10 µs, -5.20 µs]", signed as measured.
    pub fn text(&self) -> String {
        let (lo, hi) = (fmt_bound(self.lo, self.unit), fmt_bound(self.hi, self.unit));
        let range = match &self.weak {
            Some(w) => fmt_interval(&lo, &format!("{hi}; from {w}")),
            None => fmt_interval(&lo, &hi),
        };
        format!("{} {range}", fmt_signed(self.d, self.unit))
    }

    /// This difference minus one more figure, its half-width added in
    /// quadrature (end to end for a stepped figure).
    pub fn minus(&self, s: &Summary) -> Difference {
        let mut weak: Vec<String> = self.weak.iter().cloned().collect();
        if let Some(w) = weak_label(s) {
            if !weak.iter().any(|x| x.contains(&w)) {
                weak.push(w);
            }
        }
        let d = self.d - s.median;
        let (below, above) = ((self.d - self.lo).max(0.0), (self.hi - self.d).max(0.0));
        let (s_below, s_above) = (
            (s.median - s.ci95_lo).max(0.0),
            (s.ci95_hi - s.median).max(0.0),
        );
        let (lo, hi) = if s.quantum > 0.0 {
            (d - below - s_above, d + above + s_below)
        } else {
            (d - below.hypot(s_above), d + above.hypot(s_below))
        };
        Difference {
            d,
            lo,
            hi,
            unit: self.unit,
            weak: (!weak.is_empty()).then(|| weak.join(" and ")),
        }
    }

    /// The size without its sign, with the interval of the size: for "X is
    /// 1.2 µs [0.8 µs, 1.6 µs] less than Y".
    pub fn magnitude_text(&self) -> String {
        if self.d < 0.0 {
            Difference {
                d: -self.d,
                lo: -self.hi,
                hi: -self.lo,
                unit: self.unit,
                weak: self.weak.clone(),
            }
            .text()
        } else {
            self.text()
        }
    }
}

/// A part of a gap, as a share that can be quoted or the reason it cannot.
#[derive(Clone, Debug, PartialEq)]
pub enum Share {
    /// The part's share of the gap, in (0, 1].
    Of(f64),
    /// The gap's interval holds zero (or lies below it): there is nothing
    /// to take a share of.
    GapWithinNoise,
    /// The part's interval holds zero.
    PartWithinNoise,
    /// The part is larger than the gap: the parts do not add up.
    Exceeds,
    /// The share's own interval (the part's interval over the gap's,
    /// `[part.lo / gap.hi, part.hi / gap.lo]`) reaches past 0% or 100%:
    /// the point share would be quoted as a bound it is not.
    Unbounded,
}

/// What share of `gap` the `part` is, quoted only when the share's own
/// interval (the ratio of the two intervals) stays within 0–100%: a part
/// whose interval reaches past the gap's lower end could be more than all
/// of it (issue 39).
pub fn share(part: &Difference, gap: &Difference) -> Share {
    if gap.sign() != Order::Above {
        Share::GapWithinNoise
    } else if part.sign() == Order::Overlap {
        Share::PartWithinNoise
    } else if part.d > gap.d || part.d < 0.0 {
        Share::Exceeds
    } else if part.lo < 0.0 || part.hi > gap.lo {
        Share::Unbounded
    } else {
        Share::Of(part.d / gap.d)
    }
}

/// `part` described against `gap` in words, one phrase whatever the share
/// (issue 39 item 9): "1.29 ms [..]; its share of the 2.87 ms [..] gap:
/// 45%", or "…: not quoted, " and why.
pub fn share_text(part: &Difference, gap: &Difference) -> String {
    share_words(share(part, gap), part, gap)
}

/// [`share_text`] for a share already decided: a share is quoted as it
/// is, never clamped; one above 100% is not quoted at all, the parts not
/// adding up to the gap (issue 39).
fn share_words(s: Share, part: &Difference, gap: &Difference) -> String {
    let why = match s {
        Share::Of(f) if f <= 1.0 => format!("{:.0}%", f * 100.0),
        Share::Of(_) | Share::Exceeds => {
            "not quoted, the part is larger than the gap: the parts do not add up".into()
        }
        Share::GapWithinNoise => "not quoted, the gap is within noise".into(),
        Share::PartWithinNoise => "not quoted, the part is within noise".into(),
        Share::Unbounded => "not quoted, the part's interval reaches past the gap's lower end, so it could be all of it".into(),
    };
    format!(
        "{}; its share of the {} gap: {why}",
        part.text(),
        gap.text()
    )
}

#[cfg(test)]
#[path = "compare_text_tests.rs"]
mod tests;
