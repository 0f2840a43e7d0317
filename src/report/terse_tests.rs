use super::*;

fn star(s: &str) -> String {
    format!("*{s}*")
}

#[test]
fn the_summary_figures_are_bold_with_their_units_and_nothing_else() {
    assert_eq!(
        bold_figures("  • A bare system call costs 151.6 ns: the scale", star),
        "  • A bare system call costs *151.6 ns*: the scale"
    );
    assert_eq!(
        bold_figures(
            "fork 222 µs and a thread 21.0 µs (10.6x); [1.52x, 2.39x]",
            star
        ),
        "fork *222 µs* and a thread *21.0 µs* (*10.6x*); [*1.52x*, *2.39x*]"
    );
    assert_eq!(
        bold_figures("(20.4 µs) is 7.5x, 156 µs ±12% ~", star),
        "(*20.4 µs*) is *7.5x*, *156 µs* *±12%* ~"
    );
    // Words, identifiers and labels stay as they are.
    let plain = "pipe_threads, n=55256000, thp=on, clone3 and x86_64";
    assert_eq!(bold_figures(plain, star), plain);
    // Without colour the text is unchanged.
    let line = "a fork costs 246 µs";
    assert_eq!(bold_figures(line, crate::paint::bold), line);
}

/// The header's clocks as the report writes them: no digit grouping, so
/// one line never reads "3,979 MHz measured, 2,600 stated (rounds
/// 3863–3983 MHz ...)" (the three default runs of /tmp/s18).
#[test]
fn the_header_writes_every_clock_alike() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-results.json");
    let mut r = crate::results::RunResults::read(&path).expect("the fixture reads");
    r.calibration.measured_mhz = Some(3979.2);
    r.env.stated_mhz = Some(2600.0);
    let h = header(&r, 200);
    assert!(h.contains("3979 MHz measured, 2600 stated"), "{h}");
    assert!(!h.contains("3,979") && !h.contains("2,600"), "{h}");
}
