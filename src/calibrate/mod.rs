//! `tasklab calibrate`: this machine's own run-to-run noise. The suite runs
//! N times into one folder (`run --repeat`), or N results files are read
//! (`--from`); each series' band is estimated from its runs
//! (`stats::noise`) and stored in a noise file keyed by the machine's
//! fingerprint (`compare::noise`), which `compare` then uses. It also
//! prints the A/A false alarms those runs give: every pair of runs compared
//! as `compare` would, the rows called changed counted, once as compare is
//! without the file and once with it.

use crate::cli::{CalibrateArgs, RunArgs};
use crate::compare::noise::{self, FalseAlarms, Noise, NoiseFile, SeriesNoise};
use crate::error::UsageError;
use crate::results::{case_of, Labels, RunResults, Status};
use crate::stats::noise::from_figures;
use crate::stats::Verdict;
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;

pub fn run(a: &CalibrateArgs) -> anyhow::Result<ExitCode> {
    // Everything checked before anything is measured.
    let max = crate::run::MAX_REPEAT;
    if a.from.is_empty() && !(2..=max).contains(&a.runs) {
        return Err(UsageError(format!(
            "--runs takes a number of runs from 2 to {max} (a spread needs two), not {}",
            a.runs
        ))
        .into());
    }
    match &a.out {
        Some(out) => crate::sys::safefile::check_file_dest(out).map_err(UsageError)?,
        // The cache folder itself is made (private) when the file is written.
        None if crate::sys::private::cache_root_now().is_none() => {
            return Err(UsageError(
                "no cache folder for the noise file (neither XDG_CACHE_HOME nor HOME is set): name a file with --out FILE".into(),
            )
            .into());
        }
        None => {}
    }
    let (runs, names) = if a.from.is_empty() {
        // The runs measure as `run` does, with the shared flags as given.
        let args = RunArgs {
            measure: a.measure.clone(),
            out: Some(a.dir.clone()),
            repeat: Some(a.runs),
            pause: a.pause,
            ..RunArgs::default()
        };
        let (code, done) = crate::run::run_series(&args, false)?;
        if code != ExitCode::SUCCESS {
            eprintln!("the calibration's runs did not all complete: no noise file written");
            return Ok(code);
        }
        let names = (1..=done.len())
            .map(|k| a.dir.join(crate::run::repeat_file(k)).display().to_string())
            .collect();
        (done, names)
    } else {
        if !a.measure.names.is_empty() {
            return Err(UsageError(
                "--from learns from the files as they are: name no experiments".into(),
            )
            .into());
        }
        read_runs(&a.from)?
    };
    let file = learn(&runs, &names, a.threshold.pct())?;
    let path = noise::write(&file, a.out.as_deref())?;
    crate::error::out(&words(&file, &path))?;
    Ok(ExitCode::SUCCESS)
}

/// The results files of `--from`, which must be runs of one machine.
fn read_runs(paths: &[PathBuf]) -> Result<(Vec<RunResults>, Vec<String>), UsageError> {
    if paths.len() < 2 {
        return Err(UsageError(
            "--from needs at least two results files: a spread needs two runs".into(),
        ));
    }
    let runs = paths
        .iter()
        .map(|p| RunResults::read(p).map_err(|e| UsageError(format!("{e:#}"))))
        .collect::<Result<Vec<_>, _>>()?;
    let first = runs[0].env.machine_fingerprint();
    for (r, p) in runs.iter().zip(paths).skip(1) {
        let fp = r.env.machine_fingerprint();
        if fp.hash != first.hash {
            return Err(UsageError(format!(
                "{} and {} come from different machines or configurations ({}): a noise file is of one machine",
                paths[0].display(),
                p.display(),
                first.differences(&fp).join(", ")
            )));
        }
    }
    let names = paths.iter().map(|p| p.display().to_string()).collect();
    Ok((runs, names))
}

type Key = (String, String, Labels);

/// The noise file of `runs` (named `names`): each series' band, and the A/A
/// false alarms at `threshold_pct`.
pub fn learn(
    runs: &[RunResults],
    names: &[String],
    threshold_pct: f64,
) -> Result<NoiseFile, UsageError> {
    // Each series' rounds, one list per run that has it, in first-seen order.
    let mut order: Vec<Key> = Vec::new();
    let mut by_key: HashMap<Key, Vec<Vec<Vec<f64>>>> = HashMap::new();
    for r in runs {
        for e in r.experiments.iter().filter(|e| e.status == Status::Ok) {
            for m in &e.metrics {
                let key = (e.name.clone(), m.name.clone(), m.labels.clone());
                let slot = by_key.entry(key.clone()).or_insert_with(|| {
                    order.push(key);
                    Vec::new()
                });
                slot.push(m.round_samples());
            }
        }
    }
    let series: Vec<SeriesNoise> = order
        .into_iter()
        .filter_map(|key| {
            let noise = from_figures(&run_figures(&key, &by_key[&key])?)?;
            let (experiment, metric, labels) = key;
            Some(SeriesNoise {
                experiment,
                metric,
                labels,
                noise,
            })
        })
        .collect();
    if series.is_empty() {
        return Err(UsageError(
            "these runs share no series measured in at least two rounds each: nothing to learn a noise from (use --rounds 3 or more)".into(),
        ));
    }
    let first = &runs[0];
    let mut file = NoiseFile {
        schema: noise::NOISE_SCHEMA.into(),
        schema_version: noise::NOISE_VERSION,
        tool_version: env!("CARGO_PKG_VERSION").into(),
        created_unix_s: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64()),
        fingerprint: first.env.machine_fingerprint(),
        profile: first.profile.clone(),
        rounds: first.rounds,
        runs: runs.len(),
        estimator: noise::ESTIMATOR.into(),
        series,
        false_alarms: None,
    };
    let bands = Noise::new(file.clone(), PathBuf::from("(this calibration)"), false);
    file.false_alarms = Some(false_alarms(runs, names, threshold_pct, &bands));
    Ok(file)
}

