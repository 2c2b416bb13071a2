use indexmap::IndexMap;
use std::borrow::Cow;

use serde::{Deserialize, Serialize};

/// An ordered mapping from keys to [`Value`]s, in the order the keys were written.
pub type Mapping = IndexMap<String, Value>;

/// A frontmatter value, typed as a YAML 1.2 core-schema parser types it.
///
/// Plain scalars are resolved (`true` is a [`Value::Bool`], `42` an [`Value::Integer`], `~` or
/// nothing at all [`Value::Null`]); quoted and block scalars are always strings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum Value {
    /// `null`, `~`, or an empty value.
    Null,
    /// `true` or `false` (any of YAML's three capitalisations).
    Bool(bool),
    /// A decimal, `0o` octal or `0x` hexadecimal integer that fits in an `i64`.
    Integer(i64),
    /// A floating-point number, including `.inf` and `.nan`.
    Float(f64),
    /// Any other scalar.
    String(String),
    /// A block (`- a`) or flow (`[a, b]`) sequence.
    Sequence(Vec<Value>),
    /// A block or flow (`{k: v}`) mapping.
    Mapping(Mapping),
}

impl Value {
    /// The value as a string slice, when it is a [`Value::String`].
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(text) => Some(text),
            _ => None,
        }
    }

    /// The text of a scalar as a person would write it (`true`, `42`, `1.0`, the string itself);
    /// `None` for null, a sequence or a mapping.
    ///
    /// # Example
    /// ```
    /// use skillful_core::Value;
    /// assert_eq!(Value::Float(1.0).scalar_text().unwrap(), "1.0");
    /// assert_eq!(Value::Integer(7).scalar_text().unwrap(), "7");
    /// assert_eq!(Value::Null.scalar_text(), None);
    /// ```
    pub fn scalar_text(&self) -> Option<Cow<'_, str>> {
        match self {
            Value::String(text) => Some(Cow::Borrowed(text)),
            Value::Bool(flag) => Some(Cow::Borrowed(if *flag { "true" } else { "false" })),
            Value::Integer(number) => Some(Cow::Owned(number.to_string())),
            Value::Float(number) => Some(Cow::Owned(float_text(*number))),
            Value::Null | Value::Sequence(_) | Value::Mapping(_) => None,
        }
    }

    /// A short English name of the value's kind, for messages ("a string", "a mapping").
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Integer(_) => "an integer",
            Value::Float(_) => "a number",
            Value::String(_) => "a string",
            Value::Sequence(_) => "a sequence",
            Value::Mapping(_) => "a mapping",
        }
    }
}

/// A float as YAML writes it: `1.0` (not `1`), `.inf`, `-.inf`, `.nan`.
fn float_text(number: f64) -> String {
    if number.is_nan() {
        ".nan".to_owned()
    } else if number.is_infinite() {
        if number > 0.0 { ".inf" } else { "-.inf" }.to_owned()
    } else if number.fract() == 0.0 && number.abs() < 1e16 {
        format!("{number:.1}")
    } else {
        number.to_string()
    }
}
