//! The house keeps its floors: a file imports only from floors below it,
//! no two files import each other in a circle, and no source file grows
//! past 800 lines. Read from the source text, so it fails the moment a
//! change breaks a rule (docs/ARCHITECTURE.md draws the floors).

mod common;

use common::source::{is_test_file, rust_files, source_files, src};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The floors, top to bottom: each a list of top-level modules (a folder
/// under `src/` or a file at its top, named without `.rs`). A file imports
/// only from its own floor or the floors below it; docs/ARCHITECTURE.md
/// draws them in this order. A new module takes its place here.
const FLOORS: &[&[&str]] = &[
    // dispatch only
    &["main", "lib"],
    // the commands nothing else imports
    &[
        "show",
        "demo",
        "manpage",
        "advise",
        "calibrate",
        "ab",
        "predict",
        "matrix",
    ],
    // the commands others build on
    &["run", "compare"],
    &["baseline"],
    &["report"],
    // the clap definitions: every command reads them, they import nothing
    &["cli"],
    // the line: nothing below imports what is above it
    &["experiments"],
    &["measure"],
    &["results"],
    &["metric"],
    &["stats"],
    &["env"],
    &["units", "error", "paint"],
    &["sys"],
];

/// The first floor below the line: the floors from here down never import
/// a command, the report or the command line.
const LINE: usize = 6;

const MAX_LINES: usize = 800;

/// The module path of a file: `experiments/spawn/heap.rs` -> [experiments, spawn, heap].
fn module_of(rel: &str) -> Vec<String> {
    let no_ext = rel.trim_end_matches(".rs");
    let mut parts: Vec<String> = no_ext.split('/').map(String::from).collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The file that defines module `m`, if there is one.
fn file_of(m: &[String], files: &BTreeSet<String>) -> Option<String> {
    if m.is_empty() {
        return Some("lib.rs".into());
    }
    let base = m.join("/");
    [format!("{base}.rs"), format!("{base}/mod.rs")]
        .into_iter()
        .find(|f| files.contains(f))
}

/// Removes comments and the contents of string and char literals, so that
/// paths in docs or messages are not taken for imports.
fn strip(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
        } else if b[i] == b'"' {
            out.push('"');
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            out.push('"');
            i += 1;
        } else if b[i] == b'\'' && (b.get(i + 2) == Some(&b'\'') || (b.get(i + 1) == Some(&b'\\')))
        {
            // a char literal: 'x' or '\n'
            let end = text[i + 1..].find('\'').map_or(b.len(), |k| i + 1 + k + 1);
            out.push_str("' '");
            i = end;
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

/// Expands `a::{b, c::{d, e}}` into `a::b`, `a::c::d`, `a::c::e`.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let path = tree.split(" as ").next().unwrap_or("").trim();
        return vec![path.to_string()];
    };
    let prefix = tree[..open].trim().trim_end_matches("::");
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (k, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .flat_map(expand)
        .map(|p| {
            if p == "self" {
                prefix.to_string()
            } else if prefix.is_empty() {
                p
            } else {
                format!("{prefix}::{p}")
            }
        })
        .collect()
}

/// Every `crate::`/`super::`/`self::` path the code names.
fn paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    // use statements, braces expanded
    let mut rest = code;
    while let Some(k) = rest.find("use ") {
        let before = rest[..k].chars().last();
        rest = &rest[k + 4..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let end = rest.find(';').unwrap_or(rest.len());
        out.extend(expand(&rest[..end]));
        rest = &rest[end..];
    }
    // paths written inline
    let bytes = code.as_bytes();
    for start in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(k) = code[from..].find(start) {
            let at = from + k;
            from = at + start.len();
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
                continue;
            }
            let len = code[at..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(code.len() - at);
            out.push(code[at..at + len].trim_end_matches(':').to_string());
        }
    }
    out.into_iter()
        .filter(|p| p.starts_with("crate") || p.starts_with("super") || p.starts_with("self"))
        .collect()
}

/// The file each path lands in: the deepest module the path names that has
/// a file of its own.
fn resolve(
    from: &[String],
    from_is_mod: bool,
    path: &str,
    files: &BTreeSet<String>,
) -> Option<String> {
    let segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    // the module `self` refers to: a file's own module
    let mut base: Vec<String> = from.to_vec();
    let mut i = 0;
    match segs.first().copied() {
        Some("crate") => {
            base.clear();
            i = 1;
        }
        Some("self") => i = 1,
        Some("super") => {
            while segs.get(i) == Some(&"super") {
                base.pop();
                i += 1;
            }
        }
        _ => return None,
    }
    let _ = from_is_mod;
    let mut best = file_of(&base, files);
    let mut m = base;
    for s in &segs[i..] {
        m.push(s.to_string());
        match file_of(&m, files) {
            Some(f) => best = Some(f),
            None => break,
        }
    }
    best
}

struct House {
    /// file -> files it imports
    edges: BTreeMap<String, BTreeSet<String>>,
    lines: BTreeMap<String, usize>,
}

fn house() -> House {
    let mut all = Vec::new();
    rust_files(&src(), &mut all);
    let rel = |p: &Path| {
        p.strip_prefix(src())
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/")
    };
    let files: BTreeSet<String> = all.iter().map(|p| rel(p)).collect();
    let mut edges = BTreeMap::new();
    let mut lines = BTreeMap::new();
    for p in &all {
        let r = rel(p);
        let text = std::fs::read_to_string(p).unwrap();
        lines.insert(r.clone(), text.lines().count());
        if is_test_file(&r) {
            continue;
        }
        // a module's inline tests are not part of the house
        let code = match text.find("#[cfg(test)]\nmod tests {") {
            Some(k) => &text[..k],
            None => &text[..],
        };
        let module = module_of(&r);
        let is_mod = r.ends_with("mod.rs") || r == "lib.rs";
        let mut to = BTreeSet::new();
        for path in paths(&strip(code)) {
            if let Some(f) = resolve(&module, is_mod, &path, &files) {
                if f != r {
                    to.insert(f);
                }
            }
        }
        edges.insert(r, to);
    }
    House { edges, lines }
}

/// The top-level module a file is in: `experiments` for
/// `experiments/spawn/heap.rs`, `units` for `units.rs`.
fn top_module(file: &str) -> &str {
    file.split('/')
        .next()
        .unwrap_or(file)
        .trim_end_matches(".rs")
}

/// The floor a file is on: its index in [`FLOORS`], 0 the top.
fn floor_of(file: &str) -> Option<usize> {
    let m = top_module(file);
    FLOORS.iter().position(|f| f.contains(&m))
}

#[test]
fn every_file_is_on_a_floor() {
    let h = house();
    let lost: Vec<&String> = h.edges.keys().filter(|f| floor_of(f).is_none()).collect();
    assert!(
        lost.is_empty(),
        "give these modules a floor in FLOORS (and in docs/ARCHITECTURE.md): {lost:?}"
    );
}

/// No arrow up: a file imports only from its own floor and those below.
#[test]
fn no_file_imports_from_a_floor_above_it() {
    let h = house();
    let mut bad = Vec::new();
    for (from, to) in &h.edges {
        let Some(f) = floor_of(from) else { continue };
        for t in to {
            if floor_of(t).is_some_and(|g| g < f) {
                let below = if f >= LINE && floor_of(t).is_some_and(|g| g < LINE) {
                    " (across the line)"
                } else {
                    ""
                };
                bad.push(format!("{from} imports {t}, a floor above it{below}"));
            }
        }
    }
    assert!(bad.is_empty(), "floors crossed:\n{}", bad.join("\n"));
}

#[test]
fn the_command_line_definition_imports_nothing_from_the_house() {
    let h = house();
    let to = &h.edges["cli.rs"];
    assert!(to.is_empty(), "cli.rs imports {to:?}");
}

/// Strongly connected components (Tarjan) of more than one file.
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct T<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        t.index.insert(v, t.next);
        t.low.insert(v, t.next);
        t.next += 1;
        t.stack.push(v);
        t.on.insert(v);
        if let Some(ws) = t.edges.get(v) {
            for w in ws {
                let w = w.as_str();
                if !t.index.contains_key(w) {
                    visit(t, w);
                    let lw = t.low[w];
                    let lv = t.low.get_mut(v).unwrap();
                    *lv = (*lv).min(lw);
                } else if t.on.contains(w) {
                    let iw = t.index[w];
                    let lv = t.low.get_mut(v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.push(comp);
            }
        }
    }
    let mut t = T {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out
}

#[test]
fn no_two_files_import_each_other_in_a_circle() {
    let h = house();
    let found = cycles(&h.edges);
    let text: Vec<String> = found.iter().map(|c| c.join(" -> ")).collect();
    assert!(found.is_empty(), "import cycles:\n{}", text.join("\n"));
}

#[test]
fn no_source_file_is_over_800_lines() {
    let h = house();
    let long: Vec<String> = h
        .lines
        .iter()
        .filter(|(_, n)| **n > MAX_LINES)
        .map(|(f, n)| format!("{f}: {n} lines"))
        .collect();
    assert!(long.is_empty(), "split these:\n{}", long.join("\n"));
}

/// The integration tests keep the same limit (STYLE: files stay small):
/// every Rust file under `tests/`.
#[test]
fn no_test_file_is_over_800_lines() {
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests"),
        &mut files,
    );
    assert!(files.len() > 10, "the tests folder was read");
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let n = std::fs::read_to_string(f).unwrap().lines().count();
            (n > MAX_LINES).then(|| format!("{}: {n} lines", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "split these:\n{}", long.join("\n"));
}

/// Whether code (comments and strings stripped) holds an inline test
/// module, `mod tests { ... }`, rather than `mod tests;` naming a file.
fn has_inline_tests(code: &str) -> bool {
    code.match_indices("mod tests").any(|(i, m)| {
        let before = code[..i].chars().next_back();
        let whole = !before.is_some_and(|c| c.is_alphanumeric() || c == '_');
        whole && code[i + m.len()..].trim_start().starts_with('{')
    })
}

/// Unit tests live in a sibling `<file>_tests.rs` (or a folder's
/// `tests.rs`) pulled in with `#[cfg(test)] #[path = ...] mod tests;`,
/// never inline (docs/CONTRIBUTING.md).
#[test]
fn no_source_file_holds_its_tests_inline() {
    let inline: Vec<String> = source_files()
        .into_iter()
        .filter(|f| f.ends_with(".rs"))
        .filter(|f| {
            let text = std::fs::read_to_string(src().join(f)).unwrap();
            has_inline_tests(&strip(&text))
        })
        .collect();
    assert!(
        inline.is_empty(),
        "move these files' `mod tests {{ ... }}` into a sibling `<file>_tests.rs`:\n{}",
        inline.join("\n")
    );
}

#[test]
fn the_checker_sees_what_it_must() {
    // braces, renames and `self` expand to full paths
    assert_eq!(
        expand("crate::{run, report::{self, table as t}}"),
        vec!["crate::run", "crate::report", "crate::report::table"]
    );
    // comments and strings are not imports; inline paths are
    let code = strip("// crate::run\nlet s = \"crate::report\"; crate::cli::Cli::parse();");
    assert_eq!(paths(&code), vec!["crate::cli::Cli::parse"]);
    // a cycle of two is found, a chain is not
    let mut e = BTreeMap::new();
    e.insert("a.rs".to_string(), BTreeSet::from(["b.rs".to_string()]));
    e.insert("b.rs".to_string(), BTreeSet::from(["a.rs".to_string()]));
    e.insert("c.rs".to_string(), BTreeSet::from(["a.rs".to_string()]));
    assert_eq!(
        cycles(&e),
        vec![vec!["a.rs".to_string(), "b.rs".to_string()]]
    );
    // paths land in the deepest file that exists
    let files: BTreeSet<String> = ["lib.rs", "report/mod.rs", "report/table.rs", "units.rs"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let m = module_of("report/doc.rs");
    assert_eq!(
        resolve(&m, false, "super::table::case", &files).as_deref(),
        Some("report/table.rs")
    );
    assert_eq!(
        resolve(&m, false, "crate::units::fmt_ns", &files).as_deref(),
        Some("units.rs")
    );
    assert_eq!(
        resolve(&m, false, "super::Format", &files).as_deref(),
        Some("report/mod.rs")
    );
    // floors by top-level module, the line between report and experiments
    assert_eq!(top_module("report/charts/speedup.rs"), "report");
    assert_eq!(top_module("units.rs"), "units");
    assert!(floor_of("experiments/spawn/heap.rs").unwrap() >= LINE);
    assert!(floor_of("report/mod.rs").unwrap() < LINE && floor_of("cli.rs").unwrap() < LINE);
    assert!(floor_of("matrix/rows.rs") < floor_of("report/openmetrics.rs"));
    assert_eq!(floor_of("nowhere.rs"), None);
    // an inline test module is found, a file's `mod tests;` and prose are not
    assert!(has_inline_tests(
        "#[cfg(test)]\nmod tests {\n    use super::*;\n}"
    ));
    assert!(has_inline_tests("mod tests{}"));
    assert!(!has_inline_tests(
        "#[cfg(test)]\n#[path = \"a_tests.rs\"]\nmod tests;"
    ));
    assert!(!has_inline_tests("mod more_tests {}"));
    assert!(!has_inline_tests(&strip(
        "// mod tests { here }\nlet s = \"mod tests {\";"
    )));
}

/// Whether `word` stands in `text` as a whole word: not inside a longer
/// identifier or path (`heap` is not in `heap_untouched.rs` or `spawn/heap`).
fn has_word(text: &str, word: &str) -> bool {
    let part = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '/';
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(part)
            && !after.is_some_and(|c| part(c) || (c == '.' && !word.contains('.')))
    })
}

/// The floor map's entries: each folder's text (its line, the lines under it,
/// its nested files), keyed by its path relative to `src/` ("" for the files
/// at the top). A line at column 0 opens an entry: a folder (`run/`) or top
/// files (`units.rs, error.rs`); a line indented by two opens a subfolder of
/// the last folder (`  spawn/`) or names more of its files (`  mod.rs`); a
/// deeper line continues the entry above; the rule line closes it.
fn map_entries(doc: &str) -> BTreeMap<String, String> {
    let block = doc
        .split("```text\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("docs/ARCHITECTURE.md has the floor map in a ```text block");
    let mut entries: BTreeMap<String, String> = BTreeMap::new();
    // The folders open at each depth (0, 2 and 4 spaces of indent).
    let mut open: [Option<String>; 3] = [None, None, None];
    let mut current: Option<String> = None;
    for line in block.lines() {
        let indent = line.len() - line.trim_start().len();
        let name = line.trim_start().split("  ").next().unwrap_or("");
        if line.starts_with('─') {
            (open, current) = ([None, None, None], None);
        } else if indent == 0 && !line.is_empty() {
            let folder = name.strip_suffix('/').map(String::from);
            open = [folder.clone(), None, None];
            current = Some(folder.unwrap_or_default());
        } else if indent == 2 || indent == 4 {
            let depth = indent / 2;
            let parent = open[depth - 1].clone();
            current = match (name.strip_suffix('/'), &parent) {
                (Some(sub), Some(t)) => Some(format!("{t}/{sub}")),
                (None, Some(t)) => Some(t.clone()),
                _ => None,
            };
            open[depth] = name.strip_suffix('/').and(current.clone());
        }
        if let Some(c) = &current {
            let text = entries.entry(c.clone()).or_default();
            text.push_str(line);
            text.push('\n');
        }
    }
    entries
}

/// docs/ARCHITECTURE.md names every file under `src/` but the test files
/// (`tests.rs`, `*_tests.rs`), so the map stays true. A file is named when
/// the document holds its path relative to `src/` (`run/plan.rs`), or when
/// the floor map's entry for its folder names it: by its file name
/// (`plan.rs`) or its bare stem as a word (`clock, clone, futex`). A
/// folder's `mod.rs` is named by the folder's entry itself; a file at the
/// top of `src/` must be named with its extension (`units.rs`).
#[test]
fn the_map_names_every_source_file() {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ARCHITECTURE.md"))
            .unwrap();
    let entries = map_entries(&doc);
    let named = |rel: &str| {
        if has_word(&doc, rel) || has_word(&doc, &format!("src/{rel}")) {
            return true;
        }
        let (folder, file) = rel.rsplit_once('/').unwrap_or(("", rel));
        let Some(text) = entries.get(folder) else {
            return false;
        };
        let stem = file.split('.').next().unwrap_or(file);
        has_word(text, file) || (!folder.is_empty() && (stem == "mod" || has_word(text, stem)))
    };
    let missing: Vec<String> = source_files().into_iter().filter(|f| !named(f)).collect();
    assert!(
        missing.is_empty(),
        "docs/ARCHITECTURE.md does not name these files (see the rule in this test):\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_map_checker_reads_the_map_as_drawn() {
    let doc = "```text\nmain.rs, lib.rs   dispatch\nrun/              plan.rs,\n                  execute.rs\n──────\nsys/              clock, clone\n  inner/          deep.rs\nunits.rs          units\n```\n";
    let e = map_entries(doc);
    assert!(has_word(&e[""], "lib.rs") && has_word(&e[""], "units.rs"));
    assert!(has_word(&e["run"], "execute.rs") && !e["run"].contains("clock"));
    assert!(has_word(&e["sys"], "clone") && has_word(&e["sys/inner"], "deep.rs"));
    assert!(!has_word("heap_untouched.rs, spawn/heap", "heap"));
    assert!(!has_word("heap.rs", "heap") && has_word("heap, cow", "heap"));
    assert!(has_word("`src/run/plan.rs`", "src/run/plan.rs"));
    assert!(!has_word("src/run/plan.rs", "run/plan.rs"));
}

/// The worked example in docs/ARCHITECTURE.md is the code as it is:
/// yardstick.syscall's file, complete, and its series' declaration.
#[test]
fn the_worked_example_is_the_current_code() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).unwrap();
    let file = std::fs::read_to_string(src().join("experiments/yardstick/syscall.rs")).unwrap();
    assert!(
        doc.contains(&format!("```rust\n{file}```")),
        "docs/ARCHITECTURE.md's worked example is not src/experiments/yardstick/syscall.rs"
    );
    let group = std::fs::read_to_string(src().join("experiments/yardstick/mod.rs")).unwrap();
    let spec = group
        .split("\n\n")
        .find(|block| block.contains("pub const CALL_NS: MetricSpec"))
        .expect("yardstick/mod.rs declares CALL_NS");
    assert!(
        doc.contains(spec),
        "docs/ARCHITECTURE.md does not show CALL_NS as declared"
    );
}

/// The section of docs/ARCHITECTURE.md under `## {title}`, up to the next
/// `## ` heading.
fn section<'a>(doc: &'a str, title: &str) -> &'a str {
    let start = doc
        .find(&format!("\n## {title}\n"))
        .unwrap_or_else(|| panic!("docs/ARCHITECTURE.md has a `## {title}` section"));
    let body = &doc[start + 1..];
    let end = body[3..].find("\n## ").map_or(body.len(), |e| e + 4);
    &body[..end]
}

/// The map opens the document in one screen: the floors in at most 30
/// lines, the whole opening (floors, start here, data paths) in at most 70,
/// before the index starts; the floors table names every module of
/// [`FLOORS`].
#[test]
fn the_map_opens_in_one_screen() {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ARCHITECTURE.md"))
            .unwrap();
    let floors = section(&doc, "The floors");
    assert!(
        floors.lines().count() <= 30,
        "the floors take {} lines, at most 30",
        floors.lines().count()
    );
    let opening = doc
        .split("\n## The index")
        .next()
        .expect("docs/ARCHITECTURE.md has a `## The index` section");
    assert!(
        opening.lines().count() <= 70,
        "the map takes {} lines before the index, at most 70",
        opening.lines().count()
    );
    let unnamed: Vec<&str> = FLOORS
        .iter()
        .flat_map(|f| f.iter().copied())
        .filter(|m| !floors.contains(&format!("`{m}`")) && !floors.contains(&format!("`{m}.rs`")))
        .collect();
    assert!(
        unnamed.is_empty(),
        "the floors table does not name {unnamed:?}"
    );
}

/// Every path the start-here table and the data paths name exists (a path is
/// a backticked word with a `/` or a file extension; one with a `<placeholder>`
/// is checked up to it).
#[test]
fn the_start_here_paths_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).unwrap();
    let mut missing = Vec::new();
    let mut seen = 0;
    for (title, base) in [("Start here", ""), ("Each command's data path", "src/")] {
        for (i, word) in section(&doc, title).split('`').enumerate() {
            let is_path = word.contains('/')
                || [".rs", ".md", ".py", ".tsv"]
                    .iter()
                    .any(|e| word.ends_with(e));
            if i % 2 == 0 || !is_path || word.contains(' ') || word.contains("::") {
                continue;
            }
            let word = word.split('<').next().unwrap_or(word);
            let path = if word.starts_with("src/")
                || word.starts_with("tests/")
                || word.starts_with("docs/")
                || word.starts_with("deploy/")
            {
                root.join(word)
            } else {
                root.join(base).join(word)
            };
            seen += 1;
            if !path.exists() {
                missing.push(word.to_string());
            }
        }
    }
    assert!(seen > 20, "the checker found only {seen} paths in the map");
    assert!(
        missing.is_empty(),
        "docs/ARCHITECTURE.md names paths that do not exist: {missing:?}"
    );
}
