//! Every finding, headline and note that quotes an RSS figure carries the
//! kernel's error bound (issue 14 §5): the fixtures' experiments analysed
//! again with the bound and the cross-check their workers now record.

use super::spawn::methods::{WORKER_ANON_KIB, WORKER_MAPPINGS};
use crate::measure::rss::{RSS_BOUND_KIB, RSS_CROSS_CHECK_KIB};
use crate::results::{Reading, RunResults, Unit};
use std::path::Path;

/// The fixture with every experiment's analysis redone as if its workers had
/// recorded the bound (256 KiB, at every point) and the cross-check.
fn analysed(file: &str) -> RunResults {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(file);
    let mut r = RunResults::read(&path).expect("the fixture reads");
    for e in &mut r.experiments {
        let Some(x) = super::find(&e.name) else {
            continue;
        };
        let mut points: Vec<_> = e.metrics.iter().map(|m| m.labels.clone()).collect();
        points.push(Default::default());
        for labels in points {
            let mut with_regime = labels.clone();
            with_regime.insert("regime".into(), "per-CPU counters (6.2 and later)".into());
            e.readings.push(Reading {
                name: RSS_BOUND_KIB.name.into(),
                unit: Unit::Kib,
                labels: with_regime,
                value: 256.0,
            });
            e.readings.push(Reading {
                name: RSS_CROSS_CHECK_KIB.name.into(),
                unit: Unit::Kib,
                labels,
                value: 12.0,
            });
        }
        if e.name == "spawn.methods" && e.reading(&WORKER_ANON_KIB, &[]).is_none() {
            for (spec, v) in [(&WORKER_MAPPINGS, 40.0), (&WORKER_ANON_KIB, 900.0)] {
                e.readings.push(Reading::of(spec, Default::default(), v));
            }
        }
        e.findings.clear();
        e.headlines.clear();
        e.notes.clear();
        e.fits.clear();
        (x.analyze)(e).apply(e);
    }
    r
}

/// Whether a sentence names an RSS counter figure.
fn mentions_rss(s: &str) -> bool {
    s.contains("RSS") || s.contains("Rss")
}

#[test]
fn every_rss_figure_carries_its_bound() {
    let mut checked = 0;
    {
        let file = "report-results.json";
        for e in analysed(file).experiments {
            for line in e.findings.iter().chain(&e.headlines).chain(&e.notes) {
                // The seed's own figures (its footnote weighed against its
                // gap) are not ours: no bound of this kernel applies.
                if mentions_rss(line) && !line.starts_with("the seed's") {
                    assert!(line.contains("± "), "{}: {line}", e.name);
                    checked += 1;
                }
            }
            // A table with an RSS-counter series has the note under it.
            if e.metrics
                .iter()
                .any(|m| m.name.starts_with("rss_") && !m.name.contains("exact"))
                || e.findings.iter().any(|f| mentions_rss(f))
            {
                let note = e.notes.iter().find(|n| n.starts_with("RSS bound"));
                let note =
                    note.unwrap_or_else(|| panic!("{}: no RSS note in {:?}", e.name, e.notes));
                assert!(note.contains("± 256 KiB per reading"), "{note}");
                assert!(
                    note.contains("+12.0 KiB") && note.contains("within the bound"),
                    "{note}"
                );
            }
        }
    }
    assert!(checked >= 6, "only {checked} lines mention RSS");
}

#[test]
fn only_a_result_that_recorded_the_bound_has_the_rss_note() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-results.json");
    let r = RunResults::read(&path).expect("the fixture reads");
    let mut with = 0;
    for e in &r.experiments {
        let recorded = e.readings.iter().any(|x| x.name == RSS_BOUND_KIB.name);
        assert_eq!(
            crate::measure::rss::note(e).is_some(),
            recorded,
            "{}",
            e.name
        );
        with += usize::from(recorded);
    }
    // A current run records the bound wherever it reads an RSS counter.
    assert!(with >= 1, "no experiment of the fixture recorded the bound");
}
