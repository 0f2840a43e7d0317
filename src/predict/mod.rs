//! tasklab predict: what fork() would cost a live process on this machine.
//! It reads the process's page tables, anonymous memory, huge pages,
//! mappings and descriptors from /proc (through `sys::procfs`), and prices
//! them with slopes measured here: spawn.heap's fork against VmPTE and per
//! extra mapping and descriptor, and spawn.cow's writes after fork, from
//! `--results FILE` or a short run.
//!
//! - [`model`]: the pure model (process, slopes, prediction).
//! - [`fresh`]: the short run without `--results`, its heaps fitted to the
//!   process.

pub mod denied;
pub mod fresh;
pub mod model;
pub mod placement;
pub mod range;
pub mod replay;

use crate::cli::PredictArgs;
use crate::error::UsageError;
use crate::experiments::spawn::heap_fit::signed_ns;
use crate::experiments::spawn::{cow, heap};
use crate::results::{RunResults, RunStatus, Status};
use crate::sys::procfs;
use crate::units::{fmt_ns, fmt_size, group_digits};
use fresh::FreshHeaps;
use model::{ExtraCost, Prediction, Process, Range, Slopes};
use std::io;
use std::path::Path;
use std::process::ExitCode;

/// The experiments predict takes its slopes from.
pub const NEEDED: &[&str] = &[heap::EXPERIMENT.name, cow::EXPERIMENT.name];

const NO_PID: &str = "predict needs --pid PID: the process whose fork to predict. \
Find one with `pgrep -n NAME` (newest process of that name), `pidof NAME`, \
or `ps -eo pid,rss,comm --sort=-rss | head` (largest memory first); \
`--pid $$` is this shell";

pub fn run(args: &PredictArgs) -> anyhow::Result<ExitCode> {
    let pid_text = args
        .pid
        .as_deref()
        .ok_or_else(|| UsageError(NO_PID.into()))?;
    let pid = parse_pid(pid_text).map_err(UsageError)?;
    let writes_pct = parse_share(&args.writes).map_err(UsageError)?;
    // Everything the user named is checked before anything is measured.
    let file = match &args.results {
        Some(p) => Some((
            RunResults::read(p).map_err(|e| UsageError(format!("{e:#}")))?,
            p.display().to_string(),
        )),
        None => None,
    };
    let process = read_process(pid).map_err(UsageError)?;
    let given = file.is_some();
    let canaries;
    let (slopes, source, heaps) = match file {
        Some((r, source)) => {
            canaries = r.canaries();
            (Slopes::from_results(&r), source, None)
        }
        None => {
            let env = crate::env::probe();
            let available = crate::env::mem_available_bytes().unwrap_or(env.mem_available_bytes);
            let (room, why) = heap::heap_room(&env, available);
            let heaps = FreshHeaps::for_process(&process, room, &why);
            let r = fresh::run(&process, &heaps, writes_pct)?;
            // A signal during its own run: no prediction from part of it.
            if r.status == RunStatus::Partial {
                eprintln!("interrupted: no prediction");
                return Ok(ExitCode::from(130));
            }
            // The run's busy machine, as `tasklab run` says it.
            for w in &r.warnings {
                eprintln!("warning: {w}");
            }
            let slopes = Slopes::from_results(&r);
            canaries = r.canaries();
            if let Some(what) = model::missing(&slopes) {
                // Not the user's doing: the run did not get the figures.
                anyhow::bail!(
                    "the short run did not measure {what}{}; nothing to predict from, so no prediction (try again, on a quieter machine)",
                    why_not_measured(&r)
                );
            }
            (slopes, "a short run".into(), Some(heaps))
        }
    };
    let Some(mut p) = model::predict(&slopes, &process, writes_pct) else {
        let what = model::missing(&slopes).unwrap_or("the slopes");
        debug_assert!(given, "a short run without the slopes stopped above");
        return Err(UsageError(format!(
            "{source} lacks {what}: run `tasklab run {}` and pass its results.json with --results, or leave --results out to measure",
            NEEDED.join(" ")
        ))
        .into());
    };
    // From its own run, a prediction beyond the heaps measured says why
    // they did not reach the process.
    let cold_beyond = p.cold_fork.is_some_and(|c| c.extrapolated);
    if let (Some(h), true) = (&heaps, p.extrapolated || cold_beyond) {
        let largest = if p.extrapolated {
            slopes.fork.last()
        } else {
            slopes.fork_paused.last()
        };
        p.extrapolated_why =
            Some(h.why_extrapolated(largest.map_or(0.0, |l| l.0), process.copied_pte_kib()));
    }
    // The host's memory state now, beside the slopes': a millisecond or so.
    let cpus = crate::sys::allowed_cpus().unwrap_or_default();
    p.host_memory = Some(model::HostMemory::of(
        &canaries,
        &crate::measure::telemetry::canary_on(&cpus),
    ));
    // The process's own layout replayed where asked (`--replay`: a copy of
    // its anonymous memory and some seconds, so never by default) and it
    // can be built: then it is the prediction of the cold fork, the
    // model's figures beside it (against Redis: docs/PREDICT.md); else the
    // model is, and says why.
    let mut replayed = if args.replay {
        replay::in_worker(pid)
    } else {
        Err(replay::not_asked(process.rss_anon_kib * 1024))
    };
    hold_for_process(&mut replayed, &p);
    if replayed.as_ref().is_err_and(|w| w == replay::INTERRUPTED) {
        eprintln!("interrupted: no prediction");
        return Ok(ExitCode::from(130));
    }
    print(args.json, &process, &p, &source, &replayed)?;
    Ok(ExitCode::SUCCESS)
}

