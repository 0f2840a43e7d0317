use super::*;

#[test]
fn list_is_in_words_within_100_columns() {
    let text = list_text(LIST_WIDTH);
    for line in text.lines() {
        assert!(
            line.chars().count() <= 100,
            "{} columns: {line}",
            line.chars().count()
        );
    }
    for internal in ["..=", "listed as", "quick list of"] {
        assert!(!text.contains(internal), "'{internal}' in tasklab list");
    }
    for e in REGISTRY.iter() {
        assert_eq!(
            text.contains(&format!("  {}\n", e.name)),
            !e.hidden,
            "{}",
            e.name
        );
        // A hidden experiment (the selftests) is not listed, nor its parameters.
        for p in e.params.iter().filter(|_| !e.hidden) {
            assert!(
                text.contains(&format!("-p {}=", p.name)),
                "{}.{}",
                e.name,
                p.name
            );
        }
    }
    assert!(
        text.contains("a list of sizes, each 0 B to 1 TiB"),
        "{text}"
    );
}
