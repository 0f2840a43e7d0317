// How `go` is run, shared by build.rs (the compile-time build) and
// src/experiments/switch/go.rs (a build at run time) through `include!`, so
// the two builds cannot drift apart.

/// `go` arguments after `build`: no paths of the build folder in the
/// program (every build of one source by one toolchain gives the same
/// bytes), no VCS look-up. `-o OUTPUT main.go` follows.
const GO_BUILD_FLAGS: &[&str] = &["build", "-trimpath", "-buildvcs=false"];

/// Sets `cmd` (a `go` command) to read no one's settings and to write only
/// into `work` (HOME, config, temp files, GOPATH) and `gocache`: no
/// telemetry, no toolchain or module downloads, no C compiler. `work` is
/// also its working folder; PATH and GOROOT are kept.
fn go_offline_env(
    cmd: &mut std::process::Command,
    work: &std::path::Path,
    gocache: &std::path::Path,
) {
    let home = work.join("home");
    cmd.env_clear()
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("HOME", &home)
        .env("GOCACHE", gocache)
        .env("GOPATH", work.join("gopath"))
        .env("GOTMPDIR", work.join("tmp"))
        .env("TMPDIR", work.join("tmp"))
        .env("GOENV", "off")
        .env("GOTELEMETRY", "off")
        .env("GOTOOLCHAIN", "local")
        .env("GOPROXY", "off")
        .env("GOFLAGS", "")
        .env("CGO_ENABLED", "0")
        .current_dir(work);
    for keep in ["PATH", "GOROOT"] {
        if let Some(v) = std::env::var_os(keep) {
            cmd.env(keep, v);
        }
    }
}
