use super::*;

#[test]
fn a_chase_is_one_cycle_through_every_line() {
    for n in [1, 2, 3, 64, 1000] {
        let next = single_cycle(n, 42);
        let mut seen = vec![false; n];
        let mut i = 0;
        for _ in 0..n {
            assert!(!seen[i], "line {i} visited twice of {n}");
            seen[i] = true;
            i = next[i];
        }
        assert_eq!(i, 0, "back at the start after {n}");
        assert!(seen.iter().all(|s| *s));
    }
    // another seed, another order
    assert_ne!(single_cycle(1000, 1), single_cycle(1000, 2));
    assert!(single_cycle(0, 1).is_empty());
}

#[test]
fn both_walks_write_every_line_once_per_walk() {
    assert_eq!(LINE, 64);
    for walk in Walk::ALL {
        let mut ws = WorkingSet::new(
            Walking {
                bytes: 256 * LINE + 10,
                walk,
            },
            7,
        );
        assert_eq!(ws.lines.len(), 256);
        ws.walk();
        ws.walk();
        assert!(ws.lines.iter().all(|l| l.visits == 2), "{walk:?}");
    }
    let mut none = WorkingSet::new(Walking::default(), 1);
    assert!(none.lines.is_empty());
    none.walk();
}

#[test]
fn a_random_walk_is_not_in_address_order() {
    let ws = WorkingSet::new(
        Walking {
            bytes: 1000 * LINE,
            walk: Walk::Random,
        },
        3,
    );
    let n = ws.lines.len();
    let in_order = (0..n).filter(|&i| ws.lines[i].next == (i + 1) % n).count();
    assert!(in_order < n / 10, "{in_order} of {n}");
}
