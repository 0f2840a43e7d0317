//! `tasklab predict` without `--results` measures as `tasklab run` does,
//! and what it predicts is checked against a fork measured of the process
//! itself: a small C program, which waits on its stdin (as `sleep` would)
//! while predict reads it, then forks a few hundred times and prints how
//! long each fork took to return to it. A signal during predict's own run
//! gives exit 130 and no prediction, with nothing left behind.
//!
//! Every check holds at any precision, on a busy or throttled machine too:
//! the prediction's median within its interval, and the fork measured of
//! the process within a factor of 3 of that interval, never two intervals
//! that must meet. The interval's arithmetic is checked exactly on
//! constructed slopes in `src/predict/tests.rs`.

mod common;

use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The process predicted: waits for a line on stdin, then forks N times,
/// printing the nanoseconds from before each fork to its return in the
/// parent (the child exits at once, and is reaped after the clock stops),
/// as spawn.heap's warm `parent_return_ns` series measures it.
const FORKER: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
static long long now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 400;
    char line[16];
    if (!fgets(line, sizeof line, stdin)) return 1;
    for (int i = 0; i < n; i++) {
        long long t0 = now();
        pid_t p = fork();
        if (p == 0) _exit(0);
        long long t1 = now();
        if (p < 0) return 2;
        waitpid(p, 0, 0);
        printf("%lld\n", t1 - t0);
    }
    return 0;
}
"#;

/// The forker, compiled with the C compiler the build uses (`cc`).
fn forker(dir: &std::path::Path) -> std::path::PathBuf {
    let src = dir.join("forker.c");
    let bin = dir.join("forker");
    std::fs::write(&src, FORKER).unwrap();
    let ok = Command::new("cc")
        .args(["-O2", "-o"])
        .arg(&bin)
        .arg(&src)
        .status()
        .expect("cc, the C compiler the build uses");
    assert!(ok.success(), "cc forker.c");
    bin
}

/// The median of `v`.
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// How far a measured figure may sit outside the predicted interval: a
/// factor that a loaded machine's slices, and the moment between the two
/// measurements, do not reach, while a model off by an order of magnitude
/// does.
const FACTOR: f64 = 3.0;

#[test]
fn a_small_process_is_predicted_within_a_factor_of_a_fork_measured_of_it() {
    let d = tempfile::tempdir().unwrap();
    let bin = forker(d.path());
    let mut target = Command::new(&bin)
        .arg("400")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = common::tasklab()
        .args(["predict", "--json", "--pid", &target.id().to_string()])
        .timeout(Duration::from_secs(300))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let p = &v["prediction"]["parent_return_ns"];
    let (plo, pm, phi) = (
        p["lo"].as_f64().unwrap(),
        p["median"].as_f64().unwrap(),
        p["hi"].as_f64().unwrap(),
    );
    assert!(
        plo <= pm && pm <= phi,
        "predicted {pm:.0} ns outside its own interval [{plo:.0}, {phi:.0}]"
    );

    // Now the process forks, and says how long each fork took.
    target.stdin.take().unwrap().write_all(b"go\n").unwrap();
    let samples: Vec<f64> = BufReader::new(target.stdout.take().unwrap())
        .lines()
        .map(|l| l.unwrap().trim().parse::<f64>().unwrap())
        .collect();
    assert!(target.wait().unwrap().success());
    assert_eq!(samples.len(), 400);
    let m = median(samples);
    // The measured median within a factor of the predicted interval: the
    // model's order of magnitude, which no machine's precision changes.
    assert!(
        plo / FACTOR <= m && m <= phi * FACTOR,
        "measured fork {m:.0} ns against the prediction {pm:.0} ns [{plo:.0}, {phi:.0}], \
         more than {FACTOR}x outside it"
    );
}

/// Live processes whose environment holds `marker`.
fn marked(marker: &str) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let zombie = std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
                s.rsplit(')')
                    .next()
                    .is_some_and(|r| r.trim_start().starts_with(['Z', 'X']))
            });
            !zombie
                && std::fs::read(format!("/proc/{pid}/environ"))
                    .is_ok_and(|env| env.split(|&b| b == 0).any(|kv| kv == marker.as_bytes()))
        })
        .collect()
}

/// predict (or advise) started, `signal` sent once a worker of its own run
/// is up: exit 130, `message`, nothing on stdout, nothing left running.
fn signal_during_its_run(args: &[&str], signal: &str, message: &str) {
    let marker = format!(
        "TASKLAB_PREDICT_TEST={}-{signal}-{}",
        std::process::id(),
        args[0]
    );
    let (k, v) = marker.split_once('=').unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let child = Command::new(assert_cmd::cargo::cargo_bin("tasklab"))
        .args(args)
        .env(k, v)
        .env("TMPDIR", tmp.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let me = child.id() as i32;
    // A worker of its run: a marked process other than tasklab itself.
    let deadline = Instant::now() + Duration::from_secs(120);
    while !marked(&marker).iter().any(|p| *p != me) {
        assert!(Instant::now() < deadline, "no worker within 120 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    Command::new("kill")
        .args([signal, &me.to_string()])
        .status()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{args:?} {signal}: {err}");
    assert!(err.contains(message), "{args:?} {signal}: {err}");
    assert!(
        out.stdout.is_empty(),
        "{args:?} {signal}: a prediction from part of a run"
    );
    // Killed processes die when they next run: a loaded machine delays it.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = marked(&marker);
        if left.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{args:?} {signal}: left {left:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_signal_during_predicts_own_run_gives_130_and_no_prediction() {
    let mut target = Command::new("sleep").arg("600").spawn().unwrap();
    let pid = target.id().to_string();
    for signal in ["-INT", "-TERM"] {
        signal_during_its_run(
            &["predict", "--pid", &pid],
            signal,
            "interrupted: no prediction",
        );
    }
    target.kill().unwrap();
    target.wait().unwrap();
}

#[test]
fn a_signal_during_advises_own_run_gives_130_and_no_advice() {
    signal_during_its_run(&["advise"], "-TERM", "interrupted: no advice");
}
