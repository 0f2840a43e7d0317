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
