//! The kernel command line as results record it: only the parameters that
//! shape figures (an allowlist), never the whole line. The whole line may
//! carry anything a boot loader or a hypervisor put there: a root device's
//! UUID, a path, an agent's `--auth-required` token. What tasklab derives
//! from the line (idle=poll, preempt=) is derived from the whole line read
//! at run time, before it is cut down.

/// The parameters recorded, with their values: each changes what a switch,
/// a fork, a page fault, an idle CPU's wake-up or a clock read costs.
///
/// - speculation mitigations: every kernel entry pays for them;
/// - idle: how an idle CPU waits, and so how dear waking it is;
/// - isolation and ticks: which CPUs the scheduler and interrupts use;
/// - memory: huge pages, NUMA balancing, page zeroing and poisoning;
/// - clocks, preemption, security modules and auditing (every system call);
/// - paravirtual features a guest may turn off.
///
/// A name not listed is left out, whatever its value: adding one is a
/// decision that its values can never hold a secret.
pub const ALLOWLIST: &[&str] = &[
    // speculation mitigations
    "mitigations",
    "spectre_v2",
    "spectre_v2_user",
    "spectre_bhi",
    "nospectre_v1",
    "nospectre_v2",
    "spec_store_bypass_disable",
    "nospec_store_bypass_disable",
    "spec_rstack_overflow",
    "pti",
    "nopti",
    "kpti",
    "mds",
    "tsx",
    "tsx_async_abort",
    "retbleed",
    "l1tf",
    "l1d_flush",
    "srbds",
    "mmio_stale_data",
    "gather_data_sampling",
    "reg_file_data_sampling",
    "nosmt",
    "nopcid",
    "noinvpcid",
    "nosmap",
    "nosmep",
    // idle
    "idle",
    "intel_idle.max_cstate",
    "processor.max_cstate",
    "cpuidle.off",
    "cpuidle.governor",
    "cpuidle_haltpoll.force",
    "haltpoll.guest_halt_poll_ns",
    "intel_pstate",
    "amd_pstate",
    // CPUs, isolation, ticks, interrupts, preemption
    "isolcpus",
    "nohz",
    "nohz_full",
    "rcu_nocbs",
    "irqaffinity",
    "skew_tick",
    "threadirqs",
    "preempt",
    "maxcpus",
    "nr_cpus",
    // memory
    "transparent_hugepage",
    "transparent_hugepage_shmem",
    "hugepages",
    "hugepagesz",
    "default_hugepagesz",
    "numa_balancing",
    "numa",
    "init_on_alloc",
    "init_on_free",
    "page_alloc.shuffle",
    "randomize_kstack_offset",
    "norandmaps",
    "debug_pagealloc",
    "page_poison",
    "slub_debug",
    // clocks
    "clocksource",
    "tsc",
    "no-kvmclock",
    // security modules and auditing
    "audit",
    "selinux",
    "apparmor",
    "lsm",
    "security",
    // paravirtualisation
    "nopv",
    "no-steal-acc",
];

/// The longest value kept: a kernel parameter's value is short; a longer
/// one is not what this list is for.
const MAX_VALUE: usize = 256;

/// The allowlisted parameters of `cmdline`, with their values, in the
/// line's order, space-separated (empty when none is there). Words after a
/// lone `--` are init's arguments, not the kernel's, and are never kept.
pub fn allowlisted(cmdline: &str) -> String {
    words(cmdline)
        .into_iter()
        .take_while(|w| w != "--")
        .filter(|w| {
            let name = w.split_once('=').map_or(w.as_str(), |(k, _)| k);
            ALLOWLIST.contains(&name) && w.len() <= name.len() + 1 + MAX_VALUE
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The line's words, split on white space outside double quotes (the
/// kernel's own rule: `param="a b"` is one word).
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                cur.push(c);
            }
            c if c.is_whitespace() && !quoted => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
#[path = "cmdline_tests.rs"]
mod tests;
