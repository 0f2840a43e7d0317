use super::*;
use std::os::unix::fs::PermissionsExt;

/// Keeps `bytes` as `dir/name` with its hash, as a build does.
fn place(dir: &Path, bytes: &[u8], name: &str) -> io::Result<()> {
    place_bytes(dir, bytes, &sha256_hex(bytes)?, name)
}

#[test]
fn an_empty_tasklab_go_is_treated_as_unset() {
    assert_eq!(go_command(None), "go");
    assert_eq!(go_command(Some("".into())), "go");
    assert_eq!(go_command(Some("/opt/go/bin/go".into())), "/opt/go/bin/go");
}

#[test]
fn the_cache_is_under_xdg_cache_home_or_home() {
    let home = Some("/home/u".into());
    assert_eq!(
        cache_root(Some("/c".into()), home.clone()),
        Some(PathBuf::from("/c"))
    );
    // Empty or relative XDG_CACHE_HOME is ignored, as the XDG spec says.
    for xdg in ["", "rel/cache"] {
        assert_eq!(
            cache_root(Some(xdg.into()), home.clone()),
            Some(PathBuf::from("/home/u/.cache"))
        );
    }
    assert_eq!(cache_root(None, Some("".into())), None);
    assert_eq!(cache_root(None, None), None);
}

