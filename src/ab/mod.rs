//! `tasklab ab [EXPERIMENT|GROUP]... --a SPEC... --b SPEC...`: side A
//! against side B inside one run, so that what the host does over minutes
//! falls on both.
//!
//! Each side is planned as `run` plans (its SPECs give its parameters, its
//! workers' environment and CPUs, and the kernel settings written before its
//! blocks). The run is a sequence of blocks in the order A B B A, repeated;
//! a block holds one round of every point of its side, each in a fresh
//! worker, shuffled inside the block (`--seed` reproduces the order). Round
//! `r` of each side sits in blocks `2r` and `2r + 1`, next to each other:
//! the verdict pairs them (`stats::paired`), and its rows, `--json` and exit
//! status are `compare`'s. Every kernel setting written is restored
//! (`sys::sysfs_knob`): at the end, on an error, on a signal, and after a
//! SIGKILL by the next tasklab command.

pub mod blocks;
pub mod spec;
pub mod verdict;

use crate::cli::AbArgs;
use crate::compare::Comparison;
use crate::error::UsageError;
use crate::results::{AbJudged, AbRecord, RunResults};
use crate::run::plan::{self, Plan, Planned};
use crate::run::{self as runner, Show};
use crate::stats::paired::Side;
use crate::stats::Verdict;
use crate::sys::safefile::Trust;
use crate::sys::sysfs_knob::{self, Held, Knob};
use spec::Spec;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The folder an A/B run writes when `--out` is not given.
pub const DEFAULT_OUT: &str = "tasklab-ab";

/// The root below which `sysfs:` paths are read and written: `/`, or for
/// tests the folder in `TASKLAB_SYSFS_ROOT` (a stand-in for /sys, as `env`
/// reads its facts below a configurable root).
pub fn sysfs_root() -> PathBuf {
    sysfs_knob::root()
}

/// One side, checked: what it sets, in every form the run needs.
struct SideSpec {
    specs: Vec<Spec>,
    knobs: Vec<Knob>,
    env: Vec<(String, String)>,
}

fn side_spec(specs: Vec<Spec>, root: &Path) -> Result<SideSpec, UsageError> {
    Ok(SideSpec {
        knobs: spec::knobs(&specs, root)?,
        env: spec::check_env(&specs)?,
        specs,
    })
}

/// Plans one side as `run` would, with its SPECs' parameters and CPUs.
fn plan_side(
    args: &AbArgs,
    side: &SideSpec,
    rounds: usize,
    seed: u64,
    env: &crate::env::Env,
) -> anyhow::Result<Plan> {
    let m = &args.measure;
    let mut params = m.params.clone();
    params.extend(spec::params(&side.specs));
    let pin = spec::cpus(&side.specs).or(m.pin.as_deref());
    plan::plan(
        &plan::Request {
            names: &m.names,
            profile: runner::profile_of(m.profile),
            params: &params,
            presets: &[],
            pin,
            timeout_s: m.timeout,
            rounds: Some(rounds),
            precision_pct: None,
            budget_s: None,
            seed: Some(seed),
        },
        env,
    )
    .map_err(|e| match e.downcast::<UsageError>() {
        Ok(u) => UsageError(format!("ab: side {}: {}", side_name(side), u.0)).into(),
        Err(e) => e,
    })
}

