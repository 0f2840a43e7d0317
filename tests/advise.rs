//! `tasklab advise` on a fixed results file (tests/data/advise-results.json:
//! a real quick run trimmed to the figures advise reads, medians replaced by
//! round numbers): the arithmetic checked exactly, missing figures, and every
//! kind of bad input. No test measures anything.
//!
//! The fixture's figures: fork lifecycle 100 µs / 110 µs / 400 µs / 2 ms /
//! 16 ms at heaps 0 / 2 MiB / 64 MiB / 512 MiB / 4 GiB (thp=off; a thp=on
//! point of 150 µs at 64 MiB that must be ignored), fork_exec_static 400 µs
//! above fork at each heap, vfork 50 µs, pthread_create 20 µs and posix_spawn
//! 300 µs at every heap, VmPTE 56 / 60 / 188 / 1080 / 8256 KiB; switches
//! unpinned: futex_threads 50 µs, futex_processes 60 µs (two_cpus 40 / 45 µs,
//! the fallback; same_cpu 2 / 3 µs, the floor); async 200 ns; per thread
//! (variant=default) at 2000 threads: 8 KiB resident, 16 KiB kernel stack,
//! 4096 bytes of page tables (at 500 and 1000 threads: 10 KiB, 17 KiB, 8192
//! bytes, not to be used); 2 CPUs.

mod common;

use common::tasklab;
use predicates::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

const FIXTURE: &str = "tests/data/advise-results.json";
const KIB: f64 = 1024.0;

fn advise_json(file: &Path, args: &[&str]) -> Value {
    let out = tasklab()
        .arg("advise")
        .args(args)
        .arg("--results")
        .arg(file)
        .arg("--json")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).expect("advise --json prints JSON")
}

fn model<'a>(a: &'a Value, name: &str) -> &'a Value {
    a["models"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["model"] == name)
        .unwrap_or_else(|| panic!("no model {name} in {a}"))
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// A copy of the fixture with `edit` applied, in `dir`.
fn edited(dir: &Path, name: &str, edit: impl FnOnce(&mut Value)) -> PathBuf {
    let mut v: Value = serde_json::from_slice(&std::fs::read(FIXTURE).unwrap()).unwrap();
    edit(&mut v);
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_vec(&v).unwrap()).unwrap();
    p
}

fn drop_experiment(v: &mut Value, name: &str) {
    v["experiments"]
        .as_array_mut()
        .unwrap()
        .retain(|e| e["name"] != name);
}

#[test]
fn a_thousand_forks_of_100_us_are_a_tenth_of_a_cpu() {
    let a = advise_json(
        Path::new(FIXTURE),
        &["--rate", "1000", "--heap", "0", "--switches", "0"],
    );
    assert_eq!(a["cpus"], 2);
    let p = model(&a, "process");
    assert_eq!(num(&p["create_ns"]), 100_000.0);
    assert!(close(num(&p["cpu_share"]), 0.10), "{p}");
    assert!(close(num(&p["cpu_percent"]), 10.0), "{p}");
    assert_eq!(p["keeps_up"], true);
    assert_eq!(p["create_from"]["experiment"], "spawn.heap");
    assert_eq!(p["create_from"]["metric"], "lifecycle_ns");
    assert_eq!(p["create_from"]["labels"], "method=fork thp=off");
    // 1000 x 20 µs = 2%; 1000 hand-offs x 2 µs (same CPU: the CPU work)
    // = 0.2%; 1000 x 200 ns = 0.02%; 1000 x 300 µs = 30%.
    assert!(close(num(&model(&a, "thread")["cpu_share"]), 0.02));
    let pool = model(&a, "pool");
    assert!(close(num(&pool["cpu_share"]), 0.002));
    assert_eq!(
        pool["create_from"]["labels"],
        "method=futex_threads placement=same_cpu"
    );
    assert!(pool["create_from"]["how"]
        .as_str()
        .unwrap()
        .contains("only part of it CPU time"));
    assert!(close(num(&model(&a, "async")["cpu_share"]), 0.0002));
    assert!(close(num(&model(&a, "spawn")["cpu_share"]), 0.3));
}

