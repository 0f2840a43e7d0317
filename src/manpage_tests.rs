use super::*;

/// A page's first request after roff's string definitions (the `.ie`/`.el`
/// pair defining the apostrophe) is its title, `.TH`.
fn titled(page: &str) -> bool {
    page.lines()
        .find(|l| !l.starts_with(".ie ") && !l.starts_with(".el "))
        .is_some_and(|l| l.starts_with(".TH tasklab"))
}

/// The commands a user may type: every one not hidden.
fn commands() -> Vec<String> {
    Cli::command()
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(|c| c.get_name().to_string())
        .collect()
}

#[test]
fn the_bash_completion_names_tasklab_and_every_command() {
    let s = completion_script(ShellArg::Bash);
    assert!(s.contains("tasklab"), "{s:.300}");
    let cmds = commands();
    assert!(cmds.len() >= 10, "{cmds:?}");
    for c in &cmds {
        assert!(s.contains(c.as_str()), "{c} not completed");
    }
    // Flags too.
    assert!(s.contains("--rounds") && s.contains("--color"));
}

#[test]
fn every_shell_gets_a_script_naming_the_commands() {
    for shell in [
        ShellArg::Zsh,
        ShellArg::Fish,
        ShellArg::Elvish,
        ShellArg::Powershell,
    ] {
        let s = completion_script(shell);
        for c in ["run", "compare", "predict", "completions", "man"] {
            assert!(s.contains(c), "{shell:?}: {c}");
        }
    }
}

#[test]
fn the_man_page_is_roff_naming_every_command() {
    let m = man_page().unwrap();
    assert!(titled(&m), "{m:.200}");
    assert!(m.contains(".SH NAME") && m.contains(".SH SYNOPSIS"));
    for c in commands() {
        assert!(m.contains(&format!("tasklab\\-{c}(1)")), "{c}");
    }
    assert!(!m.contains("__worker"));
}

#[test]
fn man_out_writes_a_page_per_command() {
    let dir = tempfile::tempdir().unwrap();
    man(Some(dir.path())).unwrap();
    assert!(dir.path().join("tasklab.1").is_file());
    for c in commands() {
        let page = dir.path().join(format!("tasklab-{c}.1"));
        let text = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{page:?}: {e}"));
        assert!(titled(&text), "{page:?}");
    }
}
