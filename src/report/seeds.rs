//! Every seed figure beside ours: the ratio, and where they are more than 2x
//! apart, a one-line reason drawn from what differs (virtualisation, CPU,
//! kernel, method).

use super::doc::Table;
use super::table::{case, seed_text};
use crate::results::{Metric, RunResults, SeedRef, Unit};
use crate::units::fmt_value;

/// Further apart than this (either way), a row says why.
pub const EXPLAIN_BEYOND: f64 = 2.0;

pub fn table(r: &RunResults) -> Table {
    let mut rows = Vec::new();
    for e in &r.experiments {
        for m in e.metrics.iter().filter(|m| m.seed.is_some()) {
            let s = m.seed.as_ref().expect("filtered");
            let ratio = m.seed_ratio();
            rows.push(vec![
                e.name.clone(),
                format!("{} {}", m.name, case(m)).trim().to_string(),
                fmt_value(m.summary.median, m.unit),
                seed_text(m),
                s.hardware.clone(),
                ratio.map_or(String::new(), |x| format!("{x:.2}x")),
                ratio
                    .filter(|x| *x > EXPLAIN_BEYOND || *x < 1.0 / EXPLAIN_BEYOND)
                    .map(|x| reason(r, m, s, x))
                    .unwrap_or_default(),
            ]);
        }
    }
    Table {
        head: [
            "experiment",
            "figure",
            "ours (median)",
            "seed",
            "seed's machine",
            "ours/seed",
            "why they differ",
        ]
        .map(String::from)
        .to_vec(),
        rows,
        right: vec![2, 5],
    }
}

/// The likeliest reasons a figure is `ratio` times the seed's, most
/// specific first: how the seed measured, then the machine.
pub fn reason(r: &RunResults, m: &Metric, s: &SeedRef, ratio: f64) -> String {
    let env = &r.env;
    let mut parts: Vec<String> = Vec::new();
    let more = ratio > 1.0;
    let timing = matches!(m.unit, Unit::Ns | Unit::PerSecond);
    // A rate is better when higher: "slower" means a lower rate.
    let slower = timing && (more == (m.unit == Unit::Ns));
    let method = s.method.to_lowercase();
    if timing && method.contains("single") {
        parts.push(format!(
            "method: the seed timed {}, ours is the median of warm repetitions",
            if method.contains("cold") {
                "a single cold call"
            } else {
                "single calls"
            }
        ));
    }
    if timing && method.contains("unpinned") {
        parts.push(
            "placement: unpinned, where the scheduler puts the two tasks decides the figure".into(),
        );
    }
    if slower {
        // Page tables and wake-ups are what a hypervisor slows; a copy is not.
        if let Some(v) = env
            .virtualization
            .as_ref()
            .filter(|_| !m.name.contains("copy"))
        {
            parts.push(format!(
                "virtualisation: this is a {v} guest, where page-table updates and cross-CPU wake-ups go through the hypervisor"
            ));
        }
        parts.push(format!(
            "CPU: {}{} here, {} there",
            env.cpu_model,
            r.calibration
                .measured_mhz
                .map(|m| format!(" at {m:.0} MHz"))
                .unwrap_or_default(),
            short_hw(&s.hardware)
        ));
    } else if timing {
        parts.push(format!(
            "a newer CPU and kernel: {}, Linux {} here, {} there",
            env.cpu_model,
            env.kernel,
            short_hw(&s.hardware)
        ));
    }
    if !timing {
        parts.push(match m.unit {
            Unit::Kib | Unit::Bytes => format!(
                "kernel and image: the seed's figure is {}; here Linux {} with tasklab's own process image",
                s.method, env.kernel
            ),
            Unit::Count => format!(
                "limits: the seed's machine had its own ({}); this one's are in the environment section",
                s.method
            ),
            _ => format!("method: the seed's figure is {}", s.method),
        });
    }
    let dir = if more { "higher" } else { "lower" };
    format!(
        "{:.1}x {dir}: {}",
        if more { ratio } else { 1.0 / ratio },
        parts.join("; ")
    )
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
