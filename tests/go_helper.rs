//! The Go helper of switch.userspace is run only from a private folder and
//! only while its content matches the hash kept beside it: a program planted
//! in a cache someone else controls, made writable to others, or changed
//! after it was built never runs. Most cases use a stand-in `go` (a shell
//! script, through TASKLAB_GO) whose "program" leaves a mark when it runs;
//! the cases that need another user's files run as root and are skipped
//! otherwise.

use serde_json::Value;
use sha2::{Digest, Sha256};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

mod common;
use common::*;

const NOBODY: u32 = 65534;

/// A temp folder with a stand-in `go`, a HOME and a cache folder.
struct Lab {
    t: tempfile::TempDir,
}

impl Lab {
    fn new() -> Lab {
        let t = tempfile::tempdir().unwrap();
        let lab = Lab { t };
        lab.write_go("go", "built");
        for sub in ["home", "xdg", "tmp"] {
            std::fs::create_dir(lab.path(sub)).unwrap();
        }
        lab
    }

    /// A stand-in toolchain at `name` whose "program" leaves `ran-MARK`
    /// when it runs. `go version` prints the file `version-NAME` when there
    /// is one, and every build adds a line to `builds-NAME`.
    fn write_go(&self, name: &str, mark: &str) {
        let d = self.dir();
        // `go` runs with a cleared environment: the paths are written in.
        let program = format!(
            "#!/bin/sh\necho ran >> {d}/ran-{mark}\ni=0\nwhile [ $i -lt $2 ]; do echo '1000 340000'; i=$((i+1)); done\n"
        );
        let go = format!(
            "#!/bin/sh\nenv > {d}/go-env-$1\ncase \"$1\" in\n\
             version) cat {d}/version-{name} 2>/dev/null || echo 'go version fake'; exit 0;;\n\
             build) if [ -e {d}/build-fails ]; then cat {d}/build-fails >&2; echo 'build disabled' >&2; exit 1; fi\n\
             touch {d}/build-started; echo build >> {d}/builds-{name}\n\
             if [ -e {d}/build-hangs ]; then sleep 120; fi\n\
             cat > pingpong <<'EOF'\n{program}EOF\n\
             chmod 755 pingpong; exit 0;;\n\
             esac\nexit 2\n"
        );
        write_exec(&self.path(name), &go, 0o755);
    }

    /// How many builds the toolchain `name` made.
    fn builds(&self, name: &str) -> usize {
        std::fs::read_to_string(self.path(&format!("builds-{name}")))
            .map_or(0, |t| t.lines().count())
    }

    fn dir(&self) -> String {
        self.t.path().display().to_string()
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.t.path().join(rel)
    }

    fn cache(&self) -> PathBuf {
        self.path("xdg/tasklab")
    }

    /// A program that leaves `ran-planted` when it runs.
    fn planted(&self) -> String {
        format!(
            "#!/bin/sh\necho ran >> {}/ran-planted\ni=0\nwhile [ $i -lt $2 ]; do echo '1000 340000'; i=$((i+1)); done\n",
            self.dir()
        )
    }

    /// Runs go_default with this lab's `go`, HOME and XDG_CACHE_HOME.
    fn run(&self, xdg: bool) -> Value {
        self.run_with("go", xdg)
    }

    /// Runs go_default with the lab's toolchain `go`, HOME and
    /// XDG_CACHE_HOME.
    fn run_with(&self, go: &str, xdg: bool) -> Value {
        self.go_default(|cmd| {
            cmd.env("TASKLAB_GO", self.path(go))
                .env("HOME", self.path("home"))
                .env("TMPDIR", self.path("tmp"));
            if xdg {
                cmd.env("XDG_CACHE_HOME", self.path("xdg"));
            } else {
                cmd.env_remove("XDG_CACHE_HOME");
            }
        })
    }

    /// Runs switch.userspace's go_default variant into this lab's `out`,
    /// with the environment `env` sets; its result.
    fn go_default(&self, env: impl FnOnce(&mut assert_cmd::Command)) -> Value {
        let mut cmd = tasklab();
        cmd.args([
            "run",
            "switch.userspace",
            "-p",
            "variants=go_default",
            "--out",
        ])
        .arg(self.path("out"))
        .args(["--json", "-"]);
        env(&mut cmd);
        let v = json_of_success(&mut cmd);
        experiment(&v, "switch.userspace").clone()
    }