#[test]
fn switches_cost_the_same_cpu_figure_with_the_cross_cpu_latency_shown() {
    let a = advise_json(
        Path::new(FIXTURE),
        &["--rate", "1k", "--heap", "0", "--switches", "10k"],
    );
    // 1000 x 100 µs + 10,000 x 3 µs (futex_processes, same CPU) = 0.13.
    let p = model(&a, "process");
    assert!(close(num(&p["cpu_share"]), 0.13), "{p}");
    assert_eq!(
        p["switch_from"]["labels"],
        "method=futex_processes placement=same_cpu"
    );
    // The cross-CPU hand-off is shown as latency, never added to the CPU.
    assert_eq!(
        p["switch_cross_cpu"]["labels"],
        "method=futex_processes placement=unpinned"
    );
    assert_eq!(num(&p["switch_cross_cpu"]["value"]), 60_000.0);
    assert_eq!(p["cpu_lower_bound"], false);
    // 1000 x 20 µs + 10,000 x 2 µs (futex_threads, same CPU) = 0.04.
    assert!(close(num(&model(&a, "thread")["cpu_share"]), 0.04));
    // 1000 x 200 ns + 10,000 x 200 ns = 0.0022.
    assert!(close(num(&model(&a, "async")["cpu_share"]), 0.0022));

    // Without same-CPU figures, a cross-CPU one, saying it is an upper bound.
    let d = tempfile::tempdir().unwrap();
    let f = edited(d.path(), "no-same-cpu.json", |v| {
        for e in v["experiments"].as_array_mut().unwrap() {
            if e["name"] == "switch.pingpong" {
                e["metrics"]
                    .as_array_mut()
                    .unwrap()
                    .retain(|m| m["labels"]["placement"] != "same_cpu");
            }
        }
    });
    let a = advise_json(&f, &["--rate", "1k", "--heap", "0", "--switches", "10k"]);
    let t = model(&a, "thread");
    assert_eq!(
        t["switch_from"]["labels"],
        "method=futex_threads placement=unpinned"
    );
    assert!(t["switch_from"]["how"]
        .as_str()
        .unwrap()
        .contains("no usable same_cpu figure"));
    assert!(close(num(&t["cpu_share"]), 0.02 + 0.5));
}

#[test]
fn fork_is_interpolated_between_the_measured_heaps() {
    // 33 MiB is halfway between 2 MiB (110 µs) and 64 MiB (400 µs): 255 µs.
    let a = advise_json(
        Path::new(FIXTURE),
        &["--rate", "1000", "--heap", "33MiB", "--switches", "0"],
    );
    let p = model(&a, "process");
    assert!(close(num(&p["create_ns"]), 255_000.0), "{p}");
    assert!(close(num(&p["cpu_share"]), 0.255));
    let how = p["create_from"]["how"].as_str().unwrap();
    assert!(how.contains("interpolated") && how.contains("2 MiB") && how.contains("64 MiB"));
    // Page tables the same way: 60 + (188 - 60) / 2 = 124 KiB per child,
    // with its 16 KiB of stack and 16 KiB kernel stack; a floor.
    let own = 124.0 * KIB;
    // 1000/s x 10 ms = 10 tasks alive.
    assert!(close(
        num(&p["memory_bytes"]),
        10.0 * (16.0 * KIB + 16.0 * KIB + own)
    ));
    assert_eq!(p["memory_lower_bound"], true);
}

#[test]
fn the_thp_series_is_not_used() {
    let a = advise_json(Path::new(FIXTURE), &["--heap", "64MiB"]);
    assert_eq!(num(&model(&a, "process")["create_ns"]), 400_000.0);
}

#[test]
fn past_the_largest_heap_fork_is_extrapolated_with_the_fitted_slope() {
    let a = advise_json(
        Path::new(FIXTURE),
        &["--rate", "10", "--heap", "8GiB", "--switches", "0"],
    );
    let p = model(&a, "process");
    let how = p["create_from"]["how"].as_str().unwrap();
    assert!(
        how.contains("extrapolated") && how.contains("least-squares"),
        "{how}"
    );
    // The least-squares slope over the five heaps, from the 4 GiB point.
    let pts = [
        (0.0, 100_000.0),
        ((2u64 << 20) as f64, 110_000.0),
        ((64u64 << 20) as f64, 400_000.0),
        ((512u64 << 20) as f64, 2_000_000.0),
        ((4u64 << 30) as f64, 16_000_000.0),
    ];
    let n = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let slope = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum::<f64>()
        / pts.iter().map(|p| (p.0 - mx).powi(2)).sum::<f64>();
    let want = 16_000_000.0 + slope * (4u64 << 30) as f64;
    assert!(close(num(&p["create_ns"]), want), "{p} vs {want}");
    assert!(num(&p["create_ns"]) > 16_000_000.0);
    // A flat curve (pthread_create) is held at its last figure.
    assert_eq!(num(&model(&a, "thread")["create_ns"]), 20_000.0);
}

