//! End-to-end runs of the `switch` group on tiny parameters, asserting only
//! relations that always hold, never timings.

use assert_cmd::Command;
use serde_json::Value;

mod common;
use common::*;

fn run(args: &[&str], env: &[(&str, &str)]) -> (Value, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::cargo_bin("tasklab").unwrap();
    cmd.arg("run")
        .args(args)
        .arg("--out")
        .arg(dir.path())
        .args(["--json", "-"]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    (json_of_success(&mut cmd), dir)
}

fn metric<'a>(e: &'a Value, name: &str, key: &str, val: &str) -> Option<&'a Value> {
    e["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == name && m["labels"][key] == val)
}

fn median(m: &Value) -> f64 {
    m["summary"]["median"].as_f64().unwrap()
}

#[test]
fn pinned_pipe_pingpong_switches_at_least_once_per_round_trip() {
    let (v, _d) = run(
        &[
            "switch.pingpong",
            "-p",
            "methods=pipe_threads",
            "-p",
            "placements=same_cpu",
        ],
        &[],
    );
    let e = experiment(&v, "switch.pingpong");
    assert_ok(e);
    let at = [("placement", "same_cpu")];
    // Both tasks on one CPU: for the partner to answer, the measuring task
    // must leave the CPU, so each round trip costs it at least one context
    // switch, in every batch, however loaded the machine. Whether a switch
    // is voluntary is not physics: a task preempted between its write and
    // its read finds the answer there and never blocks.
    let all = samples(series(e, "switches_per_round_trip", &at));
    assert!(
        all.iter().all(|x| *x >= 1.0),
        "fewer than one context switch per round trip on one CPU: {}",
        spread(&all)
    );
    // Voluntary switches are some of the switches: in every batch, never
    // more than all of them (the two series are counted in the same
    // batches, in the same order).
    let vol = samples(series(e, "voluntary_per_round_trip", &at));
    assert_eq!(vol.len(), all.len(), "one voluntary count per batch");
    let over: Vec<(f64, f64)> = vol
        .iter()
        .zip(&all)
        .filter(|(v, a)| *v > *a)
        .map(|(v, a)| (*v, *a))
        .collect();
    assert!(
        over.is_empty(),
        "more voluntary switches than switches in {} batches, e.g. {:?}",
        over.len(),
        over.first()
    );
    let sw = metric(e, "switch_ns", "placement", "same_cpu").unwrap();
    let rt = metric(e, "round_trip_ns", "placement", "same_cpu").unwrap();
    let (sw, rt) = (median(sw), median(rt));
    assert!(
        (sw * 2.0 - rt).abs() <= rt * 0.01 + 1.0,
        "a switch is half a round trip: switch {sw} ns, round trip {rt} ns"
    );
    assert!(notes(e).contains("round trip / 2"), "{}", notes(e));
}

#[test]
fn a_user_space_switch_is_cheaper_than_a_kernel_pipe_switch() {
    let (v, _d) = run(
        &["switch.userspace", "-p", "variants=coroutine,kernel_pipe"],
        &[],
    );
    let e = experiment(&v, "switch.userspace");
    assert_ok(e);
    let co = median(metric(e, "switch_ns", "variant", "coroutine").unwrap());
    let kernel = median(metric(e, "switch_ns", "variant", "kernel_pipe").unwrap());
    assert!(co < kernel, "coroutine {co} ns vs kernel {kernel} ns");
}

#[test]
fn echo_runs_the_number_of_iterations_asked() {
    let (v, _d) = run(
        &[
            "switch.echo",
            "-p",
            "iterations=777",
            "-p",
            "runs=3",
            "--rounds",
            "3",
        ],
        &[],
    );
    let e = experiment(&v, "switch.echo");
    assert_ok(e);
    for place in ["same_cpu", "unpinned"] {
        let m = metric(e, "iterations_per_s", "placement", place).unwrap();
        // three runs in each of the quick profile's three rounds
        assert_eq!(m["rounds"], serde_json::json!([3, 3, 3]));
        assert_eq!(m["samples"].as_array().unwrap().len(), 9);
        let counted = reading(e, "echoes_counted_per_run", &[("placement", place)]);
        assert_eq!(counted["value"].as_f64(), Some(777.0));
    }
    // Both sides on one CPU: together they spend some CPU time per
    // iteration, and never much more than its wall time (a quarter of slack
    // for the counters read around each run; double counting would fail).
    let one = |name: &str| median(metric(e, name, "placement", "same_cpu").unwrap());
    let (cpu, wall) = (one("cpu_ns"), one("iteration_ns"));
    assert!(
        cpu > 0.0 && cpu <= wall * 1.25,
        "CPU {cpu} ns, wall {wall} ns"
    );
}

