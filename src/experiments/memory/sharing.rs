//! memory.sharing: the clone article's (`000_…`) clone-vm-sample and the
//! flags it names, as a verified matrix: which changes a clone()d child
//! makes the parent sees, per CLONE_* flag.

use crate::experiments::prelude::*;
use crate::sys::share;

/// One cell of the sharing matrix: 1 when the parent saw the child's change.
pub const SHARED: MetricSpec = MetricSpec::new(
    "shared",
    Unit::Count,
    Better::Neither,
    Kind::Other,
    "1 when the parent saw a clone()d child's change of one aspect under one flag, else 0",
);
/// The matrix's row (a `CLONE_*` flag) and column (what the child changed).
pub const FLAG: LabelKey = "flag";
pub const ASPECT: LabelKey = "aspect";

/// The rows of the sharing matrix: a name and the CLONE_* flags.
pub const SHARE_ROWS: &[(&str, libc::c_int)] = &[
    ("none", 0),
    ("CLONE_VM", libc::CLONE_VM),
    ("CLONE_FILES", libc::CLONE_FILES),
    ("CLONE_FS", libc::CLONE_FS),
    ("CLONE_SIGHAND", libc::CLONE_VM | libc::CLONE_SIGHAND),
    (
        "CLONE_THREAD",
        libc::CLONE_VM | libc::CLONE_SIGHAND | libc::CLONE_THREAD,
    ),
    (
        "pthread_create",
        libc::CLONE_VM
            | libc::CLONE_FS
            | libc::CLONE_FILES
            | libc::CLONE_SYSVSEM
            | libc::CLONE_SIGHAND
            | libc::CLONE_THREAD,
    ),
];

/// The aspects a child changes, with the flag clone(2) says shares each.
pub const ASPECTS: &[(&str, libc::c_int)] = &[
    ("memory", libc::CLONE_VM),
    ("fd_open", libc::CLONE_FILES),
    ("fd_close", libc::CLONE_FILES),
    ("cwd", libc::CLONE_FS),
    ("signal", libc::CLONE_SIGHAND),
    ("tgid", libc::CLONE_THREAD),
];

fn aspect(s: &share::Sharing, name: &str) -> bool {
    match name {
        "memory" => s.memory,
        "fd_open" => s.fd_open,
        "fd_close" => s.fd_close,
        "cwd" => s.cwd,
        "signal" => s.signal,
        _ => s.same_tgid,
    }
}

/// What clone(2) documents: the aspect is shared when its flag is set.
pub fn documented(flags: libc::c_int, aspect_flag: libc::c_int) -> bool {
    flags & aspect_flag != 0
}

pub static EXPERIMENT: Experiment = Experiment {
    name: "memory.sharing",
    metrics: &[&SHARED],
    summary: "which changes a clone()d child makes the parent sees, per CLONE_* flag: memory, fds, cwd, signals, tgid",
    reproduces: "Bendersky's clone-vm-sample (the CLONE_VM row) and the flags it names: CLONE_FILES, CLONE_SIGHAND, CLONE_THREAD",
    params: &[REPS_PARAM.spec],
    seeds: &[],
    measure,
    analyze,
    ..Experiment::DEFAULT
};

pub const REPS_PARAM: Param<u64> = Param::number(ParamSpec {
    name: "reps",
    help: "times each row is observed (must agree every time)",
    kind: ParamKind::Count { min: 1, max: 1000 },
    quick: "3",
    thorough: "20",
});

fn measure(job: &Job) -> anyhow::Result<WorkerOutput> {
    let mut out = WorkerOutput::default();
    let cwd = std::env::current_dir()?;
    let elsewhere = if cwd == std::path::Path::new("/") {
        std::env::temp_dir()
    } else {
        "/".into()
    };
    let elsewhere = std::ffi::CString::new(elsewhere.as_os_str().as_encoded_bytes())?;
    let reps = job.params.get(&REPS_PARAM) as usize;
    for (row, flags) in SHARE_ROWS {
        let mut seen: Vec<share::Sharing> = Vec::new();
        for _ in 0..reps {
            seen.push(
                share::observe_sharing(*flags, &elsewhere)
                    .map_err(|e| anyhow::anyhow!("{row}: {e}"))?,
            );
        }
        if seen.iter().any(|s| *s != seen[0]) {
            out.notes.push(format!(
                "{row}: the {reps} observations disagree; the first is reported"
            ));
        }
        for (name, _) in ASPECTS {
            out.reading(
                &SHARED,
                labels(&[(FLAG, row), (ASPECT, name)]),
                if aspect(&seen[0], name) { 1.0 } else { 0.0 },
            );
        }
    }
    if std::env::current_dir()? != cwd {
        anyhow::bail!("the working directory was not restored");
    }
    Ok(out)
}

/// How a row reads in a sentence: "no flag" for the row without one.
fn row_name(row: &str) -> &str {
    if row == "none" {
        "no flag"
    } else {
        row
    }
}

/// Two findings: what each row shares, in one sentence, and whether that is
/// what clone(2) documents; the matrix itself, a row a line, in the notes.
fn analyze(r: &ExperimentResult) -> Analysis {
    let mut a = Analysis::default();
    let mut rows = Vec::new();
    let mut shared_by = Vec::new();
    let mut mismatches = Vec::new();
    let width = SHARE_ROWS
        .iter()
        .map(|(n, _)| row_name(n).len())
        .max()
        .unwrap_or(0);
    for (row, flags) in SHARE_ROWS {
        let mut cells = Vec::new();
        let mut shares = Vec::new();
        for (name, aflag) in ASPECTS {
            let Some(v) = r.reading(&SHARED, &[(FLAG, row), (ASPECT, name)]) else {
                continue;
            };
            let shared = v > 0.5;
            let word = match (*name, shared) {
                ("tgid", true) => "same",
                ("tgid", false) => "differs",
                (_, true) => "shared",
                (_, false) => "copied",
            };
            cells.push(format!("{name} {word}"));
            if shared {
                shares.push(*name);
            }
            if shared != documented(*flags, *aflag) {
                mismatches.push(format!("{row}/{name}"));
            }
        }
        if !cells.is_empty() {
            let name = row_name(row);
            rows.push(format!("{name:<width$}  {}", cells.join(" · ")));
            shared_by.push(if shares.is_empty() {
                format!("{name}: nothing")
            } else {
                format!("{name}: {}", shares.join(", "))
            });
        }
    }
    if rows.is_empty() {
        return a;
    }
    a.findings.push(format!(
        "what a clone()d child shares with its parent (the rest is copied; tgid is the pid): {}",
        shared_by.join("; ")
    ));
    a.findings.push(if mismatches.is_empty() {
        "verified on this machine: each flag shares exactly what clone(2) says and nothing else; without CLONE_VM the child's write stays in its copy (the seed's clone-vm-sample, `tasklab demo clone-vm [vm]`), and only CLONE_THREAD gives the child the parent's pid".to_string()
    } else {
        format!(
            "these cells differ from what clone(2) documents: {}",
            mismatches.join(", ")
        )
    });
    a.notes.extend(rows);
    a
}

#[cfg(test)]
#[path = "sharing_tests.rs"]
mod tests;
