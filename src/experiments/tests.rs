use super::*;
use crate::measure::sizing::Profile;
use crate::metric::MetricSpec;

#[test]
fn names_are_unique_and_grouped() {
    for (i, a) in REGISTRY.iter().enumerate() {
        assert!(
            a.name.starts_with(&format!("{}.", a.group())),
            "{} not in its group",
            a.name
        );
        for b in &REGISTRY[i + 1..] {
            assert_ne!(a.name, b.name);
        }
    }
}

#[test]
fn every_default_parameter_parses_within_its_bounds() {
    for e in REGISTRY {
        for p in e.params {
            for profile in [Profile::Quick, Profile::Thorough] {
                p.parse(p.default_for(profile))
                    .unwrap_or_else(|err| panic!("{}.{}: {err}", e.name, p.name));
            }
        }
    }
}

#[test]
fn seed_figures_name_a_seed_file_and_an_ordered_range() {
    for e in REGISTRY {
        for s in e.seeds {
            assert!(s.source.ends_with(".txt"), "{}: {}", e.name, s.source);
            assert!(s.lo <= s.hi && s.lo > 0.0, "{}: {}", e.name, s.metric);
            assert!(
                seeds::citation(s.source).is_some(),
                "{}: {} is not cited in experiments::seeds",
                e.name,
                s.source
            );
        }
    }
}

#[test]
fn one_citation_per_file_and_one_label_per_article() {
    for (i, a) in seeds::CITATIONS.iter().enumerate() {
        for b in &seeds::CITATIONS[i + 1..] {
            assert_ne!(a.file, b.file);
            // Two files of one article share its label and anchor; two
            // articles never do.
            let same = (a.author, a.title, a.year) == (b.author, b.title, b.year);
            assert_eq!(same, a.short == b.short, "{} / {}", a.file, b.file);
            assert_eq!(same, seeds::anchor(a.file) == seeds::anchor(b.file));
        }
    }
    assert_eq!(seeds::cite_short("999_x.txt"), "seed 999");
    assert_eq!(
        seeds::citation(seeds::SEED_CLONE).map(|c| c.full()).as_deref(),
        Some("Eli Bendersky, \u{201c}Launching Linux threads and processes with clone\u{201d} (2018)")
    );
    // No year where the seed's text gives none.
    let sysel = seeds::citation(seeds::SEED_SYSEL).expect("cited");
    assert!(!sysel.full().contains('('), "{}", sysel.full());
    // Every article is cited with an author and a title; an address, where
    // known, is a web address, the same for two files of one article.
    for c in seeds::CITATIONS {
        assert!(!c.author.is_empty() && !c.title.is_empty(), "{}", c.file);
        assert!(
            c.url.is_none_or(|u| u.starts_with("https://")),
            "{}",
            c.file
        );
        let other = seeds::CITATIONS.iter().filter(|o| o.short == c.short);
        assert!(other.clone().all(|o| o.url == c.url), "{}", c.file);
    }
}

#[test]
fn a_seed_named_by_number_is_named_by_its_citation() {
    assert_eq!(
        seeds::cite_numbers("pipe echo (seed 002: ~400,000); Seed 003 gained; seed 004's row"),
        "pipe echo (Bendersky 2018, switching: ~400,000); Linux Fu gained; Sysel's row"
    );
    // Not a seed file's number, not a whole word, or no number: as it was.
    for t in [
        "schedule seed 1795492781358649315",
        "seed 999 x",
        "the seed's loop",
        "reseed 002",
        "seed 00",
    ] {
        assert_eq!(seeds::cite_numbers(t), t);
    }
}

#[test]
fn no_experiment_names_a_seed_by_number() {
    for e in REGISTRY {
        for t in [e.summary, e.reproduces] {
            assert_eq!(seeds::cite_numbers(t), t, "{}: {t}", e.name);
        }
    }
}

