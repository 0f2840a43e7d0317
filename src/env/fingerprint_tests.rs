use super::*;
use std::path::Path;

/// An environment read from an empty root: every fact unknown, but a
/// complete `Env` to vary.
fn env() -> Env {
    let mut e = Env::read_from(
        Path::new("/nonexistent-tasklab-root"),
        "6.8.0-test".into(),
        "x86_64".into(),
    );
    e.cpu_model = "Test CPU @ 3.00GHz".into();
    e.cpus_online = 2;
    e.virtualization = Some("kvm".into());
    e.thp_enabled = Some("madvise".into());
    e.thp_defrag = Some("madvise".into());
    e.mitigations = vec![
        ("meltdown".into(), "Not affected".into()),
        ("spectre_v2".into(), "Mitigation: Retpolines".into()),
    ];
    e
}

#[test]
fn the_hash_is_stable_short_and_of_the_fields() {
    let f = Fingerprint::of(&env());
    assert_eq!(f.hash.len(), HASH_DIGITS);
    assert!(f.hash.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_eq!(f, Fingerprint::of(&env()));
    assert!(f.is_consistent());
    let mut edited = f.clone();
    edited.kernel = "6.9.0".into();
    assert!(!edited.is_consistent());
}

#[test]
fn what_varies_from_run_to_run_leaves_the_fingerprint_alone() {
    let a = Fingerprint::of(&env());
    let mut e = env();
    e.hostname = "another-name".into();
    e.mem_available_bytes = 12345;
    e.cpuinfo_mhz = Some(2999.0);
    e.cpus_allowed = vec![0];
    // The kernel lists the vulnerabilities in its own order.
    e.mitigations.reverse();
    assert_eq!(a, Fingerprint::of(&e));
}

#[test]
fn each_fact_of_the_fingerprint_changes_its_hash_and_is_named() {
    let a = Fingerprint::of(&env());
    type Change = Box<dyn Fn(&mut Env)>;
    let changes: Vec<(&str, Change)> = vec![
        ("CPU", Box::new(|e| e.cpu_model = "Other CPU".into())),
        ("CPUs online", Box::new(|e| e.cpus_online = 4)),
        ("kernel", Box::new(|e| e.kernel = "6.9.1".into())),
        ("virtualisation", Box::new(|e| e.virtualization = None)),
        ("THP", Box::new(|e| e.thp_enabled = Some("always".into()))),
        (
            "mitigations (spectre_v2)",
            Box::new(|e| e.mitigations[1].1 = "Vulnerable".into()),
        ),
    ];
    for (what, change) in changes {
        let mut e = env();
        change(&mut e);
        let b = Fingerprint::of(&e);
        assert_ne!(a.hash, b.hash, "{what}");
        let d = a.differences(&b);
        assert_eq!(d.len(), 1, "{what}: {d:?}");
        assert!(d[0].starts_with(what), "{what}: {d:?}");
    }
    assert!(a.differences(&a).is_empty());
}

#[test]
fn the_fingerprint_round_trips_through_the_environment_json() {
    let mut e = env();
    e.fingerprint = Some(Fingerprint::of(&e));
    let back: Env = serde_json::from_str(&serde_json::to_string(&e).unwrap()).unwrap();
    assert_eq!(back.fingerprint, e.fingerprint);
    // An older file has none; it reads, and its fingerprint is computed.
    let mut v = serde_json::to_value(&e).unwrap();
    v.as_object_mut().unwrap().remove("fingerprint");
    let old: Env = serde_json::from_value(v).unwrap();
    assert_eq!(old.fingerprint, None);
    assert_eq!(Fingerprint::of(&old), e.fingerprint.unwrap());
}
