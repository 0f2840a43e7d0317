//! An A/B run's record (`tasklab ab`): what each side set, parsed (a SPEC:
//! `param:NAME=VALUE`, `env:NAME=VALUE`, `sysfs:PATH=VALUE`, `cpus:LIST`),
//! how its blocks ran, and the threshold its verdicts are judged at; the
//! verdicts themselves are drawn when shown. A file of schema version 2 or
//! older held the SPECs and the verdicts as text: read back here.

use crate::error::UsageError;
use serde::{Deserialize, Serialize};

/// What the two sides of an A/B run set, and how its blocks ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AbRecord {
    pub a: Vec<Spec>,
    pub b: Vec<Spec>,
    /// Blocks of one round of every series each, in the order A B B A.
    pub blocks: usize,
    /// What the verdicts are judged at; None when the run was interrupted
    /// (no verdict from part of the blocks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judged: Option<AbJudged>,
    /// The verdicts as `ab` printed them, from a file of schema version 2
    /// or older: shown as they were. Never written.
    #[serde(skip)]
    pub printed: Option<String>,
}

/// The threshold and the false discovery rate an A/B run's verdicts are
/// judged at (`--threshold`, `--fdr`), in percent.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct AbJudged {
    pub threshold_pct: f64,
    pub fdr_pct: f64,
}

/// A side's SPECs as the user would write them, space-separated.
pub fn specs_text(specs: &[Spec]) -> String {
    specs.iter().map(Spec::text).collect::<Vec<_>>().join(" ")
}

/// The sysfs and procfs names whose files set what backs memory with huge
/// pages (transparent or reserved): a SPEC writing under one changes huge
/// pages itself.
const HUGE_PAGE_FILES: &[&str] = &[
    "transparent_hugepage",
    "hugepages",
    "nr_hugepages",
    "nr_overcommit_hugepages",
    "nr_hugepages_mempolicy",
];

/// The parameter several experiments take for transparent huge pages.
const THP_PARAM: &str = "thp";

/// One change a side makes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Spec {
    /// `-p NAME=VALUE` for this side (NAME may be EXPERIMENT.NAME).
    Param { name: String, value: String },
    /// Set in the workers' environment.
    Env { name: String, value: String },
    /// Written before each of this side's blocks, restored at the end.
    Sysfs { path: String, value: String },
    /// The CPUs the workers may use (as `--pin`).
    Cpus { list: String },
    /// Whether the side's workers sample (`--why`): `cpu-clock` or `off`;
    /// an A/B run of `why:off` against `why:cpu-clock` measures what the
    /// sampling costs, paired.
    Why { event: String },
}

/// What a `why:` SPEC takes.
pub const WHY_EVENTS: &[&str] = &["cpu-clock", "off"];

/// The kinds a SPEC may have, for the error that names them.
pub const KINDS: &str =
    "param:NAME=VALUE, env:NAME=VALUE, sysfs:PATH=VALUE, cpus:LIST or why:cpu-clock|off";

fn bad(text: &str, why: impl std::fmt::Display) -> UsageError {
    UsageError(format!("ab: SPEC '{text}': {why}"))
}

impl Spec {
    /// Parses one SPEC as the user wrote it.
    pub fn parse(text: &str) -> Result<Spec, UsageError> {
        let Some((kind, rest)) = text.split_once(':') else {
            return Err(bad(text, format!("no kind: give one of {KINDS}")));
        };
        let pair = |what: &str| -> Result<(String, String), UsageError> {
            match rest.split_once('=') {
                Some((n, v)) if !n.is_empty() => Ok((n.to_string(), v.to_string())),
                _ => Err(bad(text, format!("takes {kind}:{what}=VALUE"))),
            }
        };
        match kind {
            "param" => {
                let (name, value) = pair("NAME")?;
                Ok(Spec::Param { name, value })
            }
            "env" => {
                let (name, value) = pair("NAME")?;
                let valid = name
                    .chars()
                    .next()
                    .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
                    && name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric());
                if !valid {
                    return Err(bad(text, format!("'{name}' is not a variable name")));
                }
                Ok(Spec::Env { name, value })
            }
            "sysfs" => {
                let (path, value) = pair("PATH")?;
                if value.contains('\n') {
                    return Err(bad(text, "a value is one line"));
                }
                Ok(Spec::Sysfs { path, value })
            }
            "cpus" if !rest.is_empty() => Ok(Spec::Cpus {
                list: rest.to_string(),
            }),
            "cpus" => Err(bad(text, "takes cpus:LIST (0, 0-1, 0,2)")),
            "why" if WHY_EVENTS.contains(&rest) => Ok(Spec::Why {
                event: rest.to_string(),
            }),
            "why" => Err(bad(text, "takes why:cpu-clock or why:off")),
            other => Err(bad(
                text,
                format!("unknown kind '{other}': give one of {KINDS}"),
            )),
        }
    }

    /// The SPEC as the user would write it.
    pub fn text(&self) -> String {
        match self {
            Spec::Param { name, value } => format!("param:{name}={value}"),
            Spec::Env { name, value } => format!("env:{name}={value}"),
            Spec::Sysfs { path, value } => format!("sysfs:{path}={value}"),
            Spec::Cpus { list } => format!("cpus:{list}"),
            Spec::Why { event } => format!("why:{event}"),
        }
    }

    /// What the SPEC sets, for telling the two sides' SPECs apart: two SPECs
    /// with one target set the same thing.
    pub fn target(&self) -> String {
        match self {
            Spec::Param { name, .. } => format!("param:{name}"),
            Spec::Env { name, .. } => format!("env:{name}"),
            Spec::Sysfs { path, .. } => format!("sysfs:{path}"),
            Spec::Cpus { .. } => "cpus".into(),
            Spec::Why { .. } => "why".into(),
        }
    }

    /// Whether the SPEC changes what backs memory with huge pages: then
    /// huge pages found for one side and not the other are the change
    /// itself, not a condition that spoils it.
    pub fn sets_huge_pages(&self) -> bool {
        match self {
            Spec::Param { name, .. } => name.rsplit('.').next() == Some(THP_PARAM),
            Spec::Sysfs { path, .. } => path.split('/').any(|c| HUGE_PAGE_FILES.contains(&c)),
            Spec::Env { .. } | Spec::Cpus { .. } | Spec::Why { .. } => false,
        }
    }
}

/// A file of schema version 2 or older, as JSON: its A/B record's SPECs,
/// written as text, parsed in place, and its printed verdicts taken out
/// (empty when its run was interrupted). An error names a SPEC that no
/// longer parses.
pub fn read_version_2(v: &mut serde_json::Value) -> Result<Option<String>, UsageError> {
    let Some(ab) = v.get_mut("ab").and_then(|ab| ab.as_object_mut()) else {
        return Ok(None);
    };
    for side in ["a", "b"] {
        let Some(specs) = ab.get_mut(side).and_then(|s| s.as_array_mut()) else {
            continue;
        };
        for s in specs.iter_mut() {
            if let Some(text) = s.as_str() {
                let spec = Spec::parse(text)?;
                *s = serde_json::to_value(spec).map_err(|e| UsageError(e.to_string()))?;
            }
        }
    }
    let printed = ab
        .remove("verdicts")
        .and_then(|t| t.as_str().map(String::from));
    Ok(printed.filter(|t| !t.is_empty()))
}
