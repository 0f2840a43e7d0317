//! Functions stay short: over 100 lines is the exception under `src/`
//! (at most 1% of them), and never in the folders every change passes
//! through. Read from the source text, as tests/architecture.rs reads the
//! floors.

mod common;

use common::source::{source_files, src};

/// At most this share of the functions under `src/` is over
/// [`MAX_FN_LINES`] lines (in percent).
const MAX_LONG_FN_PCT: f64 = 1.0;
const MAX_FN_LINES: usize = 100;
/// The folders every change passes through hold no long function.
const NO_LONG_FN: &[&str] = &["run/", "ab/", "compare/"];

/// `text` with its comments and the insides of its string and char
/// literals (raw and byte strings too) made spaces, every newline kept:
/// a brace in them is no code, and each line keeps its number.
fn blank(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let keep = |out: &mut String, ch: char| out.push(if ch == '\n' { '\n' } else { ' ' });
    let word = |k: usize| k > 0 && (c[k - 1].is_alphanumeric() || c[k - 1] == '_');
    let mut i = 0;
    while i < c.len() {
        let next = c.get(i + 1).copied();
        if c[i] == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if c[i] == '/' && next == Some('*') {
            while i < c.len() && !(c[i] == '*' && c.get(i + 1) == Some(&'/')) {
                keep(&mut out, c[i]);
                i += 1;
            }
            i += 2;
        } else if c[i] == 'r' && !word(i) && matches!(next, Some('"' | '#')) {
            // r"…", r#"…"#: ends at the quote and as many hashes
            let mut hashes = 0;
            let mut k = i + 1;
            while c.get(k) == Some(&'#') {
                hashes += 1;
                k += 1;
            }
            if c.get(k) != Some(&'"') {
                out.push(c[i]);
                i += 1;
                continue;
            }
            out.push('"');
            i = k + 1;
            while i < c.len() && !(c[i] == '"' && (1..=hashes).all(|h| c.get(i + h) == Some(&'#')))
            {
                keep(&mut out, c[i]);
                i += 1;
            }
            out.push('"');
            i += 1 + hashes;
        } else if c[i] == '"' {
            out.push('"');
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    keep(&mut out, c[i]);
                    i += 1;
                }
                if i < c.len() {
                    keep(&mut out, c[i]);
                }
                i += 1;
            }
            out.push('"');
            i += 1;
        } else if c[i] == '\'' && (next == Some('\\') || c.get(i + 2) == Some(&'\'')) {
            // a char literal ('x', '\n', '\u{1F600}'), not a lifetime ('a)
            let mut k = i + 2;
            while k < c.len() && c[k] != '\'' {
                k += 1;
            }
            out.push_str("' '");
            i = k + 1;
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// Every function with a body in `code` (blanked): its name, and its
/// length in lines from the line of `fn` to the line of its closing brace,
/// both counted (attributes and doc comments above it are not).
fn functions(code: &str) -> Vec<(String, usize)> {
    let b = code.as_bytes();
    let line_at = |k: usize| code[..k].matches('\n').count();
    let mut out = Vec::new();
    for (at, _) in code.match_indices("fn ") {
        if at > 0 && (b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_') {
            continue;
        }
        let rest = code[at + 3..].trim_start();
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            continue;
        }
        // The body opens at the first `{` after the signature; a `;`
        // first is a declaration without one (a trait's).
        let Some(open) = code[at..].find(['{', ';']).map(|k| at + k) else {
            continue;
        };
        if b[open] == b';' {
            continue;
        }
        let mut depth = 0;
        let mut close = None;
        for (k, ch) in code[open..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(open + k);
                        break;
                    }
                }
                _ => {}
            }
        }
        let close = close.unwrap_or(code.len());
        out.push((name, line_at(close) - line_at(at) + 1));
    }
    out
}

/// Functions over 100 lines are the exception, as in hyperfine (4 of
/// 161): at most 1% of the functions under `src/`, test files aside, and
/// none in run/, ab/ or compare/, the code every change passes through.
/// Counted by [`functions`]: each `fn` with a body, from its `fn` line to
/// its closing brace by matching braces in the source with comments and
/// literals blanked; a nested function counts on its own and inside the
/// one around it.
#[test]
fn functions_over_100_lines_are_the_exception() {
    let mut total = 0;
    let mut long = Vec::new();
    for rel in source_files().into_iter().filter(|f| f.ends_with(".rs")) {
        let text = std::fs::read_to_string(src().join(&rel)).unwrap();
        for (name, lines) in functions(&blank(&text)) {
            total += 1;
            if lines > MAX_FN_LINES {
                long.push((rel.clone(), name, lines));
            }
        }
    }
    let list = |l: &[&(String, String, usize)]| {
        l.iter()
            .map(|(f, n, k)| format!("{f}: {n}, {k} lines"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let central: Vec<_> = long
        .iter()
        .filter(|(f, _, _)| NO_LONG_FN.iter().any(|d| f.starts_with(d)))
        .collect();
    assert!(
        central.is_empty(),
        "cut these along their jobs (run/, ab/ and compare/ hold no function over {MAX_FN_LINES} lines):\n{}",
        list(&central)
    );
    let pct = 100.0 * long.len() as f64 / total as f64;
    assert!(
        pct <= MAX_LONG_FN_PCT,
        "{} of {total} functions are over {MAX_FN_LINES} lines ({pct:.1}%, at most {MAX_LONG_FN_PCT}%):\n{}",
        long.len(),
        list(&long.iter().collect::<Vec<_>>())
    );
}

#[test]
fn the_function_counter_counts_what_it_must() {
    let code = blank(
        "/// fn in a doc { \n#[test]\nfn a() {\n    let s = \"}\";\n    let c = '{';\n    let r = r#\"}\n\"#;\n    fn inner<'a>(x: &'a str) { }\n}\ntrait T { fn decl(&self); }\nlet f: fn(u8) = g;\nfn b() -> impl Fn(u8) { |_| {} }\n",
    );
    assert_eq!(code.lines().count(), 12, "newlines kept: {code}");
    let found = functions(&code);
    assert_eq!(
        found,
        vec![
            ("a".to_string(), 7),
            ("inner".to_string(), 1),
            ("b".to_string(), 1)
        ]
    );
}
