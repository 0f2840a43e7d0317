//! Everything checked before the first measurement: the experiments named,
//! the `-p` overrides, `--pin`, `--timeout` and `--rounds`, each
//! experiment's jobs, and the shuffled schedule of their rounds.

use crate::env::{self, Env};
use crate::error::{usage, UsageError};
use crate::experiments::spec::{PlanCtx, Points};
use crate::experiments::{self, Experiment};
use crate::measure::params::{Param, ParamType, ParamValue, Params};
use crate::measure::sizing::{Profile, Sizing, MAX_ROUNDS, MIN_ROUNDS};
use rand::rngs::Xoshiro256PlusPlus;
use rand::seq::SliceRandom;
use rand::SeedableRng;

/// The finest precision adaptive rounds may aim for: the 95% half-width of
/// the run-to-run floor (`stats::noise::FLOOR`, 0.5% sd: ±0.98%, taken as 1%),
/// which no number of rounds narrows.
pub const MIN_PRECISION: f64 = 0.01;

/// One experiment, ready to run.
pub struct Planned {
    pub exp: &'static Experiment,
    pub params: Params,
    pub points: Vec<serde_json::Value>,
    pub notes: Vec<String>,
    /// Why fewer are planned than asked (the result's `fewer_than_asked`).
    pub fewer_than_asked: Vec<String>,
    /// Why the machine cannot run it, when it cannot.
    pub unsupported: Option<String>,
    /// The side of an A/B run it measures (`tasklab ab`), with that side's
    /// workers' CPUs and environment; None in a plain run.
    pub side: Option<SideSetup>,
}

/// What one side of an A/B run gives its workers.
#[derive(Clone, Debug, PartialEq)]
pub struct SideSetup {
    pub side: crate::stats::paired::Side,
    /// The CPUs its workers are pinned to (None: the run's `--pin`).
    pub pin: Option<Vec<usize>>,
    /// Variables set in its workers' environment.
    pub env: Vec<(String, String)>,
    /// Whether its workers sample (a `why:` SPEC); None: as the run's `--why`.
    pub why: Option<bool>,
}

/// One job of the schedule: a round of a point of an experiment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// Index into [`Plan::experiments`].
    pub experiment: usize,
    /// Index into that experiment's points.
    pub point: usize,
    pub round: usize,
}

/// The run's time shared out (`run::budget`): after every point's minimum
/// rounds and the Summary's quantities' profile rounds, more go where a
/// round buys the most precision per second, until every interval reaches
/// `precision` or the budget is spent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Adaptive {
    /// The target half-width of an interval over its median (0.05 = ±5%).
    pub precision: f64,
    /// Seconds of measuring from the first job, the minimum rounds
    /// included, by which the run's rounds stop.
    pub budget_s: f64,
    /// The user gave the budget (`--budget`). Otherwise the rounds also
    /// stop once they took as long as the profile's rounds at every point
    /// would, so a run of a few experiments stays short.
    pub asked: bool,
}

/// What the user asked for, checked.
pub struct Plan {
    pub profile: Profile,
    pub sizing: Sizing,
    /// None when the user fixed the rounds (`--rounds`): every series gets
    /// exactly that many.
    pub adaptive: Option<Adaptive>,
    /// The precision target series are judged against (`--precision`).
    pub precision: f64,
    pub pin: Option<Vec<usize>>,
    pub experiments: Vec<Planned>,
    /// The seed of the schedule's order (and of each worker's own order).
    pub seed: u64,
    /// Every round of every point, in the order they run.
    pub schedule: Vec<Slot>,
    /// `--why`: what each worker samples (None: nothing).
    pub why: Option<crate::measure::why::WhyPlan>,
}

impl Plan {
    pub fn jobs(&self) -> usize {
        self.schedule.len()
    }
}

