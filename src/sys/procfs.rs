//! The one reader of /proc for the live system: the memory image figures
//! the seeds quote, task counts, CPU time, the load. (`env` parses the same
//! files below a configurable root, so its parsing can be tested on a fake
//! tree.)

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

/// The running kernel's release ("6.8.0-45-generic"), from
/// /proc/sys/kernel/osrelease.
pub fn kernel_release() -> Option<String> {
    let s = std::fs::read_to_string("/proc/sys/kernel/osrelease").ok()?;
    Some(s.trim().to_string()).filter(|s| !s.is_empty())
}

/// The text of /proc/kallsyms (the kernel's symbols: addresses are zero
/// unless `kptr_restrict` lets this process see them).
pub fn kallsyms_text() -> Option<String> {
    std::fs::read_to_string("/proc/kallsyms").ok()
}

/// `kernel.perf_event_paranoid`, from /proc/sys/kernel/perf_event_paranoid.
pub fn perf_event_paranoid() -> Option<i64> {
    let s = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid").ok()?;
    s.trim().parse().ok()
}

/// The CPU list online now ("0-1"), from /sys/devices/system/cpu/online.
pub fn cpus_online_list() -> Option<String> {
    std::fs::read_to_string("/sys/devices/system/cpu/online").ok()
}

/// The physical frame behind each of `pages` pages from virtual page
/// number `first` (an address over the page size), from
/// /proc/self/pagemap (bits 0-54 of each entry; 0 for a page not present,
/// and for every page without CAP_SYS_ADMIN, which the kernel hides them
/// from). None when the file cannot be read.
pub fn page_frames(first: usize, pages: usize) -> Option<Vec<u64>> {
    use std::os::unix::fs::FileExt;
    let f = std::fs::File::open("/proc/self/pagemap").ok()?;
    let mut buf = vec![0u8; pages * 8];
    f.read_exact_at(&mut buf, first as u64 * 8).ok()?;
    Some(frames_of(&buf))
}

/// The frames of pagemap entries (8 bytes each, native order): bits 0-54
/// when the page is present (bit 63), else 0.
pub fn frames_of(entries: &[u8]) -> Vec<u64> {
    entries
        .chunks_exact(8)
        .map(|e| frame_of(u64::from_ne_bytes(e.try_into().expect("8 bytes"))))
        .collect()
}

/// The frame of one pagemap entry: bits 0-54 when the page is present
/// (bit 63), else 0.
fn frame_of(v: u64) -> u64 {
    if v >> 63 == 1 {
        v & ((1 << 55) - 1)
    } else {
        0
    }
}

/// A count field of /proc/self/status (Threads, ...).
pub fn status_count(field: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    kib_field(&text, field)
}

/// Tasks (threads) on the whole system now: the total in /proc/loadavg's
/// `running/total` field.
pub fn system_tasks() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace()
        .nth(3)?
        .split_once('/')?
        .1
        .parse()
        .ok()
}

/// Processes (and kernel threads) whose pid is below `limit`: the numeric
/// entries of /proc.
pub fn pids_below(limit: u64) -> u64 {
    std::fs::read_dir("/proc").map_or(0, |d| {
        d.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u64>().ok())
            .filter(|&pid| pid < limit)
            .count() as u64
    })
}

/// Mappings of this process now: the lines of /proc/self/maps.
pub fn self_maps() -> Option<u64> {
    Some(self_maps_text()?.lines().count() as u64)
}

/// The text of /proc/self/maps, for a caller that reads more than the
/// count from one reading ([`shared_libraries`]).
pub fn self_maps_text() -> Option<String> {
    std::fs::read_to_string("/proc/self/maps").ok()
}

