use super::*;
use crate::experiments::spawn::table::METHODS;

#[test]
fn without_the_tiny_programs_the_exec_methods_say_why_they_are_skipped() {
    let l = Launcher::new(None, 0.0).unwrap();
    let why = |name: &str| l.unsupported(find(METHODS, name).unwrap());
    let no_static =
        "the tiny static program was not built (no static libc when tasklab was compiled?)";
    for name in ["posix_spawn", "fork_exec_static", "vfork_exec_static"] {
        assert_eq!(why(name), Some(format!("{name} skipped: {no_static}")));
    }
    assert_eq!(
        why("fork_exec_dynamic"),
        Some("fork_exec_dynamic skipped: the tiny dynamic program was not built".into())
    );
    assert_eq!(
        why("sh_c"),
        Some("sh_c skipped: no /bin/sh or no tiny program".into())
    );
    assert_eq!(why("fork"), None);
}

#[test]
fn every_method_that_runs_here_launches_and_its_times_are_ordered() {
    let l = Launcher::new(None, 0.0).unwrap();
    for m in METHODS.iter().filter(|m| l.unsupported(m).is_none()) {
        let launch = l.launch(m).unwrap_or_else(|e| panic!("{}: {e}", m.name()));
        // The parent returns, and the child starts, before the reap or join.
        assert!(
            launch.parent_return_ns <= launch.lifecycle_ns,
            "{}: {launch:?}",
            m.name()
        );
        assert!(
            launch.child_start_ns <= launch.lifecycle_ns,
            "{}: {launch:?}",
            m.name()
        );
    }
}
