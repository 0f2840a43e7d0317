//! The command line, defined once (clap derive).

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "tasklab",
    version = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("TASKLAB_GIT_COMMIT"), ", build ", env!("TASKLAB_BUILD_ID"), ")"),
    about = "What Linux processes and threads really cost on this machine: to create, to switch, to keep in memory",
    long_about = None,
    after_help = "With no command, `tasklab` runs the whole default suite (same as `tasklab run`).\n\
                  Exit status: 0 all experiments ran, 1 an experiment failed, 2 bad input, 130 interrupted."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Colour: auto (when stdout is a terminal and NO_COLOR is unset), always, never
    #[arg(
        long,
        value_enum,
        default_value = "auto",
        global = true,
        value_name = "WHEN"
    )]
    pub color: ColorArg,
}

/// The shells `tasklab completions` writes a script for.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShellArg {
    Bash,
    Zsh,
    Fish,
    Elvish,
    Powershell,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ColorArg {
    #[default]
    Auto,
    Always,
    Never,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run experiments (default: all) and write results.json
    Run(RunArgs),
    /// List experiments, groups, parameters and the seed figures they reproduce
    List {
        /// Print as JSON
        #[arg(long)]
        json: bool,
        /// List the saved baselines (`run --save-baseline NAME`) instead: name, when, profile, experiments, label
        #[arg(long)]
        baselines: bool,
    },
    /// Show the environment that shapes the figures
    Env {
        /// Print as JSON
        #[arg(long)]
        json: bool,
    },
    /// What changed between runs: improved, regressed, unchanged or
    /// inconclusive per series, each with the smallest change it could have
    /// seen (exit 1 for a regression beyond the threshold, or a gate that failed)
    Compare {
        /// BASE.json NEW.json; or the base files (runs of one side) with --vs; with --baseline, the new run only [default: the latest]
        #[arg(required_unless_present = "baseline", value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Compare against the baseline NAME (`run --save-baseline NAME`): the latest run (the newest results.json in tasklab-report/ and tasklab-report/partial/*/), or FILE
        #[arg(long, value_name = "NAME", conflicts_with = "vs")]
        baseline: Option<String>,
        /// The new files, runs of the other side (compare A1.json A2.json --vs B1.json B2.json): the variance between runs then enters every interval
        #[arg(long, num_args = 1.., value_name = "FILE")]
        vs: Vec<PathBuf>,
        /// Threshold in percent, never raised: regressed or improved needs the whole 95% interval beyond it, unchanged needs it wholly within
        #[arg(
            long,
            default_value_t = Threshold::DEFAULT,
            value_name = "PCT",
            allow_negative_numbers = true
        )]
        threshold: Threshold,
        /// Show every series, not only the changed ones, each inconclusive one with its reason
        #[arg(long)]
        all: bool,
        /// Print as JSON: {"rows": [{experiment, metric, labels, base, new, change, ci_lo, ci_hi, mde, verdict, reason?, why?, next?}], "common_mode", ...}
        #[arg(long)]
        json: bool,
        /// Give the verdicts with the machine's common move (the median change of
        /// the series better one way, which most series moved with) divided out;
        /// needs at least 10 such shared series
        #[arg(long)]
        relative: bool,
        /// A noise file from `tasklab calibrate` (of the base files' machine): each
        /// series' interval holds at least its calibrated run-to-run band [default:
        /// the one the private cache holds for the base files' machine, if any]
        #[arg(long, value_name = "FILE", conflicts_with = "no_noise")]
        noise: Option<PathBuf>,
        /// Use no noise file, not even the cache's
        #[arg(long)]
        no_noise: bool,
        #[command(flatten)]
        gate: GateArgs,
    },
    /// Learn this machine's run-to-run noise: run the suite N times, store each
    /// series' band in a noise file keyed by the machine's fingerprint (compare
    /// uses it), and print the A/A false alarms those runs give
    Calibrate(CalibrateArgs),
    /// Side A against side B inside one run (blocks A B B A): an
    /// experiment's parameter, the workers' environment, a kernel setting or
    /// the CPUs, switched while the host's state cancels out
    Ab(AbArgs),
    /// Re-render the report folder (report.md, report.html, charts) from a saved results.json
    Report {
        /// Results files (results.json, merged files) or folders holding them; two runs or more make a matrix
        #[arg(required = true, value_name = "FILE|DIR")]
        files: Vec<PathBuf>,
        /// Folder for the report (default: the folder the results file is in; a matrix: ./tasklab-matrix)
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// The matrix's baseline column, by run label (default: the first run)
        #[arg(long, value_name = "LABEL")]
        baseline: Option<String>,
        /// The matrix with every shared series, not only the Summary's quantities
        #[arg(long)]
        all: bool,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Write several runs into one merged file, which report and compare read
    Merge {
        /// Results files, merged files or folders holding them
        #[arg(required = true, value_name = "FILE|DIR")]
        files: Vec<PathBuf>,
        /// The merged file to write (never one of the inputs)
        #[arg(long, value_name = "FILE", required = true)]
        out: PathBuf,
    },
    /// What each concurrency model (process, thread, pool, posix_spawn, async)
    /// would cost for a workload: CPU overhead and memory, from measured figures
    Advise(AdviseArgs),
    /// Predict what fork() would cost a running process here, from slopes measured on this machine
    Predict(PredictArgs),
    /// Run one of the seeds' demonstration programs, with the seed's output
    #[command(subcommand)]
    Demo(Demo),
    /// Print a completion script for SHELL to stdout (e.g. `tasklab completions bash > ~/.local/share/bash-completion/completions/tasklab`)
    Completions {
        /// The shell to complete in
        #[arg(value_enum)]
        shell: ShellArg,
    },
    /// Print tasklab's man page (roff) to stdout, or write a page per command into --out DIR
    Man {
        /// Folder for tasklab.1 and one page per command (tasklab-run.1, ...)
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// A worker process (internal)
    #[command(name = "__worker", hide = true)]
    Worker,
    /// A fresh-process probe (internal)
    #[command(name = "__probe", hide = true)]
    Probe,
    /// predict's replay of a process's frame layout, in a process of its own (internal)
    #[command(name = "__replay", hide = true)]
    Replay {
        /// The process whose layout to replay
        pid: u32,
    },
}

/// The seeds' small demonstration programs.
#[derive(Subcommand, Debug, Clone, PartialEq, Eq)]
pub enum Demo {
    /// Bendersky's clone-vm-sample: clone() a child that prints the parent's
    /// buffer and writes into it; with `vm` (CLONE_VM) the parent sees the write
    CloneVm {
        /// `vm` sets CLONE_VM: the child shares the parent's memory
        #[arg(value_parser = ["vm"])]
        vm: Option<String>,
    },
}

/// The flags of every command that measures (`run`, `ab`, `calibrate`),
/// each defined once, with one help text.
#[derive(Args, Debug, Default, Clone, PartialEq)]
pub struct MeasureArgs {
    /// Experiments or groups to run (see `tasklab list`); none runs every one
    pub names: Vec<String>,

    /// quick: the whole suite in a 75 s budget (see --budget); thorough: publication-grade figures
    #[arg(long, value_enum, default_value = "quick")]
    pub profile: ProfileArg,

    /// Set an experiment parameter, NAME=VALUE (or EXPERIMENT.NAME=VALUE);
    /// repeatable (in `ab`, both sides share it). `tasklab list` shows each
    /// parameter and its range
    #[arg(short = 'p', long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,

    /// Pin every worker to these CPUs (e.g. 0 or 0-1; in `ab`, a cpus: SPEC
    /// overrides it for its side); default: unpinned, with the CPUs tasks
    /// actually ran on recorded either way
    #[arg(long, value_name = "CPUS", allow_hyphen_values = true)]
    pub pin: Option<String>,

    /// Kill a worker after this many seconds, at most 86400 (default: 120
    /// quick, 1800 thorough)
    #[arg(long, value_name = "SECS", allow_hyphen_values = true)]
    pub timeout: Option<f64>,

    /// Measure every series in exactly N independent rounds (3 to 100), each
    /// in a fresh worker, spread over the run
    ///
    /// In `run` and each run of `calibrate`: with no budget (default: the
    /// budget shares out the rounds: quick 3 at every point, 8 for the
    /// Summary's quantities, then more where a round buys the most
    /// precision per second; thorough 16, then more). In `ab`: N per side,
    /// one per block of its own, so the run holds twice as many blocks
    /// (default: 8 quick, 16 thorough)
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub rounds: Option<usize>,

    /// Seed of the shuffled order of the rounds (in `ab`, of the order inside
    /// each block): the same seed runs the same order (default: a fresh one,
    /// recorded in results.json); run K of a series (`run --repeat`,
    /// `calibrate`) uses SEED + K - 1
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub seed: Option<u64>,

    /// Print nothing but errors (and calibrate's answer: the noise file's
    /// path and the false alarms)
    #[arg(short, long)]
    pub quiet: bool,

    /// Attribute the time to the kernel functions that spend it: sample the
    /// workers and their children inside the timed windows (EVENT: cpu-clock,
    /// software, kernel call chains); where the kernel refuses, the run goes
    /// on and says which setting to change. See docs/WHY.md
    #[arg(
        long,
        value_enum,
        value_name = "EVENT",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "cpu-clock"
    )]
    pub why: Option<WhyEvent>,

    /// Samples per second of each sampled task's CPU time under --why (10 to
    /// 10000; default 99)
    #[arg(long, value_name = "HZ", allow_negative_numbers = true)]
    pub why_rate: Option<i64>,
}

