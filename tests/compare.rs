//! `tasklab compare` on results files made in the test (series with a known
//! spread, `common::fixture`) and copies with an injected change: the
//! verdicts and the exit status CI jobs rely on, never decided by how
//! precisely this machine measures. One test measures for real, and asserts
//! only what holds at any precision: a run compared with itself.
//!
//! Every compare here passes `--no-noise`: a noise file a developer's
//! `tasklab calibrate` left in the cache never changes the outcome.

mod common;

use assert_cmd::Command;
use common::fixture::{self, Steady, YARDSTICKS};
use common::row_brief;
use predicates::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The series the injected changes move: CLOCK_MONOTONIC's read.
const MONOTONIC: Steady = YARDSTICKS[0];

/// `tasklab compare --no-noise`, the rest of the arguments to add.
fn compare() -> Command {
    let mut c = Command::cargo_bin("tasklab").unwrap();
    c.args(["compare", "--no-noise"]);
    c
}

/// The yardsticks' five series, steady at ±1% over 8 rounds of 20, as
/// `base.json` in `dir`.
fn steady_file(dir: &Path) -> PathBuf {
    fixture::write(dir, "base.json", &fixture::steady_results(&YARDSTICKS))
}

/// A copy of `base` as `name` with the monotonic clock's series times `k`.
fn injected(base: &Path, name: &str, k: f64) -> PathBuf {
    let mut r: Value = serde_json::from_slice(&std::fs::read(base).unwrap()).unwrap();
    fixture::scale(&mut r, &MONOTONIC, k);
    fixture::write(base.parent().unwrap(), name, &r)
}

/// `compare --json ARGS`'s exit status and rows; a failure to give JSON
/// says stderr.
fn rows_of(args: &[&Path]) -> (Option<i32>, Vec<Value>) {
    let out = compare().arg("--json").args(args).output().unwrap();
    let c: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON from compare ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code(), c["rows"].as_array().unwrap().clone())
}

#[test]
fn a_measured_run_compared_with_itself_is_unchanged() {
    // The one real run: a file against itself changes by nothing, however
    // wide its intervals, so it holds at any precision.
    let d = tempfile::tempdir().unwrap();
    Command::cargo_bin("tasklab")
        .unwrap()
        .args(["run", "yardstick.syscall", "--quiet", "--out"])
        .arg(d.path())
        .assert()
        .success();
    let f = d.path().join("results.json");
    compare()
        .args([&f, &f])
        .assert()
        .success()
        .stdout(predicate::str::contains("0 regressed, 0 improved"));
}

#[test]
fn a_run_compared_with_itself_is_unchanged() {
    let d = tempfile::tempdir().unwrap();
    let f = steady_file(d.path());
    compare()
        .args([&f, &f])
        .assert()
        .success()
        .stdout(predicate::str::contains("0 regressed, 0 improved"));
}

#[test]
fn an_injected_regression_is_flagged_and_fails_the_exit_status() {
    let d = tempfile::tempdir().unwrap();
    let base = steady_file(d.path());
    let slow = injected(&base, "slow.json", 3.0);
    let (code, rows) = rows_of(&[&base, &slow]);
    assert_eq!(code, Some(1), "a regression fails CI");
    assert_eq!(rows.len(), YARDSTICKS.len(), "every series compared");
    for row in &rows {
        if row["case"] == "clock=monotonic" {
            // three times slower on a ±1% series: beyond any interval
            assert_eq!(row["verdict"], "regressed", "{}", row_brief(row));
        } else {
            // the same samples on both sides: unchanged, or too imprecise
            // to say so, with the reason
            let ok = row["verdict"] == "unchanged"
                || (row["verdict"] == "inconclusive" && row["why"].is_string());
            assert!(ok, "{}", row_brief(row));
        }
    }
    // and the other way round it is an improvement, which passes
    let fast = injected(&base, "fast.json", 1.0 / 3.0);
    compare()
        .args([&base, &fast])
        .assert()
        .success()
        .stdout(predicate::str::contains("0 regressed, 1 improved"));
}

#[test]
fn files_that_are_not_results_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let f = steady_file(d.path());
    let junk = d.path().join("junk.json");
    std::fs::write(&junk, b"{\"schema\": \"something-else\"}").unwrap();
    compare()
        .args([&f, &junk])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not a tasklab results file"));
    let truncated = d.path().join("trunc.json");
    let text = std::fs::read(&f).unwrap();
    std::fs::write(&truncated, &text[..text.len() / 2]).unwrap();
    compare()
        .args([&f, &truncated])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("truncated"));
}

