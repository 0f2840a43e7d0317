//! What `run` and `report` print on stdout: the terse screen ([`super::terse`]),
//! or with `--tables` / `-v` (and for a run that names experiments) every
//! experiment's table ([`super::grid`] where the series pivot) before the
//! Summary; and the timer line that heads the tables.

use super::document::rounds_sentence;
use super::{table, terse};
use crate::results::RunResults;
use crate::units::fmt_ns;

/// How the terminal shows a run: terse, or with every experiment's table
/// (`--tables`; `-v` also the detail series), fitted to `width` columns.
#[derive(Clone, Copy, Debug)]
pub struct View {
    pub tables: bool,
    pub verbose: bool,
    pub width: usize,
}

impl View {
    /// Whether the tables are shown.
    pub fn tables(&self) -> bool {
        self.tables || self.verbose
    }
}

/// What `run` and `report` print on stdout: the terse answer, or with
/// `--tables` / `-v` the header, every experiment's table and then the
/// Summary, warnings and paths.
pub fn terminal(r: &RunResults, view: View, paths: &terse::Paths) -> String {
    if !view.tables() {
        return terse::terse(r, view.width, paths);
    }
    let mut s = terse::header(r, view.width);
    s.push_str(&timer_line(r, view.width));
    for e in &r.experiments {
        s.push_str(&table::experiment(e, view.verbose, view.width));
    }
    s.push_str(&terse::body(r, view.width, false, paths, terse::MAX_LINES));
    s
}

/// How the figures were timed, fitted to `width`; ends with a newline.
pub fn timer_line(r: &RunResults, width: usize) -> String {
    let c = &r.calibration;
    let text = format!(
        "timer: {} per CLOCK_MONOTONIC read, loop {} ns per iteration (subtracted); {}",
        fmt_ns(c.timer_overhead_ns),
        crate::units::fmt_num(c.loop_overhead_ns, 2),
        rounds_sentence(r)
            .trim_end_matches(';')
            .replacen("Every", "every", 1)
    );
    format!("{}\n", table::wrap(&text, width, "", "  "))
}
