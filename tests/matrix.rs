//! The matrix (`tasklab report` with several runs) and `tasklab merge`, on
//! three fixture runs (tests/data/matrix/, made by its make.py): alpha;
//! beta, the same hardware with THP `always` and a system call 1.5x
//! slower; gamma, another hardware class with every figure 0.7x.

mod common;

use std::path::{Path, PathBuf};
use tasklab::api::matrix::build::{build, Matrix};
use tasklab::api::matrix::inputs::{check_distinct, labelled, read_all, Input};
use tasklab::api::matrix::{page, render};
use tasklab::api::results::RunResults;
use tasklab::api::stats::Verdict;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/matrix")
        .join(format!("{name}.json"))
}

fn inputs(names: &[&str]) -> Vec<Input> {
    let paths: Vec<PathBuf> = names.iter().map(|n| fixture(n)).collect();
    let runs = read_all(&paths).unwrap();
    check_distinct(&runs).unwrap();
    labelled(runs).0
}

fn matrix(names: &[&str], baseline: usize) -> Matrix {
    build(&inputs(names), baseline, false)
}

fn row<'a>(m: &'a Matrix, name: &str) -> &'a tasklab::api::matrix::build::MatrixRow {
    m.rows
        .iter()
        .find(|r| r.pick.name == name)
        .unwrap_or_else(|| panic!("no row {name}"))
}

fn col(m: &Matrix, label: &str) -> usize {
    m.columns.iter().position(|c| c.label == label).unwrap()
}

/// The source paths are machine-specific: the snapshots show file names.
fn portable(text: &str) -> String {
    let dir = fixture("x");
    text.replace(&format!("{}/", dir.parent().unwrap().display()), "")
}

#[test]
fn terminal_matrix_snapshot() {
    let m = matrix(&["alpha", "beta", "gamma"], 0);
    insta::assert_snapshot!("matrix_terminal", portable(&render::terminal(&m, 100)));
}

#[test]
fn markdown_matrix_snapshot() {
    let m = matrix(&["alpha", "beta", "gamma"], 0);
    let md = page::doc(&m, false).unwrap().markdown("");
    insta::assert_snapshot!("matrix_markdown", portable(&md));
}

#[test]
fn what_differs_names_the_differing_facts_and_collapses_the_same_ones() {
    let m = matrix(&["alpha", "beta", "gamma"], 0);
    let facts: Vec<&str> = m.differs.iter().map(|d| d.fact.as_str()).collect();
    assert_eq!(facts, ["cpu_model", "cpus_online", "thp_enabled"]);
    let thp = m.differs.iter().find(|d| d.fact == "thp_enabled").unwrap();
    assert_eq!(
        thp.values,
        vec![
            (
                "madvise".to_string(),
                vec!["alpha".to_string(), "gamma".to_string()]
            ),
            ("always".to_string(), vec!["beta".to_string()]),
        ]
    );
    // Every other fact once, in the "same" list.
    assert!(m.same.iter().any(|(k, _)| k == "kernel"));
    assert!(!m.same.iter().any(|(k, _)| k == "thp_enabled"));
    let text = render::preamble(&m).join("\n");
    assert!(text.contains("what differs: cpu_model"), "{text}");
    assert!(!text.contains(render::NOTHING_DIFFERS), "{text}");
}

#[test]
fn nothing_differs_is_said_plainly() {
    // alpha again, started later: another run of the same machine.
    let mut runs = read_all(&[fixture("alpha")]).unwrap();
    let mut later = runs[0].clone();
    later.1.started_unix_s += 86400.0;
    later.0 = "later".into();
    runs.push(later);
    check_distinct(&runs).unwrap();
    let (inputs, notes) = labelled(runs);
    // The label collides: made unique, and said so.
    assert_eq!(inputs[1].label, "alpha-2");
    assert_eq!(notes.len(), 1, "{notes:?}");
    let m = build(&inputs, 0, false);
    assert!(m.differs.is_empty(), "{:?}", m.differs);
    let text = render::preamble(&m).join("\n");
    assert!(
        text.contains(&format!("what differs: {}", render::NOTHING_DIFFERS)),
        "{text}"
    );
    // One fingerprint: a history of one step, every change a ratio of 1.
    assert_eq!(m.history.len(), 1);
    let step = &m.history[0][0];
    assert_eq!((step.from.as_str(), step.to.as_str()), ("alpha", "alpha-2"));
    for c in step.changes.iter().flatten() {
        assert!((c.ratio - 1.0).abs() < 1e-9, "{c:?}");
        assert!(c.lo <= 1.0 && 1.0 <= c.hi, "{c:?}");
        assert_ne!(c.verdict, Verdict::Regressed);
        assert_ne!(c.verdict, Verdict::Improved);
    }
}

