//! Round trips: random frontmatter is rendered as YAML in randomly chosen styles, parsed back,
//! and must come back equal.

use proptest::prelude::*;
use skillful_frontmatter::{
    FrontmatterLoader, Mapping, ParseOptions, ValidationMode, Value, parse,
};

/// A tiny deterministic generator that picks rendering styles.
struct Styles(u64);

impl Styles {
    fn pick(&mut self, choices: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % choices
    }
}

fn double_quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Whether `text` reads back as the same string when written plain.
fn plain_safe(text: &str) -> bool {
    let Some(first) = text.chars().next() else {
        return false;
    };
    !"-?:,[]{}#&*!|>'\"%@` \t".contains(first)
        && !text.ends_with([' ', '\t', ':'])
        && !text.contains(": ")
        && !text.contains(" #")
        && !text.contains(['\n', '\r', '\t'])
        && !text.chars().any(char::is_control)
        && parse(&format!("---\nk: {text}\n---\n"), &ParseOptions::default())
            .is_ok_and(|d| d.get("k") == Some(Value::String(text.to_owned())))
}

fn render_string(text: &str, indent: usize, styles: &mut Styles) -> String {
    match styles.pick(4) {
        0 if plain_safe(text) => text.to_owned(),
        1 if !text.contains(['\n', '\r']) && !text.chars().any(char::is_control) => {
            format!("'{}'", text.replace('\'', "''"))
        }
        // Only-newline text is no block scalar: clip chomping would read it back as "".
        2 if !text.trim_end_matches('\n').is_empty()
            && !text.contains('\r')
            && !text
                .chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t') =>
        {
            let trailing = text.len() - text.trim_end_matches('\n').len();
            let chomp = match trailing {
                0 => "-",
                1 => "",
                _ => "+",
            };
            let body = text.strip_suffix('\n').unwrap_or(text);
            let pad = " ".repeat(indent + 2);
            let lines: Vec<String> = body
                .split('\n')
                .map(|line| {
                    if line.is_empty() {
                        String::new()
                    } else {
                        format!("{pad}{line}")
                    }
                })
                .collect();
            format!("|2{chomp}\n{}", lines.join("\n"))
        }
        _ => double_quoted(text),
    }
}

fn render_flow(value: &Value) -> String {
    match value {
        Value::String(text) => double_quoted(text),
        Value::Sequence(items) => format!(
            "[{}]",
            items.iter().map(render_flow).collect::<Vec<_>>().join(", ")
        ),
        Value::Mapping(map) => format!(
            "{{{}}}",
            map.iter()
                .map(|(k, v)| format!("{}: {}", double_quoted(k), render_flow(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        scalar => render_scalar(scalar),
    }
}

fn render_scalar(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Integer(i) => i.to_string(),
        Value::Float(f) => format!("{f:?}"),
        _ => unreachable!("not a scalar"),
    }
}

/// Renders `value` as the value of a key at `indent`: inline after `key:` or on the next lines.
fn render_value(value: &Value, indent: usize, styles: &mut Styles) -> String {
    let pad = " ".repeat(indent + 2);
    match value {
        Value::String(text) => format!(" {}", render_string(text, indent, styles)),
        Value::Sequence(items) if !items.is_empty() && styles.pick(2) == 0 => {
            let mut out = String::new();
            for item in items {
                out.push_str(&format!(
                    "\n{pad}-{}",
                    render_value(item, indent + 2, styles)
                ));
            }
            out
        }
        Value::Mapping(map) if !map.is_empty() && styles.pick(2) == 0 => {
            let mut out = String::new();
            for (key, item) in map {
                out.push_str(&format!(
                    "\n{pad}{}:{}",
                    render_key(key),
                    render_value(item, indent + 2, styles)
                ));
            }
            out
        }
        Value::Sequence(_) | Value::Mapping(_) => format!(" {}", render_flow(value)),
        scalar => format!(" {}", render_scalar(scalar)),
    }
}

fn render_key(key: &str) -> String {
    if plain_safe(key) {
        key.to_owned()
    } else {
        double_quoted(key)
    }
}

fn render(fields: &Mapping, seed: u64) -> String {
    let mut styles = Styles(seed | 1);
    let mut out = String::from("---\n");
    for (key, value) in fields {
        out.push_str(&format!(
            "{}:{}\n",
            render_key(key),
            render_value(value, 0, &mut styles)
        ));
    }
    out.push_str("---\n# Body\n\n---\nnot: frontmatter\n");
    out
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9 .,:#'\"!?()-]{0,40}",
        "[a-z]{1,8}(: [a-z]{1,8})?",
        "\\PC{0,30}",
        "([a-z ]{0,10}\n){0,4}[a-z ]{0,10}\n{0,3}",
    ]
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        text().prop_map(Value::String),
        any::<i64>().prop_map(Value::Integer),
        any::<bool>().prop_map(Value::Bool),
        (-1.0e9..1.0e9f64).prop_map(Value::Float),
        Just(Value::Null),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Sequence),
            prop::collection::vec(("[a-z][a-z0-9_]{0,6}", inner), 0..4)
                .prop_map(|entries| Value::Mapping(entries.into_iter().collect())),
        ]
    })
}

fn frontmatter() -> impl Strategy<Value = Mapping> {
    (
        "[a-z][a-z0-9]{0,10}(-[a-z0-9]{1,8}){0,3}",
        "[^\u{0}-\u{1f}]{1,200}".prop_filter("non-blank", |d: &String| !d.trim().is_empty()),
        prop::option::of(text()),
        prop::collection::vec(("[a-z]{1,8}", "[a-zA-Z0-9 .:-]{0,20}"), 0..4),
        prop::collection::vec(("x-[a-z_]{1,8}", value()), 0..5),
    )
        .prop_map(|(name, description, license, metadata, extra)| {
            let mut fields = Mapping::new();
            fields.insert("name".into(), Value::String(name));
            fields.insert("description".into(), Value::String(description));
            if let Some(license) = license {
                fields.insert("license".into(), Value::String(license));
            }
            if !metadata.is_empty() {
                let metadata: Mapping = metadata
                    .into_iter()
                    .map(|(k, v)| (k, Value::String(v)))
                    .collect();
                fields.insert("metadata".into(), Value::Mapping(metadata));
            }
            for (key, value) in extra {
                fields.insert(key, value);
            }
            fields
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn rendered_frontmatter_parses_back_equal(fields in frontmatter(), seed in any::<u64>()) {
        let text = render(&fields, seed);
        let document = parse(&text, &ParseOptions::default())
            .map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(&document.fields(), &fields, "{}", text);
        prop_assert_eq!(document.body(), "# Body\n\n---\nnot: frontmatter\n");

        let name = fields["name"].as_str().unwrap();
        let loaded = FrontmatterLoader::new(ValidationMode::Lenient)
            .load(&text, Some(name))
            .map_err(|e| TestCaseError::fail(format!("{e:?}\n{text}")))?;
        prop_assert_eq!(&loaded.frontmatter.description, fields["description"].as_str().unwrap());
    }

    #[test]
    fn any_text_parses_or_errors_without_panicking(body in "\\PC{0,200}", raw in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = parse(&format!("---\n{body}\n---\n"), &ParseOptions::default());
        let lossy = String::from_utf8_lossy(&raw);
        let _ = parse(&format!("---\n{lossy}\n---\n"), &ParseOptions::default());
    }
}
