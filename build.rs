//! Builds what tasklab execs and the one C shim it links.
//!
//! - `src/sys/vfork.c`: vfork must be called from C (see the file).
//! - `helpers/hello.c`, twice: a static and a dynamically linked tiny program,
//!   embedded in the binary and written to a private directory at run time, so
//!   the fork+exec figures need no network and no prebuilt binary. When the C
//!   compiler cannot link one of them (no static libc, say), an empty file is
//!   embedded and the experiment reports the reason instead of a figure.
//! - the Go ping-pong program (`build_go`), when a Go toolchain is there.
//! - `libgcc_s.a`, a link to gcc's static unwinder, so the binary maps no
//!   `libgcc_s.so.1` (`static_unwinder`).
//! - the build's identity (`build_identity`): the git commit and a build id,
//!   for `--version` and every results file.
use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// How long the compile-time Go build may take (a cold one takes seconds);
/// past it, go is killed and tasklab builds the program on first use.
const GO_BUILD_LIMIT: Duration = Duration::from_secs(300);

include!("helpers/go/offline_env.rs");

fn main() {
    println!("cargo:rerun-if-changed=src/sys/vfork.c");
    println!("cargo:rerun-if-changed=helpers/hello.c");
    cc::Build::new()
        .file("src/sys/vfork.c")
        .opt_level(2)
        .compile("tasklab_vfork");

    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    let compiler = cc::Build::new().get_compiler();
    for (name, extra) in [
        ("hello_static", &["-static"][..]),
        ("hello_dynamic", &[][..]),
    ] {
        let dest = out.join(name);
        let ok = Command::new(compiler.path())
            .args(["-O2", "-s", "-o"])
            .arg(&dest)
            .arg("helpers/hello.c")
            .args(extra)
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if !ok {
            println!("cargo:warning=could not build {name}; its exec experiments will be skipped");
            std::fs::write(&dest, b"").expect("write placeholder");
        }
    }
    build_go(&out);
    static_unwinder(&out, &compiler);
    build_identity();
}

/// Sets `TASKLAB_GIT_COMMIT` (`git rev-parse --short=12 HEAD`, with
/// "-dirty" when tracked files differ from it; "unknown" outside a git
/// checkout), `TASKLAB_BUILD_PROFILE` (cargo's profile and the target) and
/// `TASKLAB_BUILD_ID`: 16 hex digits of an FNV-1a hash of the commit, the
/// changes of a dirty tree (`git diff HEAD`), the package version, the
/// profile, the target and the compiler's version. The same sources built
/// the same way give the same id; any of those changed gives another.
///
/// This script reruns when HEAD or the branch it names moves (a commit, a
/// checkout), not on every edit of a source file (that would rebuild the
/// Go program each time): a tree edited since then keeps the mark it had.
fn build_identity() {
    let git = |args: &[&str]| -> Option<String> {
        let o = Command::new("git").args(args).output().ok()?;
        o.status
            .success()
            .then(|| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    for dir in [
        git(&["rev-parse", "--git-dir"]),
        git(&["rev-parse", "--git-common-dir"]),
    ]
    .into_iter()
    .flatten()
    {
        let dir = PathBuf::from(dir);
        let head = git(&["rev-parse", "--symbolic-full-name", "HEAD"]).unwrap_or_default();
        for f in [dir.join("HEAD"), dir.join(&head), dir.join("packed-refs")] {
            if f.is_file() {
                println!("cargo:rerun-if-changed={}", f.display());
            }
        }
    }
    let diff = git(&["diff", "HEAD", "--no-ext-diff", "--binary"]);
    let commit = match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(c) if !c.is_empty() => match &diff {
            Some(d) if !d.is_empty() => format!("{c}-dirty"),
            _ => c,
        },
        _ => "unknown".to_string(),
    };
    let profile = format!(
        "{} {}",
        env::var("PROFILE").unwrap_or_default(),
        env::var("TARGET").unwrap_or_default()
    );
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let rustc_version = Command::new(rustc)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    // FNV-1a, 64 bits: written out, so the build needs no hashing crate.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in [
        commit.as_str(),
        diff.as_deref().unwrap_or(""),
        env!("CARGO_PKG_VERSION"),
        profile.as_str(),
        env::var("OPT_LEVEL").unwrap_or_default().as_str(),
        rustc_version.trim(),
    ] {
        for b in part.bytes().chain([0u8]) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    println!("cargo:rustc-env=TASKLAB_GIT_COMMIT={commit}");
    println!("cargo:rustc-env=TASKLAB_BUILD_ID={h:016x}");
    println!("cargo:rustc-env=TASKLAB_BUILD_PROFILE={profile}");
}

/// Makes `-lgcc_s` find gcc's static unwinder, as gcc's `-static-libgcc` does
/// for a C++ program: std's `unwind` crate asks for `gcc_s`, and the linker
/// takes the first `libgcc_s.*` on its search path, where this puts a link
/// named `libgcc_s.a` to `libgcc_eh.a`. The process then maps no
/// `libgcc_s.so.1`, one shared library fewer for every fork to copy
/// (`src/sys/math_symbols.rs` says why that matters). Unwinding and
/// backtraces work the same: a statically linked Rust program uses this
/// unwinder. Without a `libgcc_eh.a` the program links to `libgcc_s.so.1` as
/// before, and the report names the library.
fn static_unwinder(out: &Path, compiler: &cc::Tool) {
    // The compiler's own arguments too: a cross-compiling clang finds the
    // target's file only with its --target.
    let found = Command::new(compiler.path())
        .args(compiler.args())
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    // gcc prints the bare name when it has no such file.
    let Some(eh) = found.filter(|p| p.is_absolute() && p.is_file()) else {
        println!("cargo:warning=no libgcc_eh.a: tasklab will map libgcc_s.so.1");
        return;
    };
    // A gcc upgrade moves the archive: the link is made again.
    println!("cargo:rerun-if-changed={}", eh.display());
    let dir = out.join("static-unwinder");
    std::fs::create_dir_all(&dir).expect("create the unwinder folder");
    let link = dir.join("libgcc_s.a");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&eh, &link).expect("link libgcc_s.a to libgcc_eh.a");
    println!("cargo:rustc-link-search=native={}", dir.display());
    // tests/spawn.rs then expects a worker without libgcc_s.so.1.
    println!("cargo:rustc-env=TASKLAB_STATIC_UNWINDER=1");
}

