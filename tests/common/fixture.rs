//! Results files made in the test, with a known spread: a verdict, an
//! interval, a flag or a gate is tested on these, never on a measured run
//! whose noise would decide the assertion (issue 37).
//!
//! A file starts from `tests/data/report-results.json` (a real run, so every
//! field a results file has is there) and each series named is set to
//! constructed rounds: `rounds` rounds of `per_round` samples, each sample
//! within ±`rel_spread` of `median`, drawn from a fixed-seed generator, so
//! the same call gives the same file. The series is marked settled (not
//! unstable, nothing unsettled) and the rounds' canary records go, so
//! nothing the fixture's machine did plays a part.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The real run every fixture starts from.
pub const REPORT_RESULTS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/report-results.json"
);

/// One constructed series.
#[derive(Clone, Copy, Debug)]
pub struct Steady<'a> {
    pub experiment: &'a str,
    pub metric: &'a str,
    /// All of its labels, as in the file.
    pub labels: &'a [(&'a str, &'a str)],
    pub median: f64,
    /// Each sample lies within ±`rel_spread` of the median (0.01 = ±1%).
    pub rel_spread: f64,
    pub rounds: usize,
    pub per_round: usize,
}

/// The yardsticks' five series (four clocks, one system call), steady at
/// ±1%: the fixture most compare tests use.
pub const YARDSTICKS: [Steady<'static>; 5] = [
    steady(
        "yardstick.timer",
        "call_ns",
        &[("clock", "monotonic")],
        25.0,
    ),
    steady("yardstick.timer", "call_ns", &[("clock", "realtime")], 26.0),
    steady("yardstick.timer", "call_ns", &[("clock", "instant")], 27.0),
    steady("yardstick.timer", "call_ns", &[("clock", "rdtsc")], 9.5),
    steady(
        "yardstick.syscall",
        "call_ns",
        &[("call", "getppid")],
        150.0,
    ),
];

/// 8 rounds of 20 samples within ±1% of `median`.
pub const fn steady<'a>(
    experiment: &'a str,
    metric: &'a str,
    labels: &'a [(&'a str, &'a str)],
    median: f64,
) -> Steady<'a> {
    Steady {
        experiment,
        metric,
        labels,
        median,
        rel_spread: 0.01,
        rounds: 8,
        per_round: 20,
    }
}

/// The real run, parsed.
pub fn report_results() -> Value {
    serde_json::from_slice(&std::fs::read(REPORT_RESULTS).unwrap()).unwrap()
}

/// The fixture holding only the experiments of `series`, each with only
/// those series, all constructed ([`set_steady`]); the run's `rounds` is
/// the first series' rounds and its warnings are gone.
pub fn steady_results(series: &[Steady]) -> Value {
    let mut r = report_results();
    r["warnings"] = json!([]);
    if let Some(first) = series.first() {
        r["rounds"] = json!(first.rounds);
    }
    let exps = r["experiments"].as_array_mut().unwrap();
    exps.retain(|e| series.iter().any(|s| e["name"] == s.experiment));
    for e in exps.iter_mut() {
        let name = e["name"].clone();
        e["metrics"]
            .as_array_mut()
            .unwrap()
            .retain(|m| series.iter().any(|s| is(&name, m, s)));
    }
    for s in series {
        set_steady(&mut r, s);
    }
    r
}

/// Whether metric `m` of the experiment named `exp` is the series `s` names.
fn is(exp: &Value, m: &Value, s: &Steady) -> bool {
    let labels = m["labels"].as_object().map_or(0, |l| l.len());
    *exp == s.experiment
        && m["name"] == s.metric
        && labels == s.labels.len()
        && s.labels.iter().all(|(k, v)| m["labels"][*k] == *v)
}

/// The series `s` names in `r`; a panic naming it when there is none.
pub fn series_mut<'a>(r: &'a mut Value, s: &Steady) -> &'a mut Value {
    let e = r["experiments"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|e| e["name"] == s.experiment)
        .unwrap_or_else(|| panic!("no experiment {} in the fixture", s.experiment));
    let found = e["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .position(|m| is(&e["name"], m, s));
    let i = found.unwrap_or_else(|| panic!("no series {} {:?} in the fixture", s.metric, s.labels));
    &mut e["metrics"][i]
}

/// Sets the series `s` names in `r` to its constructed rounds, its summary
/// to match, marked settled; its experiment's round log is emptied.
pub fn set_steady(r: &mut Value, s: &Steady) {
    let rounds = steady_rounds(s);
    let m = series_mut(r, s);
    put_rounds(m, &rounds);
    for e in r["experiments"].as_array_mut().unwrap() {
        if e["name"] == s.experiment {
            e["round_log"] = json!([]);
        }
    }
}

