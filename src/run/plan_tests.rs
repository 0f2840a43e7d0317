use super::*;

fn planned(name: &str, points: usize) -> Planned {
    Planned {
        exp: experiments::find(name).unwrap(),
        params: Params::default(),
        points: vec![serde_json::Value::Null; points],
        notes: vec![],
        fewer_than_asked: vec![],
        unsupported: None,
        side: None,
    }
}

#[test]
fn the_schedule_runs_every_round_of_every_point_once_in_a_seeded_order() {
    let p = vec![planned("yardstick.syscall", 2), planned("spawn.heap", 5)];
    let a = schedule(&p, 3, 42, false);
    assert_eq!(a.len(), 21);
    let mut seen: Vec<(usize, usize, usize)> =
        a.iter().map(|s| (s.experiment, s.point, s.round)).collect();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), 21, "every slot exactly once");
    // the same seed, the same order; another seed, another order
    assert_eq!(a, schedule(&p, 3, 42, false));
    assert_ne!(a, schedule(&p, 3, 43, false));
    // shuffled: the rounds of an experiment are not one block
    assert!(a.windows(2).any(|w| w[0].experiment != w[1].experiment));
}

#[test]
fn an_unsupported_experiment_gets_no_slot() {
    let mut p = vec![planned("yardstick.syscall", 1), planned("spawn.heap", 2)];
    p[1].unsupported = Some("not here".into());
    assert!(schedule(&p, 3, 1, false).iter().all(|s| s.experiment == 0));
}

#[test]
fn seed_9_runs_the_syscall_rounds_before_the_hang() {
    // tests/cli.rs interrupts a run of these two with this seed
    let p = vec![planned("yardstick.syscall", 1), planned("selftest.hang", 1)];
    let s = schedule(&p, 3, 9, false);
    assert!(s.iter().take(3).all(|x| x.experiment == 0), "{s:?}");
}

#[test]
fn with_a_budget_every_point_runs_once_before_any_runs_twice() {
    let p = vec![
        planned("yardstick.syscall", 2),
        planned("spawn.heap", 5),
        planned("parallel.program", 2),
    ];
    let a = schedule(&p, 3, 42, true);
    // the same slots as the plain schedule, each once
    let sorted = |s: &[Slot]| {
        let mut v: Vec<(usize, usize, usize)> =
            s.iter().map(|s| (s.experiment, s.point, s.round)).collect();
        v.sort_unstable();
        v
    };
    assert_eq!(sorted(&a), sorted(&schedule(&p, 3, 42, false)));
    // the first rounds, all nine points, come first: the costs every later
    // estimate rests on are measured by then
    assert!(a[..9].iter().all(|s| s.round == 0), "{a:?}");
    assert!(a[9..].iter().all(|s| s.round > 0), "{a:?}");
    // each part shuffled, by the seed
    assert!(a[..9]
        .windows(2)
        .any(|w| w[0].experiment != w[1].experiment));
    assert!(a[9..]
        .windows(2)
        .any(|w| w[0].experiment != w[1].experiment));
    assert_eq!(a, schedule(&p, 3, 42, true));
    assert_ne!(a, schedule(&p, 3, 43, true));
}

#[test]
fn with_fixed_rounds_the_schedule_is_the_plain_shuffle() {
    // `--rounds` runs keep the order their seeds are chosen for
    // (seed_9_runs_the_syscall_rounds_before_the_hang)
    let p = vec![planned("yardstick.syscall", 1), planned("selftest.hang", 1)];
    let plain = schedule(&p, 3, 9, false);
    assert!(plain.iter().take(3).all(|x| x.experiment == 0));
    let budget = schedule(&p, 3, 9, true);
    assert!(budget[..2].iter().all(|s| s.round == 0));
}
