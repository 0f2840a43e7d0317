//! Formatting and parsing of numbers, sizes and durations: one function per
//! quantity, shared by every exporter, the parameters and `advise`.

use serde::{Deserialize, Serialize};

/// The unit of a figure, as the results file records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    Ns,
    Bytes,
    Kib,
    PerSecond,
    Ratio,
    Count,
    Mhz,
    /// A share of a whole, 0 to 100: its interval stops at 100.
    Percent,
}

impl Unit {
    pub fn name(self) -> &'static str {
        match self {
            Unit::Ns => "ns",
            Unit::Bytes => "bytes",
            Unit::Kib => "KiB",
            Unit::PerSecond => "/s",
            Unit::Ratio => "x",
            Unit::Count => "",
            Unit::Mhz => "MHz",
            Unit::Percent => "%",
        }
    }
}

/// Which way a figure is better: a cost is better lower, a throughput or a
/// speedup higher; a count of what happened (switches per round trip) is
/// neither. `compare` never guesses it from the unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Better {
    Lower,
    Higher,
    Neither,
    /// Not declared (a file from before declarations).
    #[default]
    Unknown,
}

impl Better {
    /// The direction as the results file spells it.
    pub fn word(self) -> &'static str {
        match self {
            Better::Lower => "lower",
            Better::Higher => "higher",
            Better::Neither => "neither",
            Better::Unknown => "unknown",
        }
    }
}

/// Nanoseconds in the unit that reads best: `850 ns`, `12.3 µs`, `4.56 ms`,
/// `1,234 s`.
pub fn fmt_ns(ns: f64) -> String {
    let a = ns.abs();
    if !ns.is_finite() {
        "n/a".into()
    } else if a > 0.0 && a < 0.01 {
        // Two significant figures: a slope of 0.0006 ns per page is not
        // "0.00 ns", which reads as exactly none.
        let decimals = ((-a.log10()).ceil() as usize + 1).min(12);
        format!("{} ns", fmt_num(ns, decimals))
    } else if a < 10.0 {
        format!("{} ns", fmt_num(ns, 2))
    } else if a < 1_000.0 {
        format!("{} ns", fmt_num(ns, 1))
    } else if a < 1_000_000.0 {
        format!("{} µs", sig3(ns / 1e3))
    } else if a < 1_000_000_000.0 {
        format!("{} ms", sig3(ns / 1e6))
    } else {
        format!("{} s", sig3(ns / 1e9))
    }
}

/// Three significant figures, without a trailing exponent (more when the
/// whole part has more digits, grouped).
fn sig3(x: f64) -> String {
    let a = x.abs();
    if a >= 100.0 {
        fmt_num(x, 0)
    } else if a >= 10.0 {
        fmt_num(x, 1)
    } else {
        fmt_num(x, 2)
    }
}

/// `v` with `decimals` decimals, its whole part grouped in threes
/// (`16,958.8`), and never a "-0.0": a value that rounds to zero has no sign.
pub fn fmt_num(v: f64, decimals: usize) -> String {
    if !v.is_finite() {
        return "n/a".into();
    }
    let text = format!("{:.*}", decimals, v.abs());
    let (whole, frac) = text.split_once('.').unwrap_or((&text, ""));
    let mut out = String::new();
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if !frac.is_empty() {
        out.push('.');
        out.push_str(frac);
    }
    let zero = text.chars().all(|c| c == '0' || c == '.');
    if v < 0.0 && !zero {
        format!("-{out}")
    } else {
        out
    }
}

/// An interval as every finding and table writes it: `[lo, hi]`, each end
/// already formatted in its unit.
pub fn fmt_interval(lo: &str, hi: &str) -> String {
    format!("[{lo}, {hi}]")
}

/// A value in its unit, for tables.
pub fn fmt_value(v: f64, unit: Unit) -> String {
    match unit {
        Unit::Ns => fmt_ns(v),
        Unit::Kib => fmt_kib(v),
        Unit::Bytes if v < 0.0 => format!("-{}", fmt_size((-v) as u64)),
        Unit::Bytes => fmt_size(v as u64),
        Unit::PerSecond => format!("{}/s", group_digits(v.round() as i64)),
        Unit::Ratio => format!("{}x", fmt_num(v, 2)),
        // From 100 up a count is whole, as KiB are: an interval's ends
        // "[32,099, 32,734]" beside a median of 32,415 threads, never
        // "[32,098.78, 32,734.33]" (memory.limits, /tmp/s18).
        Unit::Count => {
            if v.fract() == 0.0 || v.abs() >= 100.0 {
                fmt_num(v, 0)
            } else {
                fmt_num(v, 2)
            }
        }
        Unit::Mhz => format!("{} MHz", fmt_num(v, 0)),
        Unit::Percent => format!("{}%", fmt_num(v, 1)),
    }
}

