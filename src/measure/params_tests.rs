use super::*;

#[test]
fn bounds_are_enforced_with_the_valid_range_named() {
    let spec = ParamSpec {
        name: "heap",
        help: "",
        kind: ParamKind::SizeList {
            min: 0,
            max: 1 << 30,
        },
        quick: "0",
        thorough: "0",
    };
    assert_eq!(spec.parse("0,2M"), Ok(ParamValue::List(vec![0, 2 << 20])));
    let err = spec.parse("2G").unwrap_err();
    assert!(
        err.contains("out of range") && err.contains("1 GiB"),
        "{err}"
    );
    assert!(spec.parse("2M,x").is_err());
}

#[derive(Debug)]
struct Tool {
    choice: Choice,
    sharp: bool,
}

impl Row for Tool {
    fn choice(&self) -> Choice {
        self.choice
    }
}

const TOOLS: &[Tool] = &[
    Tool {
        choice: Choice::new("knife", "cuts"),
        sharp: true,
    },
    Tool {
        choice: Choice::new("spoon", "scoops").needing("soup"),
        sharp: false,
    },
];

#[test]
fn find_gives_the_row_of_a_name_and_nothing_for_a_stranger() {
    assert!(find(TOOLS, "knife").is_some_and(|t| t.sharp));
    assert!(find(TOOLS, "spoon").is_some_and(|t| !t.sharp && t.choice.needs == "soup"));
    assert!(find(TOOLS, "fork").is_none());
    assert!(find(TOOLS, "").is_none());
    assert!(find::<Tool>(&[], "knife").is_none());
    // A table of bare choices is a table of rows too.
    const BARE: &[Choice] = &[Choice::new("a", ""), Choice::new("b", "")];
    assert_eq!(find(BARE, "b").map(Row::name), Some("b"));
}

#[test]
fn the_choice_column_is_the_rows_in_order() {
    const COLUMN: &[Choice] = choice_column!(TOOLS);
    let rows: Vec<Choice> = TOOLS.iter().map(Row::choice).collect();
    assert_eq!(COLUMN, rows.as_slice());
    assert_eq!(names(COLUMN), ["knife", "spoon"]);
}

#[test]
fn names_are_checked_against_the_choices() {
    const TABLE: &[Choice] = &[Choice::new("fork", ""), Choice::new("vfork", "")];
    let spec = ParamSpec {
        name: "methods",
        help: "",
        kind: ParamKind::Names(TABLE),
        quick: "all",
        thorough: "all",
    };
    assert_eq!(
        spec.parse("all"),
        Ok(ParamValue::Names(vec!["fork".into(), "vfork".into()]))
    );
    assert_eq!(
        spec.parse("vfork, vfork"),
        Ok(ParamValue::Names(vec!["vfork".into()]))
    );
    let err = spec.parse("fork,spoon").unwrap_err();
    assert!(
        err.contains("spoon") && err.contains("fork, vfork"),
        "{err}"
    );
}

const N: Param<u64> = Param::number(ParamSpec {
    name: "n",
    help: "",
    kind: ParamKind::Count { min: 1, max: 10 },
    quick: "3",
    thorough: "9",
});

#[test]
fn overrides_win_over_defaults() {
    let specs = [N.spec];
    let p = Params::resolve(&specs, Profile::Quick, &[]).unwrap();
    assert_eq!(p.get(&N), 3);
    let p = Params::resolve(&specs, Profile::Thorough, &[]).unwrap();
    assert_eq!(p.get(&N), 9);
    let p = Params::resolve(&specs, Profile::Quick, &[("n".into(), "5".into())]).unwrap();
    assert_eq!(p.get(&N), 5);
    assert!(Params::resolve(&specs, Profile::Quick, &[("n".into(), "11".into())]).is_err());
}

const FLAG: Param<bool> = Param::flag(ParamSpec {
    name: "flag",
    help: "",
    kind: ParamKind::Bool,
    quick: "yes",
    thorough: "no",
});

const WORDS: Param<String> = Param::choice(ParamSpec {
    name: "words",
    help: "",
    kind: ParamKind::Choice(&["on", "off"]),
    quick: "off",
    thorough: "on",
});

#[test]
fn each_param_reads_back_as_its_own_type() {
    let specs = [N.spec, FLAG.spec, WORDS.spec];
    let over = [("words".to_string(), "on".to_string())];
    let p = Params::resolve(&specs, Profile::Thorough, &over).unwrap();
    let (n, flag, words): (u64, bool, String) = (p.get(&N), p.get(&FLAG), p.get(&WORDS));
    assert_eq!((n, flag, words.as_str()), (9, false, "on"));
}

#[test]
fn a_param_of_another_table_reads_as_its_quick_default() {
    let p = Params::resolve(&[N.spec], Profile::Thorough, &[]).unwrap();
    assert!(p.get(&FLAG));
    assert_eq!(p.get(&WORDS), "off");
}
