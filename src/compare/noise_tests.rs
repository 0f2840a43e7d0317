use super::*;
use crate::stats::noise::RunNoise;

fn fingerprint(kernel: &str) -> Fingerprint {
    let mut e = crate::env::Env::read_from(
        Path::new("/nonexistent-tasklab-root"),
        kernel.into(),
        "x86_64".into(),
    );
    e.cpu_model = "Test CPU".into();
    Fingerprint::of(&e)
}

fn file(kernel: &str) -> NoiseFile {
    NoiseFile {
        schema: NOISE_SCHEMA.into(),
        schema_version: NOISE_VERSION,
        tool_version: "0".into(),
        created_unix_s: 0.0,
        fingerprint: fingerprint(kernel),
        profile: "quick".into(),
        rounds: 8,
        runs: 4,
        estimator: ESTIMATOR.into(),
        series: vec![SeriesNoise {
            experiment: "yardstick.syscall".into(),
            metric: "call_ns".into(),
            labels: [("call".to_string(), "getppid".to_string())].into(),
            noise: RunNoise {
                band: 0.04,
                spread: 0.02,
                within: 0.005,
                runs: 4,
            },
        }],
        false_alarms: None,
    }
}

fn bytes(v: &serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(v).unwrap()
}

#[test]
fn a_good_file_round_trips_and_answers_its_series_band() {
    let f = file("6.8.0");
    let back = parse(&serde_json::to_vec(&f).unwrap(), "n.json").unwrap();
    assert_eq!(back, f);
    let n = Noise::new(back, "n.json".into(), false);
    let labels: Labels = [("call".to_string(), "getppid".to_string())].into();
    assert_eq!(n.band("yardstick.syscall", "call_ns", &labels), Some(0.04));
    assert_eq!(n.band("yardstick.syscall", "call_ns", &Labels::new()), None);
    // what compare moderates: the runs' variance, the rounds' part, runs - 1
    let c = n
        .calibrated("yardstick.syscall", "call_ns", &labels)
        .unwrap();
    assert_eq!((c.total, c.within, c.df), (0.02 * 0.02, 0.005 * 0.005, 3.0));
    assert!(n
        .check_machine(&fingerprint("6.8.0"), "the base files")
        .is_ok());
}

#[test]
fn a_noise_file_of_another_machine_is_refused_with_what_differs() {
    let n = Noise::new(file("6.8.0"), "n.json".into(), false);
    let e = n
        .check_machine(&fingerprint("6.9.0"), "the base files")
        .unwrap_err();
    assert!(e.0.contains("from another machine"), "{}", e.0);
    assert!(e.0.contains("kernel: 6.8.0 -> 6.9.0"), "{}", e.0);
}

#[test]
fn a_corrupt_file_or_another_schema_is_refused_with_the_reason() {
    let good = serde_json::to_value(file("6.8.0")).unwrap();
    let mut cases: Vec<(Vec<u8>, &str)> = vec![
        (b"{\"schema\": \"tasklab-noi".to_vec(), "not valid JSON"),
        (b"{\"hello\": 1}".to_vec(), "not a tasklab noise file"),
    ];
    let mut results = good.clone();
    results["schema"] = "tasklab-results".into();
    cases.push((bytes(&results), "not a tasklab noise file"));
    let mut v2 = good.clone();
    v2["schema_version"] = 2.into();
    cases.push((bytes(&v2), "schema version 2"));
    let mut edited = good.clone();
    edited["fingerprint"]["kernel"] = "6.9.0".into();
    cases.push((bytes(&edited), "its fingerprint's hash"));
    let mut negative = good.clone();
    negative["series"][0]["band"] = (-0.1).into();
    cases.push((bytes(&negative), "not a number at least 0"));
    let mut within = good.clone();
    within["series"][0]["within"] = (-0.01).into();
    cases.push((bytes(&within), "the spread or within of yardstick.syscall"));
    let mut missing = good;
    missing.as_object_mut().unwrap().remove("series");
    cases.push((bytes(&missing), "does not match the noise file's schema"));
    for (b, why) in cases {
        let e = parse(&b, "n.json").unwrap_err();
        assert!(e.contains("n.json") && e.contains(why), "{why}: {e}");
    }
}

#[test]
fn written_to_a_named_file_it_reads_back() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("noise.json");
    let f = file("6.8.0");
    assert_eq!(write(&f, Some(&p)).unwrap(), p);
    assert_eq!(read(&p).unwrap().file, f);
    assert_eq!(
        cache_name(&f.fingerprint),
        format!("noise-{}.json", f.fingerprint.hash)
    );
}
