//! The recipes in deploy/, checked for what they rest on: the systemd units
//! verified by systemd-analyze, the Kubernetes Job's fields by
//! deploy/check.py (PyYAML), the sbatch script's lines, the Ansible files in
//! place, the Prometheus rules against the families tasklab writes. What
//! runs for real is in .ci/run: the Ansible playbook
//! (deploy/ansible/test.sh), the sbatch script on a one-node Slurm cluster
//! (deploy/slurm/test.sh), the Job against the API's schemas
//! (deploy/kubernetes/test.sh), and the nightly unit's export scraped by a
//! Prometheus server (deploy/prometheus/test.sh); docs/FLEET.md says which
//! is which.

mod common;

use common::{report_stdout, tasklab};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Whether `cmd` can be started here.
fn have(cmd: &str, arg: &str) -> bool {
    Command::new(cmd)
        .arg(arg)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A python3 with PyYAML, if this machine has one.
fn python_with_yaml() -> Option<&'static str> {
    Command::new("python3")
        .args(["-c", "import yaml"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|_| "python3")
}

fn bash_n(rel: &str) {
    let out = Command::new("bash")
        .arg("-n")
        .arg(root().join(rel))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{rel}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_systemd_units_run_a_quick_suite_nightly_into_the_textfile_collector() {
    let service = read("deploy/systemd/tasklab-nightly.service");
    let timer = read("deploy/systemd/tasklab-nightly.timer");
    let lines = |t: &str| -> Vec<String> {
        t.lines()
            .map(str::trim)
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .map(String::from)
            .collect()
    };
    let s = lines(&service);
    assert!(s.contains(&"Type=oneshot".to_string()));
    let exec = s
        .iter()
        .find(|l| l.starts_with("ExecStart="))
        .expect("an ExecStart");
    for want in [
        " run ",
        "--profile quick",
        "--export-openmetrics /var/lib/node_exporter/textfile_collector/tasklab.prom",
    ] {
        assert!(exec.contains(want), "ExecStart lacks {want}: {exec}");
    }
    // Every flag it gives is one `tasklab run` takes.
    let help = tasklab().args(["run", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for flag in exec.split_whitespace().filter(|w| w.starts_with("--")) {
        assert!(help.contains(flag), "tasklab run has no {flag}");
    }
    // A measurement needs whole CPUs and an unchanged priority: no quota,
    // no nice (the unit's comment says why).
    for refused in ["CPUQuota=", "Nice=", "CPUSchedulingPolicy=", "AllowedCPUs="] {
        assert!(
            !s.iter().any(|l| l.starts_with(refused)),
            "the service sets {refused}"
        );
        assert!(
            service.contains(&format!("#   {refused}")) || service.contains(refused),
            "the service does not say why it leaves {refused} out"
        );
    }
    let t = lines(&timer);
    for want in ["Persistent=true", "[Timer]"] {
        assert!(t.contains(&want.to_string()), "the timer lacks {want}");
    }
    for key in ["OnCalendar=", "RandomizedDelaySec="] {
        assert!(
            t.iter().any(|l| l.starts_with(key)),
            "the timer lacks {key}"
        );
    }

    if !have("systemd-analyze", "--version") {
        eprintln!("skipped: systemd-analyze verify (no systemd-analyze on this machine)");
        return;
    }
    // Verified as installed, the binary where the unit names it.
    let d = tempfile::tempdir().unwrap();
    let bin = env!("CARGO_BIN_EXE_tasklab");
    std::fs::write(
        d.path().join("tasklab-nightly.service"),
        service.replace("/usr/local/bin/tasklab", bin),
    )
    .unwrap();
    std::fs::write(d.path().join("tasklab-nightly.timer"), &timer).unwrap();
    let out = Command::new("systemd-analyze")
        .arg("verify")
        .arg(d.path().join("tasklab-nightly.service"))
        .arg(d.path().join("tasklab-nightly.timer"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "systemd-analyze verify: {err}");
    // Warnings (an unknown key, a bad value) do not fail verify: none may be
    // about our units.
    assert!(
        !err.lines().any(|l| l.contains("tasklab-nightly")),
        "systemd-analyze verify: {err}"
    );
}

#[test]
fn the_kubernetes_job_has_the_fields_the_recipe_rests_on() {
    let Some(py) = python_with_yaml() else {
        eprintln!("skipped: no python3 with PyYAML here (deploy/kubernetes/test.sh runs deploy/check.py in its venv)");
        return;
    };
    let check = |job: Option<&Path>| {
        let mut c = Command::new(py);
        c.arg(root().join("deploy/check.py"));
        if let Some(j) = job {
            c.arg("--job").arg(j);
        }
        c.output().unwrap()
    };
    let out = check(None);
    assert!(
        out.status.success(),
        "deploy/check.py: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The checker fails a Job without each field it checks.
    let job = read("deploy/kubernetes/tasklab-job.yaml");
    let d = tempfile::tempdir().unwrap();
    for (what, from, to, says) in [
        (
            "not indexed",
            "completionMode: Indexed",
            "completionMode: NonIndexed",
            "completionMode",
        ),
        (
            "no anti-affinity",
            "podAntiAffinity:",
            "podAffinity:",
            "podAntiAffinity",
        ),
        (
            "another topology",
            "topologyKey: kubernetes.io/hostname",
            "topologyKey: topology.kubernetes.io/zone",
            "podAntiAffinity",
        ),
        (
            "a part of a CPU",
            "cpu: \"2\"",
            "cpu: 1500m",
            "whole number",
        ),
        (
            "requests below limits",
            "memory: 4Gi\n            limits:",
            "memory: 2Gi\n            limits:",
            "requests",
        ),
    ] {
        assert!(job.contains(from), "{what}: the Job has no {from:?}");
        let f = d.path().join("job.yaml");
        std::fs::write(&f, job.replace(from, to)).unwrap();
        let out = check(Some(&f));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{what}: deploy/check.py passed it");
        assert!(err.contains(says), "{what}: {err}");
    }
}

#[test]
fn the_sbatch_script_is_an_array_of_whole_nodes_one_task_each() {
    let s = read("deploy/slurm/tasklab.sbatch");
    bash_n("deploy/slurm/tasklab.sbatch");
    let sbatch: Vec<&str> = s
        .lines()
        .filter_map(|l| l.strip_prefix("#SBATCH "))
        .map(str::trim)
        .collect();
    for want in ["--exclusive", "--nodes=1", "--ntasks-per-node=1"] {
        assert!(sbatch.contains(&want), "no #SBATCH {want}: {sbatch:?}");
    }
    assert!(
        sbatch.iter().any(|l| l.starts_with("--array=")),
        "no #SBATCH --array: {sbatch:?}"
    );
    // #SBATCH lines count only before the first command.
    let first_command = s
        .lines()
        .position(|l| !l.starts_with('#') && !l.trim().is_empty())
        .unwrap();
    let all: Vec<&str> = s.lines().collect();
    let last_sbatch = all.iter().rposition(|l| l.starts_with("#SBATCH")).unwrap();
    assert!(
        last_sbatch < first_command,
        "an #SBATCH line after a command"
    );
    let run = s
        .lines()
        .skip_while(|l| !l.starts_with("srun"))
        .collect::<Vec<_>>()
        .join(" ");
    // The script's own arguments (experiments, flags) go to `tasklab run`:
    // deploy/slurm/test.sh submits it unchanged with a short list.
    for want in ["--ntasks=1", "run --profile", "--label", "--out", "\"$@\""] {
        assert!(run.contains(want), "the srun line lacks {want}: {run}");
    }
}

#[test]
fn the_ansible_recipe_checks_hosts_runs_one_at_a_time_and_fetches_the_results() {
    let play = read("deploy/ansible/playbook.yml");
    assert!(
        play.contains("serial: \"{{ tasklab_serial | default(1) }}\""),
        "the measuring play is not serial 1 by default"
    );
    assert!(play.contains("any_errors_fatal: true"));
    let measure = read("deploy/ansible/roles/tasklab/tasks/measure.yml");
    for want in [
        "'--label', tasklab_label",
        "ansible.builtin.fetch",
        "results.json",
    ] {
        assert!(measure.contains(want), "measure.yml lacks {want}");
    }
    let check = read("deploy/ansible/roles/tasklab/tasks/check.yml");
    for want in [
        "ansible_facts.system == 'Linux'",
        "ansible_facts.architecture == tasklab_needs.arch",
        "GNU_LIBC_VERSION",
        "cargo build --release",
    ] {
        assert!(check.contains(want), "check.yml lacks {want}");
    }
    let matrix = read("deploy/ansible/roles/tasklab/tasks/matrix.yml");
    assert!(matrix.contains("'report'"));
    bash_n("deploy/ansible/test.sh");
    // What the playbook reads of the binary is what objdump -T shows.
    let out = Command::new("python3")
        .arg(root().join("deploy/ansible/roles/tasklab/files/elf_needs.py"))
        .arg(env!("CARGO_BIN_EXE_tasklab"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let needs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(needs["arch"], std::env::consts::ARCH);
    let glibc = needs["glibc"].as_str().unwrap();
    assert!(
        glibc.starts_with("2."),
        "a glibc binary needs some glibc 2.x: {glibc:?}"
    );
    if have("objdump", "--version") {
        let t = Command::new("objdump")
            .arg("-T")
            .arg(env!("CARGO_BIN_EXE_tasklab"))
            .output()
            .unwrap();
        let t = String::from_utf8_lossy(&t.stdout);
        let key = |v: &str| -> Vec<u32> { v.split('.').map(|n| n.parse().unwrap()).collect() };
        let newest = t
            .split(|c: char| c.is_whitespace() || c == '(' || c == ')')
            .filter_map(|w| w.strip_prefix("GLIBC_"))
            .filter(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
            .max_by_key(|v| key(v))
            .unwrap();
        assert_eq!(glibc, newest);
    }
}

#[test]
fn the_prometheus_rules_cover_every_summary_family_tasklab_writes() {
    // deploy/prometheus/test.sh runs them for real (promtool and a
    // server); here: the families they name are the ones an export
    // writes, and every Summary median family has a rule.
    bash_n("deploy/prometheus/test.sh");
    bash_n("deploy/daemons.sh");
    let rules = read("deploy/prometheus/tasklab-rules.yml");
    let tests = read("deploy/prometheus/tasklab-rules.test.yml");
    assert!(
        tests.contains("- tasklab-rules.yml"),
        "the rules test does not load the rules"
    );
    let out_dir = tempfile::tempdir().unwrap();
    let text = report_stdout(
        &root().join("tests/data/report-results.json"),
        &out_dir.path().join("report"),
        &["--export-openmetrics", "-"],
    );
    let written: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let named: Vec<&str> = rules
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with("tasklab_summary"))
        .collect();
    for n in &named {
        assert!(
            written.contains(n),
            "the rules name {n}, which no export writes"
        );
    }
    for f in written.iter().filter(|f| {
        f.starts_with("tasklab_summary") && !f.contains("_ci95_") && !f.ends_with("_unstable")
    }) {
        assert!(named.contains(f), "no rule for the Summary family {f}");
    }
}

/// bench/predict-redis.sh run with `args` and `env` in a private TMPDIR;
/// its exit status and stderr, and what it left in the TMPDIR.
fn predict_redis(args: &[&str], env: &[(&str, &str)], path: Option<&Path>) -> (i32, String, usize) {
    let tmp = tempfile::tempdir().unwrap();
    let mut cmd = Command::new("bash");
    cmd.arg(root().join("bench/predict-redis.sh"))
        .args(args)
        .env("TMPDIR", tmp.path())
        .env("TASKLAB_BIN", env!("CARGO_BIN_EXE_tasklab"))
        .env_remove("TASKLAB_REDIS_PORT")
        .env_remove("TASKLAB_REDIS_IDLE_MS")
        .env_remove("TASKLAB_REDIS_KEEP")
        .env_remove("TASKLAB_REDIS_NEEDS");
    for (k, v) in env {
        cmd.env(k, v);
    }
    if let Some(dir) = path {
        let old = std::env::var("PATH").unwrap_or_default();
        cmd.env("PATH", format!("{}:{old}", dir.display()));
    }
    let out = cmd.output().unwrap();
    let left = std::fs::read_dir(tmp.path()).unwrap().count();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        left,
    )
}

#[test]
fn predict_redis_refuses_bad_input_naming_the_cause_and_starts_nothing() {
    bash_n("bench/predict-redis.sh");
    // A size that is not one.
    for bad in ["0", "ten", "-5"] {
        let (code, err, left) = predict_redis(&[bad], &[], None);
        assert_eq!(code, 2, "{bad}: {err}");
        assert!(
            err.contains(&format!("'{bad}' is not a size in MiB")),
            "{err}"
        );
        assert_eq!(left, 0, "{bad}: it left files behind");
    }
    // An idle time that is not one.
    for bad in ["0.3", "-1", "300ms"] {
        let (code, err, left) = predict_redis(&["100"], &[("TASKLAB_REDIS_IDLE_MS", bad)], None);
        assert_eq!(code, 2, "{bad}: {err}");
        assert!(
            err.contains(&format!(
                "TASKLAB_REDIS_IDLE_MS={bad} is not a whole number of ms"
            )),
            "{err}"
        );
        assert_eq!(left, 0, "{bad}: it left files behind");
    }
    // A count of forks before predict that is not one.
    for bad in ["-1", "two"] {
        let (code, err, left) = predict_redis(&["100"], &[("TASKLAB_REDIS_BEFORE", bad)], None);
        assert_eq!(code, 2, "{bad}: {err}");
        assert!(
            err.contains(&format!("TASKLAB_REDIS_BEFORE={bad} is not a count from 0")),
            "{err}"
        );
        assert_eq!(left, 0, "{bad}: it left files behind");
    }
    // A folder to keep predict's JSON in that is not one.
    let (code, err, left) = predict_redis(
        &["100"],
        &[("TASKLAB_REDIS_KEEP", "/nonexistent/tasklab-keep")],
        None,
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("TASKLAB_REDIS_KEEP=/nonexistent/tasklab-keep is not a folder"),
        "{err}"
    );
    assert_eq!(left, 0);
    // A port in use (a listener of this test's).
    let held = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = held.local_addr().unwrap().port().to_string();
    let (code, err, left) = predict_redis(&["100"], &[("TASKLAB_REDIS_PORT", &port)], None);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "port {port} on 127.0.0.1, for redis-server, is in use"
        )) && err.contains("TASKLAB_REDIS_PORT"),
        "{err}"
    );
    assert_eq!(left, 0);
    drop(held);
    // A package that cannot be installed: apt-get (a stand-in here, which
    // fails as Debian's does for a package it does not know) is asked,
    // and its error named; deploy/prometheus/test.sh asks the real one.
    let fake = tempfile::tempdir().unwrap();
    let apt = fake.path().join("apt-get");
    std::fs::write(
        &apt,
        "#!/bin/sh\necho 'E: Unable to locate package tasklab-no-such-package' >&2\nexit 100\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&apt, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (code, err, left) = predict_redis(
        &["100"],
        &[(
            "TASKLAB_REDIS_NEEDS",
            "tasklab-no-such-command:tasklab-no-such-package",
        )],
        Some(fake.path()),
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("tasklab-no-such-command is not installed")
            && err.contains("tasklab-no-such-package"),
        "{err}"
    );
    assert_eq!(left, 0);
}