/// The prediction and the replay, as text or (`json`) as JSON.
fn print(
    json: bool,
    process: &Process,
    p: &Prediction,
    source: &str,
    replayed: &Result<replay::Replay, String>,
) -> anyhow::Result<()> {
    if json {
        let v = to_json(process, p, source, replayed);
        crate::error::out(&format!("{}\n", serde_json::to_string_pretty(&v)?))?;
    } else {
        crate::error::out(&render_with(process, p, source, replayed))?;
    }
    Ok(())
}

/// The replay, where built, held for the process's fork being a run of its
/// own as the model's figures are: by the model's cold τ at the process,
/// its warm one where it has no cold figures.
pub fn hold_for_process(replayed: &mut Result<replay::Replay, String>, p: &Prediction) {
    if let Ok(r) = replayed.as_mut() {
        r.held_for(p.cold_fork.map_or(p.run_noise, |c| c.run_noise));
    }
}

/// `--json`: the process, the model's prediction, the replay or why none,
/// and which of the two is the prediction (`predicted_by`, with
/// `predicted_by_why` when it is the model).
pub fn to_json(
    process: &Process,
    p: &Prediction,
    source: &str,
    replayed: &Result<replay::Replay, String>,
) -> serde_json::Value {
    let (by, why) = replay::predicted_by(replayed);
    serde_json::json!({
        "process": process,
        "source": source,
        "prediction": p,
        "replay": replayed.as_ref().ok(),
        "replay_skipped": replayed.as_ref().err(),
        "predicted_by": by,
        "predicted_by_why": why,
    })
}

/// The prediction in words, with the replay: where it was built, its cold
/// fork first, the prediction, and the model's figures after it, named as
/// the model's; where not, the model's ([`render`]) and why it is the
/// prediction.
pub fn render_with(
    proc_: &Process,
    p: &Prediction,
    source: &str,
    replayed: &Result<replay::Replay, String>,
) -> String {
    match replayed {
        Ok(r) => format!(
            "{}{}the model, by its layout's shares (beside the prediction, what those shares explain; its warm figures, forks back to back, are the only warm ones: the replay forks after a pause):\n{}",
            header(proc_),
            replay_lines(r),
            body(proc_, p, source, true)
        ),
        Err(why) => format!(
            "{}  (the model is the prediction, the process's layout not replayed: {why})\n",
            render(proc_, p, source)
        ),
    }
}

