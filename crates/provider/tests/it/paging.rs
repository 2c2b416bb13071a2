//! The output budget: long resources in pages, never cut silently, never mid-character.

use std::sync::Arc;

use serde_json::{Value, json};
use skillful_inline::{InlineSkill, InlineSkillsSource};
use skillful_provider::{SkillsProvider, ToolErrorCode, ToolOutput};

use crate::common::{TestContent, TestSkill, call, expect_error, expect_text, run, run_of};

async fn read_with(budget: Option<usize>, content: TestContent, arguments: Value) -> ToolOutput {
    let skill = TestSkill::new("s").content("r", content);
    let source = Arc::new(InlineSkillsSource::from_skills([Arc::new(skill) as _]));
    let mut builder = SkillsProvider::builder(source);
    if let Some(budget) = budget {
        builder = builder.max_resource_bytes(budget);
    }
    let run = run_of(&builder.build().unwrap()).await;
    let mut all = json!({"skillName": "s", "resourceName": "r"});
    all.as_object_mut()
        .unwrap()
        .extend(arguments.as_object().unwrap().clone());
    call(&run, "read_skill_resource", all).await
}

async fn read_text(budget: Option<usize>, content: &str, arguments: Value) -> ToolOutput {
    read_with(budget, TestContent::Text(content.to_owned()), arguments).await
}

#[tokio::test]
async fn a_resource_within_the_budget_is_returned_whole() {
    let content = "x".repeat(65536);
    assert_eq!(
        expect_text(read_text(None, &content, json!({})).await),
        content
    );
}

#[tokio::test]
async fn a_resource_over_the_default_budget_comes_in_pages_that_say_how_to_go_on() {
    let content: String = (0..200_000)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    let first = expect_text(read_text(None, &content, json!({})).await);
    assert_eq!(
        first,
        format!(
            "{}\n\n[truncated: showing bytes 0-65536 of 200000; call read_skill_resource again with offset=65536 to continue]",
            &content[..65536]
        )
    );
    let last = expect_text(read_text(None, &content, json!({"offset": 196608})).await);
    assert_eq!(
        last,
        format!(
            "{}\n\n[showing bytes 196608-200000 of 200000: this is the end of the resource]",
            &content[196608..]
        )
    );
}

#[tokio::test]
async fn offset_and_limit_choose_the_bytes_and_a_limit_over_the_budget_is_capped() {
    let content = "0123456789abcdefghij";
    let page = expect_text(read_text(Some(8), content, json!({"offset": 2, "limit": 3})).await);
    assert_eq!(
        page,
        "234\n\n[truncated: showing bytes 2-5 of 20; call read_skill_resource again with offset=5 to continue]"
    );
    let capped = expect_text(read_text(Some(8), content, json!({"limit": 1000})).await);
    assert!(
        capped.starts_with("01234567\n\n[truncated: showing bytes 0-8 of 20;"),
        "{capped}"
    );
}

#[tokio::test]
async fn pages_never_split_a_utf8_character() {
    // a: 1 byte, é: 2, €: 3, 😀: 4.
    let content = "aé€😀z";
    let cases = [
        // An offset inside a character starts at that character.
        (
            json!({"offset": 2, "limit": 2}),
            "é\n\n[truncated: showing bytes 1-3 of 11; call read_skill_resource again with offset=3 to continue]",
        ),
        // A limit ending inside a character stops before it.
        (
            json!({"offset": 0, "limit": 5}),
            "aé\n\n[truncated: showing bytes 0-3 of 11; call read_skill_resource again with offset=3 to continue]",
        ),
        // A limit shorter than the character still returns all of it.
        (
            json!({"offset": 6, "limit": 1}),
            "😀\n\n[truncated: showing bytes 6-10 of 11; call read_skill_resource again with offset=10 to continue]",
        ),
    ];
    for (arguments, expected) in cases {
        assert_eq!(
            expect_text(read_text(None, content, arguments.clone()).await),
            expected,
            "{arguments}"
        );
    }
}

#[tokio::test]
async fn following_the_notes_reads_the_whole_resource_exactly_once() {
    let content: String = "Grüße, 世界! 😀 ".repeat(50);
    let mut offset = 0;
    let mut reassembled = String::new();
    loop {
        let page = expect_text(read_text(Some(7), &content, json!({"offset": offset})).await);
        let (body, note) = page.rsplit_once("\n\n[").unwrap();
        reassembled.push_str(body);
        match note.split_once("with offset=") {
            Some((_, rest)) => offset = rest.split(' ').next().unwrap().parse().unwrap(),
            None => {
                assert!(note.ends_with("this is the end of the resource]"), "{note}");
                break;
            }
        }
    }
    assert_eq!(reassembled, content);
}

