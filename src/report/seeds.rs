//! Every seed figure beside ours: the ratio, and where they are more than 2x
//! apart, a one-line reason drawn from what differs (virtualisation, CPU,
//! kernel, method).

use super::doc::Table;
use super::table::{case, seed_text};
use crate::results::{Metric, RunResults, SeedCompare, Unit};
use crate::units::fmt_value;

/// Further apart than this (either way), a row says why.
pub const EXPLAIN_BEYOND: f64 = 2.0;

pub fn table(r: &RunResults) -> Table {
    let mut rows = Vec::new();
    for e in &r.experiments {
        for m in e.metrics.iter().filter(|m| m.seed.is_some()) {
            let s = m.seed.as_ref().expect("filtered");
            let ours = m.seed_ours().unwrap_or(m.summary.median);
            let why = match m.seed_compare() {
                Some(SeedCompare::Ratio(x))
                    if !(1.0 / EXPLAIN_BEYOND..=EXPLAIN_BEYOND).contains(&x) =>
                {
                    reason(r, m, x)
                }
                Some(SeedCompare::Unlike(why)) => why,
                _ => String::new(),
            };
            rows.push(vec![
                e.name.clone(),
                format!("{} {}", m.name, case(m)).trim().to_string(),
                format!("{} ({})", fmt_value(ours, m.unit), s.statistic.word()),
                seed_text(m),
                s.hardware.clone(),
                m.seed_compare_text(),
                why,
            ]);
        }
    }
    Table {
        head: [
            "experiment",
            "figure",
            "ours (same statistic)",
            "seed",
            "seed's machine",
            "ours/seed",
            "likely causes (from this machine's recorded facts)",
        ]
        .map(String::from)
        .to_vec(),
        rows,
        right: vec![2, 5],
    }
}

/// The likely causes of a figure `ratio` times the seed's, drawn from what
/// this run recorded and chosen by what the figure measures: page tables
/// and first touches for creation and memory, wake-ups for hand-offs,
/// the clock and the CPU for the rest.
pub fn reason(r: &RunResults, m: &Metric, ratio: f64) -> String {
    let env = &r.env;
    let mut parts: Vec<String> = Vec::new();
    let timing = matches!(m.unit, Unit::Ns | Unit::PerSecond);
    let slower = timing && ((ratio > 1.0) == (m.unit == Unit::Ns));
    let kind = quantity(m);
    let guest = env.virtualization.as_deref();
    if slower {
        match (kind, guest) {
            (Kind::PageTables, Some(v)) => {
                parts.push(format!(
                    "a {v} guest: with nested paging a TLB miss walks two levels of page tables"
                ));
                if let Some(b) = env.facts.balloon.first() {
                    parts.push(format!(
                        "{b}: memory handed back to the host faults in the host again on first touch"
                    ));
                }
                if !env.facts.pcid {
                    parts.push(
                        "no PCID: each switch of address space (a fork's child, an exec) flushes the whole TLB".into(),
                    );
                }
            }
            (Kind::WakeUp, Some(v)) => {
                let idle = env.facts.cpuidle.as_ref().and_then(|c| c.driver.clone());
                parts.push(format!(
                    "a {v} guest{}: an idle vCPU halts into the hypervisor, so a wake-up costs an inter-processor interrupt through the host and a VM entry",
                    idle.map(|d| format!(" (cpuidle driver {d})")).unwrap_or_default()
                ));
            }
            (Kind::WakeUp, None) => parts.push(
                "wake-ups: an idle CPU must leave its idle state before the woken task runs".into(),
            ),
            _ => {}
        }
        let mitigated = env
            .mitigations
            .iter()
            .filter(|(_, v)| v.starts_with("Mitigation"))
            .count();
        if kind != Kind::Copy && mitigated > 0 {
            parts.push(format!(
                "{mitigated} CPU vulnerability mitigations active here (each kernel entry pays for some)"
            ));
        }
    }
    if timing {
        parts.push(format!(
            "CPU: {}{} here, {} there",
            env.cpu_model,
            r.calibration
                .measured_mhz
                .map(|m| format!(" at {m:.0} MHz"))
                .unwrap_or_default(),
            short_hw(m.seed.as_ref().map_or("", |s| s.hardware.as_str()))
        ));
    } else {
        parts.push(format!(
            "Linux {} here with tasklab's own process image; the seed's machine and program were smaller",
            env.kernel
        ));
    }
    let more = ratio > 1.0;
    format!(
        "{:.1}x {}: {}",
        if more { ratio } else { 1.0 / ratio },
        if more { "higher" } else { "lower" },
        parts.join("; ")
    )
}