/// KiB as tables and findings print them: from 100 up whole and grouped
/// (`409,604 KiB`), below with three significant figures (`8.20 KiB`,
/// `16.0 KiB`, `0.14 KiB`).
fn fmt_kib(v: f64) -> String {
    let a = v.abs();
    if a >= 100.0 || v == 0.0 {
        format!("{} KiB", group_digits(v.round() as i64))
    } else if a >= 10.0 {
        format!("{v:.1} KiB")
    } else {
        format!("{v:.2} KiB")
    }
}

/// `1234567` -> `1,234,567`.
pub fn group_digits(v: i64) -> String {
    let s = v.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if v < 0 {
        format!("-{out}")
    } else {
        out
    }
}

/// `2097152` -> `2 MiB`; exact binary units where they fit, else one decimal.
pub fn fmt_size(bytes: u64) -> String {
    const UNITS: [(&str, u64); 4] = [
        ("TiB", 1 << 40),
        ("GiB", 1 << 30),
        ("MiB", 1 << 20),
        ("KiB", 1 << 10),
    ];
    for (name, mult) in UNITS {
        if bytes >= mult {
            return if bytes.is_multiple_of(mult) {
                format!("{} {name}", bytes / mult)
            } else {
                format!("{:.1} {name}", bytes as f64 / mult as f64)
            };
        }
    }
    format!("{bytes} B")
}

/// `v` bytes (a float, as axes and sums have them): `4 MiB`.
pub fn fmt_short_size(v: f64) -> String {
    fmt_size(v.max(0.0).round() as u64)
}

/// A machine's memory, always with one decimal: `23.4 GiB`.
pub fn fmt_size_approx(b: u64) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if b < 1024 {
        return format!("{b} B");
    }
    let mut v = b as f64 / 1024.0;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < UNITS.len() {
        v /= 1024.0;
        i += 1;
    }
    format!("{v:.1} {}", UNITS[i])
}

/// `x` with float error near a whole number removed (about 1e-9 relative):
/// 10/s x 0.7 s is 7 tasks, not 7.000000000000001, whose ceiling is 8.
pub fn snap(x: f64) -> f64 {
    let r = x.round();
    if x.is_finite() && (x - r).abs() <= 1e-9 * x.abs() {
        r
    } else {
        x
    }
}

/// A computed count or rate as the report prints a count: `7`, `1,000`.
pub fn fmt_count(v: f64) -> String {
    fmt_value(snap(v), Unit::Count)
}

/// A figure as `advise` prints it: sizes as sizes (`8.7 KiB`), the rest as
/// the report prints them.
pub fn fmt_figure(v: f64, unit: Unit) -> String {
    match unit {
        Unit::Kib => fmt_short_size(v * 1024.0),
        Unit::Bytes => fmt_short_size(v),
        _ => fmt_value(v, unit),
    }
}

/// A share of one CPU as a percentage: `10.0%`.
pub fn fmt_share(share: f64) -> String {
    let p = share * 100.0;
    let a = p.abs();
    let decimals = if a >= 100.0 {
        0
    } else if a >= 10.0 {
        1
    } else if a >= 0.1 {
        2
    } else {
        3
    };
    format!("{}%", fmt_num(p, decimals))
}

/// A share with its 95% interval, each a fraction of 1, as the report
/// quotes it: "84.8% [80.1%, 88.0%]". A share is never clamped (issue 39):
/// a bound computed past 100% or below 0% (the interval of a share
/// estimated from a few rounds, widened by their spread) is kept as computed
/// in the results, and here said to pass that end rather than quoted as a
/// share of anything ("[97.0%, past 100%]"), with why.
pub fn fmt_share_interval(median: f64, lo: f64, hi: f64) -> String {
    let (lo_past, hi_past) = (lo < 0.0, hi > 1.0);
    let bound = |v: f64, past: bool, words: &str| {
        if past {
            words.to_string()
        } else {
            fmt_share(v)
        }
    };
    let interval = fmt_interval(
        &bound(lo, lo_past, SHARE_BELOW_ZERO),
        &bound(hi, hi_past, SHARE_PAST_WHOLE),
    );
    let note = if lo_past || hi_past {
        format!(" ({SHARE_BOUND_PAST})")
    } else {
        String::new()
    };
    format!("{} {interval}{note}", fmt_share(median))
}

