//! The terminal table: every series with our median, its spread and, where a
//! seed reports the same quantity, the seed's figure, source and the ratio.

use super::doc;
use crate::experiments::seeds;
use crate::results::{
    case, ExperimentResult, Metric, NamedFit, RunResults, SeedCompare, SeedStat, Status,
};
use crate::units::{fmt_ns, fmt_num, fmt_value};
use comfy_table::{Cell, CellAlignment, ContentArrangement, Table};

/// The seed column: "35.0 µs (Bendersky 2018, clone)" or a range, the seed
/// named by its citation's label.
pub fn seed_text(m: &Metric) -> String {
    let Some(s) = &m.seed else {
        return String::new();
    };
    let v = |x| fmt_value(x, s.unit);
    let fig = if s.lower_bound {
        format!("over {}", v(s.lo))
    } else if s.lo == s.hi {
        v(s.lo)
    } else {
        format!("{}–{}", v(s.lo), v(s.hi))
    };
    // A clock-bound figure is compared scaled to our clock: that figure
    // is shown too, so the ratio beside it reads against it.
    let scaled = match (s.compared(), s.ours_mhz) {
        (Ok((x, _)), Some(mhz)) if s.clock_mhz.is_some() => {
            format!(", {} at our {mhz:.0} MHz", v(x))
        }
        _ => String::new(),
    };
    format!("{fig}{scaled} ({})", seeds::cite_short(&s.source))
}

/// The environment line that heads every table: the figures mean little
/// without the clock the CPU ran at.
pub fn header(r: &RunResults) -> String {
    let e = &r.env;
    let mhz = |x: Option<f64>| x.map_or("?".to_string(), |v| format!("{v:.0}"));
    format!(
        "tasklab {} · profile {} · {} ({} CPUs) · stated {} MHz, measured {} MHz · Linux {} · {} · THP {}",
        r.tool_version,
        r.profile,
        e.cpu_model,
        e.cpus_online,
        mhz(e.stated_mhz.or(e.cpuinfo_mhz)),
        mhz(r.calibration.measured_mhz),
        e.kernel,
        e.virtualization.as_deref().map_or("bare metal".to_string(), |v| format!("virtualised: {v}")),
        e.thp_enabled.as_deref().unwrap_or("?")
    )
}

/// The metrics of one experiment as rows: our median (`~` when noisy), its
/// 95% interval, p90, n, and the seed's figure with the ratio.
pub fn metric_table(e: &ExperimentResult, verbose: bool) -> doc::Table {
    let rows = e
        .metrics
        .iter()
        .filter(|m| verbose || !m.detail)
        .map(|m| {
            let sm = &m.summary;
            let mark = sm.spaced_mark();
            let median = format!("{}{mark}", fmt_value(sm.median, m.unit));
            vec![
                m.name.clone(),
                case(m),
                median,
                interval_text(m, never_negative(&e.name, m)),
                if single(m) {
                    String::new()
                } else {
                    fmt_value(sm.p90, m.unit)
                },
                sm.n.to_string(),
                seed_text(m),
                seed_ratio_cell(m),
            ]
        })
        .collect();
    doc::Table {
        head: [
            "metric",
            "case",
            "median",
            "95% interval",
            "p90",
            "n",
            "seed",
            "ours/seed",
        ]
        .map(String::from)
        .to_vec(),
        rows,
        right: vec![2, 3, 4, 5, 7],
    }
}

/// Ours over the seed's figure as a table cell beside our median: when the
/// seed's statistic is not a median (a mean, a minimum, a count over the
/// total time), the ratio is of ours by that statistic, and the cell says
/// so. /tmp/s18 run 1's echo row read "125,815/s ~ ... 200,000/s 0.19x"
/// with no word that 0.19x was our count over time (37,513/s).
pub fn seed_ratio_cell(m: &Metric) -> String {
    let ratio = m.seed_compare_text();
    match m.seed.as_ref().map(|s| s.statistic) {
        Some(stat @ (SeedStat::Mean | SeedStat::Min | SeedStat::CountOverTime))
            if !matches!(m.seed_compare(), None | Some(SeedCompare::Unlike(_))) =>
        {
            format!("{ratio} (our {})", stat.word())
        }
        _ => ratio,
    }
}

/// A single reading: one computed number, with no spread to show.
pub fn single(m: &Metric) -> bool {
    m.summary.n <= 1
}

