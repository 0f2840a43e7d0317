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

/// The commands that measure, each with the arguments it needs besides the
/// shared flags.
const MEASURING: [(&str, &[&str]); 3] = [
    ("run", &[]),
    ("ab", &["--a", "param:ns=1000", "--b", "param:ns=1050"]),
    ("calibrate", &[]),
];

/// The shared flags of `command` parsed from `flags`, or clap's error.
fn measure_of(command: &str, flags: &[&str]) -> Result<MeasureArgs, clap::Error> {
    let base = MEASURING.iter().find(|(c, _)| *c == command).unwrap().1;
    let head = ["tasklab", command];
    // Names and flags before ab's --a and --b, which take every value after them.
    let args = head.iter().chain(flags).chain(base);
    Ok(match Cli::try_parse_from(args)?.command {
        Some(Command::Run(a)) => a.measure,
        Some(Command::Ab(a)) => a.measure,
        Some(Command::Calibrate(a)) => a.measure,
        other => panic!("{command}: {other:?}"),
    })
}

#[test]
fn run_ab_and_calibrate_accept_every_shared_flag() {
    type Check = fn(&MeasureArgs) -> bool;
    let cases: [(&[&str], Check); 10] = [
        (&["spawn.heap", "yardstick"], |m| {
            m.names == ["spawn.heap", "yardstick"]
        }),
        (&["--profile", "thorough"], |m| {
            m.profile == ProfileArg::Thorough
        }),
        (&["-p", "ns=5", "--param", "a.b=6"], |m| {
            m.params == ["ns=5", "a.b=6"]
        }),
        (&["--pin", "0-1"], |m| m.pin.as_deref() == Some("0-1")),
        (&["--timeout", "30"], |m| m.timeout == Some(30.0)),
        (&["--rounds", "7"], |m| m.rounds == Some(7)),
        (&["--seed", "42"], |m| m.seed == Some(42)),
        (&["--quiet"], |m| m.quiet),
        (&["-q"], |m| m.quiet),
        (&[], |m| *m == MeasureArgs::default()),
    ];
    for (command, _) in MEASURING {
        for (flags, holds) in &cases {
            let m =
                measure_of(command, flags).unwrap_or_else(|e| panic!("{command} {flags:?}: {e}"));
            assert!(holds(&m), "{command} {flags:?}: {m:?}");
        }
    }
}

#[test]
fn pause_is_a_flag_of_run_and_calibrate() {
    let pause = |args: &[&str]| match Cli::try_parse_from(args).map(|c| c.command) {
        Ok(Some(Command::Run(a))) => a.pause.pause,
        Ok(Some(Command::Calibrate(a))) => a.pause.pause,
        other => panic!("{args:?}: {other:?}"),
    };
    assert_eq!(pause(&["tasklab", "run", "--pause", "2.5"]), Some(2.5));
    assert_eq!(
        pause(&["tasklab", "calibrate", "--pause", "2.5"]),
        Some(2.5)
    );
}

#[test]
fn a_shared_flag_has_one_help_text_in_every_command() {
    let cli = Cli::command();
    let shared = MeasureArgs::augment_args(clap::Command::new("shared"));
    let pause = PauseArgs::augment_args(clap::Command::new("pause"));
    let sets = [
        (&shared, &["run", "ab", "calibrate"][..]),
        (&pause, &["run", "calibrate"][..]),
    ];
    for (set, commands) in sets {
        for want in set.get_arguments() {
            let id = want.get_id();
            let text = |a: &clap::Arg| {
                format!(
                    "{:?} {:?} {:?} {:?} {:?} {:?}",
                    a.get_long(),
                    a.get_short(),
                    a.get_value_names(),
                    a.get_help().map(|h| h.to_string()),
                    a.get_long_help().map(|h| h.to_string()),
                    a.get_default_values(),
                )
            };
            for c in commands {
                let sub = cli.find_subcommand(c).unwrap();
                let got = sub
                    .get_arguments()
                    .find(|a| a.get_id() == id)
                    .unwrap_or_else(|| panic!("{c} lacks {id}"));
                assert_eq!(text(got), text(want), "{c} --{id}");
            }
        }
    }
}

#[test]
fn a_threshold_is_a_percentage_below_100() {
    for ok in ["0", "5", "2.5", "99.9"] {
        let t: Threshold = ok.parse().unwrap();
        assert_eq!(t.pct(), ok.parse::<f64>().unwrap());
    }
    for bad in ["-1", "-0.1", "100", "200", "nan", "inf", "-inf", "abc", ""] {
        assert_eq!(
            bad.parse::<Threshold>(),
            Err(Threshold::RANGE.to_string()),
            "{bad}"
        );
    }
    assert_eq!(Threshold::default(), Threshold::DEFAULT);
    assert_eq!(Threshold::DEFAULT.fraction(), 0.05);
    // The man page and --help show the default as they did: 5.
    assert_eq!(Threshold::DEFAULT.to_string(), "5");
}

#[test]
fn every_threshold_flag_refuses_the_same_range() {
    let commands: [&[&str]; 3] = [
        &["tasklab", "compare", "a.json", "b.json"],
        &["tasklab", "ab", "--a", "param:ns=1", "--b", "param:ns=2"],
        &["tasklab", "calibrate"],
    ];
    for args in commands {
        for bad in ["-5", "100", "nan", "abc"] {
            let e = Cli::try_parse_from(args.iter().chain(&["--threshold", bad]))
                .expect_err(&format!("{args:?} --threshold {bad}"));
            assert_eq!(e.kind(), clap::error::ErrorKind::ValueValidation);
            // clap exits 2, as every usage error does.
            assert_eq!(e.exit_code(), 2);
            let text = e.to_string();
            assert!(text.contains(Threshold::RANGE), "{text}");
        }
        let ok = Cli::try_parse_from(args.iter().chain(&["--threshold", "2"]));
        assert!(ok.is_ok(), "{args:?}: {ok:?}");
    }
}