/// The replay's lines: its cold fork, the prediction, and how its layout
/// read back against the process's.
pub fn replay_lines(r: &replay::Replay) -> String {
    let m = r.parent_return_ns;
    let sh = |s: &replay::Shares| {
        format!(
            "{:.0}% in runs of {} or more, {:.0}% near, {:.0}% scattered",
            s.runs_pct,
            procfs::RUN_MIN_PAGES,
            s.near_pct,
            s.scattered_pct
        )
    };
    format!(
        "a cold fork, after a {} pause: {}, the median cold fork and its 95% interval across {} rounds of {}: the prediction, from {}\n  a single cold fork: {} to {}, the 10th to 90th percentile of single cold forks\n  (a heap of {} pages laid in the process's own frame layout, each of its {} blocks of 2 MiB of frames on a fresh huge page of ours ({} came whole), each page moved to its page's offset in it, {} faulted in where they fell; built in {}; read back {}, against the process's {}; its interval and spread hold its own run's τ {:.1}% and the process's fork as a run of its own, the model's τ at the process {:.1}%; the model's figures below, {}, say what those shares explain: docs/PREDICT.md holds both against Redis)\n",
        fmt_ns(r.pause_ms as f64 * 1e6),
        range_ns(&m),
        r.rounds,
        r.forks_per_round,
        replay::REPLAY_NAME,
        time(r.single_fork_ns.p10),
        time(r.single_fork_ns.p90),
        group_digits(r.pages as i64),
        group_digits(r.blocks as i64),
        group_digits(r.blocks_whole as i64),
        group_digits(r.pages_not_placed as i64),
        fmt_ns(r.build_ms * 1e6),
        sh(&r.replayed),
        sh(&r.process),
        r.run_noise * 100.0,
        r.process_run_noise * 100.0,
        replay::MODEL_NAME,
    )
}

/// Why the experiments the slopes come from did not give them, in words:
/// each one failed or partial, with its reason ("" when none was).
fn why_not_measured(r: &RunResults) -> String {
    let why: Vec<String> = r
        .experiments
        .iter()
        .filter(|e| NEEDED.contains(&e.name.as_str()))
        .filter_map(|e| match e.status {
            Status::Ok => e.partial_words().map(|w| format!("{} is {w}", e.name)),
            _ => Some(format!(
                "{}: {}",
                e.name,
                e.reason.as_deref().unwrap_or("no reason given")
            )),
        })
        .collect();
    if why.is_empty() {
        String::new()
    } else {
        format!(" ({})", why.join("; "))
    }
}

/// A process id: a whole number above 0.
pub fn parse_pid(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(0) => Err("--pid: 0 is not a process id".into()),
        Ok(p) if p <= i32::MAX as u32 => Ok(p),
        _ => Err(format!(
            "--pid: '{text}' is not a process id (a whole number above 0)"
        )),
    }
}

/// A share of writes: "10%", "0.5%" or "10"; 0 to 100.
pub fn parse_share(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let v = crate::units::parse_number("--writes", t.strip_suffix('%').unwrap_or(t))?;
    if !(0.0..=100.0).contains(&v) {
        return Err(format!("--writes: '{text}' is not a share from 0% to 100%"));
    }
    Ok(v)
}