#[test]
fn memory_follows_the_stated_formulas() {
    let a = advise_json(
        Path::new(FIXTURE),
        &[
            "--rate",
            "2000",
            "--lifetime",
            "20ms",
            "--heap",
            "0",
            "--stack",
            "64K",
        ],
    );
    // Little's law: 2000/s x 20 ms = 40 alive.
    assert_eq!(a["workload"]["concurrent"], 40);
    assert_eq!(a["workload"]["concurrent_given"], false);
    let thread = 64.0 * KIB + 16.0 * KIB + 4096.0; // max(64K, 8K) + kernel + PTEs
    assert!(close(
        num(&model(&a, "thread")["memory_bytes"]),
        40.0 * thread
    ));
    // A forked child: your stack (copied as it writes it) + its kernel stack
    // + its copy of the parent's page tables, no thread's page tables: a
    // floor, copy-on-write pages not counted.
    let p = model(&a, "process");
    assert!(close(
        num(&p["memory_bytes"]),
        40.0 * (64.0 * KIB + 16.0 * KIB + 56.0 * KIB)
    ));
    assert_eq!(p["memory_lower_bound"], true);
    assert!(p["memory_basis"]
        .as_str()
        .unwrap()
        .contains("copy-on-write"));
    assert!(close(
        num(&model(&a, "pool")["memory_bytes"]),
        2.0 * thread + 40.0 * 64.0 * KIB
    ));
    let y = model(&a, "async");
    assert!(close(num(&y["memory_bytes"]), 40.0 * 64.0 * KIB));
    assert_eq!(y["memory_stand_in"], true);
    assert_eq!(y["create_from"]["stand_in"], true);
    assert_eq!(y["cpu_stand_in"], true);
    let s = model(&a, "spawn");
    assert_eq!(s["memory_lower_bound"], true);
    assert!(close(num(&s["memory_bytes"]), 40.0 * 16.0 * KIB));
    assert!(s["memory_basis"].as_str().unwrap().contains("not measured"));
    // Every kernel-model estimate names the memory.threads figures it used:
    // those at the largest thread count measured.
    let from = model(&a, "thread")["memory_from"].as_array().unwrap();
    assert!(from.iter().all(|f| f["experiment"] == "memory.threads"
        && f["labels"].as_str().unwrap().contains("variant=default")
        && f["labels"].as_str().unwrap().contains("threads=2000")));
    assert_eq!(from.len(), 3);
}

