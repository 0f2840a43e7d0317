//! The folder writer: a run's results.json written into its folder after
//! every experiment, each time whole (`OutDir::write`: a temporary file
//! opened O_EXCL|O_NOFOLLOW, renamed into place), and the report folder
//! prepared at the first result, so a run that ends before it has one
//! leaves the folder as it was.

use crate::report::folder::{self, Begun};
use crate::results::{RunResults, RESULTS_FILE};
use crate::sys::safefile::OutDir;

/// Writes a run's results into `out` as they grow.
pub struct Writer<'a> {
    out: &'a OutDir,
    /// `out` is a report folder, prepared at the first result (the earlier
    /// results kept as previous.json, its other files cleared).
    prepare: bool,
    /// What preparing did; None until the first result is written.
    begun: Option<Begun>,
}

impl<'a> Writer<'a> {
    pub fn new(out: &'a OutDir, prepare: bool) -> Writer<'a> {
        Writer {
            out,
            prepare,
            begun: None,
        }
    }

    /// Whether the first result was written (and the folder prepared).
    pub fn begun(&self) -> bool {
        self.begun.is_some()
    }

    /// Writes `results`; the first time, prepares the folder first.
    pub fn write(&mut self, results: &RunResults) -> anyhow::Result<()> {
        if self.begun.is_some() {
            return results.write_in(self.out);
        }
        let out = self.out;
        let had_results = out.has_file(RESULTS_FILE);
        let b = if self.prepare {
            folder::begin(out, true)?
        } else {
            Begun::default()
        };
        let first = results.write_in(out);
        if first.is_err() && had_results && b.previous.is_some() && !out.has_file(RESULTS_FILE) {
            // The first results could not be written (a full disk): the
            // earlier ones go back to where they were.
            let _ = out.rename(folder::PREVIOUS_FILE, RESULTS_FILE);
        }
        self.begun = Some(b);
        first
    }

    /// Writes `results` once the folder holds a result of this run; before
    /// that, nothing is touched.
    pub fn write_if_begun(&self, results: &RunResults) -> anyhow::Result<()> {
        if self.begun.is_some() {
            results.write_in(self.out)?;
        }
        Ok(())
    }

    /// What preparing the folder did; None when nothing was written.
    pub fn into_begun(self) -> Option<Begun> {
        self.begun
    }
}
