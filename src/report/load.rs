//! A saved results file made ready to render, an old one upgraded: what a
//! schema-1 file lacks comes from this tasklab's registry, and every
//! file's seed pairings and directions are taken anew from its declarations.

use crate::experiments;
use crate::results::{RunResults, Status};

/// Fills in what a schema-1 file lacks; a current file is left as it is.
pub fn upgrade(r: &mut RunResults) {
    if r.groups.is_empty() {
        r.groups = experiments::group_records();
    }
    // Seed figures are comparisons, not measurements: each series is paired
    // anew by this version's declarations, so a file written before a
    // pairing was corrected is not shown against the wrong figure. The
    // direction of better is a declaration too, taken from this version
    // where it declares one.
    // A file written before the seeds were cited by name named them by
    // number ("seed 002"): each is named by its citation instead.
    let cite = experiments::seeds::cite_numbers;
    for x in &mut r.experiments {
        x.reproduces = cite(&x.reproduces);
        for t in x
            .findings
            .iter_mut()
            .chain(&mut x.notes)
            .chain(&mut x.headlines)
        {
            *t = cite(t);
        }
    }
    for x in &mut r.experiments {
        if let Some(reg) = experiments::find(&x.name) {
            for m in &mut x.metrics {
                m.seed = reg.seed_for(&m.name, &m.labels);
                m.better = reg.better_or(&m.name, &m.labels, m.better);
            }
        }
        // A clock-bound seed figure is compared scaled to this run's clock.
        crate::results::set_seed_clock(&mut x.metrics, r.calibration.measured_mhz);
    }
    if r.schema_version >= 2 {
        return;
    }
    for x in &mut r.experiments {
        let Some(reg) = experiments::find(&x.name) else {
            continue;
        };
        if x.reproduces.is_empty() {
            x.reproduces = reg.reproduces.to_string();
        }
        if x.headlines.is_empty() && x.status == Status::Ok {
            x.headlines = (reg.analyze)(x).headlines;
        }
    }
}
