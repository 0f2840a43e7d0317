//! `tasklab run`: check everything the user asked for ([`plan`]), then run
//! each experiment's jobs in fresh workers ([`execute`]), and write the
//! results after every experiment so a later failure or a Ctrl-C loses
//! nothing already measured.

pub mod budget;
pub mod busy;
pub mod events;
pub mod execute;
pub mod limits;
pub mod plan;
pub mod progress;
pub mod record;
pub mod summarise;
pub mod twin;
pub mod writer;

use crate::cli::{OutputArgs, ProfileArg, RunArgs};
use crate::env::IdlePollPlan;
use crate::error::usage;
use crate::measure::worker::StopFlag;
use crate::measure::{scratch::Scratch, sizing::Profile, timer};
use crate::report::{self, export, folder, terse};
use crate::results::{RunResults, RunStatus, RESULTS_FILE};
use crate::sys::safefile::{OutDir, Trust};
use crate::sys::sysfs_knob;
pub use events::{stop_on_signals, Measured, Show};
use events::{Before, Handler, Parts};
use execute::JobContext;
use progress::Progress;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

pub fn profile_of(p: ProfileArg) -> Profile {
    match p {
        ProfileArg::Quick => Profile::Quick,
        ProfileArg::Thorough => Profile::Thorough,
    }
}

/// What the output flags ask of the report, in the report's own terms:
/// `--csv` and `--markdown` are exports to stdout (`-`).
pub fn output_of(a: &OutputArgs) -> report::Output {
    let stdout = |asked: bool| asked.then(|| "-".to_string());
    report::Output {
        export_json: a.export_json.clone(),
        export_csv: a.export_csv.clone().or_else(|| stdout(a.csv)),
        export_markdown: a.export_markdown.clone().or_else(|| stdout(a.markdown)),
        export_openmetrics: a.export_openmetrics.clone(),
        tables: a.tables,
        verbose: a.verbose,
    }
}

/// `--why` and `--why-rate`, checked before anything is measured, and
/// whether this machine lets the run sample (a refusal is no error: the
/// run goes on and says why).
pub fn why_of(
    m: &crate::cli::MeasureArgs,
) -> Result<Option<crate::measure::why::WhyPlan>, crate::error::UsageError> {
    use crate::measure::why::{WhyPlan, DEFAULT_RATE_HZ, RATE_RANGE};
    let rate = match m.why_rate {
        None => DEFAULT_RATE_HZ,
        Some(_) if m.why.is_none() => {
            return Err(crate::error::UsageError(
                "--why-rate needs --why (the rate of its sampling)".into(),
            ))
        }
        Some(r) if r >= 0 && RATE_RANGE.contains(&(r as u64)) => r as u64,
        Some(r) => {
            return Err(crate::error::UsageError(format!(
                "--why-rate takes samples per second from {} to {}, not {r}",
                RATE_RANGE.start(),
                RATE_RANGE.end()
            )))
        }
    };
    Ok(m.why.map(|_| WhyPlan::here(rate)))
}

/// The run `args` asks for, planned and checked, without measuring.
pub fn plan_of(args: &RunArgs, env: &crate::env::Env) -> anyhow::Result<plan::Plan> {
    let why = why_of(&args.measure)?;
    let mut planned = plan::plan(
        &plan::Request {
            names: &args.measure.names,
            profile: profile_of(args.measure.profile),
            params: &args.measure.params,
            presets: &[],
            pin: args.measure.pin.as_deref(),
            timeout_s: args.measure.timeout,
            rounds: args.measure.rounds,
            precision_pct: args.precision,
            budget_s: args.budget,
            seed: args.measure.seed,
        },
        env,
    )?;
    planned.why = why;
    Ok(planned)
}

/// The most runs `--repeat` (and `calibrate --runs`) asks for.
pub const MAX_REPEAT: usize = 100;

/// The results file of run `k` (from 1) of `--repeat`.
pub fn repeat_file(k: usize) -> String {
    format!("results-{k}.json")
}

