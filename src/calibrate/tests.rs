use super::*;
use crate::compare::noise::{parse, NOISE_SCHEMA};
use std::path::Path;

/// `n` rounds of 20 samples around `at`, each round off by a fixed small
/// wobble, as a run would record them (samples and round sizes).
fn rounds_around(at: f64, n: usize) -> (Vec<f64>, Vec<usize>) {
    let mut samples = Vec::new();
    for r in 0..n {
        let round = at * (1.0 + 0.002 * ((r % 3) as f64 - 1.0));
        samples.extend((0..20).map(|i| round * (1.0 + 0.0005 * (i % 5) as f64)));
    }
    (samples, vec![20; n])
}

/// A run of the fixture's yardsticks in which the syscall series sits at
/// `100 · k` ns and the monotonic clock's at 28 ns whatever `k`: the first
/// moves from run to run, the second does not. The canary records go, so
/// the machine's speed plays no part.
fn run_at(k: f64) -> RunResults {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-results.json");
    let mut r = RunResults::read(&path).unwrap();
    r.experiments
        .retain(|e| e.name == "yardstick.syscall" || e.name == "yardstick.timer");
    for e in &mut r.experiments {
        e.round_log.clear();
        // The system call and the monotonic clock's warm read only (the
        // timer's empty regions carry a `call` label too: left out).
        e.metrics.retain(|m| {
            m.name != "region_ns"
                && (m.labels.contains_key("call")
                    || m.labels.get("clock").map(String::as_str) == Some("monotonic"))
        });
        for m in &mut e.metrics {
            let at = if m.labels.contains_key("call") {
                100.0 * k
            } else {
                28.0
            };
            (m.samples, m.rounds) = rounds_around(at, 8);
            m.summary =
                crate::results::summarize_series(&e.name, &m.name, &m.labels, &m.round_samples())
                    .unwrap();
        }
    }
    r.warnings.clear();
    r
}

fn names(n: usize) -> Vec<String> {
    (1..=n).map(|k| format!("results-{k}.json")).collect()
}

fn band_of(f: &NoiseFile, labels_key: &str) -> f64 {
    f.series
        .iter()
        .find(|s| s.labels.contains_key(labels_key))
        .unwrap()
        .noise
        .band
}

#[test]
fn a_series_that_moves_between_runs_gets_a_wider_band_than_one_that_does_not() {
    let runs: Vec<RunResults> = [1.0, 1.12, 0.93, 1.05].map(run_at).to_vec();
    let f = learn(&runs, &names(4), 5.0).unwrap();
    assert_eq!(f.schema, NOISE_SCHEMA);
    assert_eq!(f.runs, 4);
    assert_eq!(f.fingerprint, runs[0].env.machine_fingerprint());
    let moving = band_of(&f, "call");
    let steady = band_of(&f, "clock");
    assert!(moving > steady, "{moving} vs {steady}");
    assert!(moving > 0.05, "{moving}");
    // The file reads back as it was written (floats to their last digits:
    // JSON's text of a float need not parse back bit for bit).
    let back = parse(&serde_json::to_vec(&f).unwrap(), "x").unwrap();
    assert_eq!(back.fingerprint, f.fingerprint);
    assert_eq!(back.series.len(), f.series.len());
    for (a, b) in back.series.iter().zip(&f.series) {
        assert_eq!(
            (&a.experiment, &a.metric, &a.labels),
            (&b.experiment, &b.metric, &b.labels)
        );
        assert!((a.noise.band - b.noise.band).abs() <= 1e-12 * b.noise.band.max(1.0));
    }
}

