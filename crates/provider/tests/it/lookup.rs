//! Forgiving lookups: case, dropped extensions and directories, did-you-mean, and names that try
//! to leave the skill.

use std::sync::Arc;

use serde_json::json;
use skillful_provider::ToolErrorCode;

use crate::common::{TestSkill, call, expect_error, expect_text, run};

fn style_guide() -> TestSkill {
    TestSkill::new("style-guide")
        .text("references/FAQ.md", "faq")
        .text("references/output-schema.md", "schema")
        .text("style-guide", "extensionless")
        .text("docs/tone.md", "docs tone")
        .text("references/tone.md", "references tone")
        .script("scripts/convert.py", None)
}

async fn read(skill: TestSkill, resource: &str) -> skillful_provider::ToolOutput {
    let run = run(vec![Arc::new(skill)]).await;
    let arguments = json!({"skillName": "style-guide", "resourceName": resource});
    call(&run, "read_skill_resource", arguments).await
}

#[tokio::test]
async fn an_exact_name_is_served_without_a_note() {
    assert_eq!(
        expect_text(read(style_guide(), "references/FAQ.md").await),
        "faq"
    );
}

#[tokio::test]
async fn a_name_with_a_dropped_extension_or_directory_is_served_with_the_exact_name() {
    let cases = [
        (
            "references/output-schema",
            "schema",
            "references/output-schema.md",
        ),
        ("FAQ.md", "faq", "references/FAQ.md"),
        ("FAQ", "faq", "references/FAQ.md"),
        ("references/faq.MD", "faq", "references/FAQ.md"),
        ("style-guide.md", "extensionless", "style-guide"),
    ];
    for (requested, content, exact) in cases {
        assert_eq!(
            expect_text(read(style_guide(), requested).await),
            format!(
                "{content}\n\n[resolved '{requested}' to '{exact}'; use the exact name next time]"
            ),
        );
    }
}

#[tokio::test]
async fn a_name_that_fits_several_resources_lists_them() {
    let error = expect_error(read(style_guide(), "tone.md").await);
    assert_eq!(error.code, ToolErrorCode::ResourceNotFound);
    assert_eq!(
        error.message,
        "Error: Resource 'tone.md' not found in skill 'style-guide'."
    );
    assert_eq!(
        error.hint,
        "'tone.md' fits several resources: 'docs/tone.md', 'references/tone.md'. Call again with one of these names exactly."
    );
}

#[tokio::test]
async fn a_misspelt_name_suggests_the_closest() {
    let error = expect_error(read(style_guide(), "refrences/FAQ.md").await);
    assert_eq!(
        error.hint,
        "Did you mean 'references/FAQ.md'? Use the name exactly as listed."
    );
    let error = expect_error(read(style_guide(), "tones.md").await);
    assert_eq!(
        error.hint,
        "Did you mean 'docs/tone.md' or 'references/tone.md'? Use the name exactly as listed."
    );
}

#[tokio::test]
async fn a_name_close_to_nothing_lists_what_there_is() {
    let error = expect_error(read(style_guide(), "completely-unrelated-thing").await);
    assert_eq!(
        error.hint,
        "Its resources are: 'references/FAQ.md', 'references/output-schema.md', 'style-guide', 'docs/tone.md', 'references/tone.md'."
    );
    let error = expect_error(read(TestSkill::new("style-guide"), "anything").await);
    assert_eq!(error.hint, "Skill 'style-guide' has no resources.");
}

#[tokio::test]
async fn skills_are_found_ignoring_case_and_suggested_when_misspelt() {
    let run = run(vec![Arc::new(TestSkill::new("unit-converter"))]).await;
    let output = call(&run, "load_skill", json!({"skillName": "Unit-Converter"})).await;
    let text = expect_text(output);
    assert!(text.contains("\nContent of unit-converter.\n"), "{text}");
    assert!(
        text.ends_with(
            "\n\n[resolved 'Unit-Converter' to 'unit-converter'; use the exact name next time]"
        ),
        "{text}"
    );
    let error = expect_error(call(&run, "load_skill", json!({"skillName": "unit-convertr"})).await);
    assert_eq!(error.message, "Error: Skill 'unit-convertr' not found.");
    assert_eq!(
        error.hint,
        "Did you mean 'unit-converter'? Use the name exactly as listed."
    );
    let error = expect_error(call(&run, "load_skill", json!({"skillName": "pdf"})).await);
    assert_eq!(
        error.hint,
        "Use a name exactly as listed in <available_skills>."
    );
}

#[tokio::test]
async fn two_skills_differing_only_in_case_are_ambiguous_to_a_third_spelling() {
    let run = run(vec![
        Arc::new(TestSkill::new("Pdf")),
        Arc::new(TestSkill::new("PDF")),
    ])
    .await;
    let text = expect_text(call(&run, "load_skill", json!({"skillName": "PDF"})).await);
    assert!(text.contains("\nContent of PDF.\n"), "{text}");
    assert!(!text.contains("[resolved"), "{text}");
    let error = expect_error(call(&run, "load_skill", json!({"skillName": "pdf"})).await);
    assert_eq!(error.code, ToolErrorCode::SkillNotFound);
    assert!(
        error
            .hint
            .starts_with("'pdf' fits several skills: 'Pdf', 'PDF'."),
        "{}",
        error.hint
    );
}

#[tokio::test]
async fn scripts_are_found_without_their_directory_and_extension() {
    let run = run(vec![Arc::new(style_guide())]).await;
    let arguments = json!({"skillName": "style-guide", "scriptName": "convert"});
    assert_eq!(
        expect_text(call(&run, "run_skill_script", arguments).await),
        "ran with null\n\n[resolved 'convert' to 'scripts/convert.py'; use the exact name next time]"
    );
}

#[tokio::test]
async fn names_that_try_to_leave_the_skill_are_simply_not_found() {
    let names = [
        "../secret.md",
        "../../etc/passwd",
        "/etc/passwd",
        "references/../../secret.md",
        "references/../FAQ.md",
        "./references/FAQ.md",
        "references\\FAQ.md",
        "..\\..\\secret.md",
        "%2e%2e/secret.md",
        "references/%2e%2e/%2e%2e/secret.md",
        "%252e%252e/secret.md",
        "C:\\Windows\\win.ini",
        "file:///etc/passwd",
        "references/FAQ.md\0.png",
    ];
    for name in names {
        let mut skill = style_guide();
        // A skill that would answer any name it is asked for: the provider must not ask.
        skill.answers_unlisted = true;
        let skill = Arc::new(skill);
        let run = run(vec![skill.clone()]).await;
        let arguments = json!({"skillName": "style-guide", "resourceName": name});
        let error = expect_error(call(&run, "read_skill_resource", arguments).await);
        assert_eq!(error.code, ToolErrorCode::ResourceNotFound, "{name}");
        assert!(
            skill.asked.lock().unwrap().is_empty(),
            "{name} reached the skill"
        );
    }
}

#[tokio::test]
async fn plain_unlisted_names_are_left_to_the_skill_own_lookup() {
    let mut skill = style_guide();
    skill.answers_unlisted = true;
    assert_eq!(
        expect_text(read(skill, "live/status.json").await),
        "unlisted live/status.json"
    );
}