/// Builds the Go ping-pong program into `out/go_pingpong` (an empty file when
/// there is no Go toolchain or the build fails).
fn build_go(out: &Path) {
    println!("cargo:rerun-if-changed=helpers/go/pingpong/main.go");
    println!("cargo:rerun-if-changed=helpers/go/offline_env.rs");
    println!("cargo:rerun-if-env-changed=TASKLAB_GO");
    let dest = out.join("go_pingpong");
    // A program for another target would not run here: it is built at run
    // time on that target instead.
    if env::var("TARGET").ok() != env::var("HOST").ok() {
        std::fs::write(&dest, b"").expect("write placeholder");
        return;
    }
    let work = out.join("go-build");
    let go = env::var_os("TASKLAB_GO")
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "go".into());
    let home = work.join("home");
    for dir in [&home, &work.join("tmp"), &work.join("gocache")] {
        std::fs::create_dir_all(dir).expect("create the Go build folder");
    }
    std::fs::copy("helpers/go/pingpong/main.go", work.join("main.go")).expect("copy main.go");
    // A new or upgraded toolchain builds the program again.
    // With none found, a PATH that changes (to name a Go just installed) does.
    match on_path(&go) {
        Some(path) => println!("cargo:rerun-if-changed={}", path.display()),
        None => println!("cargo:rerun-if-env-changed=PATH"),
    }
    let mut cmd = Command::new(&go);
    go_offline_env(&mut cmd, &work, &work.join("gocache"));
    cmd.args(GO_BUILD_FLAGS).arg("-o").arg(&dest).arg("main.go");
    let ok = run_within(cmd, GO_BUILD_LIMIT);
    // The program is all that is kept: its build cache (some 35 MB) goes.
    let _ = std::fs::remove_dir_all(&work);
    if !ok {
        // No warning: a machine without Go is a supported set-up.
        std::fs::write(&dest, b"").expect("write placeholder");
    }
}

/// The file `prog` names: itself when it holds a `/`, else the first on PATH.
fn on_path(prog: &std::ffi::OsStr) -> Option<PathBuf> {
    let p = Path::new(prog);
    let found = if p.components().count() > 1 {
        Some(p.to_path_buf())
    } else {
        env::split_paths(&env::var_os("PATH")?)
            .map(|d| d.join(p))
            .find(|f| f.is_file())
    };
    found.and_then(|f| f.canonicalize().ok())
}

/// Runs `cmd` in a process group of its own to its end, or kills the
/// group (go and the compilers it started) at `limit`: whether it succeeded.
fn run_within(mut cmd: Command, limit: Duration) -> bool {
    use std::os::unix::process::CommandExt;
    let Ok(mut child) = cmd.process_group(0).spawn() else {
        return false;
    };
    let deadline = Instant::now() + limit;
    let why = loop {
        match child.try_wait() {
            Ok(Some(status)) => return status.success(),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
            Ok(None) => break format!("took more than {} s", limit.as_secs()),
            Err(e) => break format!("could not be waited for ({e})"),
        }
    };
    // The group's id is go's pid; `kill -KILL -- -PGID` reaches all of it.
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", child.id())])
        .status();
    let _ = child.kill();
    let _ = child.wait();
    println!("cargo:warning=the Go build {why} and was stopped; tasklab will build its Go program on first use");
    false
}
