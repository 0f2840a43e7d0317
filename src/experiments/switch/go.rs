//! The Go helper of switch.userspace: Bendersky's goroutine ping-pong
//! (seed 002, ~2.8 M iterations/s, ~170 ns per switch) as a small Go program,
//! run with the variant's GOMAXPROCS, thread locking and CPU affinity.
//!
//! The program is built when tasklab is compiled (build.rs, when a Go
//! toolchain is there) and embedded, so a run never waits for a Go build: its
//! bytes are written to the private folder below on first use. When the
//! build found no toolchain, or `$TASKLAB_GO` names one at run time (the
//! user's choice of toolchain), it is built on first use instead.
//!
//! People run tasklab as root, sometimes with another user's `HOME`, so the
//! built program is only ever run from a private folder (see
//! [`crate::sys::private`]): `$XDG_CACHE_HOME/tasklab` or `~/.cache/tasklab`
//! when every folder on the way is yours or root's and no one else can write
//! it, else the run's own scratch folder (written or built again each run,
//! with a note).
//! Beside the program lies the SHA-256 of its content, and the program runs
//! only when it still matches: a file that fails a check is written or built
//! again and replaced, never run. `go` itself runs with its own HOME, build cache and
//! temp folder and no telemetry, so it writes nothing into anyone's `HOME`.
//! Building happens in a temp folder inside the run's scratch folder (removed
//! with it, even when the worker is killed) and the program reaches the cache
//! by rename; temp files of a killed run are swept by the next one.

use super::methods::GoMode;
use crate::measure::sampler::{Budget, CpuPerOp};
use crate::sys;
use crate::sys::private::{cache_root, open_private_file, private_dir};
use sha2::{Digest, Sha256};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Why a Go variant did not run: the toolchain is absent (a skip, with the
/// reason) or something broke (a failure).
#[derive(Debug)]
pub enum GoError {
    Skipped(String),
    Failed(String),
}

/// What one run of the Go program gave: its round trips (ns), its CPU time
/// per round trip over them (every thread of the Go process), and a note on
/// where the program came from when the user should know.
pub struct GoRun {
    pub round_trip_ns: Vec<f64>,
    pub cpu: Option<CpuPerOp>,
    pub note: Option<String>,
}

/// The program's last line, "cpu USER_NS SYS_NS ROUND_TRIPS": CPU time
/// per round trip, user and system together.
fn parse_cpu(text: &str) -> Option<CpuPerOp> {
    let line = text.lines().find_map(|l| l.strip_prefix("cpu "))?;
    let v: Vec<f64> = line
        .split_whitespace()
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    match v[..] {
        [user, sys, n] if n > 0.0 && user >= 0.0 && sys >= 0.0 => Some(CpuPerOp {
            ns: (user + sys) / n,
        }),
        _ => None,
    }
}

/// Longest `go version` plus a first-use `go build` may take before the
/// variant is skipped.
const GO_BUILD_LIMIT_S: u64 = 80;

const GO_SOURCE: &str = include_str!("../../../helpers/go/pingpong/main.go");

/// The program as build.rs built it with the compile-time toolchain; empty
/// when there was none.
const EMBEDDED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/go_pingpong"));

include!("../../../helpers/go/offline_env.rs");

/// Names of temp files and folders, followed by the pid that made them, so a
/// later run can tell a dead run's leftovers from a live run's work.
const PARTIAL: &str = ".partial-";

/// The Go toolchain to use: `$TASKLAB_GO` unless unset or empty, else `go`
/// on PATH.
fn go_command(var: Option<std::ffi::OsString>) -> std::ffi::OsString {
    var.filter(|v| !v.is_empty()).unwrap_or_else(|| "go".into())
}

/// The compile-time program, unless there is none or the user names a
/// toolchain at run time (`$TASKLAB_GO`, which then builds it).
fn embedded(var: Option<std::ffi::OsString>, bytes: &'static [u8]) -> Option<&'static [u8]> {
    (var.is_none_or(|v| v.is_empty()) && !bytes.is_empty()).then_some(bytes)
}

/// The prefix of every program kept: [`embedded_name`]s and [`binary_name`]s.
const KEPT_PREFIX: &str = "go-pingpong-";
/// The prefix of [`embedded_name`]s.
const EMBEDDED_PREFIX: &str = "go-pingpong-embedded-";

/// The embedded program's file name, after its content's SHA-256 (`hash`).
fn embedded_name(hash: &str) -> String {
    format!("{EMBEDDED_PREFIX}{}", &hash[..16.min(hash.len())])
}

/// Which kind of kept program `file` is, if it is one: embedded, or built
/// here (a program and its `.sha256` are of one kind).
fn kept_kind(file: &str) -> Option<&'static str> {
    if file.starts_with(EMBEDDED_PREFIX) {
        Some(EMBEDDED_PREFIX)
    } else {
        file.starts_with(KEPT_PREFIX).then_some(KEPT_PREFIX)
    }
}

/// The start of every [`binary_name`] built from this source: what a
/// build of it by any toolchain is kept under.
fn source_prefix() -> String {
    format!(
        "{KEPT_PREFIX}{:016x}-",
        crate::stats::seed_for(&format!("{GO_SOURCE}{GO_BUILD_FLAGS:?}"))
    )
}

/// The program's file name, after what it is built from and with what: the
/// source and flags, and the toolchain's identity (`go version`'s output and
/// the toolchain's resolved path, [`Toolchain`]). A program one toolchain
/// built is never taken for another's.
fn binary_name(tool: &Toolchain) -> String {
    format!(
        "{}{:016x}",
        source_prefix(),
        crate::stats::seed_for(&format!("{}\0{}", tool.version, tool.path.display()))
    )
}

/// The Go toolchain a build runs: its resolved path (links followed) and
/// what `go version` printed.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Toolchain {
    path: PathBuf,
    version: String,
}

