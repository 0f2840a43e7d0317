//! The Go helper of switch.userspace: Bendersky's goroutine ping-pong
//! (seed 002, ~2.8 M iterations/s, ~170 ns per switch) as a small Go program,
//! built on first use into a private cache and run with the variant's
//! GOMAXPROCS, thread locking and CPU affinity.

use super::methods::GoMode;
use crate::measure::sampler::Budget;
use crate::sys;
use std::fs::File;

/// Why a Go variant did not run: the toolchain is absent (a skip, with the
/// reason) or something broke (a failure).
pub enum GoError {
    Skipped(String),
    Failed(String),
}

/// Longest a first-use `go build` may take before the variant is skipped.
const GO_BUILD_LIMIT_S: u64 = 80;

const GO_SOURCE: &str = include_str!("../../../helpers/go/pingpong/main.go");

/// The Go toolchain to use: `$TASKLAB_GO`, else `go` on PATH.
fn go_command() -> String {
    std::env::var("TASKLAB_GO").unwrap_or_else(|_| "go".into())
}

/// Private cache for the built Go program: `$XDG_CACHE_HOME/tasklab` or
/// `~/.cache/tasklab`, created with mode 0700.
fn cache_dir() -> Option<std::path::PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".cache")))?;
    let dir = base.join("tasklab");
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)
        .ok()?;
    Some(dir)
}

/// Builds the Go ping-pong program on first use and returns its path.
fn go_binary(scratch: Option<&std::path::Path>) -> Result<std::path::PathBuf, GoError> {
    let go = go_command();
    match std::process::Command::new(&go).arg("version").output() {
        Ok(o) if o.status.success() => {}
        Ok(o) => {
            return Err(GoError::Skipped(format!(
                "'{go} version' failed: {}",
                String::from_utf8_lossy(&o.stderr).trim()
            )))
        }
        Err(e) => {
            return Err(GoError::Skipped(format!(
                "no Go toolchain ('{go}': {e}); install Go or set TASKLAB_GO to its path"
            )))
        }
    }
    let dir = cache_dir()
        .or_else(|| scratch.map(|s| s.to_path_buf()))
        .ok_or_else(|| {
            GoError::Skipped("no cache directory (neither XDG_CACHE_HOME nor HOME is set)".into())
        })?;
    let bin = dir.join(format!(
        "go-pingpong-{:016x}",
        crate::stats::seed_for(GO_SOURCE)
    ));
    if bin.is_file() {
        return Ok(bin);
    }
    let build = tempfile::Builder::new()
        .prefix("go-build-")
        .tempdir_in(&dir)
        .map_err(|e| {
            GoError::Failed(format!(
                "cannot make a build folder in {}: {e}",
                dir.display()
            ))
        })?;
    std::fs::write(build.path().join("main.go"), GO_SOURCE)
        .map_err(|e| GoError::Failed(e.to_string()))?;
    let mut cmd = std::process::Command::new(&go);
    cmd.args(["build", "-o", "pingpong", "main.go"])
        .current_dir(build.path())
        .env("GOTOOLCHAIN", "local")
        .env("GOPROXY", "off")
        .env("GOFLAGS", "");
    if std::env::var_os("GOCACHE").is_none() && std::env::var_os("HOME").is_none() {
        cmd.env("GOCACHE", dir.join("gocache"));
    }
    // A cold Go build cache compiles the runtime first (about a minute on
    // a small machine): bounded, so the worker's own time limit is not hit.
    let log = build.path().join("build.log");
    let log_file = File::create(&log).map_err(|e| GoError::Failed(e.to_string()))?;
    let mut child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(log_file)
        .spawn()
        .map_err(|e| GoError::Failed(format!("cannot run {go} build: {e}")))?;
    let started = std::time::Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) if started.elapsed().as_secs() >= GO_BUILD_LIMIT_S => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(GoError::Skipped(format!(
                    "building the Go program took more than {GO_BUILD_LIMIT_S} s (a cold Go build cache?); run again to finish it"
                )));
            }
            Ok(None) => std::thread::sleep(std::time::Duration::from_millis(50)),
            Err(e) => return Err(GoError::Failed(e.to_string())),
        }
    };
    if !status.success() {
        let msg = std::fs::read_to_string(&log).unwrap_or_default();
        return Err(GoError::Failed(format!("go build failed: {}", msg.trim())));
    }
    std::fs::rename(build.path().join("pingpong"), &bin).map_err(|e| {
        GoError::Failed(format!(
            "cannot place the Go binary in {}: {e}",
            dir.display()
        ))
    })?;
    Ok(bin)
}

/// Round trips (ns) of two goroutines ping-ponging over unbuffered channels.
pub fn go_round_trips(
    mode: GoMode,
    budget: &Budget,
    cpu: usize,
    all: &[usize],
    scratch: Option<&std::path::Path>,
) -> Result<Vec<f64>, GoError> {
    let bin = go_binary(scratch)?;
    let samples = budget.min_samples.max(10).min(budget.max_samples.max(2));
    let sample_ns = ((budget.seconds * 1e9 / samples as f64) as u64).max(20_000);
    let mut cmd = std::process::Command::new(&bin);
    cmd.arg(sample_ns.to_string()).arg(samples.to_string());
    cmd.env_remove("GOMAXPROCS");
    match mode {
        GoMode::MaxProcs1 => {
            cmd.env("GOMAXPROCS", "1");
        }
        GoMode::Locked => {
            cmd.arg("lock");
        }
        GoMode::Default => {}
    }
    // The child inherits the spawning thread's affinity: pin, spawn, restore.
    // Locked goroutines are two OS threads: left free, they land on one CPU
    // in some runs and on two in others, and the figure jumps between the
    // two; on one CPU it is the kernel switch between threads it stands for.
    let pin: Vec<usize> = if matches!(mode, GoMode::MaxProcs1 | GoMode::Locked) {
        vec![cpu]
    } else {
        all.to_vec()
    };
    sys::pin_current_thread(&pin).map_err(|e| GoError::Failed(e.to_string()))?;
    let o = cmd.output();
    sys::pin_current_thread(all).map_err(|e| GoError::Failed(e.to_string()))?;
    let o = o.map_err(|e| GoError::Failed(format!("cannot run {}: {e}", bin.display())))?;
    if !o.status.success() {
        return Err(GoError::Failed(format!(
            "the Go program failed: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        )));
    }
    let text = String::from_utf8_lossy(&o.stdout);
    let rt: Vec<f64> = text
        .lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let n: f64 = it.next()?.parse().ok()?;
            let ns: f64 = it.next()?.parse().ok()?;
            (n > 0.0).then(|| ns / n)
        })
        .collect();
    if rt.is_empty() {
        return Err(GoError::Failed(format!(
            "the Go program printed no samples: {text}"
        )));
    }
    Ok(rt)
}
