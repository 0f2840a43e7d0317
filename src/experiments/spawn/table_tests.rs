use super::*;
use crate::experiments::spawn::{cold, heap, methods};
use crate::measure::params::{find, names, ParamKind};

#[test]
fn names_are_unique() {
    for (i, a) in METHODS.iter().enumerate() {
        for b in &METHODS[i + 1..] {
            assert_ne!(a.name(), b.name());
        }
    }
}

#[test]
fn the_choices_are_the_table_in_its_order() {
    assert_eq!(CHOICES.len(), METHODS.len());
    for (c, m) in CHOICES.iter().zip(METHODS) {
        assert_eq!(*c, m.choice);
        assert_eq!(find(METHODS, c.name).map(|m| m.kind), Some(m.kind));
    }
    assert!(find(METHODS, "spoon").is_none());
}

#[test]
fn every_experiment_offers_the_whole_table() {
    for e in [&methods::EXPERIMENT, &cold::EXPERIMENT, &heap::EXPERIMENT] {
        let p = e.params.iter().find(|p| p.name == "methods").unwrap();
        let ParamKind::Names(table) = p.kind else {
            panic!("{}: methods is not a name list", e.name)
        };
        assert_eq!(names(table), names(CHOICES), "{}", e.name);
    }
}

#[test]
fn what_a_method_needs_is_said_where_it_may_be_missing() {
    for m in METHODS {
        let may_be_missing = matches!(
            m.kind,
            Kind::Exec(..) | Kind::Clone3Fork | Kind::Clone3Thread
        );
        assert_eq!(!m.choice.needs.is_empty(), may_be_missing, "{}", m.name());
    }
}

#[test]
fn a_thread_starts_no_process_and_every_other_method_does() {
    let mut threads: Vec<&str> = METHODS
        .iter()
        .filter(|m| !m.starts_process())
        .map(|m| m.name())
        .collect();
    threads.sort_unstable();
    assert_eq!(
        threads,
        [
            "clone3_thread",
            "clone_thread_flags",
            "pthread_create",
            "std_thread"
        ]
    );
    for name in [
        "fork",
        "vfork",
        "posix_spawn",
        "clone_vm",
        "clone_vfork",
        "clone3_fork",
    ] {
        assert!(find(METHODS, name).unwrap().starts_process(), "{name}");
    }
}
