use super::*;

#[test]
fn every_row_parses_to_its_placement_and_back() {
    assert_eq!(names(&PLACEMENTS), ["one_cpu", "free"]);
    for c in PLACEMENTS {
        let p = Placement::parse(c.name).expect("a placement per row");
        assert_eq!(p.choice(), c);
        assert_eq!(Row::name(&p), c.name);
    }
    assert_eq!(Placement::parse("spoon"), None);
}