#[test]
fn the_same_run_twice_is_refused() {
    let runs = read_all(&[fixture("alpha"), fixture("alpha")]).unwrap();
    let e = check_distinct(&runs).unwrap_err();
    assert!(e.0.contains("are the same run"), "{}", e.0);
}

#[test]
fn columns_are_grouped_by_hardware_class_the_baseline_first() {
    let m = matrix(&["alpha", "gamma", "beta"], 0);
    let order: Vec<(&str, char)> = m
        .columns
        .iter()
        .map(|c| (c.label.as_str(), c.class_mark))
        .collect();
    assert_eq!(order, [("alpha", 'A'), ("beta", 'A'), ("gamma", 'B')]);
    // gamma as the baseline: its class first, then the other.
    let m = matrix(&["alpha", "gamma", "beta"], 1);
    let order: Vec<(&str, char)> = m
        .columns
        .iter()
        .map(|c| (c.label.as_str(), c.class_mark))
        .collect();
    assert_eq!(order, [("gamma", 'A'), ("alpha", 'B'), ("beta", 'B')]);
    for r in &m.rows {
        for c in r.cells[1..].iter().flatten() {
            if let Some(v) = &c.vs {
                assert!(v.cross_class, "{}: {v:?}", r.pick.name);
            }
        }
    }
}

#[test]
fn baseline_ratios_are_compares() {
    let m = matrix(&["alpha", "beta", "gamma"], 0);
    let (b, g) = (col(&m, "beta"), col(&m, "gamma"));
    // The baseline's column has no ratio.
    assert!(m
        .rows
        .iter()
        .all(|r| r.cells[0].as_ref().is_none_or(|c| c.vs.is_none())));
    let call = row(&m, "a bare system call");
    let vs = call.cells[b].as_ref().unwrap().vs.as_ref().unwrap();
    assert!((vs.ratio - 1.5).abs() < 1e-9, "{vs:?}");
    assert!(vs.lo < 1.5 && 1.5 < vs.hi);
    assert_eq!(vs.verdict, Verdict::Regressed);
    assert!(!vs.cross_class);
    assert!(vs.mde_pct > 0.0);
    // The same figure on both sides: beta's other rows are never a change.
    for r in m
        .rows
        .iter()
        .filter(|r| r.pick.name != "a bare system call")
    {
        if let Some(v) = r.cells[b].as_ref().and_then(|c| c.vs.as_ref()) {
            assert!((v.ratio - 1.0).abs() < 1e-9, "{}: {v:?}", r.pick.name);
            assert!(
                matches!(v.verdict, Verdict::Unchanged | Verdict::Inconclusive),
                "{}: {v:?}",
                r.pick.name
            );
        }
    }
    // gamma: every figure 0.7x, across classes; a cost that is precise on
    // both sides is called improved.
    for r in &m.rows {
        if let Some(v) = r.cells[g].as_ref().and_then(|c| c.vs.as_ref()) {
            assert!((v.ratio - 0.7).abs() < 1e-6, "{}: {v:?}", r.pick.name);
            assert!(v.cross_class);
        }
    }
    let thread = row(&m, "thread create+join, 0 B heap");
    let v = thread.cells[g].as_ref().unwrap().vs.as_ref().unwrap();
    assert_eq!(v.verdict, Verdict::Improved);
    // compare's own verdict on the same two files is the matrix's.
    let (base, new) = (
        read_all(&[fixture("alpha")]).unwrap(),
        read_all(&[fixture("gamma")]).unwrap(),
    );
    let side =
        |r: &RunResults| tasklab::api::compare::pool::side(std::slice::from_ref(r), &["x".into()]);
    let rows = tasklab::api::compare::compare(&side(&base[0].1), &side(&new[0].1), 0.05, 1.0);
    let c = rows
        .iter()
        .find(|x| {
            x.experiment == thread.pick.experiment
                && x.labels == thread.pick.labels
                && x.metric == thread.pick.metric
        })
        .unwrap();
    assert_eq!(c.verdict, v.verdict);
    assert!((c.mde - v.mde_pct).abs() < 1e-9);
}

