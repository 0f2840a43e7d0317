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
fn a_tiny_figure_keeps_two_significant_digits_and_its_sign() {
    // A slope of 0.0006 ns per page is not "0.00 ns", which reads as none.
    assert_eq!(fmt_ns(0.000_61), "0.00061 ns");
    assert_eq!(fmt_ns(-0.000_61), "-0.00061 ns");
    assert_eq!(fmt_ns(0.004_2), "0.0042 ns");
    assert_eq!(fmt_ns(0.0), "0.00 ns");
    assert_eq!(fmt_ns(0.05), "0.05 ns");
}

#[test]
fn digits_are_grouped() {
    assert_eq!(group_digits(0), "0");
    assert_eq!(group_digits(1234), "1,234");
    assert_eq!(group_digits(-1234567), "-1,234,567");
    assert_eq!(group_digits(123), "123");
    assert_eq!(group_digits(1_000_000), "1,000,000");
}

#[test]
fn sizes_parse_in_binary_units() {
    assert_eq!(parse_size("0"), Ok(0));
    assert_eq!(parse_size("2M"), Ok(2 << 20));
    assert_eq!(parse_size("2MiB"), Ok(2 << 20));
    assert_eq!(parse_size("4g"), Ok(4 << 30));
    assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
    assert!(parse_size("lots").is_err());
    assert!(parse_size("12Q").is_err());
    assert!(parse_size("").is_err());
}

#[test]
fn sizes_format_back() {
    assert_eq!(fmt_size(0), "0 B");
    assert_eq!(fmt_size(2 << 20), "2 MiB");
    assert_eq!(fmt_size(4 << 30), "4 GiB");
    assert_eq!(fmt_size(1536), "1.5 KiB");
    assert_eq!(fmt_short_size(-3.0), "0 B");
}

#[test]
fn approximate_sizes_keep_one_decimal() {
    assert_eq!(fmt_size_approx(512), "512 B");
    assert_eq!(fmt_size_approx(24 << 30), "24.0 GiB");
    assert_eq!(fmt_size_approx(1536), "1.5 KiB");
}

#[test]
fn counts_parse_with_separators() {
    assert_eq!(parse_count("10_000"), Ok(10_000));
    assert!(parse_count("1e3").is_err());
}

#[test]
fn numbers_take_suffixes_and_digit_groups() {
    assert_eq!(parse_number("--rate", "1.5k"), Ok(1500.0));
    assert_eq!(parse_number("--rate", "10,000"), Ok(10_000.0));
    assert_eq!(parse_number("--rate", "2000/s"), Ok(2000.0));
    assert!(parse_number("--rate", "1,5k").is_err());
    assert!(parse_number("--rate", "-3").is_err());
}

#[test]
fn durations_need_a_unit() {
    assert_eq!(parse_duration("--lifetime", "20ms"), Ok(0.02));
    assert_eq!(parse_duration("--lifetime", "1h"), Ok(3600.0));
    assert!(parse_duration("--lifetime", "20")
        .unwrap_err()
        .contains("needs a unit"));
    assert!(parse_duration("--lifetime", "2 fortnights").is_err());
}

#[test]
fn shares_and_counts_read_well() {
    assert_eq!(fmt_share(0.1), "10.0%");
    assert_eq!(fmt_share(1.5), "150%");
    assert_eq!(fmt_count(7.000000000000001), "7");
    assert_eq!(snap(0.5), 0.5);
}

/// Issue 39: a share's interval as computed, a bound past 100% or below 0%
/// said so in words, never printed as a share.
#[test]
fn a_shares_bound_past_its_ends_is_said_never_quoted() {
    assert_eq!(
        fmt_share_interval(0.848, 0.801, 0.88),
        "84.8% [80.1%, 88.0%]"
    );
    let past = fmt_share_interval(0.99, 0.97, 1.03);
    assert!(
        past.starts_with("99.0% [97.0%, past 100%] (the share is estimated"),
        "{past}"
    );
    assert!(!past.contains("103"), "{past}");
    let below = fmt_share_interval(0.001, -0.002, 0.004);
    assert!(below.starts_with("0.10% [below 0%, 0.40%] ("), "{below}");
    assert_eq!(percent_bounds_past(95.0, 99.2), None);
    let table = percent_bounds_past(95.0, 101.3).unwrap();
    assert!(table.starts_with("[95.0%, past 100%] ("), "{table}");
    assert!(!table.contains("101"), "{table}");
    // Exactly the whole is a share.
    assert_eq!(percent_bounds_past(90.0, 100.0), None);
}

