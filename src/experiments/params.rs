//! Typed experiment parameters with bounds: one table per experiment feeds
//! the parser, `tasklab list` and the error messages.

use super::Profile;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug)]
pub enum ParamKind {
    /// A whole number in [min, max].
    Count {
        min: u64,
        max: u64,
    },
    /// A byte size such as `64M` or `4GiB`, in [min, max].
    Size {
        min: u64,
        max: u64,
    },
    /// A comma-separated list of sizes, each in [min, max].
    SizeList {
        min: u64,
        max: u64,
    },
    /// A comma-separated list of whole numbers, each in [min, max].
    CountList {
        min: u64,
        max: u64,
    },
    Bool,
    Choice(&'static [&'static str]),
    /// A comma-separated subset of the names given (`all` for every one).
    Names(&'static [&'static str]),
}

pub struct ParamSpec {
    pub name: &'static str,
    pub help: &'static str,
    pub kind: ParamKind,
    pub quick: &'static str,
    pub thorough: &'static str,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ParamValue {
    Bool(bool),
    Int(u64),
    List(Vec<u64>),
    Text(String),
    Names(Vec<String>),
}

impl ParamSpec {
    pub fn default_for(&self, profile: Profile) -> &'static str {
        match profile {
            Profile::Quick => self.quick,
            Profile::Thorough => self.thorough,
        }
    }

    /// What values are valid, for error messages and `tasklab list`.
    pub fn range(&self) -> String {
        match self.kind {
            ParamKind::Count { min, max } => format!("{min}..={max}"),
            ParamKind::CountList { min, max } => format!("list of {min}..={max}"),
            ParamKind::Size { min, max } => format!("{}..={}", fmt_size(min), fmt_size(max)),
            ParamKind::SizeList { min, max } => {
                format!("list of {}..={}", fmt_size(min), fmt_size(max))
            }
            ParamKind::Bool => "true|false".into(),
            ParamKind::Choice(c) => c.join("|"),
            ParamKind::Names(c) => format!("all, or a list of {}", c.join(",")),
        }
    }

    pub fn parse(&self, text: &str) -> Result<ParamValue, String> {
        let bad = |why: String| {
            format!(
                "bad value '{text}' for {}: {why} (valid: {})",
                self.name,
                self.range()
            )
        };
        let within = |v: u64, min: u64, max: u64, size: bool| {
            if v < min || v > max {
                let show = |x| if size { fmt_size(x) } else { x.to_string() };
                Err(bad(format!("{} is out of range", show(v))))
            } else {
                Ok(v)
            }
        };
        match self.kind {
            ParamKind::Count { min, max } => {
                let v = parse_count(text).map_err(bad)?;
                within(v, min, max, false).map(ParamValue::Int)
            }
            ParamKind::Size { min, max } => {
                let v = parse_size(text).map_err(bad)?;
                within(v, min, max, true).map(ParamValue::Int)
            }
            ParamKind::SizeList { min, max } | ParamKind::CountList { min, max } => {
                let size = matches!(self.kind, ParamKind::SizeList { .. });
                let mut out = Vec::new();
                for part in text.split(',') {
                    let v = if size {
                        parse_size(part)
                    } else {
                        parse_count(part)
                    }
                    .map_err(bad)?;
                    out.push(within(v, min, max, size)?);
                }
                Ok(ParamValue::List(out))
            }
            ParamKind::Bool => match text.trim() {
                "true" | "yes" | "on" | "1" => Ok(ParamValue::Bool(true)),
                "false" | "no" | "off" | "0" => Ok(ParamValue::Bool(false)),
                _ => Err(bad("not a boolean".into())),
            },
            ParamKind::Names(names) => {
                if text.trim() == "all" {
                    return Ok(ParamValue::Names(
                        names.iter().map(|n| n.to_string()).collect(),
                    ));
                }
                let mut out = Vec::new();
                for part in text.split(',').map(str::trim) {
                    if !names.contains(&part) {
                        return Err(bad(format!("'{part}' is not one of them")));
                    }
                    if !out.iter().any(|o| o == part) {
                        out.push(part.to_string());
                    }
                }
                Ok(ParamValue::Names(out))
            }
            ParamKind::Choice(choices) => {
                let t = text.trim();
                if choices.contains(&t) {
                    Ok(ParamValue::Text(t.into()))
                } else {
                    Err(bad("not one of the choices".into()))
                }
            }
        }
    }
}

/// An experiment's parameter values, defaults filled in.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Params(pub BTreeMap<String, ParamValue>);

impl Params {
    /// Defaults for `profile`, overridden by `overrides` (name, text).
    pub fn resolve(
        specs: &[ParamSpec],
        profile: Profile,
        overrides: &[(String, String)],
    ) -> Result<Params, String> {
        let mut map = BTreeMap::new();
        for s in specs {
            let text = overrides
                .iter()
                .rev()
                .find(|(n, _)| n == s.name)
                .map(|(_, v)| v.as_str())
                .unwrap_or(s.default_for(profile));
            map.insert(s.name.to_string(), s.parse(text)?);
        }
        Ok(Params(map))
    }

    pub fn int(&self, name: &str) -> u64 {
        match self.0.get(name) {
            Some(ParamValue::Int(v)) => *v,
            other => panic!("parameter {name} is not a number: {other:?}"),
        }
    }