/// The process's figures, or why they cannot be read.
fn read_process(pid: u32) -> Result<Process, String> {
    let why = |what: &str, e: io::Error| unreadable(pid, what, &e);
    let status = procfs::status_of(pid).map_err(|e| why("status", e))?;
    let field = |name: &str| procfs::kib_field(&status, name);
    let Some(vm_pte_kib) = field("VmPTE") else {
        return Err(format!(
            "--pid {pid}: it has no memory of its own (a kernel thread or a zombie): fork has nothing to copy"
        ));
    };
    let rollup = procfs::smaps_rollup_of(pid).map_err(|e| why("memory map (smaps_rollup)", e))?;
    // Unreadable: the page tables are priced whole, as VmPTE counts them.
    let anon = procfs::anon_pages(pid).ok();
    let near = match &anon {
        Some(a) if a.frames_adjacent_pct.is_some() => {
            model::near_shares(&a.near_by_fill, a.resident)
        }
        _ => (None, None),
    };
    Ok(Process {
        pid,
        vm_pte_kib,
        rss_anon_kib: field("RssAnon").unwrap_or(0),
        rss_shmem_kib: field("RssShmem").unwrap_or(0),
        anon_huge_kib: procfs::kib_field(&rollup, "AnonHugePages").unwrap_or(0),
        vmas: procfs::maps_of(pid).map_err(|e| why("mappings (maps)", e))?,
        fds: procfs::fds_of(pid).map_err(|e| why("file descriptors (fd)", e))?,
        rss_bound_kib: crate::measure::rss::regime_here().map(|r| {
            crate::measure::rss::bound_kib(&r, procfs::kib_field(&status, "Threads").unwrap_or(1))
        }),
        rss_cross_check_kib: field("VmRSS")
            .zip(procfs::kib_field(&rollup, "Rss"))
            .map(|(vm, exact)| vm as f64 - exact as f64),
        // Hidden (no CAP_SYS_ADMIN) or unreadable: the cold figures are
        // then for the worker's own placement, and the output says so.
        frames_adjacent_pct: anon.as_ref().and_then(|a| a.frames_adjacent_pct),
        frames_near_pct: anon.as_ref().and_then(|a| a.frames_near_pct),
        frames_near_in_row_pct: near.0,
        frames_near_fill_pct: near.1,
        anon_pte_entries: anon.as_ref().map(|a| a.fill.entries),
        anon_pte_tables: anon.as_ref().map(|a| a.fill.tables),
    })
}

/// Why the `what` of process `pid` could not be read, in words that say
/// what to do.
pub fn unreadable(pid: u32, what: &str, e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound | io::ErrorKind::PermissionDenied => {
            unreadable_with(pid, what, e, &denied::Facts::read(Path::new("/"), pid))
        }
        _ => format!("--pid {pid}: cannot read its {what}: {e}"),
    }
}

/// [`unreadable`] given the facts about the process and this one: a
/// refusal names its real cause ([`denied::cause`]).
pub fn unreadable_with(pid: u32, what: &str, e: &io::Error, f: &denied::Facts) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => denied::not_found(pid, f),
        io::ErrorKind::PermissionDenied => denied::cause(pid, what, f),
        _ => format!("--pid {pid}: cannot read its {what}: {e}"),
    }
}

fn range_ns(r: &Range) -> String {
    format!(
        "{} {}",
        time(r.median),
        crate::units::fmt_interval(&time(r.lo), &time(r.hi))
    )
}

/// A time the model gives, as computed (issue 39: never raised to zero);
/// one below zero, where a time cannot be, is said so in words, never
/// printed as a time ([`BELOW_ZERO_NOTE`] says why).
fn time(ns: f64) -> String {
    if ns < 0.0 {
        BELOW_ZERO_TIME.into()
    } else {
        fmt_ns(ns)
    }
}

/// A time the model gives below zero, in words.
const BELOW_ZERO_TIME: &str = "below 0 ns";

/// Why a time is said to be below zero: the lines the heaps' intervals
/// allow, extrapolated past the heaps measured, fall through zero.
const BELOW_ZERO_NOTE: &str = "  (a figure below 0 ns, which a time cannot be, is where a straight line through the heaps measured, extrapolated past them, falls through zero: the line bounds nothing there; the JSON keeps it as computed)\n";

/// [`BELOW_ZERO_NOTE`] when any of `figures` is below zero.
fn below_zero_note(figures: &[f64]) -> &'static str {
    if figures.iter().any(|x| *x < 0.0) {
        BELOW_ZERO_NOTE
    } else {
        ""
    }
}

/// A signed figure with its interval: "+1.90 ms [+1.80 ms, +2.00 ms]".
fn signed_range_ns(r: &Range) -> String {
    format!(
        "{} {}",
        signed_ns(r.median),
        crate::units::fmt_interval(&signed_ns(r.lo), &signed_ns(r.hi))
    )
}

/// "its 640 mappings, 520 more than the measured worker's: +1.0 ms (…)".
fn extra_line(what: &str, count: u64, e: &ExtraCost) -> String {
    let d = e.beyond_worker;
    let against = if d >= 0.0 {
        format!("{} more than", group_digits(d.round() as i64))
    } else {
        format!("{} fewer than", group_digits(-d.round() as i64))
    };
    format!(
        "its {} {what}, {against} the measured worker's: {}",
        group_digits(count as i64),
        signed_range_ns(&e.ns)
    )
}