/// What `--why` samples.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhyEvent {
    /// The software CPU clock: a sample per period of CPU time a task ran
    /// (works without a hardware PMU, as on most VMs)
    CpuClock,
}

/// `--pause`, of the commands that run the suite several times (`run
/// --repeat`, `calibrate`).
#[derive(Args, Debug, Default, Clone, Copy)]
pub struct PauseArgs {
    /// Seconds to wait between repeated runs (at most 86400), to spread them over time
    #[arg(long, value_name = "SECS", allow_negative_numbers = true)]
    pub pause: Option<f64>,
}

#[derive(Args, Debug, Default, Clone)]
pub struct RunArgs {
    #[command(flatten)]
    pub measure: MeasureArgs,

    /// The precision adaptive rounds aim for: an interval's half-width over
    /// its median, in percent (above 0, below 100; default 5)
    #[arg(long, value_name = "PCT", allow_negative_numbers = true)]
    pub precision: Option<f64>,

    /// Seconds of measuring the whole run may take, its minimum rounds
    /// included (default: 75 quick, 1800 thorough, and no longer than the
    /// profile's rounds at every point would take); too small for the
    /// minimum rounds is refused
    #[arg(long, value_name = "SECS", allow_negative_numbers = true)]
    pub budget: Option<f64>,