/// Every round of every point of the supported experiments, shuffled with
/// `seed`, so the rounds of each experiment are spread over the whole run
/// (what drifts over minutes then shows as a difference between rounds,
/// not between experiments). With `first_rounds_first` (a run whose budget
/// shares out rounds), every point's first round comes before any point's
/// second, each part shuffled: by the end of that first part every point's
/// cost and the Summary's points are known (a fifth to a quarter of the
/// minimum rounds), so the time left the progress line shows is measured,
/// not guessed, from then on, also on a host whose memory-heavy rounds
/// take 2-5x as long as on a quiet day.
pub fn schedule(
    experiments: &[Planned],
    rounds: usize,
    seed: u64,
    first_rounds_first: bool,
) -> Vec<Slot> {
    let mut slots = Vec::new();
    for (e, p) in experiments.iter().enumerate() {
        if p.unsupported.is_some() {
            continue;
        }
        for point in 0..p.points.len() {
            for round in 0..rounds {
                slots.push(Slot {
                    experiment: e,
                    point,
                    round,
                });
            }
        }
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    if !first_rounds_first {
        slots.shuffle(&mut rng);
        return slots;
    }
    let (mut first, mut rest): (Vec<Slot>, Vec<Slot>) =
        slots.into_iter().partition(|s| s.round == 0);
    first.shuffle(&mut rng);
    rest.shuffle(&mut rng);
    first.extend(rest);
    first
}

/// A seed when the user gave none: the clock's nanoseconds and the pid.
pub fn fresh_seed() -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    t ^ (u64::from(std::process::id()) << 32)
}

/// The longest `--timeout` and `--budget`: a day, in seconds.
pub const MAX_TIMEOUT_S: f64 = 86_400.0;

/// The precision adaptive rounds aim for when the user gives none: ±5%.
pub const DEFAULT_PRECISION: f64 = 0.05;

/// The least a job can take (a fresh worker's start and a round's smallest
/// measuring), for refusing a `--budget` that cannot hold the minimum
/// rounds before anything is measured.
pub const LEAST_JOB_S: f64 = 0.02;

/// The run's time budget when the user gives none, in seconds of
/// measuring (the minimum rounds included): quick 75, so that with its
/// start and its report the default run ends in under 80 s on a quiet
/// 2-vCPU VM and under 100 s on a busy one; thorough half an hour.
pub fn default_budget_s(profile: Profile) -> f64 {
    match profile {
        Profile::Quick => 75.0,
        Profile::Thorough => 1_800.0,
    }
}

/// What the command line asked for, before checking.
pub struct Request<'a> {
    pub names: &'a [String],
    pub profile: Profile,
    pub params: &'a [String],
    /// Values chosen by the command that plans the run (advise), typed.
    pub presets: &'a [Preset],
    pub pin: Option<&'a str>,
    pub timeout_s: Option<f64>,
    /// `--rounds`: None takes the profile's, then adaptive rounds.
    pub rounds: Option<usize>,
    /// `--precision` in percent: None takes 5.
    pub precision_pct: Option<f64>,
    /// `--budget` in seconds for the whole run: None takes the profile's.
    pub budget_s: Option<f64>,
    /// `--seed`: None draws one (and the results record it).
    pub seed: Option<u64>,
}

impl<'a> Request<'a> {
    /// A quick run of `names` with a command's own `presets` and nothing
    /// from the user: what advise and predict measure when given no file.
    pub fn quick(names: &'a [String], presets: &'a [Preset]) -> Request<'a> {
        Request {
            names,
            profile: Profile::Quick,
            params: &[],
            presets,
            pin: None,
            timeout_s: None,
            rounds: None,
            precision_pct: None,
            budget_s: None,
            seed: None,
        }
    }
}

/// A parameter value a command chooses for its own run, in place of the
/// profile's default. Unlike `-p`, it is not the user's: an experiment
/// still fits it to the machine ([`PlanCtx::user_set`] leaves it out), and
/// a `-p` for the same parameter wins.
#[derive(Clone, Debug, PartialEq)]
pub struct Preset {
    pub experiment: &'static str,
    pub param: &'static str,
    pub value: ParamValue,
}

