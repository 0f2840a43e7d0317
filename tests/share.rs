//! Sharing without leaking: a secret planted on a fake kernel command line
//! reaches no output (results.json, report.md, report.html, the CSV and
//! Markdown exports, the terminal); `--redact` takes out the hostname, the
//! machine id and home paths; `--label` names the run everywhere.

mod common;

use common::tasklab;
use std::path::{Path, PathBuf};
use tasklab::api::env::Env;
use tasklab::api::results::RunResults;

const SECRET: &str = "s3cr3t-TOKEN-123";
const MACHINE_ID: &str = "0123456789abcdef0123456789abcdef";
const HOST: &str = "secret-host-7";

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-results.json")
}

/// An environment read from a fake `/` whose command line carries an
/// agent's secret, with a machine id and a hostname of its own.
fn planted_env() -> (tempfile::TempDir, Env) {
    let root = tempfile::tempdir().unwrap();
    let write = |p: &str, text: &str| {
        let p = root.path().join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write(
        "proc/cmdline",
        &format!(
            "BOOT_IMAGE=/home/alice/vmlinuz console=ttyS0 mitigations=off idle=poll \
             agent --auth-required={SECRET} -- --token={SECRET}\n"
        ),
    );
    write(
        "proc/cpuinfo",
        "model name\t: Test CPU\nmicrocode\t: 0x42\n",
    );
    write("proc/sys/kernel/hostname", &format!("{HOST}\n"));
    write("etc/machine-id", &format!("{MACHINE_ID}\n"));
    let env = Env::read_from(root.path(), "6.8.0-test".into(), "x86_64".into());
    (root, env)
}

/// Every output `tasklab report` makes of `r`: the files of its folder and
/// its exports, and the terminal, as one text.
fn every_output(r: &RunResults) -> String {
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("in.json");
    std::fs::write(&file, r.to_json().unwrap()).unwrap();
    let out = d.path().join("out");
    let csv = d.path().join("x.csv");
    let md = d.path().join("x.md");
    let run = tasklab()
        .arg("report")
        .arg(&file)
        .arg("--out")
        .arg(&out)
        .arg("--export-csv")
        .arg(&csv)
        .arg("--export-markdown")
        .arg(&md)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let mut all = String::from_utf8_lossy(&run.stdout).into_owned();
    all.push_str(&String::from_utf8_lossy(&run.stderr));
    for f in [
        out.join("results.json"),
        out.join("report.md"),
        out.join("report.html"),
        csv,
        md,
    ] {
        let text = std::fs::read_to_string(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert!(!text.is_empty(), "{} is empty", f.display());
        all.push_str(&text);
    }
    all
}

#[test]
fn a_secret_on_the_kernel_command_line_appears_in_no_output() {
    let (_root, env) = planted_env();
    assert_eq!(
        env.facts.cmdline.as_deref(),
        Some("mitigations=off idle=poll")
    );
    let mut r = RunResults::read(&fixture()).unwrap();
    r.env = env;
    let all = every_output(&r);
    assert!(!all.contains(SECRET), "the secret leaked");
    assert!(!all.contains("auth-required"));
    assert!(!all.contains(MACHINE_ID), "the machine id leaked");
    // What shapes figures is still there.
    assert!(all.contains("mitigations=off idle=poll"));
}

#[test]
fn an_older_file_with_the_whole_command_line_is_cut_down_when_read() {
    let mut r = RunResults::read(&fixture()).unwrap();
    r.env.facts.cmdline = Some(format!("quiet agent --auth-required={SECRET} nopti"));
    let all = every_output(&r);
    assert!(!all.contains(SECRET), "the secret leaked");
    assert!(all.contains("nopti"));
}

/// This machine's hostname, when it is one `--redact` takes out (two
/// characters or more, not "localhost").
fn this_host() -> Option<String> {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").ok()?;
    let host = host.trim();
    (host.len() >= 2 && host != "localhost").then(|| host.to_string())
}

/// Whether `word` stands in `text` as a word of a name (not inside a longer
/// name of letters, digits, `-` and `_`), with where.
fn as_word(text: &str, word: &str) -> Option<String> {
    let is_name = |c: char| c.is_alphanumeric() || c == '-' || c == '_';
    text.match_indices(word).find_map(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        (!before.is_some_and(is_name) && !after.is_some_and(is_name)).then(|| {
            let (lo, hi) = (
                at.saturating_sub(40),
                (at + word.len() + 40).min(text.len()),
            );
            text.get(lo..hi).unwrap_or(word).to_string()
        })
    })
}

#[test]
fn a_redacted_run_has_no_hostname_machine_id_or_home_path() {
    let (_root, mut env) = planted_env();
    let hash = env.hardware.machine_id_hash.clone().unwrap();
    env.set_label(None, true).unwrap();
    let mut r = RunResults::read(&fixture()).unwrap();
    r.env = env;
    let host = this_host().unwrap_or_else(|| "localhost".into());
    r.warnings.push(format!(
        "written in /home/alice/tasklab and /root/x on {host}"
    ));
    r.experiments[0]
        .notes
        .push("the Go helper is cached in /home/alice/.cache/tasklab".into());
    let r = r.redacted();
    assert_eq!(r.env.hostname, "redacted");
    assert_eq!(r.label(), "redacted");
    let all = every_output(&r);
    for gone in [HOST, hash.as_str(), MACHINE_ID, "/home/alice", "/root/x"] {
        assert!(!all.contains(gone), "{gone} leaked");
    }
    if let Some(h) = this_host() {
        assert_eq!(as_word(&all, &h), None, "the hostname {h} leaked");
    }
    assert!(all.contains("~/.cache/tasklab"));
    assert!(all.contains("tasklab report: redacted"));
}

#[test]
fn a_labelled_redacted_run_names_its_label_everywhere_and_no_host() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    let csv = d.path().join("x.csv");
    let run = tasklab()
        .args([
            "run",
            "yardstick.syscall",
            "--rounds",
            "3",
            "--label",
            "lab-1",
        ])
        .args(["--redact", "--out"])
        .arg(&out)
        .arg("--export-csv")
        .arg(&csv)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let r = RunResults::read(&out.join("results.json")).unwrap();
    assert_eq!(r.label(), "lab-1");
    assert!(r.env.redacted);
    assert_eq!(r.env.hostname, "redacted");
    assert_eq!(r.env.hardware.machine_id_hash, None);
    let id = r.run_id().unwrap();
    assert!(id.len() == 32 && id.chars().all(|c| c.is_ascii_hexdigit()));
    assert!(r.build.is_some());
    let csv = std::fs::read_to_string(&csv).unwrap();
    let mut rows = csv.lines();
    let head = rows.next().unwrap();
    assert!(head.contains("run_label") && head.contains("started_utc"));
    for row in rows {
        assert!(row.contains(",lab-1,") && row.contains(&id), "{row}");
    }
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("tasklab report: lab-1"), "{}", &md[..200]);
    // This machine's hostname, as a word, is in no output.
    if let Some(h) = this_host() {
        let mut all = String::from_utf8_lossy(&run.stdout).into_owned();
        all.push_str(&String::from_utf8_lossy(&run.stderr));
        for f in ["results.json", "report.md", "report.html"] {
            all.push_str(&std::fs::read_to_string(out.join(f)).unwrap());
        }
        all.push_str(&csv);
        assert_eq!(as_word(&all, &h), None, "the hostname {h} is in the output");
    }
}