fn side_name(side: &SideSpec) -> String {
    side.specs
        .iter()
        .map(Spec::text)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Checks that the kernel takes each side's values: each is written once
/// and the old values put back, before anything is measured.
fn try_knobs(root: &Path, a: &[Knob], b: &[Knob]) -> Result<(), UsageError> {
    for (name, set) in [("A", a), ("B", b)] {
        if set.is_empty() {
            continue;
        }
        let mut held = sysfs_knob::hold(root, set).map_err(|e| {
            UsageError(format!(
                "ab: side {name}: the kernel refused a setting: {e}"
            ))
        })?;
        held.restore()
            .map_err(|e| UsageError(format!("ab: side {name}: {e}")))?;
    }
    Ok(())
}

/// The two sides, checked: their SPECs parsed, their settings read and
/// their environment checked; root when a side writes a kernel setting.
fn check_sides(args: &AbArgs, root: &Path) -> anyhow::Result<(SideSpec, SideSpec)> {
    crate::compare::gate::check(&args.gate)?;
    let (sa, sb) = spec::sides(&args.a, &args.b)?;
    let a = side_spec(sa, root)?;
    let b = side_spec(sb, root)?;
    let writes = !(a.knobs.is_empty() && b.knobs.is_empty());
    if writes && root == Path::new("/") && crate::sys::effective_uid() != 0 {
        return Err(UsageError(
            "ab: a sysfs: SPEC writes a kernel setting, which needs root".into(),
        )
        .into());
    }
    Ok((a, b))
}

/// Both sides planned as `run` plans, `rounds` each from one `seed`, and
/// combined into blocks A B B A; refused when they would run the same.
fn plan_both(
    args: &AbArgs,
    (a, b): (&SideSpec, &SideSpec),
    rounds: usize,
    seed: u64,
    env: &crate::env::Env,
) -> anyhow::Result<Plan> {
    let pa = plan_side(args, a, rounds, seed, env)?;
    let pb = plan_side(args, b, rounds, seed, env)?;
    if same_effect(&pa, &pb, a, b) {
        return Err(UsageError(
            "ab: A and B are identical: their SPECs set the same values (nothing to compare)"
                .into(),
        )
        .into());
    }
    let mut both = blocks::combine(pa, pb, (&a.env, &b.env), rounds, seed);
    both.why = runner::why_of(&args.measure)?;
    let (wa, wb) = (spec::why(&a.specs), spec::why(&b.specs));
    if both.why.is_none() && (wa == Some(true) || wb == Some(true)) {
        both.why = Some(crate::measure::why::WhyPlan::here(
            crate::measure::why::DEFAULT_RATE_HZ,
        ));
    }
    for e in &mut both.experiments {
        if let Some(s) = e.side.as_mut() {
            s.why = match s.side {
                crate::stats::paired::Side::A => wa,
                crate::stats::paired::Side::B => wb,
            };
        }
    }
    Ok(both)
}

/// The output folder: `--out`, trusted as given, or [`DEFAULT_OUT`].
fn open_out(args: &AbArgs) -> anyhow::Result<crate::sys::safefile::OutDir> {
    let out_path = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(DEFAULT_OUT));
    let trust = if args.out.is_some() {
        Trust::Explicit
    } else {
        Trust::Default
    };
    Ok(crate::report::open_out(&out_path, trust)?)
}

/// Measures the combined plan as `run` measures, each side's settings
/// written before its block's first job and the old values restored when
/// the run ends, however it ends.
fn measure_sides(
    plan: &Plan,
    env: crate::env::Env,
    out: &crate::sys::safefile::OutDir,
    show: Show,
    (root, a, b): (&Path, &SideSpec, &SideSpec),
    stop: std::sync::Arc<crate::measure::worker::StopFlag>,
) -> anyhow::Result<runner::Measured> {
    // The guard restores the old values whenever it drops.
    let mut held: Option<(Side, Held)> = None;
    let measured = {
        let mut before = |p: &Planned| -> anyhow::Result<()> {
            let Some(setup) = &p.side else {
                return Ok(());
            };
            if held.as_ref().map(|h| h.0) == Some(setup.side) {
                return Ok(());
            }
            let knobs = match setup.side {
                Side::A => &a.knobs,
                Side::B => &b.knobs,
            };
            // Back to the old values first, then this side's.
            if let Some((_, mut h)) = held.take() {
                h.restore()?;
            }
            if !knobs.is_empty() {
                held = Some((setup.side, sysfs_knob::hold(root, knobs)?));
            } else {
                held = None;
            }
            Ok(())
        };
        runner::measure_with(plan, env, out, show, None, stop, &mut before)
    };
    if let Some((_, mut h)) = held.take() {
        h.restore()?;
    }
    measured
}

