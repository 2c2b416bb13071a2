//! The parsed tree, and the value the YAML 1.2 core schema gives a plain scalar.

use skillful_core::{Mapping, Value};

/// A parsed YAML node. Scalars keep their text so that spec fields (`name: 2024`) read as written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node {
    Scalar { text: String, plain: bool },
    Sequence(Vec<Node>),
    Mapping(Vec<(String, Node)>),
}

impl Node {
    pub(super) fn null() -> Self {
        Node::Scalar {
            text: String::new(),
            plain: true,
        }
    }

    /// The value a YAML 1.2 core-schema parser gives this node.
    pub(crate) fn to_value(&self) -> Value {
        match self {
            Node::Scalar { text, plain: true } => resolve_plain(text),
            Node::Scalar { text, plain: false } => Value::String(text.clone()),
            Node::Sequence(items) => Value::Sequence(items.iter().map(Node::to_value).collect()),
            Node::Mapping(entries) => Value::Mapping(
                entries
                    .iter()
                    .map(|(key, node)| (key.clone(), node.to_value()))
                    .collect::<Mapping>(),
            ),
        }
    }
}

/// Resolves a plain scalar by the YAML 1.2 core schema.
fn resolve_plain(text: &str) -> Value {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Value::Float(f64::INFINITY);
        }
        "-.inf" | "-.Inf" | "-.INF" => return Value::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Value::Float(f64::NAN),
        _ => {}
    }
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(number) = text.parse::<i64>() {
            return Value::Integer(number);
        }
        return Value::String(text.to_owned());
    }
    let radix = [("0o", 8), ("0x", 16)]
        .into_iter()
        .find_map(|(prefix, radix)| text.strip_prefix(prefix).map(|rest| (rest, radix)));
    if let Some((rest, radix)) = radix {
        if !rest.is_empty()
            && rest.chars().all(|c| c.is_digit(radix))
            && let Ok(number) = i64::from_str_radix(rest, radix)
        {
            return Value::Integer(number);
        }
        return Value::String(text.to_owned());
    }
    if is_core_float(digits)
        && let Ok(number) = text.parse::<f64>()
    {
        return Value::Float(number);
    }
    Value::String(text.to_owned())
}

/// `(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`, the sign already removed.
fn is_core_float(text: &str) -> bool {
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], Some(&text[i + 1..])),
        None => (text, None),
    };
    let (whole, fraction) = match mantissa.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (mantissa, None),
    };
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match fraction {
        Some(fraction) => {
            all_digits(whole) && all_digits(fraction) && !(whole.is_empty() && fraction.is_empty())
        }
        None => !whole.is_empty() && all_digits(whole),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && all_digits(e)
    });
    mantissa_ok && exponent_ok && (fraction.is_some() || exponent.is_some())
}