#[test]
fn select_resolves_groups_and_rejects_unknown_names() {
    let spawn = select(&["spawn".into()]).unwrap();
    assert!(spawn.iter().all(|e| e.group() == "spawn") && spawn.len() >= 3);
    let Err(err) = select(&["nope".into()]) else {
        panic!("an unknown name was accepted")
    };
    assert!(err.contains("groups: yardstick, spawn"), "{err}");
    assert!(select(&[]).unwrap().iter().all(|e| !e.hidden));
    // hidden experiments run only when named
    assert_eq!(select(&["selftest.crash".into()]).unwrap().len(), 1);
}

#[test]
fn every_group_has_a_title_and_every_title_a_group() {
    for g in groups() {
        assert!(GROUPS.iter().any(|(n, _, _)| *n == g), "{g} has no title");
    }
    for (n, _, _) in GROUPS {
        assert!(groups().contains(n), "title for unknown group {n}");
    }
}

#[test]
fn the_worker_and_probe_lookups_find_registered_experiments() {
    assert!(measure_fn("spawn.heap").is_some());
    assert!(measure_fn("nope.nothing").is_none());
    assert!(probe_fn("spawn.cold").is_some());
    assert!(probe_fn("spawn.heap").is_none());
}

#[test]
fn every_shared_quantity_names_registered_experiments_and_declared_metrics() {
    for q in quantities::QUANTITIES {
        assert!(q.sources.len() >= 2, "{}", q.name);
        for s in q.sources {
            let e = find(s.experiment).unwrap_or_else(|| panic!("{}", s.experiment));
            assert_eq!(
                e.metric(s.metric.name),
                Some(s.metric),
                "{} does not declare {}",
                s.experiment,
                s.metric.name
            );
        }
    }
}

#[test]
fn every_seed_figure_names_a_declared_metric_in_its_unit() {
    for e in REGISTRY {
        for s in e.seeds {
            let spec = e
                .metric(s.metric)
                .unwrap_or_else(|| panic!("{}: seed figure of undeclared {}", e.name, s.metric));
            assert_eq!(spec.unit, s.unit, "{}: {}", e.name, s.metric);
        }
    }
}

#[test]
fn every_declaration_is_whole_and_one_name_is_one_declaration() {
    let mut seen: Vec<(&str, &MetricSpec)> = Vec::new();
    for e in REGISTRY.iter().filter(|e| !e.hidden) {
        assert!(!e.metrics.is_empty(), "{} declares no metrics", e.name);
    }
    for (owner, spec) in REGISTRY
        .iter()
        .flat_map(|e| e.metrics.iter().map(move |m| (e.name, *m)))
        .chain(spec::RETIRED.iter().map(|m| ("retired", *m)))
    {
        assert!(
            !spec.about.is_empty(),
            "{owner}: {} has no about",
            spec.name
        );
        match seen.iter().find(|(_, s)| s.name == spec.name) {
            // One series name means one thing in every experiment that
            // reports it: one declaration, imported.
            Some((first, s)) => assert_eq!(*s, spec, "{first} and {owner} declare {}", spec.name),
            None => seen.push((owner, spec)),
        }
    }
    for e in REGISTRY {
        for (i, a) in e.metrics.iter().enumerate() {
            assert!(
                e.metrics[i + 1..].iter().all(|b| b.name != a.name),
                "{} declares {} twice",
                e.name,
                a.name
            );
            assert!(
                !spec::RETIRED.iter().any(|r| r.name == a.name),
                "{}: {} is retired",
                e.name,
                a.name
            );
        }
    }
}

/// A results fixture under `tests/data`.
fn fixture(file: &str) -> crate::results::RunResults {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(file);
    crate::results::RunResults::read(&path).expect("the fixture reads")
}

#[test]
fn every_series_and_reading_of_the_fixtures_and_their_analyses_is_declared() {
    for file in ["report-results.json", "advise-results.json"] {
        let r = fixture(file);
        for e in &r.experiments {
            let Some(x) = find(&e.name) else {
                continue;
            };
            let again = (x.analyze)(e);
            let names = e
                .metrics
                .iter()
                .map(|m| &m.name)
                .chain(e.readings.iter().map(|r| &r.name))
                .chain(again.readings.iter().map(|r| &r.name));
            for name in names {
                assert!(
                    x.metric(name).is_some(),
                    "{file}: {} does not declare {name}",
                    e.name
                );
            }
        }
    }
}

