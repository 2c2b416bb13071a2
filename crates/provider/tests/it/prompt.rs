//! The instructions: the reference's prompt, the catalog, templates.

use std::sync::Arc;

use skillful_core::{Skill, SkillsSource};
use skillful_inline::{InlineSkillsSource, SkillsSourceBuilder};
use skillful_provider::{ProviderError, SkillsProvider};

use crate::common::{TestSkill, inline, provider, run, run_of};

fn skill(name: &str, description: &str) -> Arc<dyn Skill> {
    Arc::new(inline(name, description))
}

#[tokio::test]
async fn no_skills_injects_no_instructions_and_no_tools() {
    let run = run(Vec::new()).await;
    assert!(run.is_empty());
    assert_eq!(run.instructions(), None);
    assert!(run.tools().is_empty());
}

#[tokio::test]
async fn default_prompt_is_the_reference_text_with_the_catalog_filled_in() {
    let run = run(vec![
        skill("unit-converter", "Converts units."),
        skill("pdf", "Fills PDF forms."),
    ])
    .await;
    // The reference's verbatim block (maf-skills.md, "Provider"), `{skills}` filled by hand.
    let expected = r#"You have access to skills containing domain-specific knowledge and capabilities.
Each skill provides specialized instructions, reference documents, and assets for specific tasks.

<available_skills>
  <skill>
    <name>pdf</name>
    <description>Fills PDF forms.</description>
  </skill>
  <skill>
    <name>unit-converter</name>
    <description>Converts units.</description>
  </skill>
</available_skills>

When a task aligns with a skill's domain, follow these steps in exact order:
- Use `load_skill` to retrieve the skill's instructions.
- Follow the provided guidance.
- Use `read_skill_resource` to read any referenced resources, using the name exactly as listed
   (e.g. `"style-guide"` not `"style-guide.md"`, `"references/FAQ.md"` not `"FAQ.md"`).
- Use `run_skill_script` to run referenced scripts, using the name exactly as listed.
Only load what is needed, when it is needed."#;
    assert_eq!(run.instructions(), Some(expected));
}

#[tokio::test]
async fn a_custom_template_gets_the_catalog_at_every_placeholder() {
    let source = Arc::new(InlineSkillsSource::from_skills([skill("a", "A.")]));
    let provider = SkillsProvider::builder(source)
        .prompt_template("Skills:\n{skills}\nAgain: {skills}")
        .build()
        .unwrap();
    let entry = "  <skill>\n    <name>a</name>\n    <description>A.</description>\n  </skill>";
    assert_eq!(
        run_of(&provider).await.instructions(),
        Some(format!("Skills:\n{entry}\nAgain: {entry}").as_str())
    );
}

#[test]
fn a_custom_template_without_the_placeholder_is_refused_at_construction() {
    let source = Arc::new(InlineSkillsSource::default());
    let error = SkillsProvider::builder(source)
        .prompt_template("Skills: {skill}")
        .build()
        .unwrap_err();
    assert_eq!(error, ProviderError::MissingSkillsPlaceholder);
    assert!(error.to_string().contains("'{skills}' placeholder"));
}

#[test]
fn a_zero_output_budget_is_refused_at_construction() {
    let source = Arc::new(InlineSkillsSource::default());
    let error = SkillsProvider::builder(source)
        .max_resource_bytes(0)
        .build();
    assert_eq!(error.unwrap_err(), ProviderError::ZeroResourceBudget);
}

#[tokio::test]
async fn catalog_names_and_descriptions_are_xml_escaped() {
    let mut tricky = TestSkill::new("a&b");
    tricky.frontmatter.description = r#"Use <b>"quotes"</b> & 'apostrophes'."#.to_owned();
    let run = run(vec![Arc::new(tricky)]).await;
    let instructions = run.instructions().unwrap();
    assert!(instructions.contains("    <name>a&amp;b</name>\n"));
    assert!(instructions.contains(
        "    <description>Use &lt;b&gt;&quot;quotes&quot;&lt;/b&gt; &amp; &apos;apostrophes&apos;.</description>\n"
    ));
}

