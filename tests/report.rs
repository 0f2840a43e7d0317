//! The report exporters on a fixed results file (a real quick run, samples
//! thinned): a snapshot of each section of the Markdown report and of its
//! outline, the CSV's header and a row of each kind in snapshots and every
//! row checked column by column, a self-contained HTML page, valid SVG
//! charts with labelled axes. What the report says (the seed table, the
//! findings' arithmetic, the environment) and the bad inputs of `tasklab
//! report` are in `tests/report_findings.rs`.

mod common;

use common::report::{experiment, fixture, read, render, results};
use tasklab::api::results::RunResults;

/// The fixture's charts. switch.wakeup's draws the one figure the fixture
/// has that it still measures, the membarrier (see
/// `the_wakeup_chart_draws_every_figure_it_measures`).
const CHARTS: [&str; 7] = [
    "chart-launch-vs-heap.svg",
    "chart-switch-placement.svg",
    "chart-switch-indirect.svg",
    "chart-thread-memory.svg",
    "chart-speedup.svg",
    "chart-cow.svg",
    "chart-switch-wakeup.svg",
];

#[test]
fn the_report_folder_has_every_file_and_a_copy_of_the_results() {
    let (d, stdout) = render(&[]);
    for f in CHARTS
        .iter()
        .chain(&["report.md", "report.html", "results.json"])
    {
        assert!(d.path().join(f).is_file(), "{f} missing");
    }
    assert_eq!(
        RunResults::read(&d.path().join("results.json")).unwrap(),
        RunResults::read(&fixture()).unwrap()
    );
    // The terminal shows the terse answer, as `run` does.
    assert!(stdout.contains("spawn.heap"), "{stdout}");
    assert!(stdout.contains("Summary"));
}

/// Checks `text` against the snapshot `name` in `tests/snapshots/<folder>/`.
fn snapshot(folder: &str, name: &str, text: &str) {
    insta::with_settings!({
        snapshot_path => format!("snapshots/{folder}"),
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_snapshot!(name.to_string(), text);
    });
}

/// Checks every `(name, text)` against its snapshot, each one whatever the
/// others give, so that a change shows in every snapshot it reaches (each
/// mismatch prints its diff and leaves a `.snap.new` for `cargo insta
/// review`); then fails naming the ones that differ.
fn snapshots(folder: &str, parts: &[(String, String)]) {
    let differ: Vec<&str> = parts
        .iter()
        .filter(|(name, text)| std::panic::catch_unwind(|| snapshot(folder, name, text)).is_err())
        .map(|(name, _)| name.as_str())
        .collect();
    assert!(
        differ.is_empty(),
        "{folder}: differ from their snapshots: {differ:?}"
    );
}

/// The fixture's report.md (rendered with `--markdown`).
fn markdown() -> String {
    let (d, stdout) = render(&["--markdown"]);
    let md = read(d.path(), "report.md");
    // On the terminal the same document, with chart links into the folder.
    let prefix = format!("]({}/chart-speedup.svg)", d.path().display());
    assert!(stdout.contains(&prefix), "{stdout}");
    md
}

/// A Markdown document cut at each `##` and `###` heading: (the heading's
/// name as a file name, the text from the heading to the next), the part
/// before the first heading named `title`. Nothing is left out: the parts
/// joined are the document.
fn sections(md: &str) -> Vec<(String, String)> {
    let mut parts: Vec<(String, String)> = vec![("title".to_string(), String::new())];
    for line in md.split_inclusive('\n') {
        let heading = line
            .strip_prefix("### ")
            .or_else(|| line.strip_prefix("## "));
        if let Some(h) = heading {
            let name = h
                .to_ascii_lowercase()
                .split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|w| !w.is_empty())
                .collect::<Vec<_>>()
                .join("_");
            parts.push((name, String::new()));
        }
        parts.last_mut().unwrap().1.push_str(line);
    }
    parts
}