#[test]
fn a_label_qualified_direction_holds_for_its_series_only() {
    use crate::experiments::spawn::cow::{FORK_NS, WRITE_NS};
    use crate::metric::key::{CHILD, PAGES, WRITES};
    use crate::results::Better;
    let cow = find("spawn.cow").unwrap();
    let labels = |child: &str| -> crate::results::Labels {
        [(CHILD, child), (WRITES, "100%"), (PAGES, "4k")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    // The control (no child) reports, the copy-on-write figure gates.
    assert_eq!(
        cow.better_for(WRITE_NS.name, &labels("none")),
        Better::Neither
    );
    assert_eq!(
        cow.better_for(WRITE_NS.name, &labels("alive")),
        Better::Lower
    );
    assert_eq!(cow.better_for(FORK_NS.name, &labels("none")), Better::Lower);
    assert_eq!(cow.better_for("no_such", &labels("none")), Better::Unknown);
    // A retired metric keeps the direction it had.
    let any = REGISTRY[0];
    assert_eq!(
        any.better_for(spec::SYS_NS.name, &labels("none")),
        Better::Neither
    );
}

#[test]
fn every_label_qualified_direction_names_a_label_key_and_changes_something() {
    use crate::metric::Direction;
    for e in REGISTRY {
        for m in e.metrics {
            if let Direction::ByLabel {
                key,
                cases,
                otherwise,
            } = m.better
            {
                assert!(
                    !key.is_empty() && !cases.is_empty(),
                    "{}: {}",
                    e.name,
                    m.name
                );
                assert!(
                    cases.iter().all(|(v, b)| !v.is_empty() && *b != otherwise),
                    "{}: {}: a case that changes nothing",
                    e.name,
                    m.name
                );
            }
        }
    }
}

#[test]
fn the_system_call_stays_in_the_summary_when_flagged_with_its_interval_and_flag() {
    use crate::experiments::testing::{metric, result, unsettled};
    let e = find("yardstick.syscall").unwrap();
    let settled = result(vec![metric(
        "call_ns",
        &[("call", "getppid")],
        &[120.0, 121.0, 122.0],
    )]);
    let a = (e.analyze)(&settled);
    assert_eq!(a.headlines.len(), 1);
    assert!(
        a.headlines[0].starts_with("a bare system call costs 121.0 ns:"),
        "{:?}",
        a.headlines
    );
    let flagged = result(vec![unsettled(metric(
        "call_ns",
        &[("call", "getppid")],
        &[120.0, 121.0, 160.0],
    ))]);
    let a = (e.analyze)(&flagged);
    // no finding rests on it, but the Summary keeps its subject, marked
    assert!(a.findings.is_empty(), "{:?}", a.findings);
    assert_eq!(a.headlines.len(), 1);
    assert!(
        a.headlines[0].contains("! (two modes: "),
        "{:?}",
        a.headlines
    );
}

/// Which experiments' timed work touches memory, so that a memory record
/// may name a cause: spawn, memory and parallel do; switch and yardstick
/// (a ping-pong, a clock read, a memcpy of warm buffers) do not.
#[test]
fn memory_work_is_declared_by_the_experiments_that_touch_memory() {
    for e in REGISTRY {
        let expected = matches!(e.group(), "spawn" | "memory" | "parallel")
            && !matches!(e.name, "memory.limits" | "memory.sharing");
        if e.hidden {
            continue;
        }
        assert_eq!(e.memory_work, expected, "{}", e.name);
    }
}

/// A seed row says "the seed: {statistic}, {method}": a method that opens
/// with its statistic said it twice ("the seed: single calls, single call,
/// to the child's first instruction", the Sysel rows of /tmp/s18).
#[test]
fn no_seed_method_repeats_its_statistic() {
    for e in REGISTRY {
        for f in e.seeds {
            let word = f.statistic.word();
            let singular = word.trim_end_matches('s');
            let said = f.method.to_lowercase();
            assert!(
                !said.starts_with(singular) && !said.contains("single call"),
                "{} {}: \"{}\" repeats \"{word}\"",
                e.name,
                f.metric,
                f.method
            );
        }
    }
}