/// Whether the series `m` of the experiment `experiment` is declared as
/// one whose figure cannot be negative (a time, a size, a count: not
/// `MetricSpec::signed`). A series this tasklab does not declare (a foreign
/// file's) is not known to be: its bounds are printed as computed.
pub fn never_negative(experiment: &str, m: &Metric) -> bool {
    crate::experiments::find(experiment)
        .and_then(|e| e.metric(&m.name))
        .is_some_and(|spec| spec.never_negative())
}

/// The interval of a median, and what it is when it is not a 95% interval;
/// nothing for a single reading. `never_negative`: the series' figure
/// cannot be below zero ([`never_negative`]), so a lower bound computed
/// below zero is said so in words (`units::bounds_below_zero`), never
/// printed.
pub fn interval_text(m: &Metric, never_negative: bool) -> String {
    let sm = &m.summary;
    if single(m) {
        return String::new();
    }
    if crate::stats::compare_text::reaches_zero(sm, m.unit) {
        return "none usable (the rounds disagree too much)".into();
    }
    // A percentage's bound past 100% or below 0% is kept as computed and
    // said so, never printed as a share (issue 39).
    let past = if m.unit == crate::units::Unit::Percent {
        crate::units::percent_bounds_past(sm.ci95_lo, sm.ci95_hi)
    } else if never_negative {
        crate::units::bounds_below_zero(sm.ci95_lo, sm.ci95_hi, m.unit)
    } else {
        None
    };
    let range = past.unwrap_or_else(|| {
        crate::units::fmt_interval(
            &fmt_value(sm.ci95_lo, m.unit),
            &fmt_value(sm.ci95_hi, m.unit),
        )
    });
    if sm.ci_covers_95 {
        range
    } else if sm.interval.is_empty() {
        // a file from before rounds: [min, max] of n independent samples
        let cover = 100.0 * (1.0 - 2.0 * 0.5f64.powi(sm.n as i32));
        format!("{range} (min–max of {}, {}%)", sm.n, fmt_num(cover, 0))
    } else {
        format!("{range} ({})", sm.interval)
    }
}

/// What the `!` beside a median means.
pub const UNSETTLED: &str =
    "! flagged: a trend over the run or two modes, which more rounds cannot fix (the interval is shown); no finding rests on it";

/// What the `~` beside a median means.
pub const NOISY: &str = "~ noisy: the interquartile range exceeds 25% of the median or the CI ±10%; rerun on a quieter machine or with --profile thorough";

/// A straight-line fit in words, in the fit's own units. The intercept is
/// the line's value at zero, a fixed cost only when it is not below zero: a
/// negative one ("-1.52 ms + 26.3 µs per KiB") is said to be no cost, the
/// line holding across the points measured only. A negative slope reads
/// "A − B per x", never "A + -B".
pub fn fit_text(f: &NamedFit) -> String {
    let (at0, per) = if f.y_unit == "ns" {
        (
            fmt_ns(f.fit.intercept),
            format!("{} ns", fmt_num(f.fit.slope.abs(), 1)),
        )
    } else {
        (
            format!("{} {}", fmt_num(f.fit.intercept, 1), f.y_unit),
            format!("{} {}", fmt_num(f.fit.slope.abs(), 2), f.y_unit),
        )
    };
    // Through three points or fewer a line always fits well: its R² says
    // nothing, so it is not quoted.
    let r2 = if f.fit.n > 3 {
        format!("R² {:.3}, ", f.fit.r2)
    } else {
        String::new()
    };
    let sign = if f.fit.slope < 0.0 { "−" } else { "" };
    // Below zero as printed: "-0.0 KiB" is zero.
    let below = at0.starts_with('-') && at0.chars().any(|c| ('1'..='9').contains(&c));
    let line = if below {
        format!(
            "{sign}{per} per {}; the line's value at zero, {at0}, is below zero, so it is no fixed cost: the line holds across the points measured only",
            f.x_unit
        )
    } else {
        let op = if f.fit.slope < 0.0 { "−" } else { "+" };
        format!("{at0} {op} {per} per {}", f.x_unit)
    };
    format!("fit {}: {line} ({r2}{} points)", f.name, f.fit.n)
}

/// The border set of the terminal's tables: no box, a rule under the
/// header; columns apart by their padding.
const RULE_UNDER_HEADER: &str = "     ─             ";