impl Preset {
    /// `param` of `experiment` set to `value`, of the parameter's own type.
    pub fn of<T: ParamType>(experiment: &'static Experiment, param: &Param<T>, value: T) -> Preset {
        Preset {
            experiment: experiment.name,
            param: param.name(),
            value: value.value(),
        }
    }

    /// The value as `-p` would write it, so that it is checked by the one
    /// parser, against the same bounds as the user's values.
    fn text(&self) -> String {
        let join = |v: &[String]| v.join(",");
        match &self.value {
            ParamValue::Bool(b) => b.to_string(),
            ParamValue::Int(n) => n.to_string(),
            ParamValue::List(v) => join(&v.iter().map(u64::to_string).collect::<Vec<_>>()),
            ParamValue::Text(t) => t.clone(),
            ParamValue::Names(v) => join(v),
        }
    }
}

/// Every preset names a parameter of a selected experiment.
fn check_presets(req: &Request, selected: &[&'static Experiment]) -> anyhow::Result<()> {
    for p in req.presets {
        let known = selected
            .iter()
            .any(|e| e.name == p.experiment && e.params.iter().any(|s| s.name == p.param));
        if !known {
            anyhow::bail!(
                "preset {}.{}: no such parameter among the selected experiments",
                p.experiment,
                p.param
            );
        }
    }
    Ok(())
}

/// `--timeout`, `--rounds`, `--precision` and `--budget` in their ranges;
/// returns the precision asked, as a fraction.
fn check_numbers(req: &Request) -> anyhow::Result<f64> {
    if let Some(t) = req.timeout_s {
        if !(t.is_finite() && t > 0.0 && t <= MAX_TIMEOUT_S) {
            return usage(format!(
                "--timeout takes a positive number of seconds, at most {MAX_TIMEOUT_S} (a day)"
            ));
        }
    }
    if let Some(r) = req.rounds {
        if !(MIN_ROUNDS..=MAX_ROUNDS).contains(&r) {
            return usage(format!(
                "--rounds takes {MIN_ROUNDS} to {MAX_ROUNDS}: fewer than {MIN_ROUNDS} rounds cannot tell a drift from a difference"
            ));
        }
    }
    let precision = match req.precision_pct {
        None => DEFAULT_PRECISION,
        Some(p) if p.is_finite() && p / 100.0 > MIN_PRECISION && p < 100.0 => p / 100.0,
        Some(_) => {
            return usage(format!(
                "--precision takes a percentage above {} and below 100: the half-width of an interval over its median that adaptive rounds aim for; one run cannot know a figure better than the ±{}% that the least run-to-run noise (its floor) adds to every interval (compare several runs for that)",
                MIN_PRECISION * 100.0,
                MIN_PRECISION * 100.0
            ))
        }
    };
    if let Some(b) = req.budget_s {
        if !(b.is_finite() && b > 0.0 && b <= MAX_TIMEOUT_S) {
            return usage(format!(
                "--budget takes a positive number of seconds, at most {MAX_TIMEOUT_S} (a day)"
            ));
        }
    }
    Ok(precision)
}

/// One selected experiment planned: its parameters resolved (presets, then
/// the user's `ov`), its points, or why this machine cannot run it.
fn plan_one(
    e: &'static Experiment,
    ov: &[(String, String)],
    req: &Request,
    env: &Env,
    sizing: Sizing,
) -> anyhow::Result<Planned> {
    // Presets first, so that the user's own values come last and win.
    let mut values: Vec<(String, String)> = req
        .presets
        .iter()
        .filter(|p| p.experiment == e.name)
        .map(|p| (p.param.to_string(), p.text()))
        .collect();
    values.extend(ov.iter().cloned());
    let params = Params::resolve(e.params, req.profile, &values)
        .map_err(|m| UsageError(format!("{}: {m}", e.name)))?;
    let unsupported = (e.supported)(env).err();
    let user_set: Vec<String> = ov.iter().map(|(n, _)| n.clone()).collect();
    let ctx = PlanCtx {
        env,
        user_set: &user_set,
        params: &params,
        sizing,
    };
    let pts = if unsupported.is_some() {
        Points::default()
    } else {
        (e.points)(&ctx).map_err(|m| UsageError(format!("{}: {m}", e.name)))?
    };
    Ok(Planned {
        exp: e,
        params,
        points: pts.points,
        notes: pts.notes,
        fewer_than_asked: pts.fewer_than_asked,
        unsupported,
        side: None,
    })
}

/// Checks the request against the registry and this machine, and plans
/// every experiment's worker jobs.
pub fn plan(req: &Request, env: &Env) -> anyhow::Result<Plan> {
    let selected = experiments::select(req.names).map_err(UsageError)?;
    let overrides = overrides_for(&selected, req.params)?;
    check_presets(req, &selected)?;
    let pin = match req.pin {
        None => None,
        Some(text) => Some(check_pin(text, env)?),
    };
    let precision = check_numbers(req)?;
    let sizing = Sizing::of(req.profile)
        .with_timeout(req.timeout_s)
        .with_rounds(req.rounds);
    let planned = selected
        .iter()
        .zip(&overrides)
        .map(|(e, ov)| plan_one(e, ov, req, env, sizing))
        .collect::<anyhow::Result<Vec<_>>>()?;
    // The limits the run lives under: one clear refusal up front, not every
    // experiment failing.
    if let Some(why) = super::limits::Room::now().problem() {
        return usage(why);
    }
    // The helpers run from a folder made in TMPDIR: checked with the rest.
    if let Some(why) = crate::measure::scratch::temp_dir_problem(&std::env::temp_dir()) {
        return usage(why);
    }
    let seed = req.seed.unwrap_or_else(fresh_seed);
    let schedule = schedule(&planned, sizing.min_rounds, seed, req.rounds.is_none());
    if let Some(b) = req.budget_s {
        let least = schedule.len() as f64 * LEAST_JOB_S;
        if b < least {
            let least = format!("{least:.2}");
            return usage(format!(
                "--budget {b} s cannot hold the {} jobs of the minimum rounds ({} rounds of every point): give {} to {MAX_TIMEOUT_S} s, or fewer experiments or --rounds",
                schedule.len(),
                sizing.min_rounds,
                least.trim_end_matches('0').trim_end_matches('.')
            ));
        }
    }
    let adaptive = req.rounds.is_none().then(|| Adaptive {
        precision,
        budget_s: req.budget_s.unwrap_or(default_budget_s(req.profile)),
        asked: req.budget_s.is_some(),
    });
    Ok(Plan {
        profile: req.profile,
        sizing,
        adaptive,
        precision,
        pin,
        schedule,
        experiments: planned,
        seed,
        why: None,
    })
}

pub fn check_pin(text: &str, env: &Env) -> anyhow::Result<Vec<usize>> {
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
    Ok(cpus)
}

/// Splits `NAME=VALUE` overrides and checks each names a parameter of a
/// selected experiment; returns, per experiment, its (name, value) pairs.
fn overrides_for(
    selected: &[&'static Experiment],
    raw: &[String],
) -> anyhow::Result<Vec<Vec<(String, String)>>> {
    let mut per: Vec<Vec<(String, String)>> = vec![Vec::new(); selected.len()];
    // Each experiment's parameters set so far, and the -p that set each.
    let mut given: Vec<Vec<(&str, &str)>> = vec![Vec::new(); selected.len()];
    for item in raw {
        let Some((name, value)) = item.split_once('=').filter(|(n, _)| !n.is_empty()) else {
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
                if let Some((_, first)) = given[i].iter().find(|(p, _)| *p == pname) {
                    return usage(format!(
                        "-p {first} and -p {item} both set {}.{pname}: give it once",
                        e.name
                    ));
                }
                given[i].push((pname, item.as_str()));
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

#[cfg(test)]
#[path = "plan_tests.rs"]
mod tests;
