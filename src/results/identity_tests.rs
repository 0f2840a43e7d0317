use super::*;
use std::path::Path;

fn old_file() -> RunResults {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-results.json");
    RunResults::read(&p).unwrap()
}

#[test]
fn an_older_file_loads_and_what_it_lacks_is_unknown() {
    let r = old_file();
    assert_eq!(r.schema_version, 2);
    assert_eq!(r.run_id(), None);
    assert_eq!(r.build, None);
    assert!(!r.label().is_empty());
    let facts = r.identity_facts();
    let fact = |k: &str| facts.iter().find(|(n, _)| *n == k).unwrap().1.clone();
    for k in [
        "microcode",
        "cores",
        "threads_per_core",
        "l1d_bytes",
        "l2_bytes",
        "l3_bytes",
        "boost",
        "machine_id_hash",
        "build",
    ] {
        assert_eq!(fact(k), UNKNOWN, "{k}");
    }
    assert_ne!(fact("cpu_model"), UNKNOWN);
    assert_ne!(fact("kernel"), UNKNOWN);
}

#[test]
fn facts_have_unique_names_in_a_fixed_order_and_no_per_run_field() {
    let r = old_file();
    let names: Vec<&str> = r.identity_facts().iter().map(|(n, _)| *n).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), names.len());
    for per_run in ["label", "run_id", "started", "started_unix_s", "hostname"] {
        assert!(!names.contains(&per_run), "{per_run}");
    }
    assert_eq!(names.first(), Some(&"cpu_model"));
    assert_eq!(names.last(), Some(&"fingerprint"));
}

#[test]
fn run_ids_are_128_bit_hex_and_differ() {
    let a = new_run_id();
    let b = new_run_id();
    assert_eq!(a.len(), 32);
    assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
    assert_ne!(a, b);
}

#[test]
fn new_fields_round_trip_and_builds_are_told_apart() {
    let mut r = old_file();
    r.run_id = Some(new_run_id());
    r.build = Some(Build::this());
    r.env.label = Some("lab-1".into());
    r.env.hardware.microcode = Some("0xf0".into());
    let back: RunResults = serde_json::from_slice(&r.to_json().unwrap()).unwrap();
    assert_eq!(back, r);
    assert_eq!(back.label(), "lab-1");
    let facts = back.identity_facts();
    assert!(facts.contains(&("microcode", "0xf0".into())));
    assert_eq!(r.build_difference(&back), None);
    let mut other = back.clone();
    other.build.as_mut().unwrap().build_id = "0000000000000000".into();
    let (what, a, b) = r.build_difference(&other).unwrap();
    assert_eq!(what, "tasklab build");
    assert!(b.contains("build 0000000000000000") && a != b, "{a} -> {b}");
    // A file that does not say is no difference.
    assert_eq!(old_file().build_difference(&r), None);
}

#[test]
fn this_build_names_a_commit_and_an_id() {
    let b = Build::this();
    assert!(!b.commit.is_empty());
    assert_eq!(b.build_id.len(), 16);
    assert!(b.build_id.chars().all(|c| c.is_ascii_hexdigit()));
}
