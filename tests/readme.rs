//! The README a newcomer reads: short, the two commands first, every
//! relative link (in it and in docs/) pointing at a file that exists, and
//! its figures in the blocks `bench/readme-figures.sh` rewrites.

use std::path::{Path, PathBuf};

/// Documents other work is writing; each may be missing until it lands.
/// Remove a name once its file is in the repository.
const PENDING: &[&str] = &[];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The targets of the Markdown links and images `[text](target)` in `text`.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        if let Some(end) = rest.find(')') {
            out.push(rest[..end].to_string());
            rest = &rest[end..];
        }
    }
    out
}

/// `target` as a path from the repository's root, for a link in `from`;
/// None for a web address or an anchor in the same page.
fn resolve(from: &str, target: &str) -> Option<String> {
    if target.contains("://") || target.starts_with('#') || target.starts_with("mailto:") {
        return None;
    }
    let path = target.split('#').next().unwrap_or(target);
    let base = Path::new(from).parent().unwrap_or(Path::new(""));
    let mut parts: Vec<String> = Vec::new();
    for c in base.join(path).components() {
        match c {
            std::path::Component::ParentDir => {
                parts.pop();
            }
            std::path::Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
            _ => {}
        }
    }
    Some(parts.join("/"))
}

#[test]
fn every_relative_link_points_to_a_file() {
    let mut pages = vec!["README.md".to_string()];
    for entry in std::fs::read_dir(root().join("docs")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") {
            pages.push(format!("docs/{name}"));
        }
    }
    let mut checked = 0;
    for page in &pages {
        for target in links(&read(page)) {
            let Some(path) = resolve(page, &target) else {
                continue;
            };
            checked += 1;
            if PENDING.contains(&path.as_str()) {
                continue;
            }
            assert!(
                root().join(&path).exists(),
                "{page} links to {target}, which does not exist"
            );
        }
    }
    assert!(
        checked >= 8,
        "only {checked} relative links found: is the link parser broken?"
    );
}

#[test]
fn the_readme_is_short_and_starts_with_the_two_commands() {
    let text = read("README.md");
    assert!(
        text.len() <= 12 * 1024,
        "README.md is {} bytes, over 12 KiB",
        text.len()
    );
    let first: Vec<&str> = text.lines().take(8).collect();
    for command in ["cargo run --release", "cargo test"] {
        assert!(
            first.iter().any(|l| l.starts_with(command)),
            "'{command}' is not in the README's first lines"
        );
    }
    assert!(text.contains("tasklab run spawn.methods") || text.contains("run spawn.methods"));
}

#[test]
fn the_readme_figures_sit_in_the_blocks_the_script_rewrites() {
    let text = read("README.md");
    let script = read("bench/readme-figures.sh");
    for name in ["time", "run", "advise"] {
        let open = format!("<!-- figures:{name} -->");
        let close = format!("<!-- /figures:{name} -->");
        let (Some(a), Some(b)) = (text.find(&open), text.find(&close)) else {
            panic!("README.md has no {open} ... {close} block");
        };
        assert!(a < b, "{open} after its end");
        assert!(
            b > a + open.len(),
            "the {name} block is empty: run bench/readme-figures.sh"
        );
        assert!(
            script.contains(&format!("\"{name}\":")),
            "the script does not write {name}"
        );
    }
    assert!(root().join("docs/img/launch-vs-heap.svg").exists());
}