#[test]
fn a_concurrency_below_littles_law_is_noted() {
    let a = advise_json(
        Path::new(FIXTURE),
        &["--rate", "2000", "--lifetime", "20ms", "--concurrent", "10"],
    );
    assert_eq!(a["workload"]["concurrent"], 10);
    assert!(a["notes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n.as_str().unwrap().contains("Little's law")));
}

#[test]
fn a_model_that_cannot_keep_up_is_flagged() {
    // 100,000 forks/s x 100 µs = 10 CPUs of overhead on 2 CPUs.
    let a = advise_json(
        Path::new(FIXTURE),
        &["--rate", "100k", "--heap", "0", "--switches", "0"],
    );
    let p = model(&a, "process");
    assert!(close(num(&p["cpu_share"]), 10.0));
    assert_eq!(p["keeps_up"], false);
    assert_eq!(model(&a, "thread")["keeps_up"], true);
    assert!(a["recommendation"]
        .as_str()
        .unwrap()
        .contains("cannot keep up on 2 CPUs: process per task"));
}

/// Whitespace runs (a line wrapped to the width and its indent) as one
/// space, so a phrase reads whole wherever the width broke it.
fn flat(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn the_table_names_every_source_and_recommends() {
    let out = tasklab()
        .args(["advise", "--rate", "1000", "--heap", "0", "--switches", "0"])
        .args(["--results", FIXTURE])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = flat(&String::from_utf8(out).unwrap());
    for want in [
        "process per task (fork)",
        "10.0%",
        "spawn.heap lifecycle_ns method=fork thp=off = 100 µs (measured at heap 0 B)",
        "switch = switch.pingpong switch_ns method=futex_threads placement=same_cpu = 2.00 µs",
        "a hand-off to another CPU = switch.pingpong switch_ns method=futex_threads placement=unpinned = 50.0 µs",
        "~200.0 ns",
        "~ another figure stands in",
        "switch.userspace switch_ns variant=async",
        "memory.threads rss_per_thread_kib",
        "Least CPU: async tasks",
    ] {
        assert!(text.contains(want), "{want} not in {text}");
    }
}

/// advise's human output at `width`, from the fixture, for a workload.
fn advise_text(args: &[&str], width: usize) -> String {
    use clap::Parser;
    let argv = ["tasklab", "advise"].iter().chain(args);
    let Some(tasklab::api::cli::Command::Advise(a)) =
        tasklab::api::cli::Cli::parse_from(argv).command
    else {
        panic!("not advise")
    };
    let w = tasklab::api::advise::Workload::from_args(&a).unwrap();
    let results = tasklab::api::results::RunResults::read(Path::new(FIXTURE)).unwrap();
    let advice =
        tasklab::api::advise::advise(&w, &tasklab::api::advise::costs_from(&results, FIXTURE));
    let header = tasklab::api::advise::header(&results, FIXTURE);
    tasklab::api::advise::render::render_at(&advice, &header, width)
}

#[test]
fn the_human_output_fits_the_width_and_breaks_no_word() {
    for args in [
        &["--rate", "2k", "--heap", "2GiB", "--switches", "50k"][..],
        &["--rate", "1M", "--lifetime", "1s", "--heap", "0"][..],
    ] {
        let wide = advise_text(args, 10_000);
        let words: std::collections::HashSet<&str> = wide.split_whitespace().collect();
        // The basis lines run past 200 columns unfitted.
        assert!(wide.lines().any(|l| l.chars().count() > 200), "{wide}");
        for width in [60, 80, 120] {
            let text = advise_text(args, width);
            for l in text.lines() {
                assert!(l.chars().count() <= width, "width {width}: {l}");
            }
            // Every word whole: none is a piece of a word of the unfitted
            // text (the narrow layout adds its short column names).
            for w in text.split_whitespace() {
                assert!(
                    words.contains(w) || ["create", "CPU", "·"].contains(&w),
                    "width {width}: {w:?} is not a word of the unfitted text"
                );
            }
            assert_eq!(
                flat(&text).matches("thp=off").count(),
                flat(&wide).matches("thp=off").count()
            );
        }
    }
}

#[test]
fn a_missing_figure_is_named_in_its_row() {
    let d = tempfile::tempdir().unwrap();
    let f = edited(d.path(), "no-memory.json", |v| {
        drop_experiment(v, "memory.threads")
    });
    let a = advise_json(&f, &["--rate", "1000", "--heap", "0"]);
    let t = model(&a, "thread");
    assert!(t["memory_bytes"].is_null());
    let want = format!(
        "thread memory not measured in {} (run `tasklab run memory.threads`)",
        f.display()
    );
    assert!(
        t["missing"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m == &Value::from(want.clone())),
        "{t}"
    );
    // The CPU side does not need memory.threads.
    assert!(close(
        num(&t["cpu_share"]),
        (1000.0 * 20_000.0 + 10_000.0 * 2_000.0) / 1e9
    ));
    // And the human output says it too.
    tasklab()
        .args(["advise", "--results"])
        .arg(&f)
        .assert()
        .success()
        .stdout(predicate::str::contains(want).and(predicate::str::contains("not measured")));
}

#[test]
fn without_spawn_heap_the_methods_figure_stands_in_and_says_so() {
    let d = tempfile::tempdir().unwrap();
    let f = edited(d.path(), "no-heap.json", |v| {
        drop_experiment(v, "spawn.heap")
    });
    let a = advise_json(&f, &["--rate", "1000", "--heap", "1GiB", "--switches", "0"]);
    let p = model(&a, "process");
    assert_eq!(num(&p["create_ns"]), 90_000.0);
    assert_eq!(p["create_from"]["experiment"], "spawn.methods");
    assert!(p["create_from"]["how"]
        .as_str()
        .unwrap()
        .contains("run `tasklab run spawn.heap`"));
    // Its page tables at the heap are spawn.heap's: missing, said so.
    assert!(p["memory_bytes"].is_null());
    assert!(p["missing"][0].as_str().unwrap().contains("spawn.heap"));
}

#[test]
fn a_file_with_nothing_usable_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let f = edited(d.path(), "empty.json", |v| {
        v["experiments"] = Value::Array(vec![])
    });
    tasklab()
        .args(["advise", "--results"])
        .arg(&f)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("none of the figures advise needs"));
}

#[test]
fn foreign_other_version_truncated_and_missing_files_exit_2() {
    let d = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = d.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let fixture = std::fs::read_to_string(FIXTURE).unwrap();
    let cases = [
        (
            write("foreign.json", "{\"hello\": 1}"),
            "not a tasklab results file",
        ),
        (
            write(
                "v99.json",
                &fixture.replacen("\"schema_version\": 1", "\"schema_version\": 99", 1),
            ),
            "schema version 99",
        ),
        (
            write("cut.json", &fixture[..fixture.len() / 2]),
            "truncated",
        ),
        (d.path().join("absent.json"), "cannot read"),
    ];
    for (path, msg) in cases {
        tasklab()
            .args(["advise", "--results"])
            .arg(&path)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(msg));
    }
}