    /// Folder for the report: results.json, report.md, report.html, charts
    /// [default: tasklab-report for the whole suite, tasklab-report/partial/NAMES
    /// for named experiments; refused when it is a symbolic link, another
    /// user's, or writable by others; a folder named here is used as it is]
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Make idle CPUs poll for this run (root only): sets the haltpoll
    /// governor's guest_halt_poll_ns, or disables every idle state but POLL,
    /// and restores the old values however the run ends
    #[arg(long)]
    pub idle_poll: bool,

    /// Name the run in titles, results.json and a fleet's matrix (1 to 64
    /// letters, digits, '.', '_', '-'; default: the hostname)
    #[arg(long, value_name = "NAME")]
    pub label: Option<String>,

    /// Leave the hostname, the machine id and paths under home folders out
    /// of results.json, the reports, the exports and the terminal
    #[arg(long)]
    pub redact: bool,

    #[command(flatten)]
    pub output: OutputArgs,

    /// Run the whole run N times (1 to 100) into the folder, one results file
    /// per run (results-1.json ... results-N.json; results.json and the report
    /// are the last run's): history for `compare A1 A2 --vs B1 B2`
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub repeat: Option<usize>,

    #[command(flatten)]
    pub pause: PauseArgs,

    /// Keep this run's results as the baseline NAME (letters, digits, `.`, `_`, `-`; at most 64) in tasklab-report/baselines/ (or $TASKLAB_BASELINES), replacing one of that name: `compare --baseline NAME` compares a later run against it
    #[arg(long, value_name = "NAME")]
    pub save_baseline: Option<String>,
}

