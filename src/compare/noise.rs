//! The noise file: each series' run-to-run band on one machine, learned by
//! `tasklab calibrate` (`stats::noise`), keyed by the machine's fingerprint
//! (`env::Fingerprint`). `compare` reads it (`--noise FILE`, or the file the
//! private cache holds for the base side's fingerprint) and widens each
//! row's interval to at least the calibrated band.
//!
//! The file is `{"schema": "tasklab-noise", "schema_version": 1, ...}`
//! (docs/results-schema.md). In the cache it lives in
//! `$XDG_CACHE_HOME/tasklab/noise/` (else `~/.cache/tasklab/noise/`), a
//! private folder (`sys::private`), as `noise-<fingerprint hash>.json`,
//! written through an `O_EXCL` temporary and renamed (`sys::safefile`), and
//! read only when it is a regular file of yours that no one else can write.

use crate::env::Fingerprint;
use crate::error::UsageError;
use crate::results::Labels;
use crate::stats::noise::{Calibrated, RunNoise};
use crate::sys::{private, safefile};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

pub const NOISE_SCHEMA: &str = "tasklab-noise";
pub const NOISE_VERSION: u32 = 1;
/// The largest noise file read: one line of figures per series.
pub const MAX_NOISE_BYTES: u64 = 16 << 20;

/// How the band was estimated, written into every file for its reader.
pub const ESTIMATOR: &str = "per series: spread, the standard deviation of the runs' log medians; within, the root mean squared standard error their own rounds give (as compare computes it); band, the square root of spread² less within² (at least 0) times t(0.975, runs - 1): a 95% half-width in logs of one run's offset. compare moderates each series' spread² by its family's (an empirical-Bayes prior fitted on the log scale), takes within² off, and never goes wider than the series' own spread gives without the file";

/// One series' noise.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeriesNoise {
    pub experiment: String,
    pub metric: String,
    pub labels: Labels,
    #[serde(flatten)]
    pub noise: RunNoise,
}

/// The A/A false alarms of the calibration's runs: every pair of runs
/// compared as `compare` would, at the threshold, once as today (the
/// default run noise) and once with the calibrated bands.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FalseAlarms {
    pub threshold_pct: f64,
    pub pairs: usize,
    /// Rows compared, over all pairs.
    pub rows: usize,
    /// Rows called improved, regressed or changed.
    pub changed: usize,
    /// The same with the calibrated bands (in-sample: the bands were
    /// learned from these runs, so this is a lower bound of what new runs
    /// will show).
    pub changed_with_noise: usize,
}

/// The noise file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NoiseFile {
    pub schema: String,
    pub schema_version: u32,
    pub tool_version: String,
    pub created_unix_s: f64,
    /// The machine the runs were measured on.
    pub fingerprint: Fingerprint,
    /// The runs' profile and rounds, and how many runs.
    pub profile: String,
    pub rounds: usize,
    pub runs: usize,
    pub estimator: String,
    pub series: Vec<SeriesNoise>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub false_alarms: Option<FalseAlarms>,
}

type Key = (String, String, Labels);

/// A noise file ready for lookups, with where it came from.
#[derive(Clone, Debug)]
pub struct Noise {
    pub file: NoiseFile,
    /// The path, and whether it was found in the cache (not named).
    pub path: PathBuf,
    pub from_cache: bool,
    index: HashMap<Key, RunNoise>,
}

impl Noise {
    pub fn new(file: NoiseFile, path: PathBuf, from_cache: bool) -> Noise {
        let index = file
            .series
            .iter()
            .map(|s| {
                (
                    (s.experiment.clone(), s.metric.clone(), s.labels.clone()),
                    s.noise.clone(),
                )
            })
            .collect();
        Noise {
            file,
            path,
            from_cache,
            index,
        }
    }

    /// The band of a series, if it was calibrated.
    pub fn band(&self, experiment: &str, metric: &str, labels: &Labels) -> Option<f64> {
        self.noise(experiment, metric, labels).map(|n| n.band)
    }

    /// What the runs of a series showed, if it was calibrated.
    pub fn noise(&self, experiment: &str, metric: &str, labels: &Labels) -> Option<&RunNoise> {
        self.index
            .get(&(experiment.to_string(), metric.to_string(), labels.clone()))
    }

    /// A series' calibration as compare moderates it
    /// (`stats::noise::Calibrated`), if it was calibrated.
    pub fn calibrated(
        &self,
        experiment: &str,
        metric: &str,
        labels: &Labels,
    ) -> Option<Calibrated> {
        self.noise(experiment, metric, labels)?.calibrated()
    }

    /// Refuses a noise file from another machine than `fp`'s (`what` names
    /// the files that machine ran), with what differs.
    pub fn check_machine(&self, fp: &Fingerprint, what: &str) -> Result<(), UsageError> {
        if self.file.fingerprint.hash == fp.hash {
            return Ok(());
        }
        Err(UsageError(format!(
            "the noise file {} is from another machine (fingerprint {}) than {what} (fingerprint {}): {} (the noise file's -> theirs); calibrate on that machine (tasklab calibrate), or compare without --noise",
            self.path.display(),
            self.file.fingerprint.hash,
            fp.hash,
            self.file.fingerprint.differences(fp).join(", ")
        )))
    }
}

