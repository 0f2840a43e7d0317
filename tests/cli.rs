//! End-to-end runs of the binary on tiny parameters: the bad inputs and
//! relations that always hold (the fault handling: tests/cli_faults.rs).
//! No test asserts a timing.

use predicates::prelude::*;
use serde_json::Value;

mod common;
use common::*;

// ------------------------------------------------------------ bad input

#[test]
fn unknown_experiment_names_the_valid_choices() {
    let d = tmp();
    tasklab()
        .args(["run", "nosuch", "--out"])
        .arg(d.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "unknown experiment or group 'nosuch'",
        ))
        .stderr(predicate::str::contains("yardstick, spawn"));
    assert!(!d.path().join("results.json").exists(), "nothing is run");
}

#[test]
fn unknown_option_is_a_usage_error() {
    tasklab()
        .args(["run", "--frobnicate"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--frobnicate"));
}

#[test]
fn fewer_than_three_rounds_is_refused() {
    let d = tmp();
    for rounds in ["2", "0", "101"] {
        tasklab()
            .args(["run", "yardstick.syscall", "--rounds", rounds, "--out"])
            .arg(d.path())
            .assert()
            .code(2)
            .stderr(predicate::str::contains("--rounds takes 3 to 100"));
    }
    assert!(!d.path().join("results.json").exists(), "nothing measured");
}

#[test]
fn adaptive_rounds_go_on_and_the_precision_record_counts_what_was_reached() {
    // Whether a series reaches ±3% depends on this machine's precision (a
    // loaded one stops at the budget): the stop rule is tested on
    // constructed rounds in src/run/execute_tests.rs and src/run/budget_tests.rs.
    // Here, what holds at any precision: the minimum rounds at least (the
    // Summary's system call the profile's eight), every series counted,
    // and the record's count of those that reached the target the same as
    // the file's intervals give.
    let d = tmp();
    let (code, r) = run_json(
        &[
            "yardstick.syscall",
            "yardstick.timer",
            "--precision",
            "3",
            "--budget",
            "60",
        ],
        d.path(),
    );
    assert_eq!(code, 0);
    let p = &r["precision"];
    assert_eq!(p["target_pct"], 3.0);
    assert_eq!(p["series"], 9);
    let mut reached = 0;
    // (experiment, the rounds it has before the budget's)
    let planned = [("yardstick.syscall", 8), ("yardstick.timer", 3)];
    for (e, least) in planned {
        for m in experiment(&r, e)["metrics"].as_array().unwrap() {
            let s = &m["summary"];
            let rounds = m["rounds"].as_array().unwrap().len();
            // the rounds it must have at least, never two in one worker
            assert!(rounds >= least, "{}: {rounds} rounds", m["name"]);
            assert_eq!(s["rounds"], rounds, "{}", m["name"]);
            let half = (s["ci95_hi"].as_f64().unwrap() - s["ci95_lo"].as_f64().unwrap())
                / 2.0
                / s["median"].as_f64().unwrap().abs();
            reached += (100.0 * half <= 3.0) as usize;
        }
    }
    assert_eq!(p["reached"], reached, "series at ±3% or better");
    // one point each, all its series measured in every round: each round
    // beyond those it must have is one the budget gave
    let extra: usize = planned
        .iter()
        .map(|(e, least)| {
            experiment(&r, e)["metrics"][0]["rounds"]
                .as_array()
                .unwrap()
                .len()
                - least
        })
        .sum();
    // the Summary's system call: its eight at least, and more when the
    // budget gave it more (a loaded machine's wide intervals ask for them)
    let syscall = experiment(&r, "yardstick.syscall")["metrics"][0]["rounds"]
        .as_array()
        .unwrap()
        .len();
    assert!(syscall >= 8, "{syscall}");
    assert_eq!(p["summary_rounds"][0], syscall, "the Summary's system call");
    // its eight held: nothing said short of them
    assert!(p.get("summary_short").is_none(), "{}", p["summary_short"]);
    assert_eq!(p["budget_s"], 60.0);
    assert_eq!(p["adaptive_jobs"], extra, "adaptive rounds");
}

#[test]
fn every_series_comes_from_the_rounds_asked_and_the_seed_is_recorded() {
    let d = tmp();
    let (code, r) = run_json(
        &["yardstick.syscall", "--rounds", "4", "--seed", "77"],
        d.path(),
    );
    assert_eq!(code, 0);
    assert_eq!(r["rounds"], 4);
    assert_eq!(r["seed"], 77);
    let e = experiment(&r, "yardstick.syscall");
    let m = &e["metrics"][0];
    assert_eq!(m["rounds"].as_array().unwrap().len(), 4);
    assert_eq!(m["summary"]["rounds"], 4);
    assert_eq!(m["summary"]["interval"], "95%, 4 rounds");
    // rounds asked for are the rounds measured: no adaptive rounds
    assert_eq!(r["precision"]["adaptive_jobs"], 0);
    // the within-round interval is kept beside the rounds interval
    assert!(m["summary"]["within_ci95_lo"].is_number());
    // every round left its contamination record
    let log = e["round_log"].as_array().unwrap();
    assert_eq!(log.len(), 4);
    for round in log {
        assert!(round["canary_start"]["syscall_ns"].as_f64().unwrap() > 0.0);
        assert!(round["wall_ns"].as_f64().unwrap() > 0.0);
    }
    assert!(r["busy"]["before_samples"].as_u64().unwrap() > 0);
}

#[test]
fn malformed_size_is_refused() {
    let d = tmp();
    tasklab()
        .args(["run", "spawn.heap", "-p", "heap_sizes=0,12Q", "--out"])
        .arg(d.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("heap_sizes"))
        .stderr(predicate::str::contains("unknown size unit"));
}

#[test]
fn heap_larger_than_available_memory_is_refused_before_running() {
    let d = tmp();
    tasklab()
        .args(["run", "spawn.heap", "-p", "heap_sizes=0,900G", "--out"])
        .arg(d.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("does not fit"))
        .stderr(predicate::str::contains("largest allowed here"));
    assert!(!d.path().join("results.json").exists());
}

#[test]
fn unknown_parameter_lists_the_known_ones() {
    tasklab()
        .args(["run", "spawn.heap", "-p", "colour=blue"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no selected experiment has a parameter 'colour'",
        ))
        .stderr(predicate::str::contains("spawn.heap.heap_sizes"));
}

#[test]
fn unknown_method_is_refused() {
    tasklab()
        .args(["run", "spawn.methods", "-p", "methods=fork,teleport"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("teleport"));
}

#[test]
fn pinning_to_a_cpu_that_is_not_allowed_is_refused() {
    tasklab()
        .args(["run", "yardstick.syscall", "--pin", "4095"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("CPU 4095"));
    tasklab()
        .args(["run", "yardstick.syscall", "--pin", "0-x"])
        .assert()
        .code(2);
}

#[test]
fn an_output_folder_that_cannot_be_written_is_refused_before_measuring() {
    let d = tmp();
    let file = d.path().join("a-file");
    std::fs::write(&file, b"").unwrap();
    tasklab()
        .args(["run", "yardstick.syscall", "--out"])
        .arg(file.join("sub"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("output folder"));
}

// ------------------------------------------------------------ relations

#[test]
fn every_launch_is_ordered_parent_return_then_reap_and_child_start_then_reap() {
    let d = tmp();
    let (code, r) = run_json(
        &[
            "spawn.methods",
            "-p",
            "methods=fork,vfork,clone_vm,clone_thread_flags,pthread_create,std_thread,fork_exec_static,posix_spawn",
        ],
        d.path(),
    );
    assert_eq!(code, 0);
    let e = experiment(&r, "spawn.methods");
    assert_eq!(e["status"], "ok", "{}", e["reason"]);
    let metrics = e["metrics"].as_array().unwrap();
    let series = |name: &str, method: &str| -> Vec<f64> {
        metrics
            .iter()
            .find(|m| m["name"] == name && m["labels"]["method"] == method)
            .unwrap_or_else(|| panic!("{name} {method}"))["samples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect()
    };
    for method in [
        "fork",
        "vfork",
        "clone_vm",
        "clone_thread_flags",
        "pthread_create",
        "std_thread",
        "fork_exec_static",
        "posix_spawn",
    ] {
        let life = series("lifecycle_ns", method);
        let parent = series("parent_return_ns", method);
        let child = series("child_start_ns", method);
        assert!(life.len() >= 5);
        for i in 0..life.len() {
            assert!(
                life[i] >= parent[i],
                "{method}: reaped before the parent returned"
            );
            assert!(
                life[i] >= child[i],
                "{method}: reaped before the child started"
            );
            assert!(child[i] > 0.0, "{method}: the child stamped its start");
        }
    }
    // vfork suspends the parent until the child has exited
    let v_parent = series("parent_return_ns", "vfork");
    let v_child = series("child_start_ns", "vfork");
    assert!(v_parent.iter().zip(&v_child).all(|(p, c)| p >= c));
}

#[test]
fn a_touched_heap_makes_fork_slower_but_not_a_thread() {
    let d = tmp();
    let (code, r) = run_json(
        &[
            "spawn.heap",
            "-p",
            "heap_sizes=0,1G",
            "-p",
            "methods=fork,pthread_create,vfork",
            "-p",
            "thp=false",
        ],
        d.path(),
    );
    assert_eq!(code, 0);
    let e = experiment(&r, "spawn.heap");
    // The warm lines (not the first call of a round, one sample a round).
    let m = |method: &str, heap: &str| {
        let with = [("method", method), ("heap", heap)];
        median_of(series_without(e, "lifecycle_ns", &with, &["call"]))
    };
    // Absolute increases, not ratios: copying 2 MiB of page tables costs
    // milliseconds, which a busy machine's jitter on a thread never reaches.
    let fork_growth = m("fork", "1 GiB") - m("fork", "0 B");
    let thread_growth = m("pthread_create", "1 GiB") - m("pthread_create", "0 B");
    let vfork_growth = m("vfork", "1 GiB") - m("vfork", "0 B");
    assert!(
        fork_growth > 0.0,
        "a 1 GiB touched heap forks slower than an empty one: fork grew {fork_growth} ns"
    );
    assert!(
        fork_growth > thread_growth && fork_growth > vfork_growth,
        "from an empty heap to 1 GiB, fork+reap grew {fork_growth} ns, \
         a thread {thread_growth} ns, vfork {vfork_growth} ns"
    );
    // the page tables were measured and a fit reported
    let pte = |heap: &str| reading_value(e, "vm_pte_kib", &[("heap", heap)]);
    assert!(
        pte("1 GiB") > pte("0 B") + 1024.0,
        "1 GiB of 4 KiB pages needs 2 MiB of page tables"
    );
    // a fit of fork's cost against its page tables, unless a fork series
    // was flagged (then no fit rests on it, and the run says so)
    let fitted = e["fits"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["labels"]["method"] == "fork");
    // (the finding names the first such series; the note lists them)
    let unsettled = e["notes"].as_array().unwrap().iter().any(|f| {
        let f = f.as_str().unwrap();
        f.starts_with("flagged: ") && f.contains("method=fork")
    });
    assert!(fitted || unsettled, "{}", e["findings"]);
}

#[test]
fn cold_probes_report_first_second_and_steady_calls() {
    let d = tmp();
    let (code, r) = run_json(
        &[
            "spawn.cold",
            "-p",
            "probes=2",
            "-p",
            "methods=fork,pthread_create",
        ],
        d.path(),
    );
    assert_eq!(code, 0);
    let e = experiment(&r, "spawn.cold");
    for call in ["first", "second", "steady"] {
        for method in ["fork", "pthread_create"] {
            assert!(median(e, "child_start_ns", &[("method", method), ("call", call)]) > 0.0);
        }
    }
    // the cold-vs-warm explanation, unless the figures it rests on did not
    // settle (then the run says so instead of explaining)
    let findings: Vec<&str> = e["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert!(
        findings
            .iter()
            .any(|f| f.contains("why the seeds disagree"))
            || findings.iter().any(|f| f.starts_with("flagged here")),
        "{findings:?}"
    );
}

#[test]
fn yardsticks_and_results_file_round_trip() {
    let d = tmp();
    let (code, r) = run_json(&["yardstick"], d.path());
    assert_eq!(code, 0);
    assert_eq!(r["schema"], "tasklab-results");
    assert_eq!(r["schema_version"], tasklab::api::results::SCHEMA_VERSION);
    assert!(r["env"]["cpu_model"].is_string());
    // schema 2: the report needs nothing but the file
    assert_eq!(r["groups"][0]["name"], "yardstick");
    assert!(r["groups"][0]["title"].is_string());
    assert!(!experiment(&r, "yardstick.syscall")["reproduces"]
        .as_str()
        .unwrap()
        .is_empty());
    // The headline, always: a basic figure of the Summary is quoted with its
    // interval and flag when its rounds were flagged, never dropped.
    let syscall = experiment(&r, "yardstick.syscall");
    let h = syscall["headlines"][0].as_str().unwrap();
    assert!(h.starts_with("a bare system call costs"), "{h}");
    // a clock read less the loop's overhead, kept at zero or above: a
    // preempted calibration may measure the loop as dear as the read
    let overhead = r["calibration"]["timer_overhead_ns"].as_f64().unwrap();
    assert!(overhead >= 0.0 && overhead.is_finite(), "{overhead}");
    let timer = experiment(&r, "yardstick.timer");
    // a seed figure is labelled as the seed's, with its source: Sysel's
    // clock read is his empty region, the first in a fresh process
    let realtime = timer["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| {
            m["name"] == "region_ns"
                && m["labels"]["clock"] == "realtime"
                && m["labels"]["call"] == "first"
        })
        .unwrap();
    assert_eq!(realtime["seed"]["source"], "004_37eeb410f17232cd.txt");
    // the file on disk is the same run, and reads back through the schema
    let path = d.path().join("results.json");
    let on_disk = tasklab::api::results::RunResults::read(&path).unwrap();
    let again: Value = serde_json::to_value(&on_disk).unwrap();
    assert_eq!(again, r);
}

#[test]
fn pinning_is_recorded() {
    let d = tmp();
    let (code, r) = run_json(&["yardstick.syscall", "--pin", "0"], d.path());
    assert_eq!(code, 0);
    assert_eq!(r["pin"], serde_json::json!([0]));
}

#[test]
fn list_and_env_describe_the_registry_and_the_machine() {
    tasklab()
        .arg("list")
        .assert()
        .success()
        .stdout(predicate::str::contains("spawn.heap"))
        .stdout(predicate::str::contains("004_37eeb410f17232cd.txt"))
        .stdout(predicate::str::contains("selftest").not());
    // in words, for a 100-column terminal: no Rust ranges, no internals
    let out = tasklab().arg("list").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    for line in text.lines() {
        assert!(line.chars().count() <= 100, "over 100 columns: {line}");
    }
    assert!(!text.contains("..="), "a Rust range in tasklab list");
    assert!(text.contains("1 B to 1 GiB"), "{text}");
    // Seed figures name their article, cited in full once at the end.
    assert!(
        text.contains("region_ns clock=realtime call=first: 94.0 ns (Sysel)"),
        "{text}"
    );
    assert!(
        text.contains(
            "Sysel: Martin Sysel, \u{201c}A Comparison of Processes and Threads Creation\u{201d}"
        ),
        "{text}"
    );
    let out = tasklab().args(["env", "--json"]).output().unwrap();
    assert!(out.status.success());
    let env: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(env["cpus_online"].as_u64().unwrap() >= 1);
    assert!(env["limits"]["pid_max"].as_u64().unwrap() > 0);
}

#[test]
fn list_json_gives_each_method_table_with_what_each_row_is() {
    let out = tasklab().args(["list", "--json"]).output().unwrap();
    assert!(out.status.success());
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut tables = 0;
    for e in list.as_array().unwrap() {
        for p in e["params"].as_array().unwrap() {
            let Some(rows) = p["choices"].as_array() else {
                continue;
            };
            tables += 1;
            // the valid values the range names are exactly the table's rows
            let names: Vec<&str> = rows.iter().map(|c| c["name"].as_str().unwrap()).collect();
            assert!(
                p["range"].as_str().unwrap().ends_with(&names.join(", ")),
                "{} {}",
                e["name"],
                p["name"]
            );
            for c in rows {
                assert!(!c["about"].as_str().unwrap().is_empty(), "{c}");
            }
        }
    }
    assert!(tables >= 6, "{tables} method/variant tables");
    let spawn = list
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "spawn.methods")
        .unwrap();
    let methods = spawn["params"][0]["choices"].as_array().unwrap();
    let clone3 = methods.iter().find(|c| c["name"] == "clone3_fork").unwrap();
    assert!(clone3["needs"].as_str().unwrap().contains("clone3"));
}

/// predict reads a live process (this test's own) and, given a results file
/// without spawn.cow, says which figures it lacks: exit 2, nothing measured.
#[test]
fn predict_names_the_figures_a_results_file_lacks() {
    let fixture =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-results.json");
    // The fixture with its spawn.cow taken out.
    let mut r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    r["experiments"]
        .as_array_mut()
        .unwrap()
        .retain(|e| e["name"] != "spawn.cow");
    let dir = tmp();
    let results = dir.path().join("results.json");
    std::fs::write(&results, serde_json::to_string(&r).unwrap()).unwrap();
    let out = tasklab()
        .args([
            "predict",
            "--pid",
            &std::process::id().to_string(),
            "--results",
        ])
        .arg(&results)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("spawn.cow"), "{err}");
}

#[test]
fn a_temporary_folder_others_could_rename_entries_in_is_refused_before_measuring() {
    use std::os::unix::fs::PermissionsExt;
    let d = tmp();
    // writable by everyone, without the sticky bit: anyone could swap the
    // run's private folder of helper programs for one of their own
    let open = d.path().join("open");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
    let out = d.path().join("out");
    let o = tasklab()
        .args(["run", "yardstick.syscall", "--rounds", "3", "--out"])
        .arg(&out)
        .env("TMPDIR", &open)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("(TMPDIR) is not safe"), "{err}");
    assert!(
        err.contains("can be written by its group or by others"),
        "{err}"
    );
    // nothing measured, nothing made in it
    assert!(!out.join("results.json").exists());
    assert_eq!(std::fs::read_dir(&open).unwrap().count(), 0);
    // as root, a folder another user owns is refused too
    if tasklab::api::sys::effective_uid() == 0 {
        let theirs = d.path().join("theirs");
        std::fs::create_dir(&theirs).unwrap();
        std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).unwrap();
        let o = tasklab()
            .args(["run", "yardstick.syscall", "--rounds", "3", "--out"])
            .arg(&out)
            .env("TMPDIR", &theirs)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("is owned by uid 65534"), "{err}");
        assert_eq!(std::fs::read_dir(&theirs).unwrap().count(), 0);
    }
    // the same folder made sticky, as /tmp is, is fine
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let o = tasklab()
        .args([
            "run",
            "yardstick.syscall",
            "--rounds",
            "3",
            "--quiet",
            "--out",
        ])
        .arg(&out)
        .env("TMPDIR", &open)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn an_interrupt_during_adaptive_rounds_keeps_every_experiment_whose_rounds_were_in() {
    let d = tmp();
    let bin = assert_cmd::cargo::cargo_bin("tasklab");
    // A target so near the run noise's floor that adaptive rounds go on for
    // many seconds after the rounds every point must have (about 1 s).
    let mut child = std::process::Command::new(bin)
        .args([
            "run",
            "yardstick.syscall",
            "switch.wakeup",
            "--precision",
            "2.05",
            "--budget",
            "600",
            "--quiet",
            "--out",
        ])
        .arg(d.path())
        .spawn()
        .unwrap();
    // One point each: the system call's eight rounds (a Summary quantity),
    // switch.wakeup's three; the 12th worker is an adaptive round's. Waited
    // for, not slept for: a loaded machine takes longer.
    if procs::wait_for_workers(&mut child, 12, std::time::Duration::from_secs(300)) {
        std::process::Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let r: Value =
        serde_json::from_slice(&std::fs::read(d.path().join("results.json")).unwrap()).unwrap();
    if out.status.code() == Some(130) {
        assert_eq!(r["status"], "partial");
        // an experiment with all its planned rounds in stays measured: the
        // adaptive rounds the signal cut short were extra
        for e in r["experiments"].as_array().unwrap() {
            let rounds = e["round_log"].as_array().map_or(0, Vec::len);
            let planned = if e["name"] == "yardstick.syscall" {
                8
            } else {
                3
            };
            if rounds >= planned {
                assert_eq!(e["status"], "ok", "{}", e["name"]);
                assert!(!e["metrics"].as_array().unwrap().is_empty());
            }
        }
    } else {
        // the targets were all reached before the signal: a whole run
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(r["status"], "complete");
    }
}

#[test]
fn a_full_standard_output_is_an_error_with_its_reason_never_a_panic() {
    let d = tmp();
    let results = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/report-results.json")
        .display()
        .to_string();
    let advise_results = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/advise-results.json")
        .display()
        .to_string();
    let out = d.path().join("report").display().to_string();
    let run_out = d.path().join("run").display().to_string();
    let me = std::process::id().to_string();
    let cases: Vec<Vec<&str>> = vec![
        vec!["list"],
        vec!["list", "--json"],
        vec!["env"],
        vec!["env", "--json"],
        vec!["compare", "--no-noise", &results, &results],
        vec!["compare", "--no-noise", "--json", &results, &results],
        vec!["report", &results, "--out", &out],
        vec![
            "advise",
            "--rate",
            "1000",
            "--heap",
            "0",
            "--switches",
            "0",
            "--results",
            &advise_results,
        ],
        vec!["predict", "--pid", &me, "--results", &results],
        vec!["predict", "--pid", &me, "--json", "--results", &results],
        vec![
            "run",
            "yardstick.syscall",
            "--rounds",
            "3",
            "--out",
            &run_out,
        ],
        vec![
            "run",
            "yardstick.syscall",
            "--rounds",
            "3",
            "--json",
            "-",
            "--out",
            &run_out,
        ],
        vec!["demo", "clone-vm"],
        vec!["demo", "clone-vm", "vm"],
    ];
    for args in cases {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let o = std::process::Command::new(assert_cmd::cargo::cargo_bin("tasklab"))
            .args(&args)
            .stdout(full)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("cannot write to standard output"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// `--idle-poll` is checked before anything is measured: without root it is
/// refused with exit 2; as root a bad experiment name is still refused first,
/// and the idle settings are left as they were.
#[test]
fn idle_poll_needs_root_and_changes_nothing_when_refused() {
    let d = tmp();
    const POLL: &str = "/sys/module/haltpoll/parameters/guest_halt_poll_ns";
    let before = std::fs::read_to_string(POLL).ok();
    if tasklab::api::sys::is_root() {
        tasklab()
            .args(["run", "no.such", "--idle-poll", "--out"])
            .arg(d.path())
            .assert()
            .code(2);
    } else {
        tasklab()
            .args(["run", "yardstick.syscall", "--idle-poll", "--out"])
            .arg(d.path())
            .assert()
            .code(2)
            .stderr(predicate::str::contains("--idle-poll").and(predicate::str::contains("root")));
    }
    assert!(!d.path().join("results.json").exists());
    assert_eq!(std::fs::read_to_string(POLL).ok(), before);
}
