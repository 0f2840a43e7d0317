use super::costs::Costs;
use super::figure::{Curve, Figure};
use super::models::{Model, Row};
use super::recommend::Advice;
use super::*;
use crate::env::Limits;
use crate::measure::params::ParamValue;
use crate::results::Unit;
use crate::run::plan::{Preset, Request};
use crate::units::{fmt_share, fmt_short_size, parse_duration, parse_number};

fn fig(exp: &str, metric: &str, labels: &str, value: f64, unit: Unit) -> Figure {
    Figure {
        experiment: exp.into(),
        metric: metric.into(),
        labels: labels.into(),
        value,
        unit,
        how: None,
        stand_in: false,
        floor: false,
    }
}

fn flat(method: &str, ns: f64) -> Curve {
    Curve::new(
        "spawn.heap",
        "lifecycle_ns",
        &format!("method={method} thp=off"),
        Unit::Ns,
        vec![(0, ns), (1 << 30, ns)],
    )
    .unwrap()
}

/// Round figures: fork 100 µs at 0 growing to 1.1 ms at 1 GiB, thread
/// 20 µs, posix_spawn 300 µs, same-CPU switches 2/3 µs (a cross-CPU
/// hand-off 20 µs) and 200 ns.
fn costs() -> Costs {
    Costs {
        source: "test.json".into(),
        cpus: 2,
        fork: Curve::new(
            "spawn.heap",
            "lifecycle_ns",
            "method=fork thp=off",
            Unit::Ns,
            vec![(0, 100_000.0), (1 << 30, 1_100_000.0)],
        ),
        thread: Some(flat("pthread_create", 20_000.0)),
        spawn: Some(flat(costs::POSIX_SPAWN, 300_000.0)),
        process_pte: Curve::new(
            "spawn.heap",
            "vm_pte_kib",
            "thp=off",
            Unit::Kib,
            vec![(0, 64.0), (1 << 30, 2112.0)],
        ),
        switch_threads: Some(fig(
            "switch.pingpong",
            "switch_ns",
            "method=futex_threads placement=same_cpu",
            2_000.0,
            Unit::Ns,
        )),
        switch_threads_cross_cpu: Some(fig(
            "switch.pingpong",
            "switch_ns",
            "method=futex_threads placement=unpinned",
            20_000.0,
            Unit::Ns,
        )),
        switch_processes: Some(fig(
            "switch.pingpong",
            "switch_ns",
            "method=futex_processes placement=same_cpu",
            3_000.0,
            Unit::Ns,
        )),
        switch_async: Some(fig(
            "switch.userspace",
            "switch_ns",
            "variant=async",
            200.0,
            Unit::Ns,
        )),
        thread_rss: Some(fig(
            "memory.threads",
            "rss_per_thread_kib",
            "variant=default",
            8.0,
            Unit::Kib,
        )),
        kernel_stack: Some(fig(
            "memory.threads",
            "kernel_stack_per_thread_kib",
            "variant=default",
            16.0,
            Unit::Kib,
        )),
        thread_pte: Some(fig(
            "memory.threads",
            "page_tables_per_thread_bytes",
            "variant=default",
            4096.0,
            Unit::Bytes,
        )),
        ..Default::default()
    }
}

fn workload(rate: &str, heap: &str, switches: &str) -> Workload {
    Workload::parse(rate, "10ms", heap, switches, None, "16K").unwrap()
}

