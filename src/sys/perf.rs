//! perf_event_open(2) for `run --why`: software `cpu-clock` sampling of
//! this process and the tasks it starts, with kernel call chains, read from
//! the kernel's mmap ring buffers. No `perf` binary, no crate: the attribute
//! is the kernel's own layout (`linux/perf_event.h`, `PERF_ATTR_SIZE_VER5`),
//! and the records read are those these events make (sample, lost, fork;
//! the others skipped).
//!
//! One event per CPU, in one of two [`Mode`]s. [`Mode::CpuWide`]: each CPU's
//! event samples every task that runs there (pid -1), and fork and exit
//! records, from a second event per CPU that only records them (a `dummy`
//! event with `task`, its records written into the first one's ring), let
//! the reader keep only this process's tree; the kernel does
//! nothing for it at a context switch or a fork, which is why it is tried
//! first, but it needs root, `CAP_PERFMON` or `perf_event_paranoid` at 0 or
//! below. [`Mode::PerTask`], where that is refused: each CPU's event follows
//! this process and its children (`inherit`; the kernel refuses to map the
//! buffer of an inherited event that follows a task on every CPU, so, as
//! `perf record` does, an event a CPU), and is switched out and in with
//! every context switch of a task that carries it, and copied at each fork.
//! The events start disabled; [`CpuClock::enable`] turns them (and their
//! inherited copies in children alive then) on, once, and each sample and
//! lost record carries its time on `CLOCK_MONOTONIC` (`use_clockid`), the
//! clock the timed windows are stamped with, so that the reader keeps the
//! samples inside a window without switching the events per window. The
//! kernel writes a fork and an exit record for every task any CPU starts,
//! threads too, each a few hundred ns of the starting task's time on a VM:
//! [`CpuClock::task_records`] switches the recording events off while
//! only threads are started (their samples carry the process's pid, which
//! needs no record), and on again. Where the worker has a cgroup of its
//! own (`sys::cgroup`), the samples carry their task's cgroup
//! (`PERF_SAMPLE_CGROUP`) and no record is asked for at all
//! ([`CpuClock::open`]'s `cgroup`).

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

const PERF_TYPE_SOFTWARE: u32 = 1;
const PERF_COUNT_SW_CPU_CLOCK: u64 = 0;
/// A software event that counts nothing: what records side-band events
/// (here forks and exits) with no samples of its own.
const PERF_COUNT_SW_DUMMY: u64 = 9;
const PERF_SAMPLE_IP: u64 = 1 << 0;
const PERF_SAMPLE_TID: u64 = 1 << 1;
const PERF_SAMPLE_TIME: u64 = 1 << 2;
const PERF_SAMPLE_CALLCHAIN: u64 = 1 << 5;
/// The sampled task's cgroup id (of the perf_event controller; Linux 5.7),
/// after the call chain.
const PERF_SAMPLE_CGROUP: u64 = 1 << 21;
const ATTR_SIZE_VER5: u32 = 112;
/// `attr.flags` bits: disabled, inherit, exclude_hv, exclude_idle, task
/// (fork and exit records), sample_id_all (the sample's TID and TIME after
/// every other record too: a lost record's time), exclude_callchain_user,
/// use_clockid (`attr.clockid` stamps the records, not the perf clock).
const FLAG_DISABLED: u64 = 1 << 0;
const FLAG_INHERIT: u64 = 1 << 1;
const FLAG_EXCLUDE_HV: u64 = 1 << 6;
const FLAG_EXCLUDE_IDLE: u64 = 1 << 7;
const FLAG_TASK: u64 = 1 << 13;
const FLAG_SAMPLE_ID_ALL: u64 = 1 << 18;
const FLAG_EXCLUDE_CALLCHAIN_USER: u64 = 1 << 22;
const FLAG_USE_CLOCKID: u64 = 1 << 25;
const PERF_FLAG_FD_CLOEXEC: libc::c_ulong = 1 << 3;
const IOC_ENABLE: libc::c_ulong = 0x2400;
const IOC_DISABLE: libc::c_ulong = 0x2401;
/// `PERF_EVENT_IOC_SET_OUTPUT`: write this event's records into another
/// event's ring (same CPU, same clock).
const IOC_SET_OUTPUT: libc::c_ulong = 0x2405;
const PERF_RECORD_EXIT: u32 = 4;
const PERF_RECORD_LOST: u32 = 2;
const PERF_RECORD_FORK: u32 = 7;
const PERF_RECORD_SAMPLE: u32 = 9;
const MISC_CPUMODE_MASK: u16 = 7;
const MISC_KERNEL: u16 = 1;
/// Call-chain entries at or above this are context markers
/// (`PERF_CONTEXT_MAX`, -4095), not addresses.
const CONTEXT_MAX: u64 = (-4095i64) as u64;
/// Where `data_head` and `data_tail` sit in the first mapped page.
const DATA_HEAD: usize = 1024;
const DATA_TAIL: usize = 1032;

