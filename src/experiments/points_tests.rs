//! Each experiment's point keeps the JSON it had before it was typed (the
//! progress line and a failed job's reason show it), and reads back as the
//! value planned; a point that does not fit is an error.

use super::memory::{limits::LimitsPoint, malloc::MallocPoint, threads::ThreadsPoint};
use super::parallel::{average::AveragePoint, forktime::ForktimePoint, program::ProgramPoint};
use super::spawn::cow::CowPoint;
use super::spawn::heap::{HeapPoint, Image, Touch};
use super::spec::Points;
use super::switch::{
    indirect::IndirectPoint, pingpong::PingPongPoint, working_set::Walk, CpusPoint,
};
use crate::measure::protocol::Job;
use serde::{de::DeserializeOwned, Serialize};
use serde_json::{json, Value};
use std::fmt::Debug;

/// `p` plans exactly `shape`, and a job at `shape` reads back `p`.
fn keeps<P>(p: P, shape: Value)
where
    P: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let planned = Points::of([&p]).points;
    assert_eq!(planned, vec![shape.clone()]);
    let back: P = Job::at("test.x", shape).point().unwrap();
    assert_eq!(back, p);
}

#[test]
fn spawn_points_keep_their_json() {
    let thp = || "system".to_string();
    keeps(
        HeapPoint::Touched {
            heap: 2 << 20,
            thp: thp(),
        },
        json!({"heap": 2 << 20, "thp": "system"}),
    );
    keeps(
        HeapPoint::Touched {
            heap: 64 << 20,
            thp: "on".into(),
        },
        json!({"heap": 64 << 20, "thp": "on"}),
    );
    keeps(
        HeapPoint::Untouched {
            heap: 1 << 30,
            thp: thp(),
            touch: Touch::Never,
        },
        json!({"heap": 1 << 30, "thp": "system", "touch": "none"}),
    );
    keeps(
        HeapPoint::Image {
            heap: 0,
            thp: thp(),
            image: Image::Extra,
            mappings: 1000,
            fds: 0,
        },
        json!({"heap": 0, "thp": "system", "image": "extra", "mappings": 1000, "fds": 0}),
    );
    keeps(
        CowPoint {
            heap: 256 << 20,
            pages: "thp".into(),
        },
        json!({"heap": 256 << 20, "pages": "thp"}),
    );
}

#[test]
fn switch_points_keep_their_json() {
    keeps(CpusPoint { cpus: vec![0, 1] }, json!({"cpus": [0, 1]}));
    keeps(
        IndirectPoint {
            cpus: vec![0],
            working_sets: vec![0, 65536],
            walks: vec![Walk::Sequential, Walk::Random],
            processes: true,
        },
        json!({"cpus": [0], "working_sets": [0, 65536], "walks": ["sequential", "random"], "processes": true}),
    );
    keeps(
        PingPongPoint {
            method: "pipe_threads".into(),
            placements: vec!["same_cpu".into(), "two_cpus".into()],
            cpus: vec![0, 1],
            pcid: true,
        },
        json!({"method": "pipe_threads", "placements": ["same_cpu", "two_cpus"], "cpus": [0, 1], "pcid": true}),
    );
}

#[test]
fn memory_points_keep_their_json() {
    keeps(MallocPoint { size: 400 << 20 }, json!({"size": 400 << 20}));
    keeps(
        ThreadsPoint {
            variant: "default".into(),
            threads: 100,
            stack: None,
            touch: 0,
            default_stack: 8 << 20,
        },
        json!({"variant": "default", "threads": 100, "stack": null, "touch": 0, "default_stack": 8 << 20}),
    );
    keeps(
        ThreadsPoint {
            variant: "small".into(),
            threads: 10,
            stack: Some(64 << 10),
            touch: 0,
            default_stack: 8 << 20,
        },
        json!({"variant": "small", "threads": 10, "stack": 64 << 10, "touch": 0, "default_stack": 8 << 20}),
    );
    keeps(
        LimitsPoint {
            probe: true,
            ceiling: 5000,
        },
        json!({"probe": true, "ceiling": 5000}),
    );
}

#[test]
fn parallel_points_keep_their_json() {
    keeps(
        AveragePoint {
            n: 55_256_000,
            workers: vec![2, 3],
        },
        json!({"n": 55_256_000, "workers": [2, 3]}),
    );
    keeps(
        ProgramPoint {
            n: 1000,
            workers: vec![2],
            thp: "default".into(),
        },
        json!({"n": 1000, "workers": [2], "thp": "default"}),
    );
    keeps(
        ForktimePoint {
            n: 1000,
            workers: [2],
            thp: "on".into(),
        },
        json!({"n": 1000, "workers": [2], "thp": "on"}),
    );
}

#[test]
fn a_point_that_does_not_fit_is_an_error_not_a_default() {
    let heap = |v: Value| Job::at("spawn.heap", v).point::<HeapPoint>();
    // A marker it does not know is not read as a touched heap.
    assert!(heap(json!({"heap": 1, "thp": "system", "touch": "all"})).is_err());
    assert!(heap(json!({"heap": 1, "thp": "system", "image": "extra"})).is_err());
    assert!(heap(json!({"thp": "system"})).is_err());
    let e = Job::at("parallel.average", json!({"n": 1000}))
        .point::<AveragePoint>()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("parallel.average") && e.contains("workers"),
        "{e}"
    );
    assert!(
        Job::at("switch.wakeup", json!({"cpus": [0, 1], "idle": "naps"}))
            .point::<CpusPoint>()
            .is_err()
    );
    assert!(Job::at(
        "parallel.forktime",
        json!({"n": 1, "workers": [2, 3], "thp": "on"})
    )
    .point::<ForktimePoint>()
    .is_err());
}
