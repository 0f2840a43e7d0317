//! Parameters and experiment names are declared once and read through the
//! declaration: no code reads a parameter by its name (`p.int("jobs")`,
//! `user_set` matched against a word), and no string literal spells an
//! experiment's name outside that experiment's record (`name: "spawn.cow"`
//! in its `EXPERIMENT`). Read from the source text, as
//! `tests/architecture.rs` reads the floors; test files are exempt.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The getters a parameter was once read with by name.
const GETTERS: &[&str] = &[
    "int", "list", "flag", "text", "names", "float", "str", "bool", "0.get",
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every non-test `.rs` file under `src/`, by its path from there.
fn sources() -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "rs") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&src(), &mut files);
    let mut out: Vec<(String, String)> = files
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(src())
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, std::fs::read_to_string(&p).unwrap())
        })
        .filter(|(rel, _)| !is_test_file(rel))
        .collect();
    out.sort();
    out
}

fn is_test_file(rel: &str) -> bool {
    rel.ends_with("/tests.rs") || rel.ends_with("_tests.rs") || rel == "tests.rs"
}

/// A string literal: where it starts in the text, and what it holds
/// (escapes left as written).
struct Literal<'a> {
    at: usize,
    text: &'a str,
}

/// The code without its comments (each replaced by a space), and the
/// string literals in it, raw strings included; char literals are skipped
/// so that `'"'` opens nothing.
fn scan(text: &str) -> (String, Vec<Literal<'_>>) {
    let b = text.as_bytes();
    let mut code = String::with_capacity(text.len());
    let mut lits = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let ident_before = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            code.push(' ');
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
            code.push(' ');
        } else if b[i] == b'r'
            && !ident_before
            && matches!(b.get(i + 1), Some(b'"' | b'#'))
            && text[i + 1..].trim_start_matches('#').starts_with('"')
        {
            let hashes = text[i + 1..].len() - text[i + 1..].trim_start_matches('#').len();
            let open = i + 1 + hashes + 1;
            let close = format!("\"{}", "#".repeat(hashes));
            let end = text[open..].find(&close).map_or(b.len(), |k| open + k);
            code.push_str(&text[i..end + close.len().min(b.len() - end)]);
            lits.push(Literal {
                at: i,
                text: &text[open..end],
            });
            i = end + close.len();
        } else if b[i] == b'"' {
            let open = i + 1;
            let mut j = open;
            while j < b.len() && b[j] != b'"' {
                if b[j] == b'\\' {
                    j += 1;
                }
                j += 1;
            }
            let end = j.min(b.len());
            code.push_str(&text[i..(end + 1).min(b.len())]);
            lits.push(Literal {
                at: i,
                text: &text[open..end],
            });
            i = end + 1;
        } else if b[i] == b'\'' && (b.get(i + 2) == Some(&b'\'') || b.get(i + 1) == Some(&b'\\')) {
            let end = text[i + 1..].find('\'').map_or(b.len(), |k| i + 1 + k + 1);
            code.push_str("' '");
            i = end;
        } else {
            let c = text[i..].chars().next().unwrap();
            code.push(c);
            i += c.len_utf8();
        }
    }
    (code, lits)
}

fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// Each experiment's name, from its record: the first `name: "…"` after
/// `static EXPERIMENT: Experiment`, with the file and the place it is at.
fn records(files: &[(String, String)]) -> BTreeMap<String, (String, usize)> {
    let mut out = BTreeMap::new();
    for (rel, text) in files.iter().filter(|(r, _)| r.starts_with("experiments/")) {
        let Some(start) = text.find("static EXPERIMENT: Experiment") else {
            continue;
        };
        let (_, lits) = scan(text);
        let field = lits
            .iter()
            .find(|l| l.at > start && text[..l.at].trim_end().ends_with("name:"))
            .unwrap_or_else(|| panic!("{rel}: an EXPERIMENT with no name"));
        let old = out.insert(field.text.to_string(), (rel.clone(), field.at));
        assert!(old.is_none(), "{} is named twice", field.text);
    }
    out
}

/// `.int("jobs")`-style reads: a getter called with one literal that is a
/// parameter-like word, in code with its comments removed.
fn reads_by_name(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for g in GETTERS {
        let call = format!(".{g}(\"");
        for (i, _) in code.match_indices(&call) {
            let rest = &code[i + call.len()..];
            let word: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            if !word.is_empty() && rest[word.len()..].starts_with("\")") {
                out.push(format!("line {}: .{g}(\"{word}\")", line_of(code, i)));
            }
        }
    }
    for (n, line) in code.lines().enumerate() {
        if line.contains("user_set") && line.contains('"') {
            out.push(format!("line {}: {}", n + 1, line.trim()));
        }
    }
    out
}

#[test]
fn no_parameter_is_read_by_its_name() {
    let mut found = Vec::new();
    for (rel, text) in sources() {
        let (code, _) = scan(&text);
        for r in reads_by_name(&code) {
            found.push(format!("{rel} {r}"));
        }
    }
    assert!(
        found.is_empty(),
        "declare the parameter as a Param constant and read it with params.get(&X_PARAM) \
         (or ctx.set_by_user(&X_PARAM)):\n{}",
        found.join("\n")
    );
}

#[test]
fn experiment_names_are_spelled_only_in_their_records() {
    let files = sources();
    let names = records(&files);
    assert!(names.len() >= 20, "the records were not found: {names:?}");
    let mut found = Vec::new();
    for (rel, text) in &files {
        let (_, lits) = scan(text);
        for l in lits {
            let Some((home, at)) = names.get(l.text) else {
                continue;
            };
            if home == rel && *at == l.at {
                continue;
            }
            found.push(format!(
                "{rel} line {}: \"{}\"",
                line_of(text, l.at),
                l.text
            ));
        }
    }
    assert!(
        found.is_empty(),
        "name the experiment by its record (`heap::EXPERIMENT.name`, or take the \
         `&Experiment`):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scanner_sees_what_it_must() {
    let text = "let a = p.int(\"jobs\"); // p.list(\"cpus\")\n\
                let b = self.list(\"\", items); let c = '\"';\n\
                let d = r#\"spawn.cow\"#; /* \"switch.echo\" */ let e = \"x\\\"y\";\n\
                if ctx.user_set.iter().any(|n| n == \"heap\") {}\n";
    let (code, lits) = scan(text);
    let texts: Vec<&str> = lits.iter().map(|l| l.text).collect();
    assert_eq!(texts, ["jobs", "", "spawn.cow", "x\\\"y", "heap"]);
    let reads = reads_by_name(&code);
    assert_eq!(reads.len(), 2, "{reads:?}");
    assert!(reads[0].contains(".int(\"jobs\")"), "{reads:?}");
    assert!(reads[1].starts_with("line 4:"), "{reads:?}");
}
