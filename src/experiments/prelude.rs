//! What every experiment file imports, and nothing from above the
//! experiments floor.

pub use super::headline::Headline;
pub use super::seeds::{
    cite_short, BENDERSKY_COPY_LAYOUT, BENDERSKY_HW, SEED_CLONE, SEED_FORK, SEED_FORK_HW,
    SEED_SWITCH, SEED_SYSEL, SYSEL_BASE_MHZ, SYSEL_HW, SYSEL_SWEEP, SYSEL_TURBO_MHZ,
};
pub use super::spec::{Analysis, Beside, Experiment, Helper, PlanCtx, Points, SeedFigure};
pub use crate::env::Env;
pub use crate::measure::params::{find, names, Choice, Param, ParamKind, ParamSpec, Params, Row};
pub use crate::measure::protocol::{labels, Job, WorkerOutput};
pub use crate::metric::{Direction, Kind, LabelKey, MetricSpec};
pub use crate::results::{
    Better, ExperimentResult, Labels, Metric, NamedFit, Reading, SeedStat, Unit,
};
pub use crate::stats::compare_text::{
    amount, apart, bounds_nothing, compare, compare_shown, difference, figure, fmt_delta,
    fmt_ratio, order, quoted, ratio_text, share, share_text, shown, summary_bounds, summary_ratio,
    versus, Difference, Order, Share,
};
pub use crate::stats::contrast;
pub use crate::stats::Summary;
pub use crate::units::{fmt_ns, fmt_size, fmt_value, group_digits};
