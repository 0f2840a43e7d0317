//! The event handler: what a run does as its jobs go (`execute::Event`):
//! the progress line, the side's settings written before a job, each
//! experiment's table as it finishes and the results written after it, and
//! the stop: on SIGINT (Ctrl-C), SIGTERM or SIGHUP, or when stdout's reader
//! goes away (then as if signalled SIGPIPE).

use super::busy::BusyProbe;
use super::execute::{self, Event, Spent};
use super::plan::{Plan, Planned, Slot};
use super::progress::{self, Progress};
use super::record::{self, Ending};
use super::writer::Writer;
use crate::measure::worker::{self, StopFlag};
use crate::report::{folder, table, terse, View};
use crate::results::{ExperimentResult, RunResults, Status};
use std::sync::Arc;

/// What a run prints while it measures.
#[derive(Clone, Copy, Debug)]
pub struct Show {
    /// Nothing on stdout, no progress bar, no warnings.
    pub quiet: bool,
    /// Each experiment's table as it finishes (with the header first).
    pub tables: bool,
    pub verbose: bool,
    /// The columns the tables are fitted to.
    pub width: usize,
    /// Warnings go to stderr as they come: stdout will not show them (an
    /// export has it).
    pub warn: bool,
    /// `out` is a report folder: prepared (the earlier results kept as
    /// previous.json, its other files cleared) at the first result, so a
    /// run that ends before it has one leaves the folder as it was.
    pub folder: bool,
}

impl Show {
    /// Not a word, and `out` is no report folder: a command that measures
    /// what it needs itself (advise, predict).
    pub fn silent() -> Show {
        Show {
            quiet: true,
            tables: false,
            verbose: false,
            width: terse::DEFAULT_WIDTH,
            warn: false,
            folder: false,
        }
    }

    /// The progress line only (none when `quiet`), into a report folder: a
    /// command that speaks once the run is over (`ab`).
    pub fn progress_only(quiet: bool) -> Show {
        Show {
            quiet,
            tables: false,
            verbose: false,
            width: terse::width(),
            warn: false,
            folder: true,
        }
    }

    /// `tasklab run`'s, into a report folder: the tables as they come when
    /// `view` asks for them and stdout is free; when an export has stdout,
    /// the warnings on stderr instead.
    pub fn run(quiet: bool, stdout_free: bool, view: &View) -> Show {
        Show {
            quiet,
            tables: !quiet && stdout_free && view.tables(),
            verbose: view.verbose,
            width: view.width,
            warn: !quiet && !stdout_free,
            folder: true,
        }
    }

    /// For one run of a `--repeat` series: the folder is prepared by the
    /// `first` run only (a later one writes into it as it is), and the
    /// tables come with the `last`.
    pub fn of_repeat(self, first: bool, last: bool) -> Show {
        Show {
            tables: self.tables && last,
            folder: first,
            ..self
        }
    }
}

/// What measuring a plan gave: the results (status partial when
/// interrupted), whether an experiment failed, and the signal that stopped
/// the run early (SIGPIPE: its stdout's reader went away).
pub struct Measured {
    pub results: RunResults,
    pub any_failed: bool,
    pub stopped_by: Option<i32>,
    /// What preparing the report folder did; None when the run ended before
    /// its first result, and nothing in the folder was touched.
    pub begun: Option<folder::Begun>,
}

/// A flag that SIGINT, SIGTERM and SIGHUP set (to the signal's number, for
/// the record) instead of killing the process: a run stops on it between
/// jobs. A command that must not be killed before it measures (`ab`, while
/// it tries its settings) makes it early and hands it to
/// [`super::measure_with`].
pub fn stop_on_signals() -> anyhow::Result<Arc<StopFlag>> {
    let stop = Arc::new(StopFlag::new(0));
    for sig in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ] {
        signal_hook::flag::register_usize(sig, Arc::clone(&stop), sig as usize)?;
    }
    Ok(stop)
}

/// Called before each job with the experiment it measures (`ab` writes its
/// side's kernel settings there); an error from it ends the run.
pub type Before<'a> = &'a mut dyn FnMut(&Planned) -> anyhow::Result<()>;

/// A run while it measures: what it shows, what it has, where it writes.
pub struct Handler<'a> {
    plan: &'a Plan,
    show: Show,
    stop: &'a StopFlag,
    progress: Progress,
    redacted: bool,
    busy: BusyProbe,
    before: Before<'a>,
    /// Whether an experiment's helper is built: asked at the first job that
    /// uses it, and again after a job that built it.
    helper_ready: Option<bool>,
    results: RunResults,
    writer: Writer<'a>,
    any_failed: bool,
    adaptive_jobs: usize,
}