/// `s`'s rounds: samples `median · (1 + rel_spread · u)`, with `u` in
/// [-1, 1) from a linear congruential generator seeded by the series' name,
/// so every call gives the same samples.
pub fn steady_rounds(s: &Steady) -> Vec<Vec<f64>> {
    let mut state = fnv1a(&format!("{}/{}/{:?}", s.experiment, s.metric, s.labels));
    let mut u = move || {
        // Knuth's MMIX constants; the top 53 bits as a fraction.
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    (0..s.rounds)
        .map(|_| {
            (0..s.per_round)
                .map(|_| s.median * (1.0 + s.rel_spread * u()))
                .collect()
        })
        .collect()
}

fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Puts `rounds` into the series `m` (its samples and round sizes) with a
/// summary that matches them, settled: `compare` and `ab` summarise the
/// samples anew, and read from the file's summary only whether it was
/// flagged.
pub fn put_rounds(m: &mut Value, rounds: &[Vec<f64>]) {
    let all: Vec<f64> = rounds.iter().flatten().copied().collect();
    m["samples"] = json!(all);
    m["rounds"] = json!(rounds.iter().map(Vec::len).collect::<Vec<_>>());
    let round_medians: Vec<f64> = rounds.iter().map(|r| quantile(r, 0.5)).collect();
    let n = all.len() as f64;
    let mean = all.iter().sum::<f64>() / n;
    let sd = (all.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0)).sqrt();
    let median = quantile(&all, 0.5);
    let (lo, hi) = (quantile(&round_medians, 0.0), quantile(&round_medians, 1.0));
    let s = &mut m["summary"];
    for (k, v) in [
        ("min", quantile(&all, 0.0)),
        ("max", quantile(&all, 1.0)),
        ("median", median),
        ("mean", mean),
        ("p10", quantile(&all, 0.10)),
        ("p25", quantile(&all, 0.25)),
        ("p75", quantile(&all, 0.75)),
        ("p90", quantile(&all, 0.90)),
        ("p99", quantile(&all, 0.99)),
        ("stddev", sd),
        ("ci95_lo", lo),
        ("ci95_hi", hi),
        ("within_ci95_lo", lo),
        ("within_ci95_hi", hi),
        (
            "rel_spread",
            (quantile(&all, 0.9) - quantile(&all, 0.1)) / median,
        ),
    ] {
        s[k] = json!(v);
    }
    s["n"] = json!(all.len());
    s["rounds"] = json!(rounds.len());
    s["round_medians"] = json!(round_medians);
    s["interval"] = json!(format!("95%, {} rounds", rounds.len()));
    s["outliers_low"] = json!(0);
    s["outliers_high"] = json!(0);
    s["noisy"] = json!(false);
    s["unstable"] = json!(false);
    if let Some(o) = s.as_object_mut() {
        o.remove("unsettled");
        o.remove("quantum");
    }
}

/// The `q` quantile of `v` (nearest rank).
fn quantile(v: &[f64], q: f64) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s[((s.len() - 1) as f64 * q).round() as usize]
}

/// Every sample and summary figure of the series `s` names times `k`.
pub fn scale(r: &mut Value, s: &Steady, k: f64) {
    let m = series_mut(r, s);
    for v in m["samples"].as_array_mut().unwrap() {
        *v = json!(v.as_f64().unwrap() * k);
    }
    for v in m["summary"]["round_medians"].as_array_mut().unwrap() {
        *v = json!(v.as_f64().unwrap() * k);
    }
    for f in [
        "min",
        "max",
        "median",
        "mean",
        "p10",
        "p25",
        "p75",
        "p90",
        "p99",
        "stddev",
        "ci95_lo",
        "ci95_hi",
        "within_ci95_lo",
        "within_ci95_hi",
    ] {
        let x = m["summary"][f].as_f64().unwrap();
        m["summary"][f] = json!(x * k);
    }
}

/// `r` as another run of the same machine: started `hours` later, with
/// another seed.
pub fn another_run(r: &Value, hours: u64) -> Value {
    let mut r = r.clone();
    let later = 3600.0 * hours as f64;
    for k in ["started_unix_s", "finished_unix_s"] {
        r[k] = json!(r[k].as_f64().unwrap() + later);
    }
    r["seed"] = json!(r["seed"].as_u64().unwrap().wrapping_add(hours));
    r
}

/// Writes `r` to `dir/name`; its path.
pub fn write(dir: &Path, name: &str, r: &Value) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_vec(r).unwrap()).unwrap();
    p
}
