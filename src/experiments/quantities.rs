//! Quantities that more than one experiment measures. Each is shown once in
//! the report with every source beside it and a check that they agree
//! within their intervals; the Summary quotes one source for each.

use super::spawn::engine::LIFECYCLE_NS;
use super::spawn::heap;
use super::spawn::heap::BASE_THP;
use super::spawn::methods as spawn_methods;
use super::spawn::placement::Placement;
use super::spawn::table as spawn;
use super::switch::indirect::WORKING_SET;
use super::switch::methods as switch;
use super::switch::pingpong::BASELINE_NS;
use super::switch::series::SWITCH_NS;
use super::switch::{indirect, pingpong, userspace};
use super::yardstick::memcpy;
use crate::measure::copy::{COPY_NS, LAYOUT};
use crate::metric::key::{HEAP, METHOD, PLACEMENT, SIZE, THP, VARIANT};
use crate::metric::MetricSpec;

/// One place a quantity is measured: an experiment's metric with labels.
pub struct Source {
    pub experiment: &'static str,
    pub metric: &'static MetricSpec,
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
                experiment: pingpong::EXPERIMENT.name,
                metric: &SWITCH_NS,
                labels: &[
                    (METHOD, switch::PIPE_THREADS.choice.name),
                    (PLACEMENT, switch::SAME_CPU.choice.name),
                ],
            },
            Source {
                experiment: indirect::EXPERIMENT.name,
                metric: &SWITCH_NS,
                labels: &[(WORKING_SET, "0 B")],
            },
            Source {
                experiment: userspace::EXPERIMENT.name,
                metric: &SWITCH_NS,
                labels: &[(VARIANT, switch::KERNEL_PIPE.choice.name)],
            },
        ],
    },
    Quantity {
        name: "one pipe write and read by one task (the pipe baseline)",
        sources: &[
            Source {
                experiment: pingpong::EXPERIMENT.name,
                metric: &BASELINE_NS,
                labels: &[(METHOD, switch::PIPE_THREADS.choice.name)],
            },
            Source {
                experiment: pingpong::EXPERIMENT.name,
                metric: &BASELINE_NS,
                labels: &[(METHOD, switch::PIPE_PROCESSES.choice.name)],
            },
        ],
    },
    Quantity {
        name: "a memcpy of 64 KiB between page-aligned buffers",
        sources: &[
            Source {
                experiment: memcpy::EXPERIMENT.name,
                metric: &COPY_NS,
                labels: &[(SIZE, "64 KiB"), (LAYOUT, "aligned")],
            },
            Source {
                experiment: pingpong::EXPERIMENT.name,
                metric: &COPY_NS,
                labels: &[(SIZE, "64 KiB"), (LAYOUT, "aligned")],
            },
        ],
    },
    Quantity {
        name: "a process forked and reaped, with no heap",
        sources: &[
            Source {
                experiment: heap::EXPERIMENT.name,
                metric: &LIFECYCLE_NS,
                labels: &[
                    (METHOD, spawn::FORK.choice.name),
                    (HEAP, "0 B"),
                    (THP, BASE_THP),
                ],
            },
            Source {
                experiment: spawn_methods::EXPERIMENT.name,
                metric: &LIFECYCLE_NS,
                labels: &[(METHOD, spawn::FORK.choice.name), (PLACEMENT, ONE_CPU)],
            },
        ],
    },
    Quantity {
        name: "a thread created and joined (pthread_create), with no heap",
        sources: &[
            Source {
                experiment: heap::EXPERIMENT.name,
                metric: &LIFECYCLE_NS,
                labels: &[
                    (METHOD, spawn::PTHREAD_CREATE.choice.name),
                    (HEAP, "0 B"),
                    (THP, BASE_THP),
                ],
            },
            Source {
                experiment: spawn_methods::EXPERIMENT.name,
                metric: &LIFECYCLE_NS,
                labels: &[
                    (METHOD, spawn::PTHREAD_CREATE.choice.name),
                    (PLACEMENT, ONE_CPU),
                ],
            },
        ],
    },
];
