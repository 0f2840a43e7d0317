//! What the terminal shows and what the report folder holds, on the fixed
//! results file of tests/report.rs: the terse output (a snapshot, at most 80
//! lines of at most 100 columns, the report's Summary in it), the tables
//! under --tables fitted to the width, the exports combined, and a rerun
//! into an old folder: no stale chart, previous.json kept, and nothing
//! removed that tasklab did not write.

mod common;

use common::report_stdout;
use std::path::{Path, PathBuf};
use tasklab::api::report::folder::MANIFEST;
use tasklab::api::report::terse::{self, Paths};
use tasklab::api::results::RunResults;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-results.json")
}

/// The fixture as `tasklab report` renders it: read, then upgraded.
fn load() -> RunResults {
    let mut r = RunResults::read(&fixture()).unwrap();
    tasklab::api::report::upgrade(&mut r);
    r
}

/// `tasklab report FILE --out DIR ARGS`: stdout, with DIR written `[DIR]`.
fn report(file: &Path, dir: &Path, extra: &[&str]) -> String {
    report_stdout(file, dir, extra).replace(&dir.display().to_string(), "[DIR]")
}

fn cols(line: &str) -> usize {
    line.chars().count()
}

/// Whitespace runs as one space: wrapped text compares with its source.
fn flat(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn the_terse_output_fits_one_screen_and_carries_the_summary() {
    let d = tempfile::tempdir().unwrap();
    let text = report(&fixture(), d.path(), &[]);
    insta::assert_snapshot!("terse", text);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() <= terse::MAX_LINES, "{} lines", lines.len());
    for l in &lines {
        assert!(cols(l) <= terse::DEFAULT_WIDTH, "{} columns: {l}", cols(l));
    }
    // The same Summary sentences as the report's, and every experiment.
    let r = load();
    let sentences = tasklab::api::report::summary(&r);
    assert!(!sentences.is_empty());
    let md = std::fs::read_to_string(d.path().join("report.md")).unwrap();
    for s in &sentences {
        assert!(flat(&text).contains(&flat(s)), "not on the terminal: {s}");
        assert!(md.contains(s.as_str()), "not in the report: {s}");
    }
    for e in &r.experiments {
        assert!(
            lines.iter().any(|l| l.starts_with(&e.name)),
            "{} has no finding line",
            e.name
        );
    }
    assert!(text.contains("report:  [DIR]/report.html"));
    // No table, no placement note, no box.
    assert!(!text.contains("ours/seed") && !text.contains("note:"));
    assert!(!text.contains('│') && !text.contains('┌'));
}

#[test]
fn the_terse_output_fits_a_narrow_terminal_too() {
    let r = load();
    let paths = Paths {
        report: "r/report.html".into(),
        results: "r/results.json".into(),
        previous: Some("r/previous.json".into()),
    };
    for width in [60, 80, 132] {
        let text = terse::terse(&r, width, &paths);
        assert!(text.lines().count() <= terse::MAX_LINES, "width {width}");
        for l in text.lines() {
            // Only a single word longer than the line may overflow.
            assert!(
                cols(l) <= width || !l.trim().contains(' '),
                "width {width}: {l}"
            );
        }
        assert!(text.contains("tasklab compare r/previous.json r/results.json"));
    }
}

#[test]
fn tables_come_under_tables_fitted_to_the_width_without_boxes() {
    let d = tempfile::tempdir().unwrap();
    let text = report(&fixture(), d.path(), &["--tables"]);
    for l in text.lines() {
        assert!(cols(l) <= terse::DEFAULT_WIDTH, "{} columns: {l}", cols(l));
    }
    assert!(text.contains("ours/seed") && text.contains("note:"));
    assert!(!text.contains('│'));
    assert!(text.contains("Summary"));
    let verbose = report(&fixture(), d.path(), &["-v"]);
    assert!(verbose.lines().count() > text.lines().count());
}

#[test]
fn exports_combine_and_one_may_take_stdout() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("report");
    let (json, csv) = (d.path().join("r.json"), d.path().join("r.csv"));
    let stdout = report(
        &fixture(),
        &out,
        &[
            "--export-json",
            json.to_str().unwrap(),
            "--export-csv",
            csv.to_str().unwrap(),
            "--export-markdown",
            "-",
        ],
    );
    assert!(stdout.starts_with("# tasklab report"), "{stdout}");
    assert!(!stdout.contains("Findings"));
    // The results as rendered: the fixture, upgraded to this schema.
    let r = RunResults::read(&json).unwrap();
    assert!(r == load());
    let rows = std::fs::read_to_string(&csv).unwrap();
    assert!(rows.starts_with("experiment,group,metric"));
    // The old names still work: --json is --export-json, --csv is --export-csv -.
    let csv_out = report(
        &fixture(),
        &out,
        &["--json", json.to_str().unwrap(), "--csv"],
    );
    assert_eq!(csv_out, rows);
}