/// Parses and checks a noise file's bytes (`shown` names it in errors):
/// JSON, our schema and version, a fingerprint whose hash is of its fields,
/// every band a finite number at least 0.
pub fn parse(bytes: &[u8], shown: &str) -> Result<NoiseFile, String> {
    let v: serde_json::Value = serde_json::from_slice(bytes)
        .map_err(|e| format!("{shown} is not valid JSON (truncated?): {e}"))?;
    if v.get("schema").and_then(|s| s.as_str()) != Some(NOISE_SCHEMA) {
        return Err(format!(
            "{shown} is not a tasklab noise file (no \"schema\": \"{NOISE_SCHEMA}\"; tasklab calibrate writes one)"
        ));
    }
    let ver = v.get("schema_version").and_then(|s| s.as_u64());
    if ver != Some(NOISE_VERSION as u64) {
        return Err(format!(
            "{shown} is a noise file of schema version {}, this tasklab reads version {NOISE_VERSION}: calibrate again",
            ver.map_or("none".to_string(), |v| v.to_string())
        ));
    }
    let f: NoiseFile = serde_json::from_value(v)
        .map_err(|e| format!("{shown} does not match the noise file's schema: {e}"))?;
    if !f.fingerprint.is_consistent() {
        return Err(format!(
            "{shown} is damaged: its fingerprint's hash {} is not that of its fields ({})",
            f.fingerprint.hash,
            f.fingerprint.computed_hash()
        ));
    }
    if let Some(s) = f
        .series
        .iter()
        .find(|s| !(s.noise.band.is_finite() && s.noise.band >= 0.0))
    {
        return Err(format!(
            "{shown} is damaged: the band of {} {} is {}, not a number at least 0",
            s.experiment, s.metric, s.noise.band
        ));
    }
    // compare moderates the spread and takes the within off
    // (`stats::noise::Calibrated`).
    let bad = |x: f64| !(x.is_finite() && x >= 0.0);
    if let Some(s) = f
        .series
        .iter()
        .find(|s| bad(s.noise.spread) || bad(s.noise.within))
    {
        return Err(format!(
            "{shown} is damaged: the spread or within of {} {} is {} or {}, not a number at least 0",
            s.experiment, s.metric, s.noise.spread, s.noise.within
        ));
    }
    Ok(f)
}

/// Reads the noise file the user named.
pub fn read(path: &Path) -> Result<Noise, UsageError> {
    let bytes = safefile::read_bounded(path, MAX_NOISE_BYTES).map_err(UsageError)?;
    let file = parse(&bytes, &path.display().to_string()).map_err(UsageError)?;
    Ok(Noise::new(file, path.to_path_buf(), false))
}

/// The cache's noise folder (made private if need be).
pub fn cache_dir() -> Result<PathBuf, String> {
    let root = private::cache_root_now()
        .ok_or_else(|| "neither XDG_CACHE_HOME nor HOME is set".to_string())?;
    private::private_dir(&root, Path::new("tasklab/noise"))
}

/// The noise file's name in the cache for a machine.
pub fn cache_name(fp: &Fingerprint) -> String {
    format!("noise-{}.json", fp.hash)
}

/// The noise file the cache holds for `fp`, if there is one. A file there
/// that is not private (a link, another user's, writable by others) or not
/// a good noise file is an error naming it: it is never used quietly.
pub fn from_cache(fp: &Fingerprint) -> Result<Option<Noise>, UsageError> {
    let Some(root) = private::cache_root_now() else {
        return Ok(None);
    };
    let dir = root.join("tasklab/noise");
    let path = dir.join(cache_name(fp));
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(None);
    }
    let fix = "remove it, or pass --no-noise";
    // Only from a folder no one else could have put it in.
    private::trusted_dir(&dir).map_err(|e| {
        UsageError(format!(
            "the cached noise file {} cannot be used: {e} ({fix})",
            path.display()
        ))
    })?;
    let mut f = private::open_private_file(&path).map_err(|e| {
        UsageError(format!(
            "the cached noise file {} cannot be used: {e} ({fix})",
            path.display()
        ))
    })?;
    let mut bytes = Vec::new();
    (&mut f)
        .take(MAX_NOISE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| UsageError(format!("cannot read {}: {e}", path.display())))?;
    if bytes.len() as u64 > MAX_NOISE_BYTES {
        return Err(UsageError(format!(
            "the cached noise file {} is over {} MiB ({fix})",
            path.display(),
            MAX_NOISE_BYTES >> 20
        )));
    }
    let file = parse(&bytes, &path.display().to_string())
        .map_err(|e| UsageError(format!("the cached noise file: {e} ({fix})")))?;
    let noise = Noise::new(file, path, true);
    noise.check_machine(fp, "the base files")?;
    Ok(Some(noise))
}

/// Writes `file` to `dest`, or into the cache under its fingerprint's name;
/// returns where it went.
pub fn write(file: &NoiseFile, dest: Option<&Path>) -> anyhow::Result<PathBuf> {
    let mut bytes = serde_json::to_vec_pretty(file)?;
    bytes.push(b'\n');
    match dest {
        Some(p) => {
            safefile::write_file(p, &bytes)?;
            Ok(p.to_path_buf())
        }
        None => {
            let dir = cache_dir().map_err(|e| {
                anyhow::anyhow!(
                    "no private cache folder for the noise file: {e}; name one with --out FILE"
                )
            })?;
            let out = safefile::OutDir::open(&dir, safefile::Trust::Explicit)
                .map_err(anyhow::Error::msg)?;
            let name = cache_name(&file.fingerprint);
            out.write(&name, &bytes)?;
            Ok(out.shown(&name))
        }
    }
}

#[cfg(test)]
#[path = "noise_tests.rs"]
mod tests;
