//! Quantities that more than one experiment measures. Each is shown once in
//! the report with every source beside it and a check that they agree
//! within their intervals; the Summary quotes one source for each.

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

pub const QUANTITIES: &[Quantity] = &[
    Quantity {
        name: "a same-CPU pipe switch between threads",
        sources: &[
            Source {
                experiment: "switch.pingpong",
                metric: "switch_ns",
                labels: &[("method", "pipe_threads"), ("placement", "same_cpu")],
            },
            Source {
                experiment: "switch.indirect",
                metric: "switch_ns",
                labels: &[("working_set", "0 B")],
            },
            Source {
                experiment: "switch.userspace",
                metric: "switch_ns",
                labels: &[("variant", "kernel_pipe")],
            },
        ],
    },
    Quantity {
        name: "one pipe write and read by one task (the pipe baseline)",
        sources: &[
            Source {
                experiment: "switch.pingpong",
                metric: "baseline_ns",
                labels: &[("method", "pipe_threads")],
            },
            Source {
                experiment: "switch.pingpong",
                metric: "baseline_ns",
                labels: &[("method", "pipe_processes")],
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
                labels: &[("method", "fork"), ("heap", "0 B"), ("thp", "system")],
            },
            Source {
                experiment: "spawn.methods",
                metric: "lifecycle_ns",
                labels: &[("method", "fork"), ("placement", "one_cpu")],
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
                    ("method", "pthread_create"),
                    ("heap", "0 B"),
                    ("thp", "system"),
                ],
            },
            Source {
                experiment: "spawn.methods",
                metric: "lifecycle_ns",
                labels: &[("method", "pthread_create"), ("placement", "one_cpu")],
            },
        ],
    },
];