/// Where `go` (`$TASKLAB_GO`, or `go`) resolves to: a name with a slash is a
/// path (relative to the current folder), a bare name is looked up in
/// `path_var` (PATH) as a shell does; the answer is canonical (links
/// followed), and it is what is run, so the identity is of what ran.
fn resolve_toolchain(
    go: &std::ffi::OsStr,
    path_var: Option<&std::ffi::OsStr>,
) -> Result<PathBuf, String> {
    use std::os::unix::fs::PermissionsExt;
    let shown = go.to_string_lossy();
    let runnable = |p: &Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    let found = if go.as_encoded_bytes().contains(&b'/') {
        Some(PathBuf::from(go)).filter(|p| runnable(p))
    } else {
        path_var
            .map(std::env::split_paths)
            .into_iter()
            .flatten()
            .filter(|d| d.is_absolute())
            .map(|d| d.join(go))
            .find(|p| runnable(p))
    };
    let found =
        found.ok_or_else(|| format!("'{shown}' is not an executable file here or on PATH"))?;
    std::fs::canonicalize(&found).map_err(|e| format!("cannot resolve '{shown}': {e}"))
}

fn hash_name(name: &str) -> String {
    format!("{name}.sha256")
}

/// Where the program is kept, and why there if the user should know.
struct Home {
    dir: PathBuf,
    note: Option<String>,
}

impl Home {
    /// Go's build cache, made only when a build needs it.
    fn gocache(&self) -> Result<PathBuf, String> {
        private_dir(&self.dir, Path::new("gocache"))
    }
}

