use super::{all, CHARTS};
use crate::experiments;
use crate::results::RunResults;
use std::collections::HashSet;
use std::path::Path;

#[test]
fn every_chart_names_a_registered_experiment() {
    for c in CHARTS {
        assert!(
            experiments::find(c.experiment).is_some(),
            "{} draws {}, which is not in the registry",
            c.file,
            c.experiment
        );
    }
}

#[test]
fn chart_file_names_are_unique_svgs() {
    let mut seen = HashSet::new();
    for c in CHARTS {
        assert!(seen.insert(c.file), "{} is in the table twice", c.file);
        assert!(
            c.file.starts_with("chart-") && c.file.ends_with(".svg"),
            "{}",
            c.file
        );
    }
}

#[test]
fn the_fixture_draws_every_chart_in_its_experiments_group() {
    let r = fixture();
    let drawn = all(&r);
    let files: Vec<&str> = drawn.iter().map(|(_, c)| c.file.as_str()).collect();
    // In the table's order; a chart is left out only when its experiment's
    // rounds did not settle (switch.wakeup's busy-polling floor, in some
    // quick runs on this VM), never silently.
    let table: Vec<&str> = CHARTS
        .iter()
        .map(|c| c.file)
        .filter(|f| files.contains(f))
        .collect();
    assert_eq!(files, table);
    for spec in CHARTS.iter().filter(|c| !files.contains(&c.file)) {
        let e = r.measured(spec.experiment);
        assert!(
            e.is_none_or(|e| e.metrics.iter().any(|m| m.summary.unstable)),
            "{} not drawn though {} settled",
            spec.file,
            spec.experiment
        );
    }
    assert!(files.len() + 1 >= CHARTS.len(), "{files:?}");
    let specs: Vec<_> = CHARTS.iter().filter(|c| files.contains(&c.file)).collect();
    for ((group, c), spec) in drawn.iter().zip(specs) {
        let reg = experiments::find(spec.experiment).expect("registered");
        assert_eq!(*group, reg.group(), "{}", c.file);
        assert!(c.svg.starts_with("<svg"), "{}", c.file);
    }
}

fn fixture() -> RunResults {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-results.json");
    RunResults::read(&file).expect("the fixture reads")
}

fn heap_of(r: &mut RunResults) -> &mut crate::results::ExperimentResult {
    r.experiments
        .iter_mut()
        .find(|e| e.name == "spawn.heap")
        .expect("spawn.heap")
}

fn heap_chart(r: &mut RunResults) -> crate::report::doc::Chart {
    crate::report::upgrade(r);
    let e = r.measured("spawn.heap").expect("spawn.heap");
    super::launch_vs_heap::draw(e)
        .expect("drawn")
        .expect("a chart")
}

#[test]
fn the_launch_chart_says_which_seed_points_lie_beyond_the_measured_heaps() {
    let mut r = fixture();
    let e = heap_of(&mut r);
    e.metrics
        .retain(|m| m.label_num("heap_bytes").is_none_or(|b| b < 1 << 30));
    let c = heap_chart(&mut r);
    assert!(c.caption.contains("Not drawn: "), "{}", c.caption);
    assert!(c.caption.contains("at 4 GiB"), "{}", c.caption);
    assert!(
        c.caption
            .contains("beyond this run's largest heap, 512 MiB"),
        "{}",
        c.caption
    );
    assert!(
        !c.caption.contains("Marks:"),
        "nothing marked: {}",
        c.caption
    );
}

#[test]
fn the_launch_chart_marks_each_seed_metric_with_its_own_shape() {
    let mut r = fixture();
    let e = heap_of(&mut r);
    // The series the seeds pair with: first calls at 4 GiB, thp=system;
    // the fixture's run stopped at 1 GiB, so its first calls there stand in.
    let first: Vec<_> = e
        .metrics
        .iter()
        .filter(|m| {
            m.label("heap") == Some("1 GiB")
                && m.label("thp") == Some("system")
                && m.label("call") == Some("first")
        })
        .filter(|m| {
            (m.name == "parent_return_ns" && m.label("method") == Some("fork"))
                || (m.name == "child_start_ns" && m.label("method") == Some("pthread_create"))
        })
        .cloned()
        .map(|mut m| {
            m.labels.insert("heap".into(), "4 GiB".into());
            m.labels
                .insert("heap_bytes".into(), (4u64 << 30).to_string());
            m
        })
        .collect();
    assert_eq!(first.len(), 2);
    e.metrics.extend(first);
    let c = heap_chart(&mut r);
    assert!(
        c.caption.contains("▲ to the parent's return"),
        "{}",
        c.caption
    );
    assert!(
        c.caption.contains("□ to the child's start"),
        "{}",
        c.caption
    );
    assert!(!c.caption.contains("Not drawn"), "{}", c.caption);
    assert!(c.svg.contains("Sysel: fork,") && c.svg.contains("Sysel: pthread_create,"));
}