#[test]
fn several_files_per_side_are_pooled_and_json_has_the_documented_fields() {
    let d = tempfile::tempdir().unwrap();
    let f1 = steady_file(d.path());
    let first: Value = serde_json::from_slice(&std::fs::read(&f1).unwrap()).unwrap();
    let f2 = fixture::write(d.path(), "later.json", &fixture::another_run(&first, 1));
    let out = compare()
        .arg("--json")
        .args([&f1, &f2])
        .arg("--vs")
        .args([&f2, &f1])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "the same files both ways: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let c: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = c["rows"].as_array().unwrap();
    assert_eq!(rows.len(), YARDSTICKS.len(), "every series compared");
    for row in rows {
        for field in [
            "experiment",
            "metric",
            "labels",
            "base",
            "new",
            "change",
            "ci_lo",
            "ci_hi",
            "verdict",
        ] {
            assert!(
                row.get(field).is_some(),
                "{field} missing in {}",
                row_brief(row)
            );
        }
        // both sides hold the same rounds: no change, unless the interval
        // is too wide to say so, which the row then says
        let ok = row["verdict"] == "unchanged"
            || (row["verdict"] == "inconclusive" && row["why"].is_string());
        assert!(ok, "{}", row_brief(row));
        assert_eq!(row["base"], row["new"], "{}", row_brief(row));
    }
    assert_eq!(c["base_files"].as_array().unwrap().len(), 2);
    assert_eq!(c["new_files"].as_array().unwrap().len(), 2);
}

#[test]
fn one_file_with_no_vs_is_a_usage_error() {
    let d = tempfile::tempdir().unwrap();
    let f = steady_file(d.path());
    compare()
        .arg(&f)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--vs"));
}

// ------------------------------------------------ fixture results, no run

/// A real run (tests/data/report-results.json): compared as it is, and as
/// copies edited by `edit`, without measuring anything.
const FIXTURE: &str = "tests/data/report-results.json";

fn edited(dir: &std::path::Path, name: &str, edit: impl FnOnce(&mut Value)) -> std::path::PathBuf {
    let mut r: Value = serde_json::from_slice(&std::fs::read(FIXTURE).unwrap()).unwrap();
    edit(&mut r);
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_vec(&r).unwrap()).unwrap();
    p
}

/// Every sample of experiment `exp` times `k`.
fn scale(r: &mut Value, exp: &str, k: f64) {
    for e in r["experiments"].as_array_mut().unwrap() {
        if e["name"] != exp {
            continue;
        }
        for m in e["metrics"].as_array_mut().unwrap() {
            for v in m["samples"].as_array_mut().unwrap() {
                *v = Value::from(v.as_f64().unwrap() * k);
            }
        }
    }
}

/// The fixture without memory.threads, with half of spawn.heap's series
/// gone as two failed points, and spawn.methods 30% slower.
fn partial_and_slower(r: &mut Value) {
    let exps = r["experiments"].as_array_mut().unwrap();
    exps.retain(|e| e["name"] != "memory.threads");
    for e in exps.iter_mut().filter(|e| e["name"] == "spawn.heap") {
        let ms = e["metrics"].as_array_mut().unwrap();
        let keep = ms.len() / 2;
        ms.truncate(keep);
        e["failed_points"] = serde_json::json!([
            {"point": {"heap": 1}, "reason": "killed by SIGKILL"},
            {"point": {"heap": 2}, "reason": "killed by SIGKILL"}
        ]);
    }
    scale(r, "spawn.methods", 1.3);
}

fn compare_out(args: &[&std::ffi::OsStr]) -> std::process::Output {
    compare().args(args).output().unwrap()
}

