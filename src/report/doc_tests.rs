use super::*;

fn sample() -> Doc {
    let mut d = Doc {
        title: "t <1>".into(),
        blocks: vec![],
        links: vec![("Sysel".into(), "seed-004".into())],
    };
    d.heading(1, "Group | A", "a");
    d.push(Block::Table(Table {
        head: vec!["x".into(), "y".into()],
        rows: vec![vec!["a|b".into(), "<i>".into()]],
        right: vec![1],
    }));
    d.push(Block::Chart(Chart {
        file: "chart-x.svg".into(),
        title: "X".into(),
        caption: "c".into(),
        svg: "<?xml version=\"1.0\"?>\n<svg></svg>".into(),
    }));
    d
}

#[test]
fn markdown_escapes_pipes_and_links_charts() {
    let md = sample().markdown("");
    assert!(md.contains("| a\\|b | <i> |"), "{md}");
    assert!(md.contains("| --- | ---: |"));
    assert!(md.contains("![X](chart-x.svg)"));
}

#[test]
fn html_escapes_text_and_inlines_charts_without_prolog() {
    let h = sample().html();
    assert!(h.contains("<title>t &lt;1&gt;</title>"));
    assert!(h.contains("<td class=\"num\">&lt;i&gt;</td>"));
    assert!(h.contains("<div class=\"chart\"><svg></svg></div>"));
    assert!(!h.contains("<?xml"));
    assert!(h.contains("<a href=\"#a\">Group | A</a>"));
}

#[test]
fn a_caption_shows_its_first_sentence_and_folds_the_rest() {
    assert_eq!(
        first_sentence("Medians, e.g. of rounds. Whiskers: 95%. Dashed: ideal."),
        ("Medians, e.g. of rounds.", "Whiskers: 95%. Dashed: ideal.")
    );
    assert_eq!(first_sentence("One sentence."), ("One sentence.", ""));
    assert_eq!(
        first_sentence("At 2.5 µs. 3 more."),
        ("At 2.5 µs.", "3 more.")
    );
    let mut d = sample();
    d.push(Block::Chart(Chart {
        file: "chart-y.svg".into(),
        title: "Y".into(),
        caption: "First. Second.".into(),
        svg: "<svg></svg>".into(),
    }));
    let h = d.html();
    assert!(h.contains("<figcaption><b>X.</b> c</figcaption>"), "{h}");
    assert!(
        h.contains("<figcaption><details class=\"caption\"><summary><b>Y.</b> First. <span class=\"more\">More</span></summary>Second.</details></figcaption>"),
        "{h}"
    );
    // Markdown keeps the whole caption.
    assert!(d.markdown("").contains("*First. Second.*"));
}

#[test]
fn details_close_their_blocks_and_labels_link_to_their_reference() {
    let mut d = sample();
    d.push(Block::Details(
        "Table <x>".into(),
        vec![Block::Aside("as Sysel & others".into())],
    ));
    d.push(Block::Refs(vec![(
        "seed-004".into(),
        "Sysel: a paper".into(),
    )]));
    let h = d.html();
    assert!(
        h.contains("<details>\n<summary>Table &lt;x&gt;</summary>\n"),
        "{h}"
    );
    assert!(h.contains("as <a href=\"#seed-004\">Sysel</a> &amp; others</p>\n</details>"));
    assert!(h.contains("<li id=\"seed-004\">Sysel: a paper</li>"));
    // Markdown shows what a details block holds, without the wrapper.
    let md = d.markdown("");
    assert!(md.contains("<sub>as Sysel & others</sub>") && !md.contains("details"));
    assert_eq!(d.charts().count(), 1);
}
