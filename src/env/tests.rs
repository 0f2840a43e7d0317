use super::facts::CpuIdle;
use super::*;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh empty directory under the system temp dir, removed on drop.
struct TempRoot(PathBuf);

impl TempRoot {
    fn new(tag: &str) -> TempRoot {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "tasklab-env-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        TempRoot(dir)
    }
    fn write(&self, path: &str, content: &str) {
        let p = self.0.join(path.trim_start_matches('/'));
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, content).unwrap();
    }
}

impl Drop for TempRoot {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

const CPUINFO: &str = "processor\t: 0\n\
vendor_id\t: GenuineIntel\n\
model name\t: Intel(R) Core(TM) i7-6700 CPU @ 3.40GHz\n\
cpu MHz\t\t: 2994.377\n\
flags\t\t: fpu vme tsc constant_tsc nonstop_tsc hypervisor\n\
\n\
processor\t: 1\n\
model name\t: Something Else\n\
cpu MHz\t\t: 1000.000\n";

#[test]
fn cpu_list_roundtrip() {
    assert_eq!(cpu_list(&[0, 1, 2, 5]), "0-2,5");
    assert_eq!(cpu_list(&[5, 0, 2, 1, 1]), "0-2,5");
    assert_eq!(cpu_list(&[]), "");
    assert_eq!(cpu_list(&[3]), "3");
    assert_eq!(cpu_list(&[0, 2, 4, 5]), "0,2,4-5");
    assert_eq!(parse_cpu_list("0-2,5").unwrap(), vec![0, 1, 2, 5]);
    assert_eq!(parse_cpu_list("0-63\n").unwrap().len(), 64);
    assert_eq!(parse_cpu_list(" 7 ").unwrap(), vec![7]);
    assert_eq!(parse_cpu_list("\n").unwrap(), Vec::<usize>::new());
    assert_eq!(parse_cpu_list("3,1-2,2").unwrap(), vec![1, 2, 3]);
    let v = vec![0, 1, 2, 3, 8, 10, 11];
    assert_eq!(parse_cpu_list(&cpu_list(&v)).unwrap(), v);
}

#[test]
fn parse_cpu_list_rejects_garbage() {
    for bad in [
        "a",
        "1-",
        "-1",
        "3-1",
        "1,,2",
        ",",
        "1-2-3",
        "0-99999999999",
    ] {
        assert!(parse_cpu_list(bad).is_err(), "{bad:?} should fail");
    }
}

#[test]
fn choice_files() {
    assert_eq!(
        bracketed_choice("always [madvise] never\n").as_deref(),
        Some("madvise")
    );
    assert_eq!(
        bracketed_choice("always defer defer+madvise [madvise] never").as_deref(),
        Some("madvise")
    );
    assert_eq!(
        bracketed_choice("none voluntary (full) lazy\n").as_deref(),
        Some("full")
    );
    assert_eq!(bracketed_choice("never\n").as_deref(), Some("never"));
    assert_eq!(bracketed_choice("a b c"), None);
    assert_eq!(bracketed_choice(""), None);
    assert_eq!(bracketed_choice("[ "), None);
}

#[test]
fn meminfo_parsing() {
    let m = "MemTotal:       16384 kB\nMemFree:  100 kB\nMemAvailable:   8192 kB\nHugePages_Total:       3\n";
    assert_eq!(meminfo_bytes(m, "MemTotal"), Some(16384 * 1024));
    assert_eq!(meminfo_bytes(m, "MemAvailable"), Some(8192 * 1024));
    assert_eq!(meminfo_bytes(m, "HugePages_Total"), Some(3));
    assert_eq!(meminfo_bytes(m, "Mem"), None);
    assert_eq!(meminfo_bytes("", "MemTotal"), None);
}

#[test]
fn cpuinfo_parsing() {
    assert_eq!(
        cpuinfo_field(CPUINFO, "model name"),
        Some("Intel(R) Core(TM) i7-6700 CPU @ 3.40GHz")
    );
    assert_eq!(cpuinfo_field(CPUINFO, "cpu MHz"), Some("2994.377"));
    assert_eq!(cpuinfo_field(CPUINFO, "nope"), None);
    assert_eq!(
        stated_mhz_from_model("Intel(R) Core(TM) i7-6700 CPU @ 3.40GHz"),
        Some(3400.0)
    );
    assert_eq!(stated_mhz_from_model("Foo @ 2.667 GHz"), Some(2667.0));
    assert_eq!(stated_mhz_from_model("Foo @ 800MHz"), Some(800.0));
    assert_eq!(
        stated_mhz_from_model("AMD EPYC 7763 64-Core Processor"),
        None
    );
    assert_eq!(stated_mhz_from_model("odd @ fast"), None);
    assert!(mem_available_bytes().is_some_and(|b| b > 0) || !Path::new("/proc").exists());
}

#[test]
fn mitigations_are_summarised() {
    let m = vec![
        ("meltdown".to_string(), "Not affected".to_string()),
        (
            "mds".to_string(),
            "Mitigation: Clear CPU buffers; SMT vulnerable".to_string(),
        ),
        ("retbleed".to_string(), "Vulnerable".to_string()),
        (
            "itlb_multihit".to_string(),
            "KVM: Mitigation: VMX disabled".to_string(),
        ),
        (
            "srbds".to_string(),
            "Unknown: Dependent on hypervisor status".to_string(),
        ),
    ];
    assert_eq!(
        mitigations_summary(&m),
        "1 vulnerable (retbleed), 2 mitigated, 1 not affected, 1 other"
    );
    assert_eq!(mitigations_summary(&[]), "not reported");
    assert_eq!(vuln_state("Processor vulnerable"), VulnState::Vulnerable);
    assert_eq!(vuln_state("Vulnerable"), VulnState::Vulnerable);
}

#[test]
fn virtualisation_classification() {
    let c = |v, p, t, f| classify_virt(v, p, t, f, false);
    assert_eq!(
        c("QEMU", "Standard PC (Q35 + ICH9, 2009)", "", true).as_deref(),
        Some("qemu")
    );
    assert_eq!(c("Red Hat", "KVM", "", true).as_deref(), Some("kvm"));
    assert_eq!(
        c("VMware, Inc.", "VMware Virtual Platform", "", true).as_deref(),
        Some("vmware")
    );
    assert_eq!(
        c("Microsoft Corporation", "Virtual Machine", "", true).as_deref(),
        Some("microsoft")
    );
    assert_eq!(c("Microsoft Corporation", "Surface Pro", "", false), None);
    assert_eq!(c("Amazon EC2", "m5.metal", "", false), None);
    assert_eq!(
        c("Amazon EC2", "m5.large", "", true).as_deref(),
        Some("amazon")
    );
    assert_eq!(c("", "", "xen", false).as_deref(), Some("xen"));
    assert_eq!(
        c("Dell Inc.", "PowerEdge R640", "", true).as_deref(),
        Some("unknown hypervisor")
    );
    assert_eq!(c("Dell Inc.", "PowerEdge R640", "", false), None);
    assert_eq!(
        classify_virt("", "", "", true, true).as_deref(),
        Some("microsoft")
    );
}

#[test]
fn container_hints_and_preemption() {
    assert_eq!(
        cgroup_container_hint("0::/kubepods/besteffort/pod1/docker-abc"),
        Some("kubernetes")
    );
    assert_eq!(
        cgroup_container_hint("12:pids:/docker/abc\n"),
        Some("docker")
    );
    assert_eq!(cgroup_container_hint("0::/init.scope\n"), None);
    let p = |v| preempt_from_version(v, "");
    assert_eq!(
        p("#1 SMP PREEMPT_DYNAMIC Fri Aug 30").as_deref(),
        Some("PREEMPT_DYNAMIC")
    );
    assert_eq!(p("#1 SMP PREEMPT_RT Fri").as_deref(), Some("PREEMPT_RT"));
    assert_eq!(p("#1 SMP PREEMPT Fri").as_deref(), Some("PREEMPT"));
    assert_eq!(p("#1 SMP Fri").as_deref(), Some("none or voluntary"));
    assert_eq!(p(""), None);
    assert_eq!(
        preempt_from_version("#1 SMP PREEMPT_DYNAMIC", "ro quiet preempt=full").as_deref(),
        Some("PREEMPT_DYNAMIC (preempt=full)")
    );
}

#[test]
fn cgroup_paths() {
    assert_eq!(
        cgroup_v2_path("1:name=systemd:/x\n0::/user.slice/a.scope\n"),
        Some(PathBuf::from("user.slice/a.scope"))
    );
    assert_eq!(cgroup_v2_path("0::/\n"), Some(PathBuf::new()));
    assert_eq!(cgroup_v2_path("0::/../../x\n"), None);
    assert_eq!(cgroup_v2_path("4:memory:/x\n"), None);
    let v1 = "9:name=systemd:/\n4:cpu,memory:/process_api/9b\n0::/\n";
    assert_eq!(
        cgroup_v1_path(v1, "memory"),
        Some(PathBuf::from("process_api/9b"))
    );
    assert_eq!(cgroup_v1_path(v1, "pids"), None);
    assert_eq!(cgroup_v1_path("4:memory:/../x\n", "memory"), None);
    assert_eq!(parse_cgroup_value("max\n"), None);
    assert_eq!(parse_cgroup_value("4915\n"), Some(4915));
}

#[test]
fn number_formatting() {
    assert_eq!(crate::units::group_digits(0), "0");
    assert_eq!(crate::units::group_digits(999), "999");
    assert_eq!(crate::units::group_digits(1234), "1,234");
    assert_eq!(crate::units::group_digits(4194304), "4,194,304");
    assert_eq!(crate::units::fmt_size_approx(512), "512 B");
    assert_eq!(crate::units::fmt_size_approx(8 << 20), "8.0 MiB");
    assert_eq!(crate::units::fmt_size_approx(25_125_860_557), "23.4 GiB");
}

#[test]
fn read_from_fake_root() {
    let t = TempRoot::new("fake");
    t.write("/proc/cpuinfo", CPUINFO);
    t.write(
        "/proc/meminfo",
        "MemTotal: 2048 kB\nMemAvailable: 1024 kB\n",
    );
    t.write("/proc/sys/kernel/hostname", "box\n");
    t.write("/proc/sys/kernel/version", "#1 SMP PREEMPT_DYNAMIC Thu\n");
    t.write("/proc/sys/kernel/threads-max", "126000\n");
    t.write("/proc/sys/kernel/pid_max", "4194304\n");
    t.write("/proc/sys/vm/max_map_count", "65530\n");
    t.write(
        "/proc/self/cgroup",
        "0::/user.slice/user-1000.slice/s.scope\n",
    );
    t.write("/proc/1/cgroup", "0::/docker/abc\n");
    t.write(
        "/sys/fs/cgroup/user.slice/user-1000.slice/s.scope/pids.max",
        "max\n",
    );
    t.write(
        "/sys/fs/cgroup/user.slice/user-1000.slice/s.scope/memory.max",
        "1073741824\n",
    );
    t.write(
        "/sys/fs/cgroup/user.slice/user-1000.slice/pids.max",
        "4915\n",
    );
    t.write(
        "/sys/fs/cgroup/user.slice/user-1000.slice/memory.max",
        "max\n",
    );
    t.write("/sys/fs/cgroup/user.slice/pids.max", "9999\n");
    t.write("/sys/devices/system/cpu/online", "0-3\n");
    t.write(
        "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
        "performance\n",
    );
    t.write("/sys/class/dmi/id/sys_vendor", "QEMU\n");
    t.write(
        "/sys/class/dmi/id/product_name",
        "Standard PC (i440FX + PIIX, 1996)\n",
    );
    t.write(
        "/sys/kernel/mm/transparent_hugepage/enabled",
        "always [madvise] never\n",
    );
    t.write(
        "/sys/kernel/mm/transparent_hugepage/defrag",
        "always defer defer+madvise [madvise] never\n",
    );
    t.write(
        "/sys/devices/system/cpu/vulnerabilities/spectre_v2",
        "Mitigation: Retpolines\n",
    );
    t.write(
        "/sys/devices/system/cpu/vulnerabilities/meltdown",
        "Not affected\n",
    );
    t.write(
        "/sys/devices/system/clocksource/clocksource0/current_clocksource",
        "tsc\n",
    );

    let e = Env::read_from(&t.0, "6.8.0-test".into(), "x86_64".into());
    assert_eq!(e.hostname, "box");
    assert_eq!(e.cpu_model, "Intel(R) Core(TM) i7-6700 CPU @ 3.40GHz");
    assert_eq!(e.cpus_online, 4);
    assert!(e.cpus_allowed.is_empty());
    assert_eq!(e.stated_mhz, Some(3400.0));
    assert_eq!(e.cpuinfo_mhz, Some(2994.377));
    assert_eq!(e.measured_mhz, None);
    assert_eq!(e.governor.as_deref(), Some("performance"));
    assert_eq!(e.kernel, "6.8.0-test");
    assert_eq!(e.arch, "x86_64");
    assert_eq!(e.virtualization.as_deref(), Some("qemu"));
    assert_eq!(e.container.as_deref(), Some("docker"));
    assert_eq!(e.thp_enabled.as_deref(), Some("madvise"));
    assert_eq!(e.thp_defrag.as_deref(), Some("madvise"));
    assert_eq!(
        e.mitigations,
        vec![
            ("meltdown".to_string(), "Not affected".to_string()),
            (
                "spectre_v2".to_string(),
                "Mitigation: Retpolines".to_string()
            ),
        ]
    );
    assert_eq!(e.clocksource.as_deref(), Some("tsc"));
    assert!(e.tsc_invariant);
    assert_eq!(e.preempt.as_deref(), Some("PREEMPT_DYNAMIC"));
    assert_eq!(e.mem_total_bytes, 2048 * 1024);
    assert_eq!(e.mem_available_bytes, 1024 * 1024);
    assert_eq!(e.limits.threads_max, Some(126000));
    assert_eq!(e.limits.pid_max, Some(4194304));
    assert_eq!(e.limits.max_map_count, Some(65530));
    assert_eq!(e.limits.cgroup_pids_max, Some(4915));
    assert_eq!(e.limits.cgroup_memory_max, Some(1 << 30));
    assert_eq!(e.limits.rlimit_nproc, None);

    let d = e.describe();
    let get = |k: &str| d.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone());
    assert_eq!(
        get("THP").as_deref(),
        Some("enabled=madvise defrag=madvise")
    );
    assert_eq!(get("clock source").as_deref(), Some("tsc (invariant TSC)"));
    assert_eq!(
        get("mitigations").as_deref(),
        Some("0 vulnerable, 1 mitigated, 1 not affected")
    );
    assert!(get("limits").unwrap().contains("threads-max 126,000"));
    assert!(get("limits").unwrap().contains("cgroup pids.max 4,915"));
    assert!(get("frequency")
        .unwrap()
        .starts_with("stated 3400 MHz; /proc/cpuinfo 2994 MHz"));