    fn ran(&self, which: &str) -> bool {
        self.path(&format!("ran-{which}")).exists()
    }

    fn forget_runs(&self) {
        for which in ["built", "planted", "other"] {
            let _ = std::fs::remove_file(self.path(&format!("ran-{which}")));
        }
    }
}

fn write_exec(p: &Path, text: &str, mode: u32) {
    std::fs::write(p, text).unwrap();
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// The kept program's name in `cache` (the one file with a hash beside it).
fn kept(cache: &Path) -> PathBuf {
    let hash = std::fs::read_dir(cache)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "sha256"))
        .expect("a kept program with its hash");
    hash.with_extension("")
}

/// Plants `text` as the kept program `bin` with its true hash beside it, as
/// a tampered cache would hold it.
fn plant(bin: &Path, text: &str, mode: u32) {
    let _ = std::fs::remove_file(bin);
    write_exec(bin, text, mode);
    let hash: String = Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let sidecar = bin.with_extension("sha256");
    let _ = std::fs::remove_file(&sidecar);
    write_exec(&sidecar, &format!("{hash}\n"), 0o600);
}

fn measured(e: &Value) -> bool {
    e["status"] == "ok"
        && e["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["labels"]["variant"] == "go_default")
}

fn listing(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(d: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            out.push(e.path().display().to_string());
            if e.file_type().unwrap().is_dir() {
                walk(&e.path(), out);
            }
        }
    }
    walk(dir, &mut out);
    out.sort();
    out
}

fn is_root() -> bool {
    tasklab::api::sys::is_root()
}

fn chown_all(p: &Path, uid: u32) {
    std::os::unix::fs::chown(p, Some(uid), Some(uid)).unwrap();
    if p.is_dir() {
        for e in std::fs::read_dir(p).unwrap().flatten() {
            chown_all(&e.path(), uid);
        }
    }
}

#[test]
fn the_program_is_built_once_kept_privately_and_reused() {
    let lab = Lab::new();
    let e = lab.run(true);
    assert!(measured(&e), "{}", brief(&e));
    assert!(lab.ran("built"));
    let bin = kept(&lab.cache());
    let mode = std::fs::metadata(&bin).unwrap().permissions().mode();
    assert_eq!(mode & 0o077, 0, "the kept program is private");
    // go wrote nothing into HOME and ran without telemetry.
    assert!(listing(&lab.path("home")).is_empty());
    let env = std::fs::read_to_string(lab.path("go-env-build")).unwrap();
    assert!(env.contains("GOTELEMETRY=off"), "{env}");
    assert!(!env.contains(&format!("HOME={}\n", lab.path("home").display())));
    // No build folder or temp file is left in the cache or the temp folder.
    let left = listing(&lab.cache());
    assert!(!left.iter().any(|p| p.contains(".partial-")), "{left:?}");
    assert!(listing(&lab.path("tmp")).is_empty());

    // The kept program is run again without a build.
    lab.forget_runs();
    std::fs::write(lab.path("build-fails"), "").unwrap();
    let e = lab.run(true);
    assert!(measured(&e), "{}", brief(&e));
    assert!(lab.ran("built"));
}

#[test]
fn a_kept_program_changed_after_its_build_is_not_run() {
    let lab = Lab::new();
    lab.run(true);
    let bin = kept(&lab.cache());
    // The same mode and owner, another content: only the hash tells.
    std::fs::write(&bin, lab.planted()).unwrap();
    lab.forget_runs();
    let e = lab.run(true);
    assert!(!lab.ran("planted"), "the changed program ran");
    assert!(lab.ran("built"), "it was built again and run");
    assert!(measured(&e), "{}", brief(&e));
    assert!(notes(&e).contains("SHA-256"), "{}", notes(&e));
}

