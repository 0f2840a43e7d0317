//! Yardsticks: what reading a clock, a bare system call and a memcpy cost
//! here. The seeds use them to put creation and switch times in proportion
//! (Sysel §4, seed 004: clock_gettime ≈ 94 ns, chrono ≈ 110 ns; Bendersky,
//! seed 000: memcpy of 64 KiB ≈ 3 µs, of 2 MB ≈ 60 µs).

pub mod memcpy;
pub mod syscall;
pub mod timer;

use crate::metric::{Kind, LabelKey, MetricSpec};
use crate::units::{Better, Unit};

/// One call of a clock (yardstick.timer) or of a bare system call
/// (yardstick.syscall), the loop's own overhead taken off.
pub const CALL_NS: MetricSpec = MetricSpec::new(
    "call_ns",
    Unit::Ns,
    Better::Lower,
    Kind::Other,
    "one call: a clock read (`clock`) or a bare system call (`call`), loop overhead taken off",
);

/// The seed's empty timed region (Sysel §4.1-4.2, yardstick.timer): two
/// clock reads in a row and their difference, in a process just started
/// (`call=first`: the first two reads it ever makes) and right after
/// (`call=second`): one value of each per fresh process.
pub const REGION_NS: MetricSpec = MetricSpec::new(
    "region_ns",
    Unit::Ns,
    Better::Lower,
    Kind::Other,
    "an empty timed region: the difference of two clock reads in a row (`clock`), the first two in a fresh process (`call=first`) and the next two (`call=second`)",
);

/// Which clock was read, and which system call was made.
pub const CLOCK: LabelKey = "clock";
pub use crate::metric::key::CALL;
