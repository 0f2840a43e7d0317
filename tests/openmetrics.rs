//! `--export-openmetrics` read back by a real parser (the openmetrics-parser
//! crate, in both its OpenMetrics and its Prometheus text 0.0.4 modes: the
//! textfile collector of node_exporter reads the latter): the text parses,
//! every family is a typed gauge with its unit and help, every series'
//! median and interval bounds are the results file's in base units, and a
//! label value with quotes, backslashes and a newline comes back as it was.

mod common;

use common::{report_stdout, tasklab};
use openmetrics_parser::{
    openmetrics::parse_openmetrics, prometheus::parse_prometheus, MetricsExposition,
    OpenMetricsType, OpenMetricsValue,
};
use std::path::{Path, PathBuf};
use tasklab::api::report::openmetrics::{base_unit, family_name, label_name};
use tasklab::api::results::{Metric, RunResults};
use tasklab::api::units::Unit;

type Parsed = MetricsExposition<OpenMetricsType, OpenMetricsValue>;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-results.json")
}

/// `tasklab report FILE --out DIR --export-openmetrics DIR/tasklab.prom`:
/// the text written, and the folder.
fn export(file: &Path) -> (String, tempfile::TempDir) {
    let d = tempfile::tempdir().unwrap();
    let prom = d.path().join("tasklab.prom");
    let prom_arg = prom.to_str().unwrap();
    report_stdout(
        file,
        &d.path().join("report"),
        &["--export-openmetrics", prom_arg],
    );
    (std::fs::read_to_string(&prom).unwrap(), d)
}

fn parse(text: &str) -> Parsed {
    match parse_openmetrics(text) {
        Ok(p) => p,
        Err(e) => panic!("the OpenMetrics parser refused the export: {e:?}"),
    }
}

/// The value of the one sample of `family` with the labels `with`: every
/// other label empty (absent, to Prometheus) but the run's `label` and
/// `fingerprint`.
fn value(p: &Parsed, family: &str, with: &[(&str, &str)]) -> f64 {
    let f = p
        .families
        .get(family)
        .unwrap_or_else(|| panic!("no family {family}"));
    let hits: Vec<f64> = f
        .iter_samples()
        .filter(|s| {
            let l = s.get_labelset().unwrap();
            with.iter().all(|(k, v)| l.get_label_value(k) == Some(*v))
                && l.iter().all(|(k, v)| {
                    v.is_empty()
                        || ["label", "fingerprint"].contains(&k.as_str())
                        || with.iter().any(|(w, _)| w == k)
                })
        })
        .map(|s| match &s.value {
            OpenMetricsValue::Gauge(n) => n.as_f64(),
            other => panic!("{family} is not a gauge: {other:?}"),
        })
        .collect();
    assert_eq!(hits.len(), 1, "{family} {with:?}: {} samples", hits.len());
    hits[0]
}

/// Whether two figures are equal to the last printed digit.
fn same(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
}

fn results() -> RunResults {
    RunResults::read(&fixture()).unwrap()
}

/// The labels a series' samples carry: its experiment and its own labels.
fn series_labels(experiment: &str, m: &Metric) -> Vec<(String, String)> {
    let mut l = vec![("experiment".to_string(), experiment.to_string())];
    l.extend(m.labels.iter().map(|(k, v)| (label_name(k), v.clone())));
    l
}

#[test]
fn the_export_parses_as_openmetrics_and_as_prometheus_text() {
    let (text, d) = export(&fixture());
    assert!(text.ends_with("# EOF\n"), "no # EOF at the end");
    assert_eq!(text.matches("# EOF").count(), 1);
    let p = parse(&text);
    assert!(p.families.len() > 50, "{} families", p.families.len());
    if let Err(e) = parse_prometheus(&text) {
        panic!("the Prometheus text parser refused the export: {e:?}");
    }
    // Written by rename: nothing but the file and the report folder.
    let mut names: Vec<String> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["report", "tasklab.prom"]);
}

#[test]
fn every_family_is_a_tasklab_gauge_with_help_and_its_base_unit() {
    let (text, _d) = export(&fixture());
    let p = parse(&text);
    for (name, f) in &p.families {
        assert!(name.starts_with("tasklab_"), "{name}");
        assert_eq!(f.family_type, OpenMetricsType::Gauge, "{name}");
        assert!(!f.help.trim().is_empty(), "{name} has no help");
        if !f.unit.is_empty() {
            assert!(name.ends_with(&format!("_{}", f.unit)), "{name} {}", f.unit);
            assert!(["seconds", "bytes", "hertz", "ratio"].contains(&f.unit.as_str()));
        }
        // No timestamps: the textfile collector refuses them.
        assert!(f.iter_samples().all(|s| s.timestamp.is_none()), "{name}");
    }
    assert_eq!(p.families["tasklab_call_seconds"].unit, "seconds");
    assert_eq!(p.families["tasklab_rss_bytes"].unit, "bytes");
    for n in ["tasklab_call_seconds", "tasklab_lifecycle_seconds"] {
        for part in ["ci95_lo", "ci95_hi"] {
            let b = n.replace("_seconds", &format!("_{part}_seconds"));
            assert!(p.families.contains_key(&b), "no {b}");
        }
    }
}

