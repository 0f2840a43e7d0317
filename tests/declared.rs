//! Every series is declared: each metric and reading a results file holds
//! for a registered experiment is one `tasklab list --json` lists among that
//! experiment's metrics (or a retired one), in the fixtures under
//! `tests/data/` and in a fresh run of every default experiment on tiny
//! parameters.

mod common;

use common::tasklab;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each listed experiment's declared metric names, from `tasklab list
/// --json`, checked whole on the way: every experiment lists metrics, and
/// every metric its unit, direction, kind and a line about it.
fn declared() -> BTreeMap<String, BTreeSet<String>> {
    let out = tasklab().args(["list", "--json"]).output().unwrap();
    assert!(out.status.success());
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut by_experiment = BTreeMap::new();
    for e in list.as_array().unwrap() {
        let name = e["name"].as_str().unwrap();
        let metrics = e["metrics"].as_array().unwrap();
        assert!(!metrics.is_empty(), "{name} lists no metrics");
        let mut names = BTreeSet::new();
        for m in metrics {
            for field in ["name", "unit", "better", "kind", "about"] {
                let text = m[field].as_str().unwrap_or_default();
                assert!(!text.is_empty(), "{name}: {m} has no {field}");
            }
            let metric = m["name"].as_str().unwrap();
            assert!(
                names.insert(metric.to_string()),
                "{name} lists {metric} twice"
            );
        }
        by_experiment.insert(name.to_string(), names);
    }
    by_experiment
}

/// What a results document holds that its experiment does not declare:
/// `experiment name` for each metric or reading of a listed experiment that
/// is neither among its metrics nor retired.
fn undeclared(results: &Value, declared: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let retired: Vec<&str> = tasklab::api::experiments::spec::RETIRED
        .iter()
        .map(|m| m.name)
        .collect();
    let mut out = Vec::new();
    for e in results["experiments"].as_array().unwrap() {
        let name = e["name"].as_str().unwrap();
        // A foreign or hidden experiment has no declarations to hold to.
        let Some(names) = declared.get(name) else {
            continue;
        };
        for series in ["metrics", "readings"] {
            for m in e[series].as_array().unwrap() {
                let metric = m["name"].as_str().unwrap();
                if !names.contains(metric) && !retired.contains(&metric) {
                    out.push(format!("{name} {metric} ({series})"));
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn every_series_of_the_fixtures_is_declared() {
    let declared = declared();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut files = 0;
    for entry in std::fs::read_dir(&data).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let v: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        if v["schema"] != "tasklab-results" {
            continue;
        }
        files += 1;
        let missing = undeclared(&v, &declared);
        assert!(
            missing.is_empty(),
            "{}: undeclared series: {missing:?}",
            path.display()
        );
    }
    assert!(files >= 2, "{files} results fixtures");
}

/// Every default experiment on tiny parameters, each still reaching every
/// kind of point it has (untouched and image heaps, huge pages, the thread
/// probe), so that every series it can report appears.
const TINY: &[&str] = &[
    "yardstick.memcpy.sizes=64K",
    "spawn.methods.methods=fork,vfork,pthread_create",
    "spawn.cold.probes=2",
    "spawn.cold.methods=fork,pthread_create",
    "spawn.heap.heap_sizes=0,4M",
    "spawn.heap.methods=fork,pthread_create",
    "spawn.heap.thp_max=4M",
    "spawn.heap.extra_mappings=10",
    "spawn.heap.extra_fds=10",
    "spawn.heap.paused_forks=1",
    "spawn.heap.pause_ms=1",
    "spawn.heap.scattered=true",
    "spawn.heap.contiguous=true",
    "spawn.heap.near=true",
    "spawn.cow.heap=4M",
    "spawn.cow.writes=0,10",
    "spawn.cow.thp_writes=10",
    "switch.pingpong.methods=pipe_threads,futex_threads",
    "switch.echo.iterations=200",
    "switch.echo.runs=1",
    "switch.indirect.working_sets=0,64K",
    "switch.userspace.variants=coroutine,async,kernel_pipe",
    "switch.wakeup.timer_us=100",
    "memory.malloc.size=4M",
    "memory.threads.threads=10,20",
    "memory.limits.probe=true",
    "memory.limits.probe_ceiling=200",
    "memory.sharing.reps=1",
    "parallel.average.n=100000",
    "parallel.average.workers=1,2",
    "parallel.average.reps=2",
    "parallel.program.n=100000",
    "parallel.program.workers=2",
    "parallel.forktime.n=100000",
    "parallel.forktime.workers=2",
    "parallel.fanout.jobs=2",
    "parallel.fanout.cpu_ms=1",
    "parallel.fanout.output=4K",
];

#[test]
fn every_series_of_a_fresh_run_is_declared() {
    let declared = declared();
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = tasklab();
    cmd.args(["run", "--rounds", "3", "-q", "--out"])
        .arg(dir.path());
    for p in TINY {
        cmd.args(["-p", p]);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "the run failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(dir.path().join("results.json")).unwrap();
    let v: Value = serde_json::from_slice(&bytes).unwrap();
    let experiments = v["experiments"].as_array().unwrap();
    // Every listed experiment is a default one, and ran to the end (or was
    // skipped, for a reason the results give, on a machine that lacks what
    // it needs).
    for name in declared.keys() {
        let e = experiments
            .iter()
            .find(|e| e["name"] == name.as_str())
            .unwrap_or_else(|| panic!("{name} did not run"));
        assert_ne!(e["status"], "failed", "{name}: {}", e["reason"]);
    }
    let missing = undeclared(&v, &declared);
    assert!(missing.is_empty(), "undeclared series: {missing:?}");
}