/// The fixture without `name`, as a results file in `dir`.
fn without(name: &str, dir: &Path) -> PathBuf {
    let mut r = RunResults::read(&fixture()).unwrap();
    r.experiments.retain(|e| e.name != name);
    let p = dir.join("smaller.json");
    std::fs::write(&p, r.to_json().unwrap()).unwrap();
    p
}

#[test]
fn a_rerun_into_an_old_folder_leaves_no_stale_chart_and_keeps_the_results_before() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("report");
    report(&fixture(), &out, &[]);
    let stale = out.join("chart-switch-indirect.svg");
    assert!(stale.is_file());
    assert!(out.join(MANIFEST).is_file());
    let first = std::fs::read(out.join("results.json")).unwrap();

    let smaller = without("switch.indirect", d.path());
    let text = report(&smaller, &out, &[]);
    assert!(!stale.exists(), "a chart of an experiment not in this run");
    for kept in ["chart-launch-vs-heap.svg", "report.html", "report.md"] {
        assert!(out.join(kept).is_file(), "{kept}");
    }
    assert_eq!(std::fs::read(out.join("previous.json")).unwrap(), first);
    assert!(
        text.contains("tasklab compare [DIR]/previous.json [DIR]/results.json"),
        "{text}"
    );
    let now = RunResults::read(&out.join("results.json")).unwrap();
    assert!(now.experiments.iter().all(|e| e.name != "switch.indirect"));
}

#[test]
fn the_manifest_never_removes_a_file_tasklab_did_not_write() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("report");
    report(&fixture(), &out, &[]);
    // The user's own files, one under a name like a chart's.
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    std::fs::write(out.join("chart-mine.svg"), "<svg/>").unwrap();
    // A chart tasklab wrote, changed since by the user.
    let changed = out.join("chart-switch-indirect.svg");
    std::fs::write(&changed, "<svg>edited</svg>").unwrap();
    // A manifest that lists what tasklab never wrote, with the right hashes.
    let outside = d.path().join("outside.txt");
    std::fs::write(&outside, "precious").unwrap();
    let hash = |p: &Path| tasklab::api::sys::safefile::sha256_hex(&std::fs::read(p).unwrap());
    let mut manifest = std::fs::read_to_string(out.join(MANIFEST)).unwrap();
    for (p, name) in [
        (out.join("notes.txt"), "notes.txt".to_string()),
        (outside.clone(), "../outside.txt".to_string()),
        (outside.clone(), outside.display().to_string()),
    ] {
        manifest.push_str(&format!("{}  {name}\n", hash(&p)));
    }
    std::fs::write(out.join(MANIFEST), manifest).unwrap();

    let smaller = without("switch.indirect", d.path());
    report(&smaller, &out, &[]);
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "mine"
    );
    assert!(out.join("chart-mine.svg").is_file());
    assert_eq!(
        std::fs::read_to_string(&changed).unwrap(),
        "<svg>edited</svg>"
    );
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "precious");
}

#[test]
fn a_link_planted_under_a_listed_name_is_never_followed() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("report");
    report(&fixture(), &out, &[]);
    let target = d.path().join("target.svg");
    std::fs::write(&target, "precious").unwrap();
    let chart = out.join("chart-switch-indirect.svg");
    std::fs::remove_file(&chart).unwrap();
    std::os::unix::fs::symlink(&target, &chart).unwrap();
    let smaller = without("switch.indirect", d.path());
    report(&smaller, &out, &[]);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious");
}

#[test]
fn every_table_fits_60_80_and_120_columns_without_splitting_a_word() {
    let r = load();
    for width in [60, 80, 120] {
        for e in &r.experiments {
            let text = tasklab::api::report::table::experiment(e, false, width);
            for l in text.lines() {
                // Only a single word longer than the line may overflow.
                assert!(
                    cols(l) <= width || !l.trim().contains(' '),
                    "{} at {width}: {l}",
                    e.name
                );
            }
            // Every metric name is whole on a line: no cell cut mid-word.
            let words: Vec<&str> = text.split_whitespace().collect();
            for m in e.metrics.iter().filter(|m| !m.detail) {
                // A grid heads a column with the name without its unit.
                let heading = tasklab::api::report::grid::heading(&m.name);
                assert!(
                    words.contains(&m.name.as_str())
                        || text
                            .lines()
                            .any(|l| l.contains(&format!(" {heading}")) || l.starts_with(&heading)),
                    "{} at {width}: {} cut\n{text}",
                    e.name,
                    m.name
                );
            }
        }
    }
}