#[test]
fn a_kept_program_others_can_write_is_not_run() {
    let lab = Lab::new();
    lab.run(true);
    let bin = kept(&lab.cache());
    plant(&bin, &lab.planted(), 0o770);
    lab.forget_runs();
    let e = lab.run(true);
    assert!(!lab.ran("planted"), "a group-writable program ran");
    assert!(lab.ran("built"));
    assert!(notes(&e).contains("group or by others"), "{}", notes(&e));
    // The planted control: the same file, private, is what would have run.
    lab.forget_runs();
    plant(&bin, &lab.planted(), 0o700);
    std::fs::write(lab.path("build-fails"), "").unwrap();
    lab.run(true);
    assert!(
        lab.ran("planted"),
        "the control: a private planted file does run"
    );
}

#[test]
fn a_cache_folder_owned_by_another_user_is_not_used() {
    if !is_root() {
        eprintln!("skipped: needs root to give files to another user");
        return;
    }
    let lab = Lab::new();
    lab.run(true);
    let bin = kept(&lab.cache());
    plant(&bin, &lab.planted(), 0o700);
    chown_all(&lab.cache(), NOBODY);
    let before = listing(&lab.cache());
    lab.forget_runs();
    let e = lab.run(true);
    assert!(
        !lab.ran("planted"),
        "root ran a program from another user's cache"
    );
    assert!(
        lab.ran("built"),
        "built in the run's scratch folder instead"
    );
    assert!(measured(&e), "{}", brief(&e));
    let n = notes(&e);
    assert!(
        n.contains("scratch folder") && n.contains(&format!("uid {NOBODY}")),
        "{n}"
    );
    assert_eq!(
        listing(&lab.cache()),
        before,
        "the foreign cache was touched"
    );
    assert!(
        listing(&lab.path("tmp")).is_empty(),
        "the scratch folder is removed"
    );
}

#[test]
fn a_kept_program_owned_by_another_user_is_not_run() {
    if !is_root() {
        eprintln!("skipped: needs root to give files to another user");
        return;
    }
    let lab = Lab::new();
    lab.run(true);
    let bin = kept(&lab.cache());
    plant(&bin, &lab.planted(), 0o700);
    chown_all(&bin, NOBODY);
    lab.forget_runs();
    let e = lab.run(true);
    assert!(!lab.ran("planted"), "root ran another user's program");
    assert!(lab.ran("built"));
    assert!(
        notes(&e).contains(&format!("uid {NOBODY}")),
        "{}",
        notes(&e)
    );
}

#[test]
fn another_users_home_is_neither_run_from_nor_written_to() {
    if !is_root() {
        eprintln!("skipped: needs root to give files to another user");
        return;
    }
    // sudo -E: root with the HOME of a user who planted ~/.cache/tasklab.
    let lab = Lab::new();
    lab.run(true);
    let bin = kept(&lab.cache());
    plant(&bin, &lab.planted(), 0o700);
    std::fs::create_dir(lab.path("home/.cache")).unwrap();
    std::fs::rename(lab.cache(), lab.path("home/.cache/tasklab")).unwrap();
    chown_all(&lab.path("home"), NOBODY);
    let before = listing(&lab.path("home"));
    lab.forget_runs();
    let e = lab.run(false);
    assert!(
        !lab.ran("planted"),
        "root ran a program from another user's HOME"
    );
    assert!(lab.ran("built"));
    assert!(measured(&e), "{}", brief(&e));
    assert_eq!(
        listing(&lab.path("home")),
        before,
        "the foreign HOME was written to"
    );
}