#[test]
fn every_summary_quantity_of_the_fixture_is_a_row() {
    let m = matrix(&["alpha", "beta"], 0);
    for name in [
        "a bare system call",
        "fork+reap, 0 B heap",
        "thread create+join, 0 B heap",
        "posix_spawn, 1 GiB heap",
        "fork+exec, 1 GiB heap",
        "a same-CPU switch (pipe, threads)",
        "a cross-CPU wake-up (pipe, threads)",
        "a page written after fork, the child alive (COW)",
        "speedup, fork × 2",
    ] {
        row(&m, name);
    }
    let slope = m.rows.iter().find(|r| r.pick.slope_from.is_some()).unwrap();
    let c = slope.cells[0].as_ref().unwrap();
    assert!(c.lo <= c.median && c.median <= c.hi, "{c:?}");
    // --all adds the shared series beyond the Summary's.
    let all = build(&inputs(&["alpha", "beta"]), 0, true);
    assert!(all.rows.len() > m.rows.len());
}

#[test]
fn a_narrow_terminal_splits_the_columns_never_a_cell() {
    let m = matrix(&["alpha", "beta", "gamma"], 0);
    for width in [60, 80, 120, 200] {
        let t = render::terminal(&m, width);
        for line in t.lines() {
            // A cell wider than the terminal alone may pass it; none does here.
            assert!(line.chars().count() <= width, "{width}: {line}");
        }
        // Every column's label is shown, each cell whole.
        for c in &m.columns {
            assert!(t.contains(&c.label));
        }
        assert!(t.contains("×1.50 regressed"), "{t}");
    }
}

#[test]
fn report_writes_the_matrix_and_its_exports() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m");
    let json = dir.path().join("m.json");
    let csv = dir.path().join("m.csv");
    let o = common::tasklab()
        .args(["report"])
        .arg(fixture("alpha"))
        .arg(fixture("beta"))
        .arg(fixture("gamma"))
        .arg("--out")
        .arg(&out)
        .arg("--export-json")
        .arg(&json)
        .arg("--export-csv")
        .arg(&csv)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(out.join("matrix.html")).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let rows = v["rows"].as_array().unwrap().len();
    assert_eq!(html.matches("<svg").count(), rows, "one chart per quantity");
    assert!(std::fs::read_to_string(out.join("matrix.md"))
        .unwrap()
        .contains("| quantity |"));
    assert_eq!(v["baseline"], "alpha");
    // One CSV line per quantity and run that has it, plus the header.
    let lines = std::fs::read_to_string(&csv).unwrap().lines().count();
    assert_eq!(lines, 1 + 3 * rows);
}

#[test]
fn merge_writes_one_file_that_report_and_compare_read_as_its_runs() {
    let dir = tempfile::tempdir().unwrap();
    let merged = dir.path().join("merged.json");
    let o = common::tasklab()
        .arg("merge")
        .arg(fixture("alpha"))
        .arg(fixture("beta"))
        .arg("--out")
        .arg(&merged)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let runs = tasklab::api::results::merged::read_runs(&merged).unwrap();
    let plain: Vec<RunResults> = ["alpha", "beta"]
        .iter()
        .map(|n| RunResults::read(&fixture(n)).unwrap())
        .collect();
    assert_eq!(runs, plain);
    // compare reads the merged file as its runs: a side of two runs, each
    // named, against a plain file.
    let o = common::tasklab()
        .args(["compare", "--no-noise", "--json"])
        .arg(&merged)
        .arg(fixture("gamma"))
        .output()
        .unwrap();
    assert!(
        o.status.code() == Some(0) || o.status.code() == Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("(run 1)") && text.contains("(run 2)"),
        "{text}"
    );
    // A folder with the merged file and a results file: three runs.
    std::fs::copy(fixture("gamma"), dir.path().join("results.json")).unwrap();
    let all = read_all(&[dir.path().to_path_buf()]).unwrap();
    assert_eq!(all.len(), 3);
    // Merging onto an input is refused, the input untouched.
    let before = std::fs::read(&merged).unwrap();
    let o = common::tasklab()
        .arg("merge")
        .arg(&merged)
        .arg(fixture("gamma"))
        .arg("--out")
        .arg(dir.path().join(".").join("merged.json"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(std::fs::read(&merged).unwrap(), before);
    // Also under another name of the same file (a hard link).
    let link = dir.path().join("link.json");
    std::fs::hard_link(&merged, &link).unwrap();
    let o = common::tasklab()
        .arg("merge")
        .arg(&merged)
        .arg(fixture("gamma"))
        .arg("--out")
        .arg(&link)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is one of the inputs"));
    assert_eq!(std::fs::read(&merged).unwrap(), before);
}