    // Results files store this as JSON; it must round-trip.
    let json = serde_json::to_string(&e).unwrap();
    assert_eq!(serde_json::from_str::<Env>(&json).unwrap(), e);
}

#[test]
fn read_from_empty_root() {
    let t = TempRoot::new("empty");
    let e = Env::read_from(&t.0, String::new(), String::new());
    assert_eq!(e.hostname, "unknown");
    assert_eq!(e.cpu_model, "unknown");
    assert!(e.cpus_online >= 1);
    assert_eq!(e.stated_mhz, None);
    assert_eq!(e.cpuinfo_mhz, None);
    assert_eq!(e.governor, None);
    assert_eq!(e.virtualization, None);
    assert_eq!(e.container, None);
    assert_eq!(e.thp_enabled, None);
    assert_eq!(e.thp_defrag, None);
    assert!(e.mitigations.is_empty());
    assert_eq!(e.clocksource, None);
    assert!(!e.tsc_invariant);
    assert_eq!(e.preempt, None);
    assert_eq!(e.mem_total_bytes, 0);
    assert_eq!(e.mem_available_bytes, 0);
    assert_eq!(e.limits, Limits::default());
    assert!(!e.describe().is_empty());
    // A root that does not exist at all behaves the same.
    let gone = Env::read_from(&t.0.join("missing"), String::new(), String::new());
    assert_eq!(gone.cpu_model, "unknown");
}

