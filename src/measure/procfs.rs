//! Readings from /proc: the memory image figures the seeds quote.

/// A `kB` field of /proc/self/status (VmPTE, VmRSS, VmSize, ...), in KiB.
pub fn status_kib(field: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    kib_field(&text, field)
}

/// A `kB` field of /proc/self/smaps_rollup (Rss, AnonHugePages, ...), in KiB.
pub fn smaps_rollup_kib(field: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/smaps_rollup").ok()?;
    kib_field(&text, field)
}

/// A `kB` field of /proc/meminfo (KernelStack, MemAvailable, ...), in KiB.
pub fn meminfo_kib(field: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    kib_field(&text, field)
}

/// Tasks (threads) on the whole system now: the fourth field of
/// /proc/loadavg, `running/total`.
pub fn tasks_now() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace()
        .nth(3)?
        .split_once('/')?
        .1
        .parse()
        .ok()
}

/// Finds `Field:   1234 kB` in a /proc text.
pub fn kib_field(text: &str, field: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let rest = l.strip_prefix(field)?.strip_prefix(':')?;
        rest.split_whitespace().next()?.parse().ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_found_by_exact_name() {
        let text = "VmPeak:\t  10 kB\nVmPTE:\t      52 kB\nVmPTEx: 9 kB\n";
        assert_eq!(kib_field(text, "VmPTE"), Some(52));
        assert_eq!(kib_field(text, "VmPeak"), Some(10));
        assert_eq!(kib_field(text, "VmRSS"), None);
    }

    #[test]
    fn this_process_has_page_tables() {
        assert!(status_kib("VmPTE").is_some());
        assert!(meminfo_kib("MemTotal").unwrap() > 0);
    }

    #[test]
    fn the_system_runs_at_least_this_task() {
        assert!(tasks_now().unwrap() >= 1);
    }
}
