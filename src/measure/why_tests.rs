use super::*;
use crate::sys::perf::{Drained, Mode, Sample};

#[test]
fn a_refusal_names_the_setting_to_change() {
    let denied = std::io::Error::from_raw_os_error(libc::EACCES);
    let w = refusal_words(&denied, Some(2), false);
    assert!(w.contains("kernel.perf_event_paranoid is 2"), "{w}");
    assert!(w.contains("sysctl kernel.perf_event_paranoid=1"), "{w}");
    let w = refusal_words(&denied, Some(-1), true);
    assert!(w.contains("CAP_PERFMON"), "{w}");
    let missing = std::io::Error::from_raw_os_error(libc::ENOENT);
    assert!(refusal_words(&missing, None, true).contains("CONFIG_PERF_EVENTS"));
}

#[test]
fn no_scope_no_sampling_and_nothing_to_finish() {
    // No recorder started: windows and scopes are no-ops.
    drop(Window::open());
    let _s = Scope::enter(&crate::measure::protocol::labels(&[("method", "fork")]));
    assert!(finish().is_empty());
}

#[test]
fn without_a_recorder_nothing_is_active_and_nothing_recorded() {
    // The no-`--why` path: the flag says no recorder, so a window and a
    // scope never reach the recorder's lock, and nothing is kept.
    assert!(!active());
    let _s = Scope::enter(&crate::measure::protocol::labels(&[("call", "getppid")]));
    let w = Window::open();
    assert!(!w.opened);
    drop(w);
    assert!(!active());
    assert!(finish().is_empty());
}

fn io(code: i32) -> std::io::Error {
    std::io::Error::from_raw_os_error(code)
}

#[test]
fn cpu_wide_where_it_opens_else_per_task_with_the_reason_else_refused() {
    // CPU-wide opens: per-task is not even tried.
    let mut tried = false;
    let got = choose(Ok(()), || {
        tried = true;
        Ok(())
    });
    assert_eq!(got.unwrap().0, Mode::CpuWide);
    assert!(!tried);
    // Refused CPU-wide (perf_event_paranoid 2, no CAP_PERFMON): per task,
    // and the refusal kept for the report.
    let (mode, why) = choose(Err(io(libc::EACCES)), || Ok(())).unwrap();
    assert_eq!(mode, Mode::PerTask);
    assert_eq!(why.unwrap().raw_os_error(), Some(libc::EACCES));
    // Both refused: the per-task refusal is the run's.
    let e = choose(Err(io(libc::EACCES)), || Err(io(libc::ENOENT))).unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::ENOENT));
    let w = per_task_words(&io(libc::EACCES), Some(2));
    assert!(w.contains("kernel.perf_event_paranoid is 2"), "{w}");
    assert!(w.contains("CAP_PERFMON"), "{w}");
}

fn sample(pid: u32) -> Sample {
    Sample {
        pid,
        time: 0,
        kernel: true,
        kernel_ips: vec![u64::from(pid)],
        cgroup: 0,
    }
}

#[test]
fn the_tree_keeps_the_worker_and_its_descendants_only() {
    // Worker 100; 101 a child born in a window (a fork record) and reaped
    // before the drain (no /proc); 102 its grandchild, whose fork record
    // came first from another CPU's ring; 200 a child of /proc's 150 whose
    // parent is the worker (born before the windows); 300 another
    // process, child of 1; 0 the idle task.
    let procfs = |pid: u32| match pid {
        150 => Some(100),
        200 => Some(150),
        300 => Some(1),
        _ => None,
    };
    let mut asked = Vec::new();
    let mut t = Tree::new(100);
    let d = Drained {
        samples: [100, 101, 102, 200, 300, 0, 999].map(sample).to_vec(),
        lost: vec![],
        forks: vec![(102, 101), (101, 100)],
        exits: vec![],
    };
    let kept = t.keep(d, |p| {
        asked.push(p);
        procfs(p)
    });
    let pids: Vec<u32> = kept.iter().map(|s| s.pid).collect();
    assert_eq!(pids, vec![100, 101, 102, 200]);
    // Within a drain each verdict is asked once; in the next drain a
    // reaped child of a fork record is still in the tree until its exit
    // record, and /proc is asked again (a pid may have been reused).
    asked.sort();
    asked.dedup();
    let once = asked.len();
    asked.clear();
    let again = Drained {
        samples: [101, 200, 300, 150, 999, 101, 102].map(sample).to_vec(),
        exits: vec![101],
        ..Drained::default()
    };
    let kept = t.keep(again, |p| {
        asked.push(p);
        procfs(p)
    });
    assert_eq!(
        kept.iter().map(|s| s.pid).collect::<Vec<_>>(),
        vec![101, 200, 150, 101, 102]
    );
    assert_eq!(asked.len(), once, "{asked:?}");
    // After 101's exit record: 101 is no longer known, nor its child 102.
    let after = Drained {
        samples: [101, 102].map(sample).to_vec(),
        ..Drained::default()
    };
    assert!(t.keep(after, procfs).is_empty());
    // A pid judged out joins when a fork record names it a child.
    t.forks(&[(999, 100)]);
    assert!(t.holds(999, &mut |_| None));
}

