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
    let a = schedule(&p, 3, 42);
    assert_eq!(a.len(), 21);
    let mut seen: Vec<(usize, usize, usize)> =
        a.iter().map(|s| (s.experiment, s.point, s.round)).collect();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), 21, "every slot exactly once");
    // the same seed, the same order; another seed, another order
    assert_eq!(a, schedule(&p, 3, 42));
    assert_ne!(a, schedule(&p, 3, 43));
    // shuffled: the rounds of an experiment are not one block
    assert!(a.windows(2).any(|w| w[0].experiment != w[1].experiment));
}

#[test]
fn an_unsupported_experiment_gets_no_slot() {
    let mut p = vec![planned("yardstick.syscall", 1), planned("spawn.heap", 2)];
    p[1].unsupported = Some("not here".into());
    assert!(schedule(&p, 3, 1).iter().all(|s| s.experiment == 0));
}

#[test]
fn seed_9_runs_the_syscall_rounds_before_the_hang() {
    // tests/cli.rs interrupts a run of these two with this seed
    let p = vec![planned("yardstick.syscall", 1), planned("selftest.hang", 1)];
    let s = schedule(&p, 3, 9);
    assert!(s.iter().take(3).all(|x| x.experiment == 0), "{s:?}");
}