/// The private cache folder if it is safe to run programs from, else a
/// folder in the run's scratch folder.
fn locate(scratch: Option<&Path>) -> Result<Home, GoError> {
    let private = |root: &Path, rel: &str| -> Result<Home, String> {
        let dir = private_dir(root, Path::new(rel))?;
        Ok(Home { dir, note: None })
    };
    let root = cache_root(std::env::var_os("XDG_CACHE_HOME"), std::env::var_os("HOME"));
    let why = match root {
        Some(root) => match private(&root, "tasklab") {
            Ok(home) => return Ok(home),
            Err(why) => why,
        },
        None => "neither XDG_CACHE_HOME nor HOME is set".into(),
    };
    let Some(scratch) = scratch else {
        return Err(GoError::Skipped(format!(
            "no private folder to build the Go program in: {why}"
        )));
    };
    let mut home = private(scratch, "go").map_err(GoError::Skipped)?;
    home.note = Some(format!(
        "the Go program was kept in this run's scratch folder, not in the cache, so each run writes it (or builds it, cold) again: {why}"
    ));
    Ok(home)
}

/// Removes what runs that are no longer alive left half-made in `dir`.
fn sweep_partials(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(PARTIAL))
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == std::process::id() || Path::new("/proc").join(pid.to_string()).exists() {
            continue;
        }
        let path = e.path();
        let _ = match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_dir() => std::fs::remove_dir_all(&path),
            _ => std::fs::remove_file(&path),
        };
    }
}

fn partial_prefix() -> String {
    format!("{PARTIAL}{}-", std::process::id())
}

/// SHA-256 of everything `r` gives, in hex.
fn sha256_hex(mut r: impl Read) -> io::Result<String> {
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match r.read(&mut buf)? {
            0 => break,
            n => h.update(&buf[..n]),
        }
    }
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// Why a kept program may not be run.
#[derive(Debug, PartialEq)]
enum Unverified {
    /// Not built yet (or its hash was never written).
    Missing,
    /// There, but not private or not what was built.
    Refused(String),
}

/// The program `dir/name`, if it and the hash beside it are private files
/// and its content still has that hash. Checked before every run of it.
fn verified(dir: &Path, name: &str) -> Result<PathBuf, Unverified> {
    let open = |p: &Path| {
        open_private_file(p).map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => Unverified::Missing,
            _ => Unverified::Refused(e.to_string()),
        })
    };
    let refused = |p: &Path, e: io::Error| Unverified::Refused(format!("{}: {e}", p.display()));
    let hash_path = dir.join(hash_name(name));
    let mut want = String::new();
    open(&hash_path)?
        .take(200)
        .read_to_string(&mut want)
        .map_err(|e| refused(&hash_path, e))?;
    let want = want.trim();
    let bin = dir.join(name);
    let got = sha256_hex(open(&bin)?).map_err(|e| refused(&bin, e))?;
    if want.len() != 64 || got != want {
        return Err(Unverified::Refused(format!(
            "the content of {} no longer matches the SHA-256 recorded when it was built",
            bin.display()
        )));
    }
    Ok(bin)
}

/// Writes `bytes` to `dir/name` with `mode`: a new file of a random name
/// (O_EXCL, so nothing there is followed), flushed, then renamed over.
fn write_new(dir: &Path, name: &str, bytes: &[u8], mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mut t = tempfile::Builder::new()
        .prefix(&partial_prefix())
        .permissions(std::fs::Permissions::from_mode(mode))
        .tempfile_in(dir)?;
    t.write_all(bytes)?;
    t.as_file().sync_all()?;
    t.persist(dir.join(name)).map_err(|e| e.error)?;
    Ok(())
}

/// Keeps `bytes` as the program `dir/name`, with its hash beside.
fn place_bytes(dir: &Path, bytes: &[u8], hash: &str, name: &str) -> io::Result<()> {
    write_new(dir, name, bytes, 0o700)?;
    write_new(dir, &hash_name(name), format!("{hash}\n").as_bytes(), 0o600)
}

