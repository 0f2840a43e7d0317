//! Builds what tasklab execs and the one C shim it links.
//!
//! - `src/sys/vfork.c`: vfork must be called from C (see the file).
//! - `helpers/hello.c`, twice: a static and a dynamically linked tiny program,
//!   embedded in the binary and written to a private directory at run time, so
//!   the fork+exec figures need no network and no prebuilt binary. When the C
//!   compiler cannot link one of them (no static libc, say), an empty file is
//!   embedded and the experiment reports the reason instead of a figure.
use std::env;
use std::path::PathBuf;
use std::process::Command;

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
}