#[test]
fn the_speedup_chart_fits_amdahl_to_every_point() {
    let r = fixture();
    let e = r.measured("parallel.average").expect("parallel.average");
    let c = super::speedup::draw(e).expect("drawn").expect("a chart");
    // Every point beyond one worker with a usable interval (one reaching
    // zero bounds nothing and carries no weight).
    let usable = e
        .metrics_named(&crate::experiments::parallel::SPEEDUP)
        .filter(|m| m.label_num("workers").is_some_and(|w| w > 1))
        .filter(|m| m.summary.ci95_lo > 0.0)
        .count();
    assert!(usable >= 5, "{usable}");
    assert!(
        c.svg.contains(&format!("Amdahl fitted to {usable} points")),
        "every variant's points"
    );
    assert!(!c.caption.contains("Karp-Flatt"), "{}", c.caption);
}

/// The page's side padding (`main` in doc.rs's style), a classic
/// scrollbar, and the chart's border: what an 800 px page leaves a chart.
const PAGE_PX: f64 = 800.0;
const MAIN_PADDING_PX: f64 = 28.0;
const SCROLLBAR_PX: f64 = 17.0;
const BORDER_PX: f64 = 1.0;

#[test]
fn every_charts_text_is_at_least_11_px_on_a_page_800_px_wide() {
    assert!(
        crate::report::doc::STYLE
            .contains("main { max-width: 1320px; margin: 0 auto; padding: 8px 28px 60px; }"),
        "the page's padding changed: update MAIN_PADDING_PX"
    );
    assert!(crate::report::doc::STYLE.contains(".chart svg { max-width: 100%;"));
    let room = PAGE_PX - 2.0 * MAIN_PADDING_PX - SCROLLBAR_PX - 2.0 * BORDER_PX;
    let mut seen = 0;
    {
        let file = "report-results.json";
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(file);
        let mut r = RunResults::read(&path).expect("the fixture reads");
        crate::report::upgrade(&mut r);
        for (_, c) in all(&r) {
            let doc = roxmltree::Document::parse(&c.svg).expect("the SVG parses");
            let root = doc.root_element();
            let width: f64 = root
                .attribute("width")
                .and_then(|w| w.parse().ok())
                .expect("width");
            let view: Vec<f64> = root
                .attribute("viewBox")
                .expect("a viewBox")
                .split_whitespace()
                .filter_map(|v| v.parse().ok())
                .collect();
            assert_eq!(view.len(), 4, "{}", c.file);
            // viewBox units per CSS px, once the chart is shrunk to the room.
            let scale = width.min(room) / view[2];
            let texts: Vec<(f64, String)> = doc
                .descendants()
                .filter(|n| {
                    n.has_tag_name("text") && n.text().is_some_and(|t| !t.trim().is_empty())
                })
                .map(|n| {
                    let size = n
                        .ancestors()
                        .find_map(|a| a.attribute("font-size"))
                        .and_then(|s| s.trim_end_matches("px").parse().ok())
                        .unwrap_or_else(|| panic!("{}: text without a font size", c.file));
                    (size, n.text().unwrap_or("").trim().to_string())
                })
                .collect();
            assert!(!texts.is_empty(), "{}", c.file);
            for (size, text) in texts {
                assert!(
                    size * scale >= 11.0,
                    "{}: \"{text}\" at {:.1} px on a page 800 px wide",
                    c.file,
                    size * scale
                );
            }
            seen += 1;
        }
    }
    assert!(seen + 1 >= CHARTS.len(), "every chart checked: {seen}");
}

/// Flags every series of `r` (their figures stay).
fn flag_all(r: &mut RunResults) {
    for e in &mut r.experiments {
        for m in &mut e.metrics {
            m.summary.unstable = true;
        }
    }
}

#[test]
fn the_same_charts_are_drawn_when_every_figure_is_flagged() {
    let mut base = fixture();
    crate::report::upgrade(&mut base);
    let files =
        |r: &RunResults| -> Vec<String> { all(r).into_iter().map(|(_, c)| c.file).collect() };
    let mut flagged = base.clone();
    flag_all(&mut flagged);
    let drawn = files(&flagged);
    // every chart of the table whose experiment measured (switch.wakeup's
    // is its own helper's)
    for spec in CHARTS.iter().filter(|c| c.experiment != "switch.wakeup") {
        if base.measured(spec.experiment).is_some() {
            assert!(
                drawn.iter().any(|f| f == spec.file),
                "{} not drawn: {drawn:?}",
                spec.file
            );
        }
    }
    for (_, c) in all(&flagged) {
        if c.file != "chart-switch-wakeup.svg" {
            assert!(
                c.svg.contains("fill=\"none\""),
                "{}: no hollow point",
                c.file
            );
        }
    }
}

