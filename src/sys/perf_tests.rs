use super::*;

fn record(kind: u32, misc: u16, body: &[u64]) -> Vec<u8> {
    let size = 8 + 8 * body.len();
    let mut v = Vec::new();
    v.extend_from_slice(&kind.to_ne_bytes());
    v.extend_from_slice(&misc.to_ne_bytes());
    v.extend_from_slice(&(size as u16).to_ne_bytes());
    for x in body {
        v.extend_from_slice(&x.to_ne_bytes());
    }
    v
}

#[test]
fn samples_and_lost_records_are_read_with_their_times_and_markers_dropped() {
    let kernel_marker = (-128i64) as u64;
    // ip, pid and tid, time, nr, the chain.
    let mut bytes = record(
        PERF_RECORD_SAMPLE,
        MISC_KERNEL,
        &[
            0xffff_1000,
            7 | (7 << 32),
            1_000,
            3,
            kernel_marker,
            0xffff_1000,
            0xffff_2000,
        ],
    );
    bytes.extend(record(PERF_RECORD_SAMPLE, 2, &[0x4000, 7, 2_000, 0]));
    // id, lost, then sample_id_all's pid and tid, time.
    bytes.extend(record(PERF_RECORD_LOST, 0, &[1, 5, 7, 3_000]));
    bytes.extend(record(6, 0, &[0, 0, 0]));
    let mut d = Drained::default();
    parse_records(&bytes, false, &mut d);
    assert_eq!(
        d.samples,
        vec![
            Sample {
                pid: 7,
                time: 1_000,
                kernel: true,
                kernel_ips: vec![0xffff_1000, 0xffff_2000],
                cgroup: 0,
            },
            Sample {
                pid: 7,
                time: 2_000,
                kernel: false,
                kernel_ips: vec![],
                cgroup: 0,
            }
        ]
    );
    assert_eq!(d.lost, vec![(3_000, 5)]);
}

#[test]
fn a_truncated_record_ends_the_walk() {
    let mut bytes = record(PERF_RECORD_LOST, 0, &[1, 5, 7, 3_000]);
    bytes.truncate(20);
    let mut d = Drained::default();
    parse_records(&bytes, false, &mut d);
    assert!(d.lost.is_empty());
}

#[test]
fn every_record_is_stamped_on_the_windows_clock() {
    for mode in [Mode::CpuWide, Mode::PerTask] {
        let (flags, _) = flags_and_pid(mode);
        assert_ne!(flags & FLAG_USE_CLOCKID, 0);
        assert_ne!(flags & FLAG_SAMPLE_ID_ALL, 0);
    }
}

#[test]
fn the_attribute_is_the_kernels_version_5_size() {
    assert_eq!(std::mem::size_of::<Attr>(), ATTR_SIZE_VER5 as usize);
}

#[test]
fn fork_and_exit_records_name_processes_not_threads() {
    // pid, ppid, tid, ptid (two u32 each to a u64), time.
    let pair = |a: u64, b: u64| a | (b << 32);
    let mut bytes = record(PERF_RECORD_FORK, 0, &[pair(20, 10), pair(20, 10), 99]);
    bytes.extend(record(
        PERF_RECORD_FORK,
        0,
        &[pair(10, 10), pair(21, 10), 99],
    ));
    // Exits: a process's first thread, then another thread of it.
    bytes.extend(record(
        PERF_RECORD_EXIT,
        0,
        &[pair(20, 10), pair(20, 10), 99],
    ));
    bytes.extend(record(PERF_RECORD_EXIT, 0, &[pair(10, 1), pair(21, 1), 99]));
    let mut d = Drained::default();
    parse_records(&bytes, false, &mut d);
    assert_eq!(d.forks, vec![(20, 10)]);
    assert_eq!(d.exits, vec![20]);
    assert!(d.samples.is_empty());
}

