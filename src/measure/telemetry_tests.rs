use super::*;

/// The canary on the CPUs this thread may use.
fn canary() -> Canary {
    canary_on(&sys::allowed_cpus().unwrap_or_default())
}

#[test]
fn a_round_records_its_canary_and_counters() {
    let rec = Recorder::start();
    std::hint::black_box((0..100_000u64).sum::<u64>());
    let t = rec.finish();
    assert!(t.wall_ns > 0.0);
    for c in [&t.canary_start, &t.canary_end] {
        assert!(
            c.syscall_ns > 0.0 && c.pipe_ns > c.syscall_ns / 10.0,
            "{c:?}"
        );
    }
    assert!(t.procs_running_start >= 1.0);
    assert!(!t.cpu_idle_ns.is_empty() && t.cpu_idle_ns.len() == t.cpu_steal_ns.len());
}

#[test]
fn the_canary_reads_every_cpu_pinned_and_gives_them_back() {
    let before = sys::allowed_cpus().unwrap();
    let c = canary();
    // one pinned reading per CPU this thread may use, each positive
    let cpus: Vec<usize> = c.per_cpu_ns.iter().map(|(cpu, _)| *cpu).collect();
    assert_eq!(cpus, before);
    assert!(c.per_cpu_ns.iter().all(|(_, ns)| *ns > 0.0), "{c:?}");
    // the figure is their median, so it lies within them
    let (lo, hi) = c
        .per_cpu_ns
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(a, b), (_, x)| {
            (a.min(*x), b.max(*x))
        });
    assert!(lo <= c.syscall_ns && c.syscall_ns <= hi, "{c:?}");
    // A coherence floor only between two CPUs, and positive. Where there
    // are two, a floor may still be missing: a partner kept off its CPU for
    // 20 ms (a loaded machine) gives none that round, by design.
    assert!(
        c.coherence_ns.is_none() || before.len() >= 2,
        "a coherence floor with {} CPU: {:?}",
        before.len(),
        c.coherence_ns
    );
    assert!(
        c.coherence_ns.is_none_or(|ns| ns > 0.0),
        "coherence floor {:?} ns, not positive",
        c.coherence_ns
    );
    // and the thread may run where it could before
    assert_eq!(sys::allowed_cpus().unwrap(), before);
}

/// The coherence floor between two CPUs: of a few tries, at least one
/// gives it (each gives up after 20 ms without its partner), and none
/// leaves the partner spinning (its measuring side's giving up once raced
/// with the partner's write and hung the worker). Each try ends, so the
/// test ends.
#[test]
fn the_coherence_floor_is_read_in_one_of_a_few_tries_and_never_hangs() {
    let cpus = sys::allowed_cpus().unwrap();
    let [a, b, ..] = cpus[..] else {
        return; // one CPU: no floor to read (the canary test checks none is given)
    };
    let floors: Vec<Option<f64>> = (0..20).map(|_| coherence_floor(a, b)).collect();
    assert!(
        floors.iter().any(Option::is_some),
        "no coherence floor between CPUs {a} and {b} in 20 tries of 20 ms each"
    );
    assert!(floors.iter().flatten().all(|ns| *ns > 0.0), "{floors:?}");
    sys::pin_current_thread(&cpus).unwrap();
}

#[test]
fn touching_fresh_pages_counts_minor_faults() {
    let rec = Recorder::start();
    let mut v = vec![0u8; 8 << 20];
    for i in (0..v.len()).step_by(4096) {
        v[i] = 1;
    }
    std::hint::black_box(&v);
    let t = rec.finish();
    assert!(t.minor_faults >= 1.0, "{t:?}");
}

/// Issue 28: the CPU's speed is recorded per round, not once, and the THP
/// and compaction counters with it.
#[test]
fn a_round_records_the_cpu_clock_and_the_thp_counters() {
    let t = Recorder::start().finish();
    assert_eq!(t.cpu_mhz.is_some(), sys::ADDS_COUNT_CYCLES, "{t:?}");
    if let Some(mhz) = t.cpu_mhz {
        // measured, so a throttled or preempted machine may read any low
        // figure: no floor, only a real number
        assert!(mhz > 0.0 && mhz.is_finite(), "{mhz}");
    }
    assert!(t
        .vmstat
        .keys()
        .all(|k| procfs::VMSTAT_KEYS.contains(&k.as_str())));
    assert!(t.vmstat.values().all(|v| *v >= 0.0));
}

#[test]
fn the_vmstat_growth_is_taken_per_counter_both_readings_have() {
    let then = [("thp_fault_alloc", 10), ("compact_stall", 4)];
    let now = [
        ("thp_fault_alloc", 15),
        ("compact_stall", 4),
        ("thp_fault_fallback", 2),
    ];
    let g = vmstat_growth(&now, &then);
    assert_eq!(g.len(), 2);
    assert_eq!(g["thp_fault_alloc"], 5.0);
    assert_eq!(g["compact_stall"], 0.0);
}

/// Issue 37: every canary times the first touch of a fresh block and of
/// one freed just before, and says how much of the fresh one came in
/// physical order where the kernel shows frames (as root).
#[test]
fn the_canary_times_touching_fresh_memory() {
    let c = canary();
    for ns in [c.fresh_page_ns, c.recycled_page_ns] {
        let ns = ns.unwrap_or_else(|| panic!("no memory canary: {c:?}"));
        assert!(ns.is_finite() && ns > 0.0, "{c:?}");
    }
    if let Some(share) = c.fresh_in_order {
        assert!((0.0..=1.0).contains(&share), "{c:?}");
    }
}

#[test]
fn pages_in_order_are_neighbours_either_way_round() {
    assert_eq!(in_order(&[10, 11, 12, 13]), Some(1.0));
    assert_eq!(in_order(&[13, 12, 11, 10]), Some(1.0));
    assert_eq!(in_order(&[10, 50, 11, 90, 91]), Some(0.25));
    // a frame the kernel hid (0) or a single page: no figure
    assert_eq!(in_order(&[10, 0, 12]), None);
    assert_eq!(in_order(&[10]), None);
}
