use super::*;
use crate::experiments::switch::methods::{METHODS, PLACEMENTS};

const TINY: Budget = Budget {
    seconds: 0.02,
    min_samples: 5,
    max_samples: 50,
};

#[test]
fn every_method_ping_pongs_on_one_cpu() {
    let all = sys::allowed_cpus().unwrap();
    for m in METHODS.iter().filter(|m| !m.processes) {
        let t0 = sys::monotonic_ns();
        let r = run_pair(m, &Place::same(all[0]), &TINY, &all, 0).unwrap();
        let elapsed = (sys::monotonic_ns() - t0) as f64;
        assert!(!r.round_trip_ns.is_empty(), "{}", m.name());
        assert!(r.round_trip_ns.iter().all(|x| *x > 0.0));
        // Both tasks pinned to one CPU: together they cannot use more CPU
        // time than that CPU had while the call ran, however busy the
        // machine. Counting both sides twice, or a side's time in the wrong
        // unit, breaks that; a loaded machine does not.
        assert_eq!(r.cpu_per_round_trip.len(), r.round_trip_ns.len());
        let per_sample = r.round_trips_per_sample as f64;
        let cpu: f64 = r.cpu_per_round_trip.iter().map(|c| c.ns * per_sample).sum();
        assert!(cpu > 0.0, "{}", m.name());
        // 1 ms: the CPU clocks' accounting at a thread's last tick.
        assert!(
            cpu <= elapsed + 1e6,
            "{}: {cpu} ns of CPU in {elapsed} ns on one CPU",
            m.name()
        );
    }
}

#[test]
fn cpu_masks_print_as_lists() {
    assert_eq!(cpu_mask_list(0b1011), "0-1,3");
    assert_eq!(cpu_mask_list(0), "?");
}

#[test]
fn placements_put_the_tasks_where_their_names_say() {
    let all = [0, 1, 2, 3];
    let places: Vec<Place> = PLACEMENTS
        .iter()
        .map(|p| Place::of(p, &[2, 3], &all))
        .collect();
    let by_name = |n: &str| places.iter().find(|p| p.name == n).unwrap();
    let same = by_name("same_cpu");
    assert_eq!((same.a.as_slice(), same.b.as_slice()), (&[2][..], &[2][..]));
    assert!(same.awake.is_empty());
    let apart = by_name("two_cpus");
    assert_eq!(
        (apart.a.as_slice(), apart.b.as_slice()),
        (&[2][..], &[3][..])
    );
    assert!(apart.awake.is_empty());
    assert_eq!(by_name("two_cpus_awake").awake, vec![2, 3]);
    let free = by_name("unpinned");
    assert_eq!((free.a.as_slice(), free.b.as_slice()), (&all[..], &all[..]));
    assert_eq!(Place::same(1).b, vec![1]);
    assert_eq!(Place::unpinned(&all).name, "unpinned");
}

#[test]
fn batches_are_at_least_fifteen_and_within_a_millisecond() {
    let (samples, target_ns) = batches(&TINY);
    assert!(samples >= 15, "{samples}");
    assert!(
        (100_000.0..=1_000_000.0).contains(&target_ns),
        "{target_ns}"
    );
}

#[test]
fn a_series_is_pushed_per_switch_and_per_round_trip() {
    let r = PairResult {
        round_trip_ns: vec![1000.0, 2000.0],
        voluntary_per_round_trip: vec![2.0, 2.0],
        involuntary_per_round_trip: vec![0.0, 1.0],
        a_cpu_mask: 0b1,
        b_cpu_mask: 0b10,
        same_cpu_fraction: 0.5,
        round_trips_per_sample: 8,
        cpu_per_round_trip: vec![CpuPerOp { ns: 800.0 }; 2],
    };
    let mut out = WorkerOutput::default();
    push_pair(&mut out, &labels(&[("method", "pipe_threads")]), &r);
    let series = |name: &str| {
        out.series
            .iter()
            .find(|s| s.name == name)
            .map(|s| s.samples.clone())
            .unwrap()
    };
    assert_eq!(series("switch_ns"), vec![500.0, 1000.0]);
    assert_eq!(series("round_trip_ns"), vec![1000.0, 2000.0]);
    assert_eq!(series("cpu_ns"), vec![800.0, 800.0]);
    // The user/system split is not a figure (sampler::push_cpu): not pushed.
    assert!(out.series.iter().all(|s| s.name != "sys_ns"));
    assert_eq!(series("switches_per_round_trip"), vec![2.0, 3.0]);
    let note = out.notes.join("\n");
    assert!(
        note.contains("pipe_threads: task A ran on CPU 0, task B on CPU 1"),
        "{note}"
    );
    // The batch size is a reading, not part of the note (so passes' notes
    // are alike and kept once).
    assert!(!note.contains("round trips per sample"), "{note}");
    let batch = out
        .readings
        .iter()
        .find(|x| x.name == "round_trips_per_sample")
        .map(|x| x.value);
    assert_eq!(batch, Some(8.0));
}