#[tokio::test]
async fn an_offset_at_or_past_the_end_is_an_error_the_model_can_fix() {
    for offset in [200, 300] {
        let error =
            expect_error(read_text(None, &"x".repeat(200), json!({"offset": offset})).await);
        assert_eq!(error.code, ToolErrorCode::InvalidArguments);
        assert_eq!(
            error.message,
            format!(
                "Error: Offset {offset} is past the end of resource 'r' in skill 's' (200 bytes)."
            )
        );
        assert_eq!(
            error.hint,
            "Call again with an offset below 200, or without one to read from the start."
        );
    }
    assert_eq!(
        expect_text(read_text(None, "", json!({"offset": 0})).await),
        ""
    );
}

#[tokio::test]
async fn a_zero_limit_is_an_error() {
    let error = expect_error(read_text(None, "abc", json!({"limit": 0})).await);
    assert_eq!(error.message, "Error: Limit must be at least 1.");
    assert_eq!(error.hint, "Omit limit to read up to 65536 bytes.");
}

#[tokio::test]
async fn a_binary_resource_is_described_and_base64_encoded() {
    let bytes = vec![0x89, b'P', b'N', b'G', 0, 255];
    let output = read_with(
        None,
        TestContent::Binary(bytes, Some("image/png".into())),
        json!({}),
    )
    .await;
    assert_eq!(
        expect_text(output),
        "[binary resource: 6 bytes of image/png, base64-encoded below; offset and limit count base64 characters]\niVBORwD/"
    );
    let output = read_with(
        Some(4),
        TestContent::Binary(vec![1, 2, 3, 4, 5, 6], None),
        json!({"offset": 4}),
    )
    .await;
    assert_eq!(
        expect_text(output),
        "[binary resource: 6 bytes, base64-encoded below; offset and limit count base64 characters]\nBAUG\n\n[showing bytes 4-8 of 8: this is the end of the resource]"
    );
}

#[tokio::test]
async fn the_default_budget_is_the_limit_maximum_in_the_schema() {
    let run = run(vec![Arc::new(TestSkill::new("s"))]).await;
    let schema = run.tool("read_skill_resource").unwrap().parameters();
    assert_eq!(
        schema["properties"]["limit"]["maximum"],
        skillful_provider::DEFAULT_MAX_RESOURCE_BYTES
    );
}

#[tokio::test]
async fn a_long_skill_comes_in_pages_too() {
    let skill = InlineSkill::builder("long", "Long.")
        .instructions("x".repeat(100_000))
        .build()
        .unwrap();
    let run = run(vec![Arc::new(skill)]).await;
    let first = expect_text(call(&run, "load_skill", json!({"skillName": "long"})).await);
    assert!(first.starts_with("---\nname: long\n"), "{}", &first[..40]);
    assert!(
        first.ends_with("; call load_skill again with offset=65536 to continue]"),
        "{}",
        &first[first.len() - 120..]
    );
    let rest = expect_text(
        call(
            &run,
            "load_skill",
            json!({"skillName": "long", "offset": 65536}),
        )
        .await,
    );
    assert!(
        rest.ends_with("this is the end of the skill]"),
        "{}",
        &rest[rest.len() - 80..]
    );
}

#[tokio::test]
async fn a_page_of_a_resource_larger_than_the_budget_is_cut_from_the_bytes_read_around_it() {
    // Past the first page only a window is read; an offset inside a character still starts at
    // it, and bytes that are not UTF-8 are encoded with offsets counting the resource's bytes.
    let text = format!("{}é{}", "a".repeat(9), "b".repeat(10));
    let page = expect_text(read_text(Some(4), &text, json!({"offset": 10, "limit": 3})).await);
    assert_eq!(
        page,
        "éb\n\n[truncated: showing bytes 9-12 of 21; call read_skill_resource again with offset=12 to continue]"
    );
    let bytes: Vec<u8> = (0..20u8).map(|byte| 0xF0 | (byte % 8)).collect();
    let output = read_with(
        Some(4),
        TestContent::Binary(bytes.clone(), Some("application/octet-stream".into())),
        json!({"offset": 8, "limit": 4}),
    )
    .await;
    assert_eq!(
        expect_text(output),
        "[binary resource: 20 bytes of application/octet-stream, too large to encode whole: bytes 8-12 below, base64-encoded; offset and limit count the resource's bytes]\n8PHy8w==\n\n[truncated: call read_skill_resource again with offset=12 to continue]"
    );
    let output = read_with(
        Some(4),
        TestContent::Binary(bytes, None),
        json!({"offset": 18}),
    )
    .await;
    assert_eq!(
        expect_text(output),
        "[binary resource: 20 bytes, too large to encode whole: bytes 18-20 below, base64-encoded; offset and limit count the resource's bytes]\n8vM=\n\n[this is the end of the resource]"
    );
}
