//! End-to-end runs of the `parallel` group on tiny parameters: relations that
//! always hold (every variant's average equals serial; a fan-out to slow sinks
//! beats running the reports one after another), and bad input refused with
//! exit status 2 before anything runs.

use assert_cmd::Command;
use serde_json::Value;

mod common;
use common::*;

fn run(args: &[&str]) -> (Value, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::cargo_bin("tasklab")
        .unwrap()
        .args(["run"])
        .args(args)
        .args(["--out", dir.path().to_str().unwrap(), "--json", "-"])
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "tasklab failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    (serde_json::from_slice(&out.stdout).unwrap(), dir)
}

fn metrics<'a>(e: &'a Value, name: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
    e["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(move |m| m["name"] == name)
}

fn readings<'a>(e: &'a Value, name: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
    e["readings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(move |m| m["name"] == name)
}

#[test]
fn every_variant_of_the_average_equals_serial() {
    let (v, _dir) = run(&[
        "parallel.average",
        "-p",
        "n=100000",
        "-p",
        "workers=1,2,3",
        "-p",
        "reps=2",
    ]);
    let e = experiment(&v, "parallel.average");
    assert_ok(e);
    let tol = readings(e, "tolerance").next().unwrap()["value"]
        .as_f64()
        .unwrap();
    assert!(tol > 0.0 && tol < 1e-9);
    let diffs: Vec<&Value> = readings(e, "max_rel_diff_from_serial").collect();
    // fork, threads and pool at three worker counts each
    assert_eq!(diffs.len(), 9, "{diffs:?}");
    for d in diffs {
        assert!(d["value"].as_f64().unwrap() <= tol, "{d}");
    }
    let variants: Vec<&str> = metrics(e, "average_ns")
        .map(|m| m["labels"]["variant"].as_str().unwrap())
        .collect();
    for want in ["serial", "fork", "threads", "pool"] {
        assert!(variants.contains(&want), "{variants:?}");
    }
    assert!(metrics(e, "speedup").all(|m| m["summary"]["median"].as_f64().unwrap() > 0.0));
    assert!(metrics(e, "fork_reap_ns").count() >= 2);
}

#[test]
fn the_whole_program_and_the_fork_breakdown_run_on_a_small_array() {
    let (v, _dir) = run(&[
        "parallel.program",
        "parallel.forktime",
        "-p",
        "n=100000",
        "-p",
        "reps=2",
    ]);
    let p = experiment(&v, "parallel.program");
    assert_ok(p);
    for variant in ["serial", "fork", "threads"] {
        assert!(
            metrics(p, "whole_ns").any(|m| m["labels"]["variant"] == variant),
            "no whole_ns for {variant}"
        );
    }
    // the fill is timed on its own, once per huge-page setting (default, on)
    assert_eq!(metrics(p, "fill_ns").count(), 2);
    // The worker's first map+fill (its first touch of fresh memory) is no
    // variant's: one a round, apart, and every variant's program has a fill
    // of its own among the later ones.
    for thp in ["default", "on"] {
        let samples = |name: &str| -> usize {
            metrics(p, name)
                .filter(|m| m["labels"]["thp"] == thp)
                .map(|m| m["samples"].as_array().unwrap().len())
                .sum()
        };
        let first: Vec<&Value> = metrics(p, "first_fill_ns")
            .filter(|m| m["labels"]["thp"] == thp)
            .collect();
        assert_eq!(first.len(), 1, "{thp}");
        assert!(
            first[0]["rounds"]
                .as_array()
                .unwrap()
                .iter()
                .all(|r| r == 1),
            "{thp}: {}",
            first[0]["rounds"]
        );
        assert_eq!(samples("fill_ns"), samples("whole_ns"), "{thp}");
    }
    // The Amdahl sentence, unless the series it rests on were flagged on
    // this (tiny, so noisy) array: then the run says so instead.
    let findings: Vec<&str> = p["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert!(
        findings.iter().any(|f| f.contains("Amdahl"))
            || findings.iter().any(|f| f.starts_with("flagged here")),
        "{findings:?}"
    );
    let f = experiment(&v, "parallel.forktime");
    assert_ok(f);
    let passes: Vec<&str> = metrics(f, "child_pass_ns")
        .map(|m| m["labels"]["pass"].as_str().unwrap())
        .collect();
    assert!(passes.contains(&"first") && passes.contains(&"second"));
    assert!(metrics(f, "fork_call_ns").count() >= 1);
}