#[test]
fn markdown_sections_match_their_snapshots() {
    let md = markdown();
    let parts = sections(&md);
    let joined: String = parts.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(joined, md, "the sections are the whole document");
    let mut names: Vec<&str> = parts.iter().map(|(n, _)| n.as_str()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), parts.len(), "one snapshot per section");
    // The outline: which sections, in which order, each heading as it reads.
    let outline: String = md
        .lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect();
    snapshot("report-md", "outline", &outline);
    snapshots("report-md", &parts);
}

/// The CSV export of the fixture: its header line, its rows as the
/// exporter wrote them (one line a row: no field of the fixture holds a
/// line break, which the parsed rows' count checks), and the rows parsed.
struct Csv {
    header: String,
    lines: Vec<String>,
    records: Vec<csv::StringRecord>,
}

impl Csv {
    fn of_fixture() -> Csv {
        let (_d, stdout) = render(&["--csv"]);
        let mut lines = stdout.lines().map(str::to_string);
        let header = lines.next().expect("a header");
        let lines: Vec<String> = lines.collect();
        let records: Vec<csv::StringRecord> = csv::Reader::from_reader(stdout.as_bytes())
            .records()
            .map(|x| x.unwrap())
            .collect();
        assert_eq!(records.len(), lines.len(), "one line a row");
        Csv {
            header,
            lines,
            records,
        }
    }

    /// The index of column `name`.
    fn col(&self, name: &str) -> usize {
        self.header
            .split(',')
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    }
}

#[test]
fn the_csv_header_matches_its_snapshot() {
    let csv = Csv::of_fixture();
    let columns: String = csv.header.split(',').map(|c| format!("{c}\n")).collect();
    snapshot("report-csv", "header", &columns);
}

#[test]
fn representative_csv_rows_match_their_snapshot() {
    let csv = Csv::of_fixture();
    // The first row of each kind, in the file's order: of each unit, with
    // and without a seed figure, of each kind of interval, stable and
    // unstable.
    let mut kinds: Vec<(String, usize)> = Vec::new();
    for (i, rec) in csv.records.iter().enumerate() {
        let seed = match &rec[csv.col("seed_source")] {
            "" => "no seed figure".to_string(),
            _ => "a seed figure".to_string(),
        };
        let stable = match &rec[csv.col("unstable")] {
            "true" => "unstable".to_string(),
            _ => "stable".to_string(),
        };
        for kind in [
            format!("unit {:?}", &rec[csv.col("unit")]),
            seed,
            format!("interval {:?}", &rec[csv.col("interval")]),
            stable,
        ] {
            if !kinds.iter().any(|(k, _)| *k == kind) {
                kinds.push((kind, i));
            }
        }
    }
    // Each row once, after the kinds it is the first of.
    let mut firsts: Vec<usize> = kinds.iter().map(|(_, i)| *i).collect();
    firsts.sort();
    firsts.dedup();
    let mut text = format!("{}\n", csv.header);
    for i in firsts {
        let of: Vec<&str> = kinds
            .iter()
            .filter(|(_, k)| *k == i)
            .map(|(kind, _)| kind.as_str())
            .collect();
        text.push_str(&format!("# {}\n{}\n", of.join(", "), csv.lines[i]));
    }
    snapshot("report-csv", "rows", &text);
}