/// The file names of `maps` (text of /proc/PID/maps) that are shared
/// libraries (`NAME.so` or `NAME.so.VERSION`), each once.
pub fn shared_libraries(maps: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in maps.lines() {
        // address perms offset dev inode path: the path is the rest of the
        // line after the fifth field (it may hold spaces), less " (deleted)"
        let mut rest = line;
        for _ in 0..5 {
            rest = rest.trim_start();
            rest = rest.find(char::is_whitespace).map_or("", |at| &rest[at..]);
        }
        let path = rest.trim();
        let path = path.strip_suffix(" (deleted)").unwrap_or(path);
        let name = path.rsplit('/').next().unwrap_or(path);
        let is_lib = name.ends_with(".so") || name.contains(".so.");
        if path.starts_with('/') && is_lib && !out.iter().any(|n| n == name) {
            out.push(name.to_string());
        }
    }
    out
}

/// Time all CPUs spent busy since boot, from the `cpu` line of /proc/stat:
/// user, nice, system, irq, softirq and steal (guest time is inside user),
/// not idle or iowait, in ns.
pub fn cpu_busy_ns() -> Option<u64> {
    let ticks = cpu_ticks()?;
    // user nice system idle iowait irq softirq steal
    let busy_ticks: u64 =
        ticks.iter().take(8).sum::<u64>() - ticks.get(3)? - ticks.get(4).unwrap_or(&0);
    Some(busy_ticks * NS_PER_TICK)
}

/// Steal time of all CPUs since boot, in ns: what the hypervisor gave to
/// others while this guest wanted to run (the 8th value of /proc/stat's
/// `cpu` line; USER_HZ is 100).
pub fn steal_ns() -> Option<u64> {
    Some(cpu_ticks()?.get(7)? * NS_PER_TICK)
}

/// ns per clock tick of /proc/stat: USER_HZ is 100 on every Linux
/// architecture tasklab builds for.
const NS_PER_TICK: u64 = 10_000_000;

/// The tick counters of /proc/stat's `cpu` line (all CPUs): user, nice,
/// system, idle, iowait, irq, softirq, steal, ...
fn cpu_ticks() -> Option<Vec<u64>> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    Some(
        line.split_whitespace()
            .skip(1)
            .filter_map(|x| x.parse().ok())
            .collect(),
    )
}

/// Tasks runnable on the whole machine now (`procs_running` in /proc/stat),
/// the reader included.
pub fn procs_running() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("procs_running "))?
        .trim()
        .parse()
        .ok()
}

/// Time this thread spent runnable but waiting for a CPU, in ns (the second
/// field of /proc/thread-self/schedstat).
pub fn run_delay_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().nth(1)?.parse().ok()
}

