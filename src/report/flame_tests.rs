use super::*;

fn folded() -> Vec<(String, u64)> {
    vec![
        (
            "entry_SYSCALL_64;do_syscall_64;__do_sys_clone;kernel_clone;copy_process;dup_mmap;copy_page_range"
                .into(),
            347,
        ),
        (
            "entry_SYSCALL_64;do_syscall_64;__do_sys_clone;kernel_clone;copy_process;dup_mmap;__pte_alloc"
                .into(),
            30,
        ),
        ("[user]".into(), 13),
    ]
}

/// The SVG parsed as XML: well-formed, or the test fails saying where.
fn parsed(svg: &str) -> roxmltree::Document<'_> {
    let opt = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    roxmltree::Document::parse_with_options(svg, opt).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_flame_graph_is_well_formed_svg_naming_every_function() {
    let svg = graph("fork", "390 samples in 8 rounds", &folded())
        .unwrap()
        .expect("drawn");
    let doc = parsed(&svg);
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let text: String = doc
        .descendants()
        .filter(|n| n.is_text())
        .filter_map(|n| n.text())
        .collect();
    for f in ["copy_page_range", "dup_mmap", "__pte_alloc", "[user]"] {
        assert!(svg.contains(f), "{f} missing");
    }
    assert!(text.contains("fork") && text.contains("390 samples in 8 rounds"));
    // Interactive: its script and what the script reads.
    assert!(svg.contains("<script") && svg.contains("id=\"frames\""));
}

#[test]
fn the_same_stacks_draw_the_same_svg() {
    let a = graph("t", "s", &folded()).unwrap();
    let mut shuffled = folded();
    shuffled.reverse();
    assert_eq!(a, graph("t", "s", &shuffled).unwrap());
}

#[test]
fn no_stacks_draw_nothing() {
    assert!(graph("t", "s", &[]).unwrap().is_none());
    assert!(graph("t", "s", &[("a;b".into(), 0)]).unwrap().is_none());
    assert!(differential("t", "s", &[], &folded()).unwrap().is_none());
}

#[test]
fn a_differential_graph_is_well_formed_and_names_both_sides_functions() {
    let mut after = folded();
    after[0].1 = 100;
    after.push(("entry_SYSCALL_64;do_syscall_64;__do_sys_clone;kernel_clone;copy_process;dup_mmap;copy_pmd_range_thp".into(), 200));
    let svg = differential("fork, A -> B", "s", &folded(), &after)
        .unwrap()
        .expect("drawn");
    parsed(&svg);
    for f in ["copy_page_range", "copy_pmd_range_thp", "__pte_alloc"] {
        assert!(svg.contains(f), "{f} missing");
    }
}

#[test]
fn a_frame_with_a_space_in_its_name_keeps_its_count() {
    let svg = graph("t", "s", &[("a;b c".into(), 5)]).unwrap().unwrap();
    assert!(svg.contains("b_c"), "{svg:.400}");
    assert!(svg.contains("5 samples"), "{svg:.2000}");
}

#[test]
fn the_frame_is_as_tall_as_the_graph() {
    let svg = graph("t", "s", &folded()).unwrap().unwrap();
    let c = chart("flame-x.svg".into(), "t", "c".into(), svg.clone());
    let doc = parsed(&svg);
    let h: u32 = doc
        .root_element()
        .attribute("height")
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(c.own_page, Some(h));
    assert!(h > 100, "eight frames deep and a title: {h}");
}
