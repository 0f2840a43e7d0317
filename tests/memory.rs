//! End-to-end runs of the memory group on tiny parameters, asserting the
//! relations that always hold (never timings).

use serde_json::Value;

mod common;
use common::*;

fn label_of(e: &Value, name: &str, variant: &str, key: &str) -> String {
    e["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == name && m["labels"]["variant"] == variant)
        .unwrap()["labels"][key]
        .as_str()
        .unwrap()
        .to_string()
}

fn kib_of_size(text: &str) -> f64 {
    let (num, unit) = text.split_once(' ').unwrap();
    let n: f64 = num.parse().unwrap();
    n * match unit {
        "KiB" => 1.0,
        "MiB" => 1024.0,
        "GiB" => 1024.0 * 1024.0,
        other => panic!("unit {other}"),
    }
}

#[test]
fn demo_clone_vm_prints_the_seeds_output() {
    tasklab()
        .args(["demo", "clone-vm"])
        .assert()
        .success()
        .stdout(
            "Child sees buf = \"hello from parent\"\n\
         Child exited with status 0. buf = \"hello from parent\"\n",
        );
}

#[test]
fn demo_clone_vm_with_vm_shows_the_childs_write() {
    tasklab()
        .args(["demo", "clone-vm", "vm"])
        .assert()
        .success()
        .stdout(
            "Child sees buf = \"hello from parent\"\n\
         Child exited with status 0. buf = \"hello from child\"\n",
        );
}

#[test]
fn demo_rejects_an_unknown_mode() {
    tasklab()
        .args(["demo", "clone-vm", "files"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("possible values: vm"));
}

#[test]
fn thread_stacks_are_virtual_until_touched() {
    let e = run_one(
        "memory.threads",
        &["threads=40", "small_stack=128K", "touch=400K"],
    );
    // Virtual size grows by about the stack (plus its guard page) per thread.
    let stack = kib_of_size(&label_of(&e, "virt_per_thread_kib", "default", "stack"));
    let virt = median(&e, "virt_per_thread_kib", &[("variant", "default")]);
    assert!(
        (stack..=stack + 256.0).contains(&virt),
        "virtual per thread {virt} KiB vs stack {stack} KiB"
    );
    let small = median(&e, "virt_per_thread_kib", &[("variant", "small")]);
    assert!(
        (128.0..=128.0 + 64.0).contains(&small),
        "small stack: {small} KiB per thread"
    );
    // Resident grows by far less than the stack.
    let rss = median(&e, "rss_exact_per_thread_kib", &[("variant", "default")]);
    assert!(
        rss < virt / 20.0,
        "resident {rss} KiB vs virtual {virt} KiB"
    );
    // Touching 400 KiB of stack raises resident by about that much per thread.
    let touched = median(&e, "rss_exact_per_thread_kib", &[("variant", "touch")]);
    assert!(
        (0.9 * 400.0..=400.0 + 128.0).contains(&touched),
        "touched 400 KiB, resident grew {touched} KiB per thread"
    );
    let count = label_of(&e, "create_ns", "default", "threads");
    assert_eq!(count, "40");
    assert!(!e["findings"].as_array().unwrap().is_empty());
}

#[test]
fn sharing_matrix_follows_the_flags() {
    let e = run_one("memory.sharing", &["reps=1"]);
    let shared = |flag: &str, aspect: &str| {
        reading_value(&e, "shared", &[("flag", flag), ("aspect", aspect)]) > 0.5
    };
    assert!(shared("CLONE_VM", "memory"));
    assert!(!shared("none", "memory"));
    for aspect in ["memory", "fd_open", "fd_close", "cwd", "signal", "tgid"] {
        assert!(!shared("none", aspect), "none shares {aspect}");
        assert!(shared("pthread_create", aspect), "threads share {aspect}");
    }
    assert!(shared("CLONE_FILES", "fd_open") && shared("CLONE_FILES", "fd_close"));
    assert!(!shared("CLONE_FILES", "memory"));
    assert!(shared("CLONE_FS", "cwd") && !shared("CLONE_FS", "fd_open"));
    assert!(shared("CLONE_SIGHAND", "signal") && !shared("CLONE_SIGHAND", "tgid"));
    assert!(shared("CLONE_THREAD", "tgid"));
}

#[test]
fn malloc_is_virtual_until_touched() {
    let e = run_one("memory.malloc", &["size=32M", "reps=2"]);
    let size_kib = 32.0 * 1024.0;
    let vm = median(&e, "vm_growth_kib", &[("stage", "after_malloc")]);
    let rss_malloc = median(&e, "rss_growth_kib", &[("stage", "after_malloc")]);
    let rss_touch = median(&e, "rss_growth_kib", &[("stage", "after_touch")]);
    assert!(vm >= size_kib, "VmSize grew {vm} KiB for 32 MiB");
    assert!(
        rss_malloc < size_kib / 10.0,
        "untouched malloc resident {rss_malloc}"
    );
    assert!(
        rss_touch >= 0.95 * size_kib,
        "touched 32 MiB, resident grew {rss_touch} KiB"
    );
}

#[test]
fn limits_name_a_binding_bound_and_the_probe_cleans_up() {
    let e = run_one("memory.limits", &["probe=true", "probe_ceiling=100"]);
    let computed = median(&e, "max_threads", &[("source", "computed")]);
    assert!(computed >= 1.0);
    assert!(e["readings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["name"] == "thread_bound" && r["labels"]["source"] == "pid_max"));
    let probed = median(&e, "max_threads", &[("source", "probe")]);
    assert_eq!(probed, 100.0);
    // one bound binds, or bounds within 5% of each other tie
    let f = e["findings"][0].as_str().unwrap();
    assert!(f.contains("binds") || f.contains("tie"), "{f}");
}

fn refused(exp: &str, params: &[&str], says: &str) {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = tasklab();
    cmd.args(["run", exp, "--out"]).arg(dir.path());
    for p in params {
        cmd.args(["-p", p]);
    }
    cmd.assert().code(2).stderr(predicates::str::contains(says));
}

#[test]
fn too_many_threads_are_refused_before_anything_starts() {
    refused(
        "memory.threads",
        &["threads=4000000"],
        "more than this machine allows",
    );
}

#[test]
fn a_touch_beyond_memory_or_the_stack_is_refused() {
    refused(
        "memory.threads",
        &["threads=20000", "touch=7M", "variants=touch"],
        "available",
    );
    refused(
        "memory.threads",
        &["touch=1G"],
        "does not fit the default thread stack",
    );
    refused("memory.malloc", &["size=1T"], "does not fit");
    refused(
        "memory.limits",
        &["probe=true", "probe_ceiling=4000000"],
        "probe_ceiling",
    );
}

#[test]
fn the_probe_finds_the_computed_bound_under_an_address_space_limit() {
    // RLIMIT_AS of 3 GB leaves room for a few hundred 8 MiB stacks: the
    // probe must be refused near the computed bound, without touching any
    // machine-wide limit.
    let dir = tempfile::tempdir().unwrap();
    let bin = assert_cmd::cargo::cargo_bin("tasklab");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -s 8192 && ulimit -v 3000000 && exec '{}' run memory.limits -p probe=true --out '{}' --json -",
            bin.display(),
            dir.path().display()
        ))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let e = &v["experiments"][0];
    let computed = e["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["labels"]["source"] == "computed")
        .unwrap();
    assert_eq!(
        computed["labels"]["binding"],
        "address space",
        "{}",
        brief(e)
    );
    let probe = e["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["labels"]["source"] == "probe")
        .unwrap();
    let stop = probe["labels"]["stopped_by"].as_str().unwrap();
    assert!(
        stop.starts_with("EAGAIN") || stop.starts_with("ENOMEM"),
        "{stop}"
    );
    let c = computed["summary"]["median"].as_f64().unwrap();
    let p = probe["summary"]["median"].as_f64().unwrap();
    assert!(
        (c - p).abs() <= (0.05 * c).max(8.0),
        "computed {c} vs probed {p}"
    );
}

#[test]
fn under_a_low_address_space_limit_threads_are_lowered_said_and_never_scaled() {
    // 512 MiB of address space holds some 60 threads of 8 MiB stacks: the
    // default counts (500, 2000) are lowered with a note, and the findings
    // say fewer were measured than asked and scale nothing beyond them.
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg("ulimit -v 524288 && exec \"$0\" \"$@\"")
        .arg(assert_cmd::cargo::cargo_bin("tasklab"))
        .args([
            "run",
            "memory.threads",
            "-p",
            "variants=default",
            "--rounds",
            "3",
        ])
        .args(["--json", "-", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let e = &v["experiments"][0];
    assert_ok(e);
    let notes = notes(e);
    assert!(notes.contains("address space bounds it at"), "{notes}");
    let findings: Vec<&str> = e["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert!(
        findings[0].starts_with("fewer threads than asked: at most ")
            && findings[0].contains("of the 2,000 asked"),
        "{findings:?}"
    );
    assert!(
        !findings
            .iter()
            .any(|f| f.contains("Scaled to the seed's 10,000:")),
        "{findings:?}"
    );
}