/// When process `pid` started, in clock ticks since boot (field 22 of
/// /proc/PID/stat): with the pid, it names one process even after the pid
/// is reused. `None` when no such process is visible.
pub fn start_ticks(pid: i32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces or
    // parentheses itself: count the fields after its last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// The parent of process `pid` (field 4 of /proc/PID/stat), or `None`
/// when no such process is visible (it was reaped, or another namespace's).
pub fn parent_pid(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// This process's pid namespace ("pid:[4026531836]"): a pid means the same
/// process only inside one namespace.
pub fn pid_namespace() -> Option<String> {
    std::fs::read_link("/proc/self/ns/pid")
        .ok()
        .map(|p| p.to_string_lossy().into_owned())
}

/// The inter-processor interrupts switch.wakeup and the round telemetry
/// count, by their /proc/interrupts names: reschedule (RES), function call
/// (CAL) and TLB shootdown (TLB).
pub const IPI_NAMES: [&str; 3] = ["RES", "CAL", "TLB"];

/// The [`IPI_NAMES`] counts per CPU now, in that order (each a vector
/// indexed by CPU column); None when /proc/interrupts cannot be read.
pub fn ipis() -> Option<[Vec<u64>; 3]> {
    let text = std::fs::read_to_string("/proc/interrupts").ok()?;
    Some(IPI_NAMES.map(|n| interrupt_row(&text, n).unwrap_or_default()))
}

/// The per-CPU counts of the row `name` of a /proc/interrupts text
/// (`RES:  79196  64468   Rescheduling interrupts`).
pub fn interrupt_row(text: &str, name: &str) -> Option<Vec<u64>> {
    let cpus = text.lines().next()?.split_whitespace().count();
    let line = text.lines().find(|l| {
        l.trim_start()
            .strip_prefix(name)
            .is_some_and(|r| r.starts_with(':'))
    })?;
    let rest = line.split_once(':')?.1;
    Some(
        rest.split_whitespace()
            .take(cpus)
            .map_while(|x| x.parse().ok())
            .collect(),
    )
}

/// The transparent-huge-page and compaction counters of /proc/vmstat the
/// rounds record (system-wide, since boot): a huge page given at a fault
/// or refused (fallback), khugepaged's collapses, splits, and the direct
/// compaction a fault waited for and its outcome.
pub const VMSTAT_KEYS: &[&str] = &[
    "thp_fault_alloc",
    "thp_fault_fallback",
    "thp_fault_fallback_charge",
    "thp_collapse_alloc",
    "thp_collapse_alloc_failed",
    "thp_split_page",
    "compact_stall",
    "compact_fail",
    "compact_success",
];

/// [`VMSTAT_KEYS`] now, those this kernel has.
pub fn vmstat() -> Vec<(&'static str, u64)> {
    std::fs::read_to_string("/proc/vmstat").map_or_else(|_| Vec::new(), |t| vmstat_of(&t))
}

/// [`VMSTAT_KEYS`] in a /proc/vmstat text (`thp_fault_alloc 1234` a line),
/// in the order of the keys; a key the text lacks is left out.
pub fn vmstat_of(text: &str) -> Vec<(&'static str, u64)> {
    VMSTAT_KEYS
        .iter()
        .filter_map(|&k| {
            let v = text.lines().find_map(|l| {
                let (name, value) = l.split_once(' ')?;
                (name == k).then(|| value.trim().parse().ok())?
            })?;
            Some((k, v))
        })
        .collect()
}

/// Per CPU, time since boot spent idle (idle + iowait) and stolen by the
/// hypervisor, in ns, from the `cpuN` lines of /proc/stat (10 ms ticks).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CpuTimes {
    pub cpu: usize,
    pub idle_ns: u64,
    pub steal_ns: u64,
}

/// [`CpuTimes`] of every online CPU now.
pub fn per_cpu_times() -> Option<Vec<CpuTimes>> {
    Some(parse_per_cpu(&std::fs::read_to_string("/proc/stat").ok()?))
}

/// The `cpuN` lines of a /proc/stat text.
pub fn parse_per_cpu(text: &str) -> Vec<CpuTimes> {
    text.lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("cpu")?;
            let (n, ticks) = rest.split_once(' ')?;
            let cpu = n.parse().ok()?;
            let t: Vec<u64> = ticks
                .split_whitespace()
                .filter_map(|x| x.parse().ok())
                .collect();
            Some(CpuTimes {
                cpu,
                idle_ns: (t.get(3)? + t.get(4).unwrap_or(&0)) * NS_PER_TICK,
                steal_ns: t.get(7).unwrap_or(&0) * NS_PER_TICK,
            })
        })
        .collect()
}

/// /proc/PID/status of any process, as text: NotFound when there is no
/// such process, PermissionDenied when it is not ours to read.
pub fn status_of(pid: u32) -> std::io::Result<String> {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
}

/// /proc/PID/smaps_rollup of any process, as text (the kernel walks the
/// process's page tables to write it: Rss, Private_*, Shared_*,
/// AnonHugePages, ...).
pub fn smaps_rollup_of(pid: u32) -> std::io::Result<String> {
    std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))
}

/// Mappings (VMAs) of any process: the lines of /proc/PID/maps, counted as
/// they stream (a process may have tens of thousands).
pub fn maps_of(pid: u32) -> std::io::Result<u64> {
    use std::io::BufRead;
    let f = std::fs::File::open(format!("/proc/{pid}/maps"))?;
    let mut n = 0;
    for line in std::io::BufReader::new(f).split(b'\n') {
        line?;
        n += 1;
    }
    Ok(n)
}

/// Pages a pagemap read takes at a time (512 KiB of entries).
const PAGEMAP_CHUNK: usize = 1 << 16;