/// `struct perf_event_attr` up to `PERF_ATTR_SIZE_VER5`.
#[repr(C)]
#[derive(Default)]
struct Attr {
    kind: u32,
    size: u32,
    config: u64,
    sample_period: u64,
    sample_type: u64,
    read_format: u64,
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    config1: u64,
    config2: u64,
    branch_sample_type: u64,
    sample_regs_user: u64,
    sample_stack_user: u32,
    clockid: i32,
    sample_regs_intr: u64,
    aux_watermark: u32,
    sample_max_stack: u16,
    reserved: u16,
}

/// Which tasks a CPU's event samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Every task that runs on the CPU; the reader keeps this process's
    /// tree (its pid and the children the fork records name).
    CpuWide,
    /// This process and the tasks it starts (inherited events).
    PerTask,
}

/// One sample: the sampled task's process, when, where it was, and its
/// kernel call chain.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The process (thread group) sampled.
    pub pid: u32,
    /// When, on `CLOCK_MONOTONIC` (ns), as `sys::monotonic_ns` reads it.
    pub time: u64,
    /// The task was in the kernel (else in user space).
    pub kernel: bool,
    /// The kernel call chain, the sampled address first (empty for a
    /// sample in user space).
    pub kernel_ips: Vec<u64>,
    /// The sampled task's cgroup id where the events ask for it, else 0.
    pub cgroup: u64,
}

/// What a drain of the rings found.
#[derive(Debug, Default)]
pub struct Drained {
    pub samples: Vec<Sample>,
    /// Samples the kernel dropped because a ring was full: (when the
    /// kernel wrote the lost record, on `CLOCK_MONOTONIC`, which is after
    /// the loss, at the first record a drained ring had room for; how many).
    pub lost: Vec<(u64, u64)>,
    /// The processes started while sampling was on (fork records of
    /// [`Mode::CpuWide`]): (child, parent), threads left out.
    pub forks: Vec<(u32, u32)>,
    /// The processes whose first thread exited while sampling was on
    /// (exit records of [`Mode::CpuWide`]).
    pub exits: Vec<u32>,
}

/// The cpu-clock events of this process and its children, one per CPU.
pub struct CpuClock {
    mode: Mode,
    rings: Vec<Ring>,
    /// The events are on ([`CpuClock::enable`]).
    on: bool,
    /// The fork and exit records are asked for ([`CpuClock::task_records`]).
    records: bool,
    /// The samples carry their task's cgroup (and no records are made).
    cgroup: bool,
}

struct Ring {
    cpu: i32,
    fd: OwnedFd,
    /// [`Mode::CpuWide`]'s fork and exit records' event on this CPU, its
    /// records written into this ring.
    tasks: Option<OwnedFd>,
    base: *mut u8,
    len: usize,
    page: usize,
}

// SAFETY: the mapping belongs to the ring alone (unmapped when it drops)
// and is read only through `&mut self`, so moving it to another thread
// moves sole access with it.
unsafe impl Send for Ring {}

impl Drop for Ring {
    fn drop(&mut self) {
        // SAFETY: base and len are the mapping made in `Ring::map`, unmapped
        // once, here; nothing refers to it after the ring drops.
        unsafe { libc::munmap(self.base.cast(), self.len) };
    }
}

fn sysconf(name: libc::c_int) -> usize {
    // SAFETY: sysconf reads a system value and touches no memory of ours.
    let v = unsafe { libc::sysconf(name) };
    v.max(0) as usize
}

/// The attribute `flags` and the pid to open an event of `mode` with.
fn flags_and_pid(mode: Mode) -> (u64, libc::pid_t) {
    let common = FLAG_DISABLED
        | FLAG_EXCLUDE_HV
        | FLAG_EXCLUDE_CALLCHAIN_USER
        | FLAG_SAMPLE_ID_ALL
        | FLAG_USE_CLOCKID;
    match mode {
        // The idle task's samples are not written (its timer still fires);
        // the fork and exit records are [`task_flags`]' event's.
        Mode::CpuWide => (common | FLAG_EXCLUDE_IDLE, -1),
        Mode::PerTask => (common | FLAG_INHERIT, 0),
    }
}

