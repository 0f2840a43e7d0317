//! The words of a comparison, decided from intervals: "A is 8.1x B" only when
//! the two medians' intervals separate, otherwise "indistinguishable here"; a
//! difference "A − B = D [lo, hi]" that is never clamped, so a negative one
//! stays negative and turns the sentence; a share of a gap that is never
//! above 100% and never quoted when the gap itself is within noise.
//!
//! Every finding that compares two figures goes through here, so the rule
//! is the same everywhere.

use super::Summary;
use crate::units::{fmt_interval, fmt_ns, fmt_value, Unit};

/// Where one figure's interval lies against another's (or against zero).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Wholly below.
    Below,
    /// Wholly above.
    Above,
    /// The intervals overlap: no order can be claimed.
    Overlap,
}

/// Where the interval `[a_lo, a_hi]` lies against `[b_lo, b_hi]`.
fn order_of((a_lo, a_hi): (f64, f64), (b_lo, b_hi): (f64, f64)) -> Order {
    if a_hi < b_lo {
        Order::Below
    } else if a_lo > b_hi {
        Order::Above
    } else {
        Order::Overlap
    }
}

/// Where `a`'s median interval lies against `b`'s.
pub fn order(a: &Summary, b: &Summary) -> Order {
    order_of((a.ci95_lo, a.ci95_hi), (b.ci95_lo, b.ci95_hi))
}

