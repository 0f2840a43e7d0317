//! `tasklab run`: check everything the user asked for ([`plan`]), then run
//! each experiment's jobs in fresh workers ([`execute`]), and write the
//! results after every experiment so a later failure or a Ctrl-C loses
//! nothing already measured.

pub mod budget;
pub mod busy;
pub mod execute;
pub mod limits;
pub mod plan;
pub mod progress;
pub mod summarise;

use crate::cli::{OutputArgs, ProfileArg, RunArgs};
use crate::env::IdlePollPlan;
use crate::error::usage;
use crate::measure::worker::{self, StopFlag};
use crate::measure::{scratch::Scratch, sizing::Profile, timer};
use crate::report::{self, export, folder, table, terse};
use crate::results::{RunResults, RunStatus, RESULTS_FILE, SCHEMA_NAME, SCHEMA_VERSION};
use crate::sys::safefile::{OutDir, Trust};
use crate::sys::sysfs_knob;
use execute::{Event, JobContext};
use progress::Progress;
use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::SystemTime;

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

fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// The run `args` asks for, planned and checked, without measuring.
pub fn plan_of(args: &RunArgs, env: &crate::env::Env) -> anyhow::Result<plan::Plan> {
    plan::plan(
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
    )
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

/// The run `args` asks for, `--repeat` times into one folder: each run's
/// results as `results-K.json` (when repeated), the last as `results.json`
/// with its report. Returns the exit status and every run that completed.
/// With `summary` false the terminal gets no report at the end (a command
/// that makes its own, `calibrate`).
pub fn run_series(args: &RunArgs, summary: bool) -> anyhow::Result<(ExitCode, Vec<RunResults>)> {
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
    // The default suite writes tasklab-report/; named experiments their own
    // folder under it (tasklab-report/partial/NAMES), so the full report stays.
    let place = folder::Place::of(
        args.out.as_deref(),
        Path::new(crate::cli::DEFAULT_OUT),
        &args.measure.names,
    );
    let out_path = place.path();
    let out = place.open()?;
    let baseline = crate::baseline::Save::prepare(args.save_baseline.as_deref())?;
    let quiet = args.measure.quiet;
    // An export on stdout has stdout to itself.
    let stdout_free = !export::takes_stdout(&exports);
    let mut view = output.view(terse::width());
    // Experiments named: their tables are the answer, shown by default.
    view.tables |= !args.measure.names.is_empty();
    let show = Show {
        quiet,
        tables: !quiet && stdout_free && view.tables(),
        verbose: view.verbose,
        width: view.width,
        warn: !quiet && !stdout_free,
        folder: true,
    };
    let mut complete = Vec::new();
    let mut k = 1;
    let mut first_begun = None;
    let Measured {
        results,
        any_failed,
        stopped_by,
        begun,
    } = loop {
        // Each run its own shuffled order, reproducible from the first's seed.
        let replanned;
        let plan_k = if k == 1 {
            &plan
        } else {
            let mut a = args.clone();
            a.measure.seed = Some(plan.seed.wrapping_add(k as u64 - 1));
            replanned = plan_of(&a, &env)?;
            &replanned
        };
        if repeat > 1 && !quiet {
            eprintln!("run {k} of {repeat} (seed {})", plan_k.seed);
        }
        let last = k == repeat;
        // The folder is prepared at the first run's first result; a later
        // run of the series writes into it as it is.
        let show_k = Show {
            tables: show.tables && last,
            folder: k == 1,
            ..show
        };
        let mut m = measure(plan_k, env.clone(), &out, show_k, idle.as_ref())?;
        if k == 1 {
            first_begun = m.begun.take();
            if first_begun.is_none() {
                break m;
            }
        }
        if repeat > 1 {
            out.write(&repeat_file(k), &m.results.to_json()?)?;
        }
        let whole = m.results.status == RunStatus::Complete && m.stopped_by.is_none();
        if whole {
            complete.push(m.results.clone());
        }
        if last || !whole {
            break m;
        }
        k += 1;
        if let Some(p) = args.pause.pause.filter(|p| *p > 0.0) {
            std::thread::sleep(std::time::Duration::from_secs_f64(p));
        }
    };
    let _ = begun;
    let results = results.redacted();
    // Nothing measured (a signal before the first result): the folder keeps
    // the report it had.
    let Some(begun) = first_begun else {
        if stopped_by == Some(crate::sys::SIGPIPE) {
            eprintln!(
                "stdout was closed before anything was measured: {} is left as it was",
                out_path.display()
            );
            return Ok((ExitCode::from(141), complete));
        }
        eprintln!(
            "interrupted before anything was measured: {} is left as it was",
            out_path.display()
        );
        return Ok((ExitCode::from(130), complete));
    };
    let results_path = out.shown(RESULTS_FILE);
    let was_interrupted = results.status == RunStatus::Partial;
    // The reader of stdout may go away (`tasklab run | head`): the files are
    // written all the same, and the run ends with 141, as SIGPIPE would.
    let mut stdout_gone = stopped_by == Some(crate::sys::SIGPIPE);
    report::write_folder(&results, &out)?;
    let saved = match &baseline {
        Some(b) => Some((b.name(), b.keep(&results)?)),
        None => None,
    };
    let print = |t: &str| -> anyhow::Result<()> {
        if stdout_gone {
            Ok(())
        } else {
            stdout_write(t)
        }
    };
    stdout_gone |= execute::broken_pipe(export::write(&results, &exports, &out_path, print))?;
    let paths = terse::Paths {
        report: out.shown("report.html"),
        results: results_path.clone(),
        previous: begun.previous.clone(),
    };
    if !quiet {
        for n in &begun.notes {
            eprintln!("note: {n}");
        }
    }
    if summary && !quiet && stdout_free && !stdout_gone {
        let text = if show.tables {
            // The header and the tables came as the run went.
            terse::body(&results, view.width, false, &paths, terse::MAX_LINES)
        } else {
            report::terminal(&results, view, &paths)
        };
        let text = crate::results::redact::text_for(&results.env, &text);
        stdout_gone |= execute::broken_pipe(stdout_write(&text))?;
    }
    if stdout_gone {
        eprintln!(
            "stdout was closed: results written to {}; the run ended early",
            results_path.display()
        );
        return Ok((ExitCode::from(141), complete));
    }
    if !quiet && !stdout_free {
        eprintln!(
            "results: {}\nreport:  {}",
            results_path.display(),
            out.shown("report.html").display()
        );
    }
    if !quiet {
        if let folder::Place::Partial { root, .. } = &place {
            let full = if root.join(RESULTS_FILE).is_file() {
                format!("{}/ keeps the full run's report", root.display())
            } else {
                format!("a run of the whole suite writes {}/", root.display())
            };
            eprintln!(
                "this run named experiments, so its report has a folder of its own, {}/; {full}",
                out_path.display()
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
    if was_interrupted {
        let how = results
            .interrupted
            .map_or("interrupted".to_string(), |i| i.words(&results));
        eprintln!("{how}; partial results written and marked partial");
        return Ok((ExitCode::from(130), complete));
    }
    if any_failed {
        eprintln!("some experiments failed or are partial (see above)");
        return Ok((ExitCode::from(1), complete));
    }
    if repeat > 1 && !quiet {
        eprintln!(
            "{repeat} runs: {} to {}; results.json and the report are the last run's",
            out.shown(&repeat_file(1)).display(),
            out.shown(&repeat_file(repeat)).display()
        );
    }
    Ok((ExitCode::SUCCESS, complete))
}

/// The fewest and the most rounds among the series the Summary's
/// quantities are read from (`experiments::summary_quantities`); None when
/// the run measured none of them.
pub fn summary_rounds(r: &RunResults) -> Option<(usize, usize)> {
    let rounds: Vec<usize> = crate::experiments::summary_quantities(r)
        .iter()
        .filter_map(|q| Some((&q.headline, r.measured(q.experiment)?)))
        .flat_map(|(h, e)| [h.find(e), h.find_from(e)])
        .flatten()
        .map(|m| m.summary.rounds)
        .collect();
    Some((*rounds.iter().min()?, *rounds.iter().max()?))
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
    let show = Show {
        quiet: true,
        tables: false,
        verbose: false,
        width: terse::DEFAULT_WIDTH,
        warn: false,
        folder: false,
    };
    Ok(measure(&plan, env, &out, show, None)?.results)
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

/// What an interrupted run had ([`crate::results::Interruption::words`]).
pub fn interrupted_words(r: &RunResults, done: usize, total: usize) -> String {
    crate::results::Interruption {
        job: done,
        jobs: total,
    }
    .words(r)
}

/// A flag that SIGINT, SIGTERM and SIGHUP set (to the signal's number, for
/// the record) instead of killing the process: a run stops on it between
/// jobs. A command that must not be killed before it measures (`ab`, while
/// it tries its settings) makes it early and hands it to [`measure_with`].
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
    before: &mut dyn FnMut(&plan::Planned) -> anyhow::Result<()>,
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

    let Show {
        quiet,
        tables,
        verbose,
        width,
        warn,
        folder: is_folder,
    } = show;
    let progress = Progress::new(plan, !quiet && std::io::stderr().is_terminal());
    // Once stdout's reader has gone, nothing more is printed and the run
    // stops as if signalled SIGPIPE.
    let redacted = env.redacted;
    let say = |s: &str| {
        if !quiet && worker::stopped_by(&stop) != Some(crate::sys::SIGPIPE) {
            let s = &crate::results::redact::text_if(redacted, s);
            progress.suspend(|| {
                if let Err(e) = execute::print_out(s) {
                    if e.kind() == std::io::ErrorKind::BrokenPipe {
                        worker::request_stop(&stop, crate::sys::SIGPIPE);
                    }
                }
            });
        }
    };

    // How much other work there is, before anything of ours runs.
    // Only the CPUs tasklab may use count: --pin's, or its affinity.
    let ours = plan
        .pin
        .clone()
        .or_else(|| crate::sys::allowed_cpus().ok())
        .unwrap_or_default();
    let mut busy = busy::BusyProbe::before(
        5,
        std::time::Duration::from_millis(20),
        ours,
        plan.pin.is_some(),
    );
    let calibration = timer::calibrate(env.tsc_invariant);
    env.measured_mhz = calibration.measured_mhz;
    let scratch = Scratch::new()?;

    let mut results = RunResults {
        schema: SCHEMA_NAME.into(),
        schema_version: SCHEMA_VERSION,
        tool_version: env!("CARGO_PKG_VERSION").into(),
        started_unix_s: unix_now(),
        finished_unix_s: None,
        profile: plan.profile.name().into(),
        status: RunStatus::Partial,
        run_id: Some(crate::results::new_run_id()),
        build: Some(crate::results::Build::this()),
        pin: plan.pin.clone(),
        rounds: plan.sizing.min_rounds,
        seed: Some(plan.seed),
        env,
        calibration,
        warnings: Vec::new(),
        busy: None,
        groups: crate::experiments::group_records(),
        experiments: Vec::new(),
        precision: None,
        ab: None,
        interrupted: None,
    };
    if let Some((_, how)) = &_idle {
        results.warnings.push(format!(
            "--idle-poll: {how}; the old values are restored when the run ends"
        ));
    }
    if tables {
        say(&terse::header(&results, width));
        say(&report::timer_line(&results, width));
    }

    let calibration = results.calibration.clone();
    let ctx = JobContext {
        profile: plan.profile,
        sizing: plan.sizing,
        calibration: &calibration,
        pin: plan.pin.clone(),
        scratch: scratch.path(),
        stop: &stop,
    };
    let mut any_failed = false;
    let mut adaptive_jobs = 0;
    let mut begun: Option<folder::Begun> = None;
    // The first result prepares the folder, then every result is written.
    let write = |results: &RunResults, begun: &mut Option<folder::Begun>| {
        if begun.is_some() {
            return results.write_in(out);
        }
        let had_results = out.has_file(RESULTS_FILE);
        let b = if is_folder {
            folder::begin(out, true)?
        } else {
            folder::Begun::default()
        };
        let first = results.write_in(out);
        if first.is_err() && had_results && b.previous.is_some() && !out.has_file(RESULTS_FILE) {
            // The first results could not be written (a full disk): the
            // earlier ones go back to where they were.
            let _ = out.rename(folder::PREVIOUS_FILE, RESULTS_FILE);
        }
        *begun = Some(b);
        first
    };
    // Whether an experiment's helper is built: asked at the first job that
    // uses it, and again after a job that built it.
    let mut helper_ready: Option<bool> = None;
    let spent = execute::run(plan, &ctx, |ev| {
        match ev {
            Event::Start(planned, slot) => {
                before(planned)?;
                let name = progress::job_name(planned, slot, plan);
                // The first job that uses a helper builds it, unless it is cached.
                let building = planned.exp.helper.as_ref().filter(|h| {
                    (h.used)(&planned.params) && !*helper_ready.get_or_insert_with(h.ready)
                });
                progress.start(match building {
                    Some(h) => format!("building {} (first run only) · {name}", h.name),
                    None => name,
                });
            }
            Event::More { jobs, adaptive } => {
                if adaptive {
                    adaptive_jobs += jobs;
                }
                progress.more(jobs, adaptive);
            }
            Event::Left {
                after_s,
                job_s,
                settled,
            } => progress.left(after_s, job_s, settled),
            Event::End => {
                busy.sample();
                progress.end();
                if helper_ready == Some(false) {
                    helper_ready = None;
                }
            }
            Event::Done(mut result) => {
                // A clock-bound seed figure is compared scaled to the clock
                // this run measured.
                crate::results::set_seed_clock(&mut result.metrics, calibration.measured_mhz);
                any_failed |= result.status == crate::results::Status::Failed || result.partial();
                if tables {
                    say(&table::experiment(&result, verbose, width));
                }
                results.experiments.push(*result);
                // The file lists the experiments in registry order, whatever
                // order their last rounds came in.
                results.experiments.sort_by_key(|e| {
                    crate::experiments::REGISTRY
                        .iter()
                        .position(|r| r.name == e.name)
                });
                // An experiment only interrupted, with nothing measured, is
                // no result to replace the folder's report with.
                let something = worker::stopped_by(&stop).is_none()
                    || results.experiments.iter().any(|e| {
                        !e.metrics.is_empty() || e.status != crate::results::Status::Failed
                    });
                if begun.is_some() || something {
                    write(&results, &mut begun)?;
                }
            }
        }
        Ok(())
    })?;

    progress.finish();
    let (seen, warnings) = busy.finish();
    results.busy = Some(seen);
    for w in warnings {
        if warn {
            progress.suspend(|| eprintln!("warning: {w}"));
        }
        results.warnings.push(w);
    }
    let stopped_by = worker::stopped_by(&stop);
    if stopped_by.is_some() {
        let (job, jobs) = progress.jobs();
        let at = crate::results::Interruption { job, jobs };
        results.warnings.push(at.words(&results));
        results.interrupted = Some(at);
    }
    let mut precision =
        crate::results::Precision::of(&results.experiments, plan.precision * 100.0, adaptive_jobs);
    precision.budget_s = plan.adaptive.map(|a| a.budget_s);
    precision.measured_s = Some(spent.measured_s);
    precision.floor_s = Some(spent.floor_s);
    precision.deadline_s = spent.deadline_s;
    precision.summary_rounds = summary_rounds(&results);
    results.precision = Some(precision);
    results.finished_unix_s = Some(unix_now());
    results.status = if stopped_by.is_some() {
        RunStatus::Partial
    } else {
        RunStatus::Complete
    };
    if begun.is_some() {
        results.write_in(out)?;
    }
    Ok(Measured {
        results,
        any_failed,
        stopped_by,
        begun,
    })
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