#[test]
fn bad_workload_figures_exit_2_with_the_bound() {
    let cases: &[(&[&str], &str)] = &[
        (&["--rate", "-5"], "--rate: '-5' is negative"),
        (
            &["--rate", "0"],
            "--rate: 0 tasks per second leaves nothing",
        ),
        (
            &["--rate", "1,5k"],
            "--rate: '1,5k': a comma may only separate groups of three digits",
        ),
        (
            &["--switches", "10,00"],
            "--switches: '10,00': a comma may only separate groups of three digits",
        ),
        (&["--rate", "nan"], "--rate: 'nan' is not a finite number"),
        (&["--rate", "2G"], "1,000,000,000"),
        (&["--rate", "lots"], "not a number"),
        (&["--lifetime", "2days"], "unknown unit"),
        (&["--lifetime", "20"], "needs a unit"),
        (&["--lifetime", "25h"], "one day"),
        (
            &["--lifetime", "0ms"],
            "--lifetime: a task lives for some time",
        ),
        (&["--heap", "2048T"], "1 PiB"),
        (&["--heap", "-1G"], "--heap: '-1G': not a size"),
        (&["--heap", "12XB"], "unknown size unit"),
        (
            &["--switches", "5G"],
            "--switches: 5G is above 1,000,000,000",
        ),
        (
            &["--concurrent", "0"],
            "--concurrent: 0: at least one task is alive",
        ),
        (&["--concurrent", "1.5"], "not a whole number of tasks"),
        (&["--stack", "0"], "--stack: a task uses some stack"),
        (&["--stack", "4G"], "1 GiB"),
        (&["--rate", "1M", "--lifetime", "1h"], "alive at once"),
    ];
    for (args, msg) in cases {
        tasklab()
            .arg("advise")
            .args(*args)
            .args(["--results", FIXTURE])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(*msg));
    }
}