/// The record of what the sides set (judged unless the run was
/// interrupted: no verdict from part of the blocks), and the comparison of
/// their pairs of rounds.
fn judge(
    results: &mut RunResults,
    (a, b): (&SideSpec, &SideSpec),
    rounds: usize,
    args: &AbArgs,
    interrupted: bool,
) -> Comparison {
    // Registry order, side A before side B.
    results.experiments.sort_by_key(|e| {
        (
            crate::experiments::REGISTRY
                .iter()
                .position(|r| r.name == e.name),
            e.side,
        )
    });
    results.ab = Some(AbRecord {
        a: a.specs.clone(),
        b: b.specs.clone(),
        blocks: 2 * rounds,
        judged: (!interrupted).then_some(AbJudged {
            threshold_pct: args.threshold.pct(),
            fdr_pct: args.gate.fdr,
        }),
        printed: None,
    });
    verdict::comparison(results, args.threshold.pct(), args.gate.fdr)
}

/// The `ab` command. Exit status as `compare`'s: 0 nothing regressed, 1 a
/// regression beyond the threshold (or an experiment failed), 2 bad input,
/// 130 interrupted.
pub fn run(args: &AbArgs) -> anyhow::Result<ExitCode> {
    let root = sysfs_root();
    let (a, b) = check_sides(args, &root)?;
    let env = crate::env::probe();
    let profile = runner::profile_of(args.measure.profile);
    let rounds = args
        .measure
        .rounds
        .unwrap_or(crate::measure::sizing::Sizing::of(profile).rounds);
    let seed = args.measure.seed.unwrap_or_else(plan::fresh_seed);
    let plan = plan_both(args, (&a, &b), rounds, seed, &env)?;
    // A signal from here on ends the run cleanly, its settings restored:
    // the run stops on the same flag.
    let stop = runner::stop_on_signals()?;
    try_knobs(&root, &a.knobs, &b.knobs)?;
    if crate::measure::worker::stopped_by(&stop).is_some() {
        eprintln!("interrupted before measuring: every setting is restored");
        return Ok(ExitCode::from(130));
    }
    let out = open_out(args)?;
    let show = Show::progress_only(args.measure.quiet || args.json);
    let measured = measure_sides(&plan, env, &out, show, (&root, &a, &b), stop);
    let runner::Measured {
        mut results,
        any_failed,
        stopped_by,
        begun,
    } = measured?;
    if begun.is_none() {
        eprintln!("interrupted before anything was measured: every setting is restored; the folder is left as it was");
        return Ok(ExitCode::from(130));
    }
    let results_path = out
        .shown(crate::results::RESULTS_FILE)
        .display()
        .to_string();
    let interrupted = stopped_by.is_some();
    let c = judge(&mut results, (&a, &b), rounds, args, interrupted);
    results.write_in(&out)?;
    crate::report::write_ab_folder(&results, &out, verdict::words)?;
    if interrupted {
        eprintln!("interrupted: every setting is restored; no verdict from part of the blocks");
        return Ok(ExitCode::from(130));
    }
    if args.json {
        crate::error::out(&format!("{}\n", serde_json::to_string_pretty(&c)?))?;
    } else if !args.measure.quiet {
        let width = crate::report::terse::width();
        crate::error::out(&verdict::render(
            &results,
            &c,
            args.all,
            &results_path,
            width,
        ))?;
    }
    if let Some(why) = crate::compare::gate::failed(&args.gate, &c) {
        eprintln!("tasklab: {why}");
        return Ok(ExitCode::from(1));
    }
    Ok(if c.count(Verdict::Regressed) > 0 || any_failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Whether the two sides, as planned, would run the same thing: the same
/// parameters, CPUs, environment and kernel settings.
fn same_effect(pa: &Plan, pb: &Plan, a: &SideSpec, b: &SideSpec) -> bool {
    let params =
        |p: &Plan| -> Vec<_> { p.experiments.iter().map(|e| e.params.to_json()).collect() };
    let mut ka = a.knobs.clone();
    let mut kb = b.knobs.clone();
    ka.sort_by(|x, y| x.path.cmp(&y.path));
    kb.sort_by(|x, y| x.path.cmp(&y.path));
    let mut ea = a.env.clone();
    let mut eb = b.env.clone();
    ea.sort();
    eb.sort();
    params(pa) == params(pb)
        && pa.pin == pb.pin
        && ea == eb
        && ka == kb
        && spec::why(&a.specs).unwrap_or(false) == spec::why(&b.specs).unwrap_or(false)
}
