//! `tasklab run`: check everything the user asked for, then run each
//! experiment's jobs in fresh workers, summarise the samples in the parent,
//! and write the results after every experiment so a later failure or a
//! Ctrl-C loses nothing already measured.

use crate::cli::RunArgs;
use crate::env::{self, Env};
use crate::experiments::{self, Experiment, Job, Params, PlanCtx, Profile, WorkerOutput};
use crate::measure::{scratch::Scratch, timer, worker};
use crate::report::table;
use crate::results::{
    ExperimentResult, Metric, RunResults, RunStatus, Status, SCHEMA_NAME, SCHEMA_VERSION,
};
use crate::stats;
use crate::sys;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

/// Bad input: the message says what is valid; the exit status is 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

fn usage<T>(msg: impl Into<String>) -> anyhow::Result<T> {
    Err(UsageError(msg.into()).into())
}

/// How much measuring a profile does.
pub struct Sizing {
    pub budget_s: f64,
    pub min_samples: usize,
    pub max_samples: usize,
    pub timeout_s: f64,
}

pub fn sizing(profile: Profile) -> Sizing {
    match profile {
        Profile::Quick => Sizing {
            budget_s: 0.15,
            min_samples: 5,
            max_samples: 2_000,
            timeout_s: 120.0,
        },
        Profile::Thorough => Sizing {
            budget_s: 3.0,
            min_samples: 100,
            max_samples: 10_000,
            timeout_s: 1_800.0,
        },
    }
}

/// The machine as it is now, with the parts that need system calls.
pub fn current_env() -> Env {
    let (kernel, arch) = sys::uname();
    let mut e = Env::read_from(Path::new("/"), kernel, arch);
    e.cpus_allowed = sys::allowed_cpus().unwrap_or_default();
    if let Some(vendor) = sys::hypervisor_vendor() {
        let name = match vendor.as_str() {
            "KVMKVMKVM" => "kvm".to_string(),
            "Microsoft Hv" => "hyper-v".to_string(),
            "VMwareVMware" => "vmware".to_string(),
            "XenVMMXenVMM" => "xen".to_string(),
            "TCGTCGTCGTCG" => "qemu (tcg)".to_string(),
            other => other.to_string(),
        };
        if e.virtualization
            .as_deref()
            .is_none_or(|v| v.contains("unknown"))
        {
            e.virtualization = Some(name);
        }
    }
    e.limits.rlimit_nproc = sys::rlimit(sys::Resource::Nproc).ok().and_then(|l| l.0);
    e.limits.rlimit_stack = sys::rlimit(sys::Resource::Stack).ok().and_then(|l| l.0);
    e.limits.rlimit_as = sys::rlimit(sys::Resource::AddressSpace)
        .ok()
        .and_then(|l| l.0);
    e
}

fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// Splits `NAME=VALUE` overrides and checks each names a parameter of a
/// selected experiment; returns, per experiment, its (name, value) pairs.
fn overrides_for(
    selected: &[&'static Experiment],
    raw: &[String],
) -> anyhow::Result<Vec<Vec<(String, String)>>> {
    let mut per: Vec<Vec<(String, String)>> = vec![Vec::new(); selected.len()];
    for item in raw {
        let Some((name, value)) = item.split_once('=') else {
            return usage(format!("--param takes NAME=VALUE, got '{item}'"));
        };
        let (target, pname) = match name.rsplit_once('.') {
            Some((exp, p)) => (Some(exp), p),
            None => (None, name),
        };
        let mut used = false;
        for (i, e) in selected.iter().enumerate() {
            if target.is_some_and(|t| t != e.name) {
                continue;
            }
            if e.params.iter().any(|p| p.name == pname) {
                per[i].push((pname.to_string(), value.to_string()));
                used = true;
            }
        }
        if !used {
            let known: Vec<String> = selected
                .iter()
                .flat_map(|e| {
                    e.params
                        .iter()
                        .map(move |p| format!("{}.{} ({})", e.name, p.name, p.range()))
                })
                .collect();
            return usage(format!(
                "no selected experiment has a parameter '{name}'\n  parameters: {}",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ));
        }
    }
    Ok(per)
}

/// Everything planned before the first measurement.
struct Planned {
    exp: &'static Experiment,
    params: Params,
    points: Vec<serde_json::Value>,
    notes: Vec<String>,
    unsupported: Option<String>,
}

pub fn run(args: &RunArgs) -> anyhow::Result<ExitCode> {
    let profile: Profile = args.profile.into();
    let selected = experiments::select(&args.names).map_err(UsageError)?;
    let overrides = overrides_for(&selected, &args.params)?;
    let env = current_env();

    let pin = match &args.pin {
        None => None,
        Some(text) => {
            let cpus = env::parse_cpu_list(text).map_err(|e| UsageError(format!("--pin: {e}")))?;
            if cpus.is_empty() {
                return usage("--pin: no CPU given");
            }
            if let Some(bad) = cpus.iter().find(|c| !env.cpus_allowed.contains(c)) {
                return usage(format!(
                    "--pin: CPU {bad} does not exist or is not in this process's affinity mask (allowed: {})",
                    env::cpu_list(&env.cpus_allowed)
                ));
            }
            Some(cpus)
        }
    };
    if let Some(t) = args.timeout {
        if !(t.is_finite() && t > 0.0) {
            return usage("--timeout takes a positive number of seconds");
        }
    }

    let mut plans = Vec::new();
    for (e, ov) in selected.iter().zip(&overrides) {
        let params = Params::resolve(e.params, profile, ov)
            .map_err(|m| UsageError(format!("{}: {m}", e.name)))?;
        let unsupported = (e.supported)(&env).err();
        let user_set: Vec<String> = ov.iter().map(|(n, _)| n.clone()).collect();
        let ctx = PlanCtx {
            env: &env,
            user_set: &user_set,
            profile,
            params: &params,
        };
        let pts = if unsupported.is_some() {
            experiments::Points::default()
        } else {
            (e.points)(&ctx).map_err(|m| UsageError(format!("{}: {m}", e.name)))?
        };
        plans.push(Planned {
            exp: e,
            params,
            points: pts.points,
            notes: pts.notes,
            unsupported,
        });
    }

    // The output folder must be writable before anything is measured.
    crate::report::check_writable(&args.out)?;
    let results_path = args.out.join("results.json");

    let interrupted = Arc::new(AtomicBool::new(false));
    for sig in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ] {
        signal_hook::flag::register(sig, Arc::clone(&interrupted))?;
    }

    let quiet = args.quiet || args.json.as_deref() == Some("-");
    // CSV or Markdown come as one document at the end, not table by table.
    let tables = !(quiet || args.format.csv || args.format.markdown);
    // The progress bar draws on stderr only when it is a terminal, and only
    // when a job starts or ends: no ticking thread to disturb the measuring.
    let total_jobs: usize = plans.iter().map(|p| p.points.len()).sum();
    let progress = if quiet || !std::io::stderr().is_terminal() {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(total_jobs as u64).with_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} jobs · {elapsed} · {msg}")
                .expect("valid template"),
        )
    };
    let say = |s: &str| {
        if !quiet {
            progress.suspend(|| {
                print!("{s}");
                let _ = std::io::stdout().flush();
            });
        }
    };

    let calibration = timer::calibrate(env.tsc_invariant);
    let mut env = env;
    env.measured_mhz = calibration.measured_mhz;
    let scratch = Scratch::new()?;
    let sz = sizing(profile);
    let limit = Duration::from_secs_f64(args.timeout.unwrap_or(sz.timeout_s));

    let mut results = RunResults {
        schema: SCHEMA_NAME.into(),
        schema_version: SCHEMA_VERSION,
        tool_version: env!("CARGO_PKG_VERSION").into(),
        started_unix_s: unix_now(),
        finished_unix_s: None,
        profile: format!("{profile:?}").to_lowercase(),
        status: RunStatus::Partial,
        pin: pin.clone(),
        env,
        calibration,
        warnings: busy_warning(),
        experiments: Vec::new(),
    };
    for w in &results.warnings {
        if tables {
            say(&format!("warning: {w}\n"));
        } else if !quiet {
            progress.suspend(|| eprintln!("warning: {w}"));
        }
    }
    if tables {
        say(&format!("{}\n", table::header(&results)));
        say(&format!(
        "timer: {} per CLOCK_MONOTONIC read, loop {:.2} ns per iteration (subtracted); figures are medians of independent samples\n",
        crate::report::fmt_ns(results.calibration.timer_overhead_ns),
        results.calibration.loop_overhead_ns
        ));
    }

    let mut any_failed = false;
    for plan in &plans {
        if interrupted.load(Ordering::SeqCst) {
            break;
        }
        let started = Instant::now();
        let mut result = ExperimentResult {
            name: plan.exp.name.into(),
            group: plan.exp.group.into(),
            summary: plan.exp.summary.into(),
            status: Status::Ok,
            reason: None,
            duration_s: 0.0,
            params: plan.params.to_json(),
            metrics: vec![],
            readings: vec![],
            fits: vec![],
            findings: vec![],
            notes: plan.notes.clone(),
        };
        if let Some(why) = &plan.unsupported {
            result.status = Status::Skipped;
            result.reason = Some(why.clone());
        } else {
            let mut merged = WorkerOutput::default();
            for point in &plan.points {
                progress.set_message(if point.is_null() {
                    plan.exp.name.to_string()
                } else {
                    format!("{} {point}", plan.exp.name)
                });
                let job = Job {
                    experiment: plan.exp.name.into(),
                    profile,
                    params: plan.params.clone(),
                    point: point.clone(),
                    budget_s: sz.budget_s,
                    min_samples: sz.min_samples,
                    max_samples: sz.max_samples,
                    timer_overhead_ns: results.calibration.timer_overhead_ns,
                    loop_overhead_ns: results.calibration.loop_overhead_ns,
                    pin: pin.clone(),
                    scratch: Some(scratch.path().to_path_buf()),
                };
                let outcome = worker::run_job(&job, limit, &interrupted);
                progress.inc(1);
                match outcome {
                    Ok(out) => {
                        merged.series.extend(out.series);
                        merged.readings.extend(out.readings);
                        merged.notes.extend(out.notes);
                    }
                    Err(f) => {
                        result.status = Status::Failed;
                        result.reason = Some(if point.is_null() {
                            f.reason
                        } else {
                            format!("at {point}: {}", f.reason)
                        });
                        break;
                    }
                }
            }
            absorb(&mut result, plan.exp, merged);
            if result.status == Status::Ok {
                (plan.exp.analyze)(&mut result);
            } else {
                any_failed = true;
            }
        }
        result.duration_s = started.elapsed().as_secs_f64();
        if tables {
            say(&table::experiment(&result, args.verbose));
        }
        results.experiments.push(result);
        results.write_atomic(&results_path)?;
    }

    progress.finish_and_clear();
    let was_interrupted = interrupted.load(Ordering::SeqCst);
    results.finished_unix_s = Some(unix_now());
    results.status = if was_interrupted {
        RunStatus::Partial
    } else {
        RunStatus::Complete
    };
    results.write_atomic(&results_path)?;
    if let Some(dest) = &args.json {
        write_json(&results, dest)?;
    }
    drop(scratch);
    crate::report::write_folder(&results, &args.out)?;
    if !quiet && !tables {
        print!(
            "{}",
            crate::report::terminal(&results, args.format, args.verbose, &args.out)?
        );
    }
    if !quiet {
        eprintln!(
            "\nresults: {}\nreport:  {}",
            results_path.display(),
            args.out.join("report.html").display()
        );
    }
    if was_interrupted {
        eprintln!("interrupted: partial results written and marked partial");
        return Ok(ExitCode::from(130));
    }
    if any_failed {
        eprintln!("some experiments failed (see above)");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// A warning when other work keeps the CPUs busy: every figure would carry
/// its preemptions (and, in a VM, fewer idle wake-ups).
fn busy_warning() -> Vec<String> {
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok());
    let cpus = sys::allowed_cpus().map(|c| c.len()).unwrap_or(1).max(1) as f64;
    match load {
        Some(l) if l > 0.5 * cpus => vec![format!(
            "the machine is busy (load average {l:.1} on {cpus:.0} CPUs): figures will carry other work's preemptions; rerun when it is idle"
        )],
        _ => vec![],
    }
}