#[test]
fn the_summarys_figures_are_the_results_medians_in_seconds() {
    let (text, _d) = export(&fixture());
    let p = parse(&text);
    let r = results();
    let label = r.label();
    // A bare system call and a fork+reap at 0 B, named as people would
    // look for them: a nanosecond figure is written in seconds.
    let call = r
        .experiments
        .iter()
        .find(|e| e.name == "yardstick.syscall")
        .unwrap()
        .metrics
        .iter()
        .find(|m| m.name == "call_ns")
        .unwrap();
    let got = value(
        &p,
        "tasklab_call_seconds",
        &[
            ("experiment", "yardstick.syscall"),
            ("label", &label),
            ("call", call.label("call").unwrap()),
        ],
    );
    assert!(
        same(got, call.summary.median / 1e9),
        "{got} against {} ns",
        call.summary.median
    );
    let fork = r
        .experiments
        .iter()
        .find(|e| e.name == "spawn.heap")
        .unwrap()
        .metrics
        .iter()
        .find(|m| {
            m.name == "lifecycle_ns"
                && [("method", "fork"), ("heap", "0 B"), ("thp", "system")]
                    .iter()
                    .all(|(k, v)| m.label(k) == Some(*v))
                && m.label("call").is_none()
        })
        .unwrap();
    let with = [
        ("experiment", "spawn.heap"),
        ("method", "fork"),
        ("heap", "0 B"),
        ("heap_bytes", "0"),
        ("thp", "system"),
    ];
    let s = &fork.summary;
    for (family, figure) in [
        ("tasklab_lifecycle_seconds", s.median),
        ("tasklab_lifecycle_ci95_lo_seconds", s.ci95_lo),
        ("tasklab_lifecycle_ci95_hi_seconds", s.ci95_hi),
    ] {
        let got = value(&p, family, &with);
        assert!(
            same(got, figure / 1e9),
            "{family}: {got} against {figure} ns"
        );
    }
}

#[test]
fn every_series_median_and_bounds_are_in_the_export_in_base_units() {
    let (text, _d) = export(&fixture());
    let p = parse(&text);
    let r = results();
    let mut checked = 0;
    for e in &r.experiments {
        for m in &e.metrics {
            let (_, _, k) = base_unit(m.unit);
            let l = series_labels(&e.name, m);
            let with: Vec<(&str, &str)> = l.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
            let s = &m.summary;
            for (part, figure) in [
                ("", s.median),
                ("ci95_lo", s.ci95_lo),
                ("ci95_hi", s.ci95_hi),
            ] {
                let family = family_name(&m.name, m.unit, part);
                let got = value(&p, &family, &with);
                assert!(
                    same(got, figure * k),
                    "{family} {with:?}: {got} against {figure} {}",
                    m.unit.name()
                );
                checked += 1;
            }
            let flag = value(
                &p,
                "tasklab_series_unstable",
                &[
                    with.as_slice(),
                    &[("series", &family_name(&m.name, m.unit, ""))],
                ]
                .concat(),
            );
            assert_eq!(flag, if s.unstable { 1.0 } else { 0.0 });
        }
    }
    assert!(checked > 300, "{checked} figures checked");
}

#[test]
fn units_convert_to_base_units() {
    assert_eq!(family_name("call_ns", Unit::Ns, ""), "tasklab_call_seconds");
    assert_eq!(
        family_name("cpu_ns_per_job", Unit::Ns, "ci95_lo"),
        "tasklab_cpu_per_job_ci95_lo_seconds"
    );
    assert_eq!(family_name("rss_kib", Unit::Kib, ""), "tasklab_rss_bytes");
    assert_eq!(
        family_name("iterations_per_s", Unit::PerSecond, "ci95_hi"),
        "tasklab_iterations_per_second_ci95_hi"
    );
    assert_eq!(
        family_name("timed_pct", Unit::Percent, ""),
        "tasklab_timed_ratio"
    );
    assert_eq!(family_name("speedup", Unit::Ratio, ""), "tasklab_speedup");
    // A plain number never ends in a suffix OpenMetrics keeps for others.
    assert_eq!(
        family_name("jobs_total", Unit::Count, ""),
        "tasklab_jobs_total_value"
    );
    assert_eq!(base_unit(Unit::Kib).2, 1024.0);
    assert_eq!(base_unit(Unit::Percent).2, 0.01);
}

