//! Quantities that more than one experiment measures. Each is shown once in
//! the report with every source beside it and a check that they agree
//! within their intervals; the Summary quotes one source for each.

use super::spawn::placement::Placement;
use super::spawn::table as spawn;
use super::switch::methods as switch;

/// One place a quantity is measured: an experiment's metric with labels.
pub struct Source {
    pub experiment: &'static str,
    pub metric: &'static str,
    pub labels: &'static [(&'static str, &'static str)],
}

pub struct Quantity {
    pub name: &'static str,
    /// The first source is the one the Summary quotes.
    pub sources: &'static [Source],
}

const ONE_CPU: &str = Placement::OneCpu.choice().name;

pub const QUANTITIES: &[Quantity] = &[
    Quantity {
        name: "a same-CPU pipe switch between threads",
        sources: &[
            Source {
                experiment: "switch.pingpong",
                metric: "switch_ns",
                labels: &[
                    ("method", switch::PIPE_THREADS.choice.name),
                    ("placement", switch::SAME_CPU.choice.name),
                ],
            },
            Source {
                experiment: "switch.indirect",
                metric: "switch_ns",
                labels: &[("working_set", "0 B")],
            },
            Source {
                experiment: "switch.userspace",
                metric: "switch_ns",
                labels: &[("variant", switch::KERNEL_PIPE.choice.name)],
            },
        ],
    },
    Quantity {
        name: "one pipe write and read by one task (the pipe baseline)",
        sources: &[
            Source {
                experiment: "switch.pingpong",
                metric: "baseline_ns",
                labels: &[("method", switch::PIPE_THREADS.choice.name)],
            },
            Source {
                experiment: "switch.pingpong",
                metric: "baseline_ns",
                labels: &[("method", switch::PIPE_PROCESSES.choice.name)],
            },
        ],
    },
    Quantity {
        name: "a memcpy of 64 KiB between page-aligned buffers",
        sources: &[
            Source {
                experiment: "yardstick.memcpy",
                metric: "copy_ns",
                labels: &[("size", "64 KiB"), ("layout", "aligned")],
            },
            Source {
                experiment: "switch.pingpong",
                metric: "copy_ns",
                labels: &[("size", "64 KiB"), ("layout", "aligned")],
            },
        ],
    },
    Quantity {
        name: "a process forked and reaped, with no heap",
        sources: &[
            Source {
                experiment: "spawn.heap",
                metric: "lifecycle_ns",
                labels: &[
                    ("method", spawn::FORK.choice.name),
                    ("heap", "0 B"),
                    ("thp", "system"),
                ],
            },
            Source {
                experiment: "spawn.methods",
                metric: "lifecycle_ns",
                labels: &[("method", spawn::FORK.choice.name), ("placement", ONE_CPU)],
            },
        ],
    },
    Quantity {
        name: "a thread created and joined (pthread_create), with no heap",
        sources: &[
            Source {
                experiment: "spawn.heap",
                metric: "lifecycle_ns",
                labels: &[
                    ("method", spawn::PTHREAD_CREATE.choice.name),
                    ("heap", "0 B"),
                    ("thp", "system"),
                ],
            },
            Source {
                experiment: "spawn.methods",
                metric: "lifecycle_ns",
                labels: &[
                    ("method", spawn::PTHREAD_CREATE.choice.name),
                    ("placement", ONE_CPU),
                ],
            },
        ],
    },
];