#[test]
fn a_parent_loop_ends_outside_the_tree() {
    let mut t = Tree::new(100);
    assert!(!t.holds(7, &mut |p| Some(if p == 7 { 8 } else { 7 })));
    assert!(!t.holds(5, &mut |p| Some(p)));
}

#[test]
fn a_window_keeps_exactly_the_samples_and_losses_stamped_inside_it_edges_included() {
    // A window stamped 1000 to 2000: samples before, at the opening, inside,
    // at the closing and after; lost records likewise; fork and exit
    // records kept whenever they came.
    let at = |pid: u32, time: u64| Sample {
        time,
        ..sample(pid)
    };
    let d = Drained {
        samples: vec![
            at(1, 0),
            at(2, 999),
            at(3, 1000),
            at(4, 1500),
            at(5, 2000),
            at(6, 2001),
            at(7, u64::MAX),
        ],
        lost: vec![(999, 1), (1000, 2), (2000, 4), (2001, 8)],
        forks: vec![(11, 10)],
        exits: vec![12],
    };
    let w = within(d, 1000, 2000);
    assert_eq!(
        w.samples.iter().map(|s| s.pid).collect::<Vec<_>>(),
        vec![3, 4, 5]
    );
    assert_eq!(w.lost, vec![(1000, 2), (2000, 4)]);
    assert_eq!(w.forks, vec![(11, 10)]);
    assert_eq!(w.exits, vec![12]);
    // An empty window (closed at the instant it opened) keeps that instant.
    let d = Drained {
        samples: vec![at(1, 999), at(2, 1000), at(3, 1001)],
        ..Drained::default()
    };
    let w = within(d, 1000, 1000);
    assert_eq!(w.samples.iter().map(|s| s.pid).collect::<Vec<_>>(), vec![2]);
}

#[test]
fn a_cgroups_samples_are_kept_whatever_their_pids_and_no_others() {
    let in_group = |pid: u32, cgroup: u64| Sample {
        cgroup,
        ..sample(pid)
    };
    // The worker (10), a child no record named (11, reaped long ago), a
    // stranger whose pid the child once had (11 in another cgroup), and a
    // sample that carries no cgroup.
    let got = keep_group(
        vec![
            in_group(10, 77),
            in_group(11, 77),
            in_group(11, 5),
            in_group(12, 0),
            in_group(13, 77),
        ],
        77,
    );
    let pids: Vec<u32> = got.iter().map(|s| s.pid).collect();
    assert_eq!(pids, vec![10, 11, 13]);
    assert!(keep_group(vec![in_group(10, 77)], 0).is_empty());
}

#[test]
fn the_record_says_how_a_cpu_wide_runs_tasks_were_told() {
    let plan = |mode, cgroup, refused: Option<&str>| WhyPlan {
        rate_hz: 250,
        refused: refused.map(Into::into),
        mode,
        per_task_why: None,
        cgroup,
        records_why: (!cgroup).then(|| "no cgroup v2".into()),
    };
    let rec = plan(Mode::CpuWide, true, None).record();
    assert_eq!(rec.tasks.as_deref(), Some("cgroup"));
    let rec = plan(Mode::CpuWide, false, None).record();
    assert_eq!(rec.tasks.as_deref(), Some("records"));
    assert_eq!(rec.records_why.as_deref(), Some("no cgroup v2"));
    assert_eq!(plan(Mode::PerTask, false, None).record().tasks, None);
    assert_eq!(plan(Mode::CpuWide, false, Some("no")).record().tasks, None);
    // What the worker is asked for follows the plan.
    assert_eq!(
        plan(Mode::CpuWide, true, None).job().map(|j| j.cgroup),
        Some(true)
    );
    assert_eq!(
        plan(Mode::CpuWide, false, None).job().map(|j| j.cgroup),
        Some(false)
    );
}
