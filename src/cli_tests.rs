use super::*;
use clap::CommandFactory;

#[test]
fn the_definition_is_consistent() {
    Cli::command().debug_assert();
}

#[test]
fn demo_takes_only_vm() {
    let parse = |args: &[&str]| Cli::try_parse_from(args).map(|c| c.command);
    assert!(matches!(
        parse(&["tasklab", "demo", "clone-vm"]),
        Ok(Some(Command::Demo(Demo::CloneVm { vm: None })))
    ));
    assert!(matches!(
        parse(&["tasklab", "demo", "clone-vm", "vm"]),
        Ok(Some(Command::Demo(Demo::CloneVm { vm: Some(_) })))
    ));
    assert!(parse(&["tasklab", "demo", "clone-vm", "files"]).is_err());
}

#[test]
fn idle_poll_is_an_opt_in_flag_of_run() {
    let run = |args: &[&str]| match Cli::try_parse_from(args).map(|c| c.command) {
        Ok(Some(Command::Run(r))) => Some(r.idle_poll),
        _ => None,
    };
    assert_eq!(run(&["tasklab", "run", "--idle-poll"]), Some(true));
    assert_eq!(run(&["tasklab", "run"]), Some(false));
    assert_eq!(run(&["tasklab", "run", "--idle-poll=yes"]), None);
}