#[test]
fn read_from_real_root_does_not_panic() {
    let e = Env::read_from(Path::new("/"), "x".into(), std::env::consts::ARCH.into());
    assert!(e.cpus_online >= 1);
    assert_eq!(
        e.describe().len(),
        13 + e.hardware.describe().len() + e.facts.describe(e.virtualization.as_deref()).len()
    );
}

#[test]
fn a_cgroup_v1_pids_limit_is_read_up_the_hierarchy() {
    let t = TempRoot::new("v1pids");
    t.write("/proc/self/cgroup", "5:pids:/user.slice/u\n0::/\n");
    t.write("/sys/fs/cgroup/pids/user.slice/u/pids.max", "max\n");
    let e = Env::read_from(&t.0, "6.8.0-test".into(), "x86_64".into());
    assert_eq!(e.limits.cgroup_pids_max, None, "no limit");
    t.write("/sys/fs/cgroup/pids/user.slice/pids.max", "4915\n");
    let e = Env::read_from(&t.0, "6.8.0-test".into(), "x86_64".into());
    assert_eq!(e.limits.cgroup_pids_max, Some(4915), "the parent's limit");
}

#[test]
fn a_cgroup_v1_memory_limit_is_read_up_the_hierarchy() {
    let t = TempRoot::new("v1");
    t.write("/proc/self/cgroup", "4:memory:/process_api/9b\n0::/\n");
    let unlimited = "9223372036854771712\n";
    t.write(
        "/sys/fs/cgroup/memory/process_api/9b/memory.limit_in_bytes",
        unlimited,
    );
    t.write("/sys/fs/cgroup/memory/memory.limit_in_bytes", unlimited);
    let e = Env::read_from(&t.0, "6.8.0-test".into(), "x86_64".into());
    assert_eq!(e.limits.cgroup_memory_max, None, "no limit");
    t.write(
        "/sys/fs/cgroup/memory/process_api/memory.limit_in_bytes",
        "2147483648\n",
    );
    let e = Env::read_from(&t.0, "6.8.0-test".into(), "x86_64".into());
    assert_eq!(
        e.limits.cgroup_memory_max,
        Some(2 << 30),
        "the parent's limit"
    );
}