/// Removes the programs (and their hashes) kept in `dir` of the same kind
/// as `name` ([`kept_kind`]) but another name: those an earlier tasklab, or
/// an earlier Go source, left. Each new build of tasklab embeds a new
/// program, and without this the cache would keep one for every build. A
/// program built with `$TASKLAB_GO` stays beside an embedded one, so
/// switching between the two rebuilds nothing. Only regular files are
/// touched (`dir` is private: [`locate`]). A run of another tasklab version
/// that has started its copy keeps running it; one that is between checking
/// and starting it (a rare overlap of two versions) reports its Go variants
/// failed for that run, and writes its copy again on the next.
fn prune_superseded(dir: &Path, name: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let keep = hash_name(name);
    let kind = kept_kind(name);
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(file) = file.to_str() else { continue };
        if kind.is_none() || kept_kind(file) != kind || file == name || file == keep {
            continue;
        }
        if e.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// A `go` command that reads no one's settings and writes only into `work`
/// and `gocache` ([`go_offline_env`]), with no input.
fn go_cmd(go: &std::ffi::OsStr, work: &Path, gocache: &Path) -> Command {
    let mut cmd = Command::new(go);
    go_offline_env(&mut cmd, work, gocache);
    cmd.stdin(Stdio::null());
    cmd
}

/// What a bounded command gave: its status, its standard output and its
/// standard error (each trimmed, at most 64 KiB).
struct Ended {
    status: ExitStatus,
    out: String,
    err: String,
}

/// Runs `cmd` until it ends or `deadline` passes (then kills it: None). Its
/// output goes to files in `work` (no pipe a stray grandchild could hold).
fn run_bounded(
    mut cmd: Command,
    work: &Path,
    label: &str,
    deadline: Instant,
) -> io::Result<Option<Ended>> {
    let err_path = work.join(format!("{label}.err"));
    let out_path = work.join(format!("{label}.out"));
    let err = std::fs::File::create(&err_path)?;
    let out = std::fs::File::create(&out_path)?;
    // go dies with the worker (the compilers it starts finish on their own).
    let mut child = sys::kill_with_parent(&mut cmd)
        .stdout(out)
        .stderr(err)
        .spawn()?;
    let status = loop {
        if let Some(st) = child.try_wait()? {
            break st;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let read = |p: &Path| -> io::Result<String> {
        let mut text = Vec::new();
        std::fs::File::open(p)?
            .take(64 << 10)
            .read_to_end(&mut text)?;
        Ok(String::from_utf8_lossy(&text).trim().to_string())
    };
    Ok(Some(Ended {
        status,
        out: read(&out_path)?,
        err: read(&err_path)?,
    }))
}

/// Whether no Go build is due: the program was embedded at compile time (and
/// no `$TASKLAB_GO` asks for another), or a checked copy waits in the
/// private cache. When not, the next Go job builds it (the progress line
/// says so meanwhile).
///
/// Only the progress line's words depend on it: without running `go
/// version`, a program this source was built into by some toolchain counts
/// as ready (the job itself checks the toolchain and builds again if it
/// changed).
pub fn helper_ready() -> bool {
    embedded(std::env::var_os("TASKLAB_GO"), EMBEDDED).is_some()
        || locate(None).is_ok_and(|h| {
            std::fs::read_dir(&h.dir).is_ok_and(|entries| {
                entries.flatten().any(|e| {
                    e.file_name().to_str().is_some_and(|n| {
                        n.starts_with(&source_prefix())
                            && !n.ends_with(".sha256")
                            && verified(&h.dir, n).is_ok()
                    })
                })
            })
        })
}

/// The embedded program, written to the private folder unless a checked
/// copy is already there (a copy that fails its check is replaced, never run).
fn embedded_binary(
    bytes: &[u8],
    scratch: Option<&Path>,
) -> Result<(PathBuf, Option<String>), GoError> {
    let home = locate(scratch)?;
    sweep_partials(&home.dir);
    let hash = sha256_hex(bytes)
        .map_err(|e| GoError::Failed(format!("cannot hash the Go program: {e}")))?;
    let name = embedded_name(&hash);
    let mut note = home.note;
    match verified(&home.dir, &name) {
        Ok(bin) => return Ok((bin, note)),
        Err(Unverified::Missing) => {}
        Err(Unverified::Refused(why)) => note = Some(replaced(note, &why)),
    }
    let bin = keep_checked(&home.dir, &name, bytes, &hash)?;
    Ok((bin, note))
}

/// Keeps `bytes` (SHA-256 `hash`) as the program `dir/name` with its hash,
/// and the path once it passes the check every run of it passes; the
/// programs it supersedes go.
fn keep_checked(dir: &Path, name: &str, bytes: &[u8], hash: &str) -> Result<PathBuf, GoError> {
    place_bytes(dir, bytes, hash, name).map_err(|e| {
        GoError::Failed(format!(
            "cannot keep the Go program in {}: {e}",
            dir.display()
        ))
    })?;
    let bin = verified(dir, name)
        .map_err(|e| GoError::Failed(format!("the Go program just kept fails its check: {e:?}")))?;
    prune_superseded(dir, name);
    Ok(bin)
}

/// The note when a kept program failed its check and was replaced.
fn replaced(note: Option<String>, why: &str) -> String {
    let rebuilt = format!("the kept Go program was not run and was replaced: {why}");
    match note {
        Some(n) => format!("{n}; {rebuilt}"),
        None => rebuilt,
    }
}

/// The Go ping-pong program, checked and ready to run (built first if need
/// be), and a note on where it came from when the user should know.
fn go_binary(scratch: Option<&Path>) -> Result<(PathBuf, Option<String>), GoError> {
    if let Some(bytes) = embedded(std::env::var_os("TASKLAB_GO"), EMBEDDED) {
        return embedded_binary(bytes, scratch);
    }
    let deadline = Instant::now() + Duration::from_secs(GO_BUILD_LIMIT_S);
    let timed_out = || {
        GoError::Skipped(format!(
            "building the Go program took more than {GO_BUILD_LIMIT_S} s (a cold Go build cache?); run again to finish it"
        ))
    };
    let failed = |what: &str, e: io::Error| GoError::Failed(format!("{what}: {e}"));
    let home = locate(scratch)?;
    sweep_partials(&home.dir);
    // The work folder lives in the run's scratch folder when there is one:
    // the run removes it even if this worker is killed mid-build.
    let work = tempfile::Builder::new()
        .prefix(&partial_prefix())
        .tempdir_in(scratch.unwrap_or(&home.dir))
        .map_err(|e| failed("cannot make a folder to build the Go program in", e))?;
    for sub in ["home", "tmp"] {
        std::fs::create_dir(work.path().join(sub))
            .map_err(|e| failed("cannot prepare the Go build folder", e))?;
    }
    let asked = go_command(std::env::var_os("TASKLAB_GO"));
    let shown = asked.to_string_lossy().into_owned();
    let go = resolve_toolchain(&asked, std::env::var_os("PATH").as_deref()).map_err(|why| {
        GoError::Skipped(format!(
            "no Go toolchain ({why}); install Go or set TASKLAB_GO to its path"
        ))
    })?;
    let go = go.as_os_str();
    // Go's build cache is kept beside the program; where it cannot be made
    // privately, this build uses one in its work folder (a cold build).
    let gocache = home
        .gocache()
        .unwrap_or_else(|_| work.path().join("gocache"));
    let mut version = go_cmd(go, work.path(), &gocache);
    version.arg("version");
    let version = match run_bounded(version, work.path(), "version", deadline) {
        Err(e) => {
            return Err(GoError::Skipped(format!(
                "no Go toolchain ('{shown}': {e}); install Go or set TASKLAB_GO to its path"
            )))
        }
        Ok(None) => return Err(timed_out()),
        Ok(Some(e)) if !e.status.success() => {
            return Err(GoError::Skipped(format!(
                "'{shown} version' failed: {}",
                e.err
            )))
        }
        Ok(Some(e)) => e.out,
    };
    let name = binary_name(&Toolchain {
        path: PathBuf::from(go),
        version,
    });
    let mut note = home.note;
    match verified(&home.dir, &name) {
        Ok(bin) => return Ok((bin, note)),
        Err(Unverified::Missing) => {}
        Err(Unverified::Refused(why)) => note = Some(replaced(note, &why)),
    }
    std::fs::write(work.path().join("main.go"), GO_SOURCE)
        .map_err(|e| failed("cannot write the Go source", e))?;
    let mut build = go_cmd(go, work.path(), &gocache);
    build
        .args(GO_BUILD_FLAGS)
        .args(["-o", "pingpong", "main.go"]);
    match run_bounded(build, work.path(), "build", deadline) {
        Err(e) => return Err(failed(&format!("cannot run {shown} build"), e)),
        Ok(None) => return Err(timed_out()),
        Ok(Some(e)) if !e.status.success() => {
            return Err(GoError::Failed(format!("go build failed: {}", e.err)))
        }
        Ok(Some(_)) => {}
    }
    let built = std::fs::read(work.path().join("pingpong"))
        .map_err(|e| failed("cannot read the Go program just built", e))?;
    let hash = sha256_hex(built.as_slice()).map_err(|e| failed("cannot hash the Go program", e))?;
    let bin = keep_checked(&home.dir, &name, &built, &hash)?;
    Ok((bin, note))
}

/// A skip when the Go program could not run while an address-space limit
/// (RLIMIT_AS, `ulimit -v`) is set: the Go runtime reserves its heap's
/// address space up front, and fails to start below about 1 GiB. `what`
/// says what happened.
fn under_limit(what: &str) -> Option<GoError> {
    let (soft, _) = sys::rlimit(sys::Resource::AddressSpace).ok()?;
    soft.map(|lim| {
        GoError::Skipped(format!(
            "the Go program cannot run under the address-space limit (RLIMIT_AS {}): {what}",
            crate::units::fmt_size(lim)
        ))
    })
}

/// Round trips (ns) of two goroutines ping-ponging over unbuffered channels.
pub fn go_round_trips(
    mode: GoMode,
    budget: &Budget,
    cpu: usize,
    all: &[usize],
    scratch: Option<&Path>,
) -> Result<GoRun, GoError> {
    // A program that cannot be made (a full disk, a memory limit on the
    // build, a broken toolchain) drops the Go variants of this point with
    // the reason; the rest of the point is measured.
    let (bin, note) = go_binary(scratch).map_err(|e| match e {
        GoError::Failed(why) => {
            GoError::Skipped(format!("the Go program could not be built or kept: {why}"))
        }
        skipped => skipped,
    })?;
    let samples = budget.min_samples.max(10).min(budget.max_samples.max(2));
    let sample_ns = ((budget.seconds * 1e9 / samples as f64) as u64).max(20_000);
    let mut cmd = Command::new(&bin);
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
    let o = sys::kill_with_parent(&mut cmd).output();
    sys::pin_current_thread(all).map_err(|e| GoError::Failed(e.to_string()))?;
    let o = o.map_err(|e| {
        under_limit(&format!("cannot start {}: {e}", bin.display()))
            .unwrap_or_else(|| GoError::Failed(format!("cannot run {}: {e}", bin.display())))
    })?;
    if !o.status.success() {
        let err = String::from_utf8_lossy(&o.stderr);
        let first = err.trim().lines().next().unwrap_or("").to_string();
        return Err(under_limit(&format!("it failed: {first}"))
            .unwrap_or_else(|| GoError::Failed(format!("the Go program failed: {}", err.trim()))));
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
    Ok(GoRun {
        round_trip_ns: rt,
        cpu: parse_cpu(&text),
        note,
    })
}

#[cfg(test)]
#[path = "go_tests.rs"]
mod tests;
