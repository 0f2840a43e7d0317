use super::*;
use serde_json::json;

#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SweepPoint {
    heap: u64,
    cpus: Vec<usize>,
    stack: Option<u64>,
}

#[test]
fn a_point_round_trips_through_the_job_json() {
    let p = SweepPoint {
        heap: 64 << 20,
        cpus: vec![0, 1],
        stack: None,
    };
    let job = Job::at("test.x", serde_json::to_value(&p).unwrap());
    // Through the pipe as the worker gets it.
    let sent: Job = serde_json::from_slice(&serde_json::to_vec(&job).unwrap()).unwrap();
    assert_eq!(sent.point::<SweepPoint>().unwrap(), p);
}

#[test]
fn a_malformed_point_is_an_error_naming_it_never_a_default() {
    let bad = [
        json!({"heap": "64M", "cpus": [0], "stack": null}),
        json!({"cpus": [0], "stack": null}),
        json!({"heap": 1, "cpus": [-1], "stack": null}),
        json!({"heap": 1, "cpus": [0], "stack": null, "thp": "on"}),
        json!(null),
    ];
    for point in bad {
        let e = Job::at("test.x", point.clone())
            .point::<SweepPoint>()
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("test.x: the planned point "), "{e}");
        assert!(e.contains(&point.to_string()), "{e}");
        assert!(e.contains("not a SweepPoint"), "{e}");
    }
}

#[test]
fn a_single_point_job_reads_as_unit() {
    Job::at("test.x", serde_json::Value::Null)
        .point::<()>()
        .unwrap();
}
