//! Hostile input: size limits, the deadline, and pathological shapes that must end in a result,
//! never a hang, a stack overflow or a panic.

use std::time::Duration;

use skillful_frontmatter::{ParseError, ParseOptions, parse};

const MIB: usize = 1024 * 1024;

/// Limits raised so that the parser itself, not a size check, meets the input. The deadline is
/// generous: these assertions are about the outcome, not about speed.
fn raised() -> ParseOptions {
    ParseOptions::default()
        .with_max_file_bytes(4 * MIB)
        .with_max_frontmatter_bytes(4 * MIB)
        .with_deadline(Duration::from_secs(120))
}

fn wrap(frontmatter: &str) -> String {
    format!("---\n{frontmatter}\n---\n")
}

fn syntax_message(result: Result<impl std::fmt::Debug, ParseError>) -> String {
    match result {
        Err(ParseError::Syntax { message, .. }) => message,
        other => panic!("expected a syntax error, got {other:?}"),
    }
}

#[test]
fn a_one_mib_input_is_refused_by_the_default_limits() {
    let frontmatter = format!("description: {}", "x".repeat(MIB));
    let error = parse(&wrap(&frontmatter), &ParseOptions::default()).unwrap_err();
    assert_eq!(
        error,
        ParseError::FileTooLarge {
            size: MIB + 22,
            limit: MIB
        }
    );

    let text = wrap(&format!("description: {}", "x".repeat(100 * 1024)));
    let error = parse(&text, &ParseOptions::default()).unwrap_err();
    assert_eq!(error, ParseError::FrontmatterTooLarge { limit: 64 * 1024 });
}

#[test]
fn an_unclosed_frontmatter_is_refused_without_reading_the_whole_file() {
    let text = format!("---\n{}", "key: value\n".repeat(50_000));
    let error = parse(&text, &ParseOptions::default()).unwrap_err();
    assert_eq!(error, ParseError::FrontmatterTooLarge { limit: 64 * 1024 });
}

#[test]
fn the_deadline_stops_parsing() {
    let options = ParseOptions::default().with_deadline(Duration::ZERO);
    let error = parse("---\nname: x\ndescription: y\n---\n", &options).unwrap_err();
    assert!(
        matches!(error, ParseError::DeadlineExceeded { deadline, .. } if deadline == Duration::ZERO)
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    for opener in ["[", "{"] {
        let frontmatter = format!("a: {}", opener.repeat(MIB));
        let message = syntax_message(parse(&wrap(&frontmatter), &raised()));
        assert!(message.contains("nesting deeper than 64"), "{message}");
    }
    let frontmatter = format!("a:\n{}x", "- ".repeat(MIB / 2));
    let message = syntax_message(parse(&wrap(&frontmatter), &raised()));
    assert!(message.contains("nesting"), "{message}");
    let staircase: String = (0..2000)
        .map(|i| format!("{}k{i}:\n", " ".repeat(i)))
        .collect();
    let message = syntax_message(parse(&wrap(&staircase), &raised()));
    assert!(message.contains("nesting"), "{message}");
}

#[test]
fn large_but_well_formed_inputs_parse() {
    let long_line = format!("description: {}", "word ".repeat(MIB / 5));
    let text = wrap(&long_line);
    let document = parse(&text, &raised()).unwrap();
    assert_eq!(document.keys().count(), 1);

    let many_keys: String = (0..60_000).map(|i| format!("k{i}: v\n")).collect();
    assert_eq!(
        parse(&wrap(&many_keys), &raised()).unwrap().keys().count(),
        60_000
    );

    let long_block = format!("a: |\n{}", "  line\n".repeat(MIB / 7));
    assert!(parse(&wrap(&long_block), &raised()).is_ok());

    let long_flow = format!("a: [{}x]", "x, ".repeat(MIB / 3));
    assert!(parse(&wrap(&long_flow), &raised()).is_ok());
}

#[test]
fn pathological_quotes_and_escapes_end_in_errors() {
    let unclosed = format!("a: \"{}", "\\\\ \n".repeat(MIB / 4));
    assert!(syntax_message(parse(&wrap(&unclosed), &raised())).contains("never closed"));
    let quotes = format!("a: '{}", "''".repeat(MIB / 2));
    assert!(syntax_message(parse(&wrap(&quotes), &raised())).contains("never closed"));
    let colons = format!("a{}", ":a".repeat(MIB / 2));
    assert!(parse(&wrap(&colons), &raised()).is_err());
    let hashes = format!("a: {}", " #".repeat(MIB / 2));
    assert!(parse(&wrap(&hashes), &raised()).is_ok());
}

#[test]
fn arbitrary_bytes_never_panic() {
    // A fixed sample of awkward fragments, combined; the fuzz target explores further.
    let fragments = [
        "a:", " ", "\n", "- ", "[", "]", "{", "}", "\"", "'", "|", ">", "#", "\\", ":", ",", "\t",
        "\r\n", "é", "+", "-", "2", "?", "&", "*", "!",
    ];
    for a in fragments {
        for b in fragments {
            for c in fragments {
                let text = format!("---\n{a}{b}{c}{a}\n{b} {c}\n---\n");
                let _ = parse(&text, &ParseOptions::default());
            }
        }
    }
}
