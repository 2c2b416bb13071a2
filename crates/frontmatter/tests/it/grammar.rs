//! Each YAML feature real SKILL.md files use, read as a YAML 1.2 parser reads it.

use skillful_frontmatter::{ParseError, ParseOptions, Value, parse};

fn fields(frontmatter: &str) -> skillful_core::Mapping {
    let text = format!("---\n{frontmatter}---\nbody\n");
    match parse(&text, &ParseOptions::default()) {
        Ok(document) => document.fields(),
        Err(error) => panic!("{frontmatter:?} did not parse: {error}"),
    }
}

fn value(frontmatter: &str, key: &str) -> Value {
    fields(frontmatter)
        .get(key)
        .cloned()
        .unwrap_or_else(|| panic!("no `{key}` in {frontmatter:?}"))
}

fn string(text: &str) -> Value {
    Value::String(text.to_owned())
}

fn syntax_error(frontmatter: &str) -> (usize, usize, String) {
    let text = format!("---\n{frontmatter}---\n");
    match parse(&text, &ParseOptions::default()) {
        Err(ParseError::Syntax {
            line,
            column,
            message,
        }) => (line, column, message),
        other => panic!("{frontmatter:?} should be a syntax error, got {other:?}"),
    }
}

#[test]
fn plain_scalars_are_trimmed_and_typed_by_the_core_schema() {
    let map = fields(
        "a:    spaced value   \nb: 42\nc: -3.5e-2\nd: true\ne: ~\nf:\ng: 1.0.0\nh: 0x1F\ni: 0o17\nj: 1_000\nk: FALSE\n",
    );
    assert_eq!(map["a"], string("spaced value"));
    assert_eq!(map["b"], Value::Integer(42));
    assert_eq!(map["c"], Value::Float(-0.035));
    assert_eq!(map["d"], Value::Bool(true));
    assert_eq!(map["e"], Value::Null);
    assert_eq!(map["f"], Value::Null);
    assert_eq!(map["g"], string("1.0.0"));
    assert_eq!(map["h"], Value::Integer(31));
    assert_eq!(map["i"], Value::Integer(15));
    assert_eq!(map["j"], string("1_000"));
    assert_eq!(map["k"], Value::Bool(false));
}

#[test]
fn multi_line_plain_scalars_fold_with_single_spaces() {
    let map = fields("description: plain\n  continued\n    more\n\n  after blank\nname: x\n");
    assert_eq!(
        map["description"],
        string("plain continued more\nafter blank")
    );
    assert_eq!(map["name"], string("x"));
}

#[test]
fn a_value_on_its_own_lines_is_read_as_a_plain_scalar() {
    assert_eq!(
        value(
            "description:\n  Use this skill\n  when asked.\n",
            "description"
        ),
        string("Use this skill when asked.")
    );
}

#[test]
fn an_empty_value_does_not_swallow_the_next_line() {
    let map = fields("name:\ndescription: x\n");
    assert_eq!(map["name"], Value::Null);
    assert_eq!(map["description"], string("x"));
}

#[test]
fn an_unquoted_value_containing_colon_space_is_one_string() {
    assert_eq!(
        value(
            "description: Deploy patterns: ECS and Fargate\n",
            "description"
        ),
        string("Deploy patterns: ECS and Fargate")
    );
    assert_eq!(
        value("url: http://x.io:8080/a\n", "url"),
        string("http://x.io:8080/a")
    );
}

#[test]
fn double_quoted_scalars_decode_escapes() {
    assert_eq!(
        value(
            concat!(
                r#"d: "q \"in\" \\ \n \t \u00e9 \x41 \U0001F600 \/ \0""#,
                "\n"
            ),
            "d"
        ),
        string("q \"in\" \\ \n \t é A 😀 / \0")
    );
}

#[test]
fn single_quoted_scalars_double_their_quotes() {
    assert_eq!(value("d: 'It''s fine'\n", "d"), string("It's fine"));
    assert_eq!(value("d: ''\n", "d"), string(""));
}

#[test]
fn quoted_scalars_span_lines_with_folding() {
    assert_eq!(
        value("d: \"multi\n  line\n\n  quoted  \n  end\"\n", "d"),
        string("multi line\nquoted end")
    );
    assert_eq!(
        value("d: 'single\n  multi\n\n  end'\n", "d"),
        string("single multi\nend")
    );
    assert_eq!(
        value("d: \"\\\n  joined\\\n  text\"\n", "d"),
        string("joinedtext")
    );
    assert_eq!(value("d: \"kept\\t\n  x\"\n", "d"), string("kept\t x"));
}

#[test]
fn quoted_scalars_stay_strings() {
    let map = fields("a: \"1\"\nb: 'true'\nc: \"null\"\n");
    assert_eq!(map["a"], string("1"));
    assert_eq!(map["b"], string("true"));
    assert_eq!(map["c"], string("null"));
}