pub fn run(args: &RunArgs) -> anyhow::Result<ExitCode> {
    Ok(run_series(args, true)?.0)
}

/// `--repeat N`, checked before anything is measured.
pub fn repeat_of(args: &RunArgs) -> Result<usize, crate::error::UsageError> {
    if let Some(p) = args.pause.pause {
        if !(p.is_finite() && (0.0..=86400.0).contains(&p)) {
            return Err(crate::error::UsageError(format!(
                "--pause takes seconds from 0 to 86400, not {p}"
            )));
        }
    }
    match args.repeat {
        None => Ok(1),
        Some(n) if (1..=MAX_REPEAT).contains(&n) => Ok(n),
        Some(n) => Err(crate::error::UsageError(format!(
            "--repeat takes a number of runs from 1 to {MAX_REPEAT}, not {n}"
        ))),
    }
}

/// A run as the command line asks for it, every input and destination
/// checked before anything is measured.
struct Series<'a> {
    args: &'a RunArgs,
    repeat: usize,
    env: crate::env::Env,
    plan: plan::Plan,
    idle: Option<IdlePollPlan>,
    exports: Vec<export::Export>,
    place: folder::Place,
    out_path: PathBuf,
    out: OutDir,
    baseline: Option<crate::baseline::Save>,
    /// No export has stdout to itself.
    stdout_free: bool,
    view: report::View,
    show: Show,
}

