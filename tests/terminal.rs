//! What the terminal shows and what the report folder holds, on the fixed
//! results file of tests/report.rs: the terse output (a snapshot, at most 80
//! lines of at most 100 columns, the report's Summary in it), the tables
//! under --tables fitted to the width, the exports combined, and a rerun
//! into an old folder: no stale chart, previous.json kept, and nothing
//! removed that tasklab did not write.

mod common;

use common::report_stdout;
use std::path::{Path, PathBuf};
use tasklab::report::folder::MANIFEST;
use tasklab::report::terse::{self, Paths};
use tasklab::results::RunResults;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-results.json")
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
    let r = tasklab::report::load(&fixture()).unwrap();
    let sentences = tasklab::report::summary(&r);
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
    let r = tasklab::report::load(&fixture()).unwrap();
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
    assert!(r == tasklab::report::load(&fixture()).unwrap());
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
    r.write_atomic(&p).unwrap();
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
    let hash = |p: &Path| tasklab::sys::safefile::sha256_hex(&std::fs::read(p).unwrap());
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