/// A percentage's interval as a table prints it: "[95.0%, 99.2%]"; a bound
/// past 100% or below 0% said so in words, as [`fmt_share_interval`] does
/// (`None` when both bounds are within 0–100%).
pub fn percent_bounds_past(lo: f64, hi: f64) -> Option<String> {
    let (lo_past, hi_past) = (lo < 0.0, hi > 100.0);
    (lo_past || hi_past).then(|| {
        let lo = if lo_past {
            SHARE_BELOW_ZERO.to_string()
        } else {
            fmt_value(lo, Unit::Percent)
        };
        let hi = if hi_past {
            SHARE_PAST_WHOLE.to_string()
        } else {
            fmt_value(hi, Unit::Percent)
        };
        format!("{} ({SHARE_BOUND_PAST})", fmt_interval(&lo, &hi))
    })
}

/// An interval of a figure that cannot be negative (a time, a size, a
/// count: a series not declared `signed`) as a table prints it, when its
/// lower bound as computed is below zero: "[below 0, 0.0019]" with why
/// (`None` when the bound is not below zero). An interval is never
/// clamped (issue 39): the bound is kept as computed in the results, and
/// said here to pass zero rather than quoted as a figure the quantity
/// could take, or printed as zero.
pub fn bounds_below_zero(lo: f64, hi: f64, unit: Unit) -> Option<String> {
    (lo < 0.0).then(|| {
        format!(
            "{} ({BOUND_BELOW_ZERO})",
            fmt_interval(BELOW_ZERO, &fmt_value(hi, unit))
        )
    })
}

/// A bound computed below zero of a figure that cannot be negative, in
/// words.
pub const BELOW_ZERO: &str = "below 0";
/// Why such a bound is said to pass zero rather than quoted.
pub const BOUND_BELOW_ZERO: &str = "the interval is estimated from the rounds and its lower bound, as computed, is below zero, which this figure cannot be: it is not quoted; results.json keeps it as computed";

/// A share's bound computed above 100%, in words.
pub const SHARE_PAST_WHOLE: &str = "past 100%";
/// A share's bound computed below 0%, in words.
pub const SHARE_BELOW_ZERO: &str = "below 0%";
/// Why a share's bound is said to pass an end rather than quoted.
pub const SHARE_BOUND_PAST: &str = "the share is estimated from the rounds and its interval's bound, as computed, passes what a share can be by sampling noise: it is not quoted as a share; results.json keeps it as computed";

/// A CPU load in multiples of one CPU: a share of it below one ("16.1%"),
/// else a count of CPUs ("1.19 CPUs"), so no share is quoted above 100%.
pub fn fmt_cpu_load(cpus: f64) -> String {
    let a = cpus.abs();
    if a < 1.0 {
        return fmt_share(cpus);
    }
    let decimals = if a < 10.0 {
        2
    } else if a < 100.0 {
        1
    } else {
        0
    };
    format!("{} CPUs", fmt_num(cpus, decimals))
}

/// A whole number, `_` allowed as a separator: `10_000`.
pub fn parse_count(text: &str) -> Result<u64, String> {
    let t = text.trim().replace('_', "");
    t.parse::<u64>().map_err(|_| "not a whole number".into())
}

/// Parses `0`, `4096`, `64K`, `2M`, `2MiB`, `4G`, `1.5GiB` (binary units).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let num: f64 = num
        .parse()
        .map_err(|_| "not a size (try 64M or 4GiB)".to_string())?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        other => return Err(format!("unknown size unit '{other}' (use K, M, G or T)")),
    };
    let bytes = num * mult as f64;
    if !bytes.is_finite() || bytes >= u64::MAX as f64 {
        return Err("size too large".into());
    }
    Ok(bytes.round() as u64)
}