/// The cold fork's lines, and which figures to read: the warm ones are
/// forks back to back, the cold ones forks after a pause.
fn cold_lines(proc_: &Process, p: &Prediction, model_named: bool) -> String {
    let Some(c) = p.cold_fork else {
        return "  (these are warm forks, timed back to back: a process that forks now and then, as a server's background save after idling, pays more; the slopes have no forks after a pause, spawn.heap -p paused_forks=N)\n".into();
    };
    let pause = c.pause_ms.map_or("a pause".to_string(), |ms| {
        format!("a {} pause", fmt_ns(ms * 1e6))
    });
    let median = if c.below_smallest {
        format!(
            "{} to {}, the median cold fork (below the smallest heap measured after a pause: at most that heap's figure, at least that figure scaled down to its page tables)",
            time(c.parent_return_ns.lo),
            time(c.parent_return_ns.hi)
        )
    } else {
        format!(
            "{}, the median cold fork and its 95% interval{}",
            range_ns(&c.parent_return_ns),
            if c.extrapolated {
                " (beyond the largest heap measured after a pause: the line is extrapolated)"
            } else {
                ""
            }
        )
    };
    let placement = match (c.frames, proc_.frames_adjacent_pct) {
        (Some(f), _) => placement_line(&f, proc_),
        (None, Some(_)) => "  (not placed by its pages in physical memory: the slopes have no heap timed in two layouts told apart (spawn.heap -p scattered=true -p contiguous=true, as root; a results file from before the contiguous heaps counted frames one way only): the cold figures are for the worker's heaps as touched)\n".into(),
        (None, None) => "  (its pages' physical frames are hidden from this user (no CAP_SYS_ADMIN): the cold figures are for pages as contiguous as a freshly written heap's, and a process whose pages are scattered in physical memory, as a long-running server's often are, may fork up to twice as slowly)\n".into(),
    };
    let r = c.parent_return_ns;
    let below = below_zero_note(&[r.median, r.lo, r.hi, c.single_fork_ns.p10]);
    format!(
        "{} cold fork, after {pause}: {median}\n  a single cold fork: {} to {}, the 10th to 90th percentile of single cold forks\n{below}{placement}  (the figures before these are warm forks, timed back to back, as a process forking in a loop pays; a server that forks after idling, as Redis's BGSAVE, should read the cold ones; mappings and descriptors are priced warm in both)\n",
        if model_named { "the model's" } else { "a" },
        time(c.single_fork_ns.p10),
        time(c.single_fork_ns.p90),
    )
}

/// Where the cold figures were placed by the process's pages in physical
/// memory, in words: its share against each layout's, and whether it lies
/// outside them.
fn placement_line(f: &model::Placement, p: &Process) -> String {
    let pct = |x: f64| format!("{}%", x.round());
    let layouts: Vec<String> = [
        f.scattered_pct.map(|x| format!("{} scattered", pct(x))),
        Some(format!("{} as touched", pct(f.touched_pct))),
        f.contiguous_pct.map(|x| format!("{} in a row", pct(x))),
    ]
    .into_iter()
    .flatten()
    .collect();
    let place = match f.outside {
        None => "the cold figures are on the line between the two layouts either side of its share",
        Some(model::Outside::MoreContiguous) => "it lies more in a row than the most contiguous heap measured: priced as that heap, not extrapolated, so its cold fork may cost less",
        Some(model::Outside::MoreScattered) => "it lies more scattered than the most scattered heap measured: priced as that heap, not extrapolated, so its cold fork may cost more",
    };
    // Its near pages' part, where any counts: those in runs alone else.
    let near = match (p.frames_adjacent_pct, p.frames_near_in_row_pct, p.frames_near_fill_pct) {
        (Some(runs), Some(in_row), Some(fill)) if in_row > 0.0 => format!(
            " ({} in runs of {} or more whose frames are each next to the one before; {} more from its near pages, {} of them, each counted by how full its block of 2 MiB of frames is with its pages: {} on average)",
            pct(runs),
            procfs::RUN_MIN_PAGES,
            pct(in_row),
            pct(p.frames_near_pct.unwrap_or(0.0)),
            pct(fill),
        ),
        _ => format!(
            " (in runs of {} or more whose frames are each next to the one before)",
            procfs::RUN_MIN_PAGES
        ),
    };
    format!(
        "  (placed by its pages in physical memory: {} of its pages priced as in a row{near}, against {} in the worker's heaps; {place})\n",
        pct(f.process_pct),
        layouts.join(", "),
    )
}