#[test]
fn spawn_methods_is_a_method_by_metric_grid_with_intervals() {
    let r = load();
    let e = r
        .experiments
        .iter()
        .find(|e| e.name == "spawn.methods")
        .unwrap();
    for width in [80, 120] {
        let text = tasklab::api::report::table::experiment(e, false, width);
        let head = text
            .lines()
            .find(|l| l.starts_with("method "))
            .unwrap_or_else(|| panic!("no grid at {width}:\n{text}"));
        for name in ["parent return", "child start", "lifecycle"] {
            assert!(head.contains(name), "{head}");
        }
        // One row per method, each figure with its ±interval.
        let fork = text.lines().find(|l| l.starts_with("fork ")).unwrap();
        assert_eq!(fork.matches('±').count(), 3, "{fork}");
    }
}

#[test]
fn the_summary_is_the_last_block_before_the_warnings_and_paths() {
    let r = load();
    let paths = Paths {
        report: "r/report.html".into(),
        results: "r/results.json".into(),
        previous: None,
    };
    for width in [60, 100] {
        let text = terse::terse(&r, width, &paths);
        let lines: Vec<&str> = text.lines().collect();
        let at = |p: &str| lines.iter().position(|l| l.starts_with(p)).unwrap();
        let (findings, summary, report) = (at("Findings"), at("Summary"), at("report:"));
        assert!(findings < summary && summary < report, "{text}");
        // After the Summary: its sentences, the count, warnings, paths.
        for l in &lines[summary + 1..report] {
            assert!(
                l.is_empty() || l.starts_with("  ") || l.starts_with("warning:"),
                "{l}"
            );
        }
        // At 100 columns the last screen (30 lines) holds the whole Summary.
        if width == 100 {
            let after = lines.len() - summary;
            assert!(after <= 30, "{after} lines from the Summary on");
        }
    }
}

/// The parent pid of process `pid`, and its name.
fn parent_and_name(pid: u32) -> Option<(u32, String)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (head, rest) = stat.rsplit_once(") ")?;
    let name = head.split_once(" (")?.1.to_string();
    let ppid = rest.split_whitespace().nth(1)?.parse().ok()?;
    Some((ppid, name))
}

/// Waits until a `sleep` whose parent's parent is `run` is up; false when
/// `limit` passed first.
fn hang_up(run: u32, limit: std::time::Duration) -> bool {
    let until = std::time::Instant::now() + limit;
    while std::time::Instant::now() < until {
        let found = std::fs::read_dir("/proc").unwrap().flatten().any(|e| {
            let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
                return false;
            };
            match parent_and_name(pid) {
                Some((worker, name)) if name == "sleep" => {
                    parent_and_name(worker).is_some_and(|(p, _)| p == run)
                }
                _ => false,
            }
        });
        if found {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    false
}

#[test]
fn ctrl_c_keeps_the_figures_of_the_rounds_already_complete() {
    // With this seed the schedule runs two of yardstick.syscall's three
    // rounds before selftest.hang's first job, which hangs until the signal.
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("report");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("tasklab"))
        .args(["run", "yardstick.syscall", "selftest.hang"])
        .args(["-p", "points=1", "-p", "fail_at=0", "--rounds", "3"])
        .args(["--seed", "3", "--timeout", "120", "--out"])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(100));
    // Then the run is in its hung job, every earlier job done: the hang's
    // grandchild (a `sleep`) is up under a worker of the run.
    let hung = hang_up(child.id(), std::time::Duration::from_secs(120));
    std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let status = child.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(hung, "the hung job never started: {err}");
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted at job 3 of 6"), "{err}");
    let r = RunResults::read(&out.join("results.json")).unwrap();
    let syscall = r
        .experiments
        .iter()
        .find(|e| e.name == "yardstick.syscall")
        .unwrap();
    // Measured from its two complete rounds, and marked partial.
    assert_eq!(syscall.status, tasklab::api::results::Status::Ok, "{err}");
    assert!(syscall.partial());
    assert!(syscall.metrics.iter().all(|m| m.rounds.len() == 2));
    assert!(syscall
        .partial_words()
        .unwrap()
        .contains("2 of its 3 rounds complete"));
    let hang = r
        .experiments
        .iter()
        .find(|e| e.name == "selftest.hang")
        .unwrap();
    assert_eq!(hang.status, tasklab::api::results::Status::Failed);
}