/// A count or rate: `2000`, `1.5k`, `2M`, `1G`, `10,000`, `2000/s`. A comma
/// only groups digits in threes (`10,000`); `1,5k` is refused, not read as 15k.
pub fn parse_number(flag: &str, text: &str) -> Result<f64, String> {
    let t = text.trim();
    let t = t.strip_suffix("/s").unwrap_or(t).trim_end();
    let cleaned: String = t.chars().filter(|c| *c != '_').collect();
    let (num, mult) = match cleaned.chars().last() {
        Some('k' | 'K') => (&cleaned[..cleaned.len() - 1], 1e3),
        Some('M') => (&cleaned[..cleaned.len() - 1], 1e6),
        Some('G') => (&cleaned[..cleaned.len() - 1], 1e9),
        _ => (cleaned.as_str(), 1.0),
    };
    let num = num.trim();
    let num = if num.contains(',') {
        if !digit_groups(num) {
            return Err(format!(
                "{flag}: '{text}': a comma may only separate groups of three digits (10,000); write a decimal with a point (1.5k)"
            ));
        }
        num.replace(',', "")
    } else {
        num.to_string()
    };
    let v: f64 = num.parse().map_err(|_| {
        format!("{flag}: '{text}' is not a number (e.g. 2000, 1.5k, 2M; suffixes k, M, G)")
    })?;
    if !v.is_finite() {
        return Err(format!("{flag}: '{text}' is not a finite number"));
    }
    if v < 0.0 {
        return Err(format!("{flag}: '{text}' is negative"));
    }
    Ok(v * mult)
}

/// `10,000` or `-1,234.5`: commas only between groups of three digits of the
/// whole part, the first group one to three digits.
fn digit_groups(num: &str) -> bool {
    let body = num.strip_prefix(['-', '+']).unwrap_or(num);
    let (whole, frac) = body.split_once('.').unwrap_or((body, ""));
    if frac.contains(',') {
        return false;
    }
    let digits = |g: &str| g.chars().all(|c| c.is_ascii_digit());
    whole.split(',').enumerate().all(|(i, g)| {
        digits(g)
            && if i == 0 {
                (1..=3).contains(&g.len())
            } else {
                g.len() == 3
            }
    })
}

/// A duration with its unit: `20ms`, `500us`, `2s`, `1.5min`, `1h`; seconds.
pub fn parse_duration(flag: &str, text: &str) -> Result<f64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| c.is_alphabetic() || c == 'µ')
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("{flag}: '{text}' is not a duration (e.g. 20ms, 500us, 2s)"))?;
    if !v.is_finite() {
        return Err(format!("{flag}: '{text}' is not a finite duration"));
    }
    if v < 0.0 {
        return Err(format!("{flag}: '{text}' is negative"));
    }
    let scale = match unit.trim() {
        "ns" => 1e-9,
        "us" | "µs" | "μs" => 1e-6,
        "ms" => 1e-3,
        "s" | "sec" => 1.0,
        "min" => 60.0,
        "h" => 3600.0,
        "" => {
            return Err(format!(
                "{flag}: '{text}' needs a unit: ns, us, ms, s, min or h (e.g. 20ms)"
            ))
        }
        other => {
            return Err(format!(
                "{flag}: unknown unit '{other}' in '{text}' (use ns, us, ms, s, min or h)"
            ))
        }
    };
    Ok(v * scale)
}

/// `text` in lines of at most `width` columns, breaking between words: the
/// first line starts with `first`, the others with `rest`; no trailing
/// newline. A word longer than a line (a comma-separated list) breaks after
/// a comma, failing that at the width, so no line is ever wider than `width`
/// (unless an indent alone is).
pub fn wrap(text: &str, width: usize, first: &str, rest: &str) -> String {
    let cols = |s: &str| s.chars().count();
    let room = width.saturating_sub(cols(first).max(cols(rest))).max(1);
    let mut out = String::from(first);
    let mut at = cols(first);
    let mut fresh = true;
    for word in text.split_whitespace() {
        let mut piece = word;
        let mut cont = false;
        while !piece.is_empty() {
            // the part of `piece` that fits on a line of its own
            let part = if cols(piece) > room {
                let at_room = piece
                    .char_indices()
                    .nth(room)
                    .map_or(piece.len(), |(i, _)| i);
                &piece[..piece[..at_room].rfind(',').map_or(at_room, |i| i + 1)]
            } else {
                piece
            };
            let glue = usize::from(!fresh && !cont);
            if !fresh && at + glue + cols(part) > width {
                out.push('\n');
                out.push_str(rest);
                at = cols(rest);
            } else if glue == 1 {
                out.push(' ');
                at += 1;
            }
            out.push_str(part);
            at += cols(part);
            fresh = false;
            cont = true;
            piece = &piece[part.len()..];
        }
    }
    out
}

#[cfg(test)]
#[path = "units_tests.rs"]
mod tests;