impl<'a> Series<'a> {
    fn check(args: &'a RunArgs) -> anyhow::Result<Series<'a>> {
        let repeat = repeat_of(args)?;
        if let Some(name) = &args.save_baseline {
            crate::baseline::check_name(name)?;
        }
        // A killed run's settings were put back when the command started
        // (`lib::restore_settings`); a live run's are its own.
        let busy = sysfs_held_elsewhere();
        let mut env = crate::env::probe();
        env.set_label(args.label.as_deref(), args.redact)?;
        let plan = plan_of(args, &env)?;
        let idle = idle_poll_of(args.idle_poll, busy)?;
        // Every destination is checked before anything is measured.
        let output = output_of(&args.output);
        let exports = export::plan(&output)?;
        // The default suite writes tasklab-report/; named experiments their
        // own folder under it (tasklab-report/partial/NAMES), so the full
        // report stays.
        let place = folder::Place::of(
            args.out.as_deref(),
            Path::new(crate::cli::DEFAULT_OUT),
            &args.measure.names,
        );
        let out_path = place.path();
        let out = place.open()?;
        let baseline = crate::baseline::Save::prepare(args.save_baseline.as_deref())?;
        // An export on stdout has stdout to itself.
        let stdout_free = !export::takes_stdout(&exports);
        let mut view = output.view(terse::width());
        // Experiments named: their tables are the answer, shown by default.
        view.tables |= !args.measure.names.is_empty();
        let show = Show::run(args.measure.quiet, stdout_free, &view);
        Ok(Series {
            args,
            repeat,
            env,
            plan,
            idle,
            exports,
            place,
            out_path,
            out,
            baseline,
            stdout_free,
            view,
            show,
        })
    }

    /// Every run of the series: the last one measured, the runs that
    /// completed whole, and what preparing the folder did at the first
    /// run's first result (None: nothing was measured).
    fn measure_all(&self) -> anyhow::Result<(Measured, Vec<RunResults>, Option<folder::Begun>)> {
        let (args, repeat) = (self.args, self.repeat);
        let mut complete = Vec::new();
        let mut first_begun = None;
        let mut k = 1;
        loop {
            // Each run its own shuffled order, reproducible from the first's seed.
            let replanned;
            let plan_k = if k == 1 {
                &self.plan
            } else {
                let mut a = args.clone();
                a.measure.seed = Some(self.plan.seed.wrapping_add(k as u64 - 1));
                replanned = plan_of(&a, &self.env)?;
                &replanned
            };
            if repeat > 1 && !args.measure.quiet {
                eprintln!("run {k} of {repeat} (seed {})", plan_k.seed);
            }
            let last = k == repeat;
            // The folder is prepared at the first run's first result; a
            // later run of the series writes into it as it is.
            let show = self.show.of_repeat(k == 1, last);
            let mut m = measure(
                plan_k,
                self.env.clone(),
                &self.out,
                show,
                self.idle.as_ref(),
            )?;
            if k == 1 {
                first_begun = m.begun.take();
                if first_begun.is_none() {
                    return Ok((m, complete, None));
                }
            }
            if repeat > 1 {
                self.out.write(&repeat_file(k), &m.results.to_json()?)?;
            }
            let whole = m.results.status == RunStatus::Complete && m.stopped_by.is_none();
            if whole {
                complete.push(m.results.clone());
            }
            if last || !whole {
                return Ok((m, complete, first_begun));
            }
            k += 1;
            if let Some(p) = args.pause.pause.filter(|p| *p > 0.0) {
                std::thread::sleep(std::time::Duration::from_secs_f64(p));
            }
        }
    }

    /// Nothing measured (a signal before the first result): the folder
    /// keeps the report it had.
    fn nothing_measured(&self, stopped_by: Option<i32>) -> ExitCode {
        let at = self.out_path.display();
        if stopped_by == Some(crate::sys::SIGPIPE) {
            eprintln!("stdout was closed before anything was measured: {at} is left as it was");
            return ExitCode::from(141);
        }
        eprintln!("interrupted before anything was measured: {at} is left as it was");
        ExitCode::from(130)
    }

    /// The report folder, the baseline, the exports and the terminal's
    /// report of `results`. Returns whether stdout's reader went away, and
    /// the baseline saved (its name, and its file when the run completed).
    #[allow(clippy::type_complexity)]
    fn write_all(
        &self,
        results: &RunResults,
        begun: &folder::Begun,
        stopped_by: Option<i32>,
        summary: bool,
    ) -> anyhow::Result<(bool, Option<(&str, Option<PathBuf>)>)> {
        let quiet = self.args.measure.quiet;
        // The reader of stdout may go away (`tasklab run | head`): the
        // files are written all the same, and the run ends with 141, as
        // SIGPIPE would.
        let mut stdout_gone = stopped_by == Some(crate::sys::SIGPIPE);
        report::write_folder(results, &self.out)?;
        let saved = match &self.baseline {
            Some(b) => Some((b.name(), b.keep(results)?)),
            None => None,
        };
        let print = |t: &str| -> anyhow::Result<()> {
            if stdout_gone {
                Ok(())
            } else {
                stdout_write(t)
            }
        };
        stdout_gone |=
            execute::broken_pipe(export::write(results, &self.exports, &self.out_path, print))?;
        let paths = terse::Paths {
            report: self.out.shown("report.html"),
            results: self.out.shown(RESULTS_FILE),
            previous: begun.previous.clone(),
        };
        if !quiet {
            for n in &begun.notes {
                eprintln!("note: {n}");
            }
        }
        if summary && !quiet && self.stdout_free && !stdout_gone {
            let text = if self.show.tables {
                // The header and the tables came as the run went.
                terse::body(results, self.view.width, false, &paths, terse::MAX_LINES)
            } else {
                report::terminal(results, self.view, &paths)
            };
            let text = crate::results::redact::text_for(&results.env, &text);
            stdout_gone |= execute::broken_pipe(stdout_write(&text))?;
        }
        Ok((stdout_gone, saved))
    }

    /// Where the files went, on stderr: the results and report (when stdout
    /// had an export), a named run's own folder, the baseline.
    fn tell_where(&self, saved: Option<(&str, Option<PathBuf>)>) {
        if self.args.measure.quiet {
            return;
        }
        if !self.stdout_free {
            eprintln!(
                "results: {}\nreport:  {}",
                self.out.shown(RESULTS_FILE).display(),
                self.out.shown("report.html").display()
            );
        }
        if let folder::Place::Partial { root, .. } = &self.place {
            let full = if root.join(RESULTS_FILE).is_file() {
                format!("{}/ keeps the full run's report", root.display())
            } else {
                format!("a run of the whole suite writes {}/", root.display())
            };
            eprintln!(
                "this run named experiments, so its report has a folder of its own, {}/; {full}",
                self.out_path.display()
            );
        }
        match saved {
            Some((name, Some(p))) => eprintln!(
                "baseline {name} saved: {} (tasklab compare --baseline {name} compares a later run against it)",
                p.display()
            ),
            Some((name, None)) => {
                eprintln!("baseline {name} not saved: the run did not complete")
            }
            None => {}
        }
    }

    /// The files written and the words said for the series' last run, and
    /// the exit status.
    fn finish(
        &self,
        m: Measured,
        begun: &folder::Begun,
        summary: bool,
    ) -> anyhow::Result<ExitCode> {
        let results = m.results.redacted();
        let (stdout_gone, saved) = self.write_all(&results, begun, m.stopped_by, summary)?;
        if stdout_gone {
            eprintln!(
                "stdout was closed: results written to {}; the run ended early",
                self.out.shown(RESULTS_FILE).display()
            );
            return Ok(ExitCode::from(141));
        }
        self.tell_where(saved);
        if results.status == RunStatus::Partial {
            let how = results
                .interrupted
                .map_or("interrupted".to_string(), |i| i.words(&results));
            eprintln!("{how}; partial results written and marked partial");
            return Ok(ExitCode::from(130));
        }
        if m.any_failed {
            eprintln!("some experiments failed or are partial (see above)");
            return Ok(ExitCode::from(1));
        }
        if self.repeat > 1 && !self.args.measure.quiet {
            eprintln!(
                "{} runs: {} to {}; results.json and the report are the last run's",
                self.repeat,
                self.out.shown(&repeat_file(1)).display(),
                self.out.shown(&repeat_file(self.repeat)).display()
            );
        }
        Ok(ExitCode::SUCCESS)
    }
}

/// The run `args` asks for, `--repeat` times into one folder: each run's
/// results as `results-K.json` (when repeated), the last as `results.json`
/// with its report. Returns the exit status and every run that completed.
/// With `summary` false the terminal gets no report at the end (a command
/// that makes its own, `calibrate`).
pub fn run_series(args: &RunArgs, summary: bool) -> anyhow::Result<(ExitCode, Vec<RunResults>)> {
    let series = Series::check(args)?;
    let (last, complete, first_begun) = series.measure_all()?;
    let code = match first_begun {
        None => series.nothing_measured(last.stopped_by),
        Some(begun) => series.finish(last, &begun, summary)?,
    };
    Ok((code, complete))
}

/// Writes `t` to standard output: a closed pipe stays an `io::Error` (the
/// run then ends as SIGPIPE would, [`execute::broken_pipe`]); any other
/// error is [`crate::error::OutputError`], exit 1 with "cannot write to
/// standard output: …", as every other command says it.
fn stdout_write(t: &str) -> anyhow::Result<()> {
    execute::print_out(t).map_err(|e| {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            e.into()
        } else {
            crate::error::OutputError(e).into()
        }
    })
}