#[test]
fn a_cpu_wide_event_follows_no_task_and_its_records_are_a_second_events() {
    let (flags, pid) = flags_and_pid(Mode::CpuWide);
    assert_eq!(pid, -1);
    assert_eq!(flags & FLAG_INHERIT, 0);
    // The sampling event writes no fork or exit record: the dummy event
    // does, with the same flags besides (its records into the same ring,
    // stamped alike, disabled until switched on).
    assert_eq!(flags & FLAG_TASK, 0);
    assert_ne!(flags & FLAG_DISABLED, 0);
    assert_eq!(task_flags(), flags | FLAG_TASK);
    let (flags, pid) = flags_and_pid(Mode::PerTask);
    assert_eq!(pid, 0);
    assert_ne!(flags & FLAG_INHERIT, 0);
    assert_eq!(flags & FLAG_TASK, 0);
}

#[test]
fn this_cpus_event_is_enabled_last_and_disabled_first() {
    let cpus = [0, 1, 3];
    assert_eq!(switch_order(cpus.into_iter(), 1, true), vec![0, 2, 1]);
    assert_eq!(switch_order(cpus.into_iter(), 1, false), vec![1, 0, 2]);
    // Not known (-1) or offline: the rings' own order.
    assert_eq!(switch_order(cpus.into_iter(), -1, true), vec![0, 1, 2]);
}

#[test]
fn a_samples_cgroup_is_read_after_its_call_chain_when_asked_for() {
    let kernel_marker = (-128i64) as u64;
    // ip, pid and tid, time, nr, the chain, the cgroup.
    let mut bytes = record(
        PERF_RECORD_SAMPLE,
        MISC_KERNEL,
        &[
            0xffff_1000,
            7 | (7 << 32),
            1_000,
            2,
            kernel_marker,
            0xffff_1000,
            4242,
        ],
    );
    bytes.extend(record(PERF_RECORD_SAMPLE, 2, &[0x4000, 8, 2_000, 0, 99]));
    let mut d = Drained::default();
    parse_records(&bytes, true, &mut d);
    let got: Vec<(u32, u64, Vec<u64>)> = d
        .samples
        .iter()
        .map(|s| (s.pid, s.cgroup, s.kernel_ips.clone()))
        .collect();
    assert_eq!(got, vec![(7, 4242, vec![0xffff_1000]), (8, 99, vec![])]);
    // Not asked for: the same records read no cgroup.
    let mut d = Drained::default();
    parse_records(&bytes, false, &mut d);
    assert!(d.samples.iter().all(|s| s.cgroup == 0));
    // A chain that claims more entries than the record holds reads none.
    let bad = record(PERF_RECORD_SAMPLE, MISC_KERNEL, &[1, 7, 1, u64::MAX, 5]);
    let mut d = Drained::default();
    parse_records(&bad, true, &mut d);
    assert_eq!((d.samples[0].cgroup, d.samples[0].kernel_ips.len()), (0, 0));
}

#[test]
fn only_a_cgroup_clocks_samples_ask_for_their_cgroup() {
    assert_ne!(sample_type(true) & PERF_SAMPLE_CGROUP, 0);
    assert_eq!(sample_type(false) & PERF_SAMPLE_CGROUP, 0);
    assert_eq!(sample_type(true) & !PERF_SAMPLE_CGROUP, sample_type(false));
}

#[test]
fn each_cpus_ring_is_asked_for_a_2_mib_slot_of_its_own_far_from_the_rest() {
    let len = 257 * 4096;
    let slots: Vec<usize> = (0..4).map(|cpu| ring_hint(cpu, len)).collect();
    for w in slots.windows(2) {
        assert!(w[0] + len <= w[1], "{slots:x?}");
    }
    assert!(slots.iter().all(|s| s % (2 << 20) == 0));
    // Far from a PIE binary's (0x55..) and the libraries' (0x7f..) places.
    assert!(slots[3] + len < 0x5000_0000_0000);
    assert_eq!(ring_hint(-1, len), ring_hint(0, len));
}
