use super::*;
use crate::sys::procfs::parse_per_cpu;

/// /proc/stat of a 4-CPU machine: user nice system idle iowait irq softirq
/// steal, in 10 ms ticks.
const AT_0: &str = "cpu  0 0 0 0 0 0 0 0\n\
cpu0 100 0 0 1000 0 0 0 0\n\
cpu1 100 0 0 1000 0 0 0 0\n\
cpu2 100 0 0 1000 0 0 0 0\n\
cpu3 100 0 0 1000 0 0 0 0\n\
procs_running 5\n";

/// One second (100 ticks) later: CPUs 0 and 1 (tasklab's) idle the whole
/// second but for 10 ticks on cpu1, of which 5 stolen; CPUs 2 and 3 busy
/// all the time with other work.
const AT_1S: &str = "cpu  0 0 0 0 0 0 0 0\n\
cpu0 100 0 0 1100 0 0 0 0\n\
cpu1 105 0 0 1090 0 0 0 5\n\
cpu2 200 0 0 1000 0 0 0 0\n\
cpu3 200 0 0 1000 0 0 0 0\n\
procs_running 5\n";

const S: f64 = 1e9;

#[test]
fn only_the_cpus_tasklab_may_use_count_as_busy() {
    let (a, b) = (parse_per_cpu(AT_0), parse_per_cpu(AT_1S));
    // Tasklab's two CPUs: 5 ticks of work in a second, 0.05 CPUs' worth;
    // the other CPUs' full load is not counted.
    let ours = other_cpus(&a, &b, &[0, 1], S, 0.0).unwrap();
    assert!((ours - 0.05).abs() < 1e-9, "{ours}");
    assert!(ours < BUSY_TASKS);
    // On all four, the other CPUs' two CPUs' worth shows.
    let all = other_cpus(&a, &b, &[0, 1, 2, 3], S, 0.0).unwrap();
    assert!((all - 2.05).abs() < 1e-9, "{all}");
    assert!(all >= BUSY_TASKS);
    // tasklab's own CPU time is not other work.
    let less = other_cpus(&a, &b, &[2, 3], S, 2.0 * S).unwrap();
    assert!(less.abs() < 1e-9, "{less}");
    // A CPU /proc/stat does not list, or no time passing: no figure.
    assert_eq!(other_cpus(&a, &b, &[7], S, 0.0), None);
    assert_eq!(other_cpus(&a, &b, &[0], 0.0, 0.0), None);
}

#[test]
fn steal_is_a_share_of_tasklabs_cpus_time_only() {
    let (a, b) = (parse_per_cpu(AT_0), parse_per_cpu(AT_1S));
    // 5 ticks (50 ms) stolen from cpu1 over a second on two CPUs: 2.5%.
    let two = steal_share(&a, &b, &[0, 1], S).unwrap();
    assert!((two - 0.025).abs() < 1e-12, "{two}");
    // Pinned to cpu1: 5% of its time.
    let one = steal_share(&a, &b, &[1], S).unwrap();
    assert!((one - 0.05).abs() < 1e-12, "{one}");
    assert!(one >= BUSY_STEAL && two >= BUSY_STEAL);
    assert_eq!(steal_share(&a, &b, &[0], S), Some(0.0));
}

#[test]
fn procs_running_counts_only_where_tasklabs_cpus_are_all_the_cpus() {
    assert!(covers(&[0, 1, 2, 3], &[0, 1, 2, 3]));
    assert!(covers(&[3, 2, 1, 0, 9], &[0, 1, 2, 3]));
    assert!(!covers(&[0, 1], &[0, 1, 2, 3]));
    assert!(!covers(&[0, 1], &[]));
}

/// The warning between jobs says what it counts, as the one before the
/// run does: /tmp/s18 run 1 read "busy ...: 0.5 on average between its
/// jobs (at most 4, 177 samples)", run 3 "1.2 tasks of other work were
/// runnable on average before the run".
#[test]
fn the_busy_warning_between_jobs_names_its_unit() {
    let all = during_words(true, 0.5, 4.0, 177);
    assert_eq!(
        all,
        "0.5 tasks of other work were runnable on average between its jobs (at most 4, 177 samples of procs_running)"
    );
    let some = during_words(false, 0.5, 1.0, 12);
    assert!(
        some.starts_with("other work kept 0.5 of them busy on average between its jobs"),
        "{some}"
    );
}
