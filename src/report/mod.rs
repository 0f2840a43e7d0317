//! Presenting results: number formatting shared by every exporter, and the
//! exporters themselves (terminal table, JSON).

pub mod table;

use crate::results::Unit;

/// Labels that exist for machines (exact byte counts), not for people.
pub const HIDDEN_LABELS: &[&str] = &["heap_bytes", "bytes"];

/// Nanoseconds in the unit that reads best: `850 ns`, `12.3 µs`, `4.56 ms`.
pub fn fmt_ns(ns: f64) -> String {
    let a = ns.abs();
    if !ns.is_finite() {
        "n/a".into()
    } else if a < 10.0 {
        format!("{ns:.2} ns")
    } else if a < 1_000.0 {
        format!("{ns:.1} ns")
    } else if a < 1_000_000.0 {
        format!("{} µs", sig3(ns / 1e3))
    } else if a < 1_000_000_000.0 {
        format!("{} ms", sig3(ns / 1e6))
    } else {
        format!("{} s", sig3(ns / 1e9))
    }
}

/// Three significant figures, without a trailing exponent.
fn sig3(x: f64) -> String {
    let a = x.abs();
    if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// A value in its unit, for tables.
pub fn fmt_value(v: f64, unit: Unit) -> String {
    match unit {
        Unit::Ns => fmt_ns(v),
        Unit::Kib => format!("{} KiB", group_digits(v.round() as i64)),
        Unit::Bytes => crate::experiments::params::fmt_size(v.max(0.0) as u64),
        Unit::PerSecond => format!("{}/s", group_digits(v.round() as i64)),
        Unit::Ratio => format!("{v:.2}x"),
        Unit::Count => {
            if v.fract() == 0.0 {
                group_digits(v as i64)
            } else {
                format!("{v:.2}")
            }
        }
        Unit::Mhz => format!("{v:.0} MHz"),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nanoseconds_read_well() {
        assert_eq!(fmt_ns(5.123), "5.12 ns");
        assert_eq!(fmt_ns(94.0), "94.0 ns");
        assert_eq!(fmt_ns(35_000.0), "35.0 µs");
        assert_eq!(fmt_ns(123_456.0), "123 µs");
        assert_eq!(fmt_ns(20_000_000.0), "20.0 ms");
        assert_eq!(fmt_ns(f64::NAN), "n/a");
    }

    #[test]
    fn digits_are_grouped() {
        assert_eq!(group_digits(0), "0");
        assert_eq!(group_digits(1234), "1,234");
        assert_eq!(group_digits(-1234567), "-1,234,567");
    }
}