/// What fork copies of a process's private anonymous memory, read from
/// /proc/PID/pagemap over the anonymous private mappings of
/// /proc/PID/maps ([`anon_pages`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AnonPages {
    /// The share of its resident pages that lie in runs of at least
    /// [`RUN_MIN_PAGES`] whose physical frames are each next to the frame
    /// of the page before in its address space (directly after it or
    /// directly before it: a heap faulted front to back often gets its
    /// frames from the allocator's per-CPU lists in descending order, a
    /// walk through `struct page` as sequential as an ascending one),
    /// percent: how contiguous its memory is in physical memory, which
    /// fork's per-page work (each page's `struct page`) reads in that
    /// order. None when no frame is visible: the kernel hides them without
    /// CAP_SYS_ADMIN, or no anonymous page is resident.
    pub frames_adjacent_pct: Option<f64>,
    /// The share of its resident pages outside those runs whose frame
    /// lies near the pages before ([`Adjacency::near_pct`]), percent; None
    /// as `frames_adjacent_pct`.
    pub frames_near_pct: Option<f64>,
    /// The page-table fill: its entries and the tables that hold them
    /// (readable without CAP_SYS_ADMIN: the present and swapped bits are
    /// not hidden).
    pub fill: TableFill,
    /// The near pages by how full their block of frames is
    /// ([`Adjacency::near_by_fill`]), and the resident pages they are a
    /// share of; empty and 0 when no frame is visible.
    pub near_by_fill: Vec<u64>,
    pub resident: u64,
}

/// Page-table entries that fork copies one by one (a present page, or one
/// swapped out) and the page tables they lie in: one table per 2 MiB of
/// address space that holds at least one such entry. A heap written whole
/// fills its tables (512 entries each); a process whose memory is spread
/// thin (an allocator's arenas, thread stacks, a mapping reserved and
/// partly used) has tables partly empty, and its `VmPTE` counts each whole.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TableFill {
    pub entries: u64,
    pub tables: u64,
    /// The last table counted, by its index (address / 2 MiB): mappings
    /// are read in address order, and two that share a 2 MiB range share
    /// its table.
    last: Option<u64>,
}

/// Entries in one page table (4 KiB pages, 8 bytes an entry).
pub const PTES_PER_TABLE: u64 = 512;

impl TableFill {
    /// Counts the pagemap `entries` (raw, bit 63 present, bit 62 swapped)
    /// of the pages from virtual page number `first` on, in address order
    /// after every earlier call.
    pub fn add(&mut self, entries: &[u64], first: u64) {
        for (i, e) in entries.iter().enumerate() {
            if e >> 62 == 0 {
                continue;
            }
            self.entries += 1;
            let table = (first + i as u64) / PTES_PER_TABLE;
            if self.last != Some(table) {
                self.tables += 1;
                self.last = Some(table);
            }
        }
    }
}

/// A process's private anonymous memory as fork copies it: its
/// [`AnonPages`]. Reads 8 bytes per page of those mappings' address space.
pub fn anon_pages(pid: u32) -> std::io::Result<AnonPages> {
    let mut tally = Adjacency::default();
    let mut fill = TableFill::default();
    let mut prev = 0;
    walk_anon(pid, |raw, first, fresh| {
        if fresh {
            prev = 0;
        }
        fill.add(raw, first);
        prev = tally.add(&raw.iter().map(|&e| frame_of(e)).collect::<Vec<_>>(), prev);
    })?;
    Ok(AnonPages {
        frames_adjacent_pct: tally.pct(),
        frames_near_pct: tally.near_pct(),
        fill,
        near_by_fill: tally.near_by_fill(),
        resident: tally.resident,
    })
}

/// The physical frames of a process's private anonymous pages that are
/// present, in the order fork walks them (address order over the mappings
/// [`anon_pages`] reads): what `tasklab predict` replays. Empty when the
/// kernel hides the frames (no CAP_SYS_ADMIN) or none is present.
pub fn anon_frames(pid: u32) -> std::io::Result<Vec<u64>> {
    let mut frames = Vec::new();
    walk_anon(pid, |raw, _, _| {
        frames.extend(raw.iter().map(|&e| frame_of(e)).filter(|&f| f != 0));
    })?;
    Ok(frames)
}

