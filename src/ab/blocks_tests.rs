use super::*;
use crate::measure::params::Params;
use crate::run::plan::SideSetup;

fn planned(name: &str, points: usize, side: Side) -> Planned {
    Planned {
        exp: crate::experiments::find(name).unwrap(),
        params: Params::default(),
        points: vec![serde_json::Value::Null; points],
        notes: vec![],
        fewer_than_asked: vec![],
        unsupported: None,
        side: Some(SideSetup {
            side,
            pin: None,
            env: vec![],
            why: None,
        }),
    }
}

#[test]
fn blocks_alternate_a_b_b_a_and_hold_one_round_of_every_point() {
    let e = vec![
        planned("yardstick.syscall", 2, Side::A),
        planned("spawn.heap", 3, Side::A),
        planned("yardstick.syscall", 2, Side::B),
        planned("spawn.heap", 3, Side::B),
    ];
    let rounds = 4;
    let s = schedule(&e, rounds, 9);
    assert_eq!(s.len(), 2 * rounds * 5);
    for (k, block) in s.chunks(5).enumerate() {
        let want = block_side(k);
        for slot in block {
            assert_eq!(e[slot.experiment].side.as_ref().unwrap().side, want);
            assert_eq!(slot.round, k / 2);
        }
        let mut points: Vec<_> = block.iter().map(|s| (s.experiment, s.point)).collect();
        points.sort();
        points.dedup();
        assert_eq!(points.len(), 5, "one round of every point of the side");
    }
    // the seed reproduces the order
    assert_eq!(s, schedule(&e, rounds, 9));
}