#[test]
fn every_csv_row_is_its_series_column_by_column() {
    let csv = Csv::of_fixture();
    let r = results();
    let metrics: Vec<_> = r
        .experiments
        .iter()
        .flat_map(|e| e.metrics.iter().map(move |m| (e, m)))
        .collect();
    assert_eq!(csv.records.len(), metrics.len(), "one row a series");
    let num = |v: f64| v.to_string();
    let opt = |v: Option<f64>| v.map_or(String::new(), num);
    let first = &csv.records[0];
    for (rec, (e, m)) in csv.records.iter().zip(metrics) {
        let s = &m.summary;
        let labels: Vec<String> = m.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let seed = m.seed.as_ref();
        let want: [(&str, String); 26] = [
            ("experiment", e.name.clone()),
            ("group", e.group.clone()),
            ("metric", m.name.clone()),
            ("labels", labels.join(" ")),
            ("unit", m.unit.name().to_string()),
            ("n", s.n.to_string()),
            ("min", num(s.min)),
            ("median", num(s.median)),
            ("mean", num(s.mean)),
            ("p90", num(s.p90)),
            ("p99", num(s.p99)),
            ("max", num(s.max)),
            ("stddev", num(s.stddev)),
            ("ci95_lo", num(s.ci95_lo)),
            ("ci95_hi", num(s.ci95_hi)),
            ("outliers", (s.outliers_low + s.outliers_high).to_string()),
            ("noisy", s.noisy.to_string()),
            ("seed_lo", opt(seed.map(|x| x.lo))),
            ("seed_hi", opt(seed.map(|x| x.hi))),
            (
                "seed_source",
                seed.map_or(String::new(), |x| x.source.clone()),
            ),
            ("ours_over_seed", opt(m.seed_ratio())),
            ("rounds", s.rounds.max(1).to_string()),
            ("interval", s.interval.clone()),
            ("unstable", s.unstable.to_string()),
            ("within_ci95_lo", opt(s.within_ci95_lo)),
            ("within_ci95_hi", opt(s.within_ci95_hi)),
        ];
        for (column, value) in want {
            assert_eq!(
                &rec[csv.col(column)],
                value,
                "{} {} {column}",
                e.name,
                m.name
            );
        }
        // The run's own columns (in the rows' snapshot) are the same on every row.
        for column in ["run_label", "run_id", "kernel", "cpu_model", "started_utc"] {
            assert_eq!(rec[csv.col(column)], first[csv.col(column)], "{column}");
        }
    }
    assert_eq!(&first[csv.col("kernel")], r.env.kernel);
    assert_eq!(&first[csv.col("cpu_model")], r.env.cpu_model);
}

#[test]
fn html_is_one_self_contained_page_with_every_chart_inline() {
    let (d, _) = render(&[]);
    let html = read(d.path(), "report.html");
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert_eq!(html.matches("<figure>").count(), CHARTS.len());
    assert_eq!(html.matches("<svg").count(), CHARTS.len());
    assert!(!html.contains("<?xml"), "an inline SVG kept its XML prolog");
    // Nothing fetched: no scripts, no external styles, images or links.
    for bad in ["<script", "<link", "<img", "src=\"http", "url("] {
        assert!(!html.contains(bad), "{bad} in report.html");
    }
    // A web address is only a link the reader follows: a seed's, in the
    // list of sources, which names each with its author and title.
    let refs = &html[html.find("<ul class=\"refs\">").expect("the sources")..];
    let refs = &refs[..refs.find("</ul>").unwrap()];
    assert_eq!(
        html.matches("href=\"http").count(),
        refs.matches("<a href=\"http").count()
    );
    for c in tasklab::api::experiments::seeds::CITATIONS {
        if let Some(u) = c.url {
            assert!(refs.contains(&format!("<a href=\"{u}\">")), "{u}");
        }
        assert!(refs.contains(c.author), "{}", c.author);
    }
    // The summary first, then one section per group, each linked from the top.
    let summary = html.find("id=\"summary\"").unwrap();
    for g in [
        "yardstick",
        "spawn",
        "switch",
        "memory",
        "parallel",
        "seeds",
        "environment",
    ] {
        let at = html
            .find(&format!("id=\"{g}\""))
            .unwrap_or_else(|| panic!("no section {g}"));
        assert!(at > summary, "{g} before the summary");
        assert!(
            html.contains(&format!("href=\"#{g}\"")),
            "{g} not in the nav"
        );
    }
    assert!(html.find("class=\"summary\"").unwrap() < html.find("id=\"yardstick\"").unwrap());
}

