//! The crate's source files as the house rules read them.

use std::path::{Path, PathBuf};

pub fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// Test modules live in `tests.rs` or `*_tests.rs` beside their module.
pub fn is_test_file(rel: &str) -> bool {
    rel.ends_with("/tests.rs") || rel.ends_with("_tests.rs") || rel == "tests.rs"
}

/// Every file under `src/` (a test file aside), relative to `src/`.
pub fn source_files() -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let mut all = Vec::new();
    walk(&src(), &mut all);
    let mut rel: Vec<String> = all
        .iter()
        .map(|p| {
            p.strip_prefix(src())
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .filter(|r| !is_test_file(r))
        .collect();
    rel.sort();
    rel
}