/// How full its anonymous page tables are, and what that leaves of VmPTE
/// to price, when a table's worth or more of them is empty; else nothing.
fn tables_line(p: &Process) -> String {
    let (Some(entries), Some(tables)) = (p.anon_pte_entries, p.anon_pte_tables) else {
        return String::new();
    };
    if p.unfilled_pte_kib() < 4.0 || tables == 0 {
        return String::new();
    }
    format!(
        "  (page tables priced as {}: its anonymous memory's {} page-table entries lie in {} tables, {:.0}% full, where the heaps measured fill theirs; the empty part, {}, is counted at {:.0}%, what a table costs fork on its own)\n",
        crate::units::fmt_value(p.copied_pte_kib(), crate::results::Unit::Kib),
        group_digits(entries as i64),
        group_digits(tables as i64),
        100.0 * entries as f64 / (512.0 * tables as f64),
        crate::units::fmt_value(p.unfilled_pte_kib(), crate::results::Unit::Kib),
        100.0 * model::TABLE_OWN_SHARE,
    )
}

/// The host's memory state when the slopes were measured against now;
/// nothing when either is unknown.
fn host_memory_line(h: Option<model::HostMemory>) -> String {
    let Some(h) = h else {
        return String::new();
    };
    let (Some(then), Some(now), Some(ratio)) =
        (h.slopes_fresh_page_ns, h.now_fresh_page_ns, h.ratio())
    else {
        return String::new();
    };
    format!(
        "  (the host's memory state, by the memory canary's first touch of a fresh page: {} a page over the slopes' rounds, {} now, {:.2} times; a fork's cost moves with that state here, so a process forking in another state than the slopes' may see another cost: measure again, or read `prediction.host_memory` in --json, when it has moved)\n",
        fmt_ns(then),
        fmt_ns(now),
        ratio
    )
}

/// What the medians' intervals hold for the process's fork being another
/// run than the slopes', and what that rests on, in one line.
fn run_noise_line(p: &Prediction) -> String {
    let pct = |t: f64| format!("{:.1}%", t * 100.0);
    let cold = p
        .cold_fork
        .map_or(String::new(), |c| format!(", cold {}", pct(c.run_noise)));
    format!(
        "  (the intervals and spreads above hold the process's fork as a run of its own, as compare's SE² = se_A² + se_B² + 2τ² does: τ warm {}{cold} (sd), on the slopes' series' own spread over their rounds, at least the {} floor)\n",
        pct(p.run_noise),
        pct(crate::stats::noise::FLOOR)
    )
}

/// The model's prediction in words, the model the prediction.
pub fn render(proc_: &Process, p: &Prediction, source: &str) -> String {
    header(proc_) + &body(proc_, p, source, false)
}

/// The process's lines: its memory, mappings and descriptors.
fn header(proc_: &Process) -> String {
    let kib = |k: u64| fmt_size(k * 1024);
    let pm = crate::measure::rss::pm(proc_.rss_bound_kib, 1.0, 1.0);
    let mut s = format!(
        "process {}: page tables (VmPTE) {}, anonymous memory (RssAnon) {}{pm} of which {} on huge pages, shared memory (RssShmem) {}{pm}, {} mappings, {} open descriptors\n",
        proc_.pid,
        kib(proc_.vm_pte_kib),
        kib(proc_.rss_anon_kib),
        kib(proc_.anon_huge_kib),
        kib(proc_.rss_shmem_kib),
        group_digits(proc_.vmas as i64),
        group_digits(proc_.fds as i64),
    );
    if let Some(b) = proc_.rss_bound_kib {
        let cross = proc_.rss_cross_check_kib.map_or(String::new(), |c| {
            format!(
                "; cross-check, VmRSS − smaps_rollup Rss: {}, {} that bound",
                crate::measure::rss::signed(c),
                if c.abs() <= b { "within" } else { "beyond" }
            )
        });
        s.push_str(&format!(
            "  (RSS bound: RssAnon and RssShmem come from the kernel's RSS counters, which may lag up to ± {} for its threads on this kernel{cross})\n",
            crate::units::fmt_value(b, crate::results::Unit::Kib)
        ));
    }
    s.push_str(&tables_line(proc_));
    s
}