/// Measures `req` without a word on the terminal, into `out/results.json`
/// (no report): for a command that measures what it needs itself (advise).
/// A Ctrl-C leaves the results marked partial; a failed experiment keeps
/// what it measured.
pub fn run_request(req: &plan::Request, out: &Path) -> anyhow::Result<RunResults> {
    let env = crate::env::probe();
    let plan = plan::plan(req, &env)?;
    let out = report::open_out(out, Trust::Default)?;
    Ok(measure(&plan, env, &out, Show::silent(), None)?.results)
}

/// Why settings under /sys cannot be changed now: another live run holds
/// a restore record (a killed run's record was applied when this command
/// started: `lib::restore_settings`).
fn sysfs_held_elsewhere() -> Option<String> {
    if !crate::sys::is_root() {
        return None;
    }
    sysfs_knob::recover(Path::new("/"))
        .err()
        .map(|e| e.to_string())
}

/// `--idle-poll`, checked before anything is measured: root, a run-time
/// setting that makes idle CPUs poll, and no other run holding one.
fn idle_poll_of(asked: bool, busy: Option<String>) -> anyhow::Result<Option<IdlePollPlan>> {
    if !asked {
        return Ok(None);
    }
    if !crate::sys::is_root() {
        return usage("--idle-poll changes settings under /sys/ and needs root");
    }
    if let Some(why) = busy {
        return usage(format!("--idle-poll: {why}"));
    }
    match crate::env::idle_poll_plan(Path::new("/")) {
        Ok(p) => Ok(Some(p)),
        Err(why) => usage(format!("--idle-poll: {why}")),
    }
}