fn flat(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn the_gates_fail_when_too_little_was_judged_and_bad_values_exit_2() {
    let f = std::ffi::OsStr::new(FIXTURE);
    let run = |extra: &[&str]| {
        let mut a = vec![f, f];
        a.extend(extra.iter().map(std::ffi::OsStr::new));
        compare_out(&a)
    };
    // The fixture against itself: no regression, but most series are too
    // imprecise to say unchanged.
    let c: Value = serde_json::from_slice(&run(&["--json"]).stdout).unwrap();
    let rows = c["rows"].as_array().unwrap();
    let decided = rows
        .iter()
        .filter(|r| r["verdict"] != "inconclusive")
        .count();
    assert!(
        decided > 0 && decided < rows.len(),
        "{decided} of {}",
        rows.len()
    );
    let pct = 100.0 * decided as f64 / rows.len() as f64;
    assert_eq!(run(&[]).status.code(), Some(0));
    let o = run(&["--fail-on-inconclusive"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!(
            "{} of {} compared series are inconclusive",
            rows.len() - decided,
            rows.len()
        )),
        "{err}"
    );
    let below = format!("{}", (pct - 1.0).floor());
    let above = format!("{}", (pct + 1.0).ceil());
    assert_eq!(run(&["--min-verdicts", &below]).status.code(), Some(0));
    let o = run(&["--min-verdicts", &above]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!("{decided} of {}", rows.len())),
        "{err}"
    );
    // Bad values: exit 2 before anything is read, nothing on stdout.
    for bad in ["101", "-1", "abc", "nan", ""] {
        let o = run(&["--min-verdicts", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(o.stdout.is_empty(), "{bad}");
    }
    // ab takes the same flags, checked before measuring.
    Command::cargo_bin("tasklab")
        .unwrap()
        .args([
            "ab",
            "selftest.spin",
            "--a",
            "param:ns=1000",
            "--b",
            "param:ns=2000",
        ])
        .args(["--min-verdicts", "200", "--out"])
        .arg(tempfile::tempdir().unwrap().path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--min-verdicts takes a percentage",
        ));
}

#[test]
fn a_partial_run_says_what_it_lacks_in_one_line_and_regressions_are_red_when_asked() {
    let d = tempfile::tempdir().unwrap();
    let new = edited(d.path(), "new.json", partial_and_slower);
    let base = std::path::Path::new(FIXTURE);
    let o = compare_out(&[base.as_os_str(), new.as_os_str(), "--json".as_ref()]);
    let c: Value = serde_json::from_slice(&o.stdout).unwrap();
    let (only_base, shared) = (
        c["only_in_base"].as_u64().unwrap(),
        c["rows"].as_array().unwrap().len() as u64,
    );
    let missing = c["missing"].as_str().unwrap();
    assert!(
        missing.starts_with("new lacks 1 experiment of base: memory.threads; and ")
            && missing.contains(" series of spawn.heap (2 points failed)")
            && missing.ends_with(&format!(
                "; compared {shared} of {} series",
                shared + only_base
            )),
        "{missing}"
    );
    // The text: that line, plain when piped.
    let o = compare_out(&[base.as_os_str(), new.as_os_str()]);
    assert_eq!(o.status.code(), Some(1), "spawn.methods regressed");
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        flat(&text).contains(&format!("missing: {missing}")),
        "{text}"
    );
    assert!(!text.contains('\x1b'), "{text}");
    assert!(text.contains("regressed"));
    // --color always paints the verdicts; the words are the same.
    let o = compare_out(&[
        "--color".as_ref(),
        "always".as_ref(),
        base.as_os_str(),
        new.as_os_str(),
    ]);
    let painted = String::from_utf8(o.stdout).unwrap();
    assert!(painted.contains("\x1b[31mregressed\x1b[0m"), "{painted}");
    assert_eq!(tasklab::api::paint::strip(&painted), text);
}

/// compare's comparison of the fixture against `new`.
fn comparison_with(new: &std::path::Path) -> tasklab::api::compare::Comparison {
    use tasklab::api::compare::{comparison, read_for_compare};
    let b = vec![read_for_compare(std::path::Path::new(FIXTURE)).unwrap()];
    let n = vec![read_for_compare(new).unwrap()];
    let names = (vec![FIXTURE.to_string()], vec![new.display().to_string()]);
    comparison((&b, names.0), (&n, names.1), 5.0, false, None).unwrap()
}

#[test]
fn every_line_fits_the_width_and_no_word_breaks() {
    use tasklab::api::compare::render::render_at;
    let d = tempfile::tempdir().unwrap();
    let new = edited(d.path(), "new.json", partial_and_slower);
    let c = comparison_with(&new);
    for all in [false, true] {
        let wide = render_at(&c, all, 10_000);
        assert!(
            wide.lines().any(|l| l.chars().count() > 150),
            "unfitted lines run long"
        );
        let words: std::collections::HashSet<&str> = wide.split_whitespace().collect();
        for width in [60, 80, 120] {
            let text = render_at(&c, all, width);
            for l in text.lines() {
                assert!(l.chars().count() <= width, "width {width}: {l}");
            }
            // Each word whole (the narrower layouts add only these).
            for w in text.split_whitespace() {
                assert!(
                    words.contains(w)
                        || ["series", "->"].contains(&w)
                        || w.chars().all(|c| c == '─'),
                    "width {width}: {w:?} is not a word of the unfitted text"
                );
            }
            // Every row is there, each with its verdict.
            assert_eq!(
                text.matches("regressed").count(),
                wide.matches("regressed").count(),
                "width {width}"
            );
        }
    }
}