/// What a seed figure measures, for picking its likely causes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Creation and address-space work: fork, exec, faults.
    PageTables,
    /// A hand-off between tasks that may wake another CPU.
    WakeUp,
    /// A plain memory copy.
    Copy,
    Other,
}

fn quantity(m: &Metric) -> Kind {
    let placement = m.label("placement").unwrap_or("");
    if m.name.contains("copy") {
        Kind::Copy
    } else if m.name.contains("switch")
        || m.name.contains("iterations")
        || m.name.contains("round_trip")
    {
        if placement.contains("same") || placement == "one_cpu" {
            Kind::Other
        } else {
            Kind::WakeUp
        }
    } else if m.name.contains("lifecycle")
        || m.name.contains("return")
        || m.name.contains("start")
        || m.name.contains("fault")
    {
        Kind::PageTables
    } else {
        Kind::Other
    }
}

/// "Intel Core i7-4771 (Haswell), 2018" -> "i7-4771": the model people know.
pub fn short_hw(hw: &str) -> String {
    let first = hw.split([',', ';', '(']).next().unwrap_or(hw).trim();
    first
        .split_whitespace()
        .rev()
        .find(|w| w.chars().any(|c| c.is_ascii_digit()))
        .unwrap_or(first)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::short_hw;
    use crate::results::{Metric, SeedCompare, SeedRef, SeedStat};

    fn with_seed(
        v: &[f64],
        call: Option<&str>,
        lo: f64,
        hi: f64,
        stat: SeedStat,
        cold: bool,
    ) -> Metric {
        let mut pairs = vec![("method", "fork")];
        if let Some(c) = call {
            pairs.push(("call", c));
        }
        let mut m = crate::experiments::testing::metric("parent_return_ns", &pairs, v);
        m.seed = Some(SeedRef {
            lo,
            hi,
            unit: crate::results::Unit::Ns,
            source: "004_x.txt".into(),
            hardware: "a laptop".into(),
            method: "single call".into(),
            statistic: stat,
            cold,
        });
        m
    }

    #[test]
    fn a_figure_inside_the_seeds_range_is_within_and_outside_is_the_ratio_to_the_nearer_edge() {
        let first = Some("first");
        let m = with_seed(
            &[50e3, 60e3, 70e3],
            first,
            34e3,
            94e3,
            SeedStat::Single,
            true,
        );
        assert_eq!(m.seed_compare(), Some(SeedCompare::Within));
        assert_eq!(m.seed_compare_text(), "within");
        let m = with_seed(
            &[180e3, 188e3, 190e3],
            first,
            34e3,
            94e3,
            SeedStat::Single,
            true,
        );
        assert_eq!(m.seed_compare_text(), "2.00x");
        let m = with_seed(
            &[17e3, 17e3, 17e3],
            first,
            34e3,
            94e3,
            SeedStat::Single,
            true,
        );
        assert_eq!(m.seed_compare_text(), "0.50x");
    }

    #[test]
    fn a_warm_series_is_never_compared_with_a_cold_seed_and_no_ratio_is_negative() {
        let m = with_seed(
            &[50e3, 60e3, 70e3],
            None,
            34e3,
            94e3,
            SeedStat::Single,
            true,
        );
        assert!(matches!(m.seed_compare(), Some(SeedCompare::Unlike(_))));
        assert_eq!(m.seed_ratio(), None);
        let m = with_seed(
            &[-5.0, -4.0, -3.0],
            None,
            10.0,
            10.0,
            SeedStat::Median,
            false,
        );
        assert!(matches!(m.seed_compare(), Some(SeedCompare::Unlike(_))));
        assert_eq!(m.seed_compare_text(), "not compared");
    }

    #[test]
    fn a_mean_seed_is_compared_with_our_mean_and_a_minimum_with_our_minimum() {
        let m = with_seed(&[10.0, 10.0, 40.0], None, 10.0, 10.0, SeedStat::Mean, false);
        assert_eq!(m.seed_ours(), Some(20.0));
        let m = with_seed(&[10.0, 20.0, 40.0], None, 5.0, 5.0, SeedStat::Min, false);
        assert_eq!(m.seed_ours(), Some(10.0));
    }

    #[test]
    fn hardware_is_shortened_to_the_model() {
        assert_eq!(short_hw("Intel Core i7-4771 (Haswell), 2018"), "i7-4771");
        assert_eq!(
            short_hw("Intel Core i7-1065G7, 1.3-3.9 GHz, Ubuntu 20.04, Linux 5.4"),
            "i7-1065G7"
        );
        assert_eq!(short_hw("a laptop"), "a laptop");
    }
}
