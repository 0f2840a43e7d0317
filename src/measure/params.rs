//! Typed experiment parameters with bounds: one table per experiment feeds
//! the parser, `tasklab list` and the error messages. Each parameter is a
//! [`Param`] constant, read back through it with [`Params::get`] as its own
//! type: no parameter is read by its name.

use super::sizing::Profile;
use crate::units::{fmt_size, group_digits, parse_count, parse_size};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::marker::PhantomData;

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
    /// A comma-separated subset of the names in a method or variant table
    /// (`all` for every one).
    Names(&'static [Choice]),
}

/// One row of a method or variant table: what `-p methods=` accepts, what
/// `tasklab list` prints, and what the experiment dispatches on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    pub name: &'static str,
    /// What it is, in a line.
    pub about: &'static str,
    /// What the machine needs for it ("" when nothing beyond Linux).
    pub needs: &'static str,
}

impl Choice {
    pub const fn new(name: &'static str, about: &'static str) -> Choice {
        Choice {
            name,
            about,
            needs: "",
        }
    }

    pub const fn needing(self, needs: &'static str) -> Choice {
        Choice { needs, ..self }
    }
}

/// The names of a table, in its order.
pub fn names(table: &[Choice]) -> Vec<&'static str> {
    table.iter().map(|c| c.name).collect()
}

/// A row of a method or variant table: a [`Choice`] plus whatever the
/// experiment dispatches on. Every table is searched by the one [`find`].
pub trait Row: 'static {
    /// What `-p` accepts and `tasklab list` prints for this row.
    fn choice(&self) -> Choice;

    /// Its name in `-p`, in labels and in `tasklab list`.
    fn name(&self) -> &'static str {
        self.choice().name
    }
}

impl Row for Choice {
    fn choice(&self) -> Choice {
        *self
    }
}

/// The row of `table` called `name`.
pub fn find<R: Row>(table: &'static [R], name: &str) -> Option<&'static R> {
    table.iter().find(|r| r.name() == name)
}

/// The `Choice` column of a table whose rows carry one in `.choice`, as a
/// `&'static [Choice]` built at compile time (what `ParamKind::Names`
/// takes), so no name is written twice.
macro_rules! choice_column {
    ($rows:expr) => {{
        const N: usize = $rows.len();
        const COLUMN: [$crate::measure::params::Choice; N] = {
            let mut out = [$crate::measure::params::Choice::new("", ""); N];
            let mut i = 0;
            while i < N {
                out[i] = $rows[i].choice;
                i += 1;
            }
            out
        };
        &COLUMN
    }};
}
pub(crate) use choice_column;

/// The one rule for a boolean parameter, in `tasklab list` and errors.
pub const BOOL_WORDS: &str = "true or false (also yes/no, on/off, 1/0; any case)";

/// A boolean: true/yes/on/1 or false/no/off/0, in any case.
pub fn parse_bool(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "1" => Some(true),
        "false" | "no" | "off" | "0" => Some(false),
        _ => None,
    }
}