#[test]
fn html_keeps_every_finding_open_and_folds_the_table_and_notes() {
    let (d, _) = render(&[]);
    let html = read(d.path(), "report.html");
    let r = results();
    for x in &r.experiments {
        let Some(first) = x.findings.first() else {
            continue;
        };
        let start = html
            .find(&format!("id=\"{}\"", x.name.replace('.', "-")))
            .unwrap_or_else(|| panic!("no section for {}", x.name));
        let section = &html[start..];
        let section = &section[..section[4..].find("<h").map_or(section.len(), |i| i + 4)];
        let details = section.find("<details>").unwrap_or(section.len());
        let open = section[..details].matches("<li>").count();
        assert_eq!(open, x.findings.len(), "{}: every finding open", x.name);
        assert!(
            !section[details..].contains("more finding"),
            "{}: no finding folded",
            x.name
        );
        // Notes are closed, under the table.
        for n in &x.notes {
            let words: String = n.split_whitespace().take(8).collect::<Vec<_>>().join(" ");
            if !words.contains('<') && !words.contains('&') && !words.contains('`') {
                let at = section.find(&words);
                assert!(
                    at.is_none_or(|i| i > details),
                    "{}: note {words} open",
                    x.name
                );
            }
        }
        // Every finding is on the page, open or folded.
        let words: String = first
            .split_whitespace()
            .skip(1)
            .take(3)
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            section.contains(&words) || words.contains('<') || words.contains('&'),
            "{}: {words}",
            x.name
        );
    }
}

#[test]
fn every_chart_is_valid_svg_with_labelled_axes_and_legends() {
    let (d, _) = render(&[]);
    // The copy-on-write chart draws the no-child writes only where one of
    // their series settled (in the fixture's run none did).
    let r = results();
    let cow = experiment(&r, "spawn.cow");
    let no_child_settled = cow
        .metrics
        .iter()
        .any(|m| m.name == "write_ns" && m.label("child") == Some("none") && !m.summary.unstable);
    let cow_words: &[&str] = if no_child_settled {
        &[
            "share of the heap written",
            "per written page",
            "child alive",
            "no child",
            "95% interval",
        ]
    } else {
        &[
            "share of the heap written",
            "per written page",
            "child alive",
            "95% interval",
        ]
    };
    let expect: [(&str, &[&str]); 7] = [
        (
            CHARTS[0],
            &[
                "parent's heap",
                "create + reap",
                "fork",
                "pthread_create",
                "1 GiB",
            ],
        ),
        (
            CHARTS[1],
            &[
                "per switch",
                "pipe",
                "threads",
                "same cpu",
                "two cpus",
                "95% interval",
            ],
        ),
        (
            CHARTS[2],
            &["working set", "per switch", "bare switch", "95% interval"],
        ),
        (
            CHARTS[3],
            &[
                "threads",
                "GiB",
                "resident",
                "default (8 MiB stack)",
                "/thr",
            ],
        ),
        (
            CHARTS[4],
            &["workers", "speedup", "ideal on 2 CPUs", "Amdahl", "fork"],
        ),
        (CHARTS[5], cow_words),
        (CHARTS[6], &["IPI round trip", "membarrier", "95% interval"]),
    ];
    for (file, words) in expect {
        let svg = read(d.path(), file);
        let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{file}: {e}"));
        let text: Vec<String> = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter_map(|n| n.text().map(|t| t.trim().to_string()))
            .collect();
        let all = text.join(" | ");
        for w in words {
            assert!(all.contains(w), "{file}: no '{w}' in {all}");
        }
        // Units on the axes: times read as ns/µs/ms, sizes as B/KiB/MiB/GiB.
        assert!(
            text.iter().any(|t| t.ends_with("µs")
                || t.ends_with("ms")
                || t.ends_with("iB")
                || t.ends_with('x')),
            "{file}: no unit on any tick"
        );
    }
}