/// Issue 39: a lower bound below zero of a figure that cannot be negative
/// (three rounds of a count, two of them none) is said so in words, never
/// printed as zero (a count's -0.0003 would print "0.00") nor dropped.
#[test]
fn a_bound_below_zero_of_a_figure_that_cannot_be_negative_is_said() {
    assert_eq!(bounds_below_zero(0.0, 0.0019, Unit::Count), None);
    assert_eq!(bounds_below_zero(2.0, 3.0, Unit::Ns), None);
    let count = bounds_below_zero(-0.0003, 0.0019, Unit::Count).unwrap();
    assert!(
        count.starts_with("[below 0, 0.00] (the interval is estimated from the rounds"),
        "{count}"
    );
    assert!(
        !count.contains("0.0003") && !count.contains("[0.00"),
        "{count}"
    );
    let size = bounds_below_zero(-512.0, 2048.0, Unit::Kib).unwrap();
    assert!(size.starts_with("[below 0, 2,048 KiB] ("), "{size}");
}

#[test]
fn no_negative_zero_and_every_whole_part_grouped() {
    assert_eq!(fmt_num(-0.04, 1), "0.0");
    assert_eq!(fmt_num(-0.0, 0), "0");
    assert_eq!(fmt_num(-0.06, 1), "-0.1");
    assert_eq!(fmt_num(16_958.83, 1), "16,958.8");
    assert_eq!(fmt_num(-1_234_567.0, 0), "-1,234,567");
    assert_eq!(fmt_num(999.96, 1), "1,000.0");
    // A tiny time keeps its sign and two digits (a per-page slope); a
    // zero is never "-0".
    assert_eq!(fmt_ns(-0.001), "-0.0010 ns");
    assert_eq!(fmt_ns(-0.0), "0.00 ns");
    assert_eq!(fmt_ns(12_345e9), "12,345 s");
    // A negative size is shown as measured, never clamped; a zero is never "-0".
    assert_eq!(fmt_value(-0.3, Unit::Kib), "-0.30 KiB");
    assert_eq!(fmt_value(-0.0, Unit::Kib), "0 KiB");
    assert_eq!(fmt_value(-0.001, Unit::Ratio), "0.00x");
    assert_eq!(fmt_value(12_345.5, Unit::Ratio), "12,345.50x");
    assert_eq!(fmt_value(1_234.25, Unit::Count), "1,234");
    assert_eq!(fmt_value(-1_234.0, Unit::Count), "-1,234");
    assert_eq!(fmt_share(-0.000001), "0.000%");
    assert_eq!(fmt_share(123.4), "12,340%");
}

#[test]
fn wrap_keeps_every_line_within_the_width_and_every_word() {
    let text = "a list of fork,vfork,clone_vfork,posix_spawn,fork_exec_static and \
                averyveryverylongwordwithoutanycomma, then – µs words";
    for width in [8, 12, 20, 40] {
        for (first, rest) in [("", ""), ("  • ", "    "), ("-p ", "  ")] {
            let out = wrap(text, width, first, rest);
            let lines: Vec<&str> = out.lines().collect();
            assert!(
                lines.iter().all(|l| l.chars().count() <= width),
                "{lines:?}"
            );
            assert!(lines[0].starts_with(first) && lines[1..].iter().all(|l| l.starts_with(rest)));
            let joined: String = out
                .replace('•', "")
                .replace("-p", "")
                .split_whitespace()
                .collect();
            let want: String = text.split_whitespace().collect();
            assert_eq!(joined, want, "{width}");
        }
    }
    assert_eq!(wrap("one two three", 7, "", ""), "one two\nthree");
    assert_eq!(wrap("one two three", 9, "* ", "  "), "* one two\n  three");
    assert_eq!(wrap("a,b,c,d", 4, "", ""), "a,b,\nc,d");
}

#[test]
fn a_cpu_load_is_a_share_below_one_cpu_and_cpus_above() {
    assert_eq!(fmt_cpu_load(0.161), "16.1%");
    assert_eq!(fmt_cpu_load(1.19), "1.19 CPUs");
    assert_eq!(fmt_cpu_load(214.51), "215 CPUs");
    assert!(!fmt_cpu_load(3.0).contains('%'));
}

/// A count from 100 up is whole, as KiB are: memory.limits' interval read
/// "[32,098.78, 32,734.33]" beside a median of 32,415 threads (/tmp/s18).
#[test]
fn a_large_count_is_whole_and_a_small_one_keeps_its_decimals() {
    assert_eq!(fmt_value(32_098.78, Unit::Count), "32,099");
    assert_eq!(fmt_value(32_415.0, Unit::Count), "32,415");
    assert_eq!(fmt_value(4.29, Unit::Count), "4.29");
    assert_eq!(fmt_value(2.0, Unit::Count), "2");
}