/// Each run's figure of series `key` as `compare` gives it: its log median
/// and the squared standard error of it from its rounds (their cluster
/// bootstrap, `results::summarize_series`), so that the part of the runs'
/// spread taken off as their rounds' is the part compare's rows hold
/// already. Runs with fewer than two rounds are left out; None when a
/// round's median is not positive.
fn run_figures((e, m, l): &Key, runs: &[Vec<Vec<f64>>]) -> Option<Vec<(f64, f64)>> {
    let mut figures = Vec::new();
    for rounds in runs {
        if rounds.iter().filter(|r| !r.is_empty()).count() < 2 {
            continue;
        }
        let s = crate::results::summarize_series(e, m, l, rounds).ok()?;
        if !(s.median > 0.0 && s.round_medians.iter().all(|x| *x > 0.0)) {
            return None;
        }
        let se = s.se_ln?;
        figures.push((s.median.ln(), se * se));
    }
    Some(figures)
}

/// Every pair of runs compared as `compare` would at `threshold_pct`,
/// without and with the calibrated bands: the rows called changed.
fn false_alarms(
    runs: &[RunResults],
    names: &[String],
    threshold_pct: f64,
    bands: &Noise,
) -> FalseAlarms {
    let called = |rows: &[crate::compare::Row]| {
        rows.iter()
            .filter(|r| {
                matches!(
                    r.verdict,
                    Verdict::Improved | Verdict::Regressed | Verdict::Changed
                )
            })
            .count()
    };
    let mut fa = FalseAlarms {
        threshold_pct,
        pairs: 0,
        rows: 0,
        changed: 0,
        changed_with_noise: 0,
    };
    for i in 0..runs.len() {
        for j in i + 1..runs.len() {
            let side = |k: usize| (std::slice::from_ref(&runs[k]), vec![names[k].clone()]);
            let plain = crate::compare::comparison(side(i), side(j), threshold_pct, false, None);
            let with =
                crate::compare::comparison(side(i), side(j), threshold_pct, false, Some(bands));
            if let (Ok(p), Ok(w)) = (plain, with) {
                fa.pairs += 1;
                fa.rows += p.rows.len();
                fa.changed += called(&p.rows);
                fa.changed_with_noise += called(&w.rows);
            }
        }
    }
    fa
}

/// What the command prints.
pub fn words(f: &NoiseFile, path: &std::path::Path) -> String {
    let fp = &f.fingerprint;
    let mut s = format!(
        "noise file: {}\nmachine {}: {}, {} CPUs, kernel {}, {}, THP {}\n",
        path.display(),
        fp.hash,
        fp.cpu_model,
        fp.cpus_online,
        fp.kernel,
        fp.virtualization,
        fp.thp_enabled
    );
    let mut bands: Vec<&SeriesNoise> = f.series.iter().collect();
    bands.sort_by(|a, b| b.noise.band.total_cmp(&a.noise.band));
    let all: Vec<f64> = bands.iter().map(|b| b.noise.band).collect();
    let pct = |x: f64| format!("±{:.1}%", (x.exp() - 1.0) * 100.0);
    s.push_str(&format!(
        "learned from {} runs ({} profile, {} rounds): {} series; median band {}, {} of them 0 (their runs agreed within their rounds)\n",
        f.runs,
        f.profile,
        f.rounds,
        f.series.len(),
        crate::stats::median(&all).map_or("n/a".into(), pct),
        all.iter().filter(|b| **b == 0.0).count()
    ));
    for b in bands.iter().take(3).filter(|b| b.noise.band > 0.0) {
        s.push_str(&format!(
            "  widest: {} {} {}: {} (runs spread {}, rounds explain {})\n",
            b.experiment,
            b.metric,
            case_of(&b.labels),
            pct(b.noise.band),
            pct(b.noise.spread),
            pct(b.noise.within)
        ));
    }
    if let Some(fa) = &f.false_alarms {
        let share = |k: usize| {
            if fa.rows == 0 {
                "n/a".to_string()
            } else {
                format!("{:.1}%", 100.0 * k as f64 / fa.rows as f64)
            }
        };
        s.push_str(&format!(
            "A/A false alarms at ±{:.0}% over {} pair{} of runs ({} rows): {} rows called changed ({}) as compare judges without a noise file; {} ({}) with these bands (in-sample: learned from these same runs, so new runs may show more)\n",
            fa.threshold_pct,
            fa.pairs,
            if fa.pairs == 1 { "" } else { "s" },
            fa.rows,
            fa.changed,
            share(fa.changed),
            fa.changed_with_noise,
            share(fa.changed_with_noise)
        ));
    }
    s
}

#[cfg(test)]
mod tests;