/// `tasklab ab`: two sides of one run.
#[derive(Args, Debug, Default, Clone)]
#[command(
    after_help = "A SPEC is param:NAME=VALUE (an experiment's parameter), env:NAME=VALUE (the workers' environment;
                  a loader variable may name only files no other user can write), sysfs:PATH=VALUE (a file under
                  /sys or /proc/sys, written before each block of the side and restored on every exit; needs root)
                  or cpus:LIST (the CPUs the side's workers may use). Several per side are allowed.
                  Exit status: 0 nothing regressed, 1 a regression beyond the threshold or a failed experiment,
                  2 bad input, 130 interrupted (the settings are restored).
                  Example: tasklab ab selftest.spin --a param:ns=1000 --b param:ns=1050"
)]
pub struct AbArgs {
    /// What side A sets (base): SPEC, repeatable
    #[arg(long = "a", value_name = "SPEC", num_args = 1.., required = true)]
    pub a: Vec<String>,
    /// What side B sets (new): SPEC, repeatable
    #[arg(long = "b", value_name = "SPEC", num_args = 1.., required = true)]
    pub b: Vec<String>,
    #[command(flatten)]
    pub measure: MeasureArgs,
    /// Threshold in percent, as for `compare`
    #[arg(
        long,
        default_value_t = Threshold::DEFAULT,
        value_name = "PCT",
        allow_negative_numbers = true
    )]
    pub threshold: Threshold,
    /// Show every series, not only the changed ones
    #[arg(long)]
    pub all: bool,
    /// Print the verdicts as `compare --json` does
    #[arg(long)]
    pub json: bool,
    /// Folder for results.json (both sides) and the report [default: tasklab-ab]
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub gate: GateArgs,
}

/// The exit status of a comparison: which regressions fail it, the false
/// discovery rate, and the gates that fail it when it judged too little.
#[derive(Args, Debug, Clone, Copy)]
pub struct GateArgs {
    /// Exit 1 when any compared series is inconclusive
    #[arg(long)]
    pub fail_on_inconclusive: bool,
    /// Exit 1 when fewer than PCT% of the compared series got a decided verdict (improved, regressed, changed or unchanged)
    #[arg(long, value_name = "PCT", allow_negative_numbers = true)]
    pub min_verdicts: Option<f64>,
    /// Exit 1 for any regression, also an isolated one (one point of an experiment moved while the same series at its other points did not); by default only a regression consistent across the experiment's points fails
    #[arg(long)]
    pub strict: bool,
    /// The false discovery rate across the comparison's families (an experiment at one point), in percent: above 0, at most 50
    #[arg(
        long,
        value_name = "PCT",
        default_value_t = 5.0,
        allow_negative_numbers = true
    )]
    pub fdr: f64,
}

impl Default for GateArgs {
    fn default() -> GateArgs {
        GateArgs {
            fail_on_inconclusive: false,
            min_verdicts: None,
            strict: false,
            fdr: FDR_PCT,
        }
    }
}