fn row(a: &Advice, m: Model) -> &Row {
    a.models.iter().find(|r| r.model == m).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

#[test]
fn a_thousand_forks_of_100_us_are_a_tenth_of_a_cpu() {
    let a = advise(&workload("1000", "0", "0"), &costs());
    let p = row(&a, Model::Process);
    assert_eq!(p.create_ns, Some(100_000.0));
    assert!(close(p.cpu_share.unwrap(), 0.10));
    assert_eq!(fmt_share(p.cpu_share.unwrap()), "10.0%");
    assert_eq!(p.keeps_up, Some(true));
    // Threads: 1000 x 20 µs = 2%.
    assert!(close(row(&a, Model::Thread).cpu_share.unwrap(), 0.02));
    // Pool: 1000 hand-offs x 2 µs = 0.2%.
    assert!(close(row(&a, Model::Pool).cpu_share.unwrap(), 0.002));
    // Async: 1000 x 200 ns = 0.02%.
    assert!(close(row(&a, Model::Async).cpu_share.unwrap(), 0.0002));
}

#[test]
fn switches_add_their_cost() {
    let a = advise(&workload("1000", "0", "10k"), &costs());
    // 1000 x 100 µs + 10,000 x 3 µs = 0.13 s per second.
    assert!(close(row(&a, Model::Process).cpu_share.unwrap(), 0.13));
    // 1000 x 20 µs + 10,000 x 2 µs = 0.04.
    assert!(close(row(&a, Model::Thread).cpu_share.unwrap(), 0.04));
    // 1000 x 200 ns + 10,000 x 200 ns = 0.0022.
    assert!(close(row(&a, Model::Async).cpu_share.unwrap(), 0.0022));
}

#[test]
fn fork_is_interpolated_in_heap_bytes_and_extrapolated_past_the_largest() {
    let c = costs();
    let half = c.fork.as_ref().unwrap().at(512 << 20);
    assert!(close(half.value, 600_000.0), "{half:?}");
    assert!(half.how.as_deref().unwrap().contains("interpolated"));
    let exact = c.fork.as_ref().unwrap().at(1 << 30);
    assert_eq!(exact.value, 1_100_000.0);
    assert!(exact
        .how
        .as_deref()
        .unwrap()
        .contains("measured at heap 1 GiB"));
    // Two points: the least-squares slope is the segment's, 1 ms per GiB.
    let twice = c.fork.as_ref().unwrap().at(2 << 30);
    assert!(close(twice.value, 2_100_000.0), "{twice:?}");
    assert!(twice.how.as_deref().unwrap().contains("extrapolated"));
    // 1000 forks at 512 MiB: 600 µs each = 60% of a CPU.
    let a = advise(&workload("1000", "512M", "0"), &c);
    assert!(close(row(&a, Model::Process).cpu_share.unwrap(), 0.6));
}

#[test]
fn below_the_smallest_heap_the_figure_is_clamped_and_a_falling_curve_is_held() {
    let k = Curve::new(
        "x",
        "lifecycle_ns",
        "",
        Unit::Ns,
        vec![(2 << 20, 50.0), (4 << 20, 40.0)],
    )
    .unwrap();
    let f = k.at(0);
    assert_eq!(f.value, 50.0);
    assert!(f.how.unwrap().contains("clamped"));
    let f = k.at(1 << 30);
    assert_eq!(f.value, 40.0);
    assert!(f.how.unwrap().contains("held"));
}

#[test]
fn memory_follows_the_formulas() {
    // 1000/s x 10 ms = 10 tasks; stack 16 KiB.
    let a = advise(&workload("1000", "0", "0"), &costs());
    assert_eq!(a.workload.concurrent, 10);
    let kib = 1024.0;
    // thread: max(16 KiB, 8 KiB) + 16 KiB + 4 KiB = 36 KiB.
    let thread = 36.0 * kib;
    assert!(close(
        row(&a, Model::Thread).memory_bytes.unwrap(),
        10.0 * thread
    ));
    // process: a floor of your stack + kernel stack + 64 KiB of page
    // tables at heap 0; no thread stack's page tables, no resident figure.
    let p = row(&a, Model::Process);
    assert!(close(
        p.memory_bytes.unwrap(),
        10.0 * (16.0 * kib + 16.0 * kib + 64.0 * kib)
    ));
    assert!(p.memory_lower_bound);
    assert!(p.memory_basis.contains("copy-on-write"));
    // pool: 2 threads + 10 x 16 KiB of state.
    assert!(close(
        row(&a, Model::Pool).memory_bytes.unwrap(),
        2.0 * thread + 10.0 * 16.0 * kib
    ));
    // async: 10 x 16 KiB, by construction: a stand-in.
    let y = row(&a, Model::Async);
    assert!(close(y.memory_bytes.unwrap(), 160.0 * kib));
    assert!(y.memory_stand_in && !y.memory_lower_bound);
    // posix_spawn: a floor of 10 kernel stacks.
    let s = row(&a, Model::Spawn);
    assert!(s.memory_lower_bound);
    assert!(close(s.memory_bytes.unwrap(), 160.0 * kib));
    assert!(s.memory_basis.contains("not measured"));
    // A stack smaller than what a blocked thread keeps resident counts
    // the resident figure.
    let small = Workload::parse("1000", "10ms", "0", "0", None, "4K").unwrap();
    let a = advise(&small, &costs());
    assert!(close(
        row(&a, Model::Thread).memory_bytes.unwrap(),
        10.0 * 28.0 * kib
    ));
}

#[test]
fn a_model_that_cannot_keep_up_is_flagged() {
    // 100,000 forks/s x 100 µs = 10 CPUs of overhead on a 2-CPU machine.
    let a = advise(&workload("100k", "0", "0"), &costs());
    let p = row(&a, Model::Process);
    assert!(close(p.cpu_share.unwrap(), 10.0));
    assert_eq!(p.keeps_up, Some(false));
    assert!(p.notes.iter().any(|n| n.contains("cannot keep up")));
    assert!(a.recommendation.contains("cannot keep up"));
    assert_eq!(row(&a, Model::Thread).keeps_up, Some(true));
}

#[test]
fn missing_figures_name_the_file_and_the_experiment_to_run() {
    let mut c = costs();
    c.thread_rss = None;
    c.switch_async = None;
    let a = advise(&workload("1000", "0", "100"), &c);
    let t = row(&a, Model::Thread);
    assert_eq!(t.memory_bytes, None);
    assert!(t.missing.iter().any(|m| m
        .contains("thread memory not measured in test.json (run `tasklab run memory.threads`)")));
    // The CPU figure does not need the memory ones.
    assert!(t.cpu_share.is_some());
    let s = row(&a, Model::Async);
    assert_eq!(s.cpu_share, None);
    assert!(s
        .missing
        .iter()
        .any(|m| m.contains("run `tasklab run switch.userspace`")));
    // With no switches asked for, a missing switch figure does not matter.
    let mut c = costs();
    c.switch_processes = None;
    let a = advise(&workload("1000", "0", "0"), &c);
    assert!(close(row(&a, Model::Process).cpu_share.unwrap(), 0.1));
    assert!(Costs::default().is_empty());
    assert!(!costs().is_empty());
}

#[test]
fn the_recommendation_names_the_cheapest() {
    let a = advise(&workload("1000", "0", "0"), &costs());
    assert!(
        a.recommendation.starts_with(
            "Least CPU: async tasks, at ~0.020% of one CPU (~: spawning a task is not measured"
        ),
        "{}",
        a.recommendation
    );
    assert!(a.recommendation.contains("thread pool, at 0.20%"));
    assert!(a
        .recommendation
        .contains("fork costs 5.0x a thread's creation"));
}

#[test]
fn littles_law_sets_concurrency_and_a_smaller_given_figure_is_noted() {
    let w = Workload::parse("2000", "20ms", "0", "0", None, "16K").unwrap();
    assert_eq!(w.concurrent, 40);
    assert!(!w.concurrent_given);
    let w = Workload::parse("1", "1ms", "0", "0", None, "16K").unwrap();
    assert_eq!(w.concurrent, 1);
    // 10 x 0.7 is 7.000000000000001 in floats: still 7 tasks, not 8.
    let w = Workload::parse("10", "700ms", "0", "0", None, "16K").unwrap();
    assert_eq!(w.concurrent, 7);
    assert_eq!(w.little(), 7.0);
    let w = Workload::parse("10", "700ms", "0", "0", Some("7"), "16K").unwrap();
    assert!(!advise(&w, &costs())
        .notes
        .iter()
        .any(|n| n.contains("Little's law")));
    // A real fraction still rounds up.
    let w = Workload::parse("10", "750ms", "0", "0", None, "16K").unwrap();
    assert_eq!(w.concurrent, 8);
    let w = Workload::parse("2000", "20ms", "0", "0", Some("10"), "16K").unwrap();
    assert_eq!(w.concurrent, 10);
    let a = advise(&w, &costs());
    assert!(a.notes.iter().any(|n| n.contains("Little's law")));
    let w = Workload::parse("2000", "20ms", "0", "0", Some("100"), "16K").unwrap();
    assert!(!advise(&w, &costs())
        .notes
        .iter()
        .any(|n| n.contains("Little's law")));
}

#[test]
fn units_parse() {
    assert_eq!(parse_number("r", "2000"), Ok(2000.0));
    assert_eq!(parse_number("r", "1.5k"), Ok(1500.0));
    assert_eq!(parse_number("r", "2M/s"), Ok(2e6));
    assert_eq!(parse_number("r", "10,000"), Ok(10_000.0));
    assert_eq!(parse_number("r", "1,234,567.5"), Ok(1_234_567.5));
    assert_eq!(parse_number("r", "12,500k"), Ok(12_500_000.0));
    for bad in ["1,5k", "1,0000", ",100", "1,", "1.000,5", "10,00"] {
        assert!(
            parse_number("r", bad)
                .unwrap_err()
                .contains("a comma may only separate groups of three digits"),
            "{bad}"
        );
    }
    assert!(parse_number("r", "-5").unwrap_err().contains("negative"));
    assert!(parse_number("r", "nan").unwrap_err().contains("finite"));
    assert!(parse_number("r", "lots")
        .unwrap_err()
        .contains("not a number"));
    assert!(close(parse_duration("l", "20ms").unwrap(), 0.02));
    assert!(close(parse_duration("l", "500us").unwrap(), 500e-6));
    assert!(close(parse_duration("l", "500µs").unwrap(), 500e-6));
    assert_eq!(parse_duration("l", "2s"), Ok(2.0));
    assert_eq!(parse_duration("l", "1h"), Ok(3600.0));
    assert!(parse_duration("l", "20")
        .unwrap_err()
        .contains("needs a unit"));
    assert!(parse_duration("l", "20 parsecs")
        .unwrap_err()
        .contains("unknown unit"));
    assert!(parse_duration("l", "-1ms")
        .unwrap_err()
        .contains("negative"));
}

#[test]
fn absurd_workloads_are_refused_with_the_bound() {
    let p = |rate: &str, life: &str, heap: &str, sw: &str, conc: Option<&str>, st: &str| {
        Workload::parse(rate, life, heap, sw, conc, st).unwrap_err()
    };
    assert!(p("0", "1ms", "0", "0", None, "4K").contains("--rate"));
    assert!(p("2G", "1ms", "0", "0", None, "4K").contains("1,000,000,000"));
    assert!(p("1", "25h", "0", "0", None, "4K").contains("one day"));
    assert!(p("1", "0s", "0", "0", None, "4K").contains("--lifetime"));
    assert!(p("1", "1ms", "2048T", "0", None, "4K").contains("1 PiB"));
    assert!(p("1", "1ms", "2XB", "0", None, "4K").contains("--heap"));
    assert!(p("1", "1ms", "0", "2G", None, "4K").contains("--switches"));
    assert!(p("1", "1ms", "0", "0", Some("0"), "4K").contains("--concurrent"));
    assert!(p("1", "1ms", "0", "0", Some("1.5"), "4K").contains("whole"));
    assert!(p("1", "1ms", "0", "0", None, "0").contains("--stack"));
    assert!(p("1", "1ms", "0", "0", None, "2G").contains("--stack"));
    assert!(p("1G", "1h", "0", "0", None, "4K").contains("alive at once"));
}

#[test]
fn a_noisy_flat_curve_is_held_flat_past_the_largest_heap() {
    // pthread_create in a real quick run: noise, with a high last point.
    let k = Curve::new(
        "spawn.heap",
        "lifecycle_ns",
        "method=pthread_create thp=off",
        Unit::Ns,
        vec![
            (0, 69_340.0),
            (2 << 20, 83_176.0),
            (64 << 20, 76_795.0),
            (512 << 20, 70_322.0),
            (4 << 30, 166_511.0),
        ],
    )
    .unwrap();
    let f = k.at(512 << 40);
    assert_eq!(f.value, 166_511.0, "{f:?}");
    let how = f.how.unwrap();
    assert!(
        how.contains("held there") && how.contains("rests on that heap alone"),
        "{how}"
    );
    // A strong rising line is extrapolated, and far past the largest
    // heap that is said.
    let fork = costs().fork.unwrap();
    let f = fork.at(8 << 30);
    assert!(close(f.value, 1_100_000.0 + 7.0 * 1_000_000.0));
    assert!(f.how.unwrap().contains("an extrapolation to 8x"));
    assert_eq!(fork.far_beyond(4 << 30), None);
    let a = advise(&workload("10", "8G", "0"), &costs());
    assert!(row(&a, Model::Process)
        .notes
        .iter()
        .any(|n| n.contains("is an extrapolation, 8x the largest measured heap (1 GiB)")));
}

#[test]
fn switches_cost_their_same_cpu_figure_with_the_cross_cpu_latency_shown() {
    let a = advise(&workload("1000", "0", "10k"), &costs());
    let p = row(&a, Model::Pool);
    let cr = p.create_from.as_ref().unwrap();
    assert!(cr.labels.contains("placement=same_cpu"));
    assert!(cr
        .how
        .as_deref()
        .unwrap()
        .contains("only part of it CPU time"));
    assert_eq!(
        p.switch_cross_cpu.as_ref().unwrap().labels,
        "method=futex_threads placement=unpinned"
    );
    assert!(!p.cpu_lower_bound);
    // The hand-off and every switch at the same-CPU 2 µs, never the 20 µs.
    assert!(close(
        p.cpu_share.unwrap(),
        (1000.0 + 10_000.0) * 2_000.0 / 1e9
    ));
}

#[test]
fn one_format_for_a_figure_and_its_formula() {
    let f = fig("memory.threads", "rss_per_thread_kib", "", 8.68, Unit::Kib);
    assert!(f.describe().ends_with("= 8.7 KiB"), "{}", f.describe());
    assert_eq!(fmt_short_size(8.68 * 1024.0), "8.7 KiB");
}

/// A machine with room to spare: no task limit, 16 GiB available.
fn roomy() -> Room {
    Room {
        limits: Limits::default(),
        root: false,
        tasks_now: 40,
        mem_available_bytes: 16 << 30,
        heap_margin_bytes: 1 << 30,
    }
}

#[test]
fn the_fresh_run_asks_for_its_thousand_threads_where_there_is_room() {
    let w = workload("1000", "64M", "0");
    let plan = FreshPlan::new(&w, &roomy());
    assert_eq!(plan.threads, 1000);
    assert_eq!(
        plan.heaps_bytes,
        vec![0, 2 << 20, 64 << 20, 512 << 20],
        "the workload's 64 MiB is among the standard heaps"
    );
    let threads = plan
        .presets()
        .into_iter()
        .find(|p| p.experiment == "memory.threads" && p.param == "threads")
        .unwrap();
    assert_eq!(threads.value, ParamValue::List(vec![1000]));
}

#[test]
fn under_an_nproc_limit_of_300_the_planned_threads_fit_the_room_left() {
    let mut room = roomy();
    room.limits.rlimit_nproc = Some(300);
    // 300 less the 40 tasks running.
    assert_eq!(room.tasks(), 260);
    let plan = FreshPlan::new(&workload("1000", "64M", "0"), &room);
    let planned: Vec<u64> = plan
        .presets()
        .into_iter()
        .filter(|p| p.experiment == "memory.threads" && p.param == "threads")
        .flat_map(|p| match p.value {
            ParamValue::List(v) => v,
            other => panic!("threads is a list of counts: {other:?}"),
        })
        .collect();
    assert!(!planned.is_empty());
    assert!(
        planned.iter().all(|&n| (1..=260).contains(&n)),
        "{planned:?}"
    );
    // A tenth and a hundred tasks stay for the rest of the system.
    assert_eq!(plan.threads, 260 - 26 - 100);
    // Root is not bound by RLIMIT_NPROC.
    room.root = true;
    assert_eq!(
        FreshPlan::new(&workload("1000", "0", "0"), &room).threads,
        1000
    );
}

#[test]
fn every_task_limit_and_the_memory_bound_the_fresh_threads() {
    let limited = |edit: fn(&mut Room)| {
        let mut room = roomy();
        edit(&mut room);
        (
            room.tasks(),
            FreshPlan::new(&workload("1", "0", "0"), &room).threads,
        )
    };
    assert_eq!(limited(|r| r.limits.threads_max = Some(540)).0, 500);
    assert_eq!(limited(|r| r.limits.pid_max = Some(1040)).0, 1000);
    assert_eq!(limited(|r| r.limits.cgroup_pids_max = Some(140)).0, 100);
    // 64 MiB available, half kept free, 32 KiB a thread: 1024.
    assert_eq!(limited(|r| r.mem_available_bytes = 64 << 20).0, 1024);
    assert_eq!(
        limited(|r| r.limits.cgroup_memory_max = Some(16 << 20)).0,
        256
    );
    // No room at all still plans one thread, for memory.threads to try.
    assert_eq!(limited(|r| r.limits.rlimit_nproc = Some(10)), (0, 1));
}

#[test]
fn the_fresh_heaps_fit_the_memory_available() {
    let mut room = roomy();
    // 1.5 GiB available, 1 GiB kept free: the largest heap is 512 MiB.
    room.mem_available_bytes = 3 << 29;
    let plan = FreshPlan::new(&workload("1", "3G", "0"), &room);
    assert_eq!(plan.heaps_bytes, vec![0, 2 << 20, 64 << 20, 512 << 20]);
    // With room, the workload's heap is measured too, up to 4 GiB.
    let plan = FreshPlan::new(&workload("1", "3G", "0"), &roomy());
    assert_eq!(plan.heaps_bytes.last(), Some(&(3 << 30)));
    let plan = FreshPlan::new(&workload("1", "8G", "0"), &roomy());
    assert_eq!(plan.heaps_bytes.last(), Some(&(512 << 20)));
}

#[test]
fn the_typed_presets_plan_what_the_old_param_strings_planned() {
    let plan = FreshPlan {
        heaps_bytes: vec![0, 2 << 20, 64 << 20],
        threads: 1000,
    };
    let env = crate::env::probe();
    let names: Vec<String> = NEEDED.iter().map(|s| s.to_string()).collect();
    let request = |params: &[String], presets: &[Preset]| {
        crate::run::plan::plan(
            &Request {
                params,
                ..Request::quick(&names, presets)
            },
            &env,
        )
        .unwrap()
    };
    let strings: Vec<String> = [
        "spawn.heap.heap_sizes=0,2097152,67108864",
        "spawn.heap.methods=fork,posix_spawn,pthread_create,fork_exec_static,vfork",
        "spawn.heap.thp=false",
        "switch.pingpong.methods=futex_threads,futex_processes",
        "switch.pingpong.placements=same_cpu,unpinned",
        "switch.userspace.variants=async,coroutine",
        "memory.threads.variants=default",
        "memory.threads.threads=1000",
    ]
    .map(String::from)
    .to_vec();
    let old = request(&strings, &[]);
    let new = request(&[], &plan.presets());
    assert_eq!(old.experiments.len(), new.experiments.len());
    for (o, n) in old.experiments.iter().zip(&new.experiments) {
        assert_eq!(o.exp.name, n.exp.name);
        assert_eq!(o.params, n.params, "{}", o.exp.name);
    }
    // The user's -p still wins over a preset.
    let mine = request(&["memory.threads.threads=7".to_string()], &plan.presets());
    let threads = mine
        .experiments
        .iter()
        .find(|p| p.exp.name == crate::experiments::memory::threads::EXPERIMENT.name)
        .unwrap();
    assert_eq!(
        threads
            .params
            .get(&crate::experiments::memory::threads::THREADS_PARAM),
        vec![7]
    );
}
