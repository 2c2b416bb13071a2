//! Canonical JSON (RFC 8785's rules for the values a record holds) and the sha256 digests of it.

use std::fmt::Write as _;

use serde_json::Value;
use skillful_fs::sha256_hex;

/// `value` in canonical form: no whitespace, object members sorted by the UTF-16 code units of
/// their names, strings with JSON's short escapes and `\u00xx` (lower case) for other control
/// characters, integers in decimal. (Numbers with a fraction are written as `serde_json` writes
/// them, which matches ECMAScript's shortest form except for exponents of 21 and more.)
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_value(value, &mut out);
    out
}

fn write_value(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(flag) => out.push_str(if *flag { "true" } else { "false" }),
        Value::Number(number) => {
            let _ = write!(out, "{number}");
        }
        Value::String(text) => write_string(text, out),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_value(item, out);
            }
            out.push(']');
        }
        Value::Object(members) => {
            let mut sorted: Vec<(&String, &Value)> = members.iter().collect();
            sorted.sort_by(|(a, _), (b, _)| a.encode_utf16().cmp(b.encode_utf16()));
            out.push('{');
            for (index, (name, item)) in sorted.into_iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_string(name, out);
                out.push(':');
                write_value(item, out);
            }
            out.push('}');
        }
    }
}

fn write_string(text: &str, out: &mut String) {
    out.push('"');
    for character in text.chars() {
        match character {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            control if (control as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", control as u32);
            }
            other => out.push(other),
        }
    }
    out.push('"');
}

/// The sha256 of `value`'s canonical JSON: the digest of a call's arguments, and of a record in
/// the chain.
pub fn json_digest(value: &Value) -> String {
    sha256_hex(canonical_json(value).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn members_are_sorted_and_whitespace_dropped() {
        let value = json!({"b": 1, "a": [true, null, "x\u{1}\n"], "é": {"z": 0, "y": -2}});
        assert_eq!(
            canonical_json(&value),
            r#"{"a":[true,null,"x\u0001\n"],"b":1,"é":{"y":-2,"z":0}}"#
        );
    }

    #[test]
    fn names_sort_by_utf16_code_units() {
        // U+E000 is one code unit above the surrogates of U+1F600; in UTF-8 order it is below.
        let value = json!({"\u{e000}": 1, "\u{1f600}": 2});
        assert_eq!(canonical_json(&value), "{\"\u{1f600}\":2,\"\u{e000}\":1}");
    }

    #[test]
    fn the_same_value_in_any_member_order_has_one_digest() {
        assert_eq!(
            json_digest(&json!({"a": 1, "b": 2})),
            json_digest(&json!({"b": 2, "a": 1}))
        );
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