#[tokio::test]
async fn catalog_is_sorted_by_name_in_byte_order() {
    let run = run(vec![
        skill("b", "b"),
        skill("a-b", "a-b"),
        skill("B", "B"),
        skill("a", "a"),
        skill("é", "é"),
    ])
    .await;
    let names: Vec<&str> = run
        .instructions()
        .unwrap()
        .lines()
        .filter_map(|line| line.strip_prefix("    <name>")?.strip_suffix("</name>"))
        .collect();
    assert_eq!(names, ["B", "a", "a-b", "b", "é"]);
}

#[tokio::test]
async fn the_same_skills_give_byte_identical_instructions_whatever_their_order() {
    let skills = [skill("x", "X."), skill("y", "Y."), skill("z", "Z.")];
    let forward = provider(skills.to_vec());
    let first = run_of(&forward).await;
    let again = run_of(&forward).await;
    let reversed = run(skills.iter().rev().cloned().collect()).await;
    assert_eq!(first.instructions(), again.instructions());
    assert_eq!(first.instructions(), reversed.instructions());
}

#[tokio::test]
async fn a_failing_source_fails_the_run() {
    #[derive(Debug)]
    struct Broken;
    #[async_trait::async_trait]
    impl SkillsSource for Broken {
        async fn skills(
            &self,
            _: &skillful_core::SourceContext,
        ) -> Result<Vec<Arc<dyn Skill>>, skillful_core::SkillError> {
            Err(skillful_core::SkillError::Other("server down".into()))
        }
    }
    let provider = SkillsProvider::new(SkillsSourceBuilder::new().source(Arc::new(Broken)).build());
    let error = provider
        .context(&skillful_core::SourceContext::default())
        .await
        .unwrap_err();
    assert_eq!(error.to_string(), "server down");
}

#[tokio::test]
async fn a_skill_that_declares_a_risk_tier_shows_it_in_the_catalog_and_the_others_do_not() {
    let mut declared = TestSkill::new("ops");
    declared
        .frontmatter
        .metadata
        .insert("risk".into(), "read".into());
    let mut per_script = TestSkill::new("scripts-only");
    per_script
        .frontmatter
        .metadata
        .insert("risk.scripts/a.sh".into(), "read".into());
    let mut invalid = TestSkill::new("wrong");
    invalid
        .frontmatter
        .metadata
        .insert("risk".into(), "very".into());
    let run = run(vec![
        Arc::new(declared) as Arc<dyn Skill>,
        Arc::new(per_script),
        Arc::new(invalid),
    ])
    .await;
    let instructions = run.instructions().unwrap();
    let start = instructions.find("<available_skills>").unwrap();
    let end = instructions.find("</available_skills>").unwrap();
    assert_eq!(
        &instructions[start..end],
        "<available_skills>
  <skill>
    <name>ops</name>
    <description>The ops skill.</description>
    <risk>read</risk>
  </skill>
  <skill>
    <name>scripts-only</name>
    <description>The scripts-only skill.</description>
  </skill>
  <skill>
    <name>wrong</name>
    <description>The wrong skill.</description>
  </skill>
"
    );
}

#[tokio::test]
async fn invisible_characters_in_an_inline_skill_are_escaped_in_the_catalog() {
    // "Ignore" in Unicode tag characters, a zero-width space and a right-to-left override.
    let hidden = "Fills PDF forms.\u{e0049}\u{e0067}\u{200b}\u{202e}";
    let run = run(vec![skill("pdf", hidden)]).await;
    let instructions = run.instructions().unwrap();
    assert!(
        instructions.contains(
            "<description>Fills PDF forms.\\u{e0049}\\u{e0067}\\u{200b}\\u{202e}</description>"
        ),
        "{instructions}"
    );
    assert!(!instructions.contains('\u{e0049}'));
    // Strictly validated, the same skill is refused.
    let error = skillful_inline::InlineSkill::builder("pdf", hidden)
        .instructions("Fill.")
        .validation(skillful_core::validate::ValidationMode::Strict)
        .build()
        .unwrap_err();
    assert!(error.to_string().contains("invisible character"), "{error}");
}