/// The data lines of a chart: polylines as wide as `width`.
fn lines_of(svg: &str, width: &str) -> usize {
    svg.matches("<polyline")
        .zip(svg.split("<polyline").skip(1))
        .filter(|(_, rest)| {
            let tag = &rest[..rest.find('>').unwrap_or(rest.len())];
            tag.contains(&format!("stroke-width=\"{width}\""))
        })
        .count()
}

#[test]
fn no_line_joins_points_across_an_imprecise_or_flagged_one() {
    let mut r = fixture();
    let base = heap_chart(&mut r.clone());
    assert!(lines_of(&base.svg, "2") > 0, "the fixture draws its lines");
    // every other point of every line flagged or imprecise: no two solid
    // points are neighbours, so no line is drawn at all
    let e = heap_of(&mut r);
    let mut by_line: std::collections::BTreeMap<(String, String), Vec<usize>> = Default::default();
    for (i, m) in e.metrics.iter().enumerate() {
        if m.name == "lifecycle_ns"
            && m.label("call").is_none()
            && m.label_num("heap_bytes").is_some_and(|b| b > 0)
        {
            let key = (
                m.label("method").unwrap_or("").to_string(),
                m.label("thp").unwrap_or("").to_string(),
            );
            by_line.entry(key).or_default().push(i);
        }
    }
    let mut hollow = 0;
    for idx in by_line.values_mut() {
        idx.sort_by_key(|&i| e.metrics[i].label_num("heap_bytes"));
        for (k, &i) in idx.iter().enumerate() {
            let s = &mut e.metrics[i].summary;
            s.noisy = false;
            s.unstable = false;
            s.ci95_lo = s.median * 0.99;
            s.ci95_hi = s.median * 1.01;
            if k % 2 == 1 {
                hollow += 1;
                if k % 4 == 1 {
                    s.unstable = true;
                } else {
                    s.noisy = true;
                }
            }
        }
    }
    let c = heap_chart(&mut r);
    assert_eq!(lines_of(&c.svg, "2"), 0, "a line crosses a hollow point");
    let rings = |svg: &str| {
        svg.split("<circle")
            .skip(1)
            .filter(|c| c[..c.find('>').unwrap_or(c.len())].contains("fill=\"none\""))
            .count()
    };
    // each hollow point a ring (and one more in the legend)
    assert_eq!(rings(&c.svg), hollow + 1, "{}", c.svg);
    assert!(c.svg.matches("<circle").count() >= base.svg.matches("<circle").count());
    assert!(
        c.caption.contains("drawn hollow and no line joins it"),
        "{}",
        c.caption
    );
}

#[test]
fn the_speedup_chart_never_shows_a_serial_fraction_above_100_percent() {
    let mut r = fixture();
    let e = r
        .experiments
        .iter_mut()
        .find(|e| e.name == "parallel.average")
        .expect("parallel.average");
    // slower with more workers: the fit's fraction is above 100%
    for m in e.metrics.iter_mut().filter(|m| m.name == "speedup") {
        let s = &mut m.summary;
        s.median = 0.9;
        s.ci95_lo = 0.88;
        s.ci95_hi = 0.92;
        s.unstable = false;
    }
    let c = super::speedup::draw(r.measured("parallel.average").unwrap())
        .expect("drawn")
        .expect("a chart");
    assert!(c.svg.contains("does not fit"), "the legend says so");
    assert!(!c.svg.contains("serial fraction 1"), "no fraction drawn");
    assert!(
        c.caption.contains("Amdahl's law does not fit these points"),
        "{}",
        c.caption
    );
    let over_100 = c
        .svg
        .split(|ch: char| !(ch.is_ascii_digit() || ch == '.' || ch == '%'))
        .filter_map(|w| w.strip_suffix('%')?.parse::<f64>().ok())
        .any(|p| p > 100.0);
    assert!(!over_100, "a share above 100% in the chart");
}

/// A summary with the given median and interval.
fn summary_of(median: f64, lo: f64, hi: f64) -> crate::stats::Summary {
    let mut s = crate::stats::summarize(&[lo, median, hi]).unwrap();
    (s.median, s.ci95_lo, s.ci95_hi) = (median, lo, hi);
    s
}

/// The wake-up chart's bars are durations and start at zero; a median or
/// bound below zero widens the axis down to it instead of being clamped
/// (issue 39: nothing drawn claims what the data does not).
#[test]
fn the_wakeup_axis_starts_at_zero_unless_a_figure_lies_below_it() {
    let bars = [summary_of(5e3, 4e3, 6e3), summary_of(1e3, 0.5e3, 1.5e3)];
    let (lo, hi) = super::wakeup::y_range(bars.iter());
    assert_eq!(lo, 0.0);
    assert!(hi >= 6e3, "{hi}");
    let bars = [summary_of(5e3, 4e3, 6e3), summary_of(-200.0, -900.0, 300.0)];
    let (lo, hi) = super::wakeup::y_range(bars.iter());
    assert!(lo < -900.0, "{lo}");
    assert!(hi >= 6e3, "{hi}");
}
