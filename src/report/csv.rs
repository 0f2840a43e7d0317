//! The CSV export: every series of a run as one row, for spreadsheets and
//! scripts (`--export-csv`, `--csv`). Every row also names its run (the
//! label, the run id, the kernel, the CPU and the start time, UTC), so
//! rows of many runs can be pooled in one sheet.

use crate::results::RunResults;

/// Every metric as one CSV row, for spreadsheets and scripts.
pub fn render(r: &RunResults) -> anyhow::Result<String> {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    w.write_record([
        "experiment",
        "group",
        "metric",
        "labels",
        "unit",
        "n",
        "min",
        "median",
        "mean",
        "p90",
        "p99",
        "max",
        "stddev",
        "ci95_lo",
        "ci95_hi",
        "outliers",
        "noisy",
        "seed_lo",
        "seed_hi",
        "seed_source",
        "ours_over_seed",
        "rounds",
        "interval",
        "unstable",
        "within_ci95_lo",
        "within_ci95_hi",
        "run_label",
        "run_id",
        "kernel",
        "cpu_model",
        "started_utc",
    ])?;
    let num = |v: f64| format!("{v}");
    let run = [
        r.label(),
        r.run_id().unwrap_or_default(),
        r.env.kernel.clone(),
        r.env.cpu_model.clone(),
        started(r.started_unix_s),
    ];
    for e in &r.experiments {
        for m in &e.metrics {
            let s = &m.summary;
            let labels: Vec<String> = m.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let (slo, shi, src) = m
                .seed
                .as_ref()
                .map_or((String::new(), String::new(), String::new()), |x| {
                    (num(x.lo), num(x.hi), x.source.clone())
                });
            w.write_record([
                e.name.clone(),
                e.group.clone(),
                m.name.clone(),
                labels.join(" "),
                m.unit.name().to_string(),
                s.n.to_string(),
                num(s.min),
                num(s.median),
                num(s.mean),
                num(s.p90),
                num(s.p99),
                num(s.max),
                num(s.stddev),
                num(s.ci95_lo),
                num(s.ci95_hi),
                (s.outliers_low + s.outliers_high).to_string(),
                s.noisy.to_string(),
                slo,
                shi,
                src,
                m.seed_ratio().map_or(String::new(), num),
                s.rounds.max(1).to_string(),
                s.interval.clone(),
                s.unstable.to_string(),
                s.within_ci95_lo.map_or(String::new(), num),
                s.within_ci95_hi.map_or(String::new(), num),
                run[0].clone(),
                run[1].clone(),
                run[2].clone(),
                run[3].clone(),
                run[4].clone(),
            ])?;
        }
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

/// The start time as RFC 3339, UTC, to the second: "2026-11-23T10:04:05Z".
fn started(unix_s: f64) -> String {
    let t = std::time::UNIX_EPOCH
        + std::time::Duration::from_secs_f64(if unix_s.is_finite() {
            unix_s.max(0.0)
        } else {
            0.0
        });
    humantime::format_rfc3339_seconds(t).to_string()
}