/// The chomping table of YAML 1.2 (example 8.4 and friends), with trailing blank lines.
#[test]
fn block_scalar_chomping_follows_yaml_1_2() {
    let cases = [
        ("|", "x\n  y\n"),
        ("|-", "x\n  y"),
        ("|+", "x\n  y\n\n\n"),
        (">", "x\n  y\n"),
        (">-", "x\n  y"),
        (">+", "x\n  y\n\n\n"),
    ];
    for (header, expected) in cases {
        let frontmatter = format!("a: {header}\n  x\n    y\n\n\nb: 1\n");
        assert_eq!(
            value(&frontmatter, "a"),
            string(expected),
            "header {header}"
        );
        assert_eq!(value(&frontmatter, "b"), Value::Integer(1));
    }
}

#[test]
fn block_scalars_keep_or_fold_line_breaks() {
    assert_eq!(
        value("a: |\n  Line one\n\n  Line three\nname: t\n", "a"),
        string("Line one\n\nLine three\n")
    );
    assert_eq!(
        value(
            "a: >\n  para one\n  continues\n\n    code block\n    code 2\n\n  para two\n",
            "a"
        ),
        string("para one continues\n\n  code block\n  code 2\n\npara two\n")
    );
    assert_eq!(
        value("a: >\n  one\n\n  two\n\n\n  three\n", "a"),
        string("one\ntwo\n\nthree\n")
    );
    assert_eq!(value("a: >\n\n  text\n", "a"), string("\ntext\n"));
    assert_eq!(
        value("a: |\n  text\n \n  after a line of one space\n", "a"),
        string("text\n\nafter a line of one space\n")
    );
    assert_eq!(value("a: |\nb: 1\n", "a"), string(""));
    assert_eq!(value("a: |+\n\n\nb: 2\n", "a"), string("\n\n"));
    assert_eq!(value("a: |  # comment\n  text\n", "a"), string("text\n"));
}

#[test]
fn block_scalars_honour_explicit_indentation_indicators() {
    assert_eq!(
        value("a: >2\n   indented\n  normal\n", "a"),
        string(" indented\nnormal\n")
    );
    assert_eq!(
        value("a: |2-\n    two extra\n  x\n", "a"),
        string("  two extra\nx")
    );
    assert_eq!(value("a: |-2\n    two extra\n", "a"), string("  two extra"));
    assert_eq!(
        value("m:\n  k: |1\n     deep\n", "m"),
        Value::Mapping([("k".to_owned(), string("  deep\n"))].into_iter().collect())
    );
}

#[test]
fn comments_are_ignored_outside_quotes() {
    let map = fields(
        "# leading\nname: x # trailing\n   # indented\ndescription: 'a # b' # c\ntag: x#y\nlist: [a, b] # c\n",
    );
    assert_eq!(map["name"], string("x"));
    assert_eq!(map["description"], string("a # b"));
    assert_eq!(map["tag"], string("x#y"));
    assert_eq!(map["list"], Value::Sequence(vec![string("a"), string("b")]));
}

#[test]
fn block_sequences_nest_and_may_align_with_their_key() {
    let seq = value(
        "a:\n  - x\n  # between\n  - y: 1\n    z: 2\n  - - n1\n    - n2\n  -\n    deep: true\n  -\n",
        "a",
    );
    let Value::Sequence(items) = seq else {
        panic!("not a sequence: {seq:?}")
    };
    assert_eq!(items.len(), 5);
    assert_eq!(items[0], string("x"));
    assert_eq!(
        items[1],
        Value::Mapping(
            [
                ("y".to_owned(), Value::Integer(1)),
                ("z".to_owned(), Value::Integer(2))
            ]
            .into_iter()
            .collect()
        )
    );
    assert_eq!(items[2], Value::Sequence(vec![string("n1"), string("n2")]));
    assert_eq!(
        items[3],
        Value::Mapping(
            [("deep".to_owned(), Value::Bool(true))]
                .into_iter()
                .collect()
        )
    );
    assert_eq!(items[4], Value::Null);
    let map = fields("a:\n- x\n- y\nb: c\n");
    assert_eq!(map["a"], Value::Sequence(vec![string("x"), string("y")]));
    assert_eq!(map["b"], string("c"));
}

#[test]
fn flow_collections_nest_and_span_lines() {
    let seq = value(
        "a: [x, \"y\", 'z', {k: v, m: [1, 2]}, 3.5, ~, [b: 1], http://h:1/p]\n",
        "a",
    );
    let Value::Sequence(items) = seq else {
        panic!("not a sequence: {seq:?}")
    };
    assert_eq!(items[..3], [string("x"), string("y"), string("z")]);
    assert_eq!(
        items[3],
        Value::Mapping(
            [
                ("k".to_owned(), string("v")),
                (
                    "m".to_owned(),
                    Value::Sequence(vec![Value::Integer(1), Value::Integer(2)])
                ),
            ]
            .into_iter()
            .collect()
        )
    );
    assert_eq!(items[4], Value::Float(3.5));
    assert_eq!(items[5], Value::Null);
    assert_eq!(
        items[6],
        Value::Sequence(vec![Value::Mapping(
            [("b".to_owned(), Value::Integer(1))].into_iter().collect()
        )])
    );
    assert_eq!(items[7], string("http://h:1/p"));
    assert_eq!(
        value("a: [\n  one,\n  two three,\n  # comment\n  four\n]\n", "a"),
        Value::Sequence(vec![string("one"), string("two three"), string("four")])
    );
    assert_eq!(
        value("a: {x, y: , \"q\": 1}\n", "a"),
        Value::Mapping(
            [
                ("x".to_owned(), Value::Null),
                ("y".to_owned(), Value::Null),
                ("q".to_owned(), Value::Integer(1)),
            ]
            .into_iter()
            .collect()
        )
    );
    assert_eq!(value("a: [ ]\n", "a"), Value::Sequence(vec![]));
}

