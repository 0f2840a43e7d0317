use super::*;
use crate::env::Env;
use std::path::Path;

/// A fake `/` in a fresh temporary folder.
struct Fake(tempfile::TempDir);

impl Fake {
    fn new() -> Fake {
        Fake(tempfile::tempdir().unwrap())
    }
    fn write(&self, path: &str, content: &str) -> &Fake {
        let p = self.0.path().join(path.trim_start_matches('/'));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
        self
    }
    fn env(&self) -> Env {
        Env::read_from(self.0.path(), "6.8.0-test".into(), "x86_64".into())
    }
}

const SECRET: &str = "s3cr3t-TOKEN-123";
const MACHINE_ID: &str = "0123456789abcdef0123456789abcdef";

fn machine() -> Fake {
    let f = Fake::new();
    let cpu = "/sys/devices/system/cpu";
    f.write(
        "/proc/cpuinfo",
        "processor\t: 0\nmodel name\t: Test CPU\nmicrocode\t: 0x1000065\nflags\t\t: fpu\n",
    )
    .write(
        "/proc/cmdline",
        &format!(
            "BOOT_IMAGE=/home/alice/vmlinuz root=UUID=feed idle=poll mitigations=off preempt=full \
             agent --auth-required={SECRET} token={SECRET}\n"
        ),
    )
    .write("/proc/sys/kernel/version", "#1 SMP PREEMPT_DYNAMIC Thu\n")
    .write("/etc/machine-id", &format!("{MACHINE_ID}\n"))
    .write(&format!("{cpu}/online"), "0-3\n")
    .write(&format!("{cpu}/cpufreq/boost"), "1\n");
    for n in 0..4 {
        let t = format!("{cpu}/cpu{n}/topology");
        f.write(&format!("{t}/core_id"), &format!("{}\n", n % 2))
            .write(&format!("{t}/physical_package_id"), "0\n");
    }
    f.write(&format!("{cpu}/cpu0/topology/core_cpus_list"), "0,2\n");
    for (i, level, ty, size) in [
        (0, 1, "Data", "48K"),
        (1, 1, "Instruction", "32K"),
        (2, 2, "Unified", "1024K"),
        (3, 3, "Unified", "32M"),
    ] {
        let d = format!("{cpu}/cpu0/cache/index{i}");
        f.write(&format!("{d}/level"), &format!("{level}\n"))
            .write(&format!("{d}/type"), &format!("{ty}\n"))
            .write(&format!("{d}/size"), &format!("{size}\n"));
    }
    f
}

#[test]
fn hardware_facts_are_read_from_a_fake_root() {
    let e = machine().env();
    let h = &e.hardware;
    assert_eq!(h.microcode.as_deref(), Some("0x1000065"));
    assert_eq!(h.cores, Some(2));
    assert_eq!(h.threads_per_core, Some(2));
    assert_eq!(h.l1d_bytes, Some(48 << 10));
    assert_eq!(h.l2_bytes, Some(1 << 20));
    assert_eq!(h.l3_bytes, Some(32 << 20));
    assert_eq!(h.boost, Some(true));
    let hash = h.machine_id_hash.clone().unwrap();
    assert_eq!(hash.len(), MACHINE_HASH_DIGITS);
    assert!(hash.chars().all(|c| c.is_ascii_hexdigit()));
    // The same id, the same hash; never the id itself.
    assert_eq!(machine_id_hash(MACHINE_ID).as_deref(), Some(hash.as_str()));
    assert_ne!(
        machine_id_hash("fedcba9876543210fedcba9876543210"),
        Some(hash)
    );
    let json = serde_json::to_string(&e).unwrap();
    assert!(!json.contains(MACHINE_ID), "{json}");
}

#[test]
fn the_machine_id_hash_is_none_for_an_uninitialised_id() {
    assert_eq!(machine_id_hash(""), None);
    assert_eq!(machine_id_hash("uninitialized\n"), None);
    let empty = Fake::new().env().hardware;
    assert_eq!(empty, Hardware::default());
    assert!(empty.describe().iter().all(|(_, v)| v.contains("unknown")));
}

#[test]
fn boost_is_read_from_intel_pstate_when_cpufreq_has_none() {
    let f = Fake::new();
    f.write("/sys/devices/system/cpu/intel_pstate/no_turbo", "1\n");
    assert_eq!(f.env().hardware.boost, Some(false));
}

#[test]
fn cache_sizes_parse() {
    assert_eq!(parse_cache_size("48K"), Some(49_152));
    assert_eq!(parse_cache_size("2M"), Some(2 << 20));
    assert_eq!(parse_cache_size("512"), Some(512));
    assert_eq!(parse_cache_size("K"), None);
    assert_eq!(parse_cache_size("lots"), None);
}

#[test]
fn only_the_allowlisted_cmdline_is_stored_and_the_derived_facts_still_hold() {
    let e = machine().env();
    assert_eq!(
        e.facts.cmdline.as_deref(),
        Some("idle=poll mitigations=off preempt=full")
    );
    // Derived from the whole line at run time.
    assert_eq!(e.preempt.as_deref(), Some("PREEMPT_DYNAMIC (preempt=full)"));
    assert!(e.facts.polling_idle(None).is_ok());
    let json = serde_json::to_string(&e).unwrap();
    assert!(
        !json.contains(SECRET) && !json.contains("auth-required"),
        "{json}"
    );
    assert!(!json.contains("/home/alice") && !json.contains("UUID=feed"));
    let shown = format!("{:?}", e.describe());
    assert!(!shown.contains(SECRET), "{shown}");
}

#[test]
fn an_older_files_whole_line_is_cut_down_when_shown() {
    let mut e = machine().env();
    e.facts.cmdline = Some(format!("quiet agent --auth-required={SECRET} nopti"));
    let shown = format!("{:?}", e.describe());
    assert!(!shown.contains(SECRET), "{shown}");
    assert!(shown.contains("nopti"), "{shown}");
}

#[test]
fn the_real_machine_reads_without_panicking() {
    let e = Env::read_from(Path::new("/"), "x".into(), "x".into());
    if let Some(c) = e.hardware.cores {
        assert!(c >= 1 && c <= e.cpus_online);
    }
}
