use super::*;
use crate::experiments::testing::{metric, result};
use crate::measure::sizing::{Profile, Sizing};

/// Plans the fan-out with `overrides` under `sizing`.
fn plan(overrides: &[(&str, &str)], sizing: Sizing) -> Result<Points, String> {
    // The last of equal names wins, as on the command line.
    let overrides: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let params = Params::resolve(EXPERIMENT.params, Profile::Quick, &overrides).unwrap();
    let user_set: Vec<String> = overrides.iter().map(|(k, _)| k.clone()).collect();
    let env = crate::env::probe();
    (EXPERIMENT.points)(&PlanCtx {
        env: &env,
        user_set: &user_set,
        params: &params,
        sizing,
    })
}

/// Four reports of 16 s each on their sinks, twice: about 166 s planned.
const LONG: &[(&str, &str)] = &[
    ("jobs", "4"),
    ("cpu_ms", "0"),
    ("output", "1M"),
    ("sink_rate", "64K"),
    ("reps", "2"),
];

#[test]
fn the_plan_honours_the_runs_real_timeout() {
    // Regression: the fan-out was planned with the profile's default limit
    // (0.8 × 120 s), not the one the user gave with --timeout.
    let quick = Sizing::of(Profile::Quick);
    let err = plan(LONG, quick).err().expect("refused");
    assert!(
        err.contains("about 166 s") && err.contains("96 s allowed"),
        "{err}"
    );
    let pts = plan(LONG, quick.with_timeout(Some(1000.0))).unwrap();
    assert_eq!(pts.points.len(), 1);
    // The fan-out's own ceiling still holds, whatever the timeout.
    let longer = [LONG, &[("reps", "10")]].concat();
    let err = plan(&longer, quick.with_timeout(Some(1e6)))
        .err()
        .expect("refused");
    assert!(err.contains("600 s allowed"), "{err}");
}

#[test]
fn a_sink_that_takes_nothing_is_refused() {
    let err = plan(&[("sink_rate", "0")], Sizing::of(Profile::Quick))
        .err()
        .expect("refused");
    assert!(err.starts_with("sink_rate=0"), "{err}");
}

#[test]
fn the_finding_explains_a_speedup_beyond_the_cpus() {
    let mut r = result(vec![
        metric("wall_ns", &[("mode", "serial"), ("jobs", "4")], &[260e6]),
        metric("wall_ns", &[("mode", "forked"), ("jobs", "4")], &[70e6]),
        metric("speedup", &[("mode", "forked"), ("jobs", "4")], &[3.7]),
    ]);
    for (name, value) in [
        ("cpus", 2.0),
        ("jobs", 4.0),
        ("sink_ns_per_job", 62.5e6),
        ("cpu_ns_per_job", 1e6),
    ] {
        r.readings.push(crate::results::Reading {
            name: name.into(),
            unit: Unit::Ns,
            labels: Labels::new(),
            value,
        });
    }
    let f = analyze(&r).findings;
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(
        f[0].starts_with("4 reports")
            && f[0].contains("3.70x [")
            && f[0].contains("], more than the 2 CPUs"),
        "{}",
        f[0]
    );
    // The cause is the readings': each child waits on its sink longer
    // than it computes.
    assert!(
        f[0].contains(
            "because each child waits on its sink (62.5 ms) longer than it computes (1.00 ms)"
        ),
        "{}",
        f[0]
    );
    // Where the readings do not bear it out, no cause is named.
    for x in &mut r.readings {
        if x.name == "cpu_ns_per_job" {
            x.value = 80e6;
        }
    }
    let f = analyze(&r).findings;
    assert!(
        f[0].contains("], more than the 2 CPUs could give;"),
        "{}",
        f[0]
    );
    assert!(!f[0].contains("because"), "{}", f[0]);
}

/// Issue 39: "more than the CPUs could give" rests on the speedup's
/// interval, never on its median alone.
#[test]
fn a_speedup_past_the_cpus_is_claimed_only_when_its_interval_is() {
    use crate::experiments::testing::settled;
    let with = |lo: f64, hi: f64| {
        let mut r = result(vec![
            metric("wall_ns", &[("mode", "serial"), ("jobs", "4")], &[166e6]),
            metric("wall_ns", &[("mode", "forked"), ("jobs", "4")], &[60e6]),
            settled(
                "speedup",
                &[("mode", "forked"), ("jobs", "4")],
                2.74,
                lo,
                hi,
            ),
        ]);
        r.readings.push(crate::results::Reading {
            name: "cpus".into(),
            unit: Unit::Count,
            labels: Labels::new(),
            value: 2.0,
        });
        analyze(&r).findings.remove(0)
    };
    let apart = with(2.3, 3.1);
    assert!(
        apart.contains(", more than the 2 CPUs could give"),
        "{apart}"
    );
    let reaching = with(1.8, 3.4);
    assert!(!reaching.contains("more than the 2 CPUs"), "{reaching}");
    assert!(
        reaching.contains("not told apart from the 2x the 2 CPUs could give"),
        "{reaching}"
    );
}