#[test]
fn the_false_alarms_of_the_runs_are_counted_without_and_with_the_file() {
    // The syscall series moves 12% between runs while each run's rounds
    // agree closely: compare without a noise file calls that a change, and
    // with it too, since a calibration never widens a row beyond what its
    // own spread gives (docs/REPEATABILITY.md "Session 22").
    let runs: Vec<RunResults> = [1.0, 1.12, 0.93, 1.05].map(run_at).to_vec();
    let f = learn(&runs, &names(4), 5.0).unwrap();
    let fa = f.false_alarms.clone().unwrap();
    assert_eq!(fa.pairs, 6);
    assert_eq!(fa.rows, 12, "{fa:?}");
    assert!(fa.changed >= 1, "{fa:?}");
    assert_eq!(fa.changed_with_noise, fa.changed, "{fa:?}");
    let text = words(&f, Path::new("/tmp/n.json"));
    assert!(
        text.contains("A/A false alarms at ±5% over 6 pairs of runs (12 rows)"),
        "{text}"
    );
    assert!(
        text.contains("widest: yardstick.syscall call_ns call=getppid"),
        "{text}"
    );
}

#[test]
fn a_calibration_never_widens_a_row_beyond_what_its_own_spread_gives() {
    // The machine moved the syscall series by up to 12% between the
    // calibration's runs, but a row's interval does not take that width
    // from another hour's runs: the 10% regression is still called, and
    // the file is named.
    let runs: Vec<RunResults> = [1.0, 1.12, 0.93, 1.05].map(run_at).to_vec();
    let noise = Noise::new(
        learn(&runs, &names(4), 5.0).unwrap(),
        PathBuf::from("n.json"),
        false,
    );
    let base = [run_at(1.0)];
    let new = [run_at(1.10)];
    fn side<'a>(r: &'a [RunResults], n: &str) -> (&'a [RunResults], Vec<String>) {
        (r, vec![n.to_string()])
    }
    let verdict = |c: &crate::compare::Comparison| {
        c.rows
            .iter()
            .find(|r| r.labels.contains_key("call"))
            .unwrap()
            .verdict
    };
    let plain =
        crate::compare::comparison(side(&base, "a"), side(&new, "b"), 5.0, false, None).unwrap();
    assert_eq!(verdict(&plain), Verdict::Regressed);
    assert!(plain.noise.is_none());
    let widened =
        crate::compare::comparison(side(&base, "a"), side(&new, "b"), 5.0, false, Some(&noise))
            .unwrap();
    assert_eq!(verdict(&widened), Verdict::Regressed);
    let tau = |c: &crate::compare::Comparison| {
        c.rows
            .iter()
            .find(|r| r.labels.contains_key("call"))
            .unwrap()
            .run_noise_pct
    };
    assert!(
        tau(&widened) <= tau(&plain),
        "{} > {}",
        tau(&widened),
        tau(&plain)
    );
    let used = widened.noise.as_ref().unwrap();
    assert_eq!(used.rows, 2);
    assert!(used.new_machine_differs.is_empty());
    let text = crate::compare::render::render(&widened, true);
    assert!(
        text.contains("noise: n.json (named with --noise; machine"),
        "{text}"
    );
    // The steady series keeps its verdict: its band is narrow.
    let steady = |c: &crate::compare::Comparison| {
        c.rows
            .iter()
            .find(|r| r.labels.contains_key("clock"))
            .unwrap()
            .verdict
    };
    assert_eq!(steady(&plain), Verdict::Unchanged);
    assert_eq!(steady(&widened), Verdict::Unchanged);
}

#[test]
fn runs_of_different_machines_or_too_few_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let a = d.path().join("a.json");
    let b = d.path().join("b.json");
    let one = run_at(1.0);
    let mut other = run_at(1.0);
    other.env.kernel = "9.9.9-other".into();
    std::fs::write(&a, one.to_json().unwrap()).unwrap();
    std::fs::write(&b, other.to_json().unwrap()).unwrap();
    let e = read_runs(&[a.clone(), b]).unwrap_err();
    assert!(
        e.0.contains("different machines") && e.0.contains("kernel"),
        "{}",
        e.0
    );
    let e = read_runs(std::slice::from_ref(&a)).unwrap_err();
    assert!(e.0.contains("at least two"), "{}", e.0);
}