/// One row of an experiment's parameter table: what `-p` accepts, what
/// `tasklab list` prints. Declared inside a typed [`Param`] constant.
#[derive(Clone, Copy, Debug)]
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

    /// What values are valid, in plain words, for error messages and
    /// `tasklab list`: "a list of sizes, each 1 B to 1 GiB".
    pub fn range(&self) -> String {
        let n = |v: u64| i64::try_from(v).map_or_else(|_| v.to_string(), group_digits);
        match self.kind {
            ParamKind::Count { min, max } => format!("a whole number, {} to {}", n(min), n(max)),
            ParamKind::CountList { min, max } => {
                format!("a list of whole numbers, each {} to {}", n(min), n(max))
            }
            ParamKind::Size { min, max } => {
                format!("a size, {} to {}", fmt_size(min), fmt_size(max))
            }
            ParamKind::SizeList { min, max } => {
                format!(
                    "a list of sizes, each {} to {}",
                    fmt_size(min),
                    fmt_size(max)
                )
            }
            ParamKind::Bool => BOOL_WORDS.into(),
            ParamKind::Choice(c) => format!("one of {}", c.join(", ")),
            ParamKind::Names(c) => format!("all, or a list of {}", names(c).join(", ")),
        }
    }

    /// The bounds of a number or size (each item's, for a list), for
    /// `list --json`.
    pub fn bounds(&self) -> Option<(u64, u64)> {
        match self.kind {
            ParamKind::Count { min, max }
            | ParamKind::CountList { min, max }
            | ParamKind::Size { min, max }
            | ParamKind::SizeList { min, max } => Some((min, max)),
            ParamKind::Bool | ParamKind::Choice(_) | ParamKind::Names(_) => None,
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
                let show = |x: u64| {
                    if size {
                        fmt_size(x)
                    } else {
                        i64::try_from(x).map_or_else(|_| x.to_string(), group_digits)
                    }
                };
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
            ParamKind::Bool => parse_bool(text)
                .map(ParamValue::Bool)
                .ok_or_else(|| bad("not a boolean".into())),
            ParamKind::Names(table) => {
                let names = names(table);
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

/// A parameter declared once, as a constant whose type is what it reads
/// back as: `u64` for a count or a size, `Vec<u64>` for a list of them,
/// `bool`, `String` for a choice, `Vec<String>` for names from a table.
/// Its constructor checks, when the crate compiles, that the kind of its
/// [`ParamSpec`] reads back as that type. The experiment's table lists
/// `X.spec`; its code reads `params.get(&X)`.
#[derive(Clone, Copy, Debug)]
pub struct Param<T> {
    pub spec: ParamSpec,
    ty: PhantomData<fn() -> T>,
}

impl<T> Param<T> {
    const fn of(spec: ParamSpec) -> Param<T> {
        Param {
            spec,
            ty: PhantomData,
        }
    }

    /// Its name in `-p`, in results.json and in `tasklab list`.
    pub const fn name(&self) -> &'static str {
        self.spec.name
    }
}

impl Param<u64> {
    /// A whole number or a size.
    pub const fn number(spec: ParamSpec) -> Param<u64> {
        assert!(
            matches!(spec.kind, ParamKind::Count { .. } | ParamKind::Size { .. }),
            "Param::number takes a Count or a Size"
        );
        Param::of(spec)
    }
}

impl Param<Vec<u64>> {
    /// A list of whole numbers or of sizes.
    pub const fn numbers(spec: ParamSpec) -> Param<Vec<u64>> {
        assert!(
            matches!(
                spec.kind,
                ParamKind::CountList { .. } | ParamKind::SizeList { .. }
            ),
            "Param::numbers takes a CountList or a SizeList"
        );
        Param::of(spec)
    }
}

impl Param<bool> {
    pub const fn flag(spec: ParamSpec) -> Param<bool> {
        assert!(
            matches!(spec.kind, ParamKind::Bool),
            "Param::flag takes a Bool"
        );
        Param::of(spec)
    }
}

impl Param<String> {
    /// One of a fixed list of words.
    pub const fn choice(spec: ParamSpec) -> Param<String> {
        assert!(
            matches!(spec.kind, ParamKind::Choice(_)),
            "Param::choice takes a Choice"
        );
        Param::of(spec)
    }
}

impl Param<Vec<String>> {
    /// A subset of the names in a method or variant table.
    pub const fn names(spec: ParamSpec) -> Param<Vec<String>> {
        assert!(
            matches!(spec.kind, ParamKind::Names(_)),
            "Param::names takes Names"
        );
        Param::of(spec)
    }
}

/// A Rust type a parameter reads back as, and is preset as.
pub trait ParamType: Sized + Default {
    fn read(v: &ParamValue) -> Option<Self>;
    fn value(self) -> ParamValue;
}

impl ParamType for u64 {
    fn read(v: &ParamValue) -> Option<u64> {
        match v {
            ParamValue::Int(n) => Some(*n),
            _ => None,
        }
    }
    fn value(self) -> ParamValue {
        ParamValue::Int(self)
    }
}

impl ParamType for Vec<u64> {
    fn read(v: &ParamValue) -> Option<Vec<u64>> {
        match v {
            ParamValue::List(l) => Some(l.clone()),
            ParamValue::Int(n) => Some(vec![*n]),
            _ => None,
        }
    }
    fn value(self) -> ParamValue {
        ParamValue::List(self)
    }
}

impl ParamType for bool {
    fn read(v: &ParamValue) -> Option<bool> {
        match v {
            ParamValue::Bool(b) => Some(*b),
            _ => None,
        }
    }
    fn value(self) -> ParamValue {
        ParamValue::Bool(self)
    }
}

impl ParamType for String {
    fn read(v: &ParamValue) -> Option<String> {
        match v {
            ParamValue::Text(t) => Some(t.clone()),
            _ => None,
        }
    }
    fn value(self) -> ParamValue {
        ParamValue::Text(self)
    }
}

impl ParamType for Vec<String> {
    fn read(v: &ParamValue) -> Option<Vec<String>> {
        match v {
            ParamValue::Names(n) => Some(n.clone()),
            _ => None,
        }
    }
    fn value(self) -> ParamValue {
        ParamValue::Names(self)
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

    /// The value of `param`, as its type. Values resolved from the
    /// experiment's own table always hold it; a parameter of another table
    /// reads as its quick default.
    pub fn get<T: ParamType>(&self, param: &Param<T>) -> T {
        let spec = &param.spec;
        self.0
            .get(spec.name)
            .and_then(T::read)
            .or_else(|| spec.parse(spec.quick).ok().as_ref().and_then(T::read))
            .unwrap_or_default()
    }

    pub fn to_json(&self) -> BTreeMap<String, serde_json::Value> {
        self.0
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::to_value(v).unwrap_or_default()))
            .collect()
    }
}

#[cfg(test)]
#[path = "params_tests.rs"]
mod tests;