#[test]
fn a_placed_program_verifies_and_its_files_are_private() {
    let t = tempfile::tempdir().unwrap();
    place(t.path(), "#!/bin/sh\n".as_bytes(), "prog").unwrap();
    assert_eq!(verified(t.path(), "prog"), Ok(t.path().join("prog")));
    let mode = |n: &str| {
        std::fs::metadata(t.path().join(n))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(mode("prog"), 0o700);
    assert_eq!(mode("prog.sha256"), 0o600);
    // Placing again (a rebuild) replaces both.
    place(t.path(), "#!/bin/sh\nexit 0\n".as_bytes(), "prog").unwrap();
    assert!(verified(t.path(), "prog").is_ok());
    let left: Vec<_> = std::fs::read_dir(t.path()).unwrap().flatten().collect();
    assert_eq!(left.len(), 2, "no temp file is left: {left:?}");
}

#[test]
fn a_tampered_program_is_refused() {
    let t = tempfile::tempdir().unwrap();
    place(t.path(), "#!/bin/sh\n".as_bytes(), "prog").unwrap();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(t.path().join("prog"))
        .unwrap();
    f.write_all(b"touch /tmp/owned\n").unwrap();
    match verified(t.path(), "prog") {
        Err(Unverified::Refused(why)) => assert!(why.contains("SHA-256"), "{why}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_program_others_can_write_or_a_link_is_refused() {
    let t = tempfile::tempdir().unwrap();
    place(t.path(), "#!/bin/sh\n".as_bytes(), "prog").unwrap();
    let prog = t.path().join("prog");
    std::fs::set_permissions(&prog, std::fs::Permissions::from_mode(0o770)).unwrap();
    match verified(t.path(), "prog") {
        Err(Unverified::Refused(why)) => assert!(why.contains("group or by others"), "{why}"),
        other => panic!("{other:?}"),
    }
    // A link to a good copy, with the right hash beside it, is still refused.
    std::fs::rename(&prog, t.path().join("real")).unwrap();
    std::fs::set_permissions(
        t.path().join("real"),
        std::fs::Permissions::from_mode(0o700),
    )
    .unwrap();
    std::os::unix::fs::symlink(t.path().join("real"), &prog).unwrap();
    match verified(t.path(), "prog") {
        Err(Unverified::Refused(why)) => assert!(why.contains("symbolic link"), "{why}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_program_without_its_hash_counts_as_not_built() {
    let t = tempfile::tempdir().unwrap();
    place(t.path(), "#!/bin/sh\n".as_bytes(), "prog").unwrap();
    std::fs::remove_file(t.path().join("prog.sha256")).unwrap();
    assert_eq!(verified(t.path(), "prog"), Err(Unverified::Missing));
}

#[test]
fn leftovers_of_dead_runs_are_swept_and_live_ones_kept() {
    let t = tempfile::tempdir().unwrap();
    // A pid above pid_max can belong to no process.
    let pid_max: u64 = std::fs::read_to_string("/proc/sys/kernel/pid_max")
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let dead = pid_max + 1;
    let me = std::process::id();
    std::fs::create_dir(t.path().join(format!("{PARTIAL}{dead}-abc"))).unwrap();
    std::fs::write(t.path().join(format!("{PARTIAL}{dead}-def")), "").unwrap();
    for keep in [
        format!("{PARTIAL}{me}-abc"),
        format!("{PARTIAL}1-abc"),
        "go-pingpong-0123".to_string(),
        format!("{PARTIAL}notapid"),
    ] {
        std::fs::write(t.path().join(keep), "").unwrap();
    }
    sweep_partials(t.path());
    let mut left: Vec<String> = std::fs::read_dir(t.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    let mut want = vec![
        format!("{PARTIAL}{me}-abc"),
        format!("{PARTIAL}1-abc"),
        "go-pingpong-0123".to_string(),
        format!("{PARTIAL}notapid"),
    ];
    want.sort();
    assert_eq!(left, want);
}

#[test]
fn go_runs_with_its_own_home_and_none_of_the_callers_settings() {
    let work = tempfile::tempdir().unwrap();
    let cache = work.path().join("gocache");
    let out = go_cmd("env".as_ref(), work.path(), &cache)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let allowed = [
        "PATH",
        "GOROOT",
        "HOME",
        "XDG_CONFIG_HOME",
        "XDG_CACHE_HOME",
        "GOCACHE",
        "GOPATH",
        "GOTMPDIR",
        "TMPDIR",
        "GOENV",
        "GOTELEMETRY",
        "GOTOOLCHAIN",
        "GOPROXY",
        "GOFLAGS",
        "CGO_ENABLED",
        "PWD", // some `env`s add it
    ];
    for line in text.lines() {
        let key = line.split('=').next().unwrap();
        assert!(allowed.contains(&key), "{key} reached go: {text}");
    }
    let work = work.path().display().to_string();
    assert!(text.contains(&format!("HOME={work}/home\n")), "{text}");
    assert!(text.contains("GOTELEMETRY=off\n"), "{text}");
    assert!(
        text.contains(&format!("GOCACHE={work}/gocache\n")),
        "{text}"
    );
}

#[test]
fn a_command_past_its_deadline_is_killed() {
    let work = tempfile::tempdir().unwrap();
    let mut sleep = Command::new("sleep");
    sleep.arg("600");
    let deadline = Instant::now() + Duration::from_millis(100);
    assert!(run_bounded(sleep, work.path(), "sleep", deadline)
        .unwrap()
        .is_none());
    let mut sh = Command::new("/bin/sh");
    let far = Instant::now() + Duration::from_secs(600);
    sh.args(["-c", "echo said; echo oops >&2; exit 3"]);
    let e = run_bounded(sh, work.path(), "sh", far).unwrap().unwrap();
    assert_eq!(
        (e.status.code(), e.out.as_str(), e.err.as_str()),
        (Some(3), "said", "oops")
    );
}

#[test]
fn the_cpu_line_is_read_per_round_trip_and_a_bad_one_is_not() {
    let text = "100 50000\n100 52000\ncpu 30000 10000 200\n";
    assert_eq!(parse_cpu(text), Some(CpuPerOp { ns: 200.0 }));
    assert_eq!(parse_cpu("100 50000\n"), None);
    assert_eq!(parse_cpu("cpu 30000 10000 0\n"), None);
    assert_eq!(parse_cpu("cpu 30000 x 200\n"), None);
    assert_eq!(parse_cpu("cpu -5 10 200\n"), None);
}

#[test]
fn the_embedded_program_serves_unless_a_toolchain_is_named_at_run_time() {
    static BYTES: &[u8] = b"\x7fELF program";
    assert_eq!(embedded(None, BYTES), Some(BYTES));
    assert_eq!(embedded(Some("".into()), BYTES), Some(BYTES));
    assert_eq!(embedded(Some("/opt/go/bin/go".into()), BYTES), None);
    assert_eq!(embedded(None, b""), None, "no toolchain at compile time");
    // Named after its content: another build is another file.
    let name = |b: &[u8]| embedded_name(&sha256_hex(b).unwrap());
    assert_ne!(name(BYTES), name(b"\x7fELF other"));
    assert!(name(BYTES).starts_with("go-pingpong-embedded-"));
}

#[test]
fn keeping_a_program_removes_those_of_its_kind_it_supersedes_and_nothing_else() {
    let t = tempfile::tempdir().unwrap();
    let old = embedded_name(&sha256_hex(&b"old"[..]).unwrap());
    place(t.path(), b"#!/bin/sh\n", &old).unwrap();
    place(t.path(), b"#!/bin/sh\n", &binary_name(&tool())).unwrap();
    std::fs::create_dir(t.path().join("gocache")).unwrap();
    std::fs::write(t.path().join("notes.txt"), "mine").unwrap();
    let bytes = b"#!/bin/sh\nexit 0\n";
    let hash = sha256_hex(&bytes[..]).unwrap();
    let new = embedded_name(&hash);
    let bin = keep_checked(t.path(), &new, bytes, &hash).unwrap();
    assert_eq!(bin, t.path().join(&new));
    let mut left: Vec<String> = std::fs::read_dir(t.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    // The program built with $TASKLAB_GO is of another kind: it stays.
    let mut want = vec![
        new.clone(),
        hash_name(&new),
        binary_name(&tool()),
        hash_name(&binary_name(&tool())),
        "gocache".into(),
        "notes.txt".into(),
    ];
    want.sort();
    assert_eq!(left, want);
    // A new build of the Go source supersedes the one built before it.
    let rebuilt = format!("{KEPT_PREFIX}0123456789abcdef");
    keep_checked(t.path(), &rebuilt, bytes, &hash).unwrap();
    assert!(t.path().join(&new).exists(), "the embedded copy stays");
    assert!(!t.path().join(binary_name(&tool())).exists());
    assert!(!t.path().join(hash_name(&binary_name(&tool()))).exists());
}

fn tool() -> Toolchain {
    Toolchain {
        path: PathBuf::from("/opt/go/bin/go"),
        version: "go version go1.22.0 linux/amd64".into(),
    }
}

#[test]
fn a_program_is_kept_under_its_toolchain_s_version_and_path() {
    let a = tool();
    let other_version = Toolchain {
        version: "go version go1.23.1 linux/amd64".into(),
        ..tool()
    };
    let other_path = Toolchain {
        path: PathBuf::from("/usr/lib/go/bin/go"),
        ..tool()
    };
    let names = [&a, &other_version, &other_path].map(binary_name);
    assert_ne!(names[0], names[1], "another version, another program");
    assert_ne!(
        names[0], names[2],
        "another toolchain path, another program"
    );
    assert_eq!(
        binary_name(&a),
        names[0],
        "the same toolchain, the same name"
    );
    for n in &names {
        assert!(n.starts_with(&source_prefix()), "{n}");
        assert_eq!(kept_kind(n), Some(KEPT_PREFIX));
    }
}

#[test]
fn the_toolchain_resolves_through_path_and_links_to_what_is_run() {
    use std::os::unix::fs::PermissionsExt;
    let t = tempfile::tempdir().unwrap();
    let bin = t.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let real = t.path().join("real-go");
    std::fs::write(&real, "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::symlink(&real, bin.join("go")).unwrap();
    let canon = std::fs::canonicalize(&real).unwrap();
    let path = std::env::join_paths([Path::new("/nonexistent"), &bin]).unwrap();
    assert_eq!(
        resolve_toolchain("go".as_ref(), Some(&path)),
        Ok(canon.clone())
    );
    assert_eq!(
        resolve_toolchain(bin.join("go").as_os_str(), None),
        Ok(canon)
    );
    // Not executable, missing, or no PATH: no toolchain, with the name.
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o644)).unwrap();
    let e = resolve_toolchain("go".as_ref(), Some(&path)).unwrap_err();
    assert!(e.contains("'go'"), "{e}");
    assert!(resolve_toolchain("go".as_ref(), None).is_err());
    assert!(resolve_toolchain(t.path().join("none").as_os_str(), None).is_err());
}