#[test]
fn a_label_value_with_quotes_backslashes_and_a_newline_comes_back_as_it_was() {
    let odd = "say \"hi\" \\ C:\\path\\ {a=\"b\"}\nsecond line";
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture()).unwrap()).unwrap();
    let e = v["experiments"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|e| e["name"] == "yardstick.syscall")
        .unwrap();
    e["metrics"][0]["labels"]["odd key"] = odd.into();
    // A series label named like one tasklab sets keeps its own name apart.
    e["metrics"][0]["labels"]["experiment"] = "theirs".into();
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("results.json");
    std::fs::write(&file, serde_json::to_string(&v).unwrap()).unwrap();
    let (text, _d2) = export(&file);
    assert!(text.contains(r#"odd_key="say \"hi\" \\ C:\\path\\ {a=\"b\"}\nsecond line""#));
    let p = parse(&text);
    let got = value(
        &p,
        "tasklab_call_seconds",
        &[
            ("experiment", "yardstick.syscall"),
            ("call", "getppid"),
            ("odd_key", odd),
            ("series_experiment", "theirs"),
        ],
    );
    assert!(got > 0.0);
    parse_prometheus(&text).expect("the Prometheus text parser reads it too");
}

#[test]
fn the_run_info_names_the_run_and_its_machine_once() {
    let (text, _d) = export(&fixture());
    let p = parse(&text);
    let r = results();
    let info = &p.families["tasklab_run_info"];
    assert_eq!(info.iter_samples().count(), 1);
    let s = info.iter_samples().next().unwrap();
    let l = s.get_labelset().unwrap();
    assert_eq!(l.get_label_value("label"), Some(r.label().as_str()));
    assert_eq!(
        l.get_label_value("tool_version"),
        Some(r.tool_version.as_str())
    );
    assert_eq!(
        l.get_label_value("hardware_class"),
        Some(r.hardware_class().as_str())
    );
    assert!(l.get_label_value("run_id").is_some());
    // The run id is on the info sample only, never on a series.
    let with_id = p
        .families
        .iter()
        .filter(|(n, _)| *n != "tasklab_run_info")
        .filter(|(_, f)| f.get_label_names().iter().any(|n| n == "run_id"))
        .count();
    assert_eq!(with_id, 0);
    assert_eq!(
        value(&p, "tasklab_run_start_timestamp_seconds", &[]),
        r.started_unix_s
    );
}

#[test]
fn a_dash_writes_the_text_on_stdout() {
    let d = tempfile::tempdir().unwrap();
    let out = tasklab()
        .arg("report")
        .arg(fixture())
        .arg("--out")
        .arg(d.path())
        .args(["--export-openmetrics", "-"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    parse(&text);
    assert!(text.ends_with("# EOF\n"));
}

#[test]
fn a_destination_that_cannot_be_written_is_refused_before_anything_is_written() {
    let d = tempfile::tempdir().unwrap();
    let report = d.path().join("report");
    for args in [
        vec!["--export-openmetrics", "/nonexistent-tasklab/x.prom"],
        vec!["--export-openmetrics", "-", "--csv"],
    ] {
        let out = tasklab()
            .arg("report")
            .arg(fixture())
            .arg("--out")
            .arg(&report)
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--export-openmetrics"), "{args:?}: {err}");
        assert!(!report.exists(), "{args:?} wrote the report folder");
    }
}

#[test]
fn the_summarys_quantities_are_their_own_family_the_fork_slope_among_them() {
    let (text, _d) = export(&fixture());
    let p = parse(&text);
    let r = results();
    let picks = tasklab::api::matrix::rows::summary_picks(&r);
    assert!(picks.len() >= 10, "{} picks", picks.len());
    // The system call's row is the yardstick's median, in seconds.
    let call = r
        .experiments
        .iter()
        .find(|e| e.name == "yardstick.syscall")
        .and_then(|e| e.metrics.iter().find(|m| m.name == "call_ns"))
        .expect("the fixture's system call");
    let got = value(
        &p,
        "tasklab_summary_seconds",
        &[("quantity", "a bare system call")],
    );
    assert!(same(got, call.summary.median * 1e-9), "{got}");
    // Every pick with a figure has its three gauges, the median within
    // its bounds: fork's growth per 100 MiB too, which no series holds.
    let slope = picks
        .iter()
        .find(|p| p.slope_from.is_some())
        .expect("fork's slope is a Summary quantity of the fixture");
    let f = slope.figure(&r).expect("the fixture has both heaps");
    let with = [("quantity", slope.name.as_str())];
    let fam = "tasklab_summary_fork_growth_per_100mib";
    let lo = value(&p, &format!("{fam}_ci95_lo_seconds"), &with);
    let mid = value(&p, &format!("{fam}_seconds"), &with);
    let hi = value(&p, &format!("{fam}_ci95_hi_seconds"), &with);
    let flag = value(&p, "tasklab_summary_unstable", &with);
    assert_eq!(flag, if f.mark == "!" { 1.0 } else { 0.0 });
    assert!(lo <= mid && mid <= hi, "{lo} {mid} {hi}");
    assert!(same(mid, f.median * 1e-9), "{mid}");
}