/// The model's figures in words; `model_named`: its cold fork named as the
/// model's, the replay the prediction.
fn body(proc_: &Process, p: &Prediction, source: &str, model_named: bool) -> String {
    let mut s = String::new();
    let fork = &p.parent_return_ns;
    s.push_str(&if p.below_smallest {
        format!(
            "fork() would return to the parent in {} to {}, the median fork (its page tables are below the smallest heap measured: at most that heap's figure, at least that figure scaled down to its page tables)\n",
            time(fork.lo),
            time(fork.hi)
        )
    } else {
        format!(
            "fork() would return to the parent in {}, the median fork and its 95% interval{}\n",
            range_ns(fork),
            if p.extrapolated {
                " (its page tables are beyond the largest heap measured: the line is extrapolated)"
            } else {
                ""
            }
        )
    });
    if let Some(one) = p.single_fork_ns {
        s.push_str(&format!(
            "  a single fork (what one fork sees): {} to {}, the 10th to 90th percentile of single forks\n",
            time(one.p10),
            time(one.p90)
        ));
    }
    s.push_str(below_zero_note(&[
        fork.median,
        fork.lo,
        fork.hi,
        p.single_fork_ns.map_or(0.0, |one| one.p10),
    ]));
    let extras: Vec<String> = [
        p.mappings.map(|e| extra_line("mappings", proc_.vmas, &e)),
        p.descriptors
            .map(|e| extra_line("open descriptors", proc_.fds, &e)),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !extras.is_empty() {
        s.push_str(&format!("  including {}\n", extras.join("; ")));
    }
    s.push_str(&cold_lines(proc_, p, model_named));
    s.push_str(&format!(
        "writing {}% of its anonymous memory while the child lives ({} pages of 4 KiB) would then cost {} of copy-on-write{}\n",
        crate::units::fmt_value(p.writes_pct, crate::units::Unit::Count),
        group_digits((p.written_4k_pages + p.written_thp_pages).round() as i64),
        range_ns(&p.cow_first_pass_ns),
        if p.thp_at_4k_rate {
            " (its huge pages priced at the 4 KiB rate: no huge-page figures in the slopes)"
        } else {
            ""
        }
    ));
    let image = match (p.mappings.is_some(), p.descriptors.is_some()) {
        (true, true) => "mappings and descriptors priced per extra one beyond the measured worker's (spawn.heap's image series)",
        (true, false) => "mappings priced per extra one beyond the measured worker's; descriptors are not in the model (no spawn.heap image series for them)",
        (false, true) => "descriptors priced per extra one beyond the measured worker's; mappings are not in the model (no spawn.heap image series for them)",
        (false, false) => "mappings and descriptors are not in the model (the slopes have no spawn.heap image series: run it with -p image=true)",
    };
    if let Some(why) = &p.extrapolated_why {
        s.push_str(&format!("  (extrapolated: {why})\n"));
    }
    s.push_str(&host_memory_line(p.host_memory));
    s.push_str(&run_noise_line(p));
    if !p.flagged.is_empty() {
        s.push_str(&format!(
            "  flagged: {} did not settle over the run's rounds (a trend or two modes), so each interval spans its rounds' medians; the figures are no better than that\n",
            p.flagged.join(", ")
        ));
    }
    s.push_str(&format!(
        "slopes from {source}; each interval joins the measured 95% intervals of the heaps and shares either side; {image}\n"
    ));
    s
}

#[cfg(test)]
mod tests;

#[cfg(test)]
#[path = "choice_tests.rs"]
mod choice_tests;
