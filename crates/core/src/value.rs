use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

/// An ordered mapping from keys to [`Value`]s, in the order the keys were written.
pub type Mapping = IndexMap<String, Value>;

/// A frontmatter value, typed as a YAML 1.2 core-schema parser types it.
///
/// Plain scalars are resolved (`true` is a [`Value::Bool`], `42` an [`Value::Integer`], `~` or
/// nothing at all [`Value::Null`]); quoted and block scalars are always strings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