/// Runs every planned experiment's jobs in fresh workers, writing
/// `out/results.json` after each experiment so that a later failure or a
/// Ctrl-C loses nothing already measured.
pub fn measure(
    plan: &plan::Plan,
    env: crate::env::Env,
    out: &OutDir,
    show: Show,
    idle: Option<&IdlePollPlan>,
) -> anyhow::Result<Measured> {
    measure_with(plan, env, out, show, idle, stop_on_signals()?, &mut |_| {
        Ok(())
    })
}

/// [`measure`], stopping on `stop` ([`stop_on_signals`]), with `before`
/// called before each job with the experiment it measures (`ab` writes its
/// side's kernel settings there). An error from it ends the run with that
/// error. A flag already set when it starts measures nothing.
pub fn measure_with(
    plan: &plan::Plan,
    env: crate::env::Env,
    out: &OutDir,
    show: Show,
    idle: Option<&IdlePollPlan>,
    stop: Arc<StopFlag>,
    before: Before,
) -> anyhow::Result<Measured> {
    // Changed once a signal only stops the run; restored when this drops,
    // however `measure` ends (a kill: by the next run, from the record).
    let mut env = env;
    let _idle = match idle {
        Some(p) => {
            let held = sysfs_knob::hold(Path::new("/"), &p.knobs)?;
            env.facts.cpuidle = crate::env::cpuidle_at(Path::new("/"));
            Some((held, p.how.clone()))
        }
        None => None,
    };
    let progress = Progress::new(plan, !show.quiet && std::io::stderr().is_terminal());
    // How much other work there is, before anything of ours runs.
    // Only the CPUs tasklab may use count: --pin's, or its affinity.
    let ours = plan
        .pin
        .clone()
        .or_else(|| crate::sys::allowed_cpus().ok())
        .unwrap_or_default();
    let busy = busy::BusyProbe::before(
        5,
        std::time::Duration::from_millis(20),
        ours,
        plan.pin.is_some(),
    );
    let calibration = timer::calibrate(env.tsc_invariant);
    env.measured_mhz = calibration.measured_mhz;
    let scratch = Scratch::new()?;
    let idle_how = _idle.as_ref().map(|(_, how)| how.as_str());
    let results = record::open(plan, env, calibration.clone(), idle_how);
    let mut handler = Handler::new(Parts {
        plan,
        show,
        stop: &stop,
        progress,
        busy,
        before,
        results,
        writer: writer::Writer::new(out, show.folder),
    });
    if show.tables {
        handler.say(&terse::header(handler.results(), show.width));
        handler.say(&report::timer_line(handler.results(), show.width));
    }
    let ctx = JobContext {
        profile: plan.profile,
        sizing: plan.sizing,
        calibration: &calibration,
        pin: plan.pin.clone(),
        scratch: scratch.path(),
        stop: &stop,
    };
    let spent = execute::run(plan, &ctx, |ev| handler.on(ev))?;
    handler.finish(spent)
}