    pub fn list(&self, name: &str) -> Vec<u64> {
        match self.0.get(name) {
            Some(ParamValue::List(v)) => v.clone(),
            Some(ParamValue::Int(v)) => vec![*v],
            other => panic!("parameter {name} is not a list: {other:?}"),
        }
    }

    pub fn flag(&self, name: &str) -> bool {
        match self.0.get(name) {
            Some(ParamValue::Bool(v)) => *v,
            other => panic!("parameter {name} is not a boolean: {other:?}"),
        }
    }

    pub fn text(&self, name: &str) -> &str {
        match self.0.get(name) {
            Some(ParamValue::Text(v)) => v,
            other => panic!("parameter {name} is not text: {other:?}"),
        }
    }

    pub fn names(&self, name: &str) -> Vec<String> {
        match self.0.get(name) {
            Some(ParamValue::Names(v)) => v.clone(),
            other => panic!("parameter {name} is not a list of names: {other:?}"),
        }
    }

    pub fn to_json(&self) -> BTreeMap<String, serde_json::Value> {
        self.0
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::to_value(v).unwrap_or_default()))
            .collect()
    }
}

fn parse_count(text: &str) -> Result<u64, String> {
    let t = text.trim().replace('_', "");
    t.parse::<u64>().map_err(|_| "not a whole number".into())
}

/// Parses `0`, `4096`, `64K`, `2M`, `2MiB`, `4G`, `1.5GiB` (binary units).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let num: f64 = num
        .parse()
        .map_err(|_| "not a size (try 64M or 4GiB)".to_string())?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        other => return Err(format!("unknown size unit '{other}' (use K, M, G or T)")),
    };
    let bytes = num * mult as f64;
    if !bytes.is_finite() || bytes >= u64::MAX as f64 {
        return Err("size too large".into());
    }
    Ok(bytes.round() as u64)
}

/// `2097152` -> `2 MiB`; exact binary units where they fit, else one decimal.
pub fn fmt_size(bytes: u64) -> String {
    const UNITS: [(&str, u64); 4] = [
        ("TiB", 1 << 40),
        ("GiB", 1 << 30),
        ("MiB", 1 << 20),
        ("KiB", 1 << 10),
    ];
    for (name, mult) in UNITS {
        if bytes >= mult {
            return if bytes.is_multiple_of(mult) {
                format!("{} {name}", bytes / mult)
            } else {
                format!("{:.1} {name}", bytes as f64 / mult as f64)
            };
        }
    }
    format!("{bytes} B")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_in_binary_units() {
        assert_eq!(parse_size("0"), Ok(0));
        assert_eq!(parse_size("2M"), Ok(2 << 20));
        assert_eq!(parse_size("2MiB"), Ok(2 << 20));
        assert_eq!(parse_size("4g"), Ok(4 << 30));
        assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("12Q").is_err());
        assert!(parse_size("").is_err());
    }

    #[test]
    fn sizes_format_back() {
        assert_eq!(fmt_size(0), "0 B");
        assert_eq!(fmt_size(2 << 20), "2 MiB");
        assert_eq!(fmt_size(4 << 30), "4 GiB");
        assert_eq!(fmt_size(1536), "1.5 KiB");
    }

    #[test]
    fn bounds_are_enforced_with_the_valid_range_named() {
        let spec = ParamSpec {
            name: "heap",
            help: "",
            kind: ParamKind::SizeList {
                min: 0,
                max: 1 << 30,
            },
            quick: "0",
            thorough: "0",
        };
        assert_eq!(spec.parse("0,2M"), Ok(ParamValue::List(vec![0, 2 << 20])));
        let err = spec.parse("2G").unwrap_err();
        assert!(
            err.contains("out of range") && err.contains("1 GiB"),
            "{err}"
        );
        assert!(spec.parse("2M,x").is_err());
    }

    #[test]
    fn names_are_checked_against_the_choices() {
        let spec = ParamSpec {
            name: "methods",
            help: "",
            kind: ParamKind::Names(&["fork", "vfork"]),
            quick: "all",
            thorough: "all",
        };
        assert_eq!(
            spec.parse("all"),
            Ok(ParamValue::Names(vec!["fork".into(), "vfork".into()]))
        );
        assert_eq!(
            spec.parse("vfork, vfork"),
            Ok(ParamValue::Names(vec!["vfork".into()]))
        );
        let err = spec.parse("fork,spoon").unwrap_err();
        assert!(err.contains("spoon") && err.contains("fork,vfork"), "{err}");
    }

    #[test]
    fn overrides_win_over_defaults() {
        let specs = [ParamSpec {
            name: "n",
            help: "",
            kind: ParamKind::Count { min: 1, max: 10 },
            quick: "3",
            thorough: "9",
        }];
        let p = Params::resolve(&specs, Profile::Quick, &[]).unwrap();
        assert_eq!(p.int("n"), 3);
        let p = Params::resolve(&specs, Profile::Thorough, &[]).unwrap();
        assert_eq!(p.int("n"), 9);
        let p = Params::resolve(&specs, Profile::Quick, &[("n".into(), "5".into())]).unwrap();
        assert_eq!(p.int("n"), 5);
        assert!(Params::resolve(&specs, Profile::Quick, &[("n".into(), "11".into())]).is_err());
    }
}