/// Calls `each` with the raw pagemap entries of process `pid`'s anonymous
/// private mappings, in address order, a chunk at a time: (entries, the
/// virtual page number of the first, whether it starts a mapping).
fn walk_anon(pid: u32, mut each: impl FnMut(&[u64], u64, bool)) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps"))?;
    let pagemap = std::fs::File::open(format!("/proc/{pid}/pagemap"))?;
    let mut buf = Vec::new();
    for (lo, hi) in maps.lines().filter_map(anon_private_range) {
        let (first, pages) = (lo / 4096, (hi - lo) / 4096);
        let mut at = 0;
        while at < pages {
            let n = (pages - at).min(PAGEMAP_CHUNK);
            buf.resize(n * 8, 0);
            // A range that cannot be read (gone since maps was read) ends it.
            if pagemap
                .read_exact_at(&mut buf, (first + at) as u64 * 8)
                .is_err()
            {
                break;
            }
            let raw: Vec<u64> = buf
                .chunks_exact(8)
                .map(|e| u64::from_ne_bytes(e.try_into().expect("8 bytes")))
                .collect();
            each(&raw, (first + at) as u64, at == 0);
            at += n;
        }
    }
    Ok(())
}

/// A line of /proc/PID/maps that is an anonymous private mapping (no
/// file, or `[heap]`), readable or writable: its start and end addresses.
fn anon_private_range(line: &str) -> Option<(usize, usize)> {
    let mut f = line.split_whitespace();
    let range = f.next()?;
    let perms = f.next()?;
    let path = f.nth(3);
    let anon = matches!(path, None | Some("[heap]"));
    if !anon || perms.as_bytes().get(3) != Some(&b'p') || perms.starts_with("--") {
        return None;
    }
    let (lo, hi) = range.split_once('-')?;
    Some((
        usize::from_str_radix(lo, 16).ok()?,
        usize::from_str_radix(hi, 16).ok()?,
    ))
}

/// Frames in a row shorter than this do not count as in a row: fork's walk
/// through their `struct page`s misses the cache at each run's start, and
/// runs of one or two pages (a long-running server's: Redis's of 4.5 GiB
/// averaged 1.75 pages, none of 16) forked as slowly as pages scattered one
/// by one (docs/PREDICT.md).
pub const RUN_MIN_PAGES: u64 = 8;

/// A page outside those runs is near the pages before it when its frame
/// lies in one of the last [`NEAR_BLOCKS`] blocks of this many frames (2
/// MiB, a huge page's worth: 32 KiB of `struct page`s) that the pages
/// before it lay in: fork then reads its `struct page` among those it has
/// just read. A heap on frames in a row whose pages were then moved within
/// windows of 512 pages (one block each) forked after a pause at 0.46
/// times the same heap scattered, within windows of 4,096 pages (8 blocks,
/// two neighbours' frames mostly more than 32,768 apart) at 0.53 times,
/// next to each other in a row at 0.45 times (4 GiB, this project's KVM
/// guest, docs/PREDICT.md): how far apart two neighbours' frames lie
/// matters less than how few blocks they come from.
pub const NEAR_BLOCK_FRAMES: u64 = 512;

/// The blocks remembered for [`NEAR_BLOCK_FRAMES`]: the most the probe
/// measured (windows of 4,096 pages); beyond them it is not known.
pub const NEAR_BLOCKS: usize = 8;