#[test]
fn facts_are_read_from_fixture_text() {
    let t = TempRoot::new("facts");
    t.write("/proc/cpuinfo", "flags\t\t: fpu pcid invpcid hypervisor\n");
    t.write(
        "/proc/stat",
        "cpu  100 0 50 9000 10 0 0 40 0 0\ncpu0 1 0 0 1 0 0 0 0\n",
    );
    t.write("/proc/uptime", "100.00 180.00\n");
    t.write("/sys/devices/system/cpu/online", "0-1\n");
    t.write(
        "/proc/cmdline",
        "console=ttyS0 cpuidle_haltpoll.force=1 haltpoll.guest_halt_poll_ns=0\n",
    );
    t.write(
        "/proc/self/status",
        "Name:\tx\nSeccomp:\t2\nSeccomp_filters:\t1\n",
    );
    t.write(
        "/sys/devices/system/cpu/cpuidle/current_driver",
        "haltpoll\n",
    );
    t.write(
        "/sys/devices/system/cpu/cpuidle/current_governor",
        "haltpoll\n",
    );
    t.write("/sys/devices/system/cpu/cpu0/cpuidle/state0/name", "POLL\n");
    t.write("/sys/devices/system/cpu/cpu0/cpuidle/state0/latency", "0\n");
    t.write(
        "/sys/devices/system/cpu/cpu0/cpuidle/state1/name",
        "haltpoll idle\n",
    );
    t.write("/sys/devices/system/cpu/cpu0/cpuidle/state1/latency", "1\n");
    t.write("/sys/devices/system/cpu/cpu0/cpuidle/state1/disable", "1\n");
    t.write("/sys/module/haltpoll/parameters/guest_halt_poll_ns", "0\n");
    t.write("/sys/bus/virtio/devices/virtio0/device", "0x0005\n");
    t.write(
        "/sys/bus/virtio/devices/virtio0/features",
        "0110010100000000\n",
    );
    t.write("/sys/bus/virtio/devices/virtio1/device", "0x0001\n");
    t.write(
        "/sys/module/page_reporting/parameters/page_reporting_order",
        "9\n",
    );
    t.write(
        "/sys/module/page_reporting/parameters/reported_kib",
        "2097152\n",
    );
    t.write("/sys/module/page_reporting/parameters/min_free_ms", "0\n");
    t.write("/sys/devices/system/node/online", "0-1\n");
    t.write(
        "/sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled",
        "always inherit madvise [never]\n",
    );
    t.write(
        "/sys/kernel/mm/transparent_hugepage/hugepages-2048kB/enabled",
        "always [inherit] madvise never\n",
    );
    t.write("/proc/self/cgroup", "0::/app\n");
    t.write("/sys/fs/cgroup/cgroup.controllers", "cpu memory pids\n");
    t.write("/sys/fs/cgroup/app/cpu.max", "50000 100000\n");
    t.write(
        "/sys/fs/cgroup/app/cpu.stat",
        "usage_usec 5\nnr_periods 9\nnr_throttled 3\nthrottled_usec 7000\n",
    );
    let e = Env::read_from(&t.0, "6.1.0-test".into(), "x86_64".into());
    let f = &e.facts;
    assert!(f.pcid && f.invpcid);
    assert_eq!(f.steal_since_boot_ns, Some(400_000_000));
    // 0.4 s stolen of 100 s × 2 CPUs.
    assert!((f.steal_since_boot_share.unwrap() - 0.002).abs() < 1e-9);
    assert_eq!(f.seccomp.as_deref(), Some("filter (1 filters)"));
    let ci = f.cpuidle.as_ref().unwrap();
    assert_eq!(ci.driver.as_deref(), Some("haltpoll"));
    assert_eq!(ci.states.len(), 2);
    assert_eq!(ci.states[1].exit_latency_us, 1);
    assert!(ci.states[1].disabled && !ci.states[0].disabled);
    let why = f.polling_idle(None).unwrap_err();
    assert!(why.contains("guest_halt_poll_ns=0"), "{why}");
    assert_eq!(f.balloon, vec!["virtio_balloon (free page reporting)"]);
    assert_eq!(
        f.page_reporting,
        Some(facts::PageReporting {
            order: 9,
            reported_kib: Some(2 << 20),
            min_free_ms: Some(0),
        })
    );
    assert!(f.describe(None).iter().any(|(k, v)| {
        k == "page reporting"
        && v == "free blocks of 2 MiB and more (page_reporting_order 9, min_free_ms 0); 2 GiB reported since boot"
    }));
    assert_eq!(f.numa_nodes, Some(2));
    assert_eq!(
        f.mthp,
        vec![
            ("64kB".to_string(), "never".to_string()),
            ("2048kB".to_string(), "inherit".to_string())
        ]
    );
    assert_eq!(f.cgroup.version.as_deref(), Some("v2"));
    assert_eq!(f.cgroup.cpu_quota_cpus, Some(0.5));
    assert_eq!(f.cgroup.nr_throttled, Some(3));
    assert_eq!(f.cgroup.throttled_usec, Some(7000));
    assert_eq!(
        facts::throttling(&f.cgroup),
        Some(crate::env::Throttling {
            nr_throttled: 3,
            throttled_usec: 7000
        })
    );
    let rss = f.rss_counting.as_ref().unwrap();
    assert!(rss.regime.contains("per-thread"), "{rss:?}");
    // A fake root has no namespace links: the marks decide (none here).
    assert!(f.own_namespaces.is_empty());
    assert_eq!(e.container, None);
    assert!(e.describe().iter().any(|(k, _)| k == "cpuidle"));
}

