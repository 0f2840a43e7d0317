use super::*;

#[test]
fn every_table_row_dispatches_to_its_variant() {
    assert_eq!(names(VARIANTS), ["fork", "threads", "pool"]);
    for c in VARIANTS {
        let v = Variant::named(c.name).expect("a variant per row");
        assert_eq!(v.choice(), *c);
        assert_ne!(v, Variant::Serial);
    }
    assert_eq!(Variant::named("serial"), Some(Variant::Serial));
    assert_eq!(Variant::named("spoon"), None);
}

#[test]
fn every_huge_page_setting_round_trips() {
    assert_eq!(names(THP_SETTINGS), ["default", "on", "off"]);
    for c in THP_SETTINGS {
        assert_eq!(thp_choice(thp_of(c.name)), *c);
    }
    assert_eq!(thp_of("sometimes"), Thp::Default);
}

#[test]
fn the_generic_finder_serves_the_enum_tables() {
    for v in Variant::ALL {
        assert_eq!(find(&Variant::ALL, v.name()), Some(&v));
    }
    assert_eq!(find(&THP_ALL, "on"), Some(&Thp::On));
    assert_eq!(find(&THP_ALL, "sometimes"), None);
}