#[test]
fn help_shows_the_workload_flags_and_their_defaults() {
    tasklab()
        .args(["advise", "--help"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("--rate <N>")
                .and(predicate::str::contains("[default: 1000]"))
                .and(predicate::str::contains("--lifetime <T>"))
                .and(predicate::str::contains("--heap <SIZE>"))
                .and(predicate::str::contains("--switches <N>"))
                .and(predicate::str::contains("--concurrent <N>"))
                .and(predicate::str::contains("--stack <SIZE>"))
                .and(predicate::str::contains("--results <FILE>"))
                .and(predicate::str::contains("fresh quick run")),
        );
}

#[test]
fn commas_group_digits_in_threes() {
    let a = advise_json(Path::new(FIXTURE), &["--rate", "10,000", "--heap", "0"]);
    assert_eq!(num(&a["workload"]["rate_per_s"]), 10_000.0);
}

#[test]
fn littles_law_is_not_thrown_off_by_float_error() {
    // 10/s x 0.7 s is 7.000000000000001 in floats: 7 tasks, not 8.
    let a = advise_json(
        Path::new(FIXTURE),
        &["--rate", "10", "--lifetime", "700ms", "--heap", "0"],
    );
    assert_eq!(a["workload"]["concurrent"], 7);
    // And a given 7 is not "below Little's law".
    let a = advise_json(
        Path::new(FIXTURE),
        &[
            "--rate",
            "10",
            "--lifetime",
            "700ms",
            "--concurrent",
            "7",
            "--heap",
            "0",
        ],
    );
    assert!(!a["notes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n.as_str().unwrap().contains("Little's law")));
}

/// Sets the median (and samples) of every metric of `exp` named `metric`
/// whose labels include `with`.
fn set_median(v: &mut Value, exp: &str, metric: &str, with: &[(&str, &str)], to: Value) {
    for e in v["experiments"].as_array_mut().unwrap() {
        if e["name"] != exp {
            continue;
        }
        for m in e["metrics"].as_array_mut().unwrap() {
            if m["name"] == metric && with.iter().all(|(k, x)| m["labels"][*k] == *x) {
                m["summary"]["median"] = to.clone();
            }
        }
    }
}

#[test]
fn negative_absurd_and_wrong_unit_figures_are_treated_as_missing_with_the_reason() {
    let d = tempfile::tempdir().unwrap();
    let f = edited(d.path(), "bad.json", |v| {
        // Every fork point negative: no fork figure at all.
        set_median(
            v,
            "spawn.heap",
            "lifecycle_ns",
            &[("method", "fork")],
            (-100_000.0).into(),
        );
        set_median(
            v,
            "spawn.methods",
            "lifecycle_ns",
            &[("method", "fork")],
            (-1.0).into(),
        );
        // An absurd same-CPU futex switch: the same-CPU pipe one is used.
        set_median(
            v,
            "switch.pingpong",
            "switch_ns",
            &[("method", "futex_threads"), ("placement", "same_cpu")],
            1e300.into(),
        );
        // The kernel stack in bytes where KiB is expected.
        for e in v["experiments"].as_array_mut().unwrap() {
            if e["name"] == "memory.threads" {
                for m in e["metrics"].as_array_mut().unwrap() {
                    if m["name"] == "kernel_stack_per_thread_kib" {
                        m["unit"] = "bytes".into();
                    }
                }
            }
        }
    });
    let a = advise_json(&f, &["--rate", "1000", "--heap", "0"]);
    let p = model(&a, "process");
    assert!(p["create_ns"].is_null() && p["cpu_share"].is_null(), "{p}");
    let miss = p["missing"].to_string();
    assert!(
        miss.contains("fork creation not usable in")
            && miss.contains("method=fork thp=off: its median, -100000 ns, is negative"),
        "{miss}"
    );
    let t = model(&a, "thread");
    assert_eq!(
        t["switch_from"]["labels"],
        "method=pipe_threads placement=same_cpu"
    );
    assert!(a["notes"].to_string().contains(
        "placement=same_cpu: its median, 1e300 ns, is above an hour: not a plausible figure"
    ));
    assert!(t["memory_bytes"].is_null());
    assert!(t["missing"]
        .to_string()
        .contains("its unit is 'bytes' where 'KiB' is expected"));
    // The human output prints no negative or infinite share.
    let out = tasklab()
        .args(["advise", "--rate", "1000", "--heap", "0", "--results"])
        .arg(&f)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    // The file's path is the random temporary folder's, which may itself
    // spell "NaN" or "inf" (".tmppNaNWq" did once): it is not a figure.
    let out = String::from_utf8(out)
        .unwrap()
        .replace(&f.display().to_string(), "FILE");
    assert!(
        !out.contains("-0.") && !out.contains("inf") && !out.contains("NaN"),
        "{out}"
    );
    assert!(out.contains("is negative"));

    // With spawn.methods' fork usable, it stands in, saying why.
    let f = edited(d.path(), "bad-heap.json", |v| {
        set_median(
            v,
            "spawn.heap",
            "lifecycle_ns",
            &[("method", "fork")],
            (-100_000.0).into(),
        );
    });
    let a = advise_json(&f, &["--rate", "1000", "--heap", "0"]);
    let p = model(&a, "process");
    assert_eq!(p["create_from"]["experiment"], "spawn.methods");
    assert!(p["create_from"]["how"]
        .as_str()
        .unwrap()
        .contains("spawn.heap has no usable fork figure in"));
    assert!(a["notes"].to_string().contains("is negative"));
}

#[test]
fn memory_threads_figures_come_from_the_largest_thread_count() {
    // Without the 2000-thread figures, the 1000-thread ones (10 KiB
    // resident, 17 KiB kernel stack, 8192 bytes of page tables).
    let d = tempfile::tempdir().unwrap();
    let f = edited(d.path(), "no-2000.json", |v| {
        for e in v["experiments"].as_array_mut().unwrap() {
            if e["name"] == "memory.threads" {
                e["metrics"]
                    .as_array_mut()
                    .unwrap()
                    .retain(|m| m["labels"]["threads"] != "2000");
            }
        }
    });
    let a = advise_json(&f, &["--rate", "1000", "--heap", "0", "--stack", "4K"]);
    let t = model(&a, "thread");
    assert!(close(
        num(&t["memory_bytes"]),
        10.0 * (10.0 * KIB + 17.0 * KIB + 8192.0)
    ));
    assert!(t["memory_from"][0]["labels"]
        .as_str()
        .unwrap()
        .contains("threads=1000"));
}

#[test]
fn several_page_table_readings_at_one_heap_give_their_median() {
    let d = tempfile::tempdir().unwrap();
    let f = edited(d.path(), "ptes.json", |v| {
        for e in v["experiments"].as_array_mut().unwrap() {
            if e["name"] == "spawn.heap" {
                let rs = e["readings"].as_array_mut().unwrap();
                let first = rs[0].clone(); // 56 KiB at heap 0
                for kib in [100.0, 60.0] {
                    let mut r = first.clone();
                    r["value"] = kib.into();
                    rs.push(r);
                }
            }
        }
    });
    // 56, 100, 60 KiB at heap 0: the median, 60.
    let a = advise_json(&f, &["--rate", "1000", "--heap", "0"]);
    let p = model(&a, "process");
    assert_eq!(num(&p["memory_from"][1]["value"]), 60.0);
    assert!(close(
        num(&p["memory_bytes"]),
        10.0 * (16.0 * KIB + 16.0 * KIB + 60.0 * KIB)
    ));
}

#[test]
fn posix_spawn_is_compared_with_fork_exec_of_the_same_program_and_vfork() {
    let a = advise_json(Path::new(FIXTURE), &["--heap", "64MiB"]);
    let r = a["recommendation"].as_str().unwrap();
    assert!(
        r.contains("posix_spawn costs 300 µs per start against 800 µs for fork+exec of the same program (spawn.heap fork_exec_static)")
            && r.contains("vfork, which posix_spawn builds on, costs 50.0 µs without the exec at a 64 MiB heap"),
        "{r}"
    );
    assert!(!r.contains("fork alone"));
}

#[test]
fn far_past_the_largest_heap_an_extrapolation_is_said_and_noise_is_held() {
    // The fixture's fork rises cleanly: extrapolated, and at 8x the largest
    // heap a note says so.
    let a = advise_json(Path::new(FIXTURE), &["--rate", "10", "--heap", "32GiB"]);
    let p = model(&a, "process");
    assert!(p["notes"]
        .to_string()
        .contains("is an extrapolation, 8x the largest measured heap (4 GiB)"));
    // A real run's pthread_create and posix_spawn are noise around a flat
    // line: held at the largest heap's figure, not grown to seconds.
    let real = Path::new("tests/data/report-results.json");
    let a = advise_json(real, &["--rate", "10", "--heap", "512TiB"]);
    for m in ["thread", "spawn"] {
        let r = model(&a, m);
        let how = r["create_from"]["how"].as_str().unwrap();
        assert!(how.contains("held there"), "{m}: {how}");
        assert!(num(&r["create_ns"]) < 1e6, "{m}: {r}");
    }
}