#[test]
fn polling_idle_is_recognised() {
    let mut f = Facts {
        cmdline: Some("quiet idle=poll".into()),
        ..Facts::default()
    };
    assert!(f.polling_idle(None).is_ok());
    f.cmdline = None;
    assert!(f.polling_idle(None).is_err());
    f.cpuidle = Some(CpuIdle {
        driver: Some("haltpoll".into()),
        governor: Some("haltpoll".into()),
        states: vec![],
        haltpoll_poll_ns: Some(200_000),
        ..CpuIdle::default()
    });
    assert!(f.polling_idle(None).unwrap().contains("200"));
}

#[test]
fn the_rss_regime_follows_the_release() {
    let old = rss_counting("5.15.0-91-generic", 8).unwrap();
    assert_eq!(old.bound_bytes, None);
    let new = rss_counting("6.8.0", 64).unwrap();
    // 64 CPUs × max(32, 128) pages.
    assert_eq!(new.bound_bytes, Some(64 * 128 * 4096));
    assert_eq!(
        rss_counting("6.2", 2).unwrap().bound_bytes,
        Some(2 * 32 * 4096)
    );
    assert!(rss_counting("", 2).is_none());
}

#[test]
fn fact_parsers_read_their_lines() {
    use facts::*;
    assert_eq!(cpu_max("max 100000\n"), None);
    assert_eq!(cpu_max("200000 100000\n"), Some(2.0));
    assert!(feature_bit("000001", 5) && !feature_bit("00000", 5));
    assert_eq!(seccomp_mode("Seccomp:\t0\n").as_deref(), Some("disabled"));
    assert_eq!(
        stat_field("nr_periods 4\nnr_throttled 2\n", "nr_throttled"),
        Some(2)
    );
    assert_eq!(steal_ticks("cpu  1 2 3 4 5 6 7 8 9\n"), Some(8));
    assert_eq!(facts::ns_inode("pid:[4026531836]"), Some(4_026_531_836));
}