#[test]
fn go_variants_are_skipped_with_the_reason_when_go_is_absent() {
    let (v, _d) = run(
        &["switch.userspace", "-p", "variants=go_default,go_locked"],
        &[("TASKLAB_GO", "/nonexistent/go")],
    );
    let e = experiment(&v, "switch.userspace");
    assert_ok(e);
    assert!(e["metrics"].as_array().unwrap().is_empty());
    let n = notes(e);
    assert!(
        n.contains("go_default skipped")
            && n.contains("no Go toolchain")
            && n.contains("TASKLAB_GO"),
        "{n}"
    );
}

#[test]
fn a_cpu_that_is_not_allowed_is_refused_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::cargo_bin("tasklab")
        .unwrap()
        .args(["run", "switch.pingpong", "-p", "cpus=0,4000", "--out"])
        .arg(dir.path())
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8_lossy(&out);
    assert!(
        err.contains("CPU 4000 does not exist or is not in this process's affinity mask"),
        "{err}"
    );
    // out of the parameter's range altogether
    Command::cargo_bin("tasklab")
        .unwrap()
        .args(["run", "switch.echo", "-p", "cpus=99999", "--out"])
        .arg(dir.path())
        .assert()
        .code(2);
}

#[test]
fn default_two_cpu_placements_are_skipped_with_a_note_when_one_cpu_is_given() {
    // placements=two_cpus asked for with cpus=0 is refused (bad-inputs.tsv);
    // the default placements' two-CPU ones are dropped with a note.
    let (v, _d) = run(
        &[
            "switch.pingpong",
            "-p",
            "methods=pipe_threads",
            "-p",
            "cpus=0",
            "--rounds",
            "3",
        ],
        &[],
    );
    let e = experiment(&v, "switch.pingpong");
    assert!(
        notes(e).contains("two-CPU placements skipped"),
        "{}",
        brief(e)
    );
    let placements: Vec<&str> = e["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["labels"]["placement"].as_str())
        .collect();
    assert!(!placements.is_empty(), "{}", brief(e));
    assert!(
        placements.iter().all(|p| !p.starts_with("two_cpus")),
        "{placements:?}"
    );
}

/// switch.wakeup's like-for-like control turns a scheduler feature off for
/// its passes and always gives it back (issue 39 item 6). Against a fake
/// debugfs (`TASKLAB_SYSFS_ROOT`), as root: the feature reads as it was
/// after the run, no restore record is left, and the variant and its note
/// are in the results. Not root: the variant is not measured and the note
/// says why.
#[test]
fn wakeup_turns_ttwu_queue_off_for_its_passes_and_gives_it_back() {
    let root = tempfile::tempdir().unwrap();
    let features = root.path().join("sys/kernel/debug/sched/features");
    std::fs::create_dir_all(features.parent().unwrap()).unwrap();
    std::fs::write(&features, "PLACE_LAG TTWU_QUEUE NO_SIS_UTIL\n").unwrap();
    let (v, _d) = run(
        &["switch.wakeup", "--rounds", "3", "-p", "timer_sweep_us=0"],
        &[("TASKLAB_SYSFS_ROOT", root.path().to_str().unwrap())],
    );
    let e = experiment(&v, "switch.wakeup");
    let notes = e["notes"].to_string();
    let remote = metric(e, "wake_ns", "variant", "cross_cpu_remote");
    if nix_root() {
        if !notes.contains("the one-way wake-up and the FUTEX_WAKE call are not measured") {
            assert!(remote.is_some(), "{notes}");
            assert!(notes.contains("TTWU_QUEUE was off"), "{notes}");
        }
        // Written back as the flag it was (a regular file keeps the last
        // write alone).
        let now = std::fs::read_to_string(&features).unwrap();
        assert!(
            now.trim() == "TTWU_QUEUE" || now.contains("PLACE_LAG TTWU_QUEUE"),
            "{now}"
        );
        assert!(!root
            .path()
            .join("run/tasklab/sysfs-restore-worker.json")
            .exists());
    } else {
        assert!(remote.is_none());
        assert!(notes.contains("needs root"), "{notes}");
    }
}

fn nix_root() -> bool {
    // The effective uid, from /proc.
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("Uid:"))
        .and_then(|l| l.split_whitespace().nth(2).map(|u| u == "0"))
        .unwrap_or(false)
}