/// Turns a worker's raw series into summarised metrics with their seeds.
fn absorb(result: &mut ExperimentResult, exp: &Experiment, out: WorkerOutput) {
    for s in out.series {
        let summary = match stats::summarize(&s.samples) {
            Ok(sm) => sm,
            Err(e) => {
                result
                    .notes
                    .push(format!("{} {:?}: no summary ({e})", s.name, s.labels));
                continue;
            }
        };
        let seed = exp
            .seeds
            .iter()
            .find(|f| f.matches(&s.name, &s.labels))
            .map(|f| f.to_ref());
        result.metrics.push(Metric {
            name: s.name,
            unit: s.unit.unwrap_or(crate::results::Unit::Count),
            labels: s.labels,
            summary,
            samples: s.samples,
            detail: s.detail && seed.is_none(),
            seed,
        });
    }
    result.readings.extend(out.readings);
    result.notes.extend(out.notes);
}

fn write_json(results: &RunResults, dest: &str) -> anyhow::Result<()> {
    if dest == "-" {
        let mut out = std::io::stdout().lock();
        serde_json::to_writer_pretty(&mut out, results)?;
        writeln!(out)?;
        Ok(())
    } else {
        results.write_atomic(&PathBuf::from(dest))
    }
}

/// `tasklab __cold METHOD TIMER_NS [SCRATCH]`: one cold probe, JSON on stdout.
pub fn cold(method: &str, timer_ns: f64, scratch: Option<&Path>) -> ExitCode {
    match experiments::spawn::cold_probe_main(method, scratch, timer_ns) {
        Ok(p) => {
            println!("{}", serde_json::to_string(&p).expect("serialises"));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e:#}");
            ExitCode::from(1)
        }
    }
}
