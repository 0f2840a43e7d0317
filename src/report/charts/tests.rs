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
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-results.json");
    let r = RunResults::read(&file).expect("the fixture reads");
    let drawn = all(&r);
    let files: Vec<&str> = drawn.iter().map(|(_, c)| c.file.as_str()).collect();
    let table: Vec<&str> = CHARTS.iter().map(|c| c.file).collect();
    assert_eq!(files, table);
    for ((group, c), spec) in drawn.iter().zip(CHARTS) {
        let reg = experiments::find(spec.experiment).expect("registered");
        assert_eq!(*group, reg.group(), "{}", c.file);
        assert!(c.svg.starts_with("<svg"), "{}", c.file);
    }
}