#[test]
fn a_fan_out_to_slow_sinks_beats_serial() {
    // Each report waits 62.5 ms on its sink and computes 1 ms: serially
    // about 250 ms, fanned out about 65 ms, whatever the CPU count or load.
    let (v, _dir) = run(&[
        "parallel.fanout",
        "-p",
        "jobs=4",
        "-p",
        "cpu_ms=1",
        "-p",
        "output=16K",
        "-p",
        "sink_rate=256K",
        "-p",
        "reps=2",
    ]);
    let e = experiment(&v, "parallel.fanout");
    assert_ok(e);
    let sp = metrics(e, "speedup").next().unwrap()["summary"]["median"]
        .as_f64()
        .unwrap();
    assert!(sp > 1.0, "fan-out speedup {sp}");
}

fn refused(args: &[&str], needle: &str) {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    let out = Command::cargo_bin("tasklab")
        .unwrap()
        .arg("run")
        .args(args)
        .args(["--out", out_dir.to_str().unwrap()])
        .timeout(std::time::Duration::from_secs(30))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {err}");
    assert!(
        !out_dir.join("results.json").exists(),
        "{args:?}: something ran"
    );
}

#[test]
fn zero_among_counts_or_absurd_workers_are_refused() {
    // 0 is the default (as `tasklab list` shows it) and stands alone.
    refused(&["parallel.average", "-p", "workers=0,3"], "stands alone");
    // 4×CPUs is the bound; 255 is absurd unless the machine has 64 CPUs.
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 64 {
        refused(&["parallel.average", "-p", "workers=2,255"], "absurd");
    }
    refused(
        &["parallel.average", "-p", "workers=100000"],
        "out of range",
    );
}

#[test]
fn an_array_larger_than_memory_is_refused() {
    refused(
        &["parallel.average", "-p", "n=1000000000000"],
        "is available",
    );
    refused(&["parallel", "-p", "n=1000000000000"], "is available");
}

#[test]
fn a_sink_rate_of_zero_is_refused() {
    refused(&["parallel.fanout", "-p", "sink_rate=0"], "sink_rate=0");
    refused(
        &["parallel.fanout", "-p", "sink_rate=1", "-p", "output=1G"],
        "would run for",
    );
}

/// Fan-out settings planned at about 166 s (four reports of 16 s on their
/// sinks, twice, × 1.3): over 0.8 × the quick profile's 120 s, within
/// 0.8 × 1000 s.
const LONG_FANOUT: &[&str] = &[
    "parallel.fanout",
    "-p",
    "jobs=4",
    "-p",
    "cpu_ms=0",
    "-p",
    "output=1M",
    "-p",
    "sink_rate=64K",
    "-p",
    "reps=2",
];

#[test]
fn the_fan_out_is_planned_with_the_users_timeout() {
    // Regression (issue 11): the fan-out was planned with the profile's
    // default timeout, so it refused settings that --timeout allows.
    refused(LONG_FANOUT, "more than the 96 s allowed");

    // With --timeout 1000 the plan is accepted and the run starts; it is
    // interrupted as soon as it does, rather than measured for minutes.
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("tasklab"))
        .arg("run")
        .args(LONG_FANOUT)
        .args(["--timeout", "1000", "--out", dir.path().to_str().unwrap()])
        // --tables prints the "timer:" line before the first job.
        .arg("--tables")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The "timer:" line is printed after planning and after the Ctrl-C
    // handler is installed: from then on SIGINT means "stop, keep results".
    // Stdout is read to its end on a thread: closing it early would kill
    // tasklab with SIGPIPE.
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if line.starts_with("timer:") {
                let _ = tx.send(());
            }
        }
    });
    let started = rx.recv_timeout(std::time::Duration::from_secs(60)).is_ok();
    if started {
        let kill = std::process::Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("tasklab did not stop within 60 s of SIGINT");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    reader.join().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(started, "the run never started ({status}): {err}");
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(!err.contains("would run for"), "{err}");
}