/// Whether the two medians' intervals are apart: only then may a finding
/// state a difference or a ratio between them.
pub fn apart(a: &Summary, b: &Summary) -> bool {
    order(a, b) != Order::Overlap
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

/// A figure the Summary quotes whatever its state: the median alone when it
/// settled; when it was flagged (a trend, two modes), the median with its
/// interval and the flag, so the basic figures never drop out of a run's
/// Summary and never read as settled when they are not.
pub fn quoted(s: &Summary, unit: Unit) -> String {
    match (&s.unsettled, s.unstable) {
        (_, false) => crate::units::fmt_value(s.median, unit),
        (Some(u), true) => format!("{} ! ({})", figure(s, unit), u.words(unit)),
        (None, true) => format!("{} ! (flagged)", figure(s, unit)),
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
    let (lo, hi) = (fmt_signed(s.ci95_lo, unit), fmt_signed(s.ci95_hi, unit));
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
/// "47.9 µs vs 4.16 µs (11.5x)" when the intervals separate, else
/// "15.7 µs vs 19.2 µs (indistinguishable here)".
pub fn versus(a: &Summary, b: &Summary) -> String {
    let verdict = if apart(a, b) && a.median > 0.0 && b.median > 0.0 {
        fmt_ratio(a.median / b.median)
    } else if apart(a, b) {
        difference(a, b, Unit::Ns).text()
    } else {
        "indistinguishable here".to_string()
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

/// "fork (207 µs) is 8.1x pthread_create (25.5 µs)" when the intervals
/// separate and both medians are above zero; "... is indistinguishable from
/// ... here" when they overlap. For figures that are not both positive no
/// ratio is meaningful: the difference is given instead.
pub fn compare(a_name: &str, a: &Summary, b_name: &str, b: &Summary, unit: Unit) -> String {
    let fa = fmt_signed(a.median, unit);
    let fb = fmt_signed(b.median, unit);
    let o = order(a, b);
    if o == Order::Overlap {
        return format!("{a_name} ({fa}) is indistinguishable from {b_name} ({fb}) here");
    }
    if a.median > 0.0 && b.median > 0.0 {
        let r = fmt_ratio(a.median / b.median);
        return format!("{a_name} ({fa}) is {r} {b_name} ({fb})");
    }
    let more = if o == Order::Above { "more" } else { "less" };
    format!(
        "{a_name} ({fa}) is {} {more} than {b_name} ({fb})",
        difference(a, b, unit).magnitude_text()
    )
}

/// `a − b` with an interval that holds zero exactly when the two intervals
/// overlap: `[a.lo − b.hi, a.hi − b.lo]`. Never clamped.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    pub d: f64,
    pub lo: f64,
    pub hi: f64,
    pub unit: Unit,
    /// What the interval is built from when a side's is not a 95% one.
    pub weak: Option<String>,
}

/// `a − b`: the medians' difference and the interval arithmetic of theirs.
pub fn difference(a: &Summary, b: &Summary, unit: Unit) -> Difference {
    let mut weak: Vec<String> = [a, b].iter().filter_map(|s| weak_label(s)).collect();
    weak.dedup();
    Difference {
        d: a.median - b.median,
        lo: a.ci95_lo - b.ci95_hi,
        hi: a.ci95_hi - b.ci95_lo,
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
        order_of((self.lo, self.hi), (0.0, 0.0))
    }

    /// Where this difference's interval lies against another's.
    pub fn against(&self, other: &Difference) -> Order {
        order_of((self.lo, self.hi), (other.lo, other.hi))
    }

    /// "-5.68 µs [-6.10 µs, -5.20 µs]", signed as measured.
    pub fn text(&self) -> String {
        let (lo, hi) = (
            fmt_signed(self.lo, self.unit),
            fmt_signed(self.hi, self.unit),
        );
        let range = match &self.weak {
            Some(w) => fmt_interval(&lo, &format!("{hi}; from {w}")),
            None => fmt_interval(&lo, &hi),
        };
        format!("{} {range}", fmt_signed(self.d, self.unit))
    }

    /// This difference minus one more figure: `[lo − s.hi, hi − s.lo]`.
    pub fn minus(&self, s: &Summary) -> Difference {
        let mut weak: Vec<String> = self.weak.iter().cloned().collect();
        if let Some(w) = weak_label(s) {
            if !weak.iter().any(|x| x.contains(&w)) {
                weak.push(w);
            }
        }
        Difference {
            d: self.d - s.median,
            lo: self.lo - s.ci95_hi,
            hi: self.hi - s.ci95_lo,
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

    /// "A − B = D [lo, hi]" with what the difference means: within noise
    /// when its interval holds zero, and `more`/`less` said in words
    /// otherwise (e.g. "slower"/"faster", so a negative difference reads
    /// "faster, not slower" where slower was expected).
    pub fn sentence(&self, a: &str, b: &str, more: &str, less: &str) -> String {
        let head = format!("{a} − {b} = {}", self.text());
        match self.sign() {
            Order::Above => format!("{head}: {a} is {more}"),
            Order::Below => format!("{head}: {a} is {less}, not {more}"),
            Order::Overlap => {
                format!("{head}: within noise, {a} is indistinguishable from {b} here")
            }
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
}

/// What share of `gap` the `part` is, never above 100%.
pub fn share(part: &Difference, gap: &Difference) -> Share {
    if gap.sign() != Order::Above {
        Share::GapWithinNoise
    } else if part.sign() == Order::Overlap {
        Share::PartWithinNoise
    } else if part.d > gap.d || part.d < 0.0 {
        Share::Exceeds
    } else {
        Share::Of(part.d / gap.d)
    }
}

/// `part` described against `gap` in words: "1.29 ms [..] (45% of the
/// 2.87 ms [..] gap)", or why no share is quoted.
pub fn share_text(part: &Difference, gap: &Difference) -> String {
    match share(part, gap) {
        Share::Of(f) => format!(
            "{} ({:.0}% of the {} gap)",
            part.text(),
            (f * 100.0).min(100.0),
            gap.text()
        ),
        Share::GapWithinNoise => format!(
            "{}, beside a gap of {} that is within noise, so no share of it is quoted",
            part.text(),
            gap.text()
        ),
        Share::PartWithinNoise => format!(
            "{}, within noise, so no share of the {} gap is quoted",
            part.text(),
            gap.text()
        ),
        Share::Exceeds => format!(
            "{}, against a gap of {}: the parts do not add up to the gap, so no share is quoted",
            part.text(),
            gap.text()
        ),
    }
}

#[cfg(test)]
#[path = "compare_text_tests.rs"]
mod tests;