/// compare's default false discovery rate across families, in percent.
pub const FDR_PCT: f64 = 5.0;

/// A threshold in percent (`--threshold` of `compare`, `ab` and
/// `calibrate`; the matrix of `report` judges at the default): from 0 up
/// to, not including, 100. Every verdict uses it as asked, never raised.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Threshold(f64);

impl Threshold {
    /// compare's default: 5%.
    pub const DEFAULT: Threshold = Threshold(5.0);
    /// What a threshold out of range is told (clap adds the flag and the value).
    pub const RANGE: &'static str = "a percentage from 0 to 100 (0 included, 100 not)";

    /// The threshold in percent (5.0 for 5%).
    pub fn pct(self) -> f64 {
        self.0
    }

    /// The threshold as a fraction (0.05 for 5%).
    pub fn fraction(self) -> f64 {
        self.0 / 100.0
    }
}

impl Default for Threshold {
    fn default() -> Threshold {
        Threshold::DEFAULT
    }
}

impl std::str::FromStr for Threshold {
    type Err = String;
    fn from_str(s: &str) -> Result<Threshold, String> {
        match s.parse::<f64>() {
            Ok(p) if p.is_finite() && (0.0..100.0).contains(&p) => Ok(Threshold(p)),
            _ => Err(Threshold::RANGE.to_string()),
        }
    }
}

impl std::fmt::Display for Threshold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// The report folder when `--out` is not given.
pub const DEFAULT_OUT: &str = "tasklab-report";

/// `tasklab calibrate`.
#[derive(Args, Debug, Default, Clone)]
pub struct CalibrateArgs {
    #[command(flatten)]
    pub measure: MeasureArgs,

    /// How many runs (2 to 100)
    #[arg(
        long,
        default_value_t = 4,
        value_name = "N",
        allow_negative_numbers = true
    )]
    pub runs: usize,

    #[command(flatten)]
    pub pause: PauseArgs,

    /// Write the noise file to FILE [default: the private cache,
    /// ~/.cache/tasklab/noise/noise-<fingerprint>.json, where compare finds it]
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// Folder for the runs' results files (results-1.json ...)
    #[arg(long, value_name = "DIR", default_value = "tasklab-calibrate")]
    pub dir: PathBuf,

    /// Learn from these results files (runs of one machine, e.g. from `run
    /// --repeat`) instead of measuring
    #[arg(long, num_args = 1.., value_name = "FILE", conflicts_with_all = ["profile", "params", "pin", "timeout", "rounds", "seed", "pause"])]
    pub from: Vec<PathBuf>,

    /// The threshold in percent of the A/A comparisons, as for compare
    #[arg(
        long,
        default_value_t = Threshold::DEFAULT,
        value_name = "PCT",
        allow_negative_numbers = true
    )]
    pub threshold: Threshold,
}

impl RunArgs {
    /// What `tasklab` with no command runs.
    pub fn default_suite() -> RunArgs {
        RunArgs::default()
    }
}

/// What the terminal shows, and the files exported beside the report
/// folder. Each export goes to a file, or to stdout with `-` (one of them
/// at most); every destination is checked before anything is measured.
#[derive(Args, Debug, Default, Clone)]
pub struct OutputArgs {
    /// Write the results (results.json's content) to FILE, or to stdout with `-`
    #[arg(long, value_name = "FILE|-", visible_alias = "json")]
    pub export_json: Option<String>,
    /// Write every series as a CSV row to FILE, or to stdout with `-`
    #[arg(long, value_name = "FILE|-", conflicts_with = "csv")]
    pub export_csv: Option<String>,
    /// Write the report as Markdown to FILE, or to stdout with `-`
    #[arg(long, value_name = "FILE|-", conflicts_with = "markdown")]
    pub export_markdown: Option<String>,
    /// Write the figures as OpenMetrics text (node_exporter's textfile collector) to FILE, or to stdout with `-`
    #[arg(long, value_name = "FILE|-")]
    pub export_openmetrics: Option<String>,
    /// The same as --export-csv -
    #[arg(long)]
    pub csv: bool,
    /// The same as --export-markdown -
    #[arg(long)]
    pub markdown: bool,
    /// Show each experiment's table and notes, fitted to the terminal (the
    /// default when experiments are named)
    #[arg(long)]
    pub tables: bool,
    /// Show the tables with every series, also the detail ones
    #[arg(short, long)]
    pub verbose: bool,
}