/// One experiment as a table plus its findings and notes, fitted to `width`
/// columns (a cell too wide wraps inside its column).
pub fn experiment(e: &ExperimentResult, verbose: bool, width: usize) -> String {
    let mut s = format!(
        "\n{}\n",
        wrap(&format!("{} — {}", e.name, e.summary), width, "", "  ")
    );
    let mut line = |text: &str, first: &str, rest: &str| {
        s.push_str(&wrap(text, width, first, rest));
        s.push('\n');
    };
    match e.status {
        Status::Failed => line(
            &format!(
                "FAILED: {}",
                e.reason.as_deref().unwrap_or("unknown reason")
            ),
            "  ",
            "    ",
        ),
        Status::Skipped => line(
            &format!("skipped: {}", e.reason.as_deref().unwrap_or("")),
            "  ",
            "    ",
        ),
        Status::Ok => {
            if let Some(detail) = e.partial_detail() {
                // "PARTIAL: …", as a failure reads "FAILED: …".
                line(&format!("PARTIAL: {detail}"), "  ", "    ");
            }
        }
    }
    let rows = metric_table(e, verbose);
    if !rows.rows.is_empty() {
        let grid = super::grid::grid(e, verbose, width);
        let drawn = match &grid {
            Some(lines) => lines.clone(),
            None => table_lines(&rows, width),
        };
        for l in drawn {
            s.push_str(&l);
            s.push('\n');
        }
        let mut line = |text: &str| {
            s.push_str(&wrap(text, width, "  ", "    "));
            s.push('\n');
        };
        if grid.is_some() {
            line(super::grid::LEGEND);
            // The seeds' figures the grid has no column for.
            for m in e.metrics.iter().filter(|m| verbose || !m.detail) {
                if m.seed.is_some() {
                    let ratio = seed_ratio_cell(m);
                    line(&format!(
                        "seed, {} {}: {}{}",
                        m.name,
                        case(m),
                        seed_text(m),
                        if ratio.is_empty() {
                            String::new()
                        } else {
                            format!("; ours/seed {ratio}")
                        }
                    ));
                }
            }
        }
        if e.metrics
            .iter()
            .any(|m| m.summary.noisy && !m.summary.unstable)
        {
            line(NOISY);
        }
        if e.metrics.iter().any(|m| m.summary.unstable) {
            line(UNSETTLED);
        }
        let hidden = e.metrics.len() - e.metrics.iter().filter(|m| verbose || !m.detail).count();
        if hidden > 0 {
            line(&format!(
                "({hidden} more series in results.json; --verbose shows them)"
            ));
        }
    }
    let mut line = |text: &str, first: &str| {
        s.push_str(&wrap(text, width, first, "    "));
        s.push('\n');
    };
    for f in &e.fits {
        line(&fit_text(f), "  ");
    }
    for f in &e.findings {
        line(f, "  • ");
    }
    for n in &e.notes {
        line(&format!("note: {n}"), "  ");
    }
    s
}

/// The table of rows `t` as lines fitted to `width`: drawn by comfy-table
/// when no cell has to be cut inside a word to fit, else a row per series
/// as wrapped text ("metric case: median [interval] n=…").
fn table_lines(t: &doc::Table, width: usize) -> Vec<String> {
    let mut table = Table::new();
    table
        .load_preset(RULE_UNDER_HEADER)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(u16::try_from(width).unwrap_or(u16::MAX))
        .set_header(t.head.clone());
    for r in &t.rows {
        table.add_row(r.iter().enumerate().map(|(i, c)| {
            let cell = Cell::new(c);
            if t.right.contains(&i) {
                cell.set_alignment(CellAlignment::Right)
            } else {
                cell
            }
        }));
    }
    let lines: Vec<String> = table.lines().map(|l| l.trim_end().to_string()).collect();
    let drawn: std::collections::HashSet<&str> =
        lines.iter().flat_map(|l| l.split_whitespace()).collect();
    let whole = t
        .rows
        .iter()
        .chain([&t.head])
        .flatten()
        .flat_map(|c| c.split_whitespace())
        .all(|w| drawn.contains(w));
    if whole {
        return lines;
    }
    let mut out = Vec::new();
    for r in &t.rows {
        // metric, case, median, interval, p90, n, seed, ours/seed
        let get = |i: usize| r.get(i).map_or("", String::as_str);
        let name = [get(0), get(1)].join(" ");
        let mut text = format!("{}: {}", name.trim_end(), get(2));
        if !get(3).is_empty() {
            text.push_str(&format!(", 95% interval {}", get(3)));
        }
        if !get(4).is_empty() {
            text.push_str(&format!(", p90 {}", get(4)));
        }
        text.push_str(&format!(", n={}", get(5)));
        if !get(6).is_empty() {
            text.push_str(&format!("; seed {}, ours/seed {}", get(6), get(7)));
        }
        out.extend(wrap(&text, width, "  ", "    ").lines().map(String::from));
    }
    out
}

pub use crate::units::wrap;