#[test]
fn an_interrupted_first_build_leaves_nothing_behind() {
    let lab = Lab::new();
    std::fs::write(lab.path("build-hangs"), "").unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("tasklab"))
        .args([
            "run",
            "switch.userspace",
            "-p",
            "variants=go_default",
            "-q",
            "--out",
        ])
        .arg(lab.path("out"))
        .env("TASKLAB_GO", lab.path("go"))
        .env("HOME", lab.path("home"))
        .env("XDG_CACHE_HOME", lab.path("xdg"))
        .env("TMPDIR", lab.path("tmp"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while !lab.path("build-started").exists() {
        assert!(started.elapsed().as_secs() < 120, "the build never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let pid = child.id().to_string();
    std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap();
    child.wait().unwrap();
    let left = listing(&lab.cache());
    assert!(
        left.iter().all(|p| p.contains("/gocache")),
        "a build folder or half a program is left in the cache: {left:?}"
    );
    assert!(
        listing(&lab.path("tmp")).is_empty(),
        "the scratch folder is left"
    );
}

#[test]
fn the_real_go_program_builds_and_runs() {
    let go = std::env::var_os("TASKLAB_GO")
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "go".into());
    if std::process::Command::new(&go)
        .arg("version")
        .output()
        .is_err()
    {
        eprintln!("skipped: no Go toolchain");
        return;
    }
    let lab = Lab::new();
    let e = lab.go_default(|cmd| {
        cmd.env("TASKLAB_GO", &go)
            .env("HOME", lab.path("home"))
            .env("XDG_CACHE_HOME", lab.path("xdg"));
    });
    assert!(measured(&e), "{}", brief(&e));
    assert!(listing(&lab.path("home")).is_empty(), "go wrote into HOME");
    kept(&lab.cache());
}

/// The program build.rs embedded (empty when it found no Go toolchain).
const EMBEDDED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/go_pingpong"));

/// With no `$TASKLAB_GO`, the program built at compile time runs: `go` is
/// never run (the only one on PATH is the lab's, which leaves a mark), it
/// is kept beside its hash, and a kept copy changed since is replaced with
/// the embedded bytes, never run.
#[test]
fn the_program_built_at_compile_time_runs_without_a_toolchain() {
    if EMBEDDED.is_empty() {
        eprintln!("skipped: no Go toolchain when tasklab was built");
        return;
    }
    let lab = Lab::new();
    let run = || {
        lab.go_default(|cmd| {
            cmd.env_remove("TASKLAB_GO")
                .env("PATH", lab.t.path())
                .env("HOME", lab.path("home"))
                .env("XDG_CACHE_HOME", lab.path("xdg"));
        })
    };
    // An earlier tasklab's copy, with its hash: superseded, so removed.
    std::fs::create_dir_all(lab.cache()).unwrap();
    std::fs::set_permissions(lab.cache(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let older = lab.cache().join("go-pingpong-embedded-0123456789abcdef");
    plant(&older, "#!/bin/sh\n", 0o700);
    let e = run();
    assert!(measured(&e), "{}", brief(&e));
    let prog = kept(&lab.cache());
    assert_eq!(std::fs::read(&prog).unwrap(), EMBEDDED);
    for what in ["version", "build"] {
        let mark = lab.path(&format!("go-env-{what}"));
        assert!(!mark.exists(), "go {what} was run");
    }
    // Only the program and its hash: no Go build cache, no older copy.
    assert_eq!(
        listing(&lab.cache()).len(),
        2,
        "{:?}",
        listing(&lab.cache())
    );
    // Changed after it was kept: replaced, with a note.
    let mut bytes = EMBEDDED.to_vec();
    bytes.extend_from_slice(b"tampered");
    std::fs::write(&prog, &bytes).unwrap();
    let e = run();
    assert!(measured(&e), "{}", brief(&e));
    assert!(
        notes(&e).contains("was not run and was replaced"),
        "{}",
        notes(&e)
    );
    assert_eq!(std::fs::read(&prog).unwrap(), EMBEDDED);
}

/// Issue 29, item 10: the kept program is keyed by the toolchain's identity
/// (`go version` and its resolved path), so a program one toolchain built
/// never runs under another.
#[test]
fn a_program_built_by_one_toolchain_never_runs_under_another() {
    let lab = Lab::new();
    lab.write_go("go2", "other");
    let e = lab.run_with("go", true);
    assert!(measured(&e), "{}", brief(&e));
    assert!(lab.ran("built"));
    assert_eq!(lab.builds("go"), 1);

    // Another toolchain (another path, another version): built by it, and
    // only its program runs.
    std::fs::write(lab.path("version-go2"), "go version go9.9 fake2\n").unwrap();
    lab.forget_runs();
    let e = lab.run_with("go2", true);
    assert!(measured(&e), "{}", brief(&e));
    assert!(
        !lab.ran("built"),
        "the first toolchain's program ran under the second"
    );
    assert!(lab.ran("other"));
    assert_eq!(lab.builds("go2"), 1);

    // The same path, another version (an upgrade in place): built again.
    lab.write_go("go", "built");
    std::fs::write(lab.path("version-go"), "go version go1.99 upgraded\n").unwrap();
    lab.forget_runs();
    let e = lab.run_with("go", true);
    assert!(measured(&e), "{}", brief(&e));
    assert!(
        !lab.ran("other"),
        "the second toolchain's program ran under the first"
    );
    assert!(lab.ran("built"));
    assert_eq!(lab.builds("go"), 2, "the upgraded toolchain built it again");

    // Nothing changed: the kept program is reused, no build.
    lab.forget_runs();
    lab.run_with("go", true);
    assert!(lab.ran("built"));
    assert_eq!(
        lab.builds("go"),
        2,
        "an unchanged toolchain's program is reused"
    );
}

/// Runs switch.userspace with go_default and coroutine under `env`; its
/// result and notes.
fn go_and_coroutine(lab: &Lab, env: impl FnOnce(&mut assert_cmd::Command)) -> Value {
    let mut cmd = tasklab();
    cmd.args([
        "run",
        "switch.userspace",
        "-p",
        "variants=go_default,coroutine",
        "--rounds",
        "3",
        "--out",
    ])
    .arg(lab.path("out"))
    .args(["--json", "-"]);
    env(&mut cmd);
    let o = cmd.output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    experiment(&v, "switch.userspace").clone()
}

fn has_variant(e: &Value, variant: &str) -> bool {
    e["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m["labels"]["variant"] == variant)
}

/// Issue 29, item 8: a Go program that cannot be built or kept (a full
/// disk) drops only the Go variants, with the reason; the other variants of
/// the point are measured and the experiment does not fail.
#[test]
fn a_go_build_that_fails_on_a_full_disk_drops_only_the_go_variant() {
    let lab = Lab::new();
    std::fs::write(
        lab.path("build-fails"),
        "go: writing output: write pingpong: no space left on device\n",
    )
    .unwrap();
    let e = go_and_coroutine(&lab, |cmd| {
        cmd.env("TASKLAB_GO", lab.path("go"))
            .env("HOME", lab.path("home"))
            .env("XDG_CACHE_HOME", lab.path("xdg"))
            .env("TMPDIR", lab.path("tmp"));
    });
    assert_ok(&e);
    assert!(has_variant(&e, "coroutine"), "{}", brief(&e));
    assert!(!has_variant(&e, "go_default"), "{}", brief(&e));
    let n = notes(&e);
    assert!(
        n.contains("go_default skipped") && n.contains("no space left on device"),
        "{n}"
    );
}

/// Issue 29, item 8: under an address-space limit the Go runtime cannot
/// start (it reserves its heap's address space first): the Go variants are
/// dropped with the limit named, the rest measured.
#[test]
fn an_address_space_limit_drops_only_the_go_variant() {
    if EMBEDDED.is_empty() {
        eprintln!("skipped: no Go toolchain when tasklab was built");
        return;
    }
    if std::process::Command::new("prlimit")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: no prlimit");
        return;
    }
    let lab = Lab::new();
    let mut cmd = assert_cmd::Command::new("prlimit");
    cmd.args(["--as=536870912", "--"])
        .arg(assert_cmd::cargo::cargo_bin("tasklab"))
        .args([
            "run",
            "switch.userspace",
            "-p",
            "variants=go_default,coroutine",
            "--rounds",
            "3",
            "--out",
        ])
        .arg(lab.path("out"))
        .args(["--json", "-"])
        .env_remove("TASKLAB_GO")
        .env("HOME", lab.path("home"))
        .env("XDG_CACHE_HOME", lab.path("xdg"))
        .env("TMPDIR", lab.path("tmp"));
    let o = cmd.output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let e = experiment(&v, "switch.userspace");
    assert_ok(e);
    assert!(has_variant(e, "coroutine"), "{}", brief(e));
    let n = notes(e);
    if has_variant(e, "go_default") {
        // A Go runtime that starts in 512 MiB: nothing was dropped.
        return;
    }
    assert!(
        n.contains("go_default skipped") && n.contains("RLIMIT_AS"),
        "{n}"
    );
}
