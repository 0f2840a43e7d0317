//! Every bad input in `tests/data/bad-inputs.tsv` is refused with its exit
//! status and a message naming what was wrong, before anything is measured:
//! each case runs in an empty folder, which stays empty (no report folder,
//! no results.json).

mod common;

use common::tasklab;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

/// One line of the table.
struct Case {
    line: usize,
    args: String,
    status: i32,
    message: String,
}

fn cases() -> Vec<Case> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/bad-inputs.tsv");
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, l)| {
            let cols: Vec<&str> = l.split('\t').collect();
            assert_eq!(cols.len(), 3, "line {}: ARGS, STATUS, MESSAGE: {l}", i + 1);
            Case {
                line: i + 1,
                args: cols[0].to_string(),
                status: cols[1].parse().expect("a status"),
                message: cols[2].to_string(),
            }
        })
        .collect()
}

/// The fixtures the placeholders name, made once.
struct Fixtures {
    _dir: tempfile::TempDir,
    pairs: Vec<(&'static str, String)>,
}

fn fixtures() -> Fixtures {
    let d = tempfile::tempdir().unwrap();
    let p = |name: &str| d.path().join(name);
    std::fs::write(p("file"), "not json\n").unwrap();
    std::fs::write(p("foreign.json"), "{\"hello\": 1}\n").unwrap();
    std::fs::write(p("truncated.json"), "{\"schema\": \"tasklab-res").unwrap();
    std::fs::write(
        p("v99.json"),
        "{\"schema\": \"tasklab-results\", \"schema_version\": 99}\n",
    )
    .unwrap();
    let fifo = p("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success(), "mkfifo");
    // Sparse: 257 MiB long, nothing on disk.
    let big = std::fs::File::create(p("big")).unwrap();
    big.set_len(257 << 20).unwrap();
    let results = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-results.json");
    // The system call and the memcpys alone: too few series to estimate a
    // common factor from (the timer's eight would make enough).
    let mut small: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&results).unwrap()).unwrap();
    small["experiments"]
        .as_array_mut()
        .unwrap()
        .retain(|e| e["group"] == "yardstick" && e["name"] != "yardstick.timer");
    std::fs::write(p("small.json"), serde_json::to_vec(&small).unwrap()).unwrap();
    // Noise files: one of another machine (a consistent fingerprint of
    // another kernel) and one of another schema version.
    let mut env = tasklab::api::results::RunResults::read(&results)
        .unwrap()
        .env;
    env.kernel = "0.0.1-another".into();
    let noise = serde_json::json!({
        "schema": "tasklab-noise",
        "schema_version": 1,
        "tool_version": "0",
        "created_unix_s": 0.0,
        "fingerprint": tasklab::api::env::Fingerprint::of(&env),
        "profile": "quick",
        "rounds": 8,
        "runs": 4,
        "estimator": "",
        "series": []
    });
    std::fs::write(p("noise-other.json"), serde_json::to_vec(&noise).unwrap()).unwrap();
    let mut v2 = noise;
    v2["schema_version"] = 2.into();
    std::fs::write(p("noise-v2.json"), serde_json::to_vec(&v2).unwrap()).unwrap();
    // A file anyone may write: never a library to preload.
    std::fs::write(p("writable.so"), "x").unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(p("writable.so"), std::fs::Permissions::from_mode(0o666)).unwrap();
    }
    let open = p("open");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
    let s = |p: &Path| p.display().to_string();
    let pairs = vec![
        ("{results}", s(&results)),
        // The matrix's fixture runs (tests/data/matrix/).
        ("{matrix}", s(&results.with_file_name("matrix"))),
        ("{small}", s(&p("small.json"))),
        ("{file}", s(&p("file"))),
        ("{foreign}", s(&p("foreign.json"))),
        ("{truncated}", s(&p("truncated.json"))),
        ("{v99}", s(&p("v99.json"))),
        ("{noise_other}", s(&p("noise-other.json"))),
        ("{noise_v2}", s(&p("noise-v2.json"))),
        ("{fifo}", s(&fifo)),
        ("{big}", s(&p("big"))),
        ("{writable}", s(&p("writable.so"))),
        ("{open}", s(&open)),
        // A live process predict may read: this test's own.
        ("{pid}", std::process::id().to_string()),
    ];
    Fixtures { _dir: d, pairs }
}

fn fill(text: &str, f: &Fixtures, dir: &Path) -> String {
    let mut t = text.replace("{dir}", &dir.display().to_string());
    for (k, v) in &f.pairs {
        t = t.replace(k, v);
    }
    t
}

/// An environment variable's name: capitals, digits and `_`.
fn is_env_name(k: &str) -> bool {
    !k.is_empty()
        && k.bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

#[test]
fn every_bad_input_is_refused_clearly_before_anything_is_measured() {
    let all = cases();
    assert!(all.len() >= 150, "the table has {} cases", all.len());
    let f = fixtures();
    let mut failures = Vec::new();
    for c in &all {
        let d = tempfile::tempdir().unwrap();
        let words: Vec<String> = c.args.split(' ').map(|a| fill(a, &f, d.path())).collect();
        // Leading NAME=VALUE words are the case's environment.
        let n_env = words
            .iter()
            .take_while(|w| w.split_once('=').is_some_and(|(k, _)| is_env_name(k)))
            .count();
        let (env, rest) = words.split_at(n_env);
        let mut args: Vec<String> = rest.to_vec();
        let message = fill(&c.message, &f, d.path());
        // `prlimit:--nofile=8 run ...`: tasklab under that limit.
        let mut cmd = match args[0].strip_prefix("prlimit:") {
            Some(limit) => {
                let mut p = assert_cmd::Command::new("prlimit");
                p.arg(limit)
                    .arg("--")
                    .arg(assert_cmd::cargo::cargo_bin("tasklab"));
                args.remove(0);
                p
            }
            None => match args[0].strip_prefix("ulimit:") {
                // `ulimit:-v=524288 run ...`: under bash's ulimit (prlimit's
                // --as is not usable on every host).
                Some(limit) => {
                    let (flag, value) = limit.split_once('=').expect("ulimit:-X=N");
                    let mut b = assert_cmd::Command::new("bash");
                    b.arg("-c")
                        .arg(format!("ulimit {flag} {value} && exec \"$0\" \"$@\""))
                        .arg(assert_cmd::cargo::cargo_bin("tasklab"));
                    args.remove(0);
                    b
                }
                None => tasklab(),
            },
        };
        for (k, v) in env.iter().filter_map(|w| w.split_once('=')) {
            cmd.env(k, v);
        }
        let out = cmd
            .args(&args)
            .current_dir(d.path())
            // A safety net only: a bad input ends in well under a second.
            .timeout(Duration::from_secs(120))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let left: Vec<String> = std::fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        let mut wrong = Vec::new();
        if out.status.code() != Some(c.status) {
            wrong.push(format!("exit {:?}, not {}", out.status.code(), c.status));
        }
        if !stderr.contains(&message) {
            wrong.push(format!("no \"{message}\" in the message"));
        }
        if !left.is_empty() {
            wrong.push(format!("it wrote {left:?}"));
        }
        if !wrong.is_empty() {
            failures.push(format!(
                "line {}: tasklab {}: {}\n    stderr: {}",
                c.line,
                c.args,
                wrong.join("; "),
                stderr.trim().replace('\n', "\n            ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases went wrong:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}