/// Resident pages seen, and those in runs of at least [`RUN_MIN_PAGES`]
/// whose frames are each next to the one before (directly after or
/// directly before it).
#[derive(Debug, Default)]
pub struct Adjacency {
    pub resident: u64,
    /// Pages in the runs of that length closed so far.
    pub in_runs: u64,
    /// Pages outside such runs whose frame lies in one of the last
    /// [`NEAR_BLOCKS`] blocks of frames seen (a shorter run's, or near), in
    /// the runs closed so far.
    pub near: u64,
    /// The length of the run still open, pages, and how many of its pages
    /// lie near (all but perhaps its first).
    run: u64,
    run_near: u64,
    /// The blocks of frames seen last, the latest first (0: none yet; a
    /// block number is the frame's over [`NEAR_BLOCK_FRAMES`], plus one).
    recent: [u64; NEAR_BLOCKS],
    /// Per block seen: the resident pages whose frames lie in it, and the
    /// near ones among them (runs closed so far).
    blocks: std::collections::HashMap<u64, (u64, u64)>,
    /// The open run's near pages' blocks, while it is shorter than
    /// [`RUN_MIN_PAGES`] (a run that reaches it has no near page).
    run_blocks: Vec<u64>,
}

impl Adjacency {
    /// Counts `frames` (0: not resident, or hidden), the frame before the
    /// first one being `prev` (0: none, which ends a run); returns the
    /// last one's.
    pub fn add(&mut self, frames: &[u64], mut prev: u64) -> u64 {
        for &f in frames {
            let next_to = f != 0 && prev != 0 && f.abs_diff(prev) == 1;
            if !next_to {
                self.close();
            }
            if f != 0 {
                self.resident += 1;
                self.run += 1;
                let block = f / NEAR_BLOCK_FRAMES + 1;
                // Seen among the last blocks: near; either way now the latest.
                let at = self.recent.iter().position(|&b| b == block);
                if at.is_some() {
                    self.run_near += 1;
                }
                let end = at.unwrap_or(NEAR_BLOCKS - 1);
                self.recent.copy_within(0..end, 1);
                self.recent[0] = block;
                self.blocks.entry(block).or_default().0 += 1;
                if self.run < RUN_MIN_PAGES {
                    if at.is_some() {
                        self.run_blocks.push(block);
                    }
                } else {
                    self.run_blocks.clear();
                }
            }
            prev = f;
        }
        prev
    }

    fn close(&mut self) {
        if self.run >= RUN_MIN_PAGES {
            self.in_runs += self.run;
        } else {
            self.near += self.run_near;
            for b in self.run_blocks.drain(..) {
                self.blocks.entry(b).or_default().1 += 1;
            }
        }
        self.run = 0;
        self.run_near = 0;
        self.run_blocks.clear();
    }

    /// The open run's pages: (in runs, near).
    fn open(&self) -> (u64, u64) {
        if self.run >= RUN_MIN_PAGES {
            (self.run, 0)
        } else {
            (0, self.run_near)
        }
    }

    /// Percent in runs; None when no frame was seen.
    pub fn pct(&self) -> Option<f64> {
        let open = self.open().0;
        (self.resident > 0).then(|| 100.0 * (self.in_runs + open) as f64 / self.resident as f64)
    }

    /// The near pages ([`Adjacency::near_pct`]) by how full their block
    /// of [`NEAR_BLOCK_FRAMES`] frames is with this process's pages: at
    /// index `k`, the near pages whose block holds `k` of its resident
    /// pages (1 to [`NEAR_BLOCK_FRAMES`]; index 0 unused). Empty when no
    /// page is near. A near page in a full block forks as a page in a row
    /// nearly does, one in a block holding 8 of its frames as a scattered one
    /// (docs/PREDICT.md, *Near pages in a mix*).
    pub fn near_by_fill(&self) -> Vec<u64> {
        let mut v = vec![0; NEAR_BLOCK_FRAMES as usize + 1];
        let open = self.run < RUN_MIN_PAGES;
        for (b, &(total, near)) in &self.blocks {
            let open_near = if open {
                self.run_blocks.iter().filter(|&&x| x == *b).count() as u64
            } else {
                0
            };
            let k = (total.min(NEAR_BLOCK_FRAMES)) as usize;
            v[k] += near + open_near;
        }
        if v.iter().all(|&n| n == 0) {
            v.clear();
        }
        v
    }

