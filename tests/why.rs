//! `run --why` end to end: a real sampled fork of a touched heap names the
//! page-table copy, and every share is a share. Where this machine does not
//! let tasklab sample, the run still measures, says why, and the test says
//! it skipped and why.

mod common;

use common::{json_of_success, tasklab};
use serde_json::Value;

/// The kernel's names for the page-table copy fork makes (copy_page_range
/// and the levels below it, which a kernel may or may not inline).
const PAGE_TABLE_COPY: &[&str] = &[
    "copy_page_range",
    "copy_p4d_range",
    "copy_pud_range",
    "copy_pmd_range",
    "copy_pte_range",
];

/// A share (pooled over the rounds) lies in [0, 1], its interval around
/// it, never clamped (issue 39); a file from before session 23 could hold
/// a bound past 1 (a fork's copy_page_range: total 0.94 [0.78, 1.12]).
fn share_ok(s: &Value) -> bool {
    let (lo, m, hi) = (
        s["lo"].as_f64().unwrap(),
        s["share"].as_f64().unwrap(),
        s["hi"].as_f64().unwrap(),
    );
    (0.0..=1.0).contains(&m) && lo <= m && m <= hi && lo.is_finite() && hi.is_finite()
}

#[test]
fn a_sampled_fork_of_a_touched_heap_names_the_page_table_copy() {
    let dir = tempfile::tempdir().unwrap();
    let v = json_of_success(
        tasklab()
            // 4 kHz, not the default 99 Hz: the relation tested is which
            // function the samples name, and at 250 Hz three rounds of a
            // 256 MiB fork make so few samples that the child's exit
            // teardown alone can fill the list (a CI run of session 19).
            .args([
                "run",
                "--why",
                "--why-rate",
                "4000",
                "spawn.heap",
                "--rounds",
                "3",
                "--out",
            ])
            .arg(dir.path())
            .args([
                "-p",
                "heap_sizes=256M",
                "-p",
                "methods=fork",
                "-p",
                "thp=false",
            ])
            .args(["--json", "-"]),
    );
    let why = &v["why"];
    assert_eq!(why["event"], "cpu-clock");
    if let Some(no) = why["unavailable"].as_str() {
        eprintln!("skipped: sampling is not allowed here: {no}");
        assert!(v["warnings"].to_string().contains("nothing attributed"));
        return;
    }
    // CPU-wide, the run says how the worker's tasks were told (a cgroup of
    // its own, or the records, and then why); per task, neither.
    match (why["mode"].as_str(), why["tasks"].as_str()) {
        (Some("cpu-wide"), Some("cgroup")) => assert!(why["records_why"].is_null()),
        (Some("cpu-wide"), Some("records")) => assert!(why["records_why"].is_string()),
        (Some("per-task"), None) => {}
        other => panic!("mode and tasks: {other:?}"),
    }
    let e = &v["experiments"][0];
    let a = e["why"]
        .as_array()
        .and_then(|w| w.iter().find(|a| a["labels"]["method"] == "fork"))
        .unwrap_or_else(|| panic!("no attribution of fork: {}", common::brief(e)));
    assert!(a["samples"].as_u64().unwrap() > 0);
    assert!(share_ok(&a["user"]) && share_ok(&a["kernel"]));
    let functions = a["functions"].as_array().unwrap();
    for f in functions {
        assert!(share_ok(&f["self"]) && share_ok(&f["total"]), "{f}");
    }
    let names: Vec<&str> = functions
        .iter()
        .map(|f| f["function"].as_str().unwrap())
        .collect();
    assert!(
        names.iter().any(|n| PAGE_TABLE_COPY.contains(n)),
        "no page-table copy among {names:?}"
    );
    // Each round's counts, a round for each of the timed series' rounds
    // (what a comparison pairs them by), adding up to the samples.
    let p = &a["per_round"];
    let samples: Vec<u64> = p["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    assert_eq!(samples.iter().sum::<u64>(), a["samples"].as_u64().unwrap());
    let covered: Vec<&Value> = e["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| {
            let labels = a["labels"].as_object().unwrap();
            labels.iter().all(|(k, v)| &m["labels"][k] == v)
        })
        .collect();
    assert!(!covered.is_empty());
    for m in covered {
        let rounds = m["rounds"].as_array().unwrap().len();
        assert_eq!(samples.len(), rounds, "{}", m["name"]);
    }
    // Sampling's cost, from the three rounds and their sampled twins; the
    // figures keep their three (unsampled) rounds.
    let overhead = a["overhead"].as_array().expect("sampling's cost measured");
    let fork_reap = overhead
        .iter()
        .find(|o| o["metric"] == "lifecycle_ns")
        .unwrap_or_else(|| panic!("no cost of fork+reap: {overhead:?}"));
    assert_eq!(fork_reap["pairs"], 3);
    let (lo, r, hi) = (
        fork_reap["lo"].as_f64().unwrap(),
        fork_reap["ratio"].as_f64().unwrap(),
        fork_reap["hi"].as_f64().unwrap(),
    );
    assert!(0.0 < lo && lo <= r && r <= hi, "{fork_reap}");
    let m = e["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "lifecycle_ns" && m["labels"]["method"] == "fork")
        .unwrap();
    assert_eq!(
        m["rounds"].as_array().map(Vec::len),
        Some(3),
        "{}",
        m["rounds"]
    );
}