/// What a [`Handler`] is made of.
pub struct Parts<'a> {
    pub plan: &'a Plan,
    pub show: Show,
    pub stop: &'a StopFlag,
    pub progress: Progress,
    pub busy: BusyProbe,
    pub before: Before<'a>,
    pub results: RunResults,
    pub writer: Writer<'a>,
}

impl<'a> Handler<'a> {
    pub fn new(p: Parts<'a>) -> Handler<'a> {
        Handler {
            plan: p.plan,
            show: p.show,
            stop: p.stop,
            progress: p.progress,
            redacted: p.results.env.redacted,
            busy: p.busy,
            before: p.before,
            helper_ready: None,
            results: p.results,
            writer: p.writer,
            any_failed: false,
            adaptive_jobs: 0,
        }
    }

    /// The results so far.
    pub fn results(&self) -> &RunResults {
        &self.results
    }

    /// Prints `s` on stdout around the progress line. Once stdout's reader
    /// has gone, nothing more is printed and the run stops as if signalled
    /// SIGPIPE.
    pub fn say(&self, s: &str) {
        if self.show.quiet || worker::stopped_by(self.stop) == Some(crate::sys::SIGPIPE) {
            return;
        }
        let s = &crate::results::redact::text_if(self.redacted, s);
        self.progress.suspend(|| {
            if let Err(e) = execute::print_out(s) {
                if e.kind() == std::io::ErrorKind::BrokenPipe {
                    worker::request_stop(self.stop, crate::sys::SIGPIPE);
                }
            }
        });
    }

    /// Hears one event of the schedule.
    pub fn on(&mut self, ev: Event) -> anyhow::Result<()> {
        match ev {
            Event::Start(planned, slot) => self.start(planned, slot)?,
            Event::More { jobs, adaptive } => {
                if adaptive {
                    self.adaptive_jobs += jobs;
                }
                self.progress.more(jobs, adaptive);
            }
            Event::Left {
                after_s,
                job_s,
                settled,
            } => self.progress.left(after_s, job_s, settled),
            Event::End => {
                self.busy.sample();
                self.progress.end();
                if self.helper_ready == Some(false) {
                    self.helper_ready = None;
                }
            }
            Event::Done(result) => self.done(*result)?,
        }
        Ok(())
    }

    fn start(&mut self, planned: &Planned, slot: Slot) -> anyhow::Result<()> {
        (self.before)(planned)?;
        let name = progress::job_name(planned, slot, self.plan);
        // The first job that uses a helper builds it, unless it is cached.
        let helper_ready = &mut self.helper_ready;
        let building =
            planned.exp.helper.as_ref().filter(|h| {
                (h.used)(&planned.params) && !*helper_ready.get_or_insert_with(h.ready)
            });
        self.progress.start(match building {
            Some(h) => format!("building {} (first run only) · {name}", h.name),
            None => name,
        });
        Ok(())
    }

    /// An experiment finished: its table, and the results written.
    fn done(&mut self, mut result: ExperimentResult) -> anyhow::Result<()> {
        // A clock-bound seed figure is compared scaled to the clock this
        // run measured.
        crate::results::set_seed_clock(&mut result.metrics, self.results.calibration.measured_mhz);
        self.any_failed |= result.status == Status::Failed || result.partial();
        if self.show.tables {
            self.say(&table::experiment(
                &result,
                self.show.verbose,
                self.show.width,
            ));
        }
        record::add(&mut self.results, result);
        // An experiment only interrupted, with nothing measured, is no
        // result to replace the folder's report with.
        let something = worker::stopped_by(self.stop).is_none()
            || self
                .results
                .experiments
                .iter()
                .any(|e| !e.metrics.is_empty() || e.status != Status::Failed);
        if self.writer.begun() || something {
            self.writer.write(&self.results)?;
        }
        Ok(())
    }

    /// The schedule is over (or stopped): the line cleared, the busy
    /// probe's warnings, the results closed and written a last time.
    pub fn finish(mut self, spent: Spent) -> anyhow::Result<Measured> {
        self.progress.finish();
        let (busy, busy_warnings) = self.busy.finish();
        if self.show.warn {
            for w in &busy_warnings {
                self.progress.suspend(|| eprintln!("warning: {w}"));
            }
        }
        let stopped_by = worker::stopped_by(self.stop);
        let end = Ending {
            busy,
            busy_warnings,
            interrupted_at: stopped_by.map(|_| self.progress.jobs()),
            adaptive_jobs: self.adaptive_jobs,
            spent,
        };
        record::finish(&mut self.results, self.plan, end);
        self.writer.write_if_begun(&self.results)?;
        Ok(Measured {
            results: self.results,
            any_failed: self.any_failed,
            stopped_by,
            begun: self.writer.into_begun(),
        })
    }
}