    /// Percent outside runs but near the pages before ([`NEAR_BLOCKS`]
    /// blocks of [`NEAR_BLOCK_FRAMES`]); None when no frame was seen. With [`Adjacency::pct`] at most 100:
    /// the rest lie farther (scattered).
    pub fn near_pct(&self) -> Option<f64> {
        let open = self.open().1;
        (self.resident > 0).then(|| 100.0 * (self.near + open) as f64 / self.resident as f64)
    }
}

/// [`Adjacency`] of a run of frames on their own.
pub fn frames_adjacent_pct(frames: &[u64]) -> Option<f64> {
    frame_shares(frames).0
}

/// [`Adjacency::near_pct`] of a run of frames on their own (the code
/// reads it beside the share in runs: [`frame_shares`]).
#[cfg(test)]
pub fn frames_near_pct(frames: &[u64]) -> Option<f64> {
    frame_shares(frames).1
}

/// [`frames_adjacent_pct`] and [`frames_near_pct`] of `frames` from one
/// walk over them: (in runs, near).
pub fn frame_shares(frames: &[u64]) -> (Option<f64>, Option<f64>) {
    let mut a = Adjacency::default();
    a.add(frames, 0);
    (a.pct(), a.near_pct())
}

/// The share of `frames` (0: none) that are part of a large folio (a
/// compound page: a transparent huge page, mapped whole or split into 4 KiB
/// entries), percent, from /proc/kpageflags (root only): fork copies those
/// in batches, where it takes a reference on an order-0 page one by one.
/// None when no frame is given or the flags cannot be read.
pub fn large_folio_pct(frames: &[u64]) -> Option<f64> {
    use std::os::unix::fs::FileExt;
    const COMPOUND: u64 = (1 << 15) | (1 << 16); // KPF_COMPOUND_HEAD, _TAIL
    let flags = std::fs::File::open("/proc/kpageflags").ok()?;
    let present: Vec<u64> = frames.iter().copied().filter(|&f| f != 0).collect();
    let (mut large, mut buf, mut i) = (0u64, Vec::new(), 0);
    while i < present.len() {
        // A run of frames in a row is one read (at most 512 of them).
        let mut n = 1;
        while i + n < present.len() && n < 512 && present[i + n] == present[i] + n as u64 {
            n += 1;
        }
        buf.resize(n * 8, 0);
        flags.read_exact_at(&mut buf, present[i] * 8).ok()?;
        large += buf
            .chunks_exact(8)
            .filter(|e| u64::from_ne_bytes((*e).try_into().expect("8 bytes")) & COMPOUND != 0)
            .count() as u64;
        i += n;
    }
    (!present.is_empty()).then(|| 100.0 * large as f64 / present.len() as f64)
}

/// Open file descriptors of any process: the entries of /proc/PID/fd.
pub fn fds_of(pid: u32) -> std::io::Result<u64> {
    let mut n = 0;
    for e in std::fs::read_dir(format!("/proc/{pid}/fd"))? {
        e?;
        n += 1;
    }
    Ok(n)
}

/// Private and shared memory of a process from its smaps_rollup, in KiB.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sharing {
    /// Private_Clean + Private_Dirty: pages only this process maps.
    pub private_kib: u64,
    /// Shared_Clean + Shared_Dirty: pages another process maps too.
    pub shared_kib: u64,
    pub anon_huge_kib: u64,
}

impl Sharing {
    pub fn of(pid: u32) -> std::io::Result<Sharing> {
        let text = smaps_rollup_of(pid)?;
        Ok(Sharing::parse(&text))
    }

    pub fn parse(text: &str) -> Sharing {
        let f = |name| kib_field(text, name).unwrap_or(0);
        Sharing {
            private_kib: f("Private_Clean") + f("Private_Dirty"),
            shared_kib: f("Shared_Clean") + f("Shared_Dirty"),
            anon_huge_kib: f("AnonHugePages"),
        }
    }
}

/// Finds `Field:   1234 kB` in a /proc text.
pub fn kib_field(text: &str, field: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let rest = l.strip_prefix(field)?.strip_prefix(':')?;
        rest.split_whitespace().next()?.parse().ok()
    })
}

#[cfg(test)]
#[path = "procfs_tests.rs"]
mod tests;