#[test]
fn a_dockerenv_file_with_the_hosts_namespaces_is_no_container() {
    // The real process: readable links, so the namespaces decide.
    let e = Env::read_from(Path::new("/"), "6.8.0".into(), "x86_64".into());
    if e.facts.own_namespaces.is_empty() && fs::read_link("/proc/self/ns/pid").is_ok() {
        assert!(
            e.container
                .as_deref()
                .is_none_or(|c| c.contains("host pid")),
            "{:?}",
            e.container
        );
    }
}

/// This VM's whole vulnerabilities/ text: SRSO's "Vulnerable: Safe RET, no
/// microcode" runs Safe RET on every kernel entry, so three mitigations are
/// active, not the two whose lines start with "Mitigation".
#[test]
fn a_partial_mitigation_is_read_from_the_whole_text() {
    let t = TempRoot::new("vuln");
    let dir = "/sys/devices/system/cpu/vulnerabilities";
    for (name, status) in [
        ("meltdown", "Not affected"),
        ("retbleed", "Not affected"),
        ("spec_rstack_overflow", "Vulnerable: Safe RET, no microcode"),
        ("spec_store_bypass", "Vulnerable"),
        (
            "spectre_v1",
            "Mitigation: usercopy/swapgs barriers and __user pointer sanitization",
        ),
        (
            "spectre_v2",
            "Mitigation: Retpolines; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not affected; BHI: Not affected",
        ),
        ("gather_data_sampling", "Vulnerable: No microcode"),
        ("mds", "Vulnerable: Clear CPU buffers attempted, no microcode"),
    ] {
        t.write(&format!("{dir}/{name}"), &format!("{status}\n"));
    }
    let e = Env::read_from(&t.0, "6.8.0-test".into(), "x86_64".into());
    let (active, partial) = active_mitigations(&e.mitigations);
    assert_eq!(
        active,
        ["mds", "spec_rstack_overflow", "spectre_v1", "spectre_v2"]
    );
    assert_eq!(partial, 2);
    assert_eq!(
        mitigations_summary(&e.mitigations),
        "2 vulnerable (gather_data_sampling, spec_store_bypass), 2 partly mitigated (mds: Vulnerable: Clear CPU buffers attempted, no microcode; spec_rstack_overflow: Vulnerable: Safe RET, no microcode), 2 mitigated, 2 not affected"
    );
    assert_eq!(
        mitigations_active_text(active.len(), partial),
        "4 CPU vulnerability mitigations active here (2 of them partial; each kernel entry pays for some)"
    );
    assert_eq!(
        vuln_state("Vulnerable: Microcode, no safe RET"),
        VulnState::Vulnerable
    );
    assert_eq!(
        vuln_state("Vulnerable: eIBRS with unprivileged eBPF"),
        VulnState::PartlyMitigated
    );
}

