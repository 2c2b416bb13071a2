//! A minimal JSON Schema check for tool arguments: enough to tell a call from an example.

use serde_json::{Map, Value};

/// Nesting deeper than this is not checked (tool schemas are a few levels deep).
const MAX_DEPTH: usize = 32;

/// Whether `value` fits `schema` in the keywords tool schemas use for structure: `type`, `enum`,
/// `const`, `required`, `properties`, `additionalProperties`, `items`, `anyOf`, `oneOf`,
/// `allOf`. Other keywords (bounds, lengths, formats, `$ref`) are not checked.
pub(crate) fn fits(schema: &Value, value: &Value) -> bool {
    fits_at(schema, value, 0)
}

fn fits_at(schema: &Value, value: &Value, depth: usize) -> bool {
    let schema = match schema {
        Value::Object(schema) => schema,
        Value::Bool(accepts) => return *accepts,
        _ => return true,
    };
    if depth > MAX_DEPTH {
        return true;
    }
    let nested = |schema: &Value, value: &Value| fits_at(schema, value, depth + 1);
    let type_ok = match schema.get("type") {
        Some(Value::String(name)) => is_type(name, value),
        Some(Value::Array(names)) => names
            .iter()
            .any(|name| name.as_str().is_none_or(|name| is_type(name, value))),
        _ => true,
    };
    let enum_ok = match schema.get("enum") {
        Some(Value::Array(allowed)) => allowed.contains(value),
        _ => true,
    };
    let const_ok = schema.get("const").is_none_or(|expected| expected == value);
    let object_ok = match value {
        Value::Object(object) => object_fits(schema, object, &nested),
        _ => true,
    };
    let items_ok = match (value, schema.get("items")) {
        (Value::Array(items), Some(item_schema)) => {
            items.iter().all(|item| nested(item_schema, item))
        }
        _ => true,
    };
    let options = |keyword: &str| -> Vec<bool> {
        schema
            .get(keyword)
            .and_then(Value::as_array)
            .map(|options| options.iter().map(|option| nested(option, value)).collect())
            .unwrap_or_default()
    };
    let any_of = options("anyOf");
    let one_of = options("oneOf");
    let all_of = options("allOf");
    type_ok
        && enum_ok
        && const_ok
        && object_ok
        && items_ok
        && (any_of.is_empty() || any_of.contains(&true))
        && (one_of.is_empty() || one_of.iter().filter(|fits| **fits).count() == 1)
        && all_of.iter().all(|fits| *fits)
}

fn object_fits(
    schema: &Map<String, Value>,
    object: &Map<String, Value>,
    nested: &dyn Fn(&Value, &Value) -> bool,
) -> bool {
    let required_ok = schema
        .get("required")
        .and_then(Value::as_array)
        .is_none_or(|required| {
            required
                .iter()
                .filter_map(Value::as_str)
                .all(|key| object.contains_key(key))
        });
    let properties = schema.get("properties").and_then(Value::as_object);
    let extra = schema.get("additionalProperties");
    required_ok
        && object.iter().all(|(key, value)| {
            match properties.and_then(|properties| properties.get(key)) {
                Some(property) => nested(property, value),
                None => extra.is_none_or(|extra| nested(extra, value)),
            }
        })
}

fn is_type(name: &str, value: &Value) -> bool {
    match name {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        "integer" => {
            value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|n| n.fract() == 0.0)
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn structure_is_checked_and_the_rest_is_not() {
        let schema = json!({
            "type": "object",
            "properties": {
                "skillName": {"type": "string"},
                "offset": {"type": "integer", "minimum": 0},
                "mode": {"enum": ["a", "b"]},
                "arguments": {"anyOf": [
                    {"type": "object"},
                    {"type": "array", "items": {"type": "string"}},
                    {"type": "null"}
                ]}
            },
            "required": ["skillName"]
        });
        for (value, fits_it) in [
            (json!({"skillName": "x"}), true),
            (json!({"skillName": "x", "offset": 3, "mode": "a"}), true),
            (json!({"skillName": "x", "offset": 3.0}), true),
            (json!({"skillName": "x", "offset": -1}), true),
            (json!({"skillName": "x", "unknown": 1}), true),
            (json!({"skillName": "x", "arguments": ["a", "b"]}), true),
            (json!({"skillName": "x", "arguments": null}), true),
            (json!({}), false),
            (json!({"skill_name": "x"}), false),
            (json!({"skillName": 3}), false),
            (json!({"skillName": "x", "offset": 1.5}), false),
            (json!({"skillName": "x", "mode": "c"}), false),
            (json!({"skillName": "x", "arguments": [1]}), false),
            (json!({"skillName": "x", "arguments": "a b"}), false),
            (json!(["x"]), false),
        ] {
            assert_eq!(fits(&schema, &value), fits_it, "{value}");
        }
    }

    #[test]
    fn closed_objects_one_of_and_boolean_schemas() {
        let closed =
            json!({"type": "object", "properties": {"a": {}}, "additionalProperties": false});
        assert!(fits(&closed, &json!({"a": 1})));
        assert!(!fits(&closed, &json!({"a": 1, "b": 2})));
        let one = json!({"oneOf": [{"type": "integer"}, {"type": "number"}]});
        assert!(fits(&one, &json!(1.5)));
        assert!(!fits(&one, &json!(1)), "1 fits both");
        assert!(fits(&json!(true), &json!("x")));
        assert!(!fits(&json!(false), &json!("x")));
        assert!(fits(&json!({"type": ["string", "null"]}), &json!(null)));
    }
}
