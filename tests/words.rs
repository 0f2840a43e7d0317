//! Decisions are taken on types, words are for people: no code decides by
//! matching text against a phrase (`.contains("…")`, `.starts_with("…")`,
//! `.ends_with("…")`, `.strip_prefix("…")`, `.strip_suffix("…")`,
//! `.find("…")`, `.split_once("…")`, or a match arm on a literal of
//! several words). What reads an external format (a /proc or /sys file, a
//! kernel command line, CPUID, a file name tasklab chose, Markdown) is
//! listed below, each with why; everything else is refused, and an entry
//! that no longer matches anything must go.

use std::path::{Path, PathBuf};

/// Where text is parsed, not judged: a folder (ending in `/`) or a file,
/// the literal it matches, and why that is reading a format.
const ALLOWED: &[(&str, &str, &str)] = &[
    (
        "src/sys/",
        "",
        "the kernel's files: /proc, /sys, CPUID flags",
    ),
    (
        "src/env/",
        "",
        "the machine's description: /proc, /sys, DMI, the kernel command line, CPUID",
    ),
    (
        "src/predict/denied.rs",
        "",
        "another process's /proc status, mount options, security label",
    ),
    ("src/run/limits.rs", "Uid", "/proc/self/status"),
    ("src/experiments/switch/go.rs", "cpu ", "/proc/stat"),
    (
        "src/experiments/switch/go.rs",
        ".sha256",
        "the Go program's checksum file, named by tasklab",
    ),
    (
        "src/experiments/spawn/methods.rs",
        "libc.so",
        "a shared object's name in /proc/PID/maps",
    ),
    (
        "src/experiments/spawn/methods.rs",
        "ld-",
        "the dynamic loader's name in /proc/PID/maps",
    ),
    (
        "src/experiments/memory/limits.rs",
        "EAGAIN",
        "an errno's name, as the probe records it",
    ),
    ("src/units.rs", "/s", "a rate as the user types it (10k/s)"),
    (
        "src/report/openmetrics.rs",
        "__",
        "OpenMetrics reserves names that start with __",
    ),
    ("src/report/doc.rs", "- ", "Markdown: a bullet"),
    (
        "src/report/flame.rs",
        "",
        "the SVG inferno writes: its root element and the height it gives it",
    ),
    (
        "src/report/doc.rs",
        ". ",
        "Markdown: a sentence's end, where a heading's anchor stops",
    ),
    (
        "src/report/doc.rs",
        "<svg",
        "an SVG document inlined in HTML",
    ),
    (
        "src/report/folder.rs",
        "",
        "the names of the files tasklab writes in its folder",
    ),
    (
        "src/matrix/inputs.rs",
        "",
        "the names of the results files tasklab writes",
    ),
    ("src/baseline.rs", ".json", "a baseline's file name"),
    (
        "src/experiments/seeds.rs",
        "",
        "'seed NNN' in prose made a link: text turned into text, no decision",
    ),
    (
        "src/results/interruption.rs",
        " of ",
        "a results file of schema 2 or older held an interruption only in words",
    ),
];

const METHODS: &[&str] = &[
    ".contains(\"",
    ".starts_with(\"",
    ".ends_with(\"",
    ".strip_prefix(\"",
    ".strip_suffix(\"",
    ".find(\"",
    ".rfind(\"",
    ".split_once(\"",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// A test file, whose assertions read the words they check.
fn is_test(rel: &str) -> bool {
    rel.ends_with("_tests.rs") || rel.ends_with("/tests.rs") || rel.ends_with("/testing.rs")
}

/// Every literal the source matches text against: (file, line, literal).
fn matches() -> Vec<(String, usize, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let rel = f.strip_prefix(root).unwrap().to_string_lossy().to_string();
        if is_test(&rel) {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            for m in METHODS {
                let mut rest = line;
                while let Some(at) = rest.find(m) {
                    let after = &rest[at + m.len()..];
                    let lit = after.split('"').next().unwrap_or("").to_string();
                    out.push((rel.clone(), i + 1, lit));
                    rest = after;
                }
            }
            // A match arm on a literal of several words.
            if code.starts_with('"') && code.contains("=>") {
                let lit = code[1..].split('"').next().unwrap_or("");
                if lit.contains(' ') {
                    out.push((rel.clone(), i + 1, lit.to_string()));
                }
            }
        }
    }
    out
}

fn allowed(file: &str, lit: &str) -> Option<usize> {
    ALLOWED.iter().position(|(place, what, _)| {
        let here = if place.ends_with('/') {
            file.starts_with(place)
        } else {
            file == *place
        };
        here && (what.is_empty() || lit == *what || (!lit.is_empty() && lit.starts_with(what)))
    })
}

#[test]
fn no_decision_matches_an_english_phrase() {
    let mut bad = Vec::new();
    let mut used = vec![false; ALLOWED.len()];
    for (file, line, lit) in matches() {
        match allowed(&file, &lit) {
            Some(i) => used[i] = true,
            None => bad.push(format!("{file}:{line}: matches \"{lit}\"")),
        }
    }
    assert!(
        bad.is_empty(),
        "decided by matching words (decide on a type, or list a format read here, with why):\n{}",
        bad.join("\n")
    );
    let stale: Vec<&str> = ALLOWED
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|((p, w, _), _)| if w.is_empty() { *p } else { *w })
        .collect();
    assert!(
        stale.is_empty(),
        "allowed, but no longer matched: {stale:?}"
    );
}

#[test]
fn the_checker_sees_what_it_must() {
    // The phrases this test was written against, in the forms they took.
    let m = matches();
    assert!(m
        .iter()
        .any(|(f, _, l)| f == "src/run/limits.rs" && l == "Uid:"));
    assert!(allowed("src/compare/render.rs", "regressed").is_none());
    assert!(allowed("src/sys/procfs.rs", "cpu ").is_some());
}
