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
        own_page: None,
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
        own_page: None,
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
    d.push(Block::Refs(vec![Ref {
        anchor: "seed-004".into(),
        text: "Sysel: a paper".into(),
        link: None,
    }]));
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

#[test]
fn a_reference_links_its_title_to_the_source_in_both_renderings() {
    let mut d = sample();
    d.push(Block::Refs(vec![Ref {
        anchor: "seed-000".into(),
        text: "B: Eli, \u{201c}On clone\u{201d} (2018)".into(),
        link: Some((
            "\u{201c}On clone\u{201d}".into(),
            "https://x.example/a?b&c".into(),
        )),
    }]));
    let h = d.html();
    assert!(
        h.contains("<li id=\"seed-000\">B: Eli, <a href=\"https://x.example/a?b&amp;c\">\u{201c}On clone\u{201d}</a> (2018)</li>"),
        "{h}"
    );
    let md = d.markdown("");
    assert!(
        md.contains("- B: Eli, [\u{201c}On clone\u{201d}](https://x.example/a?b&c) (2018)"),
        "{md}"
    );
}

#[test]
fn code_is_set_as_code_not_shown_with_its_backticks() {
    let mut d = sample();
    d.push(Block::Para("run `-p a=<1>` or ` alone".into()));
    let h = d.html();
    assert!(
        h.contains("<p>run <code>-p a=&lt;1&gt;</code> or ` alone</p>"),
        "{h}"
    );
    // Markdown keeps its code spans as they are.
    assert!(d.markdown("").contains("run `-p a=<1>` or ` alone"));
}

#[test]
fn the_markdown_summary_is_a_plain_list_not_bold_on_every_line() {
    let mut d = sample();
    d.push(Block::Summary(vec!["one".into(), "two".into()]));
    let md = d.markdown("");
    assert!(md.contains("\n- one\n- two\n"), "{md}");
    assert!(!md.contains("**"), "{md}");
}

#[test]
fn the_page_has_a_dark_scheme_and_a_print_style() {
    let h = sample().html();
    assert!(h.contains("@media screen and (prefers-color-scheme: dark)"));
    assert!(h.contains("@media print"));
    // Every colour the dark scheme changes is a variable the page uses.
    let dark = &STYLE[STYLE.find("prefers-color-scheme: dark").unwrap()..];
    for var in ["--bg:", "--fg:", "--line:", "--bg-soft:", "--head-bg:"] {
        assert!(dark.contains(var), "{var}");
    }
    assert!(
        !STYLE.contains("background: #fff;"),
        "a fixed light background"
    );
}