#[test]
fn nested_mappings_and_quoted_keys() {
    let map = fields(
        "\"quoted key\": 1\n'single': 2\nmetadata:\n  author: me\n  nested:\n    deep: 1\nnext: x\n",
    );
    assert_eq!(map["quoted key"], Value::Integer(1));
    assert_eq!(map["single"], Value::Integer(2));
    let Value::Mapping(metadata) = &map["metadata"] else {
        panic!()
    };
    assert_eq!(metadata["author"], string("me"));
    assert_eq!(
        metadata["nested"],
        Value::Mapping(
            [("deep".to_owned(), Value::Integer(1))]
                .into_iter()
                .collect()
        )
    );
    assert_eq!(map["next"], string("x"));
}

#[test]
fn crlf_and_bom_are_accepted() {
    let text = "\u{feff}---\r\nname: x\r\ndescription: |\r\n  a\r\n  b\r\nlist: [1,\r\n  2]\r\nq: \"x\r\n  y\"\r\n---\r\nbody\r\n";
    let document = parse(text, &ParseOptions::default()).unwrap();
    let map = document.fields();
    assert_eq!(map["name"], string("x"));
    assert_eq!(map["description"], string("a\nb\n"));
    assert_eq!(
        map["list"],
        Value::Sequence(vec![Value::Integer(1), Value::Integer(2)])
    );
    assert_eq!(map["q"], string("x y"));
    assert_eq!(document.body(), "body\r\n");
}

#[test]
fn only_the_first_delimiter_line_closes_the_frontmatter() {
    let text = "---\nname: x\ndescription: |\n  uses --- inside\n---  \n# Title\n\n---\n\nmore: text\n---\n";
    let document = parse(text, &ParseOptions::default()).unwrap();
    assert_eq!(document.keys().collect::<Vec<_>>(), ["name", "description"]);
    assert_eq!(
        document.get("description"),
        Some(string("uses --- inside\n"))
    );
    assert!(document.body().starts_with("# Title\n\n---\n"));
    assert_eq!(document.body_line(), 6);
}

#[test]
fn missing_or_unclosed_frontmatter_is_an_error() {
    let options = ParseOptions::default();
    assert_eq!(
        parse("# Title\n", &options).unwrap_err(),
        ParseError::MissingFrontmatter
    );
    assert_eq!(
        parse("", &options).unwrap_err(),
        ParseError::MissingFrontmatter
    );
    assert_eq!(
        parse("---\nname: x\n", &options).unwrap_err(),
        ParseError::Unclosed
    );
    assert!(parse("---\n---\n", &options).unwrap().fields().is_empty());
}

#[test]
fn syntax_errors_carry_line_and_column() {
    assert_eq!(syntax_error("a: \"x\" trailing\n").0, 2);
    assert_eq!(syntax_error("a: \"x\" trailing\n").1, 8);
    let (line, column, message) = syntax_error("name: x\na: \"unterminated\nb: 1\n");
    assert_eq!((line, column), (3, 4));
    assert!(message.contains("never closed"), "{message}");
    let (line, _, message) = syntax_error("a: 1\nb: 2\na: 3\n");
    assert_eq!(line, 4);
    assert!(
        message.contains("duplicate key `a` (first on line 2)"),
        "{message}"
    );
    let (line, column, message) = syntax_error("a: 1\n\tb: 2\n");
    assert_eq!((line, column), (3, 1));
    assert!(message.contains("tab"), "{message}");
    let (_, _, message) = syntax_error("a:\n    b: 1\n  c: 2\n");
    assert!(message.contains("indentation"), "{message}");
    for bad in [
        "a: *alias\n",
        "a: &anchor x\n",
        "a: !!str 1\n",
        "? complex\n: key\n",
        "a: \"\\q\"\n",
        "a: \"\\uD800\"\n",
        "a: |x\n  y\n",
        "a: [1, 2\nb: 3\n",
        "a: {k: 1, k: 2}\n",
        "a: [1,, 2]\n",
        "- a list\n",
        "just a scalar\n",
    ] {
        syntax_error(bad);
    }
}

#[test]
fn error_columns_count_characters_not_bytes() {
    let (_, column, _) = syntax_error("é: \"ü\" trailing\n");
    assert_eq!(column, 8);
}