/// `tasklab advise`: the workload, and where the measured costs come from.
#[derive(Args, Debug, Clone)]
#[command(
    after_help = "Every estimate names the measured figure it came from (experiment, metric, labels, value).\n\
                  Without --results, advise first measures what it needs (spawn.heap, switch.pingpong,\n\
                  switch.userspace, memory.threads; quick profile, 10 to 30 seconds).\n\
                  Example: tasklab advise --rate 2k --lifetime 20ms --heap 2GiB --switches 50k --results tasklab-report/results.json"
)]
pub struct AdviseArgs {
    /// Tasks started per second (2000, 1.5k, 2M; at most 1G)
    #[arg(
        long,
        value_name = "N",
        default_value = "1000",
        allow_hyphen_values = true
    )]
    pub rate: String,
    /// Each task's lifetime, with a unit (20ms, 500us, 2s; at most a day)
    #[arg(
        long,
        value_name = "T",
        default_value = "10ms",
        allow_hyphen_values = true
    )]
    pub lifetime: String,
    /// The parent's heap, its memory image (64M, 2GiB; at most 1 PiB)
    #[arg(
        long,
        value_name = "SIZE",
        default_value = "64MiB",
        allow_hyphen_values = true
    )]
    pub heap: String,
    /// Context switches per second across the workload: blocking hand-offs (at most 1G)
    #[arg(
        long,
        value_name = "N",
        default_value = "10k",
        allow_hyphen_values = true
    )]
    pub switches: String,
    /// Tasks alive at once [default: rate x lifetime, Little's law]
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub concurrent: Option<String>,
    /// Bytes of stack (or state) each task really uses (at most 1 GiB)
    #[arg(
        long,
        value_name = "SIZE",
        default_value = "16KiB",
        allow_hyphen_values = true
    )]
    pub stack: String,
    /// A results.json to take the costs from; without it, a fresh quick run measures them
    #[arg(long, value_name = "FILE")]
    pub results: Option<PathBuf>,
    /// Print as JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug, Default, Clone)]
pub struct PredictArgs {
    /// The process whose fork to predict (find one with `pgrep -n NAME` or `pidof NAME`)
    #[arg(long, value_name = "PID", allow_hyphen_values = true)]
    pub pid: Option<String>,
    /// The share of its anonymous memory it writes while the child lives (10%, 0.5%, 100%)
    #[arg(
        long,
        value_name = "SHARE",
        default_value = "10%",
        allow_hyphen_values = true
    )]
    pub writes: String,
    /// A results.json with spawn.heap and spawn.cow to take the slopes from; without it, a short run measures them
    #[arg(long, value_name = "FILE")]
    pub results: Option<PathBuf>,
    /// Also replay the process's own frame layout in a heap of ours and time its cold fork: then
    /// the prediction of the cold fork where it can be built (root). Costs a copy of the
    /// process's anonymous memory, checked against MemAvailable first, and some seconds (10-25 s
    /// for Redis at 113 MiB to 4.5 GiB here, and 6 s of pauses)
    #[arg(long)]
    pub replay: bool,
    /// Print as JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ProfileArg {
    #[default]
    Quick,
    Thorough,
}

#[cfg(test)]
#[path = "cli_tests.rs"]
mod tests;