/// The attribute `flags` of [`Mode::CpuWide`]'s fork and exit records'
/// event: the sampling event's, with `task`.
fn task_flags() -> u64 {
    flags_and_pid(Mode::CpuWide).0 | FLAG_TASK
}

/// What a cpu-clock sample holds: its address, task, time and kernel call
/// chain, and (`cgroup`) its task's cgroup.
fn sample_type(cgroup: bool) -> u64 {
    let cg = if cgroup { PERF_SAMPLE_CGROUP } else { 0 };
    PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN | cg
}

/// Opens a cpu-clock event of `mode` on `cpu` (its samples carrying their
/// cgroup when `cgroup`), or (`tasks`) the dummy event that records
/// [`Mode::CpuWide`]'s forks and exits there.
fn open_event(
    period_ns: u64,
    cpu: i32,
    mode: Mode,
    tasks: bool,
    cgroup: bool,
) -> io::Result<OwnedFd> {
    let (flags, pid) = match tasks {
        true => (task_flags(), -1),
        false => flags_and_pid(mode),
    };
    let attr = Attr {
        kind: PERF_TYPE_SOFTWARE,
        size: ATTR_SIZE_VER5,
        config: match tasks {
            true => PERF_COUNT_SW_DUMMY,
            false => PERF_COUNT_SW_CPU_CLOCK,
        },
        sample_period: period_ns.max(10_000),
        sample_type: sample_type(cgroup && !tasks),
        flags,
        // The clock of `sys::monotonic_ns`, which stamps the windows.
        clockid: libc::CLOCK_MONOTONIC,
        ..Attr::default()
    };
    // SAFETY: perf_event_open reads `attr.size` bytes of the attribute,
    // which is that long and lives across the call; pid 0 is this process,
    // -1 every task on `cpu`; group -1 none; the fd it returns is owned
    // below.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_perf_event_open,
            &attr as *const Attr,
            pid,
            cpu as libc::c_int,
            -1 as libc::c_int,
            PERF_FLAG_FD_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a new descriptor the kernel just returned, owned by no one else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

impl Ring {
    /// Maps `fd`'s ring: one header page and `pages` (a power of two) of data.
    fn map(cpu: i32, fd: OwnedFd, pages: usize) -> io::Result<Ring> {
        let page = sysconf(libc::_SC_PAGESIZE).max(4096);
        let len = (pages + 1) * page;
        let hint = ring_hint(cpu, len);
        // SAFETY: a fresh shared mapping of the event's descriptor, of the
        // length the kernel expects (1 + 2^n pages), at an address the
        // kernel picks (`hint` only a hint: no MAP_FIXED, nothing of ours is
        // replaced); checked for MAP_FAILED.
        let base = unsafe {
            libc::mmap(
                hint as *mut libc::c_void,
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(Ring {
            cpu,
            fd,
            tasks: None,
            base: base.cast(),
            len,
            page,
        })
    }

    /// The records written since the last drain, copied out (a record may
    /// wrap around the ring's end), and the tail moved past them.
    fn take(&mut self) -> Vec<u8> {
        let size = self.len - self.page;
        // SAFETY: DATA_HEAD and DATA_TAIL are 8-aligned u64 fields of the
        // header page, inside the mapping; the kernel writes data_head and
        // reads data_tail concurrently, so both are accessed atomically.
        let (head_at, tail_at) = unsafe {
            (
                &*(self.base.add(DATA_HEAD) as *const std::sync::atomic::AtomicU64),
                &*(self.base.add(DATA_TAIL) as *const std::sync::atomic::AtomicU64),
            )
        };
        use std::sync::atomic::Ordering;
        let head = head_at.load(Ordering::Acquire);
        let tail = tail_at.load(Ordering::Relaxed);
        let n = head.saturating_sub(tail).min(size as u64) as usize;
        let mut out = Vec::with_capacity(n);
        let start = (tail % size as u64) as usize;
        let first = n.min(size - start);
        // SAFETY: the data area is `size` bytes from `base + page`; the two
        // copies read [start, start + first) and [0, n - first), both within
        // it, which the kernel does not write again until data_tail moves.
        unsafe {
            let data = self.base.add(self.page);
            out.extend_from_slice(std::slice::from_raw_parts(data.add(start), first));
            out.extend_from_slice(std::slice::from_raw_parts(data, n - first));
        }
        tail_at.store(head, Ordering::Release);
        out
    }
}

/// Where the rings are asked to be mapped (a hint): far from every other
/// mapping of a process (32 TiB up, below a PIE binary's and the shared
/// libraries' usual places), each CPU's in a 2 MiB-aligned slot of its own.
/// Mapped where the kernel would put them, just below the libraries, they
/// push every mapping made after them (the worker's heap and stacks) 2 MiB
/// and more down, onto page-table pages of their own, which each fork then
/// copies: a fork+reap at 0 B paid about 2% for that alone, with no event
/// ever enabled (docs/WHY.md, "Where fork's cost went").
pub fn ring_hint(cpu: i32, len: usize) -> usize {
    const BASE: usize = 0x2000_0000_0000;
    const SLOT: usize = 2 << 20;
    let slot = len.div_ceil(SLOT).max(1) * SLOT;
    BASE + (cpu.max(0) as usize) * slot
}

/// The order to switch the events of `cpus` in (indices into it): the one
/// of CPU `here` last when `last`, else first; the others as they come.
pub fn switch_order(cpus: impl Iterator<Item = i32>, here: i32, last: bool) -> Vec<usize> {
    let cpus: Vec<i32> = cpus.collect();
    let (mine, others): (Vec<usize>, Vec<usize>) = (0..cpus.len()).partition(|&i| cpus[i] == here);
    if last {
        [others, mine].concat()
    } else {
        [mine, others].concat()
    }
}

/// Walks the records in `bytes` (as a ring holds them) into `into`; a
/// sample's cgroup is read after its call chain when `cgroup` (the events
/// asked for it).
pub fn parse_records(bytes: &[u8], cgroup: bool, into: &mut Drained) {
    let u16_at = |i: usize| u16::from_ne_bytes([bytes[i], bytes[i + 1]]);
    let u32_at = |i: usize| u32::from_ne_bytes(bytes[i..i + 4].try_into().expect("4 bytes"));
    let u64_at = |i: usize| u64::from_ne_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
    let mut at = 0;
    while at + 8 <= bytes.len() {
        let kind = u32_at(at);
        let misc = u16_at(at + 4);
        let size = u16_at(at + 6) as usize;
        if size < 8 || at + size > bytes.len() {
            break;
        }
        let body = at + 8;
        match kind {
            // ip, pid and tid, time, nr, then nr call-chain entries, then
            // the cgroup if asked for.
            PERF_RECORD_SAMPLE if size >= 8 + 32 => {
                let nr = u64_at(body + 24) as usize;
                let chain = body + 32;
                let pid = u32_at(body + 8);
                let time = u64_at(body + 16);
                let kernel = misc & MISC_CPUMODE_MASK == MISC_KERNEL;
                let after = chain.saturating_add(nr.saturating_mul(8));
                let fits = after <= at + size;
                let mut kernel_ips = Vec::new();
                if kernel && fits {
                    kernel_ips = (0..nr)
                        .map(|k| u64_at(chain + 8 * k))
                        .filter(|ip| *ip < CONTEXT_MAX)
                        .collect();
                }
                let cgroup = match cgroup && fits && after + 8 <= at + size {
                    true => u64_at(after),
                    false => 0,
                };
                into.samples.push(Sample {
                    pid,
                    time,
                    kernel,
                    kernel_ips,
                    cgroup,
                });
            }
            // id, lost, then sample_id_all's pid and tid, time.
            PERF_RECORD_LOST if size >= 8 + 32 => {
                into.lost.push((u64_at(body + 24), u64_at(body + 8)))
            }
            // pid, ppid, tid, ptid, time: a new thread's pid is its parent's.
            PERF_RECORD_FORK if size >= 8 + 16 => {
                let (pid, ppid) = (u32_at(body), u32_at(body + 4));
                if pid != ppid {
                    into.forks.push((pid, ppid));
                }
            }
            PERF_RECORD_EXIT if size >= 8 + 16 => {
                let (pid, tid) = (u32_at(body), u32_at(body + 8));
                if pid == tid {
                    into.exits.push(pid);
                }
            }
            _ => {}
        }
        at += size;
    }
}

impl CpuClock {
    /// Opens a disabled cpu-clock event of `mode` on every CPU (for this
    /// process and the tasks it starts from now on), sampling every
    /// `period_ns` of CPU time, the CPUs' rings sharing `total_pages` pages
    /// (each a power of two, at least 16; halved down to 8 while the kernel
    /// refuses the size, as a user's locked memory limit can). With
    /// `cgroup` (CPU-wide only), each sample carries its task's cgroup and
    /// no fork or exit record is asked for, ever.
    pub fn open(
        period_ns: u64,
        total_pages: usize,
        mode: Mode,
        cgroup: bool,
    ) -> io::Result<CpuClock> {
        let cgroup = cgroup && mode == Mode::CpuWide;
        let mut rings = Vec::new();
        let cpus = sysconf(libc::_SC_NPROCESSORS_CONF).max(1);
        let pages = (total_pages / cpus).max(16);
        for cpu in 0..cpus {
            let fd = match open_event(period_ns, cpu as i32, mode, false, cgroup) {
                Ok(fd) => fd,
                // An offline CPU.
                Err(e) if e.raw_os_error() == Some(libc::ENODEV) => continue,
                Err(e) => return Err(e),
            };
            let mut n = if pages.is_power_of_two() {
                pages
            } else {
                pages.next_power_of_two() / 2
            };
            let ring = loop {
                match Ring::map(cpu as i32, fd.try_clone()?, n) {
                    Ok(r) => break r,
                    Err(e) if n > 8 && e.raw_os_error() == Some(libc::EPERM) => n /= 2,
                    Err(e) => return Err(e),
                }
            };
            drop(fd);
            rings.push(ring);
        }
        if rings.is_empty() {
            return Err(io::Error::from_raw_os_error(libc::ENODEV));
        }
        if mode == Mode::CpuWide && !cgroup {
            for r in &mut rings {
                let tasks = open_event(period_ns, r.cpu, mode, true, false)?;
                // SAFETY: SET_OUTPUT takes the target event's descriptor as
                // its argument, an integer; both descriptors are open, ours.
                super::check(unsafe {
                    libc::ioctl(tasks.as_raw_fd(), IOC_SET_OUTPUT as _, r.fd.as_raw_fd())
                })?;
                r.tasks = Some(tasks);
            }
        }
        Ok(CpuClock {
            mode,
            rings,
            on: false,
            records: !cgroup,
            cgroup,
        })
    }

    /// Which tasks the events sample.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Sends `request` to every CPU's sampling event (`tasks`: its fork and
    /// exit records' event, where it has one), the event of the CPU this
    /// thread runs on `last` or first. Switching another CPU's event sends
    /// that CPU an interrupt and waits for it; with this CPU's own event
    /// enabled last and disabled first, a CPU-wide event never samples this
    /// thread waiting for those.
    fn ioctl_all(&self, request: libc::c_ulong, last: bool, tasks: bool) -> io::Result<()> {
        let here = super::proc::current_cpu();
        let order = switch_order(self.rings.iter().map(|r| r.cpu), here, last);
        for i in order {
            let r = &self.rings[i];
            let fd = match tasks {
                true => match &r.tasks {
                    Some(t) => t.as_raw_fd(),
                    None => continue,
                },
                false => r.fd.as_raw_fd(),
            };
            // SAFETY: ENABLE and DISABLE take no argument and touch no
            // memory of ours; the descriptor is the ring's own.
            super::check(unsafe { libc::ioctl(fd, request as _, 0) })?;
        }
        Ok(())
    }

    /// Starts sampling (this process and its children alive or to come),
    /// and the fork and exit records if they are asked for.
    pub fn enable(&mut self) -> io::Result<()> {
        if self.records {
            self.ioctl_all(IOC_ENABLE, true, true)?;
        }
        if let Err(e) = self.ioctl_all(IOC_ENABLE, true, false) {
            // The records go off again with the sampling that failed:
            // nothing is left on while `on` says off.
            let _ = self.ioctl_all(IOC_DISABLE, false, true);
            return Err(e);
        }
        self.on = true;
        Ok(())
    }

    /// Stops sampling and recording: both are asked to stop, whichever
    /// fails; the first error is returned.
    pub fn disable(&mut self) -> io::Result<()> {
        self.on = false;
        let sampling = self.ioctl_all(IOC_DISABLE, false, false);
        let records = self.ioctl_all(IOC_DISABLE, false, true);
        sampling.and(records)
    }

    /// Asks for the fork and exit records of [`Mode::CpuWide`] (`on`) or
    /// not: off only while the tasks started are threads of processes
    /// already known (a thread's samples carry its process's pid), since
    /// the kernel writes both records for every task started, threads too.
    /// Switched at once if the events are on, else when they go on. A
    /// clock whose samples carry their cgroup has no records to switch.
    pub fn task_records(&mut self, on: bool) -> io::Result<()> {
        if self.cgroup || self.records == on {
            return Ok(());
        }
        if self.on {
            let request = if on { IOC_ENABLE } else { IOC_DISABLE };
            self.ioctl_all(request, on, true)?;
        }
        self.records = on;
        Ok(())
    }

    /// The samples every ring holds now, and how many were lost.
    pub fn drain(&mut self) -> Drained {
        let mut d = Drained::default();
        for r in &mut self.rings {
            parse_records(&r.take(), self.cgroup, &mut d);
        }
        d
    }
}

#[cfg(test)]
#[path = "perf_tests.rs"]
mod tests;
