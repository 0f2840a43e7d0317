use super::*;

const PLAIN: MetricSpec = MetricSpec::new("x_ns", Unit::Ns, Better::Lower, Kind::Other, "x");
const CONTROLLED: MetricSpec = MetricSpec {
    name: "write_ns",
    unit: Unit::Ns,
    better: Direction::ByLabel {
        key: "child",
        cases: &[("none", Better::Neither)],
        otherwise: Better::Lower,
    },
    kind: Kind::Creation,
    about: "a write",
    signed: false,
};

#[test]
fn a_direction_by_label_takes_the_matching_case_or_the_default() {
    let none = |k: &str| (k == "child").then_some("none");
    let alive = |k: &str| (k == "child").then_some("alive");
    let missing = |_: &str| None;
    assert_eq!(CONTROLLED.better_with(none), Better::Neither);
    assert_eq!(CONTROLLED.better_with(alive), Better::Lower);
    assert_eq!(CONTROLLED.better_with(missing), Better::Lower);
    assert_eq!(PLAIN.better_with(none), Better::Lower);
}

#[test]
fn directions_read_in_words() {
    assert_eq!(PLAIN.direction_words(), "lower");
    assert_eq!(CONTROLLED.direction_words(), "lower (child=none: neither)");
}