/// SSB "disabled via prctl" runs only for the tasks that ask for it: it is
/// no mitigation of ours, and the seed table's count leaves it out (issue
/// 39: 4 counted where 3 run).
#[test]
fn a_mitigation_a_task_must_ask_for_is_not_counted_as_active() {
    let t = TempRoot::new("vuln-prctl");
    let dir = "/sys/devices/system/cpu/vulnerabilities";
    for (name, status) in [
        ("retbleed", "Mitigation: untrained return thunk"),
        (
            "spec_store_bypass",
            "Mitigation: Speculative Store Bypass disabled via prctl",
        ),
        (
            "spectre_v1",
            "Mitigation: usercopy/swapgs barriers and __user pointer sanitization",
        ),
        ("spectre_v2", "Mitigation: Retpolines"),
        ("mds", "Not affected"),
    ] {
        t.write(&format!("{dir}/{name}"), &format!("{status}\n"));
    }
    let e = Env::read_from(&t.0, "6.8.0-test".into(), "x86_64".into());
    let (active, partial) = active_mitigations(&e.mitigations);
    assert_eq!(active, ["retbleed", "spectre_v1", "spectre_v2"]);
    assert_eq!(partial, 0);
    assert_eq!(
        mitigations_summary(&e.mitigations),
        "0 vulnerable, 3 mitigated, 1 mitigated only for tasks that ask (prctl: spec_store_bypass), 1 not affected"
    );
    assert_eq!(
        vuln_state("Mitigation: Speculative Store Bypass disabled via prctl and seccomp"),
        VulnState::OptIn
    );
}

#[path = "idle_tests.rs"]
mod idle;
